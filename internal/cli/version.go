package cli

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// versionOptions are gdtopo version's inputs.
type versionOptions struct {
	*globalOptions
	// BuildInfo reads the binary's build information; nil is
	// debug.ReadBuildInfo.
	BuildInfo func() (*debug.BuildInfo, bool)
}

func newCmdVersion(g *globalOptions) *cobra.Command {
	opts := &versionOptions{globalOptions: g}
	return &cobra.Command{
		Use:   "version",
		Short: "Print gdtopo's version and how to install it",
		Long: `Version prints the module version gdtopo was built as (Go records it when
gdtopo is installed with go install MODULE@VERSION; "(devel)" for a build from
a checkout, with the commit when Go recorded one), the Go version, and the line
that installs it.`,
		Args: args(cobra.NoArgs),
		RunE: func(*cobra.Command, []string) error { return versionRun(opts) },
	}
}

func versionRun(opts *versionOptions) error {
	read := opts.BuildInfo
	if read == nil {
		read = debug.ReadBuildInfo
	}
	out := opts.IO.Out
	info, ok := read()
	if !ok {
		fmt.Fprintf(out, "gdtopo %s (no build information in the binary)\n", version)
	} else {
		v := info.Main.Version
		if v == "" {
			v = "(devel)"
		}
		line := "gdtopo " + v
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" {
				line += " commit " + s.Value
			}
			if s.Key == "vcs.modified" && s.Value == "true" {
				line += " (modified)"
			}
		}
		fmt.Fprintf(out, "%s, %s\n", line, info.GoVersion)
	}
	fmt.Fprintf(out, "install from a checkout: go install ./cmd/gdtopo\n")
	return nil
}
