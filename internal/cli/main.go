// Package cli holds gdtopo's commands: one constructor and one options
// struct per command, output through injected streams, and one place that
// turns errors into exit codes.
package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/gdtopo/gdtopo/internal/outfile"
	"github.com/gdtopo/gdtopo/internal/render"
	"github.com/gdtopo/gdtopo/internal/report"
	"github.com/gdtopo/gdtopo/internal/source"
	"github.com/gdtopo/gdtopo/internal/termsafe"
)

// Exit codes, as Go's own tools use them, plus one for findings (the
// report's, internal/report).
const (
	ExitOK       = report.ExitOK       // success
	ExitError    = report.ExitError    // the command failed: bad input, unreadable source
	ExitUsage    = report.ExitUsage    // the command line was wrong
	ExitFindings = report.ExitFindings // the analysis found problems at or above --fail-on
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
	// Files is how output files (--output-file of export and snapshot) are
	// written; the zero value writes to the operating system's file system.
	Files outfile.Options
	// OpenSource opens a SOURCE that is a folder or archive; nil is
	// source.Open. Tests use it to make sources vanish mid-run.
	OpenSource func(name string) (*source.Source, error)
	// Style is how text output is laid out: width, colour (MainTerminal
	// sets them for a terminal); the zero value is plain and unwrapped.
	Style render.Style
	// NCCLEnv are the NCCL variables (advisor.NCCLEnvKeys) of the
	// environment gdtopo runs in, which the advice follows as the job
	// would; MainTerminal reads them, and nil (tests) is none.
	NCCLEnv map[string]string
	// Version is the version a release build was stamped with (-ldflags
	// "-X main.version=v1.2.3"); empty, gdtopo reports the one Go recorded.
	Version string
	// gc is the collector policy MainTerminal set (collectLate): with it, a
	// command that reads one source collects the reader's garbage before
	// analysing a large one (collectAfterReading), and a run over many
	// sources collects less often (gcPolicy.manySources). Nil, as in
	// tests, leaves Go's.
	gc *gcPolicy
}

// open opens a SOURCE that is a folder or archive, through op (which keeps
// buffers from one archive to the next) when it is not nil.
func (s *Streams) open(op *source.Opener, name string) (*source.Source, error) {
	switch {
	case s.OpenSource != nil:
		return s.OpenSource(name)
	case op != nil:
		return op.Open(name)
	}
	return source.Open(name)
}

// Main runs gdtopo with args (without the program name) and returns the exit
// code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return mainStreams(args, &Streams{In: stdin, Out: stdout, Err: stderr})
}

// mainStreams is Main with every stream and dependency given.
//
// Standard output is written through an outfile.StickyWriter: after a failed write
// (a full disk, a closed pipe) every later write fails the same way, and a
// command that did not notice still ends with exit status 1 and one line
// saying so. A closed pipe (EPIPE: gdtopo check | head -1) ends it quietly
// with status 1; the gdtopo binary never gets that far, as Go's runtime ends
// a program whose standard output is a closed pipe with SIGPIPE, quietly,
// as cat and grep end.
func mainStreams(args []string, s *Streams) int {
	out := &outfile.StickyWriter{W: s.Out, Wrap: stdoutError}
	streams := *s
	streams.Out = out
	root := newRootCmdFor(&streams, args)
	root.SetArgs(args)
	cmd, err := root.ExecuteC()
	if out.Err != nil {
		var ee *exitError
		switch {
		case errors.Is(out.Err, syscall.EPIPE):
		case errors.As(err, &ee) && ee.code != ExitFindings:
			// each source's problems, the failed writes among them, were reported
		case err == nil, errors.Is(err, out.Err), errors.As(err, &ee):
			fmt.Fprintf(s.Err, "gdtopo: %s\n", termsafe.Text(out.Err.Error()))
		default:
			fmt.Fprintf(s.Err, "gdtopo: %s\n", termsafe.Text(err.Error()))
			fmt.Fprintf(s.Err, "gdtopo: %s\n", termsafe.Text(out.Err.Error()))
		}
		return ExitError
	}
	if err == nil {
		return ExitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.msg != "" {
			fmt.Fprintf(s.Err, "gdtopo: %s\n", termsafe.Text(ee.msg))
		}
		return ee.code // each source's problems were reported as they came
	}
	var ue *usageError
	// Cobra's own command-line checks come back as plain errors.
	if errors.As(err, &ue) || strings.HasPrefix(err.Error(), "unknown command") || strings.HasPrefix(err.Error(), "required flag(s)") {
		// Block: cobra's suggestions ("Did you mean this?") take lines of
		// their own.
		fmt.Fprintf(s.Err, "gdtopo: %s\n", termsafe.Block(strings.TrimRight(err.Error(), "\n")))
		fmt.Fprintf(s.Err, "Run '%s --help' for usage.\n", cmd.CommandPath())
		return ExitUsage
	}
	fmt.Fprintf(s.Err, "gdtopo: %s\n", termsafe.Text(err.Error()))
	return ExitError
}

// stdoutError names standard output in the error of a failed write to it.
func stdoutError(err error) error {
	if pe, ok := err.(*fs.PathError); ok {
		err = pe.Err // "write /dev/stdout: ..." names the device, not what the user knows
	}
	return fmt.Errorf("write standard output: %w", outfile.Explain(err))
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
