package report

import (
	"time"

	"github.com/gdtopo/gdtopo/internal/words"
	"github.com/gdtopo/gdtopo/topology"
)

// Check is the result of gdtopo check over one or more sources: the same
// shape for one source as for many.
type Check struct {
	SchemaVersion int       `json:"schema_version"`
	Time          time.Time `json:"-"` // when the check ran, for -o prometheus
	FailOn        string    `json:"fail_on"`
	Sources       []Result  `json:"sources"`
	// ExitStatus is the highest of the sources': 3 over 1 over 0. It
	// follows the sources, so that a document over many sources can be
	// written a source at a time, before the last one is read.
	ExitStatus int `json:"exit_status"`
}

// Result is one source of a check: its report, or why there is none.
type Result struct {
	SchemaVersion int     `json:"schema_version"` // so that each -o jsonl line stands alone
	Source        string  `json:"source"`         // as given; "/" for this machine
	ExitStatus    int     `json:"exit_status"`
	Error         string  `json:"error"` // "" when the report is there
	Report        *Report `json:"report"`
}

// NewCheck gathers the results of a check; its exit status is the highest
// of theirs, 3 (findings) over 1 (unreadable) over 0.
func NewCheck(failOn string, results []Result) *Check {
	c := &Check{SchemaVersion: SchemaVersion, FailOn: failOn, Sources: results}
	if c.Sources == nil {
		c.Sources = []Result{}
	}
	for _, r := range results {
		if r.ExitStatus == ExitFindings || (r.ExitStatus > c.ExitStatus && c.ExitStatus != ExitFindings) {
			c.ExitStatus = r.ExitStatus
		}
	}
	return c
}

// NewResult is the result of a source read into r, or that failed with err
// (exit status status).
func NewResult(source string, r *Report, err error, status int) Result {
	if source == "" {
		source = "/"
	}
	if err != nil {
		return Result{SchemaVersion: SchemaVersion, Source: source, Error: err.Error(), ExitStatus: status}
	}
	return Result{SchemaVersion: SchemaVersion, Source: source, Report: r, ExitStatus: r.ExitStatus}
}

// legend is nvidia-smi's legend, verbatim, less NV# (nvLegend).
var legend = []LegendEntry{
	{"X", "Self"},
	{"SYS", "Connection traversing PCIe as well as the SMP interconnect between NUMA nodes (e.g., QPI/UPI)"},
	{"NODE", "Connection traversing PCIe as well as the interconnect between PCIe Host Bridges within a NUMA node"},
	{"PHB", "Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)"},
	{"PXB", "Connection traversing multiple PCIe bridges (without traversing the PCIe Host Bridge)"},
	{"PIX", "Connection traversing at most a single PCIe bridge"},
}

// nvLegend is nvidia-smi's NV# line, for a matrix with NVLink pairs.
var nvLegend = LegendEntry{"NV#", "Connection traversing a bonded set of # NVLinks"}

// nvUnknownLegend says what gdtopo's NV? means.
var nvUnknownLegend = LegendEntry{"NV?", "NVLink possible but not in the source (gdtopo check says why): nvidia-smi prints NV# or a PCIe label"}

// xgmiLegend explains XGMI, the label of two AMD accelerators over xGMI:
// RCCL's path type (ROCm/rccl src/graph/topo.cc) and rocm-smi --showtopo's
// link type.
var xgmiLegend = LegendEntry{"XGMI", "Connection traversing AMD xGMI (Infinity Fabric) links between accelerators (RCCL's path type; rocm-smi --showtopo's link type)"}

// xgmiUnknownLegend says what gdtopo's XGMI? means.
var xgmiUnknownLegend = LegendEntry{"XGMI?", "xGMI possible but not in the source (gdtopo check says why): rocm-smi --showtopo gives link type XGMI or PCIE"}

// uncertainLegend explains the mark on labels that rest on a guess.
var uncertainLegend = LegendEntry{"?", "the source does not tell: a NUMA node, NVLink, or the whole path (see gdtopo check, Source lacks)"}

// LegendEntry explains one label.
type LegendEntry struct {
	Label   string `json:"label"`
	Meaning string `json:"meaning"`
}

// Matrix is nvidia-smi topo -m's matrix of accelerators and the shown NICs.
type Matrix struct {
	SchemaVersion int            `json:"schema_version"`
	Source        Source         `json:"source"`
	Devices       []MatrixDevice `json:"devices"` // the rows and the columns, in order
	// Labels[i][j] is the nvidia-smi label of Devices[i] and Devices[j]:
	// "X" on the diagonal, "?" appended where the label rests on a guess.
	Labels       [][]string    `json:"labels"`
	Legend       []LegendEntry `json:"legend"`
	HiddenNICs   []string      `json:"hidden_nics"`
	PCIFunctions int           `json:"pci_functions"` // functions in the source, shown or not
}

// MatrixDevice is a row of the matrix with its affinities.
type MatrixDevice struct {
	Alias        string `json:"alias"`
	BDF          string `json:"bdf"`
	Kind         string `json:"kind"`
	Name         string `json:"name"` // a NIC's RDMA or network name
	CPUAffinity  string `json:"cpu_affinity"`
	NUMAAffinity int    `json:"numa_affinity"` // -1 unknown
	NUMAFrom     string `json:"numa_from"`
	// GPUNUMAID is nvidia-smi's "GPU NUMA ID" of an accelerator: "N/A"
	// when no NUMA node holds memory without CPUs (no node can be the
	// accelerator's own memory), "?" when some do (which one is the
	// accelerator's is not read); "" for NICs.
	GPUNUMAID string `json:"gpu_numa_id"`
}

// MatrixOf is r's matrix: accelerators then shown NICs.
func MatrixOf(r *Report) *Matrix {
	ends := make([]string, 0, len(r.Accelerators)+len(r.NICs))
	for _, a := range r.Accelerators {
		ends = append(ends, a.BDF)
	}
	ends = append(ends, r.NICs...)
	m := &Matrix{SchemaVersion: SchemaVersion, Source: r.Source, Devices: make([]MatrixDevice, 0, len(ends)), Labels: make([][]string, 0, len(ends)),
		Legend: append(make([]LegendEntry, 0, len(legend)+3), legend...), HiddenNICs: r.HiddenNICs, PCIFunctions: r.functionCount()}
	cells := make([]string, len(ends)*len(ends)) // the rows are cut from one array
	nv, nvUnknown, uncertain, xgmiKnown, xgmiUnknown := false, false, false, false, false
	gpuNUMA := "N/A"
	for _, n := range r.System.NUMANodes {
		if n.MemoryOnly {
			gpuNUMA = "?"
		}
	}
	for _, b := range ends {
		d := r.Device(b)
		md := MatrixDevice{Alias: d.Alias, BDF: d.BDF, Kind: d.Kind, Name: deviceName(d),
			CPUAffinity: d.LocalCPUs, NUMAAffinity: d.NUMANode, NUMAFrom: d.NUMAFrom}
		if d.Kind == string(topology.KindAccelerator) {
			md.GPUNUMAID = gpuNUMA
		}
		m.Devices = append(m.Devices, md)
		row := cells[:0:len(ends)]
		cells = cells[len(ends):]
		for _, c := range ends {
			var p *Pair
			if b != c { // the diagonal has no pair to look up
				p = r.Pair(b, c)
			}
			switch {
			case b == c:
				row = append(row, "X")
			case p == nil:
				row = append(row, "")
			default:
				row = append(row, Label(p))
				xgmi := topology.Label(p.SMI) == topology.XGMI
				nv = nv || !xgmi && topology.Label(p.SMI).Rank() == topology.NVL.Rank()
				nvUnknown = nvUnknown || topology.Label(p.SMI) == topology.NVLinkUnknown
				xgmiKnown = xgmiKnown || xgmi && !p.LabelUncertain
				xgmiUnknown = xgmiUnknown || xgmi && p.LabelUncertain
				uncertain = uncertain || p.LabelUncertain
			}
		}
		m.Labels = append(m.Labels, row)
	}
	if nv {
		m.Legend = append(m.Legend, nvLegend)
	}
	if nvUnknown {
		m.Legend = append(m.Legend, nvUnknownLegend)
	}
	if xgmiKnown {
		m.Legend = append(m.Legend, xgmiLegend)
	}
	if xgmiUnknown {
		m.Legend = append(m.Legend, xgmiUnknownLegend)
	}
	if uncertain {
		m.Legend = append(m.Legend, uncertainLegend)
	}
	return m
}

// Label is a pair's nvidia-smi label, with "?" when it rests on a guess;
// a path the source cannot tell is "?" alone.
func Label(p *Pair) string {
	if p.LabelUncertain && p.SMI != string(topology.Unknown) {
		return p.SMI + "?"
	}
	return p.SMI
}

// NCCLLabel is a pair's NCCL label, with "?" when it rests on a guess
// (NCCLUncertain, which holds the path's doubt too); a path the source
// cannot tell is "?" alone.
func NCCLLabel(p *Pair) string {
	if p.NCCLUncertain && p.NCCL != string(topology.Unknown) {
		return p.NCCL + "?"
	}
	return p.NCCL
}

func deviceName(d *Device) string {
	if len(d.RDMA) > 0 {
		return d.RDMA[0]
	}
	if len(d.Netdev) > 0 {
		return d.Netdev[0]
	}
	return ""
}

// Tree is the PCIe tree of a source, with the functions worth showing.
type Tree struct {
	SchemaVersion int          `json:"schema_version"`
	Source        Source       `json:"source"`
	HostBridges   []HostBridge `json:"host_bridges"`
	Devices       []Device     `json:"devices"`
	// Shown are the functions the tree shows: with all, every one; else
	// the branches that lead to an accelerator, NIC, NVMe drive or NVSwitch.
	Shown []string `json:"shown"`
	// PlaceUnknown are the shown functions whose place the source does not
	// say (plain lspci): the tree lists them apart.
	PlaceUnknown []string `json:"place_unknown"`
	// Skipped counts by name the functions, of the kinds the tree shows,
	// that the source names without a bus to place them on (a tree
	// fragment's: topology.Graph.Skipped): "6 x ...".
	Skipped string `json:"skipped"`
	// Partial is the summary's: why the source holds part of the machine.
	Partial string `json:"partial"`
}

// TreeOf is r's tree; all shows every function.
func TreeOf(r *Report, all bool) *Tree {
	t := &Tree{SchemaVersion: SchemaVersion, Source: r.Source, HostBridges: r.HostBridges, Devices: r.Devices, Shown: []string{}}
	keep := map[string]bool{}
	for i := range r.Devices {
		d := &r.Devices[i]
		if !all && !interesting(d.Kind) {
			continue
		}
		for x := d; x != nil && !keep[x.BDF]; x = r.Device(x.Parent) {
			keep[x.BDF] = true
		}
	}
	t.PlaceUnknown = []string{}
	for _, d := range r.Devices {
		if keep[d.BDF] {
			t.Shown = append(t.Shown, d.BDF)
			if d.PlaceUnknown {
				t.PlaceUnknown = append(t.PlaceUnknown, d.BDF)
			}
		}
	}
	t.Partial = r.Summary.Partial
	if r.Graph != nil {
		var skipped []string
		for _, s := range r.Graph.Skipped {
			if all || interesting(string(s.Kind)) {
				skipped = append(skipped, s.Name)
			}
		}
		t.Skipped = words.CountedNames(skipped)
	}
	return t
}

// InTree reports whether gdtopo tree shows functions of this kind, with
// the branch above them, without --all.
func InTree(kind topology.Kind) bool { return interesting(string(kind)) }

func interesting(kind string) bool {
	switch topology.Kind(kind) {
	case topology.KindAccelerator, topology.KindNIC, topology.KindNVMe, topology.KindNVSwitch:
		return true
	}
	return false
}

// PathView is the path between two devices, with the prediction and its
// arithmetic for an accelerator and a NIC the plan considered.
type PathView struct {
	SchemaVersion int    `json:"schema_version"`
	Source        Source `json:"source"`
	From          Device `json:"from"`
	To            Device `json:"to"`
	Pair          Pair   `json:"pair"` // A is From
	NCCLVersion   string `json:"nccl_version"`
	// PlaceUnknown is set when the source shows no PCI hierarchy for the
	// pair (plain lspci), or not where the pair's paths meet (a partial
	// source): there are no hops to show.
	PlaceUnknown bool `json:"place_unknown"`
	// Partial is the summary's: why the source holds part of the machine.
	Partial string `json:"partial"`
	// LinksAtMax: the hops give each link's maximum speed and width, not
	// its state now (an NCCL topology file records no other).
	LinksAtMax bool `json:"links_at_max"`
}

// NCCLTopology reports whether the source is NCCL's topology (a file or
// its print), which records each link's maximum rather than its state now
// and lists only the NUMA nodes holding devices (src/graph/xml.cc,
// ncclTopoGetXmlFromSys).
func (r *Report) NCCLTopology() bool { return r.Graph != nil && r.Graph.NCCLView }

// Aliases are the graph's devices' table names (GPU0, NIC0), for the
// exports that draw the graph.
func (r *Report) Aliases() map[*topology.Device]string { return Aliases(r.Graph) }

// BestNICs gives each accelerator of the graph the NIC the report gives it,
// for the exports that draw the graph.
func (r *Report) BestNICs() map[*topology.Device]*topology.Device {
	byBDF := map[string]*topology.Device{}
	for _, d := range r.Graph.Devices {
		byBDF[d.BDF()] = d
	}
	out := map[*topology.Device]*topology.Device{}
	for _, a := range r.Accelerators {
		if gpu, nic := byBDF[a.BDF], byBDF[a.BestNIC]; gpu != nil && nic != nil {
			out[gpu] = nic
		}
	}
	return out
}

// NewPathView is the path of p, two devices of r's graph, with the
// prediction r holds for them, if any.
func NewPathView(r *Report, p topology.Pair) *PathView {
	v := &PathView{SchemaVersion: SchemaVersion, Source: r.Source, Pair: pair(p, p.Hops, nil, nil, false), NCCLVersion: r.NCCLVersion}
	if d := r.Device(p.A.BDF()); d != nil {
		v.From = *d
	}
	if d := r.Device(p.B.BDF()); d != nil {
		v.To = *d
	}
	if rp := r.Pair(p.A.BDF(), p.B.BDF()); rp != nil {
		v.Pair.Prediction = rp.Prediction
		v.Pair.NCCL, v.Pair.NCCLUncertain, v.Pair.Notes = rp.NCCL, rp.NCCLUncertain, rp.Notes // PXN is the report's (Build)
	}
	v.PlaceUnknown = len(p.Hops) == 0 && (p.A.PlaceUnknown || p.B.PlaceUnknown || p.Path == topology.PathUnknown)
	v.Partial = r.Summary.Partial
	v.LinksAtMax = r.NCCLTopology()
	return v
}
