package cli

import (
	"bytes"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/gdtopo/gdtopo/internal/export"
	"github.com/gdtopo/gdtopo/internal/outfile"
)

// exportOptions are gdtopo export's inputs.
type exportOptions struct {
	*globalOptions
	Source string
	Format string // --format
	File   string // -o FILE; "" or "-" is standard output
}

// exportFormats are what --format takes.
var exportFormats = []string{"nccl-xml", "dot", "svg"}

func newCmdExport(g *globalOptions) *cobra.Command {
	opts := &exportOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use:   "export --format nccl-xml|dot|svg [SOURCE] [-o FILE]",
		Short: "Write the topology as an NCCL topology file or a picture",
		Long: `Export writes SOURCE's topology for other tools:

  nccl-xml  an NCCL_TOPO_FILE in NCCL's own schema (the collapsed tree NCCL
            builds from sysfs), for VMs whose PCI tree is virtual and for
            pinning a known-good layout; gdtopo reads it back to the same NCCL
            labels
  svg       a picture drawn by gdtopo itself: NUMA nodes, host bridges,
            switches, accelerators and NICs with their links, each
            accelerator's best NIC and the table of every pair's label
  dot       the same picture for Graphviz (dot -Tpng)

The file is written whole or not at all: to a temporary name, then renamed.`,
		Example: `  $ gdtopo export --format nccl-xml -o /etc/nccl-topo.xml
  $ gdtopo export --format svg fixtures/hgx-h100 -o hgx.svg`,
		Args: args(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			if len(a) == 1 {
				opts.Source = a[0]
			}
			return exportRun(opts)
		},
	}
	cmd.Flags().StringVar(&opts.Format, "format", "", "nccl-xml, dot or svg (required)")
	cmd.Flags().StringVarP(&opts.File, "output", "o", "", "file to write (default: standard output)")
	_ = cmd.MarkFlagRequired("format")
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions(exportFormats, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

func exportRun(opts *exportOptions) error {
	var write func(io.Writer, *analysis) error
	switch opts.Format {
	case "nccl-xml":
		write = func(w io.Writer, a *analysis) error {
			if err := export.NCCLXML(w, a.g); err != nil {
				return fmt.Errorf("%s: %w", a.src.Name, err)
			}
			return nil
		}
	case "dot":
		write = func(w io.Writer, a *analysis) error { return export.DOT(w, a.g, a.aliases) }
	case "svg":
		write = func(w io.Writer, a *analysis) error { return export.SVG(w, a.g, a.aliases) }
	default:
		return usagef("invalid --format %q: valid formats are nccl-xml, dot, svg", opts.Format)
	}
	a, err := opts.load(opts.Source, false)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := write(&buf, a); err != nil {
		return err
	}
	if opts.File == "" || opts.File == "-" {
		_, err := opts.IO.Out.Write(buf.Bytes())
		return err
	}
	return outfile.Write(opts.File, opts.IO.Files, func(w io.Writer) error {
		_, err := w.Write(buf.Bytes())
		return err
	})
}
