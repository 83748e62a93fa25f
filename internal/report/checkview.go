package report

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/gdtopo/gdtopo/advisor"
	"github.com/gdtopo/gdtopo/internal/termsafe"
	"github.com/gdtopo/gdtopo/internal/words"
	"github.com/gdtopo/gdtopo/topology"
)

// CheckView is what gdtopo check shows of one source as tables (-o table
// and -o markdown), decided here once: the renderer lays it out and
// decides nothing. Text is as said, not escaped for a terminal.
type CheckView struct {
	Source string // the source's name
	// Verbose: the view holds the details check -v shows (every pair,
	// the label legend, each finding's evidence and remedy, each rank's
	// settings, the pairs of each note).
	Verbose bool
	// Severity and Verdict are the line the check opens with
	// (CheckVerdict): the worst severity found ("critical", "warning",
	// "ok") and what follows it.
	Severity, Verdict string
	Summary           [][]string // name and value, one row an item (SummaryRows)
	// NoPairs says why there are no accelerator-NIC pairs to show ("no
	// NICs found among 12 PCI functions: ..."); "" when there are.
	NoPairs string
	// Matrix is the accelerators against the shown NICs: MatrixRows and
	// MatrixCols index its Devices. Nil with NoPairs.
	Matrix                 *Matrix
	MatrixRows, MatrixCols []int
	// Pairs are the cells of the pair table, one row an accelerator and a
	// shown NIC (Verbose only).
	Pairs [][]string
	// PairsNarrow are the pair table's columns a terminal too narrow for
	// it may go without, least needed first (gdtopo path shows them).
	PairsNarrow []string
	HiddenNICs  []string // NIC functions without an RDMA device, not shown
	// SetAside are the NICs set aside from the compute rails ("NIC3:
	// why"), less those HiddenNICs already names for that alone.
	SetAside []string
	// NICLegendPerLine is how many NICs a line of the NIC legend names:
	// one as nvidia-smi writes it (Verbose), several to keep check short.
	NICLegendPerLine int
	Storage          [][]string // Verbose: each accelerator's NVMe drives for GPUDirect Storage
	// StorageColumns heads Storage: an "Unknown route" column only where
	// some drive's route is unknown (no hierarchy, a guessed label).
	StorageColumns []string
	// StorageSummary is the Storage table in a line: the accelerators
	// grouped by how they reach their nearest drives (not Verbose).
	StorageSummary string
	Plan           *CheckPlan // nil without a rail plan
	Counts         string     // the findings by severity: "1 warning, 1 info"
	Findings       []CheckFinding
	Notes          []string // each note of the pairs once, after whom it is about
	// Warnings are where and what could not be read, one row a kind of
	// message: the places that share it are counted, a few named; at most
	// shortWarnings rows without Verbose. WarningCount is how many
	// warnings there are in all.
	Warnings     [][]string
	WarningCount int
	// ReferenceHeading and Reference are how the machine differs from
	// check --reference's known-good one, a line a difference (at most
	// shortReference without Verbose); "" and none without a reference.
	ReferenceHeading string
	Reference        []string
	// Details: the view leaves details out that check -v shows.
	Details bool
}

// CheckPlan is the rail plan as check shows it.
type CheckPlan struct {
	Worst, Mean string     // per accelerator, "≤ " before ceilings
	Rows        [][]string // accelerator, NIC(s), expected, each, NIC use
	AtMost      bool       // the figures are ceilings (Plan.AtMost)
	// CeilingNote says what "≤" means, under the plan (Verbose, and
	// AtMost only: "≤ 115 Gb/s" reads as "at most" without it).
	CeilingNote string
	Ranks       []CheckRank
	Notes       []string // lines about the rank settings (Plan.Notes)
}

// CheckRank is one local rank's settings, quoted for a shell.
type CheckRank struct {
	LocalRank int
	// Who names the ranks the settings are for: "rank 0", or "GPU0's
	// ranks" where the accelerator runs as several (compute partitions).
	Who      string
	Settings string
}

// CheckFinding is a finding as check lists it.
type CheckFinding struct {
	Severity, Code string
	// Devices names the devices: by table name up to three, else how
	// many; with Verbose each by table name and address.
	Devices           string
	Message, Evidence string
	Remedy            []string // Verbose: the remedy as shell lines (RemedyScript)
}

// CheckViewOptions says what a CheckView holds.
type CheckViewOptions struct {
	Verbose bool // the details check -v shows (CheckView.Verbose)
}

// NewCheckView is what gdtopo check shows of r as tables.
func NewCheckView(r *Report, opts CheckViewOptions) *CheckView {
	v := &CheckView{Source: r.Source.Name, Verbose: opts.Verbose, Summary: SummaryRows(r), HiddenNICs: r.HiddenNICs, Counts: r.Counts.String()}
	status, rest := verdictParts(r)
	v.Severity, v.Verdict = strings.ToLower(status), rest
	among := fmt.Sprintf(" among %d PCI functions", r.functionCount())
	switch {
	case len(r.Accelerators) == 0 && r.Summary.Partial != "":
		v.NoPairs = "no accelerators" + noneInPartial(r.Summary, r.Summary.SkippedAccelerators, "accelerator", among)
	case len(r.Accelerators) == 0 && r.Summary.UnidentifiedFunctions > 0:
		v.NoPairs = "no accelerators identified" + among + ": the source does not say what " + unidentified(r.Graph) + " are"
	case len(r.Accelerators) == 0:
		v.NoPairs = "no accelerators found" + among
	case len(r.NICs) == 0 && r.Summary.Partial != "":
		v.NoPairs = "no NICs" + noneInPartial(r.Summary, r.Summary.SkippedNICs, "NIC", among)
	case len(r.NICs) == 0:
		v.NoPairs = "no NICs found" + among + ": nothing for GPUDirect RDMA to use"
	default:
		v.Matrix = MatrixOf(r)
		for i, d := range v.Matrix.Devices {
			if d.Kind == string(topology.KindAccelerator) {
				v.MatrixRows = append(v.MatrixRows, i)
			} else {
				v.MatrixCols = append(v.MatrixCols, i)
			}
		}
		if opts.Verbose {
			v.Pairs = pairRows(r)
			v.PairsNarrow = []string{"Hops", "Eff", "Bottleneck"}
		}
	}
	v.NICLegendPerLine = 1
	if !opts.Verbose { // at least four a line, at most four lines
		v.NICLegendPerLine = max(4, (len(v.MatrixCols)+3)/4)
	}
	var asideNICs [][]string // the NICs of each reason, the reasons in order
	var asideWhy []string
	for _, s := range r.SetAsideNICs {
		if slices.Contains(r.HiddenNICs, s.NIC) && s.NoRDMAOnly() {
			continue
		}
		i := slices.Index(asideWhy, s.Reason)
		if opts.Verbose || i < 0 {
			asideWhy, asideNICs = append(asideWhy, s.Reason), append(asideNICs, nil)
			i = len(asideWhy) - 1
		}
		asideNICs[i] = append(asideNICs[i], s.NIC)
	}
	for i, why := range asideWhy {
		v.SetAside = append(v.SetAside, strings.Join(asideNICs[i], ", ")+": "+why)
	}
	storage := storageRows(r)
	if opts.Verbose {
		unknown := slices.ContainsFunc(storage, func(s storageRow) bool { return s.Unknown > 0 })
		v.StorageColumns = []string{"Accelerator", "In switch", "Root complex", "Other NUMA node", "Nearest drives", "Bottleneck"}
		if unknown {
			v.StorageColumns = slices.Insert(v.StorageColumns, 4, "Unknown route")
		}
		for _, s := range storage {
			row := []string{strings.TrimSpace(s.Alias + " " + s.Accelerator), known(s.InSwitch, s.Unplaced), known(s.RootComplex, s.Unknown),
				known(s.Far, s.Unknown), storageHow(s) + ": " + strings.Join(s.Nearest, ", "), words.Gbps(s.BottleneckGbps)}
			if unknown {
				row = slices.Insert(row, 4, strconv.Itoa(s.Unknown))
			}
			v.Storage = append(v.Storage, row)
		}
	} else {
		v.StorageSummary = storageSummary(storage)
	}
	v.Plan = checkPlan(r, opts.Verbose)
	same := map[string]int{} // findings of a code, for the short view
	for _, f := range r.Findings {
		same[f.Code]++
	}
	for _, f := range r.Findings {
		cf := CheckFinding{Severity: f.Severity, Code: f.Code, Message: f.Message}
		switch {
		case opts.Verbose:
			cf.Devices, cf.Evidence, cf.Remedy = deviceList(r, f.Devices), f.Evidence, RemedyScript(f.Remedy)
		case same[f.Code] < 0: // said by "and N more"
			continue
		case same[f.Code] > 2: // the first of a code and how many more, on one line each
			cf.Devices = shortDeviceList(r, f.Devices)
			v.Findings = append(v.Findings, cf, CheckFinding{Severity: f.Severity, Code: f.Code,
				Message: fmt.Sprintf("and %d more like it: gdtopo check -v", same[f.Code]-1)})
			same[f.Code] = -1
			continue
		default:
			cf.Devices = shortDeviceList(r, f.Devices)
		}
		v.Findings = append(v.Findings, cf)
	}
	for _, g := range noteGroups(r) {
		who := fmt.Sprintf("%d pairs", len(g.Pairs))
		if len(g.Pairs) == 1 {
			who = g.Pairs[0]
		} else if opts.Verbose {
			who += " (" + strings.Join(g.Pairs, ", ") + ")"
		}
		v.Notes = append(v.Notes, who+": "+g.Note)
	}
	var counts []int
	v.Warnings, counts = groupWarnings(r.Warnings)
	v.WarningCount = len(r.Warnings)
	if !opts.Verbose && len(v.Warnings) > shortWarnings {
		left := 0
		for _, n := range counts[shortWarnings-1:] {
			left += n
		}
		v.Warnings = append(v.Warnings[:shortWarnings-1], []string{"", fmt.Sprintf("%d more: gdtopo check -v", left)})
	}
	v.ReferenceHeading = r.ReferenceHeading()
	if r.Reference != nil {
		for i, d := range r.Reference.Differences {
			if !opts.Verbose && i == shortReference && len(r.Reference.Differences) > shortReference+1 {
				v.Reference = append(v.Reference, fmt.Sprintf("%d more: gdtopo check -v, or -o json", len(r.Reference.Differences)-i))
				break
			}
			v.Reference = append(v.Reference, d.Text("reference"))
		}
	}
	v.Details = !opts.Verbose && len(r.Accelerators) > 0
	return v
}

// shortReference is how many differences from the reference check shows
// without -v.
const shortReference = 10

// shortWarnings is how many rows of warnings check shows without -v.
const shortWarnings = 3

// SummaryRows are the items of the check's first table, each a name and
// its value.
func SummaryRows(r *Report) [][]string {
	s := r.System
	host := s.Hostname
	if host == "" {
		host = "unknown"
	}
	lacks := "nothing"
	if len(r.Lacks) > 0 {
		lacks = strings.Join(r.Lacks, "; ")
	}
	rows := [][]string{
		{"Source", fmt.Sprintf("%s (%s)", r.Source.Name, r.Source.Format)},
		{"Host", host},
		{"CPU", cpuText(s, r.NCCLTopology())},
		{"NUMA nodes", numaText(s, r.NCCLTopology())},
		{"Accelerators", r.Summary.Accelerators},
		{"NICs", r.Summary.NICs},
		{"PCIe switches", switchText(r)},
		{"PCI functions", strconv.Itoa(r.Summary.Functions)},
		{"Source lacks", lacks},
	}
	if len(r.Summary.Platform) > 0 {
		rows = append(rows, []string{"Platform", strings.Join(r.Summary.Platform, "; ")})
	}
	if r.NVSMI != nil {
		rows = append(rows, []string{r.NVSMI.ToolName(), r.NVSMI.CellCounts()})
	}
	if len(r.NCCLEnv) > 0 {
		vars := make([]string, len(r.NCCLEnv))
		for i, v := range r.NCCLEnv {
			vars[i] = v.String()
		}
		rows = append(rows, []string{"NCCL env", strings.Join(vars, ", ")})
	}
	return rows
}

// numaText is "2 (0: socket 0, 1: socket 1)", or "unknown".
func numaText(s System, ncclTopology bool) string {
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
	if ncclTopology {
		return fmt.Sprintf("%d holding devices (%s); NCCL's topology lists no others", len(s.NUMANodes), strings.Join(per, ", "))
	}
	return fmt.Sprintf("%d (%s)", len(s.NUMANodes), strings.Join(per, ", "))
}

// pairRows are the pair table's cells: one row an accelerator and a shown
// NIC.
func pairRows(r *Report) [][]string {
	var rows [][]string
	for _, a := range r.Accelerators {
		for _, n := range r.NICs {
			p := r.Pair(a.BDF, n)
			if p == nil {
				continue
			}
			da, dn := r.Device(a.BDF), r.Device(n)
			bottleneck := words.Ceiling(words.Gbps(p.BottleneckGbps), p.BottleneckAtMax()) // a link known by its max alone bounds it
			expected, eff, gdr := "", "", ""
			if x := p.Prediction; x != nil {
				expected, gdr = x.ExpectedText(), x.GDRText()
				if x.PathGbps > 0 && math.Abs(x.PathGbps-p.BottleneckGbps) > 0.5 && x.PathNote != "" { // the figure the prediction uses
					bottleneck += ", " + words.Gbps(x.PathGbps) + " " + x.PathNote
				}
				if x.Efficiency > 0 {
					eff = fmt.Sprintf("%.0f%%", 100*x.Efficiency)
				}
			}
			rows = append(rows, []string{
				da.Alias + " " + da.BDF, dn.TableName() + " " + dn.BDF,
				Label(p), NCCLLabel(p), p.Path, bottleneck, strconv.Itoa(len(p.Hops)),
				expected, eff, gdr,
			})
		}
	}
	return rows
}

// ModeWords names how NCCL runs a planned pair (Assignment.Mode), after
// its figure in plan tables: the figure is that mode's, direct or staged.
func ModeWords(mode string) string {
	switch mode {
	case "gdr":
		return "GDR"
	case "gdr_write":
		return "GDR recv, staged send"
	case "host_staged":
		return "host-staged"
	}
	return ""
}

// ModeText is ModeWords of a planned pair, with "?" where its GDR verdict
// is undecided (Prediction.GDRUndecided): "GDR?".
func (r *Report) ModeText(as Assignment) string {
	w := ModeWords(as.Mode)
	if p := r.Pair(as.Accelerator, as.NIC); p != nil && p.Prediction != nil && p.Prediction.GDRUndecided {
		w += "?"
	}
	return w
}

// ranksOf is how many ranks a planned accelerator runs as and whether it
// runs in compute partitions (a mode other than SPX): Partitions there, 0
// unknown; 1 for any other, whatever the field (a report that predates it).
func (r *Report) ranksOf(as Assignment) (int, bool) {
	if m := r.Device(as.Accelerator).ComputePartition; m == "" || m == "SPX" {
		return 1, false
	}
	return as.Partitions, true
}

// checkPlan is the rail plan as check shows it, each rank's settings with
// verbose; nil without assignments.
func checkPlan(r *Report, verbose bool) *CheckPlan {
	plan := r.Plan
	if len(plan.Assignments) == 0 {
		return nil
	}
	out := &CheckPlan{Worst: words.GbpsAtMost(plan.WorstGbps, plan.WorstAtMost), Mean: words.GbpsAtMost(plan.MeanGbps, plan.AtMost), AtMost: plan.AtMost}
	if plan.AtMost && verbose {
		out.CeilingNote = "≤: a ceiling, not an estimate: the source does not give the NIC's port rate, so its own PCIe link is taken as its limit."
	}
	// Where an accelerator runs as several ranks (compute partitions), the
	// NIC's sharers are counted as ranks, and said so.
	partitioned := slices.ContainsFunc(plan.Assignments, func(as Assignment) bool { _, p := r.ranksOf(as); return p })
	for _, as := range plan.Assignments {
		shared := "own"
		switch g, p := r.Device(as.Accelerator), as.Partitions; {
		case partitioned && p == 0:
			shared = "shared by its " + g.ComputePartition + " partitions, count unknown"
		case partitioned && as.Shared == 0:
			shared = "shared with partitions of unknown count"
		case partitioned && p > 1 && as.Shared == p:
			shared = fmt.Sprintf("shared by its %d %s partitions", p, g.ComputePartition)
		case partitioned && p > 1:
			shared = fmt.Sprintf("shared by %d ranks: its %d %s partitions, %d more", as.Shared, p, g.ComputePartition, as.Shared-p)
		case partitioned && as.Shared > 1:
			shared = fmt.Sprintf("shared by %d ranks", as.Shared)
		case as.Shared > 1 && as.LinkShared > 1:
			shared = fmt.Sprintf("shared by %d, card link by %d", as.Shared, as.LinkShared)
		case as.Shared > 1:
			shared = fmt.Sprintf("shared by %d", as.Shared)
		case as.LinkShared > 1:
			shared = fmt.Sprintf("own port, card link shared by %d", as.LinkShared)
		}
		if !as.Known {
			shared += ", estimate unsure" // label, link or GPUDirect RDMA verdict unknown
		}
		g, n := r.Device(as.Accelerator), r.Device(as.NIC)
		nic := n.TableName()
		if len(as.MoreNICs) > 0 {
			shared += fmt.Sprintf(", %d NICs", 1+len(as.MoreNICs))
			nic += " + " + strings.Join(r.TableNames(as.MoreNICs), " ")
		}
		out.Rows = append(out.Rows, []string{g.Alias + " " + g.BDF, nic, words.GbpsAtMost(as.ExpectedGbps, as.AtMost) + " " + r.ModeText(as), words.GbpsAtMost(as.ShareGbps, as.AtMost), shared})
	}
	if !verbose {
		return out
	}
	for i, rk := range plan.Ranks {
		settings := make([]string, len(rk.Env))
		for i, w := range rk.Env {
			settings[i] = termsafe.Assignment(w) // names from the input, pasted into a shell
		}
		if rk.Numactl != "" {
			settings = append(settings, rk.Numactl)
		}
		line := strings.Join(settings, " ")
		if line == "" {
			line = "nothing gdtopo can set from this source"
		}
		who := fmt.Sprintf("rank %d", rk.LocalRank)
		alias := rk.Accelerator
		if d := r.Device(rk.Accelerator); d != nil && d.Alias != "" {
			alias = d.Alias
		}
		switch {
		case i < len(plan.Assignments) && partitioned && plan.Assignments[i].Partitions != 1:
			who = alias + "'s ranks"
		case rk.LocalRank < 0:
			who = "the rank on " + alias
		case alias != fmt.Sprintf("GPU%d", rk.LocalRank) && strings.HasPrefix(alias, "GPU"):
			who += " (" + alias + ")"
		}
		out.Ranks = append(out.Ranks, CheckRank{LocalRank: rk.LocalRank, Who: who, Settings: line})
	}
	out.Notes = plan.Notes
	return out
}

// RemedyScript writes remedy steps as shell lines: a command as it is,
// after its comment; the other kinds as comments saying what they are.
func RemedyScript(steps []RemedyStep) []string {
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
func shortDeviceList(r *Report, bdfs []string) string {
	if len(bdfs) > 3 {
		return fmt.Sprintf("%d devices", len(bdfs))
	}
	return strings.Join(r.TableNames(bdfs), ", ")
}

// deviceList names devices by alias where they have one: "GPU0 0000:1a:00.0".
func deviceList(r *Report, bdfs []string) string {
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

// TableNames names each device by its table name (GPU0, NIC3), or its
// address where it has none.
func (r *Report) TableNames(bdfs []string) []string {
	out := make([]string, len(bdfs))
	for i, b := range bdfs {
		out[i] = b
		if d := r.Device(b); d != nil && d.Alias != "" {
			out[i] = d.Alias
		}
	}
	return out
}

// TableName names a device in tables: "NIC0 mlx5_0", "GPU0", or its BDF.
func (d *Device) TableName() string {
	if d.Alias == "" {
		return d.BDF
	}
	if d.Kind == string(topology.KindNIC) {
		if n := deviceName(d); n != "" {
			return d.Alias + " " + n
		}
	}
	return d.Alias
}

// TableNameAndBDF is "NIC0 mlx5_0 0000:1b:00.0", or the BDF alone for a
// device without a table name.
func (d *Device) TableNameAndBDF() string {
	if d.Alias == "" {
		return d.BDF
	}
	return d.TableName() + " " + d.BDF
}

// GDRText says whether NCCL would use GPUDirect RDMA for the pair and,
// when it would not, what staging through host memory gives: "yes",
// "recv only?", "no, staged 100 Gb/s".
func (x *Prediction) GDRText() string {
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

// ExpectedText is the prediction, per direction where they differ: "w
// 192 / r 83-173 Gb/s" (write: the NIC writes GPU memory); "≤ w 192 / r
// 83-173 Gb/s" where they are ceilings.
func (x *Prediction) ExpectedText() string {
	if x.ExpectedWriteGbps <= 0 || x.ExpectedReadGbps <= 0 || x.ExpectedWriteGbps == x.ExpectedReadGbps && x.ExpectedReadMaxGbps == x.ExpectedReadGbps && x.ExpectedWriteMaxGbps == x.ExpectedWriteGbps {
		return words.GbpsAtMost(x.ExpectedGbps, x.AtMost)
	}
	return words.Ceiling("w "+words.GbpsSpan(x.ExpectedWriteGbps, x.ExpectedWriteMaxGbps)+" / r "+words.GbpsSpan(x.ExpectedReadGbps, x.ExpectedReadMaxGbps)+" Gb/s", x.AtMost)
}

// storageSummary is "GPU0, GPU1: PXB in the switch; GPU2-GPU7: SYS across
// sockets": each accelerator by how it reaches its nearest NVMe drives,
// those that reach them alike together; "" without drives.
func storageSummary(rows []storageRow) string {
	var how []string
	var who [][]string
	for _, s := range rows {
		h := storageHow(s)
		i := slices.Index(how, h)
		if i < 0 {
			how, who = append(how, h), append(who, nil)
			i = len(how) - 1
		}
		name := s.Alias
		if name == "" {
			name = s.Accelerator
		}
		who[i] = append(who[i], name)
	}
	parts := make([]string, len(how))
	for i, h := range how {
		parts[i] = strings.Join(who[i], ", ") + ": " + h
	}
	return strings.Join(parts, "; ")
}

// storageHow is how an accelerator reaches its nearest drives: "PXB in the
// switch", "NODE? route unknown" where the label is a guess, or "path
// unknown" where the source shows no hierarchy.
func storageHow(s storageRow) string {
	switch {
	case s.NearestLabel == string(topology.Unknown):
		return "path unknown (the source shows no PCI hierarchy)"
	case s.NearestUncertain && s.NearestRoute == advisor.RouteUnknown:
		return s.NearestLabel + "? route unknown"
	case s.NearestUncertain:
		return s.NearestLabel + "? " + s.NearestRoute
	}
	return s.NearestLabel + " " + s.NearestRoute
}

// known is a count of drives, "?" when some drives' paths are unknown and
// it counts none (they may be any of the kinds).
func known(n, unknown int) string {
	if unknown > 0 && n == 0 {
		return "?"
	}
	return strconv.Itoa(n)
}

// warningExamples is how many places a grouped warning names.
const warningExamples = 3

// groupWarnings is one row per kind of warning, in the order each kind
// first comes: its subject and message, or, when several share it, their
// count, the first few subjects and the first message. Warnings are of a
// kind when their messages differ only in PCI addresses and bus names
// (each function's own folder, its assumed host bridge). Tens of thousands
// of functions with the same fault make a row, not a table as long as the
// input; -o json lists each. counts is how many warnings each row stands for.
func groupWarnings(ws []Warning) ([][]string, []int) {
	type group struct {
		subjects []string
		message  string
		same     bool // every message is the first's
	}
	var order []string
	groups := map[string]*group{}
	for _, w := range ws {
		k := pciAddress.ReplaceAllString(w.Message, "…")
		g := groups[k]
		if g == nil {
			g = &group{message: w.Message, same: true}
			groups[k] = g
			order = append(order, k)
		}
		g.subjects = append(g.subjects, w.Subject)
		g.same = g.same && w.Message == g.message
	}
	rows, counts := make([][]string, 0, len(order)), make([]int, 0, len(order))
	for _, k := range order {
		g := groups[k]
		counts = append(counts, len(g.subjects))
		if len(g.subjects) == 1 {
			rows = append(rows, []string{g.subjects[0], g.message})
			continue
		}
		msg := g.message
		if !g.same {
			msg = "the first: " + msg
		}
		rows = append(rows, []string{strconv.Itoa(len(g.subjects)) + " places: " + words.Examples(g.subjects, warningExamples), msg})
	}
	return rows, counts
}

// pciAddress matches a PCI address or bus as sysfs writes it
// (0000:3b:00.0, 10000:01:00.0 in a VMD domain, pci0000:3a): what sets one
// function's warning apart from the same warning of another.
var pciAddress = regexp.MustCompile(`[0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}\.[0-7])?`)
