package cli

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/gdtopo/gdtopo/internal/outfile"
	"github.com/gdtopo/gdtopo/internal/render"
	"github.com/gdtopo/gdtopo/internal/snapshot"
	"github.com/gdtopo/gdtopo/internal/source"
	"github.com/gdtopo/gdtopo/internal/termsafe"
)

// snapshotOptions are gdtopo snapshot's inputs.
type snapshotOptions struct {
	*globalOptions
	Output   string // -o
	Source   string
	File     string // --output-file FILE.tar.gz, or the second argument; - is standard output
	NoRedact bool   // --no-redact
}

func newCmdSnapshot(g *globalOptions) *cobra.Command {
	opts := &snapshotOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use:   "snapshot [SOURCE] --output-file FILE.tar.gz",
		Short: "Capture exactly what gdtopo reads into a small archive",
		Long: `Snapshot captures what gdtopo reads, and what lspci and lstopo need to read the
copy, into a .tar.gz: the PCI tree with config space (as much as the user may
read: as root, all of it), link and attribute files, RDMA and network class
entries, IOMMU and peer-memory evidence, NUMA nodes and CPU topology,
/proc/cpuinfo and /proc/cmdline, with relative symbolic links and a small
manifest (gdtopo version, time, whether it ran as root).

The snapshot analyses exactly like the machine it was taken on. From a SOURCE
(a captured folder or archive, such as a hwloc-gather-topology tarball) it
re-captures just that subset. MAC addresses, serial numbers and GUIDs are
left out unless --no-redact. The file is written whole or not at all. A
function that goes away while being captured (hot-unplugged) is left out
whole, with a warning on standard error, and listed in the manifest.

The archive is --output-file FILE, or the argument after SOURCE; - writes it
to standard output, for another gdtopo to read from its standard input.`,
		Example: `  $ gdtopo snapshot --output-file $(hostname).tar.gz
  $ gdtopo snapshot hwloc-capture.tar.bz2 small.tar.gz
  $ gdtopo check $(hostname).tar.gz
  $ ssh host gdtopo snapshot --output-file - | gdtopo check -`,
		Args: args(cobra.MaximumNArgs(2)),
		RunE: func(cmd *cobra.Command, a []string) error {
			if len(a) >= 1 {
				opts.Source = a[0]
			}
			if len(a) == 2 {
				if opts.File != "" {
					return usagef("give the output file once: --output-file %s or %s", opts.File, a[1])
				}
				opts.File = a[1]
			}
			if _, err := parseFormat(opts.Output, snapshotFormats); err != nil {
				return err
			}
			if opts.File == "" {
				return usagef("snapshot needs a file to write: --output-file FILE.tar.gz, or - for standard output")
			}
			return snapshotRun(opts)
		},
	}
	addOutputFlag(cmd, &opts.Output, snapshotFormats)
	cmd.Flags().StringVar(&opts.File, "output-file", "", "archive to write; - for standard output (required)")
	cmd.Flags().BoolVar(&opts.NoRedact, "no-redact", false, "keep serial numbers and InfiniBand GUIDs")
	return cmd
}

// snapshotFormats are what snapshot writes: a gzip-compressed tar archive.
var snapshotFormats = []render.Format{"tar.gz"}

func snapshotRun(opts *snapshotOptions) error {
	src := source.Live()
	if opts.Source != "" {
		var err error
		if src, err = opts.IO.open(nil, opts.Source); err != nil {
			return err
		}
	}
	var st snapshot.Stats
	write := func(w io.Writer) error {
		var err error
		st, err = snapshot.Capture(src.Root, w, snapshot.Options{
			Redact:  !opts.NoRedact,
			Version: readVersion(opts.IO.Version, debug.ReadBuildInfo).Version,
			Source:  src.Name,
			Root:    src.Kind == source.KindLive && os.Geteuid() == 0,
		})
		if err != nil {
			return fmt.Errorf("%s: %w", src.Name, err) // about the source, not the file
		}
		return nil
	}
	var err error
	if opts.File == "-" {
		err = write(opts.IO.Out)
	} else {
		err = outfile.Write(opts.File, opts.IO.Files, write)
	}
	if err != nil {
		return err
	}
	for _, bdf := range st.Vanished {
		fmt.Fprintf(opts.IO.Err, "gdtopo: warning: %s: function %s went away while being captured (hot-unplugged?): left out of %s\n", termsafe.Text(src.Name), bdf, termsafe.Text(opts.File))
	}
	return nil
}
