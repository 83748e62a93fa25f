package render

import (
	"fmt"
	"io"
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
	return checkReport(p, res.Report)
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

// checkReport writes one source's report, the short answer first: the
// verdict, the summary, the matrix, the rail plan and one line a finding;
// the pair table, the label legend, each finding's evidence and remedy and
// each rank's settings with the style's Verbose (markdown always).
func checkReport(p *Printer, r *report.Report) error {
	md, verbose := p.Format() == Markdown, p.style.Verbose
	if md {
		p.Printf("# gdtopo check: %s\n\n", termsafe.Text(r.Source.Name)) // one line, whatever the name holds
	}
	verdict, rest, _ := strings.Cut(report.CheckVerdict(r), ":")
	p.SeverityLines(strings.ToLower(verdict), ":"+rest, "", "  ")
	if md {
		p.Heading("Summary")
		if err := p.Table([]string{"Item", "Value"}, summaryRows(r)); err != nil {
			return err
		}
	} else {
		p.Printf("\n")
		if err := p.KeyValues(summaryRows(r)); err != nil {
			return err
		}
	}
	switch {
	case len(r.Accelerators) == 0 && r.Summary.Partial != "":
		p.Printf("\nno accelerators%s\n",
			report.PartialShows(r.Summary, r.Summary.SkippedAccelerators, "accelerator", fmt.Sprintf(" among %d PCI functions", len(r.Devices))))
	case len(r.Accelerators) == 0 && r.Summary.UnidentifiedFunctions > 0:
		p.Printf("\nno accelerators identified among %d PCI functions: the source does not say what %s are\n",
			len(r.Devices), report.Unidentified(r.Graph))
	case len(r.Accelerators) == 0:
		p.Printf("\nno accelerators found among %d PCI functions\n", len(r.Devices))
	case len(r.NICs) == 0 && r.Summary.Partial != "":
		p.Printf("\nno NICs%s\n",
			report.PartialShows(r.Summary, r.Summary.SkippedNICs, "NIC", fmt.Sprintf(" among %d PCI functions", len(r.Devices))))
	case len(r.NICs) == 0:
		p.Printf("\nno NICs found among %d PCI functions: nothing for GPUDirect RDMA to use\n", len(r.Devices))
	default:
		if md {
			p.Heading("Accelerator x NIC (nvidia-smi labels)")
		} else {
			p.Printf("\n")
		}
		if err := accelNICMatrix(p, r); err != nil {
			return err
		}
		if verbose {
			p.Heading("Accelerator-NIC pairs")
			if err := pairsTable(p, r); err != nil {
				return err
			}
		}
		if len(r.HiddenNICs) > 0 {
			p.Printf("\n")
			p.Lines(fmt.Sprintf("%d NIC functions without an RDMA device are not shown (GPUDirect RDMA needs one; -o json lists every pair): %s",
				len(r.HiddenNICs), strings.Join(r.HiddenNICs, ", ")), "", "  ")
		}
	}
	setAsideText(p, r)
	if err := storageTable(p, r); err != nil {
		return err
	}
	if err := planTable(p, r); err != nil {
		return err
	}
	findingsText(p, r)
	notesText(p, r)
	if err := warningsTable(p, r); err != nil {
		return err
	}
	if !verbose && len(r.Accelerators) > 0 {
		p.Printf("\n")
		p.Lines("Details (every pair's path and throughput, evidence and remedies, settings per rank, the label legend): gdtopo check -v; everything: -o json", "", "  ")
	}
	return nil
}

// notesText says each note of the accelerator-NIC pairs once, with the
// pairs it is about (their count, without Verbose).
func notesText(p *Printer, r *report.Report) {
	groups := report.NoteGroups(r)
	if len(groups) == 0 {
		return
	}
	p.Heading("Notes")
	for _, g := range groups {
		who := fmt.Sprintf("%d pairs", len(g.Pairs))
		if len(g.Pairs) == 1 {
			who = g.Pairs[0]
		} else if p.style.Verbose {
			who += " (" + strings.Join(g.Pairs, ", ") + ")"
		}
		p.Lines(who+": "+g.Note, "  ", "    ")
	}
}

// summaryRows is the check's first table.
func summaryRows(r *report.Report) [][]string {
	s := r.System
	host := s.Hostname
	if host == "" {
		host = "unknown"
	}
	switches := report.SwitchText(r)
	lacks := "nothing"
	if len(r.Lacks) > 0 {
		lacks = strings.Join(r.Lacks, "; ")
	}
	rows := [][]string{
		{"Source", fmt.Sprintf("%s (%s)", r.Source.Name, r.Source.Format)},
		{"Host", host},
		{"CPU", report.CPUText(s)},
		{"NUMA nodes", numaText(s)},
		{"Accelerators", r.Summary.Accelerators},
		{"NICs", r.Summary.NICs},
		{"PCIe switches", switches},
		{"PCI functions", strconv.Itoa(r.Summary.Functions)},
		{"Source lacks", lacks},
	}
	if len(r.Summary.Platform) > 0 {
		rows = append(rows, []string{"Platform", strings.Join(r.Summary.Platform, "; ")})
	}
	if r.NVSMI != nil {
		rows = append(rows, []string{"nvidia-smi", cellCounts(r.NVSMI)})
	}
	return rows
}

// setAsideText lists the NICs set aside from the compute rails, except
// those the line above names for having no RDMA device only.
func setAsideText(p *Printer, r *report.Report) {
	var lines []string
	for _, s := range r.SetAsideNICs {
		if !slices.Contains(r.HiddenNICs, s.NIC) || !s.NoRDMAOnly() {
			lines = append(lines, s.NIC+": "+s.Reason)
		}
	}
	if len(lines) > 0 {
		p.Printf("\n")
		p.Lines("NICs set aside from the compute rails (matrix, rail plan and findings leave them out):", "", "  ")
		for _, l := range lines {
			p.Lines(l, "  ", "    ")
		}
	}
}

// storageTable shows each accelerator's NVMe drives for GPUDirect Storage.
func storageTable(p *Printer, r *report.Report) error {
	rows := report.StorageRows(r)
	if len(rows) == 0 {
		return nil
	}
	p.Heading("Accelerator x NVMe (GPUDirect Storage)")
	var cells [][]string
	for _, s := range rows {
		cells = append(cells, []string{strings.TrimSpace(s.Alias + " " + s.Accelerator), strconv.Itoa(s.InSwitch), strconv.Itoa(s.RootComplex),
			strconv.Itoa(s.Far), fmt.Sprintf("%s %s: %s", s.NearestLabel, s.NearestRoute, strings.Join(s.Nearest, ", ")), words.Gbps(s.BottleneckGbps)})
	}
	return p.Table([]string{"Accelerator", "In switch", "Root complex", "Other NUMA node", "Nearest drives", "Bottleneck"}, cells)
}

// numaText is "2 (0: socket 0, 1: socket 1)", or "unknown".
func numaText(s report.System) string {
	if len(s.NUMANodes) == 0 {
		return "unknown"
	}
	var per []string
	for _, node := range s.NUMANodes {
		sock := "socket ?"
		if node.MemoryOnly {
			sock = "memory only"
		}
		if node.Socket >= 0 {
			sock = "socket " + strconv.Itoa(node.Socket)
		}
		per = append(per, fmt.Sprintf("%d: %s", node.ID, sock))
	}
	return fmt.Sprintf("%d (%s)", len(s.NUMANodes), strings.Join(per, ", "))
}

// accelNICMatrix writes check's matrix: accelerators against the shown NICs.
func accelNICMatrix(p *Printer, r *report.Report) error {
	m := report.MatrixOf(r)
	var rows, cols []int
	for i, d := range m.Devices {
		if d.Kind == string(topology.KindAccelerator) {
			rows = append(rows, i)
		} else {
			cols = append(cols, i)
		}
	}
	return matrixBody(p, m, rows, cols, p.style.Verbose)
}

// matrixBody writes rows × cols of m's labels, with nvidia-smi's affinity
// columns for accelerators and its NIC legend, one NIC a line. The text
// layout is nvidia-smi topo -m's: tab-separated cells at tab stops of
// eight columns, " X " on the diagonal, no rule. A matrix wider than the
// style's width is folded into blocks of columns, each under its own header.
// withLegend adds nvidia-smi's legend of the labels before the NIC legend.
func matrixBody(p *Printer, m *report.Matrix, rows, cols []int, withLegend bool) error {
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
		p.tabStops(header, body)
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
	if len(legend) > 0 {
		p.Printf("\nNIC Legend:\n\n")
		for _, l := range legend {
			p.Lines(l, "  ", "    ")
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

// deviceLabel names a device in tables: "NIC0 mlx5_0", "GPU0", or its BDF.
func deviceLabel(d *report.Device) string {
	if d.Alias == "" {
		return d.BDF
	}
	if d.Kind == string(topology.KindNIC) {
		if n := nicName(d); n != "" {
			return d.Alias + " " + n
		}
	}
	return d.Alias
}

// moreNICs names an assignment's further NICs by table name ("NIC1 NIC2
// NIC3"), or by address where one has none.
func moreNICs(r *report.Report, more []string) string {
	return strings.Join(aliases(r, more), " ")
}

// aliases names each device by its table name, or its address where it has
// none.
func aliases(r *report.Report, bdfs []string) []string {
	out := make([]string, len(bdfs))
	for i, b := range bdfs {
		out[i] = b
		if d := r.Device(b); d != nil && d.Alias != "" {
			out[i] = d.Alias
		}
	}
	return out
}

// labelAndBDF is "NIC0 mlx5_0 0000:1b:00.0", or the BDF alone for a
// device without a table name.
func labelAndBDF(d *report.Device) string {
	if d.Alias == "" {
		return d.BDF
	}
	return deviceLabel(d) + " " + d.BDF
}

func nicName(d *report.Device) string {
	if len(d.RDMA) > 0 {
		return d.RDMA[0]
	}
	if len(d.Netdev) > 0 {
		return d.Netdev[0]
	}
	return ""
}

// pairsTable writes one row per accelerator and shown NIC.
func pairsTable(pr *Printer, r *report.Report) error {
	var rows [][]string
	for _, a := range r.Accelerators {
		for _, n := range r.NICs {
			p := r.Pair(a.BDF, n)
			if p == nil {
				continue
			}
			da, dn := r.Device(a.BDF), r.Device(n)
			bottleneck := words.Gbps(p.BottleneckGbps)
			expected, eff, gdr := "", "", ""
			if x := p.Prediction; x != nil {
				expected, gdr = expectedText(x), gdrText(x)
				if x.PathGbps > p.BottleneckGbps+0.5 { // an idle accelerator's link, predicted at its max speed
					bottleneck += ", " + words.Gbps(x.PathGbps) + " loaded"
				}
				if x.Efficiency > 0 {
					eff = fmt.Sprintf("%.0f%%", 100*x.Efficiency)
				}
			}
			rows = append(rows, []string{
				da.Alias + " " + da.BDF, deviceLabel(dn) + " " + dn.BDF,
				report.Label(p), report.NCCLLabel(p), p.Path, bottleneck, strconv.Itoa(len(p.Hops)),
				expected, eff, gdr,
			})
		}
	}
	return pr.Table([]string{"Accelerator", "NIC", "SMI", "NCCL", "Path", "Bottleneck", "Hops", "Expected", "Eff", "GDR"}, rows)
}

// gdrText says whether NCCL would use GPUDirect RDMA for a pair and, when
// it would not, what staging through host memory gives.
func gdrText(x *report.Prediction) string {
	staged := ""
	if x.HostStagedGbps > 0 {
		staged = ", staged " + words.GbpsAtMost(x.HostStagedGbps, x.AtMost)
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

// expectedHeading is the lower direction's figure, with both directions
// when they differ: "143 Gb/s (w 333 / r 143-300 Gb/s)"; "≤" before
// ceilings (report.Prediction.AtMost).
func expectedHeading(x *report.Prediction) string {
	lower := words.GbpsAtMost(x.ExpectedGbps, x.AtMost)
	if both := expectedText(x); both != lower {
		return lower + " (" + both + ")"
	}
	return lower
}

// expectedText shows the prediction per direction when they differ:
// "w 192 / r 83-173 Gb/s" (write: the NIC writes GPU memory); "≤ w 192 /
// r 83-173 Gb/s" where they are ceilings.
func expectedText(x *report.Prediction) string {
	if x.ExpectedWriteGbps <= 0 || x.ExpectedReadGbps <= 0 || x.ExpectedWriteGbps == x.ExpectedReadGbps && x.ExpectedReadMaxGbps == x.ExpectedReadGbps && x.ExpectedWriteMaxGbps == x.ExpectedWriteGbps {
		return words.GbpsAtMost(x.ExpectedGbps, x.AtMost)
	}
	return words.Ceiling("w "+gbpsSpan(x.ExpectedWriteGbps, x.ExpectedWriteMaxGbps)+" / r "+gbpsSpan(x.ExpectedReadGbps, x.ExpectedReadMaxGbps)+" Gb/s", x.AtMost)
}

// gbpsSpan is a predicted throughput from lo to hi without its unit,
// rounded as report.Gbps rounds: "83-173", or "83" where the two meet.
func gbpsSpan(lo, hi float64) string {
	n := func(v float64) string { return strconv.FormatFloat(words.RoundGbps(v), 'f', -1, 64) }
	if hi > lo+0.5 {
		return n(lo) + "-" + n(hi)
	}
	return n(lo)
}

// planTable shows the rail plan and each local rank's settings.
func planTable(p *Printer, r *report.Report) error {
	plan := r.Plan
	if len(plan.Assignments) == 0 {
		return nil
	}
	p.Heading(fmt.Sprintf("Rail plan (worst %s, mean %s)", words.GbpsAtMost(plan.WorstGbps, plan.AtMost), words.GbpsAtMost(plan.MeanGbps, plan.AtMost)))
	var rows [][]string
	for _, as := range plan.Assignments {
		shared := "own"
		if as.Shared > 1 {
			shared = fmt.Sprintf("shared by %d", as.Shared)
		}
		if !as.Known {
			shared += ", unsure"
		}
		g, n := r.Device(as.Accelerator), r.Device(as.NIC)
		nic := deviceLabel(n)
		if len(as.MoreNICs) > 0 {
			shared += fmt.Sprintf(", %d NICs", 1+len(as.MoreNICs))
			nic += " + " + moreNICs(r, as.MoreNICs)
		}
		rows = append(rows, []string{g.Alias + " " + g.BDF, nic, words.GbpsAtMost(as.ExpectedGbps, as.AtMost), words.GbpsAtMost(as.ShareGbps, as.AtMost), shared})
	}
	if err := p.Table([]string{"Accelerator", "NIC", "Expected", "Each", "NIC use"}, rows); err != nil {
		return err
	}
	if plan.AtMost {
		p.Printf("\n")
		p.Lines("≤: a ceiling, not an estimate: the source does not give the NIC's port rate, so its own PCIe link is taken as its limit.", "", "")
	}
	if !p.style.Verbose {
		return nil
	}
	p.Printf("\nSettings per local rank:\n")
	if p.Format() == Markdown {
		p.Printf("\n```\n")
	}
	for _, rk := range plan.Ranks {
		words := make([]string, len(rk.Env))
		for i, w := range rk.Env {
			words[i] = termsafe.Assignment(w) // names from the input, pasted into a shell
		}
		line := strings.Join(words, " ")
		if rk.Numactl != "" {
			line += " " + rk.Numactl
		}
		p.Lines(line, fmt.Sprintf("  rank %d: ", rk.LocalRank), "      ")
	}
	if p.Format() == Markdown {
		p.Printf("```\n")
	}
	return nil
}

// findingsText lists the findings, worst first, each with its remedy as
// lines that paste as a shell script: commands as they are, everything
// else as comments.
func findingsText(p *Printer, r *report.Report) {
	if len(r.Findings) == 0 {
		p.Heading("Findings")
		p.Printf("no findings\n")
		return
	}
	p.Heading(fmt.Sprintf("Findings (%s)", r.Counts.String()))
	md := p.Format() == Markdown
	if !p.style.Verbose {
		for _, f := range r.Findings {
			line := fmt.Sprintf("%-8s %s  %s: %s", strings.ToUpper(f.Severity), f.Code, shortDeviceList(r, f.Devices), f.Message)
			line = clip(line, p.style.Width, 100)
			p.SeverityLines(f.Severity, strings.TrimPrefix(line, strings.ToUpper(f.Severity)), "", "")
		}
		return
	}
	for _, f := range r.Findings {
		devs := deviceList(r, f.Devices)
		script := remedyScript(f.Remedy)
		if md {
			p.Printf("\n- **%s** `%s` %s: %s\n", strings.ToUpper(f.Severity), f.Code, termsafe.Text(devs), termsafe.Text(f.Message))
			if f.Evidence != "" {
				p.Printf("  evidence: `%s`\n", termsafe.Text(f.Evidence))
			}
			if len(script) > 0 {
				p.Printf("\n  ```sh\n  %s\n  ```\n", strings.Join(script, "\n  "))
			}
			continue
		}
		p.Printf("\n")
		p.SeverityLines(f.Severity, fmt.Sprintf("%s %s  %s", strings.Repeat(" ", max(0, 8-len(f.Severity))), f.Code, devs), "", "  ")
		p.Lines(f.Message, "  ", "  ")
		if f.Evidence != "" {
			p.Lines(f.Evidence, "  evidence: ", "    ")
		}
		if len(script) > 0 {
			p.Printf("  remedy:\n")
			for _, l := range script {
				rest := "    "
				if strings.HasPrefix(l, "#") {
					rest = "    # "
				}
				p.Lines(l, "    ", rest)
			}
		}
	}
}

// remedyScript writes remedy steps as shell lines: a command as it is,
// after its comment; the other kinds as comments saying what they are.
func remedyScript(steps []report.RemedyStep) []string {
	var out []string
	said := "" // the comment above the last command, said once for a run of them
	for _, s := range steps {
		comment := ""
		if s.Comment != "" {
			comment = "; " + s.Comment
		}
		switch s.Kind {
		case "command":
			if s.Comment != "" && s.Comment != said {
				out = append(out, "# "+s.Comment)
			}
			said = s.Comment
			out = append(out, s.Text)
			continue
		case "kernel_parameter":
			out = append(out, "# kernel parameter: "+s.Text+comment)
		case "bios":
			out = append(out, "# BIOS: "+s.Text+comment)
		default:
			out = append(out, "# by hand: "+s.Text+comment)
		}
		said = ""
	}
	return out
}

// shortDeviceList names a finding's devices in a few words: their table
// names ("GPU0, NIC5", the address where there is none) up to three, else
// how many.
func shortDeviceList(r *report.Report, bdfs []string) string {
	if len(bdfs) > 3 {
		return fmt.Sprintf("%d devices", len(bdfs))
	}
	return strings.Join(aliases(r, bdfs), ", ")
}

// clip cuts s to width columns (fallback when width is 0), ending it with
// "..." where it was cut.
func clip(s string, width, fallback int) string {
	if width <= 0 {
		width = fallback
	}
	if textWidth(s) <= width {
		return s
	}
	return string([]rune(s)[:width-3]) + "..."
}

// deviceList names devices by alias where they have one: "GPU0 0000:1a:00.0".
func deviceList(r *report.Report, bdfs []string) string {
	out := make([]string, len(bdfs))
	for i, b := range bdfs {
		if d := r.Device(b); d != nil && d.Alias != "" {
			out[i] = d.Alias + " " + b
		} else {
			out[i] = b
		}
	}
	return strings.Join(out, ", ")
}

// warningsTable lists what could not be read.
func warningsTable(p *Printer, r *report.Report) error {
	if len(r.Warnings) == 0 {
		return nil
	}
	p.Heading(fmt.Sprintf("Warnings (%d)", len(r.Warnings)))
	var rows [][]string
	for _, x := range r.Warnings {
		rows = append(rows, []string{x.Subject, x.Message})
	}
	return p.Table([]string{"Where", "What"}, rows)
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
	if err := matrixBody(p, m, all, all, true); err != nil {
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

// link is a report's link as topology formats it ("Gen5 x16").
func link(l report.Link) topology.Link {
	return topology.Link{CurrentGTs: l.CurrentGTs, CurrentWidth: l.CurrentWidth, MaxGTs: l.MaxGTs, MaxWidth: l.MaxWidth}
}

// pathTables writes gdtopo path: the pair's labels, its hops, and with
// --explain the prediction's arithmetic.
func pathTables(pr *Printer, v *report.PathView) error {
	p := v.Pair
	pr.Lines(fmt.Sprintf("%s -> %s: nvidia-smi %s, NCCL %s, %s",
		labelAndBDF(&v.From), labelAndBDF(&v.To), report.Label(&p), report.NCCLLabel(&p), p.Path), "", "  ")
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
			if h.CurrentGTs > 0 && h.CurrentWidth > 0 {
				l, g = topology.Link{CurrentGTs: h.CurrentGTs, CurrentWidth: h.CurrentWidth}.String(), fmt.Sprintf("%g", h.Gbps)
			}
		}
		rows = append(rows, []string{strconv.Itoa(i + 1), h.From, h.To, strings.ReplaceAll(h.Kind, "_", " "), l, g})
	}
	pr.Heading("Hops")
	if err := pr.Table([]string{"#", "From", "To", "Crosses", "Link", "Gb/s"}, rows); err != nil {
		return err
	}
	if p.BottleneckGbps > 0 {
		pr.Printf("\n")
		pr.Lines(fmt.Sprintf("%g Gb/s (narrowest current PCIe link: GT/s × lanes × line code × MPS/(MPS+TLP overhead))", p.BottleneckGbps), "Bottleneck: ", "  ")
	}
	for _, n := range p.Notes {
		pr.Lines(n, "Note: ", "  ")
	}
	x := p.Prediction
	if x == nil || len(x.Steps) == 0 {
		return nil
	}
	pr.Heading(fmt.Sprintf("Prediction (NCCL %s rules): %s, efficiency %.0f%%, GPUDirect RDMA %s", v.NCCLVersion, expectedHeading(x), 100*x.Efficiency, gdrText(x)))
	rows = rows[:0]
	for i, s := range x.Steps {
		rows = append(rows, []string{strconv.Itoa(i + 1), s.What, fmt.Sprintf("%.4g %s", s.Value, s.Unit), s.Source})
	}
	if err := pr.Table([]string{"#", "Step", "Value", "Source"}, rows); err != nil {
		return err
	}
	if x.GDRReason != "" {
		pr.Printf("\n")
		pr.Lines(x.GDRReason, "GPUDirect RDMA: ", "  ")
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
