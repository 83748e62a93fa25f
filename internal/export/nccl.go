// Package export writes a topology.Graph in other tools' formats: an NCCL
// topology file (NCCL_TOPO_FILE) and pictures of the tree (Graphviz DOT and a
// self-drawn SVG).
package export

import (
	"bufio"
	"encoding/xml"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/gdtopo/gdtopo/internal/names"
	"github.com/gdtopo/gdtopo/topology"
)

// ncclParent returns d's parent in NCCL's collapsed tree (src/graph/xml.cc,
// ncclTopoGetXmlFromSys): its sysfs grandparent, with Broadcom Gen4/Gen5
// sub-switches flattened into the switch above (src/graph/topo.cc,
// ncclTopoFlattenBcmSwitches), or nil for the CPU node once the
// walk reaches a host bridge. It mirrors topology's own rule, so that the
// file reads back to the same NCCL labels. A graph that is an NCCL view
// already is written as it is.
func ncclParent(g *topology.Graph, d *topology.Device) *topology.Device {
	p := d.Parent
	if g.NCCLView || p == nil || p.Parent == nil {
		return p
	}
	if gp := p.Parent; gp.BroadcomSubSwitch() {
		return gp.Parent.Parent
	} else {
		return gp
	}
}

// ncclTree is the collapsed tree: the PCI nodes under each CPU (NUMA id).
type ncclTree struct {
	children map[*topology.Device][]*topology.Device
	top      map[int][]*topology.Device
}

func buildNCCLTree(g *topology.Graph) ncclTree {
	t := ncclTree{children: map[*topology.Device][]*topology.Device{}, top: map[int][]*topology.Device{}}
	var start []*topology.Device
	if g.NCCLView {
		start = g.Devices
	} else {
		start = append(g.OfKind(topology.KindAccelerator), g.OfKind(topology.KindNIC)...)
	}
	seen := map[*topology.Device]bool{}
	for _, d := range start {
		for cur := d; !seen[cur]; {
			seen[cur] = true
			p := ncclParent(g, cur)
			if p == nil {
				// NCCL keys the CPU by the numa_node of the top-most PCI node;
				// a text dump that leaves a root port's out gives its host
				// bridge's, which is the port's own on the host.
				id := cur.RawNUMANode
				if id < 0 && g.TextForm != "" && !g.NCCLView {
					id = cur.NUMANode
					if n := g.System.NUMANodes; id < 0 && len(n) == 1 && !g.System.NUMANodesPartial {
						id = n[0].ID // the machine's one node
					}
				}
				t.top[id] = append(t.top[id], cur)
				break
			}
			t.children[p] = append(t.children[p], cur)
			cur = p
		}
	}
	byAddr := func(s []*topology.Device) {
		sort.Slice(s, func(i, j int) bool { return s[i].Addr.Less(s[j].Addr) })
	}
	for _, s := range t.children {
		byAddr(s)
	}
	for _, s := range t.top {
		byAddr(s)
	}
	return t
}

// NCCLXML writes an NCCL_TOPO_FILE for g in NCCL's schema: <system
// version="1">, one <cpu> per NUMA node (numaid, affinity, arch, vendor,
// familyid, modelid), and under each the NCCL-collapsed PCI tree: one <pci>
// per switch (its upstream port), accelerators as <pci><gpu/></pci> and NICs
// as <pci><nic><net/></nic></pci>, each function its own <pci>. link_speed
// and link_width are the links' maximum, which is what NCCL reads. A graph
// that is already an NCCL view is written as it is.
//
// Attributes gdtopo cannot know are left out, so that NCCL fills them from
// the running machine (it does so for any attribute a topology file lacks):
// the CPU's arch when the source has no cpuinfo, sm where the model is not
// in gdtopo's table, a NIC's speed when unknown, a GPU's and an RDMA
// NIC's gdr unless the source shows a GPUDirect peer-memory module (or is
// an NCCL topology that gives it), and a Grace GPU's <c2c> link count
// and bandwidth, which are NVML's (ncclTopoGetXmlFromGpu probes them for a
// GPU whose <gpu> has no <c2c>), a vendor or device ID the source does not
// give, and a NIC's <net> where the source names no device for it (NCCL
// matches nets by name). A partial source (topology.Graph.Partial) is
// refused, and so is a text dump that does not give the NUMA node of a
// PCI node straight under a CPU.
func NCCLXML(w io.Writer, g *topology.Graph) error {
	if g.Partial != "" {
		return fmt.Errorf("the source holds part of the machine (%s), and an NCCL topology file pins the layout of all of it", g.Partial)
	}
	for _, d := range g.Devices {
		switch {
		case d.Positional() != "":
			return fmt.Errorf("%s has no bus ID (%s: lstopo without -v), and an NCCL topology names every PCI node by its bus ID: export from lstopo -v, hwloc XML or the sysfs tree", d.BDF(), d.Positional())
		case d.PlaceUnknown:
			return fmt.Errorf("%s: the source shows no PCI hierarchy, which an NCCL topology is made of: export from lspci -tv, sudo lspci -vvv or the sysfs tree", d.BDF())
		}
	}
	t := buildNCCLTree(g)
	if ds := t.top[-1]; len(ds) > 0 && !g.NCCLView && g.TextForm != "" {
		// NCCL keys each CPU by the numa_node of the PCI node below it, and
		// fills a <cpu>'s affinity from /sys/devices/system/node/node<numaid>
		// (xml.cc, ncclTopoGetXmlFromCpu): -1 there is sysfs's own word, but a
		// text dump without NUMA lines does not say -1, it says nothing.
		return fmt.Errorf("the %s input does not give the NUMA node of %s, and an NCCL topology puts each device under its CPU's node: export from a source that gives it (sudo lspci -vvv with numactl -H, or the sysfs tree)", g.TextForm, ds[0].BDF())
	}
	bw := bufio.NewWriter(w)
	x := &xmlWriter{w: bw, g: g, gpuIndex: map[*topology.Device]int{}, netIndex: map[*topology.Device]int{}}
	for i, d := range g.OfKind(topology.KindAccelerator) {
		x.gpuIndex[d] = i
	}
	n := 0
	for _, d := range g.OfKind(topology.KindNIC) {
		x.netIndex[d] = n
		n += max(1, len(d.RDMA))
	}
	ids := map[int]bool{}
	for _, nn := range g.System.NUMANodes {
		ids[nn.ID] = true
	}
	for id := range t.top {
		ids[id] = true
	}
	order := make([]int, 0, len(ids))
	for id := range ids {
		order = append(order, id)
	}
	sort.Slice(order, func(i, j int) bool { // -1 (unknown) last
		a, b := order[i], order[j]
		if (a < 0) != (b < 0) {
			return b < 0
		}
		return a < b
	})
	fmt.Fprintln(bw, `<system version="1">`)
	for _, id := range order {
		x.cpu(id, t)
	}
	fmt.Fprintln(bw, `</system>`)
	return bw.Flush()
}

type xmlWriter struct {
	w                  *bufio.Writer
	g                  *topology.Graph
	gpuIndex, netIndex map[*topology.Device]int
}

// attr is one name="value" pair; empty values are left out.
type attr struct{ k, v string }

func (x *xmlWriter) open(depth int, name string, attrs []attr, empty bool) {
	x.w.WriteString(strings.Repeat("  ", depth) + "<" + name)
	for _, a := range attrs {
		if a.v == "" {
			continue
		}
		x.w.WriteString(" " + a.k + `="`)
		xml.EscapeText(x.w, []byte(a.v))
		x.w.WriteString(`"`)
	}
	if empty {
		x.w.WriteString("/>\n")
	} else {
		x.w.WriteString(">\n")
	}
}

func (x *xmlWriter) close(depth int, name string) {
	x.w.WriteString(strings.Repeat("  ", depth) + "</" + name + ">\n")
}

func (x *xmlWriter) cpu(id int, t ncclTree) {
	s := x.g.System
	a := []attr{{"numaid", strconv.Itoa(id)}}
	for _, nn := range s.NUMANodes {
		if nn.ID == id {
			a = append(a, attr{"affinity", cpuMask(nn.CPUs, s.NUMANodes)})
		}
	}
	// The CPU as NCCL's ncclTopoGetXmlFromCpu (src/graph/xml.cc) writes it:
	// arch, and vendor, family and model on x86 only. What the source does
	// not give is left out, and NCCL fills it from the machine it runs on.
	a = append(a, attr{"arch", s.CPUArch})
	if s.CPUArch == "x86_64" {
		a = append(a, attr{"vendor", s.CPUVendor})
		if s.CPUVendor != "" && s.CPUFamily >= 0 {
			a = append(a, attr{"familyid", strconv.Itoa(s.CPUFamily)})
		}
		if s.CPUVendor != "" && s.CPUModelID >= 0 {
			a = append(a, attr{"modelid", strconv.Itoa(s.CPUModelID)})
		}
	}
	kids := t.top[id]
	x.open(1, "cpu", a, len(kids) == 0)
	for _, d := range kids {
		x.pci(2, d, t)
	}
	if len(kids) > 0 {
		x.close(1, "cpu")
	}
}

func hex(v uint64, digits int) string { return fmt.Sprintf("0x%0*x", digits, v) }

func (x *xmlWriter) pci(depth int, d *topology.Device, t ncclTree) {
	a := []attr{{"busid", d.BDF()}, {"class", hex(uint64(d.Class), 6)}}
	// An ID the source does not give is left out (NCCL reads it from
	// sysfs), never written as 0x0000, which matches no device.
	if d.VendorID != 0 {
		a = append(a, attr{"vendor", hex(uint64(d.VendorID), 4)})
	}
	if d.DeviceID != 0 {
		a = append(a, attr{"device", hex(uint64(d.DeviceID), 4)})
	}
	if d.SubsystemKnown {
		a = append(a, attr{"subsystem_vendor", hex(uint64(d.SubVendorID), 4)}, attr{"subsystem_device", hex(uint64(d.SubDeviceID), 4)})
	}
	gts, width := d.Link.MaxGTs, d.Link.MaxWidth
	if gts == 0 {
		gts = d.Link.CurrentGTs
	}
	if width == 0 {
		width = d.Link.CurrentWidth
	}
	if gts > 0 {
		a = append(a, attr{"link_speed", strconv.FormatFloat(gts, 'f', 1, 64) + " GT/s PCIe"})
	}
	if width > 0 {
		a = append(a, attr{"link_width", strconv.Itoa(width)})
	}
	kids := t.children[d]
	isGPU := d.Kind == topology.KindAccelerator && !d.IsVirtualFunction()
	isNIC := d.Kind == topology.KindNIC && !d.IsVirtualFunction()
	if !isGPU && !isNIC && len(kids) == 0 {
		x.open(depth, "pci", a, true)
		return
	}
	x.open(depth, "pci", a, false)
	switch {
	case isGPU:
		x.gpu(depth+1, d)
	case isNIC:
		x.nic(depth+1, d)
	}
	for _, c := range kids {
		x.pci(depth+1, c, t)
	}
	x.close(depth, "pci")
}

func (x *xmlWriter) gpu(depth int, d *topology.Device) {
	i := strconv.Itoa(x.gpuIndex[d])
	a := []attr{{"dev", i}, {"sm", smOf(d)}, {"rank", i}}
	a = append(a, attr{"gdr", x.gdr(d)})
	var links []topology.NVLink
	for _, l := range x.g.NVLinks {
		if l.Count > 0 && (l.A == d.Addr || l.B == d.Addr) {
			links = append(links, l)
		}
	}
	x.open(depth, "gpu", a, len(links) == 0)
	if len(links) == 0 {
		return
	}
	for _, l := range links {
		peer := l.B
		if peer == d.Addr {
			peer = l.A
		}
		class := "0x030200"
		if pd := x.g.Device(peer); pd != nil {
			class = hex(uint64(pd.Class), 6)
		}
		x.open(depth+1, "nvlink", []attr{{"target", peer.String()}, {"count", strconv.Itoa(l.Count)}, {"tclass", class}}, true)
	}
	x.close(depth, "gpu")
}

// gdr is a <gpu> or RDMA <net>'s gdr attribute: the source's own where it
// is an NCCL topology; "1" where the source shows a GPUDirect peer-memory
// module; else "" (left out). NCCL fills a gdr the file lacks from the
// machine it runs on (the net plugin's NCCL_PTR_CUDA or DMA-BUF support),
// and keeps one the file gives, so a "1" gdtopo cannot back would have
// NCCL try GPUDirect RDMA where it may not work.
func (x *xmlWriter) gdr(d *topology.Device) string {
	p := x.g.Platform
	switch {
	case d.NCCLGDR() != "":
		return d.NCCLGDR()
	case p.ModulesRead && len(p.PeerMemory) > 0:
		return "1"
	}
	return ""
}

func (x *xmlWriter) nic(depth int, d *topology.Device) {
	netNames, gdr := d.RDMA, x.gdr(d)
	if len(netNames) == 0 { // no RDMA device: NCCL's socket transport uses the interface
		netNames, gdr = d.Netdevs, "0"
		if len(netNames) > 1 {
			netNames = netNames[:1]
		}
	}
	if len(netNames) == 0 {
		// NCCL matches a <net> by its device's name (ncclTopoFillNet): with
		// none known, the <nic> is left empty for NCCL to fill from the
		// machine, never named by an address no device is called.
		x.open(depth, "nic", nil, true)
		return
	}
	x.open(depth, "nic", nil, false)
	speed := ""
	if d.PortRateGbps > 0 {
		speed = strconv.FormatFloat(d.PortRateGbps*1000, 'f', 0, 64) // Mb/s
	}
	for i, n := range netNames {
		x.open(depth+1, "net", []attr{{"name", n}, {"dev", strconv.Itoa(x.netIndex[d] + i)},
			{"speed", speed}, {"port", "1"}, {"gdr", gdr}}, true)
	}
	x.close(depth, "nic")
}

// cpuMask turns a cpulist into the kernel's cpumap form NCCL's affinity
// takes: 32-bit hex groups, most significant first, as wide as the
// machine's highest CPU.
func cpuMask(list string, all []topology.NUMANode) string {
	cpus, err := topology.ParseCPUList(list)
	if err != nil || len(cpus) == 0 {
		return ""
	}
	top := 0
	for _, n := range all {
		if c, err := topology.ParseCPUList(n.CPUs); err == nil {
			for _, v := range c {
				top = max(top, v)
			}
		}
	}
	words := make([]uint32, top/32+1)
	for _, c := range cpus {
		if c >= 0 && c/32 < len(words) {
			words[c/32] |= 1 << (c % 32)
		}
	}
	parts := make([]string, len(words))
	for i := range words {
		parts[len(words)-1-i] = fmt.Sprintf("%08x", words[i])
	}
	return strings.Join(parts, ",")
}

// smByModel maps model words to NVIDIA compute capability ×10, which NCCL
// writes as sm. A model not here gets no sm: NCCL then asks CUDA.
var smByModel = []struct {
	word string
	sm   string
}{
	{"P100", "60"}, {"V100", "70"}, {"T4", "75"}, {"A100", "80"}, {"A800", "80"}, {"A30", "80"},
	{"A10", "86"}, {"A40", "86"}, {"RTX A6000", "86"}, {"L40", "89"}, {"L4", "89"}, {"Ada", "89"},
	{"4090", "89"}, {"H100", "90"}, {"H800", "90"}, {"H200", "90"}, {"GH200", "90"}, {"B200", "100"},
}

func smOf(d *topology.Device) string {
	if d.VendorID != topology.VendorNVIDIA {
		return ""
	}
	name := modelName(d)
	for _, m := range smByModel {
		for _, f := range strings.Fields(name) {
			if f == m.word || (strings.Contains(m.word, " ") && strings.Contains(name, m.word)) {
				return m.sm
			}
		}
	}
	return ""
}

// modelName is d's model: the resolved name, else gdtopo's built-in table.
func modelName(d *topology.Device) string {
	if d.Name != "" {
		return d.Name
	}
	n, _ := names.Builtin(d.VendorID, d.DeviceID)
	return n
}

// shortModel is the model's first distinctive word: "H100", "ConnectX-7",
// "PEX89000"; an NCCL topology's GPU by its architecture ("sm_90"); the IDs
// when the model is unknown.
func shortModel(d *topology.Device) string {
	skip := map[string]bool{"NVIDIA": true, "Tesla": true, "Broadcom": true, "Mellanox": true, "AMD": true,
		"Intel": true, "GeForce": true, "PLX": true, "Technology,": true, "Technologies": true, "Technologies,": true, "Corporation": true, "Inc.": true, "Co.,": true, "Ltd.": true}
	name := modelName(d)
	if cc, ok := strings.CutPrefix(name, "GPU, compute capability "); ok { // an NCCL topology's GPU
		return "sm_" + strings.ReplaceAll(cc, ".", "")
	}
	for _, f := range strings.Fields(name) {
		if f = strings.TrimRight(f, ",;:"); f != "" && !skip[f] {
			return f
		}
	}
	return fmt.Sprintf("%04x:%04x", d.VendorID, d.DeviceID)
}
