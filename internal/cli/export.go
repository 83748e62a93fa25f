package cli

import (
	"bytes"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/gdtopo/gdtopo/internal/outfile"
	"github.com/gdtopo/gdtopo/internal/render"
)

// exportOptions are gdtopo export's inputs.
type exportOptions struct {
	*globalOptions
	Output string // -o
	adviceOptions
	Source string
	File   string // --output-file, or the second argument; "" or "-" is standard output
}

func newCmdExport(g *globalOptions) *cobra.Command {
	opts := &exportOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use:   "export -o nccl-xml|svg|dot|html [SOURCE] [FILE]",
		Short: "Write the topology as an NCCL topology file, picture or web page",
		Long: `Export writes SOURCE's topology for other tools, in the format -o names:

  nccl-xml  an NCCL_TOPO_FILE in NCCL's own schema (the collapsed tree NCCL
            builds from sysfs), for VMs whose PCI tree is virtual and for
            pinning a known-good layout; gdtopo reads it back to the same NCCL
            labels
  svg       a picture drawn by gdtopo itself: NUMA nodes, host bridges,
            switches, accelerators and NICs with their links, each
            accelerator's best NIC (the rail plan's, as gdtopo check gives it)
            and the table of every pair's label
  dot       the same picture for Graphviz (dot -Tpng)
  html      one self-contained page to send around (no network, inline
            style and script): the summary, the matrix (click a label for
            the pair's path, hops, link widths and speeds, and the
            arithmetic of its prediction), the rail plan, the findings and
            the picture

The file is --output-file FILE, or the argument after SOURCE; without one, or
with -, standard output. A file is written whole or not at all: to a
temporary name, then renamed.`,
		Example: `  $ gdtopo export -o nccl-xml --output-file /etc/nccl-topo.xml
  $ gdtopo export -o svg fixtures/hgx-h100.tar.gz hgx.svg
  $ gdtopo export -o dot fixtures/hgx-h100.tar.gz | dot -Tpng > hgx.png
  $ gdtopo export -o html fixtures/hgx-h100.tar.gz hgx.html`,
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
			return exportRun(opts)
		},
	}
	opts.adviceOptions.addFlags(cmd, opts.IO)
	addOutputFlag(cmd, &opts.Output, render.ExportFormats)
	cmd.Flags().StringVar(&opts.File, "output-file", "", "file to write; - or none: standard output")
	return cmd
}

func exportRun(opts *exportOptions) error {
	f, err := parseFormat(opts.Output, render.ExportFormats)
	if err != nil {
		return err
	}
	// The page shows each pair's arithmetic, as path --explain does.
	r, err := opts.report(opts.Source, false, &opts.adviceOptions, reportOptions{Explain: f == render.HTML})
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := render.Export(&buf, f, r); err != nil {
		return fmt.Errorf("%s: %w", r.Source.Name, err)
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
