// Package report turns a topology graph into gdtopo's documented JSON
// schema. The structs here are gdtopo's own: stable snake_case fields that
// change only with SchemaVersion.
package report

import (
	"fmt"

	"github.com/gdtopo/gdtopo/advisor"
	"github.com/gdtopo/gdtopo/topology"
)

// SchemaVersion is the version of the JSON layout below.
const SchemaVersion = 1

// Report is one source's analysis.
type Report struct {
	SchemaVersion int          `json:"schema_version"`
	Source        Source       `json:"source"`
	System        System       `json:"system"`
	HostBridges   []HostBridge `json:"host_bridges"`
	Devices       []Device     `json:"devices"`
	Pairs         []Pair       `json:"pairs"`
	Warnings      []Warning    `json:"warnings"`
	Lacks         []string     `json:"lacks"`
	// The advisor's part, present when the command ran it (check).
	NCCLVersion string    `json:"nccl_version,omitempty"` // whose GPUDirect RDMA rules decided "gdr"
	Findings    []Finding `json:"findings,omitempty"`
	Plan        *Plan     `json:"plan,omitempty"`
}

// Finding is one problem the advisor found.
type Finding struct {
	Code     string   `json:"code"`
	Severity string   `json:"severity"` // critical, warning, info
	Devices  []string `json:"devices"`
	Message  string   `json:"message"`
	Remedy   string   `json:"remedy"` // commands or settings, one per line
	Evidence string   `json:"evidence"`
}

// Plan is the rail plan: a NIC for every accelerator.
type Plan struct {
	Assignments []Assignment `json:"assignments"`
	WorstGbps   float64      `json:"worst_gbps"` // per accelerator, after sharing a NIC
	MeanGbps    float64      `json:"mean_gbps"`
	NCCLIBHCA   string       `json:"nccl_ib_hca,omitempty"` // the same on every rank (NVIDIA/nccl#1478)
	Ranks       []Rank       `json:"ranks"`
}

// Assignment is one accelerator's NIC.
type Assignment struct {
	Accelerator  string  `json:"accelerator"`
	NIC          string  `json:"nic"`
	ExpectedGbps float64 `json:"expected_gbps"` // as NCCL would run the pair: direct, or host-staged where GDR is off
	Shared       int     `json:"shared"`        // accelerators on this NIC
	ShareGbps    float64 `json:"share_gbps"`    // expected_gbps / shared
	Known        bool    `json:"known"`         // the figure rests on a known link and a decided GDR verdict
}

// Rank is the environment of one local rank.
type Rank struct {
	LocalRank int      `json:"local_rank"`
	Env       []string `json:"env"` // NAME=value settings
	Numactl   string   `json:"numactl,omitempty"`
}

// Source names what was read.
type Source struct {
	Name   string `json:"name"`
	Kind   string `json:"kind"`
	Format string `json:"format"`
}

// System is the host around the PCI tree; "" and -1 mean unknown.
type System struct {
	Hostname    string     `json:"hostname"`
	CPUVendor   string     `json:"cpu_vendor"`
	CPUModel    string     `json:"cpu_model"`
	CPUFamily   int        `json:"cpu_family"`
	CPUModelID  int        `json:"cpu_model_id"`
	Sockets     int        `json:"sockets"`
	LogicalCPUs int        `json:"logical_cpus"`
	NUMANodes   []NUMANode `json:"numa_nodes"`
	Cmdline     *string    `json:"kernel_cmdline"` // null when not captured
}

// NUMANode is one NUMA node.
type NUMANode struct {
	ID        int    `json:"id"`
	CPUs      string `json:"cpus"`
	Distances []int  `json:"distances"`
	Socket    int    `json:"socket"`
}

// HostBridge is one PCI root bus.
type HostBridge struct {
	Name     string `json:"name"`
	NUMANode int    `json:"numa_node"`
	Socket   int    `json:"socket"`
}

// Link is a PCIe link; zeros mean unknown.
type Link struct {
	CurrentGTs   float64 `json:"current_gts"`
	CurrentWidth int     `json:"current_width"`
	MaxGTs       float64 `json:"max_gts"`
	MaxWidth     int     `json:"max_width"`
}

// Device is one PCI function.
type Device struct {
	BDF               string   `json:"bdf"`
	Alias             string   `json:"alias,omitempty"` // GPU0, NIC0: the index used in tables
	Kind              string   `json:"kind"`
	Role              string   `json:"role,omitempty"`
	Class             string   `json:"class"` // 6 hex digits: base, sub-class, prog-if
	VendorID          string   `json:"vendor_id"`
	DeviceID          string   `json:"device_id"`
	SubsystemVendorID string   `json:"subsystem_vendor_id,omitempty"`
	SubsystemDeviceID string   `json:"subsystem_device_id,omitempty"`
	Name              string   `json:"name,omitempty"`
	Parent            string   `json:"parent"`
	HostBridge        string   `json:"host_bridge"`
	NUMANode          int      `json:"numa_node"`
	NUMAFrom          string   `json:"numa_from,omitempty"` // numa_node, local_cpus or host_bridge
	LocalCPUs         string   `json:"local_cpus,omitempty"`
	Driver            string   `json:"driver,omitempty"`
	IOMMUGroup        string   `json:"iommu_group,omitempty"`
	PhysFn            string   `json:"physfn,omitempty"`
	Link              Link     `json:"link"`
	RDMA              []string `json:"rdma"`
	Netdev            []string `json:"netdev"`
	PortRateGbps      float64  `json:"port_rate_gbps,omitempty"`
	ConfigBytes       int      `json:"config_bytes"`
}

// Hop is one step of a pair's path.
type Hop struct {
	From         string  `json:"from"`
	To           string  `json:"to"`
	Kind         string  `json:"kind"`
	CurrentGTs   float64 `json:"current_gts,omitempty"`
	CurrentWidth int     `json:"current_width,omitempty"`
	Gbps         float64 `json:"gbps,omitempty"`
}

// Pair is the classification of two devices.
type Pair struct {
	A              string   `json:"a"`
	B              string   `json:"b"`
	Kinds          []string `json:"kinds"`
	SMI            string   `json:"smi"`
	NCCL           string   `json:"nccl"`
	Path           string   `json:"path"`
	Hops           []Hop    `json:"hops,omitempty"` // empty when the pair's hops were not given
	BottleneckGbps float64  `json:"bottleneck_gbps"`
	LabelUncertain bool     `json:"label_uncertain"`
	Notes          []string `json:"notes,omitempty"`
	// The advisor's prediction, for accelerator-NIC pairs when it ran.
	ExpectedGbps *float64 `json:"expected_gbps,omitempty"` // the lower direction
	// Per direction: write is the NIC writing GPU memory (receive side),
	// read the NIC reading it (send side); *_max_gbps the high end of a range.
	ExpectedWriteGbps    *float64 `json:"expected_write_gbps,omitempty"`
	ExpectedReadGbps     *float64 `json:"expected_read_gbps,omitempty"`
	ExpectedWriteMaxGbps *float64 `json:"expected_write_max_gbps,omitempty"`
	ExpectedReadMaxGbps  *float64 `json:"expected_read_max_gbps,omitempty"`
	PathGbps             *float64 `json:"path_gbps,omitempty"` // the path's narrowest link as predicted (idle accelerators at max speed)
	Efficiency           *float64 `json:"efficiency,omitempty"`
	GDR                  *bool    `json:"gdr,omitempty"`
	GDRRead              *bool    `json:"gdr_read,omitempty"`
	GDRReason            string   `json:"gdr_reason,omitempty"`
	GDRUnknown           string   `json:"gdr_unknown,omitempty"`   // what the verdict rests on that the source could not show
	GDRMechanism         string   `json:"gdr_mechanism,omitempty"` // nvidia-peermem or dma-buf
	HostStagedGbps       float64  `json:"host_staged_gbps,omitempty"`
	Assumed              []string `json:"assumed,omitempty"` // what the prediction took for granted
}

// Warning is a problem that did not stop the read.
type Warning struct {
	Subject string `json:"subject"`
	Message string `json:"message"`
}

// Aliases numbers accelerators GPU0.. in address order, as nvidia-smi does
// with CUDA_DEVICE_ORDER=PCI_BUS_ID, and NICs NIC0.. with the RDMA-capable
// ones first (nvidia-smi lists only those), each group in address order.
// Virtual functions get none.
func Aliases(g *topology.Graph) map[*topology.Device]string {
	out := map[*topology.Device]string{}
	for i, d := range g.OfKind(topology.KindAccelerator) {
		out[d] = fmt.Sprintf("GPU%d", i)
	}
	rdma, plain := SplitNICs(g)
	for i, d := range append(rdma, plain...) {
		out[d] = fmt.Sprintf("NIC%d", i)
	}
	return out
}

// SplitNICs separates NICs with an RDMA device from the others, each in
// address order.
func SplitNICs(g *topology.Graph) (rdma, plain []*topology.Device) {
	for _, d := range g.OfKind(topology.KindNIC) {
		if len(d.RDMA) > 0 {
			rdma = append(rdma, d)
		} else {
			plain = append(plain, d)
		}
	}
	return rdma, plain
}

// New builds the report of g read from src, with the advisor's result when
// adv is not nil.
func New(src Source, g *topology.Graph, pairs []topology.Pair, adv *advisor.Result) *Report {
	r := &Report{SchemaVersion: SchemaVersion, Source: src,
		HostBridges: []HostBridge{}, Devices: []Device{}, Pairs: []Pair{}, Warnings: []Warning{}, Lacks: []string{}}
	s := g.System
	r.System = System{Hostname: s.Hostname, CPUVendor: s.CPUVendor, CPUModel: s.CPUModel, CPUFamily: s.CPUFamily,
		CPUModelID: s.CPUModelID, Sockets: s.Sockets, LogicalCPUs: s.LogicalCPUs, NUMANodes: []NUMANode{}}
	if s.CmdlineRead {
		c := s.Cmdline
		r.System.Cmdline = &c
	}
	for _, n := range s.NUMANodes {
		d := n.Distances
		if d == nil {
			d = []int{}
		}
		r.System.NUMANodes = append(r.System.NUMANodes, NUMANode{ID: n.ID, CPUs: n.CPUs, Distances: d, Socket: n.Socket})
	}
	for _, hb := range g.HostBridges {
		r.HostBridges = append(r.HostBridges, HostBridge{Name: hb.Name, NUMANode: hb.NUMANode, Socket: hb.Socket})
	}
	aliases := Aliases(g)
	r.Devices = make([]Device, 0, len(g.Devices))
	for _, d := range g.Devices {
		r.Devices = append(r.Devices, device(d, aliases[d]))
	}
	predictions := map[[2]*topology.Device]*advisor.Prediction{}
	if adv != nil {
		for i, p := range adv.Predictions {
			predictions[[2]*topology.Device{p.GPU, p.NIC}] = &adv.Predictions[i]
		}
	}
	r.Pairs = make([]Pair, 0, len(pairs))
	for _, p := range pairs {
		out := pair(p)
		if pr := predictions[[2]*topology.Device{p.A, p.B}]; pr != nil {
			out.ExpectedGbps, out.Efficiency, out.GDR, out.GDRRead = &pr.ExpectedGbps, &pr.Efficiency, &pr.GDR, &pr.GDRRead
			out.GDRReason, out.HostStagedGbps, out.Assumed = pr.GDRReason, pr.HostStagedGbps, pr.Uncertain
			out.ExpectedWriteGbps, out.ExpectedReadGbps = &pr.ExpectedWriteGbps, &pr.ExpectedReadGbps
			out.ExpectedWriteMaxGbps, out.ExpectedReadMaxGbps, out.PathGbps = &pr.ExpectedWriteMaxGbps, &pr.ExpectedReadMaxGbps, &pr.PathGbps
			out.GDRUnknown, out.GDRMechanism = pr.GDRUnknown, pr.GDRMechanism
		}
		r.Pairs = append(r.Pairs, out)
	}
	if adv != nil {
		r.NCCLVersion = adv.NCCLVersion
		r.Findings = []Finding{}
		for _, f := range adv.Findings {
			r.Findings = append(r.Findings, Finding{Code: f.Code, Severity: string(f.Severity), Devices: f.Devices,
				Message: f.Message, Remedy: f.Remedy, Evidence: f.Evidence})
		}
		r.Plan = plan(adv.Plan)
	}
	for _, w := range g.Warnings {
		r.Warnings = append(r.Warnings, Warning{Subject: w.Subject, Message: w.Message})
	}
	r.Lacks = append(r.Lacks, g.Lacks...)
	return r
}

// hex4 formats v as fmt's %04x does.
func hex4(v uint16) string { return hexDigits(uint32(v), 4) }

// hexDigits formats v as fmt's %0Nx does for N = width, without fmt: a
// report formats four or five IDs of each of an 8-GPU server's 72 functions.
func hexDigits(v uint32, width int) string {
	const digits = "0123456789abcdef"
	if width > 8 || width < 8 && v>>(4*width) != 0 {
		return fmt.Sprintf("%0*x", width, v)
	}
	var b [8]byte
	for i := width - 1; i >= 0; i, v = i-1, v>>4 {
		b[i] = digits[v&0xf]
	}
	return string(b[:width])
}

func device(d *topology.Device, alias string) Device {
	out := Device{
		BDF: d.BDF(), Alias: alias, Kind: string(d.Kind), Role: string(d.Role),
		Class: hexDigits(d.Class, 6), VendorID: hex4(d.VendorID), DeviceID: hex4(d.DeviceID),
		Name: d.Name, NUMANode: d.NUMANode, NUMAFrom: d.NUMAFrom, LocalCPUs: d.LocalCPUs,
		Driver: d.Driver, IOMMUGroup: d.IOMMUGroup, PhysFn: d.PhysFn, PortRateGbps: d.PortRateGbps,
		ConfigBytes: d.ConfigLen, RDMA: nonNil(d.RDMA), Netdev: nonNil(d.Netdevs),
		Link: Link{CurrentGTs: d.Link.CurrentGTs, CurrentWidth: d.Link.CurrentWidth, MaxGTs: d.Link.MaxGTs, MaxWidth: d.Link.MaxWidth},
	}
	if d.SubsystemKnown {
		out.SubsystemVendorID, out.SubsystemDeviceID = hex4(d.SubVendorID), hex4(d.SubDeviceID)
	}
	if d.Parent != nil {
		out.Parent = d.Parent.BDF()
	}
	if d.HostBridge != nil {
		out.HostBridge = d.HostBridge.Name
	}
	return out
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func pair(p topology.Pair) Pair {
	out := Pair{A: p.A.BDF(), B: p.B.BDF(), Kinds: []string{string(p.A.Kind), string(p.B.Kind)},
		SMI: string(p.SMI), NCCL: string(p.NCCL), Path: p.Path, BottleneckGbps: p.BottleneckGbps, LabelUncertain: p.LabelUncertain, Notes: p.Notes, Hops: []Hop{}}
	for _, h := range p.Hops {
		out.Hops = append(out.Hops, Hop{From: h.From, To: h.To, Kind: string(h.Kind),
			CurrentGTs: h.Link.CurrentGTs, CurrentWidth: h.Link.CurrentWidth, Gbps: h.Gbps})
	}
	return out
}

func plan(p advisor.Plan) *Plan {
	out := &Plan{Assignments: []Assignment{}, WorstGbps: p.WorstGbps, MeanGbps: p.MeanGbps, NCCLIBHCA: p.NCCLIBHCA, Ranks: []Rank{}}
	for _, a := range p.Assignments {
		out.Assignments = append(out.Assignments, Assignment{Accelerator: a.GPU.BDF(), NIC: a.NIC.BDF(), ExpectedGbps: a.ExpectedGbps,
			Shared: a.Shared, ShareGbps: a.ShareGbps, Known: a.Known})
	}
	for _, r := range p.Ranks {
		out.Ranks = append(out.Ranks, Rank{LocalRank: r.LocalRank, Env: r.Env(), Numactl: r.Numactl})
	}
	return out
}
