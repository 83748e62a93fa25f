package render

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gdtopo/gdtopo/internal/report"
	"github.com/gdtopo/gdtopo/internal/termsafe"
	"github.com/gdtopo/gdtopo/internal/words"
	"github.com/gdtopo/gdtopo/topology"
)

// checkTables writes a check: each source's report, under a "==> SOURCE <=="
// line when there are several (a source that could not be read has that
// line and its error, which also went to standard error).
func checkTables(p *Printer, c *report.Check) error {
	for i, res := range c.Sources {
		if err := checkSection(p, res, i, len(c.Sources) > 1); err != nil {
			return err
		}
	}
	return nil
}

// checkSection writes the i-th source of a check, under a line naming it
// when the check has several.
func checkSection(p *Printer, res report.Result, i int, several bool) error {
	if several {
		if i > 0 {
			p.Printf("\n")
		}
		p.Printf("==> %s <==\n", termsafe.Text(res.Source))
	}
	if res.Report == nil {
		p.Printf("not read: %s\n", termsafe.Text(res.Error))
		return nil
	}
	return checkReport(p, report.NewCheckView(res.Report, report.CheckViewOptions{Verbose: p.style.Verbose}))
}

// CheckSections writes a check of several sources as Check does for -o
// table and markdown, one source at a time, so that a long run keeps no
// report once it is written. Sources that could not be read wait for the
// first that could: a check where none could be read writes nothing, as
// gdtopo check writes no table then (each error went to standard error).
type CheckSections struct {
	p       *Printer
	written int             // sections written
	waiting []report.Result // unread sources before the first read one
}

// NewCheckSections returns a CheckSections writing to w in format f (Table
// or Markdown), laid out as style says.
func NewCheckSections(w io.Writer, f Format, style ...Style) *CheckSections {
	return &CheckSections{p: NewPrinter(w, f, style...)}
}

// Write writes the next source's section, in the order of the check's
// sources.
func (s *CheckSections) Write(res report.Result) error {
	if res.Report == nil && s.written == 0 {
		s.waiting = append(s.waiting, res)
		return nil
	}
	for _, r := range append(s.waiting, res) {
		if err := checkSection(s.p, r, s.written, true); err != nil {
			return err
		}
		s.written++
	}
	s.waiting = nil
	return nil
}

// checkReport writes one source's check view, the short answer first:
// the verdict, the summary, the matrix, the rail plan and one line a
// finding; the pair table, the label legend, each finding's evidence and
// remedy and each rank's settings when the view is Verbose (markdown
// always). It draws what v holds and decides nothing.
func checkReport(p *Printer, v *report.CheckView) error {
	md := p.Format() == Markdown
	if md {
		p.Printf("# gdtopo check: %s\n\n", termsafe.Text(v.Source)) // one line, whatever the name holds
	}
	p.SeverityLines(v.Severity, ": "+v.Verdict, "", "  ")
	if md {
		p.Heading("Summary")
		if err := p.Table([]string{"Item", "Value"}, v.Summary); err != nil {
			return err
		}
	} else {
		p.Printf("\n")
		if err := p.KeyValues(v.Summary); err != nil {
			return err
		}
	}
	if v.NoPairs != "" {
		p.Printf("\n")
		p.Lines(v.NoPairs, "", "  ")
	} else {
		if md {
			p.Heading("Accelerator x NIC (nvidia-smi labels)")
		} else {
			p.Printf("\n")
		}
		if err := matrixBody(p, v.Matrix, v.MatrixRows, v.MatrixCols, v.Verbose, v.NICLegendPerLine, false); err != nil {
			return err
		}
		if v.Verbose {
			p.Heading("Accelerator-NIC pairs")
			if err := p.FitTable([]string{"Accelerator", "NIC", "SMI", "NCCL", "Path", "Bottleneck", "Hops", "Direct RDMA", "Eff", "GDR"}, v.Pairs, v.PairsNarrow); err != nil {
				return err
			}
		}
		if len(v.HiddenNICs) > 0 {
			p.Printf("\n")
			p.Lines(fmt.Sprintf("%d NIC functions without an RDMA device are not shown (GPUDirect RDMA needs one; -o json lists every pair): %s",
				len(v.HiddenNICs), strings.Join(v.HiddenNICs, ", ")), "", "  ")
		}
	}
	if len(v.SetAside) > 0 {
		p.Printf("\n")
		p.Lines("NICs set aside from the compute rails (matrix, rail plan and findings leave them out):", "", "  ")
		for _, l := range v.SetAside {
			p.Lines(l, "  ", "    ")
		}
	}
	if len(v.Storage) > 0 {
		p.Heading("Accelerator x NVMe (GPUDirect Storage)")
		if err := p.Table(v.StorageColumns, v.Storage); err != nil {
			return err
		}
	}
	if v.StorageSummary != "" {
		p.Printf("\n")
		p.Lines(v.StorageSummary, "GPUDirect Storage, nearest NVMe drives: ", "  ")
	}
	if err := planTable(p, v.Plan, v.Verbose); err != nil {
		return err
	}
	findingsText(p, v)
	if v.ReferenceHeading != "" {
		p.Heading(v.ReferenceHeading)
		for _, l := range v.Reference {
			p.Lines(l, "  ", "    ")
		}
	}
	if len(v.Notes) > 0 {
		p.Heading("Notes")
		for _, n := range v.Notes {
			p.Lines(n, "  ", "    ")
		}
	}
	if len(v.Warnings) > 0 {
		// "Reading notes", not "Warnings": they are about the input, not
		// findings of the WARNING severity
		p.Heading(fmt.Sprintf("Reading notes (%d)", v.WarningCount))
		if err := p.Table([]string{"Where", "What"}, v.Warnings); err != nil {
			return err
		}
	}
	if v.Details {
		p.Printf("\n")
		p.Lines("Details (every pair's path and throughput, evidence and remedies, settings per rank, the label legend): gdtopo check -v; everything: -o json", "", "  ")
	}
	return nil
}

// matrixBody writes rows × cols of m's labels, with nvidia-smi's affinity
// columns for accelerators and its NIC legend, one NIC a line. The text
// layout is nvidia-smi topo -m's: tab-separated cells at tab stops of
// eight columns, " X " on the diagonal, no rule. A matrix wider than the
// style's width is folded into blocks of columns, each under its own header.
// withLegend adds nvidia-smi's legend of the labels before the NIC legend,
// whose lines name perLine NICs each. tabs writes the matrix's tabs as
// they are, unfolded (gdtopo matrix, which scripts cut as nvidia-smi's).
func matrixBody(p *Printer, m *report.Matrix, rows, cols []int, withLegend bool, perLine int, tabs bool) error {
	header := make([]string, 1, len(cols)+4)
	for _, c := range cols {
		header = append(header, m.Devices[c].Alias)
	}
	header = append(header, "CPU Affinity", "NUMA Affinity", "GPU NUMA ID")
	body := make([][]string, 0, len(rows))
	cells := make([]string, len(rows)*len(header)) // the lines are cut from one array
	for _, i := range rows {
		d := m.Devices[i]
		line := append(cells[:0:len(header)], d.Alias)
		cells = cells[len(header):]
		for _, c := range cols {
			line = append(line, m.Labels[i][c])
		}
		if d.Kind == string(topology.KindAccelerator) {
			cpus, numa := affinity(d)
			// nvidia-smi writes two tabs after the NUMA affinity
			line = append(line, cpus, numa+"\t", d.GPUNUMAID)
		}
		body = append(body, line)
	}
	if p.Format() == Markdown {
		for i := range body {
			body[i] = slices.Clone(body[i])
			if n := len(body[i]); n == len(header) {
				body[i][n-2] = strings.TrimSuffix(body[i][n-2], "\t")
			}
			for len(body[i]) < len(header) {
				body[i] = append(body[i], "")
			}
		}
		if err := p.Table(header, body); err != nil {
			return err
		}
	} else {
		p.tabStops(header, body, tabs)
	}
	if withLegend && len(m.Legend) > 0 {
		p.Printf("\nLegend:\n\n")
		for _, l := range m.Legend {
			p.Lines(fmt.Sprintf("%-4s = %s", l.Label, l.Meaning), "  ", "         ")
		}
	}
	var legend []string
	for _, c := range cols {
		if d := m.Devices[c]; d.Kind == string(topology.KindNIC) {
			legend = append(legend, fmt.Sprintf("%s: %s", d.Alias, nicLegend(d)))
		}
	}
	if len(legend) > 0 && perLine <= 1 {
		p.Printf("\nNIC Legend:\n\n")
		for _, l := range legend {
			p.Lines(l, "  ", "    ")
		}
	} else if len(legend) > 0 {
		p.Printf("\nNIC Legend:\n")
		for i := 0; i < len(legend); i += perLine {
			p.Parts(legend[i:min(i+perLine, len(legend))], "  ", "  ")
		}
	}
	return nil
}

// affinity is a device's CPU and NUMA affinity columns.
func affinity(d report.MatrixDevice) (string, string) {
	cpus, numa := d.CPUAffinity, "N/A"
	if cpus == "" {
		cpus = "N/A"
	}
	if d.NUMAAffinity >= 0 {
		numa = strconv.Itoa(d.NUMAAffinity)
		if d.NUMAFrom == topology.NUMAFromHostBridge {
			numa += " (host bridge)"
		}
	}
	return cpus, numa
}

func nicLegend(d report.MatrixDevice) string {
	if d.Name == "" {
		return d.BDF
	}
	return d.Name + " (" + d.BDF + ")"
}

// expectedHeading is the lower direction's figure, with both directions
// when they differ: "143 Gb/s (w 333 / r 143-300 Gb/s)"; "≤" before
// ceilings (report.Prediction.AtMost).
func expectedHeading(x *report.Prediction) string {
	lower := words.GbpsAtMost(x.ExpectedGbps, x.AtMost)
	if both := x.ExpectedText(); both != lower {
		return lower + " (" + both + ")"
	}
	return lower
}

// planTable shows the rail plan and, with verbose, each local rank's
// settings; nothing without a plan.
func planTable(p *Printer, plan *report.CheckPlan, verbose bool) error {
	if plan == nil {
		return nil
	}
	p.Heading(fmt.Sprintf("Rail plan (worst %s, mean %s)", plan.Worst, plan.Mean))
	if err := p.Table([]string{"Accelerator", "NIC", "Expected, as NCCL runs it", "Each", "NIC use"}, plan.Rows); err != nil {
		return err
	}
	if plan.CeilingNote != "" {
		p.Printf("\n")
		p.Lines(plan.CeilingNote, "", "")
	}
	if !verbose {
		return nil
	}
	p.Printf("\nSettings per local rank:\n")
	if p.Format() == Markdown {
		p.Printf("\n```\n")
	}
	for _, rk := range plan.Ranks {
		p.Lines(rk.Settings, "  "+rk.Who+": ", "      ")
	}
	if p.Format() == Markdown {
		p.Printf("```\n")
	}
	if len(plan.Notes) > 0 {
		p.Printf("\n")
	}
	for _, n := range plan.Notes {
		p.Lines(n, "", "")
	}
	return nil
}

// findingsText lists the findings, worst first, each with its remedy as
// lines that paste as a shell script: commands as they are, everything
// else as comments.
func findingsText(p *Printer, v *report.CheckView) {
	if len(v.Findings) == 0 {
		p.Heading("Findings")
		p.Printf("no findings\n")
		return
	}
	p.Heading(fmt.Sprintf("Findings (%s)", v.Counts))
	md := p.Format() == Markdown
	if !v.Verbose {
		for _, f := range v.Findings {
			// the problem first, whom it is about last: a cut line keeps the point
			line := fmt.Sprintf("%-8s %s  %s", strings.ToUpper(f.Severity), f.Code, f.Message)
			if f.Devices != "" {
				line += " (on " + f.Devices + ")"
			}
			line = clip(line, p.style.Width)
			p.SeverityLines(f.Severity, strings.TrimPrefix(line, strings.ToUpper(f.Severity)), "", "")
		}
		return
	}
	for _, f := range v.Findings {
		if md {
			p.Printf("\n- **%s** `%s` %s: %s\n", strings.ToUpper(f.Severity), f.Code, termsafe.Text(f.Devices), termsafe.Text(f.Message))
			if f.Evidence != "" {
				p.Printf("  evidence: `%s`\n", termsafe.Text(f.Evidence))
			}
			if len(f.Remedy) > 0 {
				p.Printf("\n  ```sh\n  %s\n  ```\n", strings.Join(f.Remedy, "\n  "))
			}
			continue
		}
		p.Printf("\n")
		p.SeverityLines(f.Severity, fmt.Sprintf("%s %s", strings.Repeat(" ", max(0, 8-len(f.Severity))), f.Code), "", "  ")
		p.Lines(f.Message, "  ", "  ")
		p.Lines(f.Devices, "  on: ", "    ")
		if f.Evidence != "" {
			p.Lines(f.Evidence, "  evidence: ", "    ")
		}
		if len(f.Remedy) > 0 {
			p.Printf("  remedy:\n")
			for _, l := range f.Remedy {
				rest := "    "
				if strings.HasPrefix(l, "#") {
					rest = "    # "
				}
				p.Lines(l, "    ", rest)
			}
		}
	}
}

// clip cuts s to width columns at a space, ending it with "..." where it
// was cut; width 0 (not a terminal) keeps s whole.
func clip(s string, width int) string {
	if width <= 0 || textWidth(s) <= width {
		return s
	}
	r := []rune(s)[:max(0, width-3)]
	if i := strings.LastIndexByte(string(r), ' '); i > 0 {
		return strings.TrimRight(string(r)[:i], " ,;:") + "..."
	}
	return string(r) + "..."
}

// matrixTable writes gdtopo matrix: every accelerator and shown NIC
// against every other, and nvidia-smi's legend.
func matrixTable(p *Printer, m *report.Matrix) error {
	if len(m.Devices) == 0 {
		p.Printf("no accelerators or NICs found among %d PCI functions\n", m.PCIFunctions)
		return nil
	}
	all := make([]int, len(m.Devices))
	for i := range all {
		all[i] = i
	}
	if err := matrixBody(p, m, all, all, true, 1, true); err != nil {
		return err
	}
	if len(m.HiddenNICs) > 0 {
		p.Printf("\n")
		p.Lines("Not shown, no RDMA device: "+strings.Join(m.HiddenNICs, ", "), "", "  ")
	}
	return nil
}

// treeText writes the PCIe tree, in a code block for markdown.
func treeText(p *Printer, t *report.Tree) error {
	f := p.Format()
	if f == Markdown {
		p.Printf("# gdtopo tree: %s\n\n```\n", termsafe.Text(t.Source.Name))
	}
	byBDF := make(map[string]*report.Device, len(t.Devices))
	for i := range t.Devices {
		byBDF[t.Devices[i].BDF] = &t.Devices[i]
	}
	shown := make(map[string]bool, len(t.Shown))
	for _, b := range t.Shown {
		shown[b] = true
	}
	n := 0
	for _, hb := range t.HostBridges {
		var roots []*report.Device
		for _, b := range hb.Devices {
			if shown[b] {
				roots = append(roots, byBDF[b])
			}
		}
		if len(roots) == 0 {
			continue
		}
		p.Printf("%s  %s\n", hb.Name, placement(hb))
		branch(p, byBDF, shown, roots, "")
		n++
	}
	if len(t.PlaceUnknown) > 0 {
		var unplaced []*report.Device
		for _, b := range t.PlaceUnknown {
			unplaced = append(unplaced, byBDF[b])
		}
		p.Lines("place unknown (the source shows no PCI hierarchy above these functions: capture the whole lspci -tv, or sudo lspci -vvv)", "", "  ")
		branch(p, byBDF, shown, unplaced, "")
		n++
	}
	if t.Skipped != "" {
		p.Lines("skipped, their bus not in the input: "+t.Skipped, "", "  ")
		n++
	}
	if n == 0 {
		p.Lines(fmt.Sprintf("no accelerators, NICs, NVMe drives or NVSwitches among %d PCI functions (--all shows them all)", len(t.Devices)), "", "  ")
	}
	if t.Partial != "" {
		p.Lines("the source holds part of the machine ("+t.Partial+")", "", "  ")
	}
	if f == Markdown {
		p.Printf("```\n")
	}
	return nil
}

func placement(hb report.HostBridge) string {
	parts := []string{"NUMA ?"}
	if hb.NUMANode >= 0 {
		parts[0] = fmt.Sprintf("NUMA %d", hb.NUMANode)
	}
	if hb.Socket >= 0 {
		parts = append(parts, fmt.Sprintf("socket %d", hb.Socket))
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

func branch(p *Printer, byBDF map[string]*report.Device, shown map[string]bool, ds []*report.Device, indent string) {
	for i, d := range ds {
		mark, next := "├─ ", "│  "
		if i == len(ds)-1 {
			mark, next = "└─ ", "   "
		}
		var kids []*report.Device
		for _, c := range d.Children {
			if shown[c] {
				kids = append(kids, byBDF[c])
			}
		}
		bar := "   "
		if len(kids) > 0 {
			bar = "│  "
		}
		p.Parts(describe(d), indent+mark, indent+next+bar+"  ")
		branch(p, byBDF, shown, kids, indent+next)
	}
}

// describe is one tree line: address, role or alias and kind, model, link,
// NUMA node, names and driver, two spaces apart.
func describe(d *report.Device) []string {
	parts := []string{d.BDF}
	switch {
	case d.Role != "":
		parts = append(parts, strings.ReplaceAll(d.Role, "_", " "))
	case d.Alias != "":
		parts = append(parts, d.Alias)
	default:
		parts = append(parts, d.Kind)
	}
	parts = append(parts, d.Name)
	if l := link(d.Link); l.Known() {
		parts = append(parts, l.String())
	}
	if d.Role == "" && d.NUMANode >= 0 {
		parts = append(parts, fmt.Sprintf("NUMA %d", d.NUMANode))
	}
	if names := append(append([]string{}, d.RDMA...), d.Netdev...); len(names) > 0 {
		parts = append(parts, strings.Join(names, ","))
	}
	if d.Driver != "" {
		parts = append(parts, "["+d.Driver+"]")
	}
	return parts
}

// stepValue is an explain step's value with its unit; a throughput of 0
// is one the source does not give: "unknown".
func stepValue(s report.Step) string {
	if s.Value == 0 && s.Unit == "Gb/s" {
		return "unknown"
	}
	return fmt.Sprintf("%.4g %s", s.Value, s.Unit)
}

// hopLink is a PCIe hop's link as topology formats it ("Gen5 x16"), or
// "rate only" where the source gave its data rate alone; false when
// neither is known.
func hopLink(h report.Hop) (string, bool) {
	switch {
	case h.CurrentGTs > 0 && h.CurrentWidth > 0:
		return topology.Link{CurrentGTs: h.CurrentGTs, CurrentWidth: h.CurrentWidth, MaxOnly: h.AtMax}.String(), true
	case h.Gbps > 0:
		return "rate only", true
	}
	return "", false
}

// link is a report's link as topology formats it ("Gen5 x16").
func link(l report.Link) topology.Link {
	return topology.Link{CurrentGTs: l.CurrentGTs, CurrentWidth: l.CurrentWidth, MaxGTs: l.MaxGTs, MaxWidth: l.MaxWidth}
}

// pathTables writes gdtopo path: the pair's labels, its hops, and with
// --explain the prediction's arithmetic.
func pathTables(pr *Printer, v *report.PathView) error {
	p := v.Pair
	smi, nccl := "nvidia-smi", "NCCL"
	if p.SMI == string(topology.XGMI) { // two AMD accelerators: ROCm's tools name the labels
		smi, nccl = "rocm-smi", "RCCL"
	}
	pr.Lines(fmt.Sprintf("%s -> %s: %s %s, %s %s, %s",
		v.From.TableNameAndBDF(), v.To.TableNameAndBDF(), smi, report.Label(&p), nccl, report.NCCLLabel(&p), p.Path), "", "  ")
	switch {
	case v.PlaceUnknown && v.Partial != "":
		pr.Lines("the source holds part of the machine, not where this pair's paths meet ("+v.Partial+")", "Note: ", "  ")
		return nil
	case v.PlaceUnknown:
		pr.Lines("the source shows no PCI hierarchy for this pair: capture the whole lspci -tv, or sudo lspci -vvv", "Note: ", "  ")
		return nil
	}
	var rows [][]string
	for i, h := range p.Hops {
		l, g := "", ""
		if h.Kind == string(topology.HopPCIe) {
			l, g = "unknown", "unknown"
			if text, ok := hopLink(h); ok {
				l, g = text, fmt.Sprintf("%.1f", h.Gbps)
			}
		}
		crosses := strings.ReplaceAll(h.Kind, "_", " ")
		if h.OffPath {
			crosses += " (off the data path)"
		}
		rows = append(rows, []string{strconv.Itoa(i + 1), h.From, h.To, crosses, l, g})
	}
	pr.Heading("Hops")
	if err := pr.Table([]string{"#", "From", "To", "Crosses", "Link", "Gb/s"}, rows); err != nil {
		return err
	}
	if p.BottleneckGbps > 0 {
		pr.Printf("\n")
		link := "narrowest current PCIe link"
		switch {
		case v.LinksAtMax:
			link = "narrowest PCIe link at its max, as the NCCL topology records links"
		case p.BottleneckAtMax():
			link = "narrowest PCIe link at its max, its state now unknown"
		}
		line := fmt.Sprintf("%s (%s: GT/s × lanes × line code × MPS/(MPS+TLP overhead))", words.Gbps(p.BottleneckGbps), link)
		if slices.ContainsFunc(p.Hops, func(h report.Hop) bool { return h.OffPath }) {
			line = fmt.Sprintf("%s (%s the data crosses: GT/s × lanes × line code × MPS/(MPS+TLP overhead)); "+
				"the accelerator's own link is off the path, its data leaves over NVLink-C2C", words.Gbps(p.BottleneckGbps), link)
		}
		pr.Lines(line, "Bottleneck: ", "  ")
	}
	if x := p.Prediction; x != nil && x.PathGbps > 0 && math.Abs(x.PathGbps-p.BottleneckGbps) > 0.5 && x.PathNote != "" {
		pr.Lines(fmt.Sprintf("%s %s: the figure the prediction uses", words.Gbps(x.PathGbps), x.PathNote), "Predicted path: ", "  ")
	}
	for _, n := range p.Notes {
		pr.Lines(n, "Note: ", "  ")
	}
	x := p.Prediction
	if x == nil || len(x.Steps) == 0 {
		return nil
	}
	eff := fmt.Sprintf("%.0f%%", 100*x.Efficiency)
	if x.ExpectedGbps <= 0 { // no figure: no efficiency either, not 0%
		eff = "unknown"
	}
	pr.Heading(fmt.Sprintf("Prediction (NCCL %s rules): %s, efficiency %s, GPUDirect RDMA %s", v.NCCLVersion, expectedHeading(x), eff, x.GDRText()))
	rows = rows[:0]
	for i, s := range x.Steps {
		rows = append(rows, []string{strconv.Itoa(i + 1), s.What, stepValue(s), s.Source})
	}
	if err := pr.Table([]string{"#", "Step", "Value", "Source"}, rows); err != nil {
		return err
	}
	if x.GDRReason != "" || len(x.GDRSetBy) > 0 || x.GDRUnknown != "" {
		pr.Printf("\n")
	}
	if x.GDRReason != "" {
		pr.Lines(x.GDRReason, "GPUDirect RDMA: ", "  ")
	}
	switch {
	case x.GDRUnknown != "" && x.GDRUndecided:
		pr.Lines(x.GDRUnknown, "Undecided: ", "  ")
	case x.GDRUnknown != "": // nothing in it could turn the verdict
		pr.Lines(x.GDRUnknown, "Assumed: ", "  ")
	}
	for _, s := range x.GDRSetBy {
		pr.Lines(s, "NCCL variables: ", "  ")
	}
	for _, u := range x.Assumed {
		pr.Lines(u, "Assumed: ", "  ")
	}
	return nil
}

// labelCounts is "PIX 8, SYS 8", best label first.
func labelCounts(m map[string]int) string {
	var out []string
	for _, l := range []string{"PIX", "PXB", "PHB", "NODE", "SYS"} {
		for _, k := range []string{l, l + "?"} {
			if n := m[k]; n > 0 {
				out = append(out, fmt.Sprintf("%s %d", k, n))
			}
		}
	}
	if n := m[string(topology.Unknown)]; n > 0 {
		out = append(out, fmt.Sprintf("unknown %d", n))
	}
	return strings.Join(out, ", ")
}
