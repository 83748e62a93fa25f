package topology

import (
	"fmt"
	"slices"
	"strings"
)

// Label is a path type in nvidia-smi's vocabulary (the legend of
// `nvidia-smi topo -m`; NVML's nvmlGpuTopologyLevel_t). NCCL uses the same
// words for the PCIe part of its own scale (PATH_PIX … PATH_SYS in
// src/graph/topo.h), with no NODE.
type Label string

// Path labels, best first.
const (
	PIX  Label = "PIX"  // at most one PCIe switch
	PXB  Label = "PXB"  // several switches, no host bridge
	PHB  Label = "PHB"  // through a PCIe host bridge (the CPU's root complex)
	NODE Label = "NODE" // across host bridges within one NUMA node
	SYS  Label = "SYS"  // across NUMA nodes (sockets, or sub-NUMA domains)
	NVL  Label = "NVL"  // NCCL: over NVLink (nvidia-smi prints NV# with the link count)
	// Unknown is the label of a path the source cannot tell (it shows no
	// PCI hierarchy); it ranks after SYS and no finding rests on it.
	Unknown Label = "?"
	// P2C is NCCL's GPU-NIC path through NVLink-C2C to the GPU's Grace CPU
	// and PCIe from there to the NIC (paths.cc mergePathType: C2C + PHB).
	P2C Label = "P2C"
)

// labelRank orders labels as NCCL's path types do (topo.h: PIX < PXB < P2C
// < PXN < PHB < SYS); NODE is nvidia-smi's, between PHB and SYS.
var labelRank = map[Label]int{NVL: -1, PIX: 0, PXB: 1, P2C: 2, PHB: 3, NODE: 4, SYS: 5}

// Rank orders labels best first: NVLink (NVL, NV#) and xGMI before PIX, PXB, PHB,
// NODE and SYS; an unknown label ranks last.
func (l Label) Rank() int {
	if r, ok := labelRank[l]; ok {
		return r
	}
	if strings.HasPrefix(string(l), "NV") || l == XGMI {
		return labelRank[NVL]
	}
	return labelRank[SYS] + 1
}

// Worse reports whether l is a worse path than o.
func (l Label) Worse(o Label) bool { return l.Rank() > o.Rank() }

// Path words for the plain-language label.
const (
	PathSameDevice     = "same device"
	PathSameSwitch     = "same switch"
	PathAcrossSwitches = "across switches"
	PathRootComplex    = "through the root complex"
	PathHostBridges    = "across host bridges"
	PathNUMANodes      = "across NUMA nodes of one socket"
	PathSockets        = "across sockets"
	// PathNodesSocketUnknown: across NUMA nodes whose sockets the source
	// does not give (an NCCL topology's CPU nodes); taken as PathSockets
	// where a figure must be chosen.
	PathNodesSocketUnknown = "across NUMA nodes, sockets unknown"
	PathUnknown            = "unknown"
)

// HopKind says what a hop crosses.
type HopKind string

// Hop kinds.
const (
	HopPCIe        HopKind = "pcie"              // a physical PCIe link
	HopSwitch      HopKind = "switch_internal"   // downstream port to upstream port inside one switch
	HopRootComplex HopKind = "root_complex"      // root port or root-bus device to its host bridge
	HopHostBridges HopKind = "host_bridges"      // between host bridges of one NUMA node
	HopNUMA        HopKind = "numa_interconnect" // between NUMA nodes (UPI, xGMI/Infinity Fabric)
)

// Hop is one step of a path. From and To are BDFs or host bridge names.
type Hop struct {
	From, To string
	Kind     HopKind
	Link     Link    // for PCIe hops
	Gbps     float64 // current data rate (DataGbps at the path's smallest Max_Payload_Size); 0 unknown or not a PCIe link
	// OffPath marks a link the pair's data does not cross: an NVLink-C2C
	// accelerator's own PCIe links, for a NIC outside its switch (its
	// Gbps is then at its own side's Max_Payload_Size).
	OffPath bool
}

// Pair is the classification of one unordered pair of devices.
type Pair struct {
	A, B           *Device
	SMI            Label // what nvidia-smi topo -m prints
	NCCL           Label // NCCL's own path type (PCIe topology only, before GDR and PXN rules)
	Path           string
	Hops           []Hop
	BottleneckGbps float64 // lowest current PCIe link bandwidth on the path; 0 unknown
	// PCIeSMI is the PCIe path's nvidia-smi label of an accelerator pair
	// whose SMI is NVLink (NV#, or NVLinkUnknown); "" otherwise.
	PCIeSMI Label
	// PCIeSMIUncertain is set when PCIeSMI rests on a guess: the PCIe
	// path's doubt, kept apart from the NVLink label's.
	PCIeSMIUncertain bool
	// LabelUncertain is set when the labels rest on a guess, such as an
	// unknown NUMA node or NVLink the source cannot show; Notes say which.
	LabelUncertain bool
	// DataDirect is the ConnectX-8 Data Direct DMA function that carries
	// the NIC's DMA to this accelerator; NCCL's label, the hops and the
	// bottleneck are those of the path to it. nil when the NIC has none.
	DataDirect *Device
	// C2C is set when the accelerator reaches its CPU over NVLink-C2C.
	C2C bool
	// NCCLUncertain is set when NCCL's label rests on what the source
	// lacks: a switch whose vendor, or Broadcom subsystem IDs, decide
	// whether NCCL flattens it (src/graph/topo.cc, ncclTopoFlattenBcmSwitches).
	NCCLUncertain bool
	Notes         []string
}

// CrossSocket reports a pair whose path crosses the inter-socket link: SYS
// but not between NUMA nodes of one socket (Intel SNC, AMD NPS), whose
// traffic stays on the socket's own fabric though nvidia-smi and NCCL
// label it SYS too. A SYS pair whose sockets are unknown counts as crossing.
func (p Pair) CrossSocket() bool { return p.SMI == SYS && p.Path != PathNUMANodes }

// MaxPairEnds bounds the accelerators and NICs (virtual functions left out)
// whose pairs gdtopo labels: MaxPairEnds*(MaxPairEnds-1)/2 = 8128 pairs at
// most, a few KiB each. The largest servers have a few dozen; an input
// claiming more is refused (CheckPairEnds) rather than labelled in memory
// and time that grow with the square of its size.
const MaxPairEnds = 128

// MaxFunctions bounds the PCI functions of one source. Each costs a few
// KiB through the report (about 5 KiB in -o json); the largest servers
// have a few hundred, a few thousand with every SR-IOV virtual function
// enabled. A source claiming more is refused before its report is built.
const MaxFunctions = 16384

// ErrTooManyFunctions: a source holds more than MaxFunctions PCI functions.
var ErrTooManyFunctions = fmt.Errorf("more than %d PCI functions (no server has that many; is this one machine?)", MaxFunctions)

// CheckFunctions reports ErrTooManyFunctions when g holds more than
// MaxFunctions PCI functions.
func (g *Graph) CheckFunctions() error {
	if len(g.Devices) > MaxFunctions {
		return fmt.Errorf("%d PCI functions: %w", len(g.Devices), ErrTooManyFunctions)
	}
	return nil
}

// CheckPairEnds reports an error when g has more accelerators and NICs than
// MaxPairEnds, before Pairs would label them.
func (g *Graph) CheckPairEnds() error {
	acc, nic := len(g.OfKind(KindAccelerator)), len(g.OfKind(KindNIC))
	if acc+nic > MaxPairEnds {
		return fmt.Errorf("%d accelerators and %d NICs: more than the %d that gdtopo labels the pairs of (no server has that many; is this one machine?)", acc, nic, MaxPairEnds)
	}
	return nil
}

// Pairs classifies every unordered pair among accelerators and NICs (virtual
// functions left out): accelerator pairs, then accelerator-NIC pairs with
// the accelerator as A, then NIC pairs, each in address order.
func (g *Graph) Pairs() []Pair { return g.pairs(true) }

// PairsWithoutHops is Pairs with every pair's Hops left nil, for a caller
// that takes them one pair at a time (AppendHops) rather than holding all
// of them: they are most of the bytes Pairs allocates. Every label, note
// and BottleneckGbps is the same.
func (g *Graph) PairsWithoutHops() []Pair { return g.pairs(false) }

func (g *Graph) pairs(withHops bool) []Pair {
	ends := append(g.OfKind(KindAccelerator), g.OfKind(KindNIC)...)
	n := len(ends)
	out := make([]Pair, 0, n*(n-1)/2)
	hint := g.NVLinkHint()
	for i := range ends {
		for j := i + 1; j < n; j++ {
			out = append(out, g.classify(ends[i], ends[j], hint, withHops))
		}
	}
	g.applyC2C(out)
	return out
}

// AppendHops appends the hops of p's path to dst and returns the result:
// p.Hops when it holds them, else the hops Classify would give the pair
// (through its Data Direct function when it has one; none when the source
// does not say where an end hangs).
func (g *Graph) AppendHops(dst []Hop, p Pair) []Hop {
	if p.Hops != nil {
		return append(dst, p.Hops...)
	}
	if placeUnknown(p.A, p.B) {
		return dst
	}
	return g.appendHops(dst, p)
}

// c2cPair reports whether p is an NVLink-C2C accelerator and a NIC outside
// its switch: the accelerator sends what leaves its PCIe tree over C2C to
// its Grace (NCCL P2C, paths.cc), so its own PCIe link is off the path.
func (g *Graph) c2cPair(p Pair) bool {
	gpu, nic := p.A, p.B
	if gpu.Kind == KindNIC {
		gpu, nic = nic, gpu
	}
	if gpu.Kind != KindAccelerator || nic.Kind != KindNIC || !g.C2C(gpu) {
		return false
	}
	local := p.SMI == PIX || p.SMI == PXB
	if p.DataDirect != nil {
		local = p.NCCL == PIX || p.NCCL == PXB
	}
	return !local
}

// offPathEnd is the end of p whose own PCIe links carry none of its data
// (c2cPair's accelerator), nil when the whole path does.
func (g *Graph) offPathEnd(p Pair) *Device {
	switch {
	case !g.c2cPair(p):
		return nil
	case p.A.Kind == KindAccelerator:
		return p.A
	}
	return p.B
}

// placeUnknown reports whether the source does not say where the path
// between a and b runs: an end hangs nowhere known (Device.PlaceUnknown),
// or they meet only above a host bridge that stands for an unknown part of
// the tree (HostBridge.PlaceUnknown).
func placeUnknown(a, b *Device) bool {
	if a.Addr.SameDevice(b.Addr) {
		return false
	}
	if a.PlaceUnknown || b.PlaceUnknown {
		return true
	}
	ha, hb := a.HostBridge, b.HostBridge
	if (ha == nil || !ha.PlaceUnknown) && (hb == nil || !hb.PlaceUnknown) {
		return false
	}
	if ha != hb {
		return true
	}
	lca, _, _ := commonAncestor(a, b)
	return lca == nil
}

// pathEnd is the device p's data path ends at: its Data Direct function
// when it has one, else B.
func pathEnd(p Pair) *Device {
	if p.DataDirect != nil {
		return p.DataDirect
	}
	return p.B
}

// Classify labels the path between a and b.
func (g *Graph) Classify(a, b *Device) Pair { return g.classify(a, b, g.NVLinkHint(), true) }

// ClassifyWithoutHops is Classify without the hops, for callers that read
// only the labels or the bottleneck: it allocates no path.
func (g *Graph) ClassifyWithoutHops(a, b *Device) Pair {
	return g.classify(a, b, g.NVLinkHint(), false)
}

// classify is Classify with the graph's NVLinkHint worked out once; without
// withHops it leaves Hops nil and takes BottleneckGbps from a walk of the
// same path that allocates nothing.
func (g *Graph) classify(a, b *Device, hint string, withHops bool) Pair {
	p := Pair{A: a, B: b}
	if placeUnknown(a, b) {
		// The graph's Lacks says why, once; no note per pair. Known, different
		// NUMA nodes still decide SYS whatever the tree (nvidia-smi's SYS
		// crosses NUMA nodes; NCCL's CPU nodes differ).
		p.SMI, p.NCCL, p.Path, p.LabelUncertain = Unknown, Unknown, PathUnknown, true
		if na, nb := numaOf(a), numaOf(b); na >= 0 && nb >= 0 && na != nb {
			p.SMI, p.NCCL, p.Path, p.LabelUncertain = SYS, SYS, g.nodesPath(na, nb), false
		}
		g.nvlinkPair(&p, hint) // NVLink, known or possible, is not the PCIe path's
		return p
	}
	p.SMI, p.Path, p.Notes = g.smiLabel(a, b)
	p.LabelUncertain = len(p.Notes) > 0
	p.NCCL = g.ncclLabel(a, b)
	// Flattening only drops PCI nodes from the chains, so it can turn PXB
	// into PIX but never changes a path that meets at a CPU (PHB, SYS).
	if p.NCCL == PXB && !g.NCCLView && (flatteningUnknown(a) || flatteningUnknown(b)) {
		p.NCCLUncertain = true // the graph's Lacks says why, once
	}
	g.nvlinkPair(&p, hint)
	g.applyDataDirect(&p)
	if withHops {
		p.Hops = g.appendHops(nil, p)
		for _, h := range p.Hops {
			if h.Kind == HopPCIe && !h.OffPath && h.Gbps > 0 && (p.BottleneckGbps == 0 || h.Gbps < p.BottleneckGbps) {
				p.BottleneckGbps = h.Gbps
			}
		}
	} else {
		p.BottleneckGbps = bottleneck(p, g.offPathEnd(p))
	}
	if p.BottleneckGbps == 0 {
		p.Notes = append(p.Notes, "link speeds unknown: no bottleneck computed")
	}
	return p
}

// depth counts the bridges above d.
func depth(d *Device) int {
	n := 0
	for p := d.Parent; p != nil; p = p.Parent {
		n++
	}
	return n
}

// commonAncestor returns the lowest bridge above both a and b, nil when
// they meet only at (or above) a host bridge, and how many bridges below
// it each side crosses. It walks parent links and allocates nothing: every
// pair of an 8-GPU server asks it twice.
func commonAncestor(a, b *Device) (lca *Device, upA, upB int) {
	da, db := depth(a), depth(b)
	x, y := a.Parent, b.Parent
	for ; da > db; da-- {
		x, upA = x.Parent, upA+1
	}
	for ; db > da; db-- {
		y, upB = y.Parent, upB+1
	}
	for x != y {
		x, y, upA, upB = x.Parent, y.Parent, upA+1, upB+1
	}
	return x, upA, upB
}

// switchOf names the switch a bridge belongs to: a downstream port belongs
// to its upstream port's switch; any other bridge stands alone.
func switchOf(d *Device) *Device {
	if d.Role == RoleDownstream && d.Parent != nil && d.Parent.Role == RoleUpstream {
		return d.Parent
	}
	return d
}

// numaOf returns the effective NUMA node of d.
func numaOf(d *Device) int { return d.NUMANode }

// smiLabel follows nvidia-smi / NVML (nvmlDeviceGetTopologyCommonAncestor):
// a "bridge" in its legend is a switch, so devices under one switch are PIX,
// under several PXB, meeting at the host bridge PHB, across host bridges of
// one NUMA node NODE, across NUMA nodes SYS. Two functions of one device are PIX.
func (g *Graph) smiLabel(a, b *Device) (Label, string, []string) {
	if a.Addr.SameDevice(b.Addr) {
		return PIX, PathSameDevice, nil
	}
	if a.HostBridge != nil && a.HostBridge == b.HostBridge {
		lca, _, _ := commonAncestor(a, b)
		if lca == nil && g.NCCLView {
			return PHB, PathRootComplex, []string{"an NCCL topology has no host bridges: nvidia-smi may say PHB or NODE"}
		}
		if lca == nil || lca.Role == RoleRootPort {
			return PHB, PathRootComplex, nil
		}
		// PIX when every bridge crossed below lca belongs to lca's switch.
		sw := switchOf(lca)
		for _, d := range [2]*Device{a, b} {
			for x := d.Parent; x != lca; x = x.Parent {
				if switchOf(x) != sw {
					return PXB, PathAcrossSwitches, nil
				}
			}
		}
		return PIX, PathSameSwitch, nil
	}
	na, nb := numaOf(a), numaOf(b)
	switch {
	case na >= 0 && nb >= 0 && na == nb:
		return NODE, PathHostBridges, nil
	case na >= 0 && nb >= 0:
		return SYS, g.nodesPath(na, nb), nil
	case a.LocalCPUsNode && b.LocalCPUsNode && a.LocalCPUs != "" && a.LocalCPUs == b.LocalCPUs:
		return NODE, PathHostBridges, nil // the node of those CPUs
	case a.LocalCPUsNode && b.LocalCPUsNode && hbSocket(a) >= 0 && hbSocket(b) >= 0 && hbSocket(a) != hbSocket(b):
		return SYS, PathSockets, nil
	case len(g.System.NUMANodes) == 1 && !g.System.NUMANodesPartial:
		return NODE, PathHostBridges, nil
	case len(g.System.NUMANodes) == 0, g.System.NUMANodesPartial:
		return NODE, PathHostBridges, []string{"the source gives no NUMA nodes: NODE if " + unknownOf(a, b) + " share one, else SYS"}
	default:
		return NODE, PathHostBridges, []string{fmt.Sprintf(
			"NUMA node of %s unknown on a %d-node machine: taken as one node, as NCCL does; it may be SYS",
			unknownOf(a, b), len(g.System.NUMANodes))}
	}
}

// hbSocket is the socket of d's host bridge, -1 unknown.
func hbSocket(d *Device) int {
	if d.HostBridge == nil {
		return -1
	}
	return d.HostBridge.Socket
}

func unknownOf(a, b *Device) string {
	if numaOf(a) < 0 && numaOf(b) < 0 {
		return a.BDF() + " and " + b.BDF()
	}
	if numaOf(a) < 0 {
		return a.BDF()
	}
	return b.BDF()
}

// ncclNode is a node of NCCL's collapsed PCI tree (src/graph/xml.cc,
// ncclTopoGetXmlFromSys):
// a device, a PCI node named after a bridge, or a CPU keyed by NUMA id.
type ncclNode struct {
	dev  *Device // nil for a CPU node
	cpu  int     // NUMA id of a CPU node
	cpus string  // its CPUs, where the id is not known (Device.LocalCPUsNode)
}

// cpuNode is the CPU node NCCL puts d's PCI tree under: numa_node's, which
// on the host is the node of d's local CPUs.
func cpuNode(d *Device) ncclNode {
	if d.RawNUMANode < 0 && d.LocalCPUsNode {
		return ncclNode{cpu: -1, cpus: d.LocalCPUs}
	}
	return ncclNode{cpu: d.RawNUMANode}
}

// ncclParent returns the NCCL parent of d: its sysfs grandparent, skipping
// one bridge level, or the CPU of the top-most PCI node's numa_node once the
// walk reaches a host bridge (§1.4 step 3). Broadcom Gen4/Gen5 sub-switches
// are flattened into their parent switch (§1.6).
func ncclParent(d *Device, view bool) ncclNode {
	p := d.Parent
	if view { // the tree is NCCL's already; only its Broadcom flattening is left to do
		switch {
		case p == nil:
			return cpuNode(d)
		case p.Parent != nil && bcmGen(p, 1) != 0 && bcmGen(p, 1) == bcmGen(p.Parent, 0):
			return ncclNode{dev: p.Parent}
		}
		return ncclNode{dev: p}
	}
	if p == nil || p.Parent == nil {
		return cpuNode(d)
	}
	gp := p.Parent
	if gp.BroadcomSubSwitch() {
		return ncclNode{dev: gp.Parent.Parent}
	}
	return ncclNode{dev: gp}
}

// BroadcomSubSwitch reports whether d is the upstream port of the second
// level of a Broadcom PEX88xxx (Gen4) or PEX89xxx (Gen5) switch. NCCL
// flattens that level into the switch above (src/graph/topo.cc,
// ncclTopoFlattenBcmSwitches), and
// the link up to it lies inside one chip.
func (d *Device) BroadcomSubSwitch() bool {
	p := d.Parent
	if d.Role != RoleUpstream || p == nil || p.Role != RoleDownstream || p.Parent == nil {
		return false
	}
	gen := bcmGen(d, 1)
	return gen != 0 && gen == bcmGen(p.Parent, 0)
}

// flatteningUnknown reports whether a switch above d has the shape of a
// two-level Broadcom switch (an upstream port below a downstream port) but
// the IDs that tell whether NCCL flattens it are not known: the vendor and
// device (lstopo without -v), a Broadcom port's device ID (lspci without
// -nn names the vendor only), or a Broadcom PEX88xxx/PEX89xxx port's
// subsystem IDs (lspci -tvnn).
func flatteningUnknown(d *Device) bool {
	unknown := func(x *Device) bool {
		return x.VendorID == 0 && x.DeviceID == 0 || x.VendorID == VendorBroadcom && (x.DeviceID == 0 || // device ID not given (lspci by name)
			(x.DeviceID == 0xc010 || x.DeviceID == 0xc030) && !x.SubsystemKnown)
	}
	for x := d.Parent; x != nil; x = x.Parent {
		if x.Role == RoleUpstream && x.Parent != nil && x.Parent.Role == RoleDownstream && x.Parent.Parent != nil &&
			(unknown(x) || unknown(x.Parent.Parent)) {
			return true
		}
	}
	return false
}

// bcmGen implements NCCL's getBcmGen (topo.cc): the generation of a Broadcom
// PEX switch whose two-level hierarchy NCCL flattens, or 0. level 0 asks
// about the parent switch, level 1 about a sub-switch.
func bcmGen(d *Device, level int) int {
	if d.VendorID != 0x1000 || d.SubVendorID != 0x1000 || !d.SubsystemKnown {
		return 0
	}
	switch {
	case d.DeviceID == 0xc010 && d.SubDeviceID&0xf000 == 0xa000:
		return 4
	case d.DeviceID == 0xc030 && d.SubDeviceID&0xf000 == uint16(level)<<12:
		return 5
	}
	return 0
}

// ncclLabel computes NCCL's path type between two leaves of its tree
// (§1.7): a hop between two PCI nodes is PXB, a hop into a CPU is PHB, a
// hop between CPUs is SYS, any other PCI hop PIX; the path takes the worst.
func (g *Graph) ncclLabel(a, b *Device) Label {
	var bufA, bufB [16]ncclNode // on the stack: chains are rarely longer
	ca, cb := g.ncclChain(a, bufA[:0]), g.ncclChain(b, bufB[:0])
	// The IB plugin merges the ports of a multi-port NIC into one NIC node
	// (net_ib/init.cc), and both functions share a parent: PIX.
	if a.Addr.SameDevice(b.Addr) {
		return PIX
	}
	worst := PIX
	step := func(child, parent ncclNode) {
		hop := PIX
		switch {
		case parent.dev == nil:
			hop = PHB
		case child.dev != a && child.dev != b:
			hop = PXB // PCI node to PCI node
		}
		if hop.Worse(worst) {
			worst = hop
		}
	}
	for i, n := range ca {
		j := slices.Index(cb, n)
		if j < 0 {
			continue
		}
		for k := 0; k < i; k++ {
			step(ca[k], ca[k+1])
		}
		for k := 0; k < j; k++ {
			step(cb[k], cb[k+1])
		}
		return worst
	}
	// Different CPU nodes: both climb to their CPU (PHB), then CPU to CPU.
	return SYS
}

// ncclChain appends d and its NCCL ancestors, up to a CPU node, to buf.
func (g *Graph) ncclChain(d *Device, buf []ncclNode) []ncclNode {
	buf = append(buf, ncclNode{dev: d})
	for cur := d; ; {
		n := ncclParent(cur, g.NCCLView)
		buf = append(buf, n)
		if n.dev == nil {
			return buf
		}
		cur = n.dev
	}
}

// appendHops appends the path from a to b to out: up to where they meet,
// then down. A nil out gets a slice of its own, sized to the path.
func (g *Graph) appendHops(out []Hop, p Pair) []Hop {
	a, b, off := p.A, pathEnd(p), g.offPathEnd(p)
	lca, upA, upB := commonAncestor(a, b)
	start := len(out)
	out = slices.Grow(out, upA+upB+3)
	mps, offMPS := 0, 0 // smallest DevCtl Max_Payload_Size at the ends of the PCIe links on, and off, the data path
	// climb appends the hops from d up to lca, or to the top of its tree.
	climb := func(d *Device) {
		for x := d; ; x = x.Parent {
			var to string
			switch {
			case x.Parent != lca:
				to = x.Parent.BDF()
			case lca != nil:
				to = lca.BDF()
			case x.HostBridge != nil:
				to = x.HostBridge.Name
			default:
				to = "?"
			}
			h := upstreamHop(x, to)
			h.OffPath = off != nil && d == off
			switch {
			case h.Kind == HopPCIe && h.OffPath:
				offMPS = minMPS(minMPS(offMPS, x), x.Parent)
			case h.Kind == HopPCIe:
				mps = minMPS(minMPS(mps, x), x.Parent)
			}
			out = append(out, h)
			if x.Parent == lca {
				return
			}
		}
	}
	climb(a)
	if lca == nil && !a.Addr.SameDevice(b.Addr) && a.HostBridge != b.HostBridge {
		kind := HopHostBridges
		if numaOf(a) != numaOf(b) && numaOf(a) >= 0 && numaOf(b) >= 0 {
			kind = HopNUMA
		}
		out = append(out, Hop{From: hbName(a), To: hbName(b), Kind: kind})
	}
	// b's side, climbed then turned to run down from where the sides meet.
	down := len(out)
	climb(b)
	slices.Reverse(out[down:])
	for i := down; i < len(out); i++ {
		out[i].From, out[i].To = out[i].To, out[i].From
	}
	// A TLP crosses every link of the path whole, so the smallest
	// Max_Payload_Size of any link's ends governs them all (the advisor's
	// prediction uses the same path-wide value); links off the data path
	// take their own side's.
	if mps == 0 {
		mps = DefaultMPSBytes
	}
	if offMPS == 0 {
		offMPS = DefaultMPSBytes
	}
	for i := start; i < len(out); i++ {
		if h := &out[i]; h.Kind == HopPCIe {
			m := mps
			if h.OffPath {
				m = offMPS
			}
			h.Gbps = DataGbps(h.Link.CurrentGTs, h.Link.CurrentWidth, m, TLPOverheadBytes)
		}
	}
	return out
}

// bottleneck is the lowest current data rate of the PCIe links on the path
// from a to b, 0 when none is known: the BottleneckGbps the hops of the
// path give, at the path's smallest Max_Payload_Size, without building them.
func bottleneck(p Pair, off *Device) float64 {
	a, b := p.A, pathEnd(p)
	lca, _, _ := commonAncestor(a, b)
	mps := 0
	for _, d := range [2]*Device{a, b} {
		if d == off {
			continue // not on the data path
		}
		for x := d; ; x = x.Parent {
			if pcieHop(x) {
				mps = minMPS(minMPS(mps, x), x.Parent)
			}
			if x.Parent == lca {
				break
			}
		}
	}
	if mps == 0 {
		mps = DefaultMPSBytes
	}
	low := 0.0
	for _, d := range [2]*Device{a, b} {
		if d == off {
			continue // not on the data path
		}
		for x := d; ; x = x.Parent {
			if pcieHop(x) {
				l := HopLink(x)
				if v := DataGbps(l.CurrentGTs, l.CurrentWidth, mps, TLPOverheadBytes); v > 0 && (low == 0 || v < low) {
					low = v
				}
			}
			if x.Parent == lca {
				break
			}
		}
	}
	return low
}

// minMPS lowers mps to d's DevCtl Max_Payload_Size when that was read
// and is smaller (0 means none yet).
func minMPS(mps int, d *Device) int {
	if d != nil && d.DevCtlKnown && d.MaxPayload > 0 && (mps == 0 || d.MaxPayload < mps) {
		return d.MaxPayload
	}
	return mps
}

func hbName(d *Device) string {
	for x := d; x != nil; x = x.Parent {
		if x.Parent == nil && x.HostBridge != nil {
			return x.HostBridge.Name
		}
	}
	return "?"
}

// upstreamHop describes the step from d to the node above it. A downstream
// port's upstream side is the switch's internal bus and a root port's is the
// root complex; every other device reaches its parent over its own link.
func upstreamHop(d *Device, to string) Hop {
	h := Hop{From: d.BDF(), To: to}
	switch {
	case d.Role == RoleDownstream:
		h.Kind = HopSwitch
	case d.Role == RoleRootPort || d.Parent == nil && !d.LinkToHost:
		h.Kind = HopRootComplex
	default:
		h.Kind = HopPCIe
		h.Link = HopLink(d)
	}
	return h
}

// pcieHop reports whether the step from d to the node above it is a PCIe
// link (upstreamHop's HopPCIe).
func pcieHop(d *Device) bool {
	return d.Role != RoleDownstream && d.Role != RoleRootPort && (d.Parent != nil || d.LinkToHost)
}

// HopLink is the link of a PCIe hop from d up to its parent: d's own, or,
// when d's state now is unknown, the port's side of the same link. A
// port's reading faster or wider than d can train is not this link's (a
// virtual machine's emulated root port above a VF): then only the link's
// maximum is known, the lower of both ends' (MaxOnly).
func HopLink(d *Device) Link {
	if d.Link.Known() || d.Parent == nil {
		return d.Link
	}
	// A VF has no link of its own but shares its PF's (PCIe Base Spec,
	// SR-IOV: a VF's Link Status register is RsvdZ), so Linux's
	// current_link_speed of a VF reads "Unknown" (drivers/pci/pci-sysfs.c).
	l, own := d.Parent.Link, d.Link
	if !l.Known() || (own.MaxGTs <= 0 || l.CurrentGTs <= own.MaxGTs) && (own.MaxWidth <= 0 || l.CurrentWidth <= own.MaxWidth) {
		return l
	}
	top := Link{MaxGTs: lowerKnown(own.MaxGTs, l.MaxGTs), MaxWidth: lowerKnown(own.MaxWidth, l.MaxWidth), MaxOnly: true}
	top.CurrentGTs, top.CurrentWidth = top.MaxGTs, top.MaxWidth
	return top
}

// lowerKnown is the lower of a and b, ignoring an unknown (zero) one.
func lowerKnown[T int | float64](a, b T) T {
	if a <= 0 || b > 0 && b < a {
		return b
	}
	return a
}

// PairsOf returns the pairs whose A is of kind ka and B of kind kb, nil
// when there are none. Where they lie together in pairs (on a machine
// with one accelerator, say) the result is that part of pairs, its
// capacity cut so that an append copies it; else a new slice of their
// number.
func PairsOf(pairs []Pair, ka, kb Kind) []Pair {
	of := func(p Pair) bool { return p.A.Kind == ka && p.B.Kind == kb }
	first, n := -1, 0
	for i, p := range pairs {
		if of(p) {
			if first < 0 {
				first = i
			}
			n++
		}
	}
	if n == 0 {
		return nil
	}
	if run := pairs[first : first+n : first+n]; !slices.ContainsFunc(run, func(p Pair) bool { return !of(p) }) {
		return run
	}
	out := make([]Pair, 0, n)
	for _, p := range pairs[first:] {
		if of(p) {
			out = append(out, p)
		}
	}
	return out
}

// nodesPath is the path between two different NUMA nodes: one socket's, two
// sockets', or unknown sockets'.
func (g *Graph) nodesPath(na, nb int) string {
	sa, sb := g.System.NodeSocket(na), g.System.NodeSocket(nb)
	switch {
	case sa < 0 || sb < 0:
		return PathNodesSocketUnknown
	case sa == sb:
		return PathNUMANodes
	}
	return PathSockets
}
