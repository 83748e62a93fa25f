package cli

import (
	"fmt"
	"io"
	"os"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/gdtopo/gdtopo/advisor"
	"github.com/gdtopo/gdtopo/internal/nccllog"
	"github.com/gdtopo/gdtopo/internal/render"
	"github.com/gdtopo/gdtopo/internal/report"
)

// explainOptions are gdtopo explain's inputs.
type explainOptions struct {
	*globalOptions
	adviceOptions
	Output string // -o
	Log    string // LOG: a file, or - for standard input
	Source string // SOURCE: "" for none
	FailOn string // --fail-on
}

func newCmdExplain(g *globalOptions) *cobra.Command {
	opts := &explainOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use:   "explain LOG [SOURCE]",
		Short: "Explain an NCCL_DEBUG=INFO log: each rank's NIC and GDR, and why",
		Long: `Explain reads what NCCL or RCCL printed with NCCL_DEBUG=INFO (one rank's log or
many ranks' interleaved, with or without NCCL_DEBUG_SUBSYS, the output of
nccl-tests included) and says per rank what NCCL did: the GPU, the network and
the NICs its channels went through (through another rank's NIC for PXN),
whether they carried GPUDirect RDMA (/GDRDMA), and the intra-node transports.
Then one line per difference from what the host could do, with its cause and
remedy: GPUDirect RDMA off for an HCA (no peer memory), channels without
GDRDMA, sockets instead of RDMA, channels bunched on one NIC.

With SOURCE (the host's tree, as check reads it) each rank's GPU is found by
its bus address and set against gdtopo's rail plan and GPUDirect RDMA
verdict: a NIC across the sockets, a NIC other than the plan's, the plan's
NIC missing from NCCL's list (NCCL_IB_HCA). The host is matched by name;
when the log does not name the source's host, the plan is set against every
host of the log (the same hardware assumed) and the output says so.

LOG is recognised by its content; text with no NCCL line is an error. A log
cut short is read as far as it goes and marked partial.

Exit status 3 when a difference that costs bandwidth is at or above
--fail-on (critical by default; never: not at all).`,
		Example: `  $ gdtopo explain nccl.log
  $ gdtopo explain nccl.log host.tar.gz
  $ all_reduce_perf -g 8 2>&1 | gdtopo explain - -o json`,
		Args: args(cobra.RangeArgs(1, 2)),
		RunE: func(cmd *cobra.Command, a []string) error {
			opts.Log = a[0]
			if len(a) == 2 {
				opts.Source = a[1]
			}
			return explainRun(opts)
		},
	}
	opts.adviceOptions.addFlags(cmd, opts.IO)
	addOutputFlag(cmd, &opts.Output, render.ExplainFormats)
	addFailOnFlag(cmd, &opts.FailOn, "a difference that costs bandwidth")
	return cmd
}

func explainRun(opts *explainOptions) error {
	f, err := parseFormat(opts.Output, render.ExplainFormats)
	if err != nil {
		return err
	}
	if opts.FailOn, err = parseFailOn(opts.FailOn); err != nil {
		return err
	}
	if opts.Log == "-" && opts.Source == "-" {
		return usagef("LOG and SOURCE cannot both be standard input")
	}
	l, err := opts.readLog()
	if err != nil {
		return err
	}
	var r *report.Report
	var fromPrint string
	switch {
	case opts.Source != "":
		if r, err = opts.report(opts.Source, false, &opts.adviceOptions, reportOptions{NoHops: true}); err != nil {
			return err
		}
	case opts.Log != "-" && printed(l) != nil:
		// No SOURCE: NCCL's own topology print in the log is the host's
		// tree, read as check reads the log.
		h := printed(l)
		if r, err = opts.report(opts.Log, false, &opts.adviceOptions, reportOptions{NoHops: true}); err != nil {
			fromPrint = fmt.Sprintf("NCCL's topology print of host %s could not be read as a tree (%v): no plan to set against", orDash(h.Name), err)
		} else {
			fromPrint = fmt.Sprintf("no SOURCE: the plan is gdtopo's on NCCL's own topology print of host %s in the log (NICs named from the log's own NCCL lines where they list them), which lacks link speeds and what NCCL trimmed (gdtopo check LOG lists it)", orDash(h.Name))
		}
	}
	name := opts.Log
	if name == "-" {
		name = "standard input"
	}
	e := report.Explain(report.ExplainInput{Name: name, Log: l, Report: r, FailOn: opts.FailOn})
	if fromPrint != "" {
		e.Log.Notes = append(e.Log.Notes, fromPrint)
	}
	if err := render.Explain(opts.IO.Out, f, e, opts.IO.Style); err != nil {
		return err
	}
	if e.ExitStatus == report.ExitOK {
		return nil
	}
	return &exitError{code: e.ExitStatus, msg: fmt.Sprintf("%d difference(s) costing bandwidth at or above %s", countCosting(e), opts.FailOn)}
}

func countCosting(e *report.Explanation) int {
	n := 0
	for _, d := range e.Differences {
		if d.CostsBandwidth && advisor.Severity(d.Severity).AtLeast(advisor.Severity(e.FailOn)) {
			n++
		}
	}
	return n
}

// readLog reads LOG: standard input for -, else a file or a pipe, opened
// without blocking (a FIFO with no writer reads as empty instead of
// hanging the run).
func (o *explainOptions) readLog() (*nccllog.Log, error) {
	var in io.Reader = o.IO.In
	if o.Log != "-" {
		fd, err := os.OpenFile(o.Log, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
		if err != nil {
			return nil, err
		}
		defer fd.Close()
		fi, err := fd.Stat()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", o.Log, err)
		}
		if fi.IsDir() {
			return nil, fmt.Errorf("%s: a folder, not a log", o.Log)
		}
		in = fd
	}
	if in == nil {
		return nil, fmt.Errorf("standard input: nothing to read")
	}
	name := o.Log
	if name == "-" {
		name = "standard input"
	}
	return nccllog.Parse(name, in)
}

// printed returns the first host of l whose topology print the log holds,
// the one check LOG reads; nil when none.
func printed(l *nccllog.Log) *nccllog.Host {
	for _, h := range l.Hosts {
		if h.System != nil {
			return h
		}
	}
	return nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
