// Package advisor turns a topology graph into advice for GPUDirect RDMA: a
// throughput prediction for every accelerator–NIC pair in both directions
// (with NCCL's GPUDirect RDMA decision, ncclTopoCheckGdr, for a chosen NCCL
// version), findings with stable codes and concrete remedies, and a rail
// plan assigning accelerators to NICs. It does no I/O beyond reading a
// model override (LoadModel) and measurements for calibration.
//
// A pair's prediction, in Gb/s, with the numbers of Model (one link
// arithmetic, topology.DataGbps, everywhere):
//
//	link     = GT/s × lanes × encoding × MPS/(MPS + tlp_overhead_bytes); an idle
//	           accelerator's link (slow in speed only) at its max speed
//	path     = the lowest link from the accelerator to the NIC; with ACS redirect or IOMMU
//	           translation on a PIX/PXB path, also the links up to the root complex
//	x        = min(path, port rate)
//	PIX/PXB  : write = read = x
//	PHB/NODE : write = x × phb_factor_<cpu>; read = write × read_factor_<cpu, gpu> (a range where thin)
//	SYS      : as PHB, then both at most sys_p2p_gbps_<cpu> and NCCL's inter_socket_gbps_<cpu>
//	           × iommu_factor when the IOMMU translates
//	expected = min(write, read); efficiency = expected / the NIC on a healthy link
//	staged   = min(NIC, accelerator's and NIC's links to the CPU, inter-socket at SYS) × host_staged_factor
package advisor

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/gdtopo/gdtopo/topology"
)

// Severity of a finding.
type Severity string

// Severities, worst first.
const (
	Critical Severity = "critical"
	Warning  Severity = "warning"
	Info     Severity = "info"
)

var severityRank = map[Severity]int{Info: 1, Warning: 2, Critical: 3}

// AtLeast reports whether s is as bad as o or worse.
func (s Severity) AtLeast(o Severity) bool { return severityRank[s] >= severityRank[o] }

// ParseSeverity parses "critical", "warning" or "info", in any letter case.
func ParseSeverity(s string) (Severity, error) {
	v := Severity(strings.ToLower(strings.TrimSpace(s)))
	if severityRank[v] == 0 {
		return "", fmt.Errorf("invalid severity %q: want critical, warning or info", s)
	}
	return v, nil
}

// Finding is one problem on the machine.
type Finding struct {
	Code     string       `json:"code"` // a key of Codes
	Severity Severity     `json:"severity"`
	Devices  []string     `json:"devices"` // BDFs
	Message  string       `json:"message"`
	Remedy   []RemedyStep `json:"remedy"`
	Evidence string       `json:"evidence"` // the file (relative to the source root) or value it rests on
}

// RemedyKind says what a remedy step is.
type RemedyKind string

// Remedy step kinds.
const (
	RemedyCommand         RemedyKind = "command"          // a shell line, safe to paste
	RemedyKernelParameter RemedyKind = "kernel_parameter" // for the kernel command line
	RemedyBIOS            RemedyKind = "bios"             // a firmware setting
	RemedyManual          RemedyKind = "manual"           // something a person does (reseat the card)
)

// RemedyStep is one step of a remedy, with a comment saying why or when.
type RemedyStep struct {
	Kind    RemedyKind `json:"kind"`
	Text    string     `json:"text"`
	Comment string     `json:"comment"`
}

// Step is one line of the --explain arithmetic: Value is the running
// figure after the step.
type Step struct {
	What   string  `json:"what"`
	Value  float64 `json:"value"`
	Unit   string  `json:"unit"`
	Source string  `json:"source"`
}

// Prediction is the expected direct-RDMA throughput of one accelerator–NIC
// pair, per direction: "write" is the NIC writing GPU memory (the receive
// side), "read" the NIC reading it (the send side).
type Prediction struct {
	GPU, NIC          *topology.Device
	ExpectedGbps      float64 // the lower of ExpectedWriteGbps and ExpectedReadGbps (if NCCL does not use GDR: what forcing it would give)
	ExpectedWriteGbps float64 // NIC writes GPU memory, Gb/s: the low end where a range
	ExpectedReadGbps  float64 // NIC reads GPU memory, Gb/s: the low end where a range
	// ExpectedWriteMaxGbps and ExpectedReadMaxGbps are the high ends; equal
	// to the figures above where one measurement applies.
	ExpectedWriteMaxGbps, ExpectedReadMaxGbps float64
	PathGbps                                  float64 // the path's narrowest link as predicted (idle links at their max speed); 0 unknown
	// PathNote says why PathGbps is not the pair's own narrowest link:
	// "loaded" (an idle accelerator's link at its max speed), "over
	// NVLink-C2C", "via the root complex (why)"; "" where it is.
	PathNote   string
	NICGbps    float64 // the NIC on a healthy link: port rate capped by its own PCIe link at its max speed and width
	Efficiency float64 // ExpectedGbps / NICGbps, 0..1; 0 when NICGbps is unknown
	GDR        bool    // NCCL would use GPUDirect RDMA for this pair (receive side, ncclTopoCheckGdr read=0)
	GDRRead    bool    // and the send side reads GPU memory directly (read=1)
	GDRReason  string  // why not, or why reads are off, in words
	// GDRUnknown says what the source could not show that the verdict
	// rests on; empty when GDR and GDRRead are NCCL's answer for certain.
	GDRUnknown string
	// GDRUndecided says GDR itself (not only reads) rests on what the
	// source could not show: GDR is NCCL's answer only if those guesses hold.
	GDRUndecided bool
	// PXNVia is the NVLink peer GPU NCCL reaches the NIC through (PXN,
	// pxn.go), whose distance to the NIC decides GDR; nil without PXN.
	PXNVia *topology.Device
	// GDRSetBy says which NCCL variables of Options.Env decided the verdict
	// and how ("distance SYS ≤ GDR level SYS (NCCL_NET_GDR_LEVEL=SYS)");
	// nil where NCCL's defaults did.
	GDRSetBy []string
	// GDRMechanism is how the NIC maps GPU memory: "nvidia-peermem",
	// "dma-buf", or "" when the source cannot tell or nothing applies.
	GDRMechanism string
	// HostStagedGbps is the throughput when NCCL stages through host
	// memory: set when !GDR, or for the send side when !GDRRead; else 0.
	HostStagedGbps float64
	// stagedGbps is the host-staged figure also where GDR is on but the
	// verdict undecided: the planner ranks such a pair by its worse outcome.
	stagedGbps float64
	// nicLinkGbps and portGbps are what accelerators sharing the NIC
	// divide: its function's own PCIe link now and its card's port rate
	// (0 unknown).
	nicLinkGbps, portGbps float64
	// AtMost says the NIC's port rate is unknown: its own PCIe link was
	// taken as its limit, so every figure above is a ceiling, not an
	// estimate (a 200 Gb/s port on a Gen4 x16 link runs at most 200).
	AtMost    bool
	Uncertain []string // what the prediction assumed because data was unknown
	Explain   []Step
}

// Options for Analyze.
type Options struct {
	NCCLVersion string // "2.30.7", "2.27", "v2.19.3-1"; default DefaultNCCLVersion
	Model       *Model // default DefaultModel()
	// Env holds the NCCL variables the advisor follows (NCCLEnvKeys), as
	// the job would see them: the caller reads them (the environment,
	// --nccl-env); the advisor never does. Absent keys take NCCL's defaults
	// for the version.
	Env map[string]string
	// SkipExplain leaves every Prediction's Explain nil: its words are a
	// large part of what a prediction costs, and only an explanation shows
	// them.
	SkipExplain bool
	// EachStorage, when set, is given each accelerator-NVMe pair's
	// prediction, in Result.Storage's order, in place of keeping them
	// there: a large machine has tens of thousands, which a caller that
	// only counts them need not hold.
	EachStorage func(StoragePrediction)
}

// Result of Analyze.
type Result struct {
	NCCLVersion string // the version whose rules were applied
	Predictions []Prediction
	Findings    []Finding // worst first, then by code, then by devices
	Plan        Plan
	// SetAside lists the NICs left out of the compute rails (matrix,
	// plan, findings), each with its reason.
	SetAside []SetAsideNIC
	// Storage predicts each accelerator-NVMe pair for GPUDirect Storage.
	Storage []StoragePrediction
}

// DefaultNCCLVersion is the newest NCCL release whose src/graph rules
// gdtopo follows.
const DefaultNCCLVersion = "2.30.7"

// SupportedNCCLVersions lists the release series whose GPUDirect RDMA rules
// gdtopo knows (ncclTopoCheckGdr in src/graph/paths.cc, read at tags
// v2.12.12-1 … v2.30.7-1). Patch
// releases of a series are accepted; a newer series gets 2.30.7's rules.
func SupportedNCCLVersions() []string {
	out := make([]string, 0, 30-12+1)
	for minor := 12; minor < 30; minor++ {
		out = append(out, "2."+strconv.Itoa(minor))
	}
	return append(out, DefaultNCCLVersion)
}

// ncclVersion is a parsed major.minor.patch.
type ncclVersion struct{ major, minor, patch int }

// parseNCCLVersion accepts "2.30", "2.30.7", "v2.30.7-1".
func parseNCCLVersion(s string) (ncclVersion, error) {
	t := strings.TrimPrefix(strings.TrimSpace(s), "v")
	t, _, _ = strings.Cut(t, "-")
	parts := strings.Split(t, ".")
	var v ncclVersion
	nums := []*int{&v.major, &v.minor, &v.patch}
	if len(parts) < 2 || len(parts) > 3 {
		return v, fmt.Errorf("invalid NCCL version %q: want 2.MINOR or 2.MINOR.PATCH, e.g. %s", s, DefaultNCCLVersion)
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return v, fmt.Errorf("invalid NCCL version %q: want 2.MINOR or 2.MINOR.PATCH, e.g. %s", s, DefaultNCCLVersion)
		}
		*nums[i] = n
	}
	if v.major != 2 || v.minor < 12 {
		return v, fmt.Errorf("unsupported NCCL version %q: gdtopo knows the rules of 2.12 to %s", s, DefaultNCCLVersion)
	}
	return v, nil
}

func (v ncclVersion) String() string { return fmt.Sprintf("%d.%d.%d", v.major, v.minor, v.patch) }

// newer reports whether v is past the newest release whose rules are known.
func (v ncclVersion) newer() bool { return v.minor > 30 || (v.minor == 30 && v.patch > 7) }

// analysis carries one Analyze call.
type analysis struct {
	g        *topology.Graph
	m        *Model
	v        ncclVersion
	env      map[string]string // Options.Env
	explain  bool              // fill in Prediction.Explain
	pairs    []topology.Pair   // accelerator–NIC pairs
	preds    []Prediction
	findings []Finding
	anyRDMA  bool                            // a NIC has an RDMA device
	grace    bool                            // an NVIDIA Grace system (g.Grace, asked by every pair)
	vm       tri                             // inVM's answer once worked out
	iommu    map[*topology.Device]iommuState // translating's answers so far
	storage  []StoragePrediction             // accelerator–NVMe pairs (GPUDirect Storage)
	route    []linkRef                       // predict's scratch list of a pair's links, reused pair after pair
	// beyondLevel holds gdr's "distance > level" reason by distance: the
	// words differ only in the distance, and every pair asks.
	beyondLevel map[topology.Label]string
	pxn         map[pairKey]pxnRoute // pairs NCCL routes through an NVLink peer (pxnPeers)
	pxnMaybe    map[pairKey]pxnRoute // pairs it would, if NVLink the source cannot show joined them
	// eachStorage is Options.EachStorage; storageNear and storageKnown are
	// what findStorage needs of the pairs: the accelerators with a drive
	// under their switch, and those with a drive whose path is known.
	eachStorage               func(StoragePrediction)
	storageNear, storageKnown map[*topology.Device]bool
}

// Analyze predicts every accelerator–NIC pair of pairs (nil: g.Pairs()),
// gathers findings and plans rails. It fails only on a bad NCCL version.
func Analyze(g *topology.Graph, pairs []topology.Pair, opts Options) (*Result, error) {
	vs := opts.NCCLVersion
	if vs == "" {
		vs = DefaultNCCLVersion
	}
	v, err := parseNCCLVersion(vs)
	if err != nil {
		return nil, err
	}
	a := &analysis{g: g, m: opts.Model, v: v, env: opts.Env, explain: !opts.SkipExplain, iommu: map[*topology.Device]iommuState{},
		eachStorage: opts.EachStorage}
	for _, n := range g.OfKind(topology.KindNIC) {
		a.anyRDMA = a.anyRDMA || len(n.RDMA) > 0
	}
	a.grace = g.Grace()
	if a.m == nil {
		a.m = DefaultModel()
	}
	if pairs == nil {
		pairs = g.PairsWithoutHops() // nothing here reads a pair's hops
	}
	a.pairs = topology.PairsOf(pairs, topology.KindAccelerator, topology.KindNIC)
	a.preds = make([]Prediction, 0, len(a.pairs))
	a.pxn, a.pxnMaybe = a.pxnPeers()
	for _, p := range a.pairs {
		if p.SMI == topology.Unknown {
			continue // nothing to predict on a path the source cannot tell
		}
		a.preds = append(a.preds, a.predict(p))
	}
	a.applyPXN()
	plan := a.plan()
	a.predictStorage()
	a.find(plan)
	sort.SliceStable(a.findings, func(i, j int) bool {
		x, y := a.findings[i], a.findings[j]
		if x.Severity != y.Severity {
			return severityRank[x.Severity] > severityRank[y.Severity]
		}
		if x.Code != y.Code {
			return x.Code < y.Code
		}
		return strings.Join(x.Devices, ",") < strings.Join(y.Devices, ",")
	})
	_, aside := computeNICs(g)
	return &Result{NCCLVersion: v.String(), Predictions: a.preds, Findings: a.findings, Plan: plan,
		SetAside: aside, Storage: a.storage}, nil
}

// cpuClass is the CPU family that picks the model's root-complex factor
// and NCCL's inter-socket bandwidth (src/graph/topo.cc ncclTopoGetInterCpuBw:
// POWER, then ARM, then the x86 vendors).
type cpuClass struct {
	phb, inter *Param // inter is nil when NCCL's table has no entry
	name       string
}

// cpuKind classifies the machine's CPU.
func (a *analysis) cpuKind() cpuClass {
	s, m := a.g.System, a.m
	if a.grace { // Grace's root complex has a measurement of its own (model.go)
		return cpuClass{&m.PHBFactorGrace, &m.InterSocketARM, "NVIDIA Grace"}
	}
	switch s.CPUArch {
	case "ppc64":
		return cpuClass{&m.PHBFactorOther, &m.InterSocketPower, "POWER"}
	case "arm64":
		return cpuClass{&m.PHBFactorOther, &m.InterSocketARM, "Arm"}
	}
	switch s.CPUVendor {
	case "GenuineIntel":
		switch {
		case s.CPUFamily == 6 && s.CPUModelID >= 0xcf:
			return cpuClass{&m.PHBFactorIntel, &m.InterSocketERP, "Intel Emerald Rapids or newer"}
		case s.CPUFamily == 6 && s.CPUModelID >= 0x8f:
			return cpuClass{&m.PHBFactorIntel, &m.InterSocketSRP, "Intel Sapphire Rapids"}
		case s.CPUFamily == 6 && s.CPUModelID >= 0x55:
			return cpuClass{&m.PHBFactorIntel, &m.InterSocketSKL, "Intel Skylake-SP to Ice Lake-SP"}
		}
		return cpuClass{&m.PHBFactorIntel, &m.InterSocketBDW, "Intel Broadwell or older"}
	case "AuthenticAMD":
		return cpuClass{&m.PHBFactorAMD, &m.InterSocketAMD, "AMD"}
	case "CentaurHauls", "  Shanghai  ", "Shanghai":
		if s.CPUFamily == 7 && s.CPUModelID == 0x5b {
			return cpuClass{&m.PHBFactorOther, &m.InterSocketYongfeng, "Zhaoxin Yongfeng"}
		}
		return cpuClass{&m.PHBFactorOther, &m.InterSocketZhaoxin, "Zhaoxin"}
	}
	name := "unknown CPU"
	if s.CPUVendor != "" {
		name = "CPU " + s.CPUVendor
	}
	return cpuClass{&m.PHBFactorOther, nil, name}
}
