// Package hwloc reads hwloc's views of a machine into a topology.Graph: the
// XML that `lstopo --of xml` and hwloc-gather-topology write (hwloc 1.x and
// 2.x formats) and lstopo's console text as people paste it.
//
// hwloc keeps the bridges and host bridges on the way to the devices it
// keeps (hwloc's "I/O Devices" documentation), so the graph has the same
// shape as one read from sysfs, less what hwloc filters out (unimportant
// devices, bridges leading nowhere) and what it never records: config space
// (ACS, DevCtl), numa_node files and maximum links.
package hwloc

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/gdtopo/gdtopo/topology"
)

// Limits on input.
const (
	maxInput = 64 << 20 // bytes
	maxDepth = 256      // object nesting
)

// object is one hwloc object, from XML or console text alike.
type object struct {
	typ      string // Machine, Package, NUMANode, Group, PU, HostBridge, PCIBridge, PCI, OSDev, or hwloc's own word
	osIndex  int    // P#, -1 unknown
	lIndex   int    // L#, -1 unknown
	cpus     []int  // cpuset
	nodes    []int  // nodeset
	hasCPUs  bool
	hasNodes bool
	busid    string // "0000:1a:00.0"
	buses    string // "0000:[17-1e]"
	class    int    // 16-bit class, -1 unknown
	vendor   int    // -1 unknown
	device   int
	subVen   int // -1 unknown
	subDev   int
	link     string // GB/s as written
	name     string // OS device name
	osdev    string // "rdma", "net" or ""
	subtype  string // a PCI device's hwloc subtype ("NVSwitch"), XML only
	infos    map[string]string
	line     int // console line, 0 for XML
	children []*object
	// cut: console text left lines out right below o ("..."); cutCPUs:
	// o's CPUs, the union of its PUs', are then not all known.
	cut, cutCPUs bool
}

func newObject(typ string) *object {
	return &object{typ: typ, osIndex: -1, lIndex: -1, class: -1, vendor: -1, device: -1, subVen: -1, subDev: -1}
}

// isIO reports whether o is an I/O object (no locality of its own).
func (o *object) isIO() bool {
	switch o.typ {
	case "HostBridge", "PCIBridge", "PCI", "OSDev", "Misc":
		return true
	}
	return false
}

// checkInput rejects what is no text input at all.
func checkInput(kind, name string, data []byte) error {
	switch {
	case len(bytes.TrimSpace(data)) == 0:
		return fmt.Errorf("%s: empty input, not %s", name, kind)
	case len(data) > maxInput:
		return fmt.Errorf("%s: input over %d MiB, not read as %s", name, maxInput>>20, kind)
	case isBinary(data):
		return fmt.Errorf("%s: binary data, not %s", name, kind)
	}
	return nil
}

func isBinary(data []byte) bool {
	n := min(len(data), 4096)
	for _, c := range data[:n] {
		if c == 0 || c < 0x20 && c != '\n' && c != '\r' && c != '\t' {
			return true
		}
	}
	return false
}

// builder turns an object tree into a graph.
type builder struct {
	name    string
	g       *topology.Graph
	devs    map[topology.BDF]*topology.Device
	hbs     map[string]*topology.HostBridge
	ambig   []string // devices whose GB/s fits several links
	unnamed int      // bridges without a bus ID, placed by position
	noIDs   bool     // devices without vendor IDs
	noSubs  bool     // bridges without subsystem IDs
	pkgs    map[int]bool
	nodes   map[int]*topology.NUMANode
	pus     int
	// linkGBs is each generation and width's GB/s as %.2f prints it,
	// lanes by topology.LinkWidths, made on first use.
	linkGBs []string
}

func build(name string, root *object, version string) (*topology.Graph, error) {
	b := &builder{name: name, g: &topology.Graph{}, devs: map[topology.BDF]*topology.Device{},
		hbs: map[string]*topology.HostBridge{}, pkgs: map[int]bool{}, nodes: map[int]*topology.NUMANode{}}
	b.g.System.CPUFamily, b.g.System.CPUModelID = -1, -1
	b.g.TextForm = "hwloc XML"
	if version == "lstopo console text" {
		b.g.TextForm = "lstopo"
	}
	fillSets(root)
	b.walk(root, nil, nil, nil, -1, 0)
	if len(b.g.Devices) == 0 {
		return nil, fmt.Errorf("%s: %w in this %s", name, topology.ErrNoPCI, version)
	}
	for _, n := range b.nodes {
		b.g.System.NUMANodes = append(b.g.System.NUMANodes, *n)
	}
	sort.Slice(b.g.System.NUMANodes, func(i, j int) bool { return b.g.System.NUMANodes[i].ID < b.g.System.NUMANodes[j].ID })
	b.g.System.Sockets, b.g.System.LogicalCPUs = len(b.pkgs), b.pus
	if root.cutCPUs {
		b.g.System.LogicalCPUs = 0 // PUs left out: the count is not known
	}
	b.g.Finish()
	for _, hb := range b.g.HostBridges {
		for _, d := range hb.Devices {
			setRoles(d)
		}
	}
	for _, d := range b.g.Devices {
		if d.Parent == nil && d.HostBridge == nil {
			setRoles(d)
		}
	}
	lacks := []string{"config space (ACS, DevCtl unknown)", "max link state (hwloc records the current link only)",
		"numa_node files (NCCL's CPU taken from hwloc's locality)", "devices hwloc filtered out as unimportant"}
	if len(b.ambig) > 0 {
		lacks = append(lacks, fmt.Sprintf("link generation and width of %d devices (hwloc's GB/s fits several, e.g. 15.75 = Gen3 x16, Gen4 x8 or Gen5 x4: the rate is used)", len(b.ambig)))
	}
	if b.unnamed > 0 {
		lacks = append(lacks, fmt.Sprintf("bridge bus IDs (console without -v: %d bridges named by their line, bridge@lineN; roles taken from the tree's shape)", b.unnamed))
	}
	if b.noIDs {
		lacks = append(lacks, "vendor and device IDs (console without -v)")
	}
	if b.unnamed > 0 && b.noIDs {
		lacks = append(lacks, "bridge vendor IDs (NCCL's flattening of Broadcom PEX88xxx/PEX89xxx switches unknown: its labels may read PXB for PIX)")
	}
	if b.noSubs {
		lacks = append(lacks, "subsystem IDs of Broadcom switches (NCCL's PEX88xxx/PEX89xxx flattening unknown: its labels may read PXB for PIX)")
	}
	b.g.Lacks = append(b.g.Lacks, lacks...)
	if b.g.TextForm == "hwloc XML" && ioFiltered(b.g) {
		b.g.Partial = "an hwloc export without its I/O devices: accelerators but no network or storage controller, which hwloc keeps by default; export with every I/O device: lstopo --whole-io --of xml FILE.xml"
	}
	return b.g, nil
}

// ioFiltered reports an XML export that holds accelerators but no network or
// storage controller. hwloc's default I/O filter (HWLOC_TYPE_FILTER_KEEP_IMPORTANT,
// hwloc's pci-common.c hwloc_filter_check_pcidev_subtype_important) keeps
// both classes, and a machine boots from one or the other, so the export
// was made with I/O filtered (or cut by hand): it cannot say there are no
// NICs.
func ioFiltered(g *topology.Graph) bool {
	accels := false
	for _, d := range g.Devices {
		base := d.Class >> 16
		if d.Kind == topology.KindNIC || d.Kind == topology.KindNVMe || base == 0x01 || base == 0x02 || d.Class>>8 == 0x0c06 {
			return false
		}
		accels = accels || d.Kind == topology.KindAccelerator
	}
	return accels
}

// fillSets gives objects without a cpuset or nodeset (console text) the
// union of their normal descendants', and returns o's.
func fillSets(o *object) ([]int, []int) {
	var cpus, nodes []int
	if o.typ == "PU" && o.osIndex >= 0 {
		cpus = []int{o.osIndex}
	}
	if o.typ == "NUMANode" && o.osIndex >= 0 {
		nodes = []int{o.osIndex}
	}
	cut := o.cut
	for _, c := range o.children {
		cc, cn := fillSets(c)
		if !c.isIO() {
			cpus, nodes = append(cpus, cc...), append(nodes, cn...)
			cut = cut || c.cutCPUs
		}
	}
	if !o.hasCPUs {
		o.cpus, o.cutCPUs = uniq(cpus), cut
	}
	if !o.hasNodes {
		o.nodes = uniq(nodes)
	}
	return o.cpus, o.nodes
}

func uniq(s []int) []int {
	sort.Ints(s)
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

func (b *builder) warn(subject, msg string) {
	b.g.Warnings = append(b.g.Warnings, topology.Warning{Subject: subject, Message: msg})
}

func (b *builder) where(o *object) string {
	if o.line > 0 {
		return fmt.Sprintf("%s line %d", b.name, o.line)
	}
	return b.name
}

// walk visits o below the normal object normal, host bridge hb and bridge
// device parent; pkg is the enclosing Package's OS index.
func (b *builder) walk(o, normal *object, hb *topology.HostBridge, parent *topology.Device, pkg, depth int) {
	if depth > maxDepth {
		b.warn(b.where(o), fmt.Sprintf("objects nested over %d deep: rest skipped", maxDepth))
		return
	}
	switch o.typ {
	case "HostBridge":
		hb, parent = b.hostBridge(o), nil
		if pkg >= 0 && hb.Socket < 0 && hb.NUMANode < 0 {
			hb.Socket = pkg // hwloc puts I/O under the Package its locality is in
		}
	case "PCIBridge", "PCI":
		if o.busid == "" {
			if o.typ != "PCIBridge" {
				b.warn(b.where(o), "PCI device without a bus ID: skipped")
				return
			}
			// lstopo without -v prints bridges without their bus IDs; the
			// indentation still says what is below each, so the bridge
			// stays, named by its line.
			if d := b.positional(o, normal, hb, parent); d != nil {
				parent = d
			}
			break
		}
		if d := b.device(o, normal, hb, parent); d != nil {
			parent = d
		}
	case "OSDev":
	default:
		b.normal(o, normal, pkg)
		normal = o
		if o.typ == "Package" {
			pkg = o.osIndex
			if pkg < 0 {
				pkg = o.lIndex
			}
		}
	}
	for _, c := range o.children {
		b.walk(c, normal, hb, parent, pkg, depth+1)
	}
}

// normal records what a non-I/O object tells about the system.
func (b *builder) normal(o, parent *object, pkg int) {
	s := &b.g.System
	switch o.typ {
	case "Package":
		idx := o.osIndex
		if idx < 0 {
			idx = o.lIndex
		}
		b.pkgs[idx] = true
	case "PU":
		b.pus++
	case "NUMANode":
		if o.osIndex < 0 {
			break
		}
		n := &topology.NUMANode{ID: o.osIndex, Socket: pkg}
		cpus := o.cpus
		if len(cpus) == 0 && parent != nil && countType(parent.children, "NUMANode") == 1 {
			cpus = parent.cpus
		}
		if !o.cutCPUs && (parent == nil || !parent.cutCPUs) {
			n.CPUs = cpuList(cpus)
		}
		if pkg < 0 { // hwloc 1.x: the node holds its package
			var ps []int
			for _, c := range o.children {
				if c.typ == "Package" {
					ps = append(ps, c.osIndex)
				}
			}
			if len(ps) == 1 {
				n.Socket = ps[0]
			}
		}
		b.nodes[n.ID] = n
	}
	info := func(k string) string { return o.infos[k] }
	if s.CPUModel == "" && info("CPUModel") != "" {
		s.CPUModel = info("CPUModel")
	}
	if s.CPUVendor == "" {
		s.CPUVendor = info("CPUVendor")
	}
	if s.CPUArch == "" {
		s.CPUArch = ncclArch(info("Architecture"))
	}
	if f := info("CPUFamilyNumber"); f != "" && s.CPUFamily < 0 {
		if v, err := strconv.Atoi(f); err == nil {
			s.CPUFamily = v
		}
	}
	if m := info("CPUModelNumber"); m != "" && s.CPUModelID < 0 {
		if v, err := strconv.Atoi(m); err == nil {
			s.CPUModelID = v
		}
	}
	if s.Hostname == "" {
		s.Hostname = info("HostName")
	}
}

// nodesSpan reports whether every NUMA node of o is a memory child of o
// spanning o's CPUs (a Grace with its GPUs' memory nodes): o's CPUs then
// belong to one of them (Linux gives each CPU one node), and I/O local to
// o is local to that node.
func nodesSpan(o *object) bool {
	if len(o.cpus) == 0 {
		return false
	}
	n := 0
	for _, c := range o.children {
		if c.typ != "NUMANode" {
			continue
		}
		if len(c.cpus) > 0 && !slices.Equal(c.cpus, o.cpus) {
			return false
		}
		n++
	}
	return n == len(o.nodes)
}

func countType(objs []*object, typ string) int {
	n := 0
	for _, o := range objs {
		if o.typ == typ {
			n++
		}
	}
	return n
}

// hostBridge makes the host bridge for o, named after the start of its bus
// range; a console without -v gives none, and the bridge is named by
// position.
func (b *builder) hostBridge(o *object) *topology.HostBridge {
	var dom, bus, end uint64
	if _, err := fmt.Sscanf(o.buses, "%x:[%x-%x]", &dom, &bus, &end); err != nil || dom > math.MaxUint32 || bus > 0xff {
		if o.buses != "" {
			b.warn(b.where(o), fmt.Sprintf("host bridge bus range %q unreadable", o.buses))
		}
		name := fmt.Sprintf("HostBridge#%d", len(b.g.HostBridges))
		hb := &topology.HostBridge{Name: name, NUMANode: -1, Socket: -1, Inferred: true}
		b.hbs[name] = hb
		b.g.HostBridges = append(b.g.HostBridges, hb)
		return hb
	}
	return b.hostBridgeAt(uint32(dom), uint8(bus), false)
}

func (b *builder) hostBridgeAt(dom uint32, bus uint8, inferred bool) *topology.HostBridge {
	name := fmt.Sprintf("pci%04x:%02x", dom, bus)
	if hb := b.hbs[name]; hb != nil {
		return hb
	}
	hb := &topology.HostBridge{Name: name, Domain: dom, Bus: bus, NUMANode: -1, Socket: -1, Inferred: inferred}
	b.hbs[name] = hb
	b.g.HostBridges = append(b.g.HostBridges, hb)
	return hb
}

// positional adds the bridge o, which has no bus ID, named by its line;
// nil when the graph holds no more stand-ins.
func (b *builder) positional(o, normal *object, hb *topology.HostBridge, parent *topology.Device) *topology.Device {
	d := topology.NewPositional(b.unnamed, o.line, b.where(o))
	if d == nil {
		b.warn(b.where(o), "too many bridges without bus IDs: devices below attached to the bridge above")
		return nil
	}
	b.unnamed++
	d.Parent, d.HostBridge, d.Class, d.Kind = parent, hb, 0x060400, topology.KindBridge
	if normal != nil && len(normal.nodes) == 1 { // hwloc's locality, as for the devices below it
		d.NUMANode, d.NUMAFrom, d.RawNUMANode = normal.nodes[0], topology.NUMAFromLocalCPUs, normal.nodes[0]
	}
	if hb == nil && parent == nil {
		b.warn(b.where(o), "bridge under no host bridge: its devices may be mislabelled")
	}
	b.devs[d.Addr] = d
	b.g.Devices = append(b.g.Devices, d)
	return d
}

// device adds the PCI function o; nil when it cannot.
func (b *builder) device(o, normal *object, hb *topology.HostBridge, parent *topology.Device) *topology.Device {
	addr, err := topology.ParseBDF(o.busid)
	if err != nil {
		b.warn(b.where(o), fmt.Sprintf("bus ID %q unreadable: device skipped", o.busid))
		return nil
	}
	d := topology.NewDevice(addr)
	d.Parent, d.HostBridge = parent, hb
	if o.line == 0 {
		d.SetSeen(b.name + " <object pci_busid=" + strconv.Quote(o.busid) + ">")
	} else {
		d.SetSeen(b.where(o))
	}
	if hb == nil {
		d.HostBridge = b.hostBridgeAt(addr.Domain, addr.Bus, true)
		b.warn(addr.String(), "under no host bridge: host bridge "+d.HostBridge.Name+" assumed")
	}
	if o.class >= 0 {
		d.Class = uint32(o.class) << 8
	}
	if o.vendor >= 0 {
		d.VendorID, d.DeviceID = uint16(o.vendor), uint16(o.device)
	} else {
		b.noIDs = true
	}
	if o.subVen >= 0 {
		d.SubVendorID, d.SubDeviceID, d.SubsystemKnown = uint16(o.subVen), uint16(o.subDev), true
	} else if o.vendor == topology.VendorBroadcom && o.class == 0x0604 {
		b.noSubs = true
	}
	d.Kind = topology.KindOf(d.Class, d.VendorID, d.DeviceID)
	if o.vendor < 0 && o.class == 0x0302 {
		d.Kind = topology.KindAccelerator // a 3D controller: a compute GPU whatever its vendor
	}
	if d.Kind == topology.KindOther && o.subtype == "NVSwitch" {
		d.Kind = topology.KindNVSwitch // hwloc's word for a function whose IDs it left at 0000:0000 (nvidiaDGX2.xml)
	}
	if normal != nil && len(normal.nodes) == 1 {
		d.NUMANode, d.NUMAFrom, d.RawNUMANode = normal.nodes[0], topology.NUMAFromLocalCPUs, normal.nodes[0]
	}
	if normal != nil && normal.typ != "Machine" && !normal.cutCPUs {
		d.LocalCPUs = cpuList(normal.cpus)
		if len(normal.nodes) > 1 && nodesSpan(normal) {
			d.LocalCPUsNode = true
			d.SetNUMANodeUnread(fmt.Sprintf("hwloc records no numa_node; the device is local to CPUs %s, of one of NUMA nodes %s", d.LocalCPUs, cpuList(normal.nodes)))
		}
	}
	d.Link = b.link(addr.String(), o.link)
	for _, c := range o.children {
		switch {
		case c.typ != "OSDev" || c.name == "":
		case c.osdev == "rdma":
			d.RDMA = append(d.RDMA, c.name)
		case c.osdev == "net":
			d.Netdevs = append(d.Netdevs, c.name)
		}
	}
	if old := b.devs[addr]; old != nil {
		if !important(d) || important(old) || b.hasChildren(old) || under(parent, old) {
			b.warn(addr.String(), "listed twice by hwloc: the second one skipped")
			return nil
		}
		b.warn(addr.String(), "listed twice by hwloc: the "+string(d.Kind)+" kept, the "+string(old.Kind)+" dropped")
		*old = *d
		return old
	}
	b.devs[addr] = d
	b.g.Devices = append(b.g.Devices, d)
	return d
}

func important(d *topology.Device) bool {
	return d.Kind == topology.KindAccelerator || d.Kind == topology.KindNIC
}

// under reports whether d is p or below it.
func under(d, p *topology.Device) bool {
	for ; d != nil; d = d.Parent {
		if d == p {
			return true
		}
	}
	return false
}

func (b *builder) hasChildren(p *topology.Device) bool {
	for _, d := range b.g.Devices {
		if d.Parent == p {
			return true
		}
	}
	return false
}

// Per-lane GB/s by generation, as hwloc computes pci_link_speed: GT/s ×
// encoding / 8 (8b/10b to Gen2, 128b/130b to Gen5, 242b/256b for Gen6).
var lanes = []struct{ gts, gbs float64 }{
	{2.5, 2.5 * 0.8 / 8}, {5, 5 * 0.8 / 8}, {8, 8 * 128 / 130.0 / 8}, {16, 16 * 128 / 130.0 / 8},
	{32, 32 * 128 / 130.0 / 8}, {64, 64 * 242 / 256.0 / 8},
}

// link turns hwloc's GB/s back into a generation and width when exactly
// one pair gives it to two decimals, and into a rate alone (RateOnly) when
// several pairs of one data rate do.
func (b *builder) link(subject, s string) topology.Link {
	s = strings.TrimSuffix(s, "GB/s")
	v, err := strconv.ParseFloat(s, 64)
	if s == "" || err == nil && v == 0 {
		return topology.Link{}
	}
	if err != nil || v < 0 || v > 1000 {
		b.warn(subject, fmt.Sprintf("link speed %q unreadable", s))
		return topology.Link{}
	}
	if b.linkGBs == nil {
		for _, ln := range lanes {
			for _, w := range topology.LinkWidths {
				b.linkGBs = append(b.linkGBs, strconv.FormatFloat(ln.gbs*float64(w), 'f', 2, 64))
			}
		}
	}
	var buf [24]byte
	want := strconv.AppendFloat(buf[:0], v, 'f', 2, 64) // as %.2f prints it
	var l topology.Link
	n := 0
	for i, ln := range lanes {
		for j, w := range topology.LinkWidths {
			if b.linkGBs[i*len(topology.LinkWidths)+j] != string(want) {
				continue
			}
			if n == 0 {
				l = topology.Link{CurrentGTs: ln.gts, CurrentWidth: w}
			}
			n++
		}
	}
	switch {
	case n == 1:
		return l
	case n == 0:
		b.warn(subject, fmt.Sprintf("link speed %s GB/s matches no PCIe generation and width", string(want)))
		return topology.Link{}
	}
	b.ambig = append(b.ambig, subject)
	if len(l.SameRate()) != n {
		return topology.Link{}
	}
	// Gen3 x16 and Gen4 x8 carry the same data: the rate is known.
	l.RateOnly = true
	return l
}

// setRoles gives bridges their structural role, parents first.
func setRoles(d *topology.Device) {
	if d.Kind == topology.KindBridge {
		d.Role, d.RoleFrom = topology.StructuralRole(d), topology.RoleFromStructure
	}
	for _, c := range d.Children {
		setRoles(c)
	}
}

// parseBitmap reads an hwloc bitmap ("0x00ff00ff", "0x000000ff,0xffffffff",
// ",," for zero words); an infinite one ("0xf...f,...") is refused.
func parseBitmap(s string) ([]int, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	if strings.Contains(s, "...") {
		return nil, errors.New("infinite bitmap")
	}
	if strings.Count(s, ",") >= 1024 {
		return nil, errors.New("bitmap too long")
	}
	var out []int
	// Words from the last (bits 0-31) to the first, each up to its comma.
	for i, end := 0, len(s); end >= 0; i++ {
		start := strings.LastIndexByte(s[:end], ',') + 1
		w := strings.TrimPrefix(strings.TrimSpace(s[start:end]), "0x")
		end = start - 1
		if w == "" {
			continue
		}
		v, err := strconv.ParseUint(w, 16, 32)
		if err != nil {
			return nil, fmt.Errorf("bad bitmap %q", s)
		}
		for bit := 0; bit < 32; bit++ {
			if v&(1<<bit) != 0 {
				out = append(out, i*32+bit)
			}
		}
	}
	return out, nil
}

// cpuList formats sorted CPU numbers as a kernel cpulist: "0-3,8".
func cpuList(cpus []int) string {
	var sb strings.Builder
	for i := 0; i < len(cpus); {
		j := i
		for j+1 < len(cpus) && cpus[j+1] == cpus[j]+1 {
			j++
		}
		if sb.Len() > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(strconv.Itoa(cpus[i]))
		if j > i {
			sb.WriteString("-" + strconv.Itoa(cpus[j]))
		}
		i = j + 1
	}
	return sb.String()
}

// ncclArch is NCCL's name for a machine hwloc's Architecture info names
// (uname's machine): x86_64, arm64 or ppc64; "" for others and none.
func ncclArch(machine string) string {
	switch {
	case machine == "x86_64":
		return "x86_64"
	case machine == "aarch64" || machine == "arm64":
		return "arm64"
	case strings.HasPrefix(machine, "ppc64"):
		return "ppc64"
	}
	return ""
}

// osdevKind says what an OS device name is: "rdma", "net" or "".
func osdevKind(name string) string {
	for _, p := range []string{"mlx4_", "mlx5_", "hfi1_", "qib", "bnxt_re", "irdma", "i40iw", "rdmap", "efa_", "rxe", "siw", "erdma", "ionic_", "cxgb4_", "qedr", "ocrdma", "hns_"} {
		if strings.HasPrefix(name, p) {
			return "rdma"
		}
	}
	for _, p := range []string{"ib", "eth", "en", "eno", "ens", "enp", "bond", "hsn", "wl", "em", "p1p", "p2p"} {
		if strings.HasPrefix(name, p) {
			return "net"
		}
	}
	return ""
}
