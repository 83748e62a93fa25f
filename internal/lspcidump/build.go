package lspcidump

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/gdtopo/gdtopo/internal/words"
	"github.com/gdtopo/gdtopo/topology"
)

// classNames maps the class words lspci prints without -nn (pci.ids) to
// base<<8|sub.
var classNames = map[string]uint32{
	"Host bridge": 0x0600, "ISA bridge": 0x0601, "PCI bridge": 0x0604, "Bridge": 0x0680,
	"Ethernet controller": 0x0200, "Network controller": 0x0280, "Infiniband controller": 0x0207,
	"VGA compatible controller": 0x0300, "3D controller": 0x0302, "Display controller": 0x0380,
	"Non-Volatile memory controller": 0x0108, "RAID bus controller": 0x0104, "SATA controller": 0x0106,
	"Serial Attached SCSI controller": 0x0107, "Audio device": 0x0403, "USB controller": 0x0c03,
	"SMBus": 0x0c05, "IOMMU": 0x0806, "System peripheral": 0x0880, "Processing accelerators": 0x1200,
	"Co-processor": 0x0b40, "Encryption controller": 0x1080, "Signal processing controller": 0x1180,
	"Non-Essential Instrumentation": 0x1300, "Unassigned class": 0xff00, "Fibre Channel": 0x0c04,
	"Multimedia audio controller": 0x0401, "Serial bus controller": 0x0c80, "RAM memory": 0x0500,
	"Memory controller": 0x0580, "Communication controller": 0x0780, "Mass storage controller": 0x0180,
	"Ethernet": 0x0200, "PCI bridge (Subtractive decode)": 0x0604,
}

// vendorNames maps the vendor names lspci prints without -nn to IDs, for
// the vendors classification depends on. Longer names come first.
var vendorNames = []struct {
	prefix string
	id     uint16
}{
	{"Advanced Micro Devices, Inc. [AMD/ATI]", topology.VendorAMD},
	{"Advanced Micro Devices, Inc. [AMD]", 0x1022},
	{"NVIDIA Corporation", topology.VendorNVIDIA},
	{"Mellanox Technologies", topology.VendorMellanox},
	{"Intel Corporation", topology.VendorIntel},
	{"Broadcom / LSI", topology.VendorBroadcom},
	{"Broadcom Inc.", 0x14e4},
	{"PLX Technology", 0x10b5},
	{"Habana Labs", 0x1da3},
	{"Samsung Electronics", 0x144d},
	{"ASPEED Technology", 0x1a03},
}

// guessClass guesses a class from a tree name, for a function no listing
// described: bridges have bus ranges; the rest go by vendor and words.
func guessClass(r *rec) (uint32, bool) {
	n := r.name
	switch {
	case r.bridge:
		return 0x0604, true
	case strings.Contains(n, "NVMe"):
		return 0x0108, true
	case strings.Contains(n, "Audio"):
		return 0x0403, true
	case strings.Contains(n, "Bridge") && r.vendor != topology.VendorNVIDIA:
		return 0x0604, true
	case strings.Contains(n, "Virtual Function") || strings.Contains(n, "Ethernet") || strings.Contains(n, "Network Connection"):
		return 0x0200, true
	case r.vendor == topology.VendorMellanox && (strings.Contains(n, "ConnectX") || strings.Contains(n, "Family")):
		return 0x0200, true
	case r.vendor == topology.VendorNVIDIA && strings.Contains(n, "NVSwitch"):
		return 0x0680, true
	case r.vendor == topology.VendorNVIDIA && !strings.Contains(n, "USB") && !strings.Contains(n, "Controller"):
		return 0x0302, true
	case r.vendor == topology.VendorAMD && (strings.Contains(n, "Instinct") || strings.Contains(n, "MI")):
		return 0x0380, true
	case r.vendor == 0x1da3:
		return 0x1200, true
	}
	return 0, false
}

// classify gives r the vendor its name starts with and the class of a
// function with the same name in byName, or one guessed from its name;
// it reports whether the class was guessed.
func classify(r *rec, byName map[string]*rec) bool {
	if !r.vendorKnown {
		for _, v := range vendorNames {
			if strings.HasPrefix(r.name, v.prefix) {
				r.vendor, r.vendorKnown = v.id, true
				break
			}
		}
	}
	idsFromName(r)
	if r.classKnown {
		return false
	}
	if x := byName[r.name]; x != nil && r.name != "" {
		r.class, r.classKnown, r.progKnown = x.class, true, x.progKnown
		if !r.devKnown && x.devKnown {
			r.device, r.devKnown = x.device, true
		}
		return false
	}
	if c, ok := guessClass(r); ok {
		r.class, r.classKnown, r.classGuessed = c<<8, true, true
		return true
	}
	return false
}

// idsFromName takes the IDs lspci prints in a name where pci.ids has
// none: "Device 1234:1111" (vendor unknown too), "NVIDIA Corporation
// Device 2335" (a device of a known vendor).
func idsFromName(r *rec) {
	if r.devKnown {
		return
	}
	if rest, ok := strings.CutPrefix(r.name, "Device "); ok && !r.vendorKnown {
		if v, d, ok := parseIDPair(rest); ok {
			r.vendor, r.device, r.vendorKnown, r.devKnown = uint16(v), uint16(d), true, true
		}
		return
	}
	if i := strings.LastIndex(r.name, " Device "); r.vendorKnown && i >= 0 {
		if d, err := strconv.ParseUint(r.name[i+8:], 16, 16); err == nil && len(r.name[i+8:]) == 4 {
			r.device, r.devKnown = uint16(d), true
		}
	}
}

// merge copies what src knows and dst does not.
func merge(dst, src *rec) {
	if src.name != "" && dst.name == "" {
		dst.name = src.name
	}
	if src.classKnown && (!dst.classKnown || dst.classGuessed || !dst.progKnown && src.progKnown) {
		dst.class, dst.classKnown, dst.classGuessed, dst.progKnown = src.class, true, src.classGuessed, src.progKnown
	}
	if src.vendorKnown && !dst.vendorKnown {
		dst.vendor, dst.vendorKnown = src.vendor, true
	}
	if src.devKnown && !dst.devKnown {
		dst.device, dst.devKnown = src.device, true
	}
	if src.subKnown && !dst.subKnown {
		dst.subVendor, dst.subDevice, dst.subKnown = src.subVendor, src.subDevice, true
	}
	if src.bridge && (!dst.bridge || dst.sec < 0) {
		dst.bridge, dst.sec, dst.sub = true, src.sec, src.sub
	}
	if src.placed && !dst.placed {
		dst.placed, dst.parent, dst.hasParent, dst.hbDom, dst.hbBus = true, src.parent, src.hasParent, src.hbDom, src.hbBus
	}
	if src.numaKnown && !dst.numaKnown {
		dst.numa, dst.numaKnown = src.numa, true
	}
	if dst.driver == "" {
		dst.driver = src.driver
	}
	if dst.at == "" {
		dst.at = src.at
	}
	if dst.verboseAt == "" {
		dst.verboseAt = src.verboseAt
	}
	if dst.iommu == "" {
		dst.iommu = src.iommu
	}
	if src.roleKnown && !dst.roleKnown {
		dst.role, dst.roleKnown = src.role, true
	}
	l, s := &dst.link, src.link
	if l.CurrentWidth == 0 && s.CurrentWidth != 0 {
		l.CurrentGTs, l.CurrentWidth = s.CurrentGTs, s.CurrentWidth
	}
	if l.MaxWidth == 0 && s.MaxWidth != 0 {
		l.MaxGTs, l.MaxWidth = s.MaxGTs, s.MaxWidth
	}
	if src.devCtlKnown && !dst.devCtlKnown {
		dst.maxPayload, dst.maxReadReq, dst.relaxedOrdering, dst.devCtlKnown = src.maxPayload, src.maxReadReq, src.relaxedOrdering, true
	}
	if src.acsKnown && !dst.acsKnown {
		dst.acsKnown, dst.acsRedirect = true, src.acsRedirect
	}
	dst.capsSeen = dst.capsSeen || src.capsSeen
	dst.noCaps = dst.noCaps || src.noCaps
	dst.denied = dst.denied || src.denied
	dst.looped = dst.looped || src.looped
	dst.cut = dst.cut || src.cut
	if dst.bars == nil {
		dst.bars = src.bars
	}
	dst.configLen = max(dst.configLen, src.configLen)
	if !dst.sriov.known() && src.sriov.known() {
		dst.sriov = src.sriov
	}
}

// resolve gives short addresses their domain: 0000, unless the tree holds
// that bus only in one other domain.
func (p *parser) resolve() map[topology.BDF]*rec {
	busDoms := map[uint8]map[uint32]bool{}
	for a := range p.recs {
		if busDoms[a.Bus] == nil {
			busDoms[a.Bus] = map[uint32]bool{}
		}
		busDoms[a.Bus][a.Domain] = true
	}
	dom := func(bus uint8) uint32 {
		if d := busDoms[bus]; len(d) == 1 {
			for x := range d {
				return x
			}
		}
		return 0
	}
	out := make(map[topology.BDF]*rec, len(p.recs)+len(p.shorts))
	for a, r := range p.recs {
		out[a] = r
	}
	for _, r := range p.order {
		if !r.short {
			continue
		}
		r.addr.Domain = dom(r.addr.Bus)
		if r.hasParent {
			r.parent.Domain = r.addr.Domain
		}
		if r.placed {
			r.hbDom = r.addr.Domain
		}
		if x := out[r.addr]; x != nil {
			merge(x, r)
		} else {
			out[r.addr] = r
		}
	}
	return out
}

// build turns the records into a graph.
func (p *parser) build() *topology.Graph {
	recs := p.resolve()
	g := &topology.Graph{TextForm: "lspci"}
	// A function no listing described takes the class and IDs of one with
	// the same model name (the tree's other functions of a listed device).
	byName := map[string]*rec{}
	for _, r := range recs {
		if r.classKnown && !r.classGuessed && r.vendorKnown && r.name != "" {
			byName[r.name] = r
		}
	}
	guessed := 0
	for _, r := range recs {
		if classify(r, byName) {
			guessed++
		}
	}
	devs := make(map[topology.BDF]*topology.Device, len(recs))
	for a, r := range recs {
		d := topology.NewDevice(a)
		d.Name, d.Class, d.VendorID, d.DeviceID = r.name, r.class, r.vendor, r.device
		d.SubVendorID, d.SubDeviceID, d.SubsystemKnown = r.subVendor, r.subDevice, r.subKnown
		d.Driver, d.IOMMUGroup, d.Link = r.driver, r.iommu, r.link
		d.ConfigLen, d.BARs = r.configLen, r.bars
		d.ACSKnown, d.ACSRedirect = r.acsKnown || r.noCaps || r.capsSeen && !r.denied && !r.looped && !r.cut, r.acsRedirect
		d.MaxPayload, d.MaxReadRequest, d.RelaxedOrdering, d.DevCtlKnown = r.maxPayload, r.maxReadReq, r.relaxedOrdering, r.devCtlKnown
		d.Kind = topology.KindOf(d.Class, d.VendorID, d.DeviceID)
		if r.verboseAt != "" {
			d.SetSeen(r.verboseAt) // where its link, ACS and DevCtl lines are
		} else {
			d.SetSeen(r.at)
		}
		if r.roleKnown {
			d.Role, d.RoleFrom = r.role, topology.RoleFromConfig
		}
		if r.numaKnown {
			d.NUMANode, d.RawNUMANode, d.NUMAFrom = r.numa, r.numa, topology.NUMAFromFile
		}
		devs[a] = d
		g.Devices = append(g.Devices, d)
	}
	sort.Slice(g.Devices, func(i, j int) bool { return g.Devices[i].Addr.Less(g.Devices[j].Addr) })
	p.virtualFunctions(g, recs, devs)
	p.place(g, recs, devs)
	g.Finish()
	for _, d := range g.Devices {
		if d.Kind == topology.KindBridge && d.RoleFrom == "" {
			d.Role, d.RoleFrom = topology.StructuralRole(d), topology.RoleFromStructure
		}
	}
	p.system(g)
	p.lacks(g, guessed)
	if len(p.fragSkipped) > 0 {
		names := make([]string, 0, len(p.fragSkipped))
		for _, r := range p.fragSkipped {
			classify(r, byName)
			name := r.name
			if r.bridge {
				name = "bridge" // its line names its child
			}
			names = append(names, name)
			g.Skipped = append(g.Skipped, topology.SkippedFunction{Name: name, Kind: topology.KindOf(r.class, r.vendor, r.device)})
		}
		p.warnings[p.fragWarning].Message = fmt.Sprintf("tree fragment: %s whose bus is not in the input skipped: %s",
			words.Count(len(p.fragSkipped), "function"), words.CountedNames(names))
	}
	g.Warnings = append(g.Warnings, p.warnings...)
	return g
}

// place sets each device's parent and host bridge: from the tree or -PP
// where they gave it, else from the bridges' bus ranges.
func (p *parser) place(g *topology.Graph, recs map[topology.BDF]*rec, devs map[topology.BDF]*topology.Device) {
	var bridges []*rec
	for _, r := range recs {
		if r.bridge && r.sec > int(r.addr.Bus) && r.sub >= r.sec {
			bridges = append(bridges, r)
		}
	}
	sort.Slice(bridges, func(i, j int) bool { return bridges[i].addr.Less(bridges[j].addr) })
	hbs := map[[2]uint32]*topology.HostBridge{}
	hostBridge := func(dom uint32, bus uint8) *topology.HostBridge {
		k := [2]uint32{dom, uint32(bus)}
		if hbs[k] == nil {
			hbs[k] = &topology.HostBridge{Name: fmt.Sprintf("pci%04x:%02x", dom, bus), Domain: dom, Bus: bus, NUMANode: -1, Socket: -1}
			g.HostBridges = append(g.HostBridges, hbs[k])
		}
		return hbs[k]
	}
	if len(bridges) == 0 && !anyPlaced(recs) {
		// Plain lspci: a list of functions with no tree, no -PP paths and no
		// bus ranges. A function on a root bus hangs from its host bridge:
		// bus 00 of a domain is one, and so is any bus holding a host
		// bridge function (class 0600). Where the others hang is unknown,
		// and no host bridge is made up for them.
		root := map[[2]uint32]bool{}
		for _, d := range g.Devices {
			if d.Class>>8 == 0x0600 {
				root[[2]uint32{d.Addr.Domain, uint32(d.Addr.Bus)}] = true
			}
		}
		for _, d := range g.Devices {
			if d.Addr.Bus == 0 || root[[2]uint32{d.Addr.Domain, uint32(d.Addr.Bus)}] {
				d.HostBridge = hostBridge(d.Addr.Domain, d.Addr.Bus)
			} else {
				d.PlaceUnknown = true
			}
		}
		return
	}
	for _, d := range g.Devices {
		r := recs[d.Addr]
		if r.placed {
			if r.hasParent {
				d.Parent = devs[r.parent]
			}
			d.HostBridge = hostBridge(r.hbDom, r.hbBus)
			continue
		}
		// The narrowest bridge range holding the bus, from a bridge on a
		// lower bus, so that parents never loop.
		var best *rec
		for _, b := range bridges {
			if b.addr.Domain == d.Addr.Domain && b.addr.Bus < d.Addr.Bus && b.sec <= int(d.Addr.Bus) && int(d.Addr.Bus) <= b.sub &&
				(best == nil || b.sub-b.sec < best.sub-best.sec) {
				best = b
			}
		}
		if best != nil {
			d.Parent = devs[best.addr]
		}
	}
	// Cut loops a malformed tree could make, then give range-placed devices
	// the host bridge of their top ancestor.
	for _, d := range g.Devices {
		top, n := d, 0
		for top.Parent != nil && n <= len(g.Devices) {
			top, n = top.Parent, n+1
		}
		if n > len(g.Devices) {
			p.warnings = append(p.warnings, topology.Warning{Subject: d.BDF(), Message: "parents loop: placed on its own bus"})
			d.Parent, top = nil, d
		}
		if d.HostBridge == nil {
			if top.HostBridge != nil {
				d.HostBridge = top.HostBridge
			} else {
				d.HostBridge = hostBridge(top.Addr.Domain, top.Addr.Bus)
				top.HostBridge = d.HostBridge
			}
		}
	}
}

func anyPlaced(recs map[topology.BDF]*rec) bool {
	for _, r := range recs {
		if r.placed {
			return true
		}
	}
	return false
}

// system fills NUMA nodes from numactl text, else from the ids seen.
func (p *parser) system(g *topology.Graph) {
	c := p.cpu
	g.System.CPUModel, g.System.CPUVendor, g.System.Sockets, g.System.LogicalCPUs = c.model, c.vendor, c.sockets, c.cpus
	g.System.CPUFamily, g.System.CPUModelID = -1, -1
	if c.familyKnown && c.modelKnown {
		g.System.CPUFamily, g.System.CPUModelID = c.family, c.modelID
	}
	switch {
	case len(p.numaNodes) > 0:
		g.System.NUMANodes = p.numaNodes
	case c.nodes > 0 && c.nodes <= 4096:
		// lscpu counts the nodes and lists each one's CPUs; it does not say
		// which package a node is on.
		ids := make([]int, 0, c.nodes)
		for id := range c.nodeCPUs {
			ids = append(ids, id)
		}
		if len(ids) != c.nodes { // no per-node lines: Linux numbers nodes from 0
			ids = ids[:0]
			for id := range c.nodes {
				ids = append(ids, id)
			}
		}
		sort.Ints(ids)
		for _, id := range ids {
			g.System.NUMANodes = append(g.System.NUMANodes, topology.NUMANode{ID: id, CPUs: c.nodeCPUs[id], Socket: -1})
		}
		if c.sockets == 1 {
			for i := range g.System.NUMANodes {
				g.System.NUMANodes[i].Socket = 0
			}
		}
	default:
		seen := map[int]bool{}
		for _, d := range g.Devices {
			if d.RawNUMANode >= 0 && !seen[d.RawNUMANode] {
				seen[d.RawNUMANode] = true
				g.System.NUMANodes = append(g.System.NUMANodes, topology.NUMANode{ID: d.RawNUMANode, Socket: -1})
			}
		}
		sort.Slice(g.System.NUMANodes, func(i, j int) bool { return g.System.NUMANodes[i].ID < g.System.NUMANodes[j].ID })
		g.System.NUMANodesPartial = len(seen) > 0 // nodes no device named may exist
	}
	for _, hb := range g.HostBridges {
		hb.Socket = g.System.NodeSocket(hb.NUMANode)
	}
}

// lacks says what the dump did not tell, and sets g.Partial where it is a
// tree fragment or lines were left out of it.
func (p *parser) lacks(g *topology.Graph, guessed int) {
	numa, acs, link := false, false, false
	unplaced := 0
	for _, d := range g.Devices {
		if d.PlaceUnknown {
			unplaced++
		}
	}
	if unplaced > 0 && p.sawTree || len(p.fragSkipped) > 0 {
		g.Partial = "a tree fragment: give the whole lspci -tv"
	}
	switch {
	case unplaced > 0 && p.sawTree:
		g.Lacks = append(g.Lacks, fmt.Sprintf("the PCI hierarchy above %s (a tree fragment: the buses above them are not in the input; give the whole lspci -tv)", words.Count(unplaced, "function")))
	case unplaced > 0:
		g.Lacks = append(g.Lacks, "the PCI hierarchy (this lspci output lists functions, not how they connect: no path labels; capture lspci -tv, or sudo lspci -vvv of every function)")
	case len(p.fragSkipped) > 0:
		g.Lacks = append(g.Lacks, fmt.Sprintf("the rest of the PCI tree (a tree fragment: %s whose bus is not in the input skipped; give the whole lspci -tv)", words.Count(len(p.fragSkipped), "function")))
	}
	if p.cutAt != "" {
		if g.Partial == "" {
			g.Partial = "lines left out at " + p.cutAt + ": give the whole lspci output"
		}
		g.Lacks = append(g.Lacks, "the functions left out at "+p.cutAt+` (a line such as "..." stands for lines cut from the output; give it whole)`)
	}
	for _, d := range g.Devices {
		numa = numa || d.RawNUMANode >= 0
		acs = acs || d.ACSKnown
		link = link || d.Link.Known()
	}
	if !numa && len(g.System.NUMANodes) == 0 {
		g.Lacks = append(g.Lacks, "NUMA nodes (no NUMA node lines: lspci -tv has none, so NODE and SYS cannot be told; add numactl -H or lscpu, and sudo lspci -vvv)")
	} else if !numa && len(g.System.NUMANodes) > 1 {
		g.Lacks = append(g.Lacks, "NUMA nodes of devices (no NUMA node lines in the lspci output)")
	}
	if !acs {
		g.Lacks = append(g.Lacks, "ACS (no ACSCtl lines: lspci -vvv as root shows them)")
	}
	if !link {
		g.Lacks = append(g.Lacks, "link state (no LnkSta lines)")
	}
	if p.sawDenied {
		g.Lacks = append(g.Lacks, "capabilities of some functions (Capabilities: <access denied>: run lspci as root)")
	}
	if guessed > 0 {
		g.Lacks = append(g.Lacks, fmt.Sprintf("device classes of %d functions (guessed from names: lspci -tv shows no classes)", guessed))
	}
}
