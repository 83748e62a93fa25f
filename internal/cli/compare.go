package cli

import (
	"github.com/spf13/cobra"

	"github.com/gdtopo/gdtopo/internal/render"
	"github.com/gdtopo/gdtopo/internal/report"
)

// compareOptions are gdtopo compare's inputs.
type compareOptions struct {
	*globalOptions
	Output string // -o
	adviceOptions
	Sources []string
}

func newCmdCompare(g *globalOptions) *cobra.Command {
	opts := &compareOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use:   "compare A B [C ...]",
		Short: "Compare servers side by side for GPUDirect RDMA",
		Long: `Compare reads two or more sources (any kind, mixed: captured trees, archives,
lspci dumps, NCCL or hwloc topology files) and puts the servers side by side:
accelerators and NICs with their link generation and width, how many
accelerator-NIC pairs fall under each nvidia-smi label, the best one-to-one
assignment of accelerators to NICs with its worst and mean expected throughput,
and the findings by severity. It ranks the servers by the numbers the table
shows, in this order: share of accelerators the plan gives GPUDirect RDMA,
worst planned accelerator–NIC pair, mean planned pair, critical findings,
warning findings, accelerators, rail NICs, info findings; rail NICs are the
NICs the plan uses, and an accelerator whose GPUDirect RDMA verdict its
source leaves undecided is not counted in the share, which ranks two
servers only where their undecided accelerators could not turn it. The verdict
names the first of these on which the best two differ and by how much, and
says they tie when none ranks them, naming what tied and what was unknown.
Findings are counted against each other only between sources that show the
same of what they rest on: link state, ACS and NUMA nodes (the "Not shown"
row; an lspci -tv dump shows none of them), as fewer findings there may be
fewer seen. Before these, a server that cannot do GPUDirect RDMA at all (no
accelerator, or no NIC that may do RDMA) ranks below every one that can, and
two such servers tie; then a server whose accelerator-NIC paths are unknown
(plain lspci, or a source holding part of a machine: an lspci -tv fragment,
an NCCL topology cut at either end) ranks below one whose paths are all
known, and two such servers tie. A partial source that shows no accelerator
or no NIC may have them in the part it lacks: against a server that cannot
do GPUDirect RDMA nothing ranks it.

Head to head, these rules are not transitive (a measure unknown for one
server decides nothing against it), so with three servers or more the
ranks do not follow the order given: each server counts the servers it
ranks above less those ranked above it, the highest count ranks first, and
equal counts are settled the same way among themselves. Servers equal on
both share a rank; the verdict says when the first two were ranked by the
counts rather than head to head, or tie in a cycle.
-o markdown makes a report to send; -o json is for tools.

Text fits the terminal (or COLUMNS): servers whose names are too long are
headed by short names a legend spells out, and when they cannot stand side
by side each measure lists them one under another.`,
		Example: `  $ gdtopo compare vendor-a.txt vendor-b.txt
  $ gdtopo compare -o markdown fixtures/hgx-h100.tar.gz \
      fixtures/sys-4029gp-v100.tar.gz`,
		Args: args(cobra.MinimumNArgs(2)),
		RunE: func(cmd *cobra.Command, a []string) error {
			opts.Sources = a
			return compareRun(opts)
		},
	}
	opts.adviceOptions.addFlags(cmd, opts.IO)
	addOutputFlag(cmd, &opts.Output, render.ViewFormats)
	return cmd
}

func compareRun(opts *compareOptions) error {
	f, err := parseFormat(opts.Output, render.ViewFormats)
	if err != nil {
		return err
	}
	var servers []report.Server
	for _, name := range opts.Sources {
		r, err := opts.report(name, false, &opts.adviceOptions, reportOptions{})
		if err != nil {
			return err
		}
		servers = append(servers, report.ServerOf(r))
	}
	return render.Compare(opts.IO.Out, f, report.Compare(servers), opts.IO.Style)
}
