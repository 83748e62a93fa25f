package cli

import (
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gdtopo/gdtopo/advisor"
	"github.com/gdtopo/gdtopo/internal/render"
	"github.com/gdtopo/gdtopo/topology"
)

// compareOptions are gdtopo compare's inputs.
type compareOptions struct {
	*globalOptions
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
and the findings by severity. It ranks the servers and says why the first is
better. -o markdown makes a report to send; -o json is for tools.`,
		Example: `  $ gdtopo compare vendor-a.txt vendor-b.txt
  $ gdtopo compare fixtures/hgx-h100 fixtures/sys-4029gp-v100 -o markdown`,
		Args: args(cobra.MinimumNArgs(2)),
		RunE: func(cmd *cobra.Command, a []string) error {
			opts.Sources = a
			return compareRun(opts)
		},
	}
	opts.addFlags(cmd)
	g.addOutputFlag(cmd)
	return cmd
}

// server is one compared source, analysed.
type server struct {
	Name     string         `json:"source"`
	Format   string         `json:"format"`
	Rank     int            `json:"rank"` // 1 is best
	Summary  map[string]any `json:"summary"`
	Worst    float64        `json:"worst_gbps"`
	Mean     float64        `json:"mean_gbps"`
	Critical int            `json:"critical"`
	Warning  int            `json:"warning"`
	Info     int            `json:"info"`
	Codes    []string       `json:"finding_codes"`
	Labels   map[string]int `json:"pairs_by_label"`
	rows     map[string]string
}

func compareRun(opts *compareOptions) error {
	f, err := opts.format()
	if err != nil {
		return err
	}
	var servers []*server
	for _, name := range opts.Sources {
		a, err := opts.load(name, false)
		if err != nil {
			return err
		}
		res, err := a.advise(&opts.adviceOptions, false)
		if err != nil {
			return err
		}
		servers = append(servers, a.serverSummary(res))
	}
	ranked := append([]*server(nil), servers...)
	sort.SliceStable(ranked, func(i, j int) bool { return better(ranked[i], ranked[j]) })
	for i, s := range ranked {
		s.Rank = i + 1
		s.rows["Rank"] = fmt.Sprint(s.Rank)
	}
	verdict := why(ranked[0], ranked[1])
	if f == render.JSON {
		return writeJSON(opts.IO.Out, map[string]any{"servers": servers, "verdict": verdict})
	}
	p := render.NewPrinter(opts.IO.Out, f)
	if f == render.Markdown {
		p.Printf("# gdtopo compare\n")
	}
	header := []string{""}
	for _, s := range servers {
		header = append(header, s.Name)
	}
	var rows [][]string
	for _, key := range compareRows {
		row := []string{key}
		for _, s := range servers {
			row = append(row, s.rows[key])
		}
		rows = append(rows, row)
	}
	p.Heading("Servers")
	if err := p.Table(header, rows); err != nil {
		return err
	}
	p.Heading("Verdict")
	p.Printf("%s\n", verdict)
	return nil
}

// compareRows are the rows of the comparison table, in order.
var compareRows = []string{"Format", "CPU", "NUMA nodes", "Accelerators", "NICs (RDMA)", "PCIe switches",
	"Pairs by label", "Plan: worst pair", "Plan: mean", "Findings", "Finding codes", "Rank"}

// serverSummary condenses one analysis for the comparison.
func (a *analysis) serverSummary(res *advisor.Result) *server {
	g := a.g
	s := &server{Name: a.src.Name, Format: a.src.Format, Worst: res.Plan.WorstGbps, Mean: res.Plan.MeanGbps,
		Labels: map[string]int{}, rows: map[string]string{}}
	nics, _ := a.shownNICs()
	for _, acc := range g.OfKind(topology.KindAccelerator) {
		for _, n := range nics {
			p := g.Classify(acc, n)
			s.Labels[labelText(p.SMI, p.LabelUncertain)]++
		}
	}
	seen := map[string]bool{}
	for _, f := range res.Findings {
		switch f.Severity {
		case advisor.Critical:
			s.Critical++
		case advisor.Warning:
			s.Warning++
		default:
			s.Info++
		}
		if !seen[f.Code] {
			seen[f.Code] = true
			s.Codes = append(s.Codes, f.Code)
		}
	}
	for _, kv := range a.summary() {
		switch kv[0] {
		case "CPU", "NUMA nodes", "PCIe switches":
			s.rows[kv[0]] = kv[1]
		}
	}
	s.rows["Format"] = a.src.Format
	s.rows["Accelerators"] = a.census(g.OfKind(topology.KindAccelerator), true)
	s.rows["NICs (RDMA)"] = a.census(nics, true)
	var labels []string
	for _, l := range []string{"PIX", "PXB", "PHB", "NODE", "SYS"} {
		for _, k := range []string{l, l + "?"} { // NODE? counts apart from NODE
			if n := s.Labels[k]; n > 0 {
				labels = append(labels, fmt.Sprintf("%s %d", k, n))
			}
		}
	}
	if n := s.Labels[string(topology.Unknown)]; n > 0 {
		labels = append(labels, fmt.Sprintf("unknown %d", n))
	}
	s.rows["Pairs by label"] = strings.Join(labels, ", ")
	s.rows["Plan: worst pair"] = gbps(s.Worst)
	s.rows["Plan: mean"] = gbps(s.Mean)
	s.rows["Findings"] = fmt.Sprintf("%d critical, %d warning, %d info", s.Critical, s.Warning, s.Info)
	s.rows["Finding codes"] = strings.Join(s.Codes, ", ")
	s.rows["Rank"] = "" // set once all servers are read
	s.Summary = map[string]any{"accelerators": s.rows["Accelerators"], "nics": s.rows["NICs (RDMA)"], "cpu": s.rows["CPU"]}
	return s
}

// better ranks servers: the worst planned pair first (what a collective
// waits for), then the mean, then fewer critical and warning findings.
func better(x, y *server) bool {
	xu, yu := x.Labels[string(topology.Unknown)], y.Labels[string(topology.Unknown)]
	switch {
	case (xu == 0) != (yu == 0): // a server whose paths are unknown cannot be ranked first
		return xu == 0
	case x.Worst != y.Worst:
		return x.Worst > y.Worst
	case x.Mean != y.Mean:
		return x.Mean > y.Mean
	case x.Critical != y.Critical:
		return x.Critical < y.Critical
	}
	return x.Warning < y.Warning
}

// why says in one sentence why the first server beats the second.
func why(best, next *server) string {
	for _, s := range []*server{best, next} {
		if n := s.Labels[string(topology.Unknown)]; n > 0 {
			return fmt.Sprintf("%s cannot be ranked: %d of its accelerator-NIC paths are unknown (the source shows no PCI hierarchy: capture lspci -tv, or sudo lspci -vvv)", s.Name, n)
		}
	}
	var reasons []string
	if best.Worst != next.Worst {
		reasons = append(reasons, fmt.Sprintf("its worst accelerator-NIC pair is expected at %s against %s", gbps(best.Worst), gbps(next.Worst)))
	}
	if best.Mean != next.Mean {
		reasons = append(reasons, fmt.Sprintf("its mean at %s against %s", gbps(best.Mean), gbps(next.Mean)))
	}
	if best.Critical < next.Critical {
		reasons = append(reasons, fmt.Sprintf("%s has %d critical findings (%s)", next.Name, next.Critical, strings.Join(next.Codes, ", ")))
	}
	if len(reasons) == 0 {
		return fmt.Sprintf("%s and %s are equal on every measure gdtopo compares", best.Name, next.Name)
	}
	return fmt.Sprintf("%s is the better server for GPUDirect RDMA: %s.", best.Name, strings.Join(reasons, "; "))
}
