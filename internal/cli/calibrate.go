package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/gdtopo/gdtopo/advisor"
	"github.com/gdtopo/gdtopo/internal/nccllog"
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
		Use:   "calibrate SOURCE PERFTEST_OR_NCCL_TESTS_OUTPUT...",
		Short: "Fit the model to perftest runs; set nccl-tests against it",
		Long: `Calibrate reads what ib_write_bw or ib_read_bw printed on this host, run
with --use_cuda or --use_cuda_dmabuf (one file per side of a run: the
server's NIC writes GPU memory in ib_write_bw and reads it in ib_read_bw, the
client's the opposite), matches each to its accelerator-NIC pair of SOURCE
by the RDMA device and the CUDA device's PCIe address perftest prints, fits
the model numbers those pairs rest on (the root-complex factor of a write
through the CPU, the cross-socket cap, the read factor), prints measured
against predicted before and after, and writes the fitted numbers as a
--model file. Same-switch pairs run at the link's rate: they fit nothing.

nccl-tests output (all_reduce_perf and friends, alone or inside an
NCCL_DEBUG=INFO log; told apart by its algbw and busbw columns) fits nothing
either: busbw mixes every rank's reads and writes, the network and NCCL's
algorithm. Its highest busbw is set against the plan: for a run across hosts,
against the planned NIC shares of the accelerators one host's ranks ran on
(the "# Using devices" list), every host taken to be built like SOURCE; for a
run on one host it is GPU to GPU (NVLink, PCIe), not the NIC path, and says so.`,
		Example: `  $ gdtopo calibrate host.tar.gz write-server.txt read-server.txt \
      --output-file site-model.json
  $ gdtopo check host.tar.gz --model site-model.json
  $ gdtopo calibrate host.tar.gz all_reduce_perf-2nodes.txt`,
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
	var runs []advisor.BusBWRun
	for _, name := range opts.Measured {
		data, err := readMeasurement(name)
		if err != nil {
			return err
		}
		if isNCCLTests(data) {
			run, err := busBWRun(name, data)
			if err != nil {
				return err
			}
			runs = append(runs, run)
			continue
		}
		m, err := advisor.ParsePerftest(name, bytes.NewReader(data))
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
	checks, err := advisor.CheckBusBW(a.g, a.g.Pairs(), advisor.Options{NCCLVersion: opts.NCCLVersion, Model: fitted, Env: opts.env}, runs)
	if err != nil {
		return err
	}
	c := &render.Calibration{Fits: fits, BusBW: checks, Model: js}
	if opts.File != "" && opts.File != "-" && len(fits) > 0 {
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

// maxMeasurement bounds a measurement file read whole: perftest and
// nccl-tests outputs are kilobytes, an NCCL_DEBUG=INFO log beside a table
// a few megabytes.
const maxMeasurement = 64 << 20

func readMeasurement(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxMeasurement+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(data) > maxMeasurement {
		return nil, fmt.Errorf("%s: over %d MiB: not perftest or nccl-tests output", name, maxMeasurement>>20)
	}
	return data, nil
}

// isNCCLTests reports output of nccl-tests (all_reduce_perf and friends):
// its table header names algbw and busbw columns (src/common.cu).
func isNCCLTests(data []byte) bool {
	return bytes.Contains(data, []byte("busbw")) && bytes.Contains(data, []byte("algbw"))
}

// busBWRun reads an nccl-tests output, with or without an NCCL_DEBUG=INFO
// log around it, through internal/nccllog.
func busBWRun(name string, data []byte) (advisor.BusBWRun, error) {
	l, err := nccllog.Parse(name, bytes.NewReader(data))
	if err != nil {
		return advisor.BusBWRun{}, err
	}
	if len(l.BusBW) == 0 {
		return advisor.BusBWRun{}, fmt.Errorf("%s: nccl-tests output with no result row (size count type ... busbw): cut off before its table", name)
	}
	run := advisor.BusBWRun{From: name, Rows: len(l.BusBW)}
	for _, r := range l.TestRanks {
		run.Ranks = append(run.Ranks, advisor.BusBWRank{Host: r.Host, Bus: r.Bus})
	}
	for _, h := range l.Hosts {
		run.LogHosts = append(run.LogHosts, h.Name)
	}
	for _, row := range l.BusBW {
		for _, v := range []float64{row.OutOfPlace, row.InPlace} {
			if v > run.PeakGBps {
				run.PeakGBps, run.PeakBytes = v, row.Bytes
			}
		}
	}
	return run, nil
}
