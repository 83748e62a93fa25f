package report

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/gdtopo/gdtopo/advisor"
	"github.com/gdtopo/gdtopo/internal/nccllog"
	"github.com/gdtopo/gdtopo/topology"
)

// Explanation is gdtopo explain's answer: what NCCL did, rank by rank, as
// its INFO log says, and each difference from what it could have done, with
// its cause and remedy; set against gdtopo's plan and GPUDirect RDMA
// verdicts when a source of the host's tree is given.
type Explanation struct {
	SchemaVersion int            `json:"schema_version"`
	Log           ExplainedLog   `json:"log"`
	Source        *Source        `json:"source"` // null without SOURCE
	Hosts         []LogHost      `json:"hosts"`
	Ranks         []LogRank      `json:"ranks"`
	Differences   []Difference   `json:"differences"` // worst first
	BusBW         *MeasuredBusBW `json:"busbw"`       // null when the log holds no nccl-tests table
	FailOn        string         `json:"fail_on"`
	// ExitStatus is 3 when a difference that costs bandwidth is at or
	// above FailOn, else 0.
	ExitStatus int `json:"exit_status"`
}

// ExplainedLog says what the log was.
type ExplainedLog struct {
	Name     string   `json:"name"`
	Library  string   `json:"library"` // NCCL or RCCL
	Versions []string `json:"versions"`
	Lines    int      `json:"lines"`
	LogLines int      `json:"log_lines"`
	Partial  string   `json:"partial"` // why the log is not whole; "" when nothing shows it
	Notes    []string `json:"notes"`
}

// LogHost is one host of the log.
type LogHost struct {
	Name        string            `json:"name"` // "" for lines without a host prefix
	Version     string            `json:"version"`
	Network     string            `json:"network"`      // "Using network ..."; "" not printed
	Plugin      string            `json:"plugin"`       // external net plugin loaded; "" none seen
	NICs        []string          `json:"nics"`         // NCCL's list: "mlx5_0:1/RoCE", "eth0"
	GDRDisabled []string          `json:"gdr_disabled"` // HCAs NCCL printed GDR disabled for, with its reason
	GDREnabled  []string          `json:"gdr_enabled"`
	Env         map[string]string `json:"env"` // NCCL_* settings NCCL printed
	// Planned is set when the source's plan was set against this host.
	Planned bool `json:"planned"`
}

// LogRank is one GPU of one process, as the log shows it.
type LogRank struct {
	Host       string    `json:"host"`
	PID        int       `json:"pid"`    // -1 when the lines carry no prefix
	Device     int       `json:"device"` // the CUDA device of the prefix; -1 unknown
	Ranks      []int     `json:"ranks"`
	LocalRank  int       `json:"local_rank"` // -1 unknown
	BusID      string    `json:"bus_id"`     // "" unknown
	NICs       []RankNIC `json:"nics"`
	GDR        string    `json:"gdr"` // yes, no, mixed, or "" without network channels
	Transports []string  `json:"transports"`
	// The source's side, when given and the GPU was found in it.
	GPU      string `json:"gpu"`       // the source's accelerator (alias), "" not matched
	GPUBy    string `json:"gpu_by"`    // bus_id or nvml_index
	PlanNIC  string `json:"plan_nic"`  // the rail plan's NIC for it (RDMA or network name)
	PlanPath string `json:"plan_path"` // nvidia-smi label of the GPU to the plan's NIC
	PlanGDR  string `json:"plan_gdr"`  // yes or no: gdtopo's verdict for that pair; "" unknown

	nvml int // NVML index from the log; -1 unknown
}

// RankNIC is a NIC a rank's network channels went through.
type RankNIC struct {
	Net         string `json:"net"`
	Index       int    `json:"index"`
	Name        string `json:"name"`       // "" when the log does not name it
	ProxyRank   int    `json:"proxy_rank"` // PXN: the rank whose NIC it is; -1 own
	Channels    int    `json:"channels"`
	GDRChannels int    `json:"gdr_channels"`
	Path        string `json:"path"` // the source's label of GPU to NIC; "" unknown
	// oneSocket is set where that SYS path joins NUMA nodes of one socket
	// (SNC, NPS): it does not cross the inter-socket link.
	oneSocket bool
}

// Difference is one way NCCL's run differs from what the host could do.
type Difference struct {
	Code           string `json:"code"`
	Severity       string `json:"severity"`
	Host           string `json:"host"`
	Ranks          []int  `json:"ranks"`
	Message        string `json:"message"`
	Cause          string `json:"cause"`
	Remedy         string `json:"remedy"`
	CostsBandwidth bool   `json:"costs_bandwidth"`
}

// MeasuredBusBW is nccl-tests' table, summed up.
type MeasuredBusBW struct {
	Rows        int     `json:"rows"`
	PeakGBps    float64 `json:"peak_gbps"`    // the highest out-of-place busbw, GB/s
	PeakBytes   int64   `json:"peak_bytes"`   // at that size
	AverageGBps float64 `json:"average_gbps"` // nccl-tests' "Avg bus bandwidth"; 0 absent
	PlanGbps    float64 `json:"plan_gbps"`    // the plan's worst per-accelerator figure, Gb/s; 0 without SOURCE
	Note        string  `json:"note"`
}

// DifferenceCodes describes every difference code explain gives.
var DifferenceCodes = map[string]string{
	"gdr-no-peermem":   "NCCL printed GPU Direct RDMA disabled for an HCA for want of a peer-memory module (nvidia-peermem): every transfer through it is staged in host memory.",
	"gdr-hca-disabled": "NCCL printed GPU Direct RDMA disabled for an HCA: it found neither a peer-memory module nor DMA-BUF support for it.",
	"no-gdrdma":        "A rank's network channels carry no /GDRDMA: NCCL staged its transfers in host memory.",
	"sockets":          "NCCL's network is sockets (NET/Socket), not RDMA.",
	"nics-bunched":     "Several ranks of a host put their network channels on one NIC while NCCL listed more.",
	"nic-excluded":     "The rail plan's NIC for a GPU is missing from NCCL's NIC list.",
	"cross-socket-nic": "A rank's channels used a NIC across the CPU sockets (SYS) from its GPU.",
	"nic-not-planned":  "A rank used another NIC than the rail plan gives its GPU.",
	"gdr-beyond-plan":  "NCCL used GPUDirect RDMA on a pair gdtopo says it would not.",
}

// ExplainInput is what Explain sets against each other.
type ExplainInput struct {
	Name   string
	Log    *nccllog.Log
	Report *Report // nil without SOURCE
	FailOn string  // critical, warning, info or never
}

// Explain builds the explanation of a log, against r when it is not nil.
func Explain(in ExplainInput) *Explanation {
	l := in.Log
	e := &Explanation{SchemaVersion: SchemaVersion, FailOn: in.FailOn,
		Log: ExplainedLog{Name: in.Name, Library: l.Library, Versions: nonNil(l.Versions), Lines: l.Lines,
			LogLines: l.LogLines, Partial: l.Partial, Notes: nonNil(l.Notes)},
		Hosts: []LogHost{}, Ranks: []LogRank{}, Differences: []Difference{}}
	if in.FailOn == "" {
		e.FailOn = string(advisor.Critical)
	}
	r := in.Report
	planned := map[string]bool{}
	if r != nil {
		src := r.Source
		e.Source = &src
		for _, h := range l.Hosts {
			if h.Name != "" && h.Name == r.System.Hostname {
				planned[h.Name] = true
			}
		}
		if len(planned) == 0 {
			for _, h := range l.Hosts {
				planned[h.Name] = true
			}
			if len(l.Hosts) > 1 || len(l.Hosts) == 1 && r.System.Hostname != "" {
				e.Log.Notes = append(e.Log.Notes, fmt.Sprintf("the source's host (%s) is not named in the log: its plan is set against every host of the log, as if they were the same hardware", orUnknown(r.System.Hostname)))
			}
		}
	}
	for _, h := range l.Hosts {
		e.Hosts = append(e.Hosts, logHost(h, planned[h.Name]))
	}
	matched := 0
	for _, rk := range l.Ranks {
		h := l.Host(rk.Host)
		lr := logRank(h, rk)
		if planned[rk.Host] {
			against(&lr, r)
			if lr.GPU != "" {
				matched++
			}
		}
		e.Ranks = append(e.Ranks, lr)
	}
	if r != nil && matched == 0 && len(l.Ranks) > 0 {
		e.Log.Notes = append(e.Log.Notes, "no GPU of the log is in the source (by bus address or NVML index): the source describes another machine, and no rank is set against its plan")
	}
	x := &explainer{e: e, log: l, r: r, planned: planned}
	for _, h := range l.Hosts {
		x.host(h)
	}
	sort.SliceStable(e.Differences, func(i, j int) bool {
		return severityRank(e.Differences[i].Severity) > severityRank(e.Differences[j].Severity)
	})
	if len(l.BusBW) > 0 {
		b := &MeasuredBusBW{Rows: len(l.BusBW), AverageGBps: l.AvgBusBW,
			Note: "nccl-tests' busbw is per rank; over NICs it is bounded by the NIC each rank's channels share, within a node by NVLink or PCIe: it is shown, not judged"}
		for _, row := range l.BusBW {
			if row.OutOfPlace > b.PeakGBps {
				b.PeakGBps, b.PeakBytes = row.OutOfPlace, row.Bytes
			}
		}
		if r != nil {
			b.PlanGbps = r.Plan.WorstGbps
		}
		e.BusBW = b
	}
	for _, d := range e.Differences {
		if d.CostsBandwidth && e.FailOn != FailOnNever && advisor.Severity(d.Severity).AtLeast(advisor.Severity(e.FailOn)) {
			e.ExitStatus = ExitFindings
		}
	}
	return e
}

func orUnknown(s string) string {
	if s == "" {
		return "unnamed"
	}
	return s
}

func severityRank(s string) int {
	switch advisor.Severity(s) {
	case advisor.Critical:
		return 3
	case advisor.Warning:
		return 2
	}
	return 1
}

func logHost(h *nccllog.Host, planned bool) LogHost {
	env := h.Env
	if env == nil {
		env = map[string]string{}
	}
	out := LogHost{Name: h.Name, Version: h.Version, Network: h.Network, Plugin: h.Plugin, Env: env,
		NICs: []string{}, GDRDisabled: []string{}, GDREnabled: []string{}, Planned: planned}
	for _, n := range h.IBNICs {
		out.NICs = append(out.NICs, fmt.Sprintf("%s:%d/%s", n.Name, n.Port, n.LinkLayer))
	}
	for _, n := range h.SocketNICs {
		out.NICs = append(out.NICs, n.Name)
	}
	for _, g := range h.GDR {
		if g.Enabled {
			out.GDREnabled = append(out.GDREnabled, g.Name)
		} else if g.Reason != "" {
			out.GDRDisabled = append(out.GDRDisabled, g.Name+" ("+g.Reason+")")
		} else {
			out.GDRDisabled = append(out.GDRDisabled, g.Name)
		}
	}
	return out
}

func logRank(h *nccllog.Host, rk *nccllog.Rank) LogRank {
	out := LogRank{Host: rk.Host, PID: rk.PID, Device: rk.Device, Ranks: nonNilInts(rk.Ranks), LocalRank: rk.LocalRank,
		BusID: rk.BusID, NICs: []RankNIC{}, GDR: rk.GDR(), Transports: nonNil(rk.Transports()), nvml: rk.NVMLDev}
	for _, u := range rk.NetUses() {
		name := ""
		if h != nil {
			name = h.NICName(u.Net, u.Dev)
		}
		out.NICs = append(out.NICs, RankNIC{Net: u.Net, Index: u.Dev, Name: name, ProxyRank: u.Proxy, Channels: u.Channels, GDRChannels: u.GDR})
	}
	if rk.BusID == "" && rk.NVMLDev >= 0 {
		out.GPUBy = "nvml_index"
	}
	return out
}

// against fills in the source's side of a rank: its GPU (by bus address,
// else by NVML index, which is the PCI order nvidia-smi numbers GPUs in),
// the plan's NIC for it and the label of each NIC it used.
func against(lr *LogRank, r *Report) {
	var acc *Accelerator
	if lr.BusID != "" {
		for i := range r.Accelerators {
			if strings.EqualFold(r.Accelerators[i].BDF, lr.BusID) {
				acc, lr.GPUBy = &r.Accelerators[i], "bus_id"
			}
		}
	}
	if acc == nil && lr.GPUBy == "nvml_index" {
		if i := nvmlIndex(lr); i >= 0 && i < len(r.Accelerators) {
			acc = &r.Accelerators[i]
		}
	}
	if acc == nil {
		lr.GPUBy = ""
		return
	}
	lr.GPU = acc.Alias
	if acc.BestNIC != "" {
		lr.PlanNIC = acc.BestNICName
		if lr.PlanNIC == "" {
			lr.PlanNIC = acc.BestNICAlias
		}
		lr.PlanPath = acc.BestPath
		if p := r.Pair(acc.BDF, acc.BestNIC); p != nil && p.Prediction != nil && p.Prediction.GDRUnknown == "" {
			lr.PlanGDR = yesNo(p.Prediction.GDR)
		}
	}
	for i := range lr.NICs {
		if d := deviceNamed(r, lr.NICs[i].Name); d != nil {
			if p := r.Pair(acc.BDF, d.BDF); p != nil {
				lr.NICs[i].Path, lr.NICs[i].oneSocket = p.SMI, p.Path == topology.PathNUMANodes
			}
		}
	}
}

// nvmlIndex is the rank's NVML index from the log; -1 unknown.
func nvmlIndex(lr *LogRank) int { return lr.nvml }

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// deviceNamed is the source's NIC of that RDMA or network name; nil none.
func deviceNamed(r *Report, name string) *Device {
	if name == "" {
		return nil
	}
	for i := range r.Devices {
		d := &r.Devices[i]
		if slices.Contains(d.RDMA, name) || slices.Contains(d.Netdev, name) {
			return d
		}
	}
	return nil
}

type explainer struct {
	e       *Explanation
	log     *nccllog.Log
	r       *Report
	planned map[string]bool
}

func (x *explainer) add(d Difference) {
	if d.Ranks == nil {
		d.Ranks = []int{}
	}
	x.e.Differences = append(x.e.Differences, d)
}

// ranksOf lists the explanation's ranks of host h.
func (x *explainer) ranksOf(h string) []*LogRank {
	var out []*LogRank
	for i := range x.e.Ranks {
		if x.e.Ranks[i].Host == h {
			out = append(out, &x.e.Ranks[i])
		}
	}
	return out
}

// host finds the differences of one host.
func (x *explainer) host(h *nccllog.Host) {
	ranks := x.ranksOf(h.Name)
	// HCAs NCCL printed GPUDirect RDMA disabled for (src/graph/topo.cc,
	// ncclTopoProcessNet; "(no module)" from net_ib's GetProperties before
	// NCCL 2.19).
	disabled := map[string]bool{}
	for _, g := range h.GDR {
		if g.Enabled || g.Net == "Socket" {
			continue
		}
		disabled[g.Name] = true
		d := Difference{Code: "gdr-hca-disabled", Severity: string(advisor.Critical), Host: h.Name, CostsBandwidth: true,
			Message: fmt.Sprintf("NCCL turned GPUDirect RDMA off for HCA %d '%s'", g.Index, g.Name),
			Cause:   "NCCL found no way to DMA to GPU memory through it: no peer-memory module (nvidia-peermem) and, from NCCL 2.13, no DMA-BUF support either (src/graph/topo.cc)",
			Remedy:  "modprobe nvidia-peermem (and load it at boot), or use DMA-BUF: the open GPU kernel module, Linux 5.12 or later, NCCL 2.13 or later"}
		if strings.Contains(g.Reason, "no module") {
			d.Code = "gdr-no-peermem"
			d.Cause = "no peer-memory module: NCCL looks for /sys/kernel/mm/memory_peers/nv_mem/version or /sys/module/nvidia_peermem/version, which nv_peer_mem or nvidia-peermem creates (net_ib's gdr support check)"
			d.Remedy = "modprobe nvidia-peermem (and load it at boot: /etc/modules-load.d)"
		}
		d.Ranks = ranksUsing(ranks, g.Name)
		x.add(d)
	}
	// Ranks whose network channels lack /GDRDMA.
	for _, lr := range ranks {
		if lr.GDR != "no" && lr.GDR != "mixed" {
			continue
		}
		var off []string
		covered := true
		for _, n := range lr.NICs {
			if n.GDRChannels < n.Channels {
				off = append(off, nicWord(n))
				if !disabled[n.Name] || n.Name == "" {
					covered = false
				}
			}
		}
		if n := lr.NICs; len(n) > 0 && (n[0].Net == "Socket" || strings.HasPrefix(n[0].Net, "Socket")) {
			continue // sockets carry no GPUDirect RDMA: the sockets difference says it
		}
		if covered && len(disabled) > 0 {
			continue // said for the HCA
		}
		d := Difference{Code: "no-gdrdma", Severity: string(advisor.Critical), Host: h.Name, Ranks: lr.Ranks, CostsBandwidth: true,
			Message: fmt.Sprintf("rank %s: network channels through %s without /GDRDMA (staged in host memory)", ints(lr.Ranks), strings.Join(off, ", "))}
		d.Cause, d.Remedy = x.noGDRCause(h, lr)
		x.add(d)
	}
	// Sockets instead of RDMA.
	socket := h.Network == "Socket"
	for _, lr := range ranks {
		for _, n := range lr.NICs {
			if n.Net == "Socket" {
				socket = true
			}
		}
	}
	if socket {
		x.sockets(h, ranks)
	}
	// Channels bunched on one NIC.
	if len(h.IBNICs) > 1 {
		used := map[int]bool{}
		var with []int
		for _, lr := range ranks {
			for _, n := range lr.NICs {
				if n.ProxyRank < 0 {
					used[n.Index] = true
				}
			}
			if len(lr.NICs) > 0 {
				with = append(with, lr.Ranks...)
			}
		}
		if len(with) > 1 && len(used) == 1 {
			var dev int
			for k := range used {
				dev = k
			}
			name := h.NICName("IB", dev)
			d := Difference{Code: "nics-bunched", Severity: string(advisor.Critical), Host: h.Name, Ranks: with, CostsBandwidth: true,
				Message: fmt.Sprintf("%d ranks put every network channel on NIC %d (%s) while NCCL listed %d NICs", len(with), dev, orUnknown(name), len(h.IBNICs)),
				Cause:   "NCCL saw every GPU equally near every NIC (a VM or container without the real PCIe tree, or a topology file that hides it), or NCCL_IB_HCA and NCCL_CROSS_NIC narrowed the choice",
				Remedy:  "give NCCL the host's real topology (NCCL_TOPO_FILE from gdtopo export -o nccl-xml SOURCE) and the plan's NCCL_IB_HCA"}
			if v, ok := h.Env["NCCL_IB_HCA"]; ok {
				d.Cause = "NCCL_IB_HCA=" + v + " was set; " + d.Cause
			}
			x.add(d)
		}
	}
	if x.r != nil && x.planned[h.Name] {
		x.againstPlan(h, ranks)
	}
}

// noGDRCause says why a rank's channels lack /GDRDMA, from the log where
// it says, else from the source's path, else that it is not known; and the
// remedy that follows.
func (x *explainer) noGDRCause(h *nccllog.Host, lr *LogRank) (string, string) {
	const farRemedy = "give each GPU a NIC within NCCL's GDR level (the rail plan: gdtopo check SOURCE), or, where the path allows peer-to-peer, raise NCCL_NET_GDR_LEVEL"
	const peermemRemedy = "modprobe nvidia-peermem (and load it at boot: /etc/modules-load.d)"
	for _, g := range h.GDRPath {
		if !g.Enabled && g.BusID != "" && g.BusID == lr.BusID {
			return fmt.Sprintf("the NIC is farther from the GPU than NCCL's GDR level: NCCL printed distance %d > %d (src/graph/paths.cc ncclTopoCheckGdr)", g.Distance, g.Level), farRemedy
		}
	}
	// The peer-memory check is one for the host (src/transport/net_ib/gdr.cc
	// reads /sys/kernel/mm/memory_peers/nv_mem/version or
	// /sys/module/nvidia_peermem/version): an HCA's "(no module)" holds for
	// all of them.
	for _, g := range h.GDR {
		if !g.Enabled && strings.Contains(g.Reason, "no module") {
			return fmt.Sprintf("no peer-memory module on this host: NCCL printed \"(no module)\" for HCA %d '%s', and the check holds for every HCA of the host", g.Index, g.Name), peermemRemedy
		}
	}
	var cause []string
	if v, ok := h.Env["NCCL_NET_GDR_LEVEL"]; ok {
		cause = append(cause, "NCCL_NET_GDR_LEVEL="+v+" was set")
	}
	for _, n := range lr.NICs {
		if n.Path != "" && n.GDRChannels < n.Channels {
			cause = append(cause, fmt.Sprintf("%s to %s is %s in the source, farther than NCCL's default GDR level (PXB) when it crosses a host bridge", orUnknown(lr.GPU), nicWord(n), n.Path))
		}
	}
	if v, ok := h.Env["NCCL_NET_GDR_READ"]; ok && v == "0" {
		cause = append(cause, "NCCL_NET_GDR_READ=0: sends are staged")
	}
	if len(cause) > 0 {
		return strings.Join(cause, "; "), farRemedy
	}
	unknown := "the log does not say: NCCL turns it off per path when the NIC is farther from the GPU than NCCL_NET_GDR_LEVEL (default PXB), or per HCA without peer memory or DMA-BUF"
	if lr.PlanGDR == "yes" {
		return unknown + "; the log does not name the NIC, and the source's nearest NIC to " + lr.GPU + " (" + lr.PlanNIC + ", " + lr.PlanPath + ") allows GPUDirect RDMA: the path alone does not explain it",
			"check peer memory on the host (lsmod | grep nvidia_peermem) and rerun with NCCL_DEBUG_SUBSYS=INIT,NET for NCCL's per-HCA verdict"
	}
	if x.r == nil {
		unknown += "; give SOURCE for the path"
	}
	return unknown, "rerun with NCCL_DEBUG_SUBSYS=INIT,NET for NCCL's per-HCA verdict; " + farRemedy
}

func (x *explainer) sockets(h *nccllog.Host, ranks []*LogRank) {
	var why []string
	if v := h.Env["NCCL_IB_DISABLE"]; v == "1" {
		why = append(why, "NCCL_IB_DISABLE=1 was set")
	}
	if v, ok := h.Env["NCCL_NET"]; ok {
		why = append(why, "NCCL_NET="+v+" was set")
	}
	if h.IBAbsent != "" {
		why = append(why, "NCCL's IB transport found nothing: \""+h.IBAbsent+"\"")
	}
	if h.NoPlugin && h.OFI == "" {
		why = append(why, "no external net plugin (libnccl-net.so) was found: on EFA or other plugin networks NCCL falls back to sockets")
	}
	rdmaInSource := x.r != nil && x.planned[h.Name] && x.r.Plan.NCCLIBHCA != ""
	sev, costs := advisor.Info, false
	if len(why) > 0 || rdmaInSource {
		sev, costs = advisor.Critical, true
	}
	if rdmaInSource {
		why = append(why, "the source has RDMA NICs NCCL could use ("+x.r.Plan.NCCLIBHCA+")")
	}
	cause := strings.Join(why, "; ")
	if cause == "" {
		cause = "the log does not say why; with no RDMA NIC on the host, sockets are all there is (give SOURCE to know)"
	}
	var fix []string
	if h.Env["NCCL_IB_DISABLE"] == "1" {
		fix = append(fix, "unset NCCL_IB_DISABLE")
	}
	if _, ok := h.Env["NCCL_NET"]; ok {
		fix = append(fix, "unset NCCL_NET")
	}
	if strings.Contains(h.IBAbsent, "libibverbs") {
		fix = append(fix, "install rdma-core (libibverbs) where the ranks run")
	}
	if strings.Contains(h.IBAbsent, "No device") {
		fix = append(fix, "check the RDMA devices with ibv_devinfo (driver loaded, port up)")
	}
	if h.NoPlugin && h.OFI == "" {
		fix = append(fix, "on EFA or another plugin network, put the plugin (aws-ofi-nccl's libnccl-net.so) on the library path or in NCCL_NET_PLUGIN")
	}
	if len(fix) == 0 {
		fix = append(fix, "none if the host has no RDMA NIC; else check ibv_devinfo and NCCL_IB_DISABLE")
	}
	var rs []int
	for _, lr := range ranks {
		rs = append(rs, lr.Ranks...)
	}
	x.add(Difference{Code: "sockets", Severity: string(sev), Host: h.Name, Ranks: rs, CostsBandwidth: costs,
		Message: "NCCL's network is sockets (NET/Socket): no RDMA, no GPUDirect RDMA",
		Cause:   cause,
		Remedy:  strings.Join(fix, "; ")})
}

// againstPlan sets each rank's NICs against the rail plan.
func (x *explainer) againstPlan(h *nccllog.Host, ranks []*LogRank) {
	listed := map[string]bool{}
	for _, n := range h.IBNICs {
		listed[n.Name] = true
	}
	excluded := map[string][]int{}
	for _, lr := range ranks {
		if lr.GPU == "" {
			continue
		}
		// A plan NIC the source gives no name (an alias such as NIC0: a
		// topology print whose NIC has no port line) cannot be looked up.
		if lr.PlanNIC != "" && len(h.IBNICs) > 0 && !listed[lr.PlanNIC] && deviceNamed(x.r, lr.PlanNIC) != nil {
			excluded[lr.PlanNIC] = append(excluded[lr.PlanNIC], lr.Ranks...)
		}
		for _, n := range lr.NICs {
			if n.ProxyRank >= 0 || n.Name == "" {
				continue
			}
			switch {
			case n.Path == string(topology.SYS) && !n.oneSocket:
				x.add(Difference{Code: "cross-socket-nic", Severity: string(advisor.Critical), Host: h.Name, Ranks: lr.Ranks, CostsBandwidth: true,
					Message: fmt.Sprintf("rank %s (%s) used %s, across the CPU sockets (SYS)", ints(lr.Ranks), lr.GPU, n.Name),
					Cause:   fmt.Sprintf("NCCL's NIC for this GPU is not the plan's %s (%s)", orUnknown(lr.PlanNIC), lr.PlanPath),
					Remedy:  "set the plan's NCCL_IB_HCA on every rank (gdtopo check -v SOURCE), and NCCL_TOPO_FILE where NCCL cannot see the PCIe tree"})
			case lr.PlanNIC != "" && n.Name != lr.PlanNIC && n.Path != "" && n.Path != lr.PlanPath:
				x.add(Difference{Code: "nic-not-planned", Severity: string(advisor.Warning), Host: h.Name, Ranks: lr.Ranks,
					Message: fmt.Sprintf("rank %s (%s) used %s (%s); the plan gives %s (%s)", ints(lr.Ranks), lr.GPU, n.Name, n.Path, lr.PlanNIC, lr.PlanPath),
					Cause:   "NCCL's channel search chose another NIC than the nearest",
					Remedy:  "set the plan's NCCL_IB_HCA on every rank (gdtopo check -v SOURCE)"})
			}
		}
		if lr.PlanGDR == "no" && lr.GDR == "yes" {
			x.add(Difference{Code: "gdr-beyond-plan", Severity: string(advisor.Info), Host: h.Name, Ranks: lr.Ranks,
				Message: fmt.Sprintf("rank %s (%s) used GPUDirect RDMA where gdtopo's verdict for %s is no", ints(lr.Ranks), lr.GPU, lr.PlanNIC),
				Cause:   "NCCL_NET_GDR_LEVEL or NCCL_TOPO_FILE widened what NCCL allows, or the source lacks what the host has",
				Remedy:  "none needed if the bandwidth is as expected; check the source is this host's"})
		}
	}
	for nic, rs := range excluded {
		d := Difference{Code: "nic-excluded", Severity: string(advisor.Critical), Host: h.Name, Ranks: rs, CostsBandwidth: true,
			Message: fmt.Sprintf("the plan's NIC %s is not in NCCL's NIC list", nic),
			Cause:   "NCCL did not list it: its port is down, it has no usable GID, or NCCL_IB_HCA leaves it out",
			Remedy:  "NCCL_IB_HCA=" + x.r.Plan.NCCLIBHCA + " on every rank (gdtopo check -v SOURCE); check the port with ibstat"}
		if v, ok := h.Env["NCCL_IB_HCA"]; ok {
			d.Cause = "NCCL_IB_HCA=" + v + " leaves it out"
		}
		x.add(d)
	}
}

// ranksUsing lists the ranks whose channels went through the NIC named.
func ranksUsing(ranks []*LogRank, name string) []int {
	var out []int
	for _, lr := range ranks {
		for _, n := range lr.NICs {
			if n.Name == name {
				out = append(out, lr.Ranks...)
				break
			}
		}
	}
	return out
}

func nicWord(n RankNIC) string {
	if n.Name != "" {
		return fmt.Sprintf("%s (NET/%s/%d)", n.Name, n.Net, n.Index)
	}
	return fmt.Sprintf("NET/%s/%d", n.Net, n.Index)
}

func ints(s []int) string {
	var out []string
	for _, v := range s {
		out = append(out, fmt.Sprint(v))
	}
	if len(out) == 0 {
		return "?"
	}
	return strings.Join(out, ",")
}
