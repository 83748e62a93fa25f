// Package report holds gdtopo's one analysis of a source: the value every
// output format prints. Findings are found in package advisor
// (advisor/findings.go); Build gathers them with everything else a format
// shows and decides the rest once: each accelerator's best NIC, the NICs the
// tables show, the exit status. The renderers in internal/render only print
// it; the views (Matrix, Tree, PathView, Comparison, Check, CheckView) are cut from it. The structs are gdtopo's own, with stable snake_case JSON
// fields that change only with SchemaVersion (schema/gdtopo.schema.json).
package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gdtopo/gdtopo/advisor"
	"github.com/gdtopo/gdtopo/topology"
)

// SchemaVersion is the version of the JSON contract (docs/json.md).
const SchemaVersion = 2

// Exit statuses, as the command line returns them.
const (
	ExitOK       = 0 // success
	ExitError    = 1 // the source could not be read
	ExitUsage    = 2 // the command line was wrong
	ExitFindings = 3 // findings at or above --fail-on
)

// Report is one source's analysis.
type Report struct {
	Source      Source       `json:"source"`
	System      System       `json:"system"`
	Summary     Summary      `json:"summary"`
	HostBridges []HostBridge `json:"host_bridges"`
	Devices     []Device     `json:"devices"`
	// Accelerators are the accelerators in address order, each with the
	// NIC the rail plan gives it: gdtopo's one answer to "its best NIC".
	Accelerators []Accelerator `json:"accelerators"`
	// NICs are the NICs the tables show: those with an RDMA device when
	// the source names any (GPUDirect RDMA needs one), else every NIC.
	NICs       []string  `json:"nics"`
	HiddenNICs []string  `json:"hidden_nics"` // NICs left out of the tables (no RDMA device)
	Pairs      []Pair    `json:"pairs"`
	Warnings   []Warning `json:"warnings"`
	Lacks      []string  `json:"lacks"`
	// The advisor's part.
	NCCLVersion string `json:"nccl_version"` // whose GPUDirect RDMA rules decided "gdr"
	// NCCLEnv are the NCCL variables the advice follows (the environment
	// gdtopo ran in, --nccl-env); empty where NCCL's defaults apply.
	NCCLEnv    []NCCLVar `json:"nccl_env,omitempty"`
	Findings   []Finding `json:"findings"` // worst first
	Counts     Counts    `json:"finding_counts"`
	Plan       Plan      `json:"plan"`
	FailOn     string    `json:"fail_on"`     // the --fail-on level: critical, warning, info or never
	ExitStatus int       `json:"exit_status"` // 0, or 3 with findings at or above FailOn or a difference worse than --reference
	// SetAsideNICs are the NICs the advisor left out of the compute rails
	// (and of NICs), each with its reason.
	SetAsideNICs []SetAsideNIC `json:"set_aside_nics"`
	// StoragePairs are the accelerator-NVMe pairs (GPUDirect Storage).
	StoragePairs []StoragePair `json:"storage_pairs"`
	// NVSMI is the host's own nvidia-smi topo -m set against the source's
	// tree; present only when the matrix was given (--nvsmi, or pasted with
	// a text dump).
	NVSMI *NVSMICheck `json:"nvidia_smi,omitempty"`
	// Reference is how the machine differs from a known-good one (check
	// --reference); nil without one.
	Reference *Reference `json:"reference,omitempty"`

	// Graph is what the report was built from, for the exports that write
	// the whole graph (NCCL XML, pictures); never serialised.
	Graph *topology.Graph `json:"-"`

	// deviceAt and pairAt index Devices and Pairs for Device and Pair,
	// which renderers call for every cell; Build fills them. A report
	// decoded from JSON has none, and lookups scan.
	deviceAt map[string]int
	pairAt   map[[2]string]int
	// endAt numbers the ends of Pairs when they are every pair of a list
	// of ends, in Graph.Pairs' order (i < j): the pair of ends i and j is
	// then found by arithmetic, and pairAt is not made.
	endAt map[string]int
	// storage are StoragePairs tallied by accelerator, without their
	// aliases, when Build left the pairs out (storageTallied).
	storage        []storageRow
	storageTallied bool
	// functions counts the source's PCI functions when Build kept only
	// the named devices (namedDevicesOnly).
	functions        int
	namedDevicesOnly bool
}

// functionCount is how many PCI functions the source holds.
func (r *Report) functionCount() int {
	if r.namedDevicesOnly {
		return r.functions
	}
	return len(r.Devices)
}

// SetAsideNIC is a NIC left out of the compute rails, and why.
type SetAsideNIC struct {
	NIC    string `json:"nic"`
	Reason string `json:"reason"`
}

// StoragePair is one accelerator-NVMe pair for GPUDirect Storage.
type StoragePair struct {
	Accelerator    string  `json:"accelerator"`
	NVMe           string  `json:"nvme"`
	SMI            string  `json:"smi"`
	Path           string  `json:"path"`
	Route          string  `json:"route"` // in the switch, through the root complex, across NUMA nodes of one socket, across sockets, across NUMA nodes, sockets unknown, unknown
	BottleneckGbps float64 `json:"bottleneck_gbps"`
	Note           string  `json:"note"`
	// LabelUncertain: SMI rests on a guess (a NUMA node), as Pair's.
	LabelUncertain bool `json:"label_uncertain"`
}

// Summary counts the devices by model: "8 x NVIDIA H100 SXM5 80GB", "none".
type Summary struct {
	Accelerators     string `json:"accelerators"`
	NICs             string `json:"nics"`
	PCIeSwitches     string `json:"pcie_switches"` // the top-level switches
	SwitchLevels     int    `json:"switch_levels"` // switches in all, when some sit below others; else 0
	Functions        int    `json:"pci_functions"`
	AcceleratorLinks string `json:"accelerator_links"` // accelerators by model and link
	RailNICLinks     string `json:"rail_nic_links"`    // the shown NICs by model and link
	// UnidentifiedFunctions counts the endpoints the source gives no IDs,
	// name or class for that would tell an accelerator from the rest
	// (topology.Device.Unidentified): accelerators may be among them.
	UnidentifiedFunctions int `json:"unidentified_functions"`
	// Partial is topology.Graph.Partial: why the source holds only part of
	// the machine, and what would hold it all; "" where it may hold all.
	Partial string `json:"partial"`
	// SkippedFunctions counts the functions the source names but does not
	// place (topology.Graph.Skipped), such as an lspci -tv fragment's lines
	// whose bus the input lacks; SkippedAccelerators and SkippedNICs are
	// those of them whose names tell an accelerator or a NIC. They are not
	// counted as devices, and no path to them is known.
	SkippedFunctions    int `json:"skipped_functions"`
	SkippedAccelerators int `json:"skipped_accelerators"`
	SkippedNICs         int `json:"skipped_nics"`
	// Platform names what of the newer platforms the machine shows (Grace,
	// NVLink-C2C, NIC switches, Data Direct, partitions, bonds, Socket
	// Direct); empty for other machines.
	Platform []string `json:"platform"`
}

// Counts are the findings by severity.
type Counts struct {
	Critical int `json:"critical"`
	Warning  int `json:"warning"`
	Info     int `json:"info"`
}

// String lists the severities found, worst first: "1 warning, 1 info";
// "" when there are none.
func (c Counts) String() string {
	var parts []string
	for _, s := range []struct {
		n    int
		name string
	}{{c.Critical, "critical"}, {c.Warning, "warning"}, {c.Info, "info"}} {
		if s.n > 1 && s.name == "warning" {
			parts = append(parts, fmt.Sprintf("%d warnings", s.n)) // "critical" and "info" take no plural
		} else if s.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", s.n, s.name))
		}
	}
	return strings.Join(parts, ", ")
}

// Accelerator is one accelerator and the NIC the rail plan gives it.
type Accelerator struct {
	BDF          string  `json:"bdf"`
	Alias        string  `json:"alias"`
	CPUAffinity  string  `json:"cpu_affinity"`  // local CPUs, "" unknown
	NUMAAffinity int     `json:"numa_affinity"` // -1 unknown
	NUMAFrom     string  `json:"numa_from"`     // numa_node, local_cpus, host_bridge or ""
	BestNIC      string  `json:"best_nic"`      // BDF; "" when there is no NIC
	BestNICAlias string  `json:"best_nic_alias"`
	BestNICName  string  `json:"best_nic_name"` // RDMA or network name, "" unknown
	BestPath     string  `json:"best_path"`     // nvidia-smi label of the pair, "?" suffixed when uncertain
	ExpectedGbps float64 `json:"expected_gbps"` // 0 unknown
	// ExpectedAtMost: expected_gbps is a ceiling, the NIC's port rate
	// unknown (Prediction.AtMost).
	ExpectedAtMost bool `json:"expected_at_most"`
	// ExpectedMode is how NCCL runs the planned pair (Assignment.Mode);
	// "" without a plan.
	ExpectedMode string `json:"expected_mode"`
	GDR          bool   `json:"gdr"`
	// GDRUndecided: gdr rests on what the source does not show (the
	// planned pair's gdr_unknown says what).
	GDRUndecided bool `json:"gdr_undecided"`
}

// Finding is one problem the advisor found, with its remedy as steps.
type Finding struct {
	Code     string       `json:"code"`
	Severity string       `json:"severity"` // critical, warning, info
	Devices  []string     `json:"devices"`
	Message  string       `json:"message"`
	Remedy   []RemedyStep `json:"remedy"`
	Evidence string       `json:"evidence"`
}

// RemedyStep is one step of a remedy. Kind is "command" (a shell line,
// safe to paste), "kernel_parameter" (for the kernel command line), "bios"
// (a firmware setting), "manual" (something a person does) or "comment".
type RemedyStep struct {
	Kind    string `json:"kind"`
	Text    string `json:"text"`
	Comment string `json:"comment"`
}

// Plan is the rail plan: a NIC for every accelerator.
type Plan struct {
	Assignments []Assignment `json:"assignments"`
	WorstGbps   float64      `json:"worst_gbps"` // per rank, after sharing a NIC; 0 unknown
	MeanGbps    float64      `json:"mean_gbps"`
	AtMost      bool         `json:"at_most"`       // mean_gbps is a ceiling: an assignment's NIC has no known port rate
	WorstAtMost bool         `json:"worst_at_most"` // worst_gbps is a ceiling: the worst assignment's NIC has no known port rate
	NCCLIBHCA   string       `json:"nccl_ib_hca"`   // the same on every rank (NVIDIA/nccl#1478); "" without RDMA NICs NCCL's IB transport drives
	Ranks       []Rank       `json:"ranks"`
	Notes       []string     `json:"notes,omitempty"` // why a rank lacks a variable; which plugin picks the NICs
}

// Assignment is one accelerator's NIC.
type Assignment struct {
	Accelerator  string  `json:"accelerator"`
	NIC          string  `json:"nic"`
	ExpectedGbps float64 `json:"expected_gbps"` // as NCCL would run the pair: mode says how
	// Mode is how NCCL runs the pair, what expected_gbps is the figure of:
	// "gdr" (GPUDirect RDMA both ways), "gdr_write" (receives direct, sends
	// staged), "host_staged".
	Mode string `json:"mode"`
	// Partitions is the ranks the accelerator runs as, one per compute
	// partition (AMD Instinct DPX, QPX, CPX), all through its one PCI
	// function: 1 unpartitioned, 0 unknown.
	Partitions int     `json:"partitions"`
	Shared     int     `json:"shared"`     // ranks on this NIC's card (each accelerator's partitions); 0 unknown
	ShareGbps  float64 `json:"share_gbps"` // what each of the accelerator's ranks gets when all on the NIC send at once; 0 unknown
	// LinkShared is the number of ranks on the functions of the NIC's card
	// (both ports of a dual-port card) whose one PCIe link bounds
	// share_gbps; absent where the link does not bind or no other function
	// of the card is planned.
	LinkShared int  `json:"link_shared,omitempty"`
	Known      bool `json:"known"`   // the figure rests on a known link and a decided GDR verdict
	AtMost     bool `json:"at_most"` // the figures are ceilings: the NIC's port rate is unknown
	// MoreNICs are the further NICs NCCL spreads the accelerator's channels
	// over, as near as NIC (AWS p5: four per GPU); expected_gbps is then
	// their sum, capped by the accelerator's own link. [] for one NIC.
	MoreNICs []string `json:"more_nics"`
}

// Rank is the environment of one local rank.
type Rank struct {
	LocalRank   int      `json:"local_rank"`  // -1 where the source does not tell which local rank drives the accelerator
	Accelerator string   `json:"accelerator"` // the accelerator the rank drives
	Env         []string `json:"env"`         // NAME=value settings
	Numactl     string   `json:"numactl"`     // "" when the NUMA node is unknown
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
	// IOMMUUnits counts /sys/class/iommu's entries; absent when the source
	// lacks the folder. With the command line and each device's IOMMU
	// type it is what fleet compares of the host's IOMMU.
	IOMMUUnits *int `json:"iommu_units,omitempty"`
}

// NUMANode is one NUMA node.
type NUMANode struct {
	ID        int    `json:"id"`
	CPUs      string `json:"cpus"`
	Distances []int  `json:"distances"`
	Socket    int    `json:"socket"`
	// MemoryOnly: memory and no CPUs (a Grace superchip's GPU memory).
	MemoryOnly bool `json:"memory_only"`
}

// HostBridge is one PCI root bus with its top-level functions.
type HostBridge struct {
	Name     string   `json:"name"`
	NUMANode int      `json:"numa_node"`
	Socket   int      `json:"socket"`
	Devices  []string `json:"devices"` // BDFs directly below it
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
	Children          []string `json:"children"`
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
	Bond              string   `json:"bond,omitempty"`                // bonding interface of its netdev (RoCE LAG)
	ComputePartition  string   `json:"compute_partition,omitempty"`   // AMD Instinct: SPX, DPX, QPX, CPX
	MemoryPartition   string   `json:"memory_partition,omitempty"`    // AMD Instinct: NPS1, NPS4
	SocketDirectPeers []string `json:"socket_direct_peers,omitempty"` // the other halves of its Socket Direct card
	Ports             []Port   `json:"ports,omitempty"`               // its RDMA ports, where the source shows them
	AER               *AER     `json:"aer,omitempty"`                 // its AER counters, where read
	// Positional is set when the source showed the function without an
	// address: BDF is then a stand-in ("bridge@line31") and this says
	// where it was seen.
	Positional string `json:"positional,omitempty"`
	// PlaceUnknown is set when the source does not say where the function
	// hangs (plain lspci): Parent and HostBridge are then "" and every path
	// to it is "?".
	PlaceUnknown bool `json:"place_unknown,omitempty"`
	// ACS is a bridge's ACS Request/Completion Redirect: redirect, off, or
	// unknown where the source lacks its capability; "" for other kinds.
	ACS string `json:"acs,omitempty"`
	// IOMMUType is the domain type of the function's IOMMU group (identity,
	// DMA, DMA-FQ); "" without a group or where the source lacks it.
	IOMMUType string `json:"iommu_type,omitempty"`
	// Unidentified is set on a function the source gives no IDs, name or
	// class for that would tell an accelerator from the rest
	// (topology.Device.Unidentified).
	Unidentified bool `json:"unidentified,omitempty"`
}

// Hop is one step of a pair's path.
type Hop struct {
	From         string  `json:"from"`
	To           string  `json:"to"`
	Kind         string  `json:"kind"`
	CurrentGTs   float64 `json:"current_gts,omitempty"`
	CurrentWidth int     `json:"current_width,omitempty"`
	Gbps         float64 `json:"gbps,omitempty"`
	OffPath      bool    `json:"off_path,omitempty"` // a link the pair's data does not cross (an NVLink-C2C accelerator's own)
	// AtMax: the link's state now is unknown (a VF's, below a virtual
	// machine's emulated port): current_gts, current_width and gbps are its max.
	AtMax bool `json:"at_max,omitempty"`
}

// BottleneckAtMax reports whether the narrowest link the pair's data
// crosses is known by its maximum alone (Hop.AtMax).
func (p *Pair) BottleneckAtMax() bool {
	for _, h := range p.Hops {
		if h.AtMax && !h.OffPath && h.Gbps == p.BottleneckGbps {
			return true
		}
	}
	return false
}

// Pair is the classification of two devices, accelerator first where one
// is an accelerator.
type Pair struct {
	A              string   `json:"a"`
	B              string   `json:"b"`
	Kinds          []string `json:"kinds"`
	SMI            string   `json:"smi"`
	PCIeSMI        string   `json:"pcie_smi,omitempty"` // an NVLink pair's PCIe label
	NCCL           string   `json:"nccl"`
	Path           string   `json:"path"`
	Hops           []Hop    `json:"hops"` // empty when the pair's hops were not given (-o jsonl)
	BottleneckGbps float64  `json:"bottleneck_gbps"`
	// Each label's flag is set exactly where the tables print it with "?"
	// (or as "?"): a script reading JSON sees the doubt a reader sees.
	// LabelUncertain: SMI rests on a guess (a NUMA node, NVLink, the path).
	LabelUncertain bool `json:"label_uncertain"`
	// PCIeSMIUncertain: PCIeSMI rests on a guess.
	PCIeSMIUncertain bool `json:"pcie_smi_uncertain,omitempty"`
	// NCCLUncertain: NCCL's label rests on a guess: of the path (as SMI's),
	// or of what NCCL makes of it (switch IDs, Data Direct, NVLink-C2C).
	NCCLUncertain bool     `json:"nccl_uncertain"`
	Notes         []string `json:"notes"`
	C2C           bool     `json:"c2c"`                   // the accelerator reaches its CPU over NVLink-C2C
	DataDirect    string   `json:"data_direct,omitempty"` // BDF of the ConnectX-8 Data Direct DMA function on the data path
	// Prediction is the advisor's, for accelerator-NIC pairs it planned with.
	Prediction *Prediction `json:"prediction,omitempty"`
}

// Prediction is a pair's expected direct-RDMA throughput.
type Prediction struct {
	ExpectedGbps float64 `json:"expected_gbps"` // the lower direction
	// Per direction: write is the NIC writing GPU memory (receive side),
	// read the NIC reading it (send side); *_max_gbps the high end of a
	// range, equal to the low end where one measurement applies.
	ExpectedWriteGbps    float64 `json:"expected_write_gbps"`
	ExpectedReadGbps     float64 `json:"expected_read_gbps"`
	ExpectedWriteMaxGbps float64 `json:"expected_write_max_gbps"`
	ExpectedReadMaxGbps  float64 `json:"expected_read_max_gbps"`
	PathGbps             float64 `json:"path_gbps"` // the path's narrowest link as predicted (idle accelerators at max speed); 0 unknown
	// PathNote says why path_gbps differs from the pair's bottleneck_gbps:
	// "loaded", "over NVLink-C2C", "via the root complex (why)"; "" where not.
	PathNote   string  `json:"path_note"`
	NICGbps    float64 `json:"nic_gbps"`
	Efficiency float64 `json:"efficiency"` // 0..1; 0 when the NIC's rate is unknown
	GDR        bool    `json:"gdr"`
	GDRRead    bool    `json:"gdr_read"`
	GDRReason  string  `json:"gdr_reason"`
	GDRUnknown string  `json:"gdr_unknown"` // what the verdict rests on that the source could not show; "" when certain
	// GDRUndecided: gdr itself, not only gdr_read, rests on what
	// gdr_unknown names.
	GDRUndecided bool `json:"gdr_undecided"`
	// GDRSetBy says how NCCL variables (nccl_env) decided the verdict;
	// empty where NCCL's defaults did.
	GDRSetBy []string `json:"gdr_set_by,omitempty"`
	// PXNVia is the NVLink peer accelerator NCCL reaches the NIC through
	// (PXN): its distance decides "gdr" and its figures are the pair's.
	PXNVia         string  `json:"pxn_via,omitempty"`
	GDRMechanism   string  `json:"gdr_mechanism"` // nvidia-peermem, dma-buf, or "" when unknown
	HostStagedGbps float64 `json:"host_staged_gbps"`
	// AtMost: the NIC's port rate is unknown and its own PCIe link was
	// taken as its limit, so the figures are ceilings, not estimates.
	AtMost  bool     `json:"at_most"`
	Assumed []string `json:"assumed"` // what the prediction took for granted
	Steps   []Step   `json:"steps"`   // the arithmetic; path --explain only
}

// NCCLVar is an NCCL variable the advice follows.
type NCCLVar struct {
	Name  string `json:"name"`
	Value string `json:"value"`
	From  string `json:"from"` // "environment" or "--nccl-env"
}

// String is "NAME=value (from)".
func (v NCCLVar) String() string { return v.Name + "=" + v.Value + " (" + v.From + ")" }

// Step is one line of a prediction's arithmetic: Value is the running
// figure after it.
type Step struct {
	What   string  `json:"what"`
	Value  float64 `json:"value"`
	Unit   string  `json:"unit"`
	Source string  `json:"source"`
}

// Warning is a problem that did not stop the read.
type Warning struct {
	Subject string `json:"subject"`
	Message string `json:"message"`
}

// Device looks a device up by BDF; nil when absent.
func (r *Report) Device(bdf string) *Device {
	if i, ok := r.deviceAt[bdf]; ok && i < len(r.Devices) && r.Devices[i].BDF == bdf {
		return &r.Devices[i]
	}
	for i := range r.Devices {
		if r.Devices[i].BDF == bdf {
			return &r.Devices[i]
		}
	}
	return nil
}

// Pair looks up the pair of two devices, either order; nil when absent.
func (r *Report) Pair(a, b string) *Pair {
	if i, j, ok := r.endIndex(a, b); ok {
		if i > j {
			i, j, a, b = j, i, b, a
		}
		n := len(r.endAt)
		if k := i*n - i*(i+1)/2 + j - i - 1; i < j && k < len(r.Pairs) && r.Pairs[k].A == a && r.Pairs[k].B == b {
			return &r.Pairs[k]
		}
	}
	for _, k := range [2][2]string{{a, b}, {b, a}} {
		if i, ok := r.pairAt[k]; ok && i < len(r.Pairs) && r.Pairs[i].A == k[0] && r.Pairs[i].B == k[1] {
			return &r.Pairs[i]
		}
	}
	for i := range r.Pairs {
		p := &r.Pairs[i]
		if p.A == a && p.B == b || p.A == b && p.B == a {
			return p
		}
	}
	return nil
}

// index fills the lookups Device and Pair use. Each entry is checked on
// use, so a report changed after index still answers right, by scanning.
func (r *Report) index() {
	r.deviceAt = make(map[string]int, len(r.Devices))
	for i := range r.Devices {
		if _, dup := r.deviceAt[r.Devices[i].BDF]; !dup {
			r.deviceAt[r.Devices[i].BDF] = i
		}
	}
	if r.indexEnds() {
		return
	}
	r.pairAt = make(map[[2]string]int, len(r.Pairs))
	for i := range r.Pairs {
		k := [2]string{r.Pairs[i].A, r.Pairs[i].B}
		if _, dup := r.pairAt[k]; !dup {
			r.pairAt[k] = i
		}
	}
}

// endIndex returns the numbers endAt gives a and b.
func (r *Report) endIndex(a, b string) (i, j int, ok bool) {
	if r.endAt == nil {
		return 0, 0, false
	}
	i, okA := r.endAt[a]
	j, okB := r.endAt[b]
	return i, j, okA && okB
}

// indexEnds fills endAt when Pairs are every pair of distinct ends in
// Graph.Pairs' order: the first end's pairs first, the second's next, and
// so on. It reports whether they are.
func (r *Report) indexEnds() bool {
	if len(r.Pairs) == 0 {
		return false
	}
	first := r.Pairs[0].A
	n := 1
	for n-1 < len(r.Pairs) && r.Pairs[n-1].A == first {
		n++
	}
	if len(r.Pairs) != n*(n-1)/2 {
		return false
	}
	ends := make(map[string]int, n)
	ends[first] = 0
	for i, p := range r.Pairs[:n-1] {
		if _, dup := ends[p.B]; dup {
			return false
		}
		ends[p.B] = i + 1
	}
	k := 0
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			a, okA := ends[r.Pairs[k].A]
			b, okB := ends[r.Pairs[k].B]
			if !okA || !okB || a != i || b != j {
				return false
			}
			k++
		}
	}
	r.endAt = ends
	return true
}

// FailOnNever is the --fail-on level no finding reaches.
const FailOnNever = "never"

// NoRDMANIC reports whether none of the rail NICs can do RDMA (the
// analysis found no-rdma-nic): the plan's NICs then carry no GPUDirect
// RDMA.
func (r *Report) NoRDMANIC() bool {
	return slices.ContainsFunc(r.Findings, func(f Finding) bool { return f.Code == "no-rdma-nic" })
}

// Failing counts the findings at or above the report's --fail-on level
// (none at "never"): the exit status is 3 when there is one.
func (r *Report) Failing() int {
	n := 0
	for _, f := range r.Findings {
		if r.FailOn != FailOnNever && advisor.Severity(f.Severity).AtLeast(advisor.Severity(r.FailOn)) {
			n++
		}
	}
	return n
}
