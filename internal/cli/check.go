package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gdtopo/gdtopo/advisor"
	"github.com/gdtopo/gdtopo/internal/render"
	"github.com/gdtopo/gdtopo/internal/report"
	"github.com/gdtopo/gdtopo/topology"
)

// checkOptions are gdtopo check's inputs.
type checkOptions struct {
	*globalOptions
	adviceOptions
	Sources []string // none: this machine
	FailOn  string   // --fail-on
}

func newCmdCheck(g *globalOptions) *cobra.Command {
	opts := &checkOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use:   "check [SOURCE ...]",
		Short: "Report how every accelerator reaches every NIC",
		Long: `Check reads SOURCE (this machine when omitted) and prints a summary of the host,
the accelerator x NIC matrix in nvidia-smi's labels with CPU and NUMA affinity,
one row per accelerator-NIC pair (nvidia-smi's label, NCCL's label, the path in
plain words, its narrowest PCIe link, the direct-RDMA throughput to expect, its
efficiency against what the NIC alone could do, and whether NCCL would use
GPUDirect RDMA), the findings with their remedies, and a rail plan: which NIC
each accelerator should use, with the settings for each local rank.

Given several sources (files, folders, archives, or quoted globs such as
'snapshots/*.tar.gz'), check reports on each in turn; a source that fails is
reported on its own and does not stop the rest, and the exit status is the
highest of all (3 over 1 over 0). For fleets: -o jsonl writes one JSON object
per source, -o prometheus the text format for node_exporter's textfile
collector, -o nfd a Kubernetes Node Feature Discovery feature file (one source).

Findings have stable codes (see the README) and a severity: critical, warning
or info. With --fail-on, the exit status is 3 when a finding reaches that
level, so health checks (Slurm NHC, Kubernetes probes) can use it.

The throughput model's numbers, each replaceable with --model FILE (a JSON
object of key: value, for example with your own ib_write_bw --use_cuda results):
` + modelKeys(),
		Example: `  $ gdtopo check
  $ gdtopo check fixtures/hgx-h100
  $ gdtopo check host.tar.bz2 -o json
  $ gdtopo check --fail-on warning; echo $?
  $ gdtopo check 'snapshots/*.tar.gz' -o jsonl`,
		Args: args(cobra.ArbitraryArgs),
		RunE: func(cmd *cobra.Command, a []string) error {
			opts.Sources = a
			return checkRun(opts)
		},
	}
	opts.addFlags(cmd)
	g.addOutputFlag(cmd, formatJSONL, formatPrometheus, formatNFD)
	cmd.Flags().StringVar(&opts.FailOn, "fail-on", string(advisor.Critical), "exit with status 3 when a finding is at least this severe: critical, warning or info")
	return cmd
}

func checkRun(opts *checkOptions) error {
	level, err := advisor.ParseSeverity(opts.FailOn)
	if err != nil {
		return &usageError{fmt.Errorf("--fail-on: %w", err)}
	}
	opts.Sources = expandSources(opts.Sources)
	switch opts.Output {
	case formatJSONL, formatPrometheus, formatNFD:
		if len(opts.Sources) == 0 {
			opts.Sources = []string{""}
		}
		return fleetRun(opts, level)
	}
	if len(opts.Sources) > 1 {
		return fleetRun(opts, level)
	}
	name := ""
	if len(opts.Sources) == 1 {
		name = opts.Sources[0]
	}
	return checkOne(opts, name, level)
}

// checkOne checks one source in a table, markdown or JSON format. When
// writing to standard output failed, the failed write is its error (unless
// the source itself failed), whether or not the report noticed: a fleet run
// then reports it for each source.
func checkOne(opts *checkOptions, name string, level advisor.Severity) error {
	err := checkReport(opts, name, level)
	var fe *findingsError
	if werr := opts.outErr(); werr != nil && (err == nil || errors.As(err, &fe)) {
		return werr
	}
	return err
}

// checkReport writes checkOne's report.
func checkReport(opts *checkOptions, name string, level advisor.Severity) error {
	f, a, err := opts.start(name, false)
	if err != nil {
		return err
	}
	res, err := a.advise(&opts.adviceOptions, false)
	if err != nil {
		return err
	}
	if f == render.JSON {
		if err := writeJSON(opts.IO.Out, report.New(a.sourceInfo(), a.g, a.allPairs(), res)); err != nil {
			return err
		}
		return failOn(res, level)
	}
	p := render.NewPrinter(opts.IO.Out, f)
	if f == render.Markdown {
		p.Printf("# gdtopo check: %s\n", a.src.Name)
	}
	p.Heading("Summary")
	if err := p.Table([]string{"Item", "Value"}, a.summary()); err != nil {
		return err
	}
	accels := a.g.OfKind(topology.KindAccelerator)
	if len(accels) == 0 {
		p.Printf("\nno accelerators found among %d PCI functions\n", len(a.g.Devices))
		return a.writeWarnings(p)
	}
	predictions := map[[2]*topology.Device]*advisor.Prediction{}
	for i, pr := range res.Predictions {
		predictions[[2]*topology.Device{pr.GPU, pr.NIC}] = &res.Predictions[i]
	}
	nics, hidden := a.shownNICs()
	// The tables show the accelerator-NIC pairs of the shown NICs, labelled
	// already for the advisor (accelerator first).
	labelled := map[[2]*topology.Device]topology.Pair{}
	for _, pr := range a.allPairs() {
		labelled[[2]*topology.Device{pr.A, pr.B}] = pr
	}
	accelNIC := make([]topology.Pair, 0, len(accels)*len(nics))
	for _, g := range accels {
		for _, n := range nics {
			accelNIC = append(accelNIC, labelled[[2]*topology.Device{g, n}])
		}
	}
	if len(nics) == 0 {
		p.Printf("\nno NICs found among %d PCI functions: nothing for GPUDirect RDMA to use\n", len(a.g.Devices))
	} else {
		p.Heading("Accelerator x NIC (nvidia-smi labels)")
		if err := a.writeMatrix(p, accels, nics, accelNIC); err != nil {
			return err
		}
		p.Heading("Accelerator-NIC pairs")
		if err := a.writePairs(p, accelNIC, predictions); err != nil {
			return err
		}
		if len(hidden) > 0 {
			p.Printf("\n%d NIC functions without an RDMA device are not shown (GPUDirect RDMA needs one; -o json lists every pair): %s\n",
				len(hidden), bdfs(hidden))
		}
	}
	if err := a.writePlan(p, res); err != nil {
		return err
	}
	a.writeFindings(p, res)
	if err := a.writeWarnings(p); err != nil {
		return err
	}
	return failOn(res, level)
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// summary is the check's first table.
func (a *analysis) summary() [][]string {
	s := a.g.System
	unknown := func(v string) string {
		if v == "" {
			return "unknown"
		}
		return v
	}
	cpu := unknown(s.CPUModel)
	if s.Sockets > 0 {
		cpu = fmt.Sprintf("%d x %s", s.Sockets, cpu)
	}
	if s.CPUVendor != "" && s.CPUFamily >= 0 {
		cpu += fmt.Sprintf(" (%s family %d model %d)", s.CPUVendor, s.CPUFamily, s.CPUModelID)
	}
	if s.LogicalCPUs > 0 {
		cpu += fmt.Sprintf(", %d logical CPUs", s.LogicalCPUs)
	}
	numa := "unknown"
	if n := len(s.NUMANodes); n > 0 {
		var per []string
		for _, node := range s.NUMANodes {
			sock := "socket ?"
			if node.Socket >= 0 {
				sock = "socket " + strconv.Itoa(node.Socket)
			}
			per = append(per, fmt.Sprintf("%d: %s", node.ID, sock))
		}
		numa = fmt.Sprintf("%d (%s)", n, strings.Join(per, ", "))
	}
	lacks := "nothing"
	if len(a.g.Lacks) > 0 {
		lacks = strings.Join(a.g.Lacks, "; ")
	}
	switches := a.census(a.g.TopSwitches(), false)
	if levels, top := len(a.g.Switches()), len(a.g.TopSwitches()); levels != top {
		switches += fmt.Sprintf(" (%d switch levels)", levels)
	}
	return [][]string{
		{"Source", fmt.Sprintf("%s (%s)", a.src.Name, a.src.Format)},
		{"Host", unknown(s.Hostname)},
		{"CPU", cpu},
		{"NUMA nodes", numa},
		{"Accelerators", a.census(a.g.OfKind(topology.KindAccelerator), false)},
		{"NICs", a.census(a.g.OfKind(topology.KindNIC), false)},
		{"PCIe switches", switches},
		{"PCI functions", strconv.Itoa(len(a.g.Devices))},
		{"Source lacks", lacks},
	}
}

// census counts devices by model, and by link with withLinks:
// "8 x NVIDIA H100 SXM5 80GB (Gen5 x16)", most common first.
func (a *analysis) census(ds []*topology.Device, withLinks bool) string {
	if len(ds) == 0 {
		return "none"
	}
	count := map[string]int{}
	var order []string
	for _, d := range ds {
		n := d.Name
		if l := d.Link; withLinks && (l.Known() || l.MaxGTs > 0) {
			if !l.Known() { // NCCL topologies record the maximum only
				l.CurrentGTs, l.CurrentWidth = l.MaxGTs, l.MaxWidth
			}
			n += " (" + l.String() + ")"
		}
		if d.PortRateGbps > 0 {
			n += fmt.Sprintf(" (%g Gb/s)", d.PortRateGbps)
		}
		if count[n] == 0 {
			order = append(order, n)
		}
		count[n]++
	}
	sort.SliceStable(order, func(i, j int) bool { return count[order[i]] > count[order[j]] })
	parts := make([]string, len(order))
	for i, n := range order {
		parts[i] = fmt.Sprintf("%d x %s", count[n], n)
	}
	return strings.Join(parts, ", ")
}

// pairIndex finds a pair's labels by its two devices, either order.
func pairIndex(pairs []topology.Pair) map[[2]*topology.Device]topology.Pair {
	idx := make(map[[2]*topology.Device]topology.Pair, 2*len(pairs))
	for _, p := range pairs {
		idx[[2]*topology.Device{p.A, p.B}] = p
		idx[[2]*topology.Device{p.B, p.A}] = p
	}
	return idx
}

// affinity returns a device's CPU and NUMA affinity columns.
func affinity(d *topology.Device) (string, string) {
	cpus, numa := d.LocalCPUs, "N/A"
	if cpus == "" {
		cpus = "N/A"
	}
	if d.NUMANode >= 0 {
		numa = strconv.Itoa(d.NUMANode)
		if d.NUMAFrom == topology.NUMAFromHostBridge {
			numa += " (host bridge)"
		}
	}
	return cpus, numa
}

// writeMatrix writes rows × cols of nvidia-smi labels with affinity columns
// for the rows, "X" where a device meets itself, and a NIC legend.
func (a *analysis) writeMatrix(p *render.Printer, rows, cols []*topology.Device, pairs []topology.Pair) error {
	idx := pairIndex(pairs)
	header := []string{""}
	for _, c := range cols {
		header = append(header, a.aliases[c])
	}
	header = append(header, "CPU Affinity", "NUMA Affinity")
	var body [][]string
	for _, r := range rows {
		line := []string{a.aliases[r]}
		for _, c := range cols {
			switch pr, ok := idx[[2]*topology.Device{r, c}]; {
			case r == c:
				line = append(line, "X")
			case ok:
				line = append(line, labelText(pr.SMI, pr.LabelUncertain))
			default:
				line = append(line, "")
			}
		}
		cpus, numa := "", ""
		if r.Kind == topology.KindAccelerator {
			cpus, numa = affinity(r)
		}
		body = append(body, append(line, cpus, numa))
	}
	if err := p.Table(header, body); err != nil {
		return err
	}
	var legend []string
	for _, c := range cols {
		if c.Kind == topology.KindNIC {
			legend = append(legend, fmt.Sprintf("%s: %s", a.aliases[c], nicLegend(c)))
		}
	}
	if len(legend) > 0 {
		p.Printf("\nNIC legend: %s\n", strings.Join(legend, ", "))
	}
	return nil
}

// gdrText says whether NCCL would use GPUDirect RDMA for a pair and, when
// it would not, what staging through host memory gives.
func gdrText(x *advisor.Prediction) string {
	staged := ""
	if x.HostStagedGbps > 0 {
		staged = ", staged " + gbps(x.HostStagedGbps)
	}
	doubt := ""
	if x.GDRUnknown != "" {
		doubt = "?"
	}
	switch {
	case !x.GDR:
		return "no" + doubt + staged
	case !x.GDRRead:
		return "recv only" + doubt + staged
	}
	return "yes" + doubt
}

// expectedText shows the prediction per direction when they differ:
// "w 192 / r 83-173 Gb/s" (write: the NIC writes GPU memory).
func expectedText(x *advisor.Prediction) string {
	if x.ExpectedWriteGbps <= 0 || x.ExpectedReadGbps <= 0 || x.ExpectedWriteGbps == x.ExpectedReadGbps && x.ExpectedReadMaxGbps == x.ExpectedReadGbps && x.ExpectedWriteMaxGbps == x.ExpectedWriteGbps {
		return gbps(x.ExpectedGbps)
	}
	span := func(lo, hi float64) string {
		if hi > lo+0.5 {
			return fmt.Sprintf("%.0f-%.0f", lo, hi)
		}
		return fmt.Sprintf("%.0f", lo)
	}
	return "w " + span(x.ExpectedWriteGbps, x.ExpectedWriteMaxGbps) + " / r " + span(x.ExpectedReadGbps, x.ExpectedReadMaxGbps) + " Gb/s"
}

// labelText marks a label that rests on a guess with "?".
func labelText(l topology.Label, uncertain bool) string {
	if uncertain {
		return string(l) + "?"
	}
	return string(l)
}

func nicLegend(d *topology.Device) string {
	s := nicName(d)
	if s == "" {
		return d.BDF()
	}
	return s + " (" + d.BDF() + ")"
}

// writePairs writes one row per accelerator-NIC pair.
func (a *analysis) writePairs(pr *render.Printer, pairs []topology.Pair, predictions map[[2]*topology.Device]*advisor.Prediction) error {
	var rows [][]string
	var notes []string
	for _, p := range pairs {
		bottleneck := gbps(p.BottleneckGbps)
		expected, eff, gdr := "", "", ""
		if x := predictions[[2]*topology.Device{p.A, p.B}]; x != nil {
			expected, gdr = expectedText(x), gdrText(x)
			if x.PathGbps > p.BottleneckGbps+0.5 { // an idle accelerator's link, predicted at its max speed
				bottleneck += ", " + gbps(x.PathGbps) + " loaded"
			}
			if x.Efficiency > 0 {
				eff = fmt.Sprintf("%.0f%%", 100*x.Efficiency)
			}
		}
		rows = append(rows, []string{
			a.aliases[p.A] + " " + p.A.BDF(), a.label(p.B) + " " + p.B.BDF(),
			labelText(p.SMI, p.LabelUncertain), labelText(p.NCCL, p.LabelUncertain), p.Path, bottleneck, strconv.Itoa(len(p.Hops)),
			expected, eff, gdr,
		})
		for _, n := range p.Notes {
			notes = append(notes, fmt.Sprintf("%s-%s: %s", a.aliases[p.A], a.aliases[p.B], n))
		}
	}
	if err := pr.Table([]string{"Accelerator", "NIC", "SMI", "NCCL", "Path", "Bottleneck", "Hops", "Expected", "Eff", "GDR"}, rows); err != nil {
		return err
	}
	if len(notes) > 0 {
		pr.Printf("\nNotes:\n")
		for _, n := range dedupe(notes) {
			pr.Printf("  %s\n", n)
		}
	}
	return nil
}

// dedupe drops repeated lines, keeping the first of each.
func dedupe(lines []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, l := range lines {
		if !seen[l] {
			seen[l] = true
			out = append(out, l)
		}
	}
	return out
}

// writeWarnings lists what could not be read.
func (a *analysis) writeWarnings(p *render.Printer) error {
	if len(a.g.Warnings) == 0 {
		return nil
	}
	p.Heading(fmt.Sprintf("Warnings (%d)", len(a.g.Warnings)))
	var rows [][]string
	for _, x := range a.g.Warnings {
		rows = append(rows, []string{x.Subject, x.Message})
	}
	return p.Table([]string{"Where", "What"}, rows)
}

// bdfs joins devices' addresses.
func bdfs(ds []*topology.Device) string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.BDF()
	}
	return strings.Join(out, ", ")
}
