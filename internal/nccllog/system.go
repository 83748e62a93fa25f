package nccllog

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/gdtopo/gdtopo/internal/ncclxml"
	"github.com/gdtopo/gdtopo/topology"
)

// SystemPrint is one "=== System : maxBw ..." print of NCCL's topology
// (src/graph/topo.cc, ncclTopoPrint and ncclTopoPrintRec): each line's text
// after "NCCL INFO ", its indentation kept, as the tree is in it.
type SystemPrint struct {
	Header string      // "=== System : maxBw 24.0 totalBw 24.0 ==="
	Lines  []PrintLine // the tree, without header and closing line
	Whole  bool        // the closing "=====" line was read
	host   *Host
}

// PrintLine is one line of a print and where the log holds it.
type PrintLine struct {
	N    int // line number in the log
	Text string
}

// maxPrintLines bounds one print: NCCL prints a line per node and link, a
// few hundred for the largest hosts.
const maxPrintLines = 1 << 14

// FormSystem is the name gdtopo gives a tree read from NCCL's print.
const FormSystem = "NCCL topology print"

// systemLine follows the "=== System" prints: prefix tells one thread's
// lines from another's where ranks print at once, raw is the text after
// "NCCL INFO " (indented), msg the same trimmed.
func (p *parser) systemLine(h *Host, prefix, raw, msg string) {
	if strings.HasPrefix(msg, "=== System") {
		p.closePrint(prefix)
		if len(p.prints) < 64 {
			p.prints[prefix] = &SystemPrint{Header: msg, host: h}
		}
		return
	}
	sp := p.prints[prefix]
	if sp == nil {
		return
	}
	switch {
	case strings.HasPrefix(msg, "====="):
		sp.Whole = true
		p.closePrint(prefix)
	case !reNode.MatchString(strings.TrimLeft(raw, " ")) && !reLink.MatchString(strings.TrimLeft(raw, " ")):
		// another message within the print: a print is its own lines only
		p.closePrint(prefix)
	case len(sp.Lines) >= maxPrintLines:
		p.note(fmt.Sprintf("a topology print over %d lines: the rest left out", maxPrintLines))
		p.closePrint(prefix)
	default:
		sp.Lines = append(sp.Lines, PrintLine{N: p.log.Lines, Text: raw})
	}
}

// closePrint ends the print read under prefix; the host keeps its first
// whole print, else its first.
func (p *parser) closePrint(prefix string) {
	sp := p.prints[prefix]
	if sp == nil {
		return
	}
	delete(p.prints, prefix)
	if h := sp.host; h.System == nil || !h.System.Whole && sp.Whole {
		h.System = sp
	}
}

// closePrints ends the prints the log ends inside, in the log's order.
func (p *parser) closePrints() {
	keys := make([]string, 0, len(p.prints))
	for k := range p.prints {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		p.closePrint(k)
	}
}

var (
	// reNode is a node as ncclTopoPrintRec names it: TYPE/ID, where ID is
	// the bare id in hex ("%lX", NCCL up to 2.20) or system id and local id
	// ("%lx-%lx", 2.21 on), then a parenthesis for CPU, PCI, GPU, DEV and NET.
	reNode = lazy(`^([A-Z]{3})/([0-9A-Fa-f]+)(?:-([0-9A-Fa-f]+))?(?: \(([^)]*)\))?`)
	// reLink is "+ TYPE[bw] - " before the node a link goes to.
	reLink = lazy(`^\+ ([A-Z0-9]+)\[([0-9.]+)\] - `)
)

// node is one parsed node of a print line.
type node struct {
	typ   string // CPU, PCI, GPU, NIC, NET, NVS, DEV
	sys   int64  // system id (2.21 on); 0 before
	id    int64  // local id
	paren string // the parenthesis: CPU arch/vendor/model, PCI device, GPU rank, NET asic/port/bw
}

func parseNode(s string) (node, bool) {
	m := reNode.FindStringSubmatch(s)
	if m == nil {
		return node{}, false
	}
	n := node{typ: m[1], paren: m[4]}
	a, err := strconv.ParseUint(m[2], 16, 64)
	if err != nil {
		return node{}, false
	}
	if m[3] == "" {
		n.id = int64(a)
		return n, true
	}
	b, err := strconv.ParseUint(m[3], 16, 64)
	if err != nil {
		return node{}, false
	}
	n.sys, n.id = int64(a), int64(b)
	return n, true
}

// busID turns NCCL's int64 bus id back into an address as int64ToBusId
// does (src/misc/utils.cc): the hex digits of "dddd:bb:dd.f" without
// separators, so the low digit is the function, the two above it the
// device, the two above those the bus and the rest the domain. A GPU's
// id from NCCL 2.30 on holds its local rank on the device above bit 40
// (NCCL_TOPO_GPU_LOCAL_ID, src/graph/topo.h).
func busID(id int64) (topology.BDF, bool) {
	id &= 1<<40 - 1
	b := topology.BDF{Domain: uint32(id >> 20), Bus: uint8(id >> 12), Device: uint8(id >> 4), Function: uint8(id & 0xf)}
	if b.Device > 0x1f || b.Function > 7 || id>>20 > 0xffff {
		return b, false
	}
	return b, true
}

// CPU arch and vendor as NCCL numbers them (src/include/graph.h,
// NCCL_TOPO_CPU_ARCH_*, NCCL_TOPO_CPU_VENDOR_*), by the names its XML gives
// (src/graph/topo.cc, kvDictCpuArch, kvDictCpuVendor). Zhaoxin (3) stands
// for two vendor strings, so it is left unknown.
var (
	cpuArch   = map[string]string{"1": "x86_64", "2": "ppc64", "3": "arm64"}
	cpuVendor = map[string]string{"1": "GenuineIntel", "2": "AuthenticAMD"}
)

// systemLacks is what NCCL's print never holds.
var systemLacks = []string{
	"NIC names where the log's own NCCL list does not give them, and netdevs (NCCL prints its network devices by index only)",
	"PCIe link generation and width (NCCL prints each link's GB/s, width × a per-lane rate that several generation and width pairs give: link speeds unknown)",
	"GPUs outside NCCL's communicator, and NICs outside its network list (NCCL builds its topology from the ranks' GPUs and the net plugin's devices, then trims it: src/graph/paths.cc, ncclTopoTrimSystem)",
	"host bridges, root and downstream ports (NCCL keeps one node per switch, a CPU per NUMA node: PHB and NODE cannot be told)",
	"NVLink and xGMI link counts (NCCL prints their bandwidth, links × a per-link rate by GPU generation)",
	"config space (ACS, DevCtl, BARs unknown), IOMMU, drivers and peer-memory modules",
}

// SniffSystem reports whether data is NCCL INFO text holding a topology
// print, which ParseSystem reads: a print's header line, and NCCL's lines
// at least a fifth of the first 64 KiB's non-blank lines (a log pasted
// with some other output, not source code or prose that quotes a line).
func SniffSystem(data []byte) bool {
	if !bytes.Contains(data, []byte("NCCL INFO === System :")) {
		return false
	}
	yes, no := 0, 0
	for _, l := range bytes.Split(data[:min(len(data), 64<<10)], []byte("\n")) {
		switch l = bytes.TrimSpace(l); {
		case len(l) == 0:
		case bytes.Contains(l, []byte("NCCL INFO ")):
			yes++
		default:
			no++
		}
	}
	return yes > 0 && yes*4 >= no
}

// ParseSystem reads the log data, named name, and builds the tree of the
// first host whose topology print it holds.
func ParseSystem(name string, data []byte) (*topology.Graph, error) {
	l, err := Parse(name, bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	var with []*Host
	for _, h := range l.Hosts {
		if h.System != nil {
			with = append(with, h)
		}
	}
	if len(with) == 0 {
		return nil, fmt.Errorf("%s: an NCCL_DEBUG=INFO log without a topology print (=== System) gdtopo can read: gdtopo explain LOG [SOURCE] reads it", name)
	}
	g, err := l.SystemGraph(name, with[0])
	if err != nil {
		return nil, err
	}
	if len(with) > 1 {
		var others []string
		for _, h := range with[1:] {
			others = append(others, orDash(h.Name))
		}
		g.Warnings = append(g.Warnings, topology.Warning{Subject: name, Message: fmt.Sprintf("the log holds topology prints of %d hosts: the tree is host %s's; %s not read", len(with), orDash(with[0].Name), strings.Join(others, ", "))})
	}
	return g, nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// pending is one node of the tree being read: its element and the column
// its name starts at, where the lines of its links start.
type pending struct {
	col int
	el  *ncclxml.Element
	n   node
}

// SystemGraph builds the tree of host h's topology print, in NCCL's view
// (a CPU per NUMA node, a PCI node per switch) with what the print lacks.
func (l *Log) SystemGraph(name string, h *Host) (*topology.Graph, error) {
	sp := h.System
	if sp == nil {
		return nil, fmt.Errorf("%s: host %s printed no topology", name, orDash(h.Name))
	}
	b := &sysBuilder{name: name, links: map[topology.BDF][]string{}, xgmi: map[topology.BDF]bool{}}
	if h.Network != "Socket" { // sockets name netdevs, not RDMA devices
		b.nicName = func(dev int) string {
			for _, g := range h.GDR {
				if g.Index == dev && g.Name != "" {
					return g.Name
				}
			}
			return h.NICName("IB", dev)
		}
	}
	b.read(sp)
	lacks := append([]string{}, systemLacks...)
	if b.nets > 0 && b.named == b.nets {
		lacks = lacks[1:] // every NIC named from the host's own list
	}
	form := ncclxml.Form{Name: FormSystem, Lacks: append(lacks, b.lacks...), KindByElement: true,
		Retake: "give the whole NCCL_DEBUG=INFO log (NCCL_DEBUG_SUBSYS unset, or holding GRAPH)"}
	switch {
	case !sp.Whole:
		form.Partial = "the log ends inside NCCL's topology print"
	case b.broken > 0:
		form.Partial = fmt.Sprintf("%d line(s) of NCCL's topology print out of its tree (indentation lost or lines elided)", b.broken)
	}
	if sp.Whole && b.broken == 0 {
		form.NoNVLink = b.noNVLink()
	}
	b.amd()
	if n := b.portless(); n > 0 {
		b.warn(fmt.Sprintf("%d NIC(s) printed without their network ports: NCCL drops them when every rank of the communicator is on this host (src/graph/paths.cc, ncclTopoTrimSystem); their names and port rates are unknown", n))
	}
	g, err := ncclxml.Build(name, form, b.roots)
	if err != nil {
		return nil, err
	}
	g.System.Hostname = h.Name
	g.Warnings = append(g.Warnings, b.warnings...)
	return g, nil
}

type sysBuilder struct {
	name     string
	roots    []*ncclxml.Element
	gpus     []topology.BDF
	links    map[topology.BDF][]string // a GPU's NVLink or xGMI ends: "nvs", or a GPU's address
	xgmi     map[topology.BDF]bool     // GPUs with xGMI links
	broken   int
	sys      int64
	sysSeen  bool
	otherSys int
	lacks    []string
	warnings []topology.Warning
	c2c      int
	skipped  map[string]int
	// nicName names NCCL's network device dev from the host's own lines
	// ("GPU Direct RDMA Enabled for HCA dev 'name'", "NET/IB : Using
	// [dev]name:port"); nil for sockets.
	nicName func(dev int) string
	nets    int // NET nodes read
	named   int // of them, named from that list
}

func (b *sysBuilder) warn(msg string) {
	b.warnings = append(b.warnings, topology.Warning{Subject: b.name, Message: msg})
}

func (b *sysBuilder) read(sp *SystemPrint) {
	var stack []pending
	b.skipped = map[string]int{}
	for _, pl := range sp.Lines {
		text := pl.Text
		col := len(text) - len(strings.TrimLeft(text, " "))
		rest := text[col:]
		m := reLink.FindStringSubmatch(rest)
		if m == nil { // a CPU, at the root
			n, ok := parseNode(rest)
			if !ok || n.typ != "CPU" || col != 0 {
				b.broken++
				stack = nil
				continue
			}
			if !b.keep(n) {
				stack = nil
				continue
			}
			el := b.cpu(n, pl.N)
			b.roots = append(b.roots, el)
			stack = []pending{{col: 0, el: el, n: n}}
			continue
		}
		for len(stack) > 0 && stack[len(stack)-1].col > col {
			stack = stack[:len(stack)-1]
		}
		if len(stack) == 0 || stack[len(stack)-1].col != col {
			b.broken++
			continue
		}
		parent := &stack[len(stack)-1]
		bw := m[2]
		n, ok := parseNode(rest[len(m[0]):])
		if !ok {
			b.broken++
			continue
		}
		where := fmt.Sprintf("line %d", pl.N)
		if el := b.link(parent, m[1], bw, n, where); el != nil {
			parent.el.Subs = append(parent.el.Subs, el)
			stack = append(stack, pending{col: col + len(m[0]), el: el, n: n})
		}
	}
	if b.otherSys > 0 {
		b.warn(fmt.Sprintf("%d CPU node(s) of other systems in the print (an NVLink domain over several hosts): only the first system's tree is read", b.otherSys))
	}
	if b.c2c > 0 {
		b.lacks = append(b.lacks, fmt.Sprintf("%d C2C GPU-CPU links (not modelled: NCCL's C2C and P2C paths are not labelled)", b.c2c))
	}
	var kinds []string
	for k, n := range b.skipped {
		kinds = append(kinds, fmt.Sprintf("%d %s", n, k))
	}
	sort.Strings(kinds)
	if len(kinds) > 0 {
		b.warn("nodes of the print not read: " + strings.Join(kinds, ", "))
	}
}

// keep reports whether a CPU belongs to the system read (the first seen).
func (b *sysBuilder) keep(n node) bool {
	if !b.sysSeen {
		b.sys, b.sysSeen = n.sys, true
	}
	if n.sys != b.sys {
		b.otherSys++
		return false
	}
	return true
}

func (b *sysBuilder) cpu(n node, line int) *ncclxml.Element {
	a := map[string]string{"numaid": strconv.FormatInt(n.id, 10)}
	if f := strings.Split(n.paren, "/"); len(f) == 3 {
		if v := cpuArch[f[0]]; v != "" {
			a["arch"] = v
		}
		if v := cpuVendor[f[1]]; v != "" && a["arch"] == "x86_64" {
			a["vendor"] = v
		}
	}
	return &ncclxml.Element{Name: "cpu", Attrs: a, Desc: fmt.Sprintf("line %d: CPU/%d", line, n.id)}
}

// link reads one "+ TYPE[bw] - NODE" line under parent; it returns the
// element the line opens, or nil for a line that adds no PCI node.
func (b *sysBuilder) link(parent *pending, typ, bw string, n node, where string) *ncclxml.Element {
	switch {
	case typ == "PCI" && (n.typ == "PCI" || n.typ == "GPU" || n.typ == "NIC" || n.typ == "DEV"):
		if n.typ == "NIC" && parent.n.typ == "CPU" && bw == "5000.0" {
			// A NIC NCCL found no PCI device for hangs from the CPU at
			// LOC_BW (src/graph/topo.cc, ncclTopoAddCpu): no address.
			return &ncclxml.Element{Name: "nic", Desc: where + ": NIC without a PCI device"}
		}
		addr, ok := busID(n.id)
		if !ok {
			b.broken++
			return nil
		}
		desc := fmt.Sprintf("%s: %s/%s (PCI link %s GB/s as NCCL counts it)", where, n.typ, addr, bw)
		a := map[string]string{"busid": addr.String()}
		el := &ncclxml.Element{Name: "pci", Attrs: a, Desc: desc}
		switch n.typ {
		case "PCI":
			a["class"] = "0x060400" // NCCL's PCI nodes are its switches (kvDictPciClass)
			ids(a, n.paren)
		case "GPU":
			g := map[string]string{}
			if r, err := strconv.Atoi(strings.TrimSpace(n.paren)); err == nil {
				g["rank"] = strconv.Itoa(r)
			}
			el.Subs = append(el.Subs, &ncclxml.Element{Name: "gpu", Attrs: g})
			b.gpus = append(b.gpus, addr)
		case "DEV":
			// NCCL 2.30 and RCCL: a GPU device node, the GPUs of its
			// ranks hang from it with LOC links.
			ids(a, n.paren)
			el.Subs = append(el.Subs, &ncclxml.Element{Name: "gpu", Attrs: map[string]string{}})
			b.gpus = append(b.gpus, addr)
		case "NIC":
			el.Subs = append(el.Subs, &ncclxml.Element{Name: "nic", Attrs: map[string]string{}})
		}
		return el
	case typ == "NET" && n.typ == "NET":
		nic := parent.el
		if nic.Name == "pci" && len(nic.Subs) > 0 && nic.Subs[0].Name == "nic" {
			nic = nic.Subs[0]
		}
		if nic.Name != "nic" {
			b.broken++
			return nil
		}
		a := map[string]string{"dev": strconv.FormatInt(n.id, 10)}
		b.nets++
		// NET/n is NCCL's network device n (its XML's dev attribute is
		// the n of ncclNetGetProperties: src/graph/topo.cc,
		// ncclTopoGetSystem), the n of "GPU Direct RDMA ... for HCA n"
		// and the [n] of "NET/IB : Using".
		if b.nicName != nil && n.id < 1<<16 {
			if nm := b.nicName(int(n.id)); nm != "" {
				b.named++
				seen := false
				for _, x := range nic.Subs {
					seen = seen || x.Attrs["name"] == nm
				}
				if !seen {
					a["name"] = nm
				}
			}
		}
		// the parenthesis ends with the port and the speed in GB/s: NCCL
		// takes a port's Mb/s over 8000 (ncclTopoAddNet).
		if f := strings.Split(n.paren, "/"); len(f) >= 3 {
			a["port"] = f[len(f)-2]
			if gbs, err := strconv.ParseFloat(f[len(f)-1], 64); err == nil && gbs > 0 {
				a["speed"] = strconv.FormatFloat(gbs*8000, 'f', -1, 64)
			}
		}
		nic.Subs = append(nic.Subs, &ncclxml.Element{Name: "net", Attrs: a})
		return nil
	case typ == "NVL" || typ == "XGMI":
		var from topology.BDF
		switch parent.n.typ {
		case "GPU", "DEV":
			from, _ = busID(parent.n.id)
		default:
			b.skipped[typ+" links from "+parent.n.typ]++
			return nil
		}
		if typ == "XGMI" {
			b.xgmi[from] = true
		}
		switch n.typ {
		case "NVS":
			b.links[from] = append(b.links[from], "nvs")
		case "GPU", "DEV":
			to, _ := busID(n.id)
			b.links[from] = append(b.links[from], to.String())
		default:
			b.links[from] = append(b.links[from], n.typ)
		}
		return nil
	case typ == "SYS" && n.typ == "CPU", typ == "LOC":
		return nil // CPU to CPU; a DEV node's GPUs
	case typ == "C2C":
		b.c2c++
		return nil
	}
	b.skipped[typ+" links to "+n.typ]++
	return nil
}

// ids sets a PCI node's vendor and device from the 64 bits NCCL prints
// (vendor, device, subsystem vendor, subsystem device, 16 bits each:
// ncclTopoGetIntDevice). The subsystem of a Broadcom PEX switch is left
// out: NCCL rewrites it when it flattens the switch (ncclTopoFlattenBcmSwitches).
func ids(a map[string]string, paren string) {
	v, err := strconv.ParseUint(strings.TrimSpace(paren), 16, 64)
	if err != nil || v == 0 {
		return
	}
	vendor, device := v>>48, v>>32&0xffff
	a["vendor"] = fmt.Sprintf("0x%04x", vendor)
	a["device"] = fmt.Sprintf("0x%04x", device)
	if vendor == 0x1000 && (device == 0xc010 || device == 0xc030) {
		return
	}
	a["subsystem_vendor"] = fmt.Sprintf("0x%04x", v>>16&0xffff)
	a["subsystem_device"] = fmt.Sprintf("0x%04x", v&0xffff)
}

// amd marks the GPUs with xGMI links as AMD's: xGMI is AMD's fabric, and
// only RCCL prints it (ROCm/rccl src/graph/topo.cc, topoLinkTypeStr).
func (b *sysBuilder) amd() {
	for _, r := range b.roots {
		var walk func(e *ncclxml.Element)
		walk = func(e *ncclxml.Element) {
			if e.Name == "pci" && e.Attrs["vendor"] == "" {
				if addr, err := topology.ParseBDF(e.Attrs["busid"]); err == nil && b.xgmi[addr] {
					e.Attrs["vendor"] = fmt.Sprintf("0x%04x", topology.VendorAMD)
				}
			}
			for _, c := range e.Subs {
				walk(c)
			}
		}
		walk(r)
	}
}

// portless counts the NICs of the tree without a NET line.
func (b *sysBuilder) portless() int {
	n := 0
	var walk func(e *ncclxml.Element)
	walk = func(e *ncclxml.Element) {
		if e.Name == "nic" && len(e.Subs) == 0 {
			n++
		}
		for _, c := range e.Subs {
			walk(c)
		}
	}
	for _, r := range b.roots {
		walk(r)
	}
	return n
}

// noNVLink lists the GPU pairs a whole print shows joined by no NVLink or
// xGMI: neither lists the other, and not both an NVSwitch. Joined pairs
// are left out, as their link count is unknown.
func (b *sysBuilder) noNVLink() [][2]topology.BDF {
	has := func(a topology.BDF, t string) bool {
		for _, x := range b.links[a] {
			if x == t {
				return true
			}
		}
		return false
	}
	var out [][2]topology.BDF
	for i, a := range b.gpus {
		for _, c := range b.gpus[i+1:] {
			if has(a, c.String()) || has(c, a.String()) || has(a, "nvs") && has(c, "nvs") {
				continue
			}
			out = append(out, [2]topology.BDF{a, c})
		}
	}
	return out
}
