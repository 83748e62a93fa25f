package cli

import (
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/gdtopo/gdtopo/advisor"
	"github.com/gdtopo/gdtopo/internal/outfile"
	"github.com/gdtopo/gdtopo/internal/render"
)

// calibrateOptions are gdtopo calibrate's inputs.
type calibrateOptions struct {
	*globalOptions
	adviceOptions
	Source   string
	Measured []string // perftest output files
	File     string   // --output-file: the fitted --model file
}

func newCmdCalibrate(g *globalOptions) *cobra.Command {
	opts := &calibrateOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use:   "calibrate SOURCE PERFTEST_OUTPUT...",
		Short: "Fit the throughput model to ib_write_bw/ib_read_bw runs on a host",
		Long: `Calibrate reads what ib_write_bw or ib_read_bw printed on this host, run
with --use_cuda or --use_cuda_dmabuf (one file per side of a run: the
server's NIC writes GPU memory in ib_write_bw and reads it in ib_read_bw, the
client's the opposite), matches each to its accelerator-NIC pair of SOURCE
by the RDMA device and the CUDA device's PCIe address perftest prints, fits
the model numbers those pairs rest on (the root-complex factor of a write
through the CPU, the cross-socket cap, the read factor), prints measured
against predicted before and after, and writes the fitted numbers as a
--model file. Same-switch pairs run at the link's rate: they fit nothing.`,
		Example: `  $ gdtopo calibrate host.tar.gz write-server.txt read-server.txt \
      --output-file site-model.json
  $ gdtopo check host.tar.gz --model site-model.json`,
		Args: args(cobra.MinimumNArgs(2)),
		RunE: func(cmd *cobra.Command, a []string) error {
			opts.Source, opts.Measured = a[0], a[1:]
			return calibrateRun(opts)
		},
	}
	opts.adviceOptions.addFlags(cmd, opts.IO)
	cmd.Flags().StringVar(&opts.File, "output-file", "", "file to write the fitted --model JSON to; - or none: standard output, after the table")
	return cmd
}

func calibrateRun(opts *calibrateOptions) error {
	if err := opts.adviceOptions.validate(); err != nil {
		return err
	}
	var ms []advisor.Measurement
	for _, name := range opts.Measured {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		m, err := advisor.ParsePerftest(name, f)
		f.Close()
		if err != nil {
			return err
		}
		ms = append(ms, m)
	}
	a, err := opts.load(opts.Source, false)
	if err != nil {
		return err
	}
	base, err := opts.adviceOptions.loadModel()
	if err != nil {
		return err
	}
	if base == nil {
		base = advisor.DefaultModel()
	}
	fitted, fits, err := advisor.Calibrate(a.g, a.g.Pairs(), advisor.Options{NCCLVersion: opts.NCCLVersion, Model: base, Env: opts.env}, ms)
	if err != nil {
		return err
	}
	js, err := fitted.Changed(advisor.DefaultModel())
	if err != nil {
		return err
	}
	c := &render.Calibration{Fits: fits, Model: js}
	if opts.File != "" && opts.File != "-" {
		if err := outfile.Write(opts.File, opts.IO.Files, func(w io.Writer) error {
			_, err := w.Write(js)
			return err
		}); err != nil {
			return err
		}
		c.Wrote = opts.File
	}
	return render.Calibrate(opts.IO.Out, c, opts.IO.Style)
}
