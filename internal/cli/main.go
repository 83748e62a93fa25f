// Package cli holds gdtopo's commands: one constructor and one options
// struct per command, output through injected streams, and one place that
// turns errors into exit codes.
package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
)

// Exit codes, as Go's own tools use them, plus one for findings.
const (
	ExitOK       = 0 // success
	ExitError    = 1 // the command failed: bad input, unreadable source
	ExitUsage    = 2 // the command line was wrong
	ExitFindings = 3 // the analysis found problems at or above --fail-on
)

// usageError is a mistake on the command line.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

func usagef(format string, a ...any) error { return &usageError{fmt.Errorf(format, a...)} }

// Streams are where a command reads and writes.
type Streams struct {
	In       io.Reader // for the SOURCE "-"
	Out, Err io.Writer
}

// Main runs gdtopo with args (without the program name) and returns the exit
// code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := NewRootCmd(&Streams{In: stdin, Out: stdout, Err: stderr})
	root.SetArgs(args)
	cmd, err := root.ExecuteC()
	if err == nil {
		return ExitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code // each source's problems were reported as they came
	}
	var fe *findingsError
	if errors.As(err, &fe) {
		fmt.Fprintf(stderr, "gdtopo: %v\n", err)
		return ExitFindings
	}
	var ue *usageError
	// Cobra's own command-line checks come back as plain errors.
	if errors.As(err, &ue) || strings.HasPrefix(err.Error(), "unknown command") || strings.HasPrefix(err.Error(), "required flag(s)") {
		fmt.Fprintf(stderr, "gdtopo: %v\n", err)
		fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", cmd.CommandPath())
		return ExitUsage
	}
	fmt.Fprintf(stderr, "gdtopo: %v\n", err)
	return ExitError
}

// args wraps a cobra argument check so its error counts as a usage error.
func args(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, a []string) error {
		if err := check(cmd, a); err != nil {
			return &usageError{err}
		}
		return nil
	}
}
