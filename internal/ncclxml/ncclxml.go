// Package ncclxml reads NCCL topology XML (NCCL_TOPO_DUMP_FILE output and the
// NCCL_TOPO_FILEs that cloud providers and RCCL ship) into a topology.Graph in
// NCCL's view (src/graph/xml.cc, ncclTopoGetXmlFromSys): each <pci> element
// is one NCCL PCI node (a switch is already one node named after its
// upstream port, root and downstream ports are gone), and each <cpu>
// element, one per NUMA id, becomes a host bridge standing for NCCL's CPU
// node.
//
// Fragments pasted from issues (cut mid-file, not well-formed) are read
// token by token: what is there is kept, what was cut is not guessed.
package ncclxml

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gdtopo/gdtopo/internal/words"
	"github.com/gdtopo/gdtopo/topology"
)

// Limits on what Parse accepts.
const (
	MaxInput = 64 << 20 // bytes
	MaxDepth = 256      // nested elements
	// MaxElements bounds the elements of a file: NCCL's dumps hold a few
	// hundred, and topology.MaxFunctions <pci> with a child each fit. Past
	// it the parse would grow with the file's size (a <cpu> looks its
	// NUMA node up among those before it; a <net> its NIC's ports).
	MaxElements = 1 << 16
)

// maxCPUNodes is the most NUMA nodes Linux has: MAX_NUMNODES is
// 1 << NODES_SHIFT (include/linux/numa.h), and NODES_SHIFT is at most 10
// (arch/x86/Kconfig, config NODES_SHIFT).
const maxCPUNodes = 1 << 10

// classNVSwitch is the sysfs class NCCL gives an NVLink target that is an
// NVSwitch (kvDictPciClass in topo.cc); 0x068001 is a POWER9 CPU.
const (
	classNVSwitch = "0x068000"
	classNVCPU    = "0x068001"
)

// Lacks that every NCCL topology has.
var baseLacks = []string{
	"host bridges (NCCL's topology has CPU nodes only: PHB and NODE cannot be told)",
	"current link state (NCCL records max_link_*)",
	"root and downstream ports (NCCL keeps one node per switch)",
	"config space (ACS, DevCtl, BARs unknown)",
	"drivers, IOMMU groups and netdev names",
}

// Sniff reports whether data looks like NCCL topology XML: a <system>
// element, a <cpu> with numaid or a <pci> with busid near the start. It also
// claims NCCL graph files (<graphs>) and NCCL INFO prints of the topology,
// so that Parse can say what they are instead of a generic error.
func Sniff(data []byte) bool {
	head := data[:min(len(data), 64<<10)]
	if isInfoLog(head) {
		return share(head, func(l []byte) bool { return bytes.Contains(l, []byte("NCCL INFO")) })
	}
	if !share(head, isMarkup) {
		return false // source code or prose that quotes an element or two
	}
	for _, pat := range [][2]string{{"<system", ""}, {"<graphs", ""}, {"<cpu ", "numaid="}, {"<pci ", "busid="}} {
		if i := bytes.Index(head, []byte(pat[0])); i >= 0 {
			rest := head[i:]
			if end := bytes.IndexByte(rest, '>'); end >= 0 {
				rest = rest[:end]
			}
			if bytes.Contains(rest, []byte(pat[1])) {
				return true
			}
		}
	}
	return false
}

// gpuModel names a GPU whose <pci> gives no IDs from what its <gpu> says:
// RCCL's gcn attribute (gcnArchName such as "gfx942", or the older numeric
// gcnArch such as 906), else sm, which NCCL's ncclTopoGetXmlFromGpu
// (src/graph/xml.cc) writes as the compute capability's major*10+minor
// (RCCL's fork writes HIP's major and minor there too, so sm alone names
// no vendor).
func gpuModel(a map[string]string) string {
	switch gcn, sm := a["gcn"], a["sm"]; {
	case strings.HasPrefix(gcn, "gfx"):
		return "AMD GPU " + gcn
	case gcn != "":
		return "AMD GPU gcnArch " + gcn
	case sm != "":
		if v, err := strconv.Atoi(sm); err == nil && v > 0 && v < 1000 {
			return fmt.Sprintf("GPU, compute capability %d.%d", v/10, v%10)
		}
	}
	return ""
}

// share is the acceptance rule for a text input: at least a fifth of the
// non-blank lines of head are of the form (XML elements, NCCL INFO lines).
// Pastes run far above it; a Go file or a README that quotes a line or
// two, far below.
func share(head []byte, of func([]byte) bool) bool {
	yes, no := 0, 0
	for rest := head; rest != nil; {
		raw := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			raw, rest = rest[:i], rest[i+1:]
		} else {
			rest = nil
		}
		switch l := bytes.TrimSpace(raw); {
		case len(l) == 0:
		case of(l):
			yes++
		default:
			no++
		}
	}
	return yes*4 >= no
}

// isMarkup reports whether a trimmed line is XML: an element, a comment or
// the end of a tag that spans lines.
func isMarkup(l []byte) bool {
	return bytes.HasPrefix(l, []byte("<")) || bytes.HasSuffix(l, []byte(">")) || bytes.HasSuffix(l, []byte("-->"))
}

func isInfoLog(b []byte) bool {
	return bytes.Contains(b, []byte("NCCL INFO")) && bytes.Contains(b, []byte("=== System :"))
}

// frame is one open element.
type frame struct {
	name string
	desc string               // e.g. `<pci busid="0000:01:00.0">`, for warnings
	dev  *topology.Device     // pci
	hb   *topology.HostBridge // cpu
	gpu  *topology.Device     // gpu: the pci it belongs to
	nic  bool                 // nic
	nicD *topology.Device     // nic: its pci, nil when directly under a cpu
}

// link is one <nvlink> or <xgmi> element.
type link struct {
	from   *topology.Device
	target string
	count  int
	tclass string
}

type parser struct {
	name  string
	g     *topology.Graph
	stack []frame
	cpus  map[int]*topology.HostBridge
	// unplaced is the host bridge "cpu?" that <pci> elements outside any
	// <cpu> hang from: it stands for the part of the tree the text lacks.
	unplaced *topology.HostBridge
	devs     map[topology.BDF]*topology.Device
	hasGPU   map[*topology.Device]bool
	hasNIC   map[*topology.Device]bool
	cut      map[*topology.Device]bool // GPUs whose <gpu> element the text cuts off
	links    []link
	seenNCCL bool // a system, cpu or pci element
	unopened bool
	noClass  []string
	pcilinks int
	c2c      int
	form     *Form // set by Build; nil for XML
}

// Parse reads NCCL topology XML named name (for messages) into a graph with
// NCCLView set. An NCCL graph file, NCCL INFO log text, binary data or XML
// that is not NCCL's is an error naming the input; a fragment is read as far
// as it goes, with warnings.
func Parse(name string, data []byte) (*topology.Graph, error) {
	switch {
	case len(data) > MaxInput:
		return nil, fmt.Errorf("%s: %d bytes is over the %d MiB limit for an NCCL topology", name, len(data), MaxInput>>20)
	case len(bytes.TrimSpace(data)) == 0:
		return nil, fmt.Errorf("%s: empty input, not an NCCL topology", name)
	case bytes.IndexByte(data[:min(len(data), 8192)], 0) >= 0 || !utf8.Valid(data[:min(len(data), 8192)]):
		return nil, fmt.Errorf("%s: binary data, not an NCCL topology XML", name)
	case isInfoLog(data):
		return nil, fmt.Errorf("%s: NCCL INFO log text of the topology print, not XML: give NCCL_TOPO_DUMP_FILE output", name)
	}
	p := &parser{
		name:   name,
		g:      &topology.Graph{NCCLView: true, TextForm: "NCCL XML", System: topology.System{CPUFamily: -1, CPUModelID: -1}},
		cpus:   map[int]*topology.HostBridge{},
		devs:   map[topology.BDF]*topology.Device{},
		hasGPU: map[*topology.Device]bool{},
		hasNIC: map[*topology.Device]bool{},
		cut:    map[*topology.Device]bool{},
	}
	if err := p.read(data); err != nil {
		return nil, err
	}
	if !p.seenNCCL {
		return nil, fmt.Errorf("%s: not an NCCL topology (no <system>, <cpu> or <pci> element)", name)
	}
	if len(p.g.Devices) == 0 {
		return nil, fmt.Errorf("%s: NCCL topology with no <pci> devices", name)
	}
	p.finish()
	return p.g, nil
}

// Element is one node of NCCL's topology tree as a reader other than the
// XML one gives it (NCCL's INFO print of the topology): the XML element it
// stands for, by name and attributes, and its children.
type Element struct {
	Name  string            // cpu, pci, gpu, nic, net, nvlink, xgmi
	Attrs map[string]string // as the XML would hold them
	Desc  string            // how warnings name it; "" to make one from its attributes
	Subs  []*Element
}

// Form says what the text given to Build is, and what it never holds.
type Form struct {
	Name    string   // the graph's TextForm
	Lacks   []string // what the form never holds, for Graph.Lacks
	Retake  string   // what would hold the whole machine, for Graph.Partial
	Partial string   // why the text holds part of the machine; "" when nothing shows it
	// NoNVLink are accelerator pairs the text shows joined by no NVLink or xGMI.
	NoNVLink [][2]topology.BDF
	// KindByElement: a <pci> without class whose <gpu> or <nic> gives its
	// kind draws no warning (the form prints no class codes).
	KindByElement bool
}

// Build makes a graph in NCCL's view from elements another reader took
// from text named name, with what that form lacks; the XML's limits apply.
func Build(name string, form Form, roots []*Element) (*topology.Graph, error) {
	p := &parser{
		name:   name,
		g:      &topology.Graph{NCCLView: true, TextForm: form.Name, System: topology.System{CPUFamily: -1, CPUModelID: -1}},
		cpus:   map[int]*topology.HostBridge{},
		devs:   map[topology.BDF]*topology.Device{},
		hasGPU: map[*topology.Device]bool{},
		hasNIC: map[*topology.Device]bool{},
		cut:    map[*topology.Device]bool{},
		form:   &form,
	}
	if form.Partial != "" {
		p.g.Partial = form.Partial + ": " + form.Retake
	}
	elements := 0
	var walk func(e *Element) error
	walk = func(e *Element) error {
		if elements++; elements > MaxElements {
			return fmt.Errorf("%s: more than %d topology nodes", name, MaxElements)
		}
		if len(p.stack) >= MaxDepth {
			return fmt.Errorf("%s: topology nested deeper than %d nodes", name, MaxDepth)
		}
		p.open(e.Name, e.Attrs, e.Desc)
		if len(p.cpus) > maxCPUNodes {
			return fmt.Errorf("%s: more than %d CPU (NUMA) nodes (Linux has at most %d)", name, maxCPUNodes, maxCPUNodes)
		}
		if len(p.g.Devices) > topology.MaxFunctions {
			return fmt.Errorf("%s: %w", name, topology.ErrTooManyFunctions)
		}
		for _, c := range e.Subs {
			if err := walk(c); err != nil {
				return err
			}
		}
		p.end(e.Name)
		return nil
	}
	for _, r := range roots {
		if err := walk(r); err != nil {
			return nil, err
		}
	}
	if len(p.g.Devices) == 0 {
		return nil, fmt.Errorf("%s: %s with no PCI devices", name, form.Name)
	}
	p.finish()
	return p.g, nil
}

func (p *parser) warn(subject, msg string) {
	p.g.Warnings = append(p.g.Warnings, topology.Warning{Subject: subject, Message: msg})
}

// read walks the tokens. RawToken does not match start and end elements, so
// a fragment's unopened end tags and unclosed starts are handled here.
func (p *parser) read(data []byte) error {
	dec := xml.NewDecoder(bytes.NewReader(data))
	dec.Strict = false
	first, elements := true, 0
	for {
		tok, err := dec.RawToken()
		if err != nil {
			for _, f := range p.stack {
				if f.gpu != nil {
					p.cut[f.gpu] = true
				}
			}
		}
		if err == io.EOF {
			if len(p.stack) > 0 && p.seenNCCL {
				p.warn(p.name, fmt.Sprintf("XML ends inside %s; read what was there", p.innermost()))
				p.partial("the file ends inside " + p.innermost())
			}
			return nil
		}
		if err != nil {
			if !p.seenNCCL {
				return fmt.Errorf("%s: not NCCL topology XML: %v", p.name, err)
			}
			var se *xml.SyntaxError
			if errors.As(err, &se) && se.Msg == "unexpected EOF" {
				p.warn(p.name, fmt.Sprintf("XML ends inside %s; read what was there", p.innermost()))
				p.partial("the file ends inside " + p.innermost())
			} else {
				p.warn(p.name, fmt.Sprintf("XML broken inside %s (%v); read what came before", p.innermost(), err))
				p.partial("the file is broken inside " + p.innermost())
			}
			return nil
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if first && (t.Name.Local == "graphs" || t.Name.Local == "graph") {
				return fmt.Errorf("%s: an NCCL graph file (rings/trees), not a topology: give NCCL_TOPO_DUMP_FILE output", p.name)
			}
			first = false
			if elements++; elements > MaxElements {
				return fmt.Errorf("%s: more than %d XML elements (an NCCL topology holds a few hundred)", p.name, MaxElements)
			}
			if len(p.stack) >= MaxDepth {
				return fmt.Errorf("%s: XML nested deeper than %d elements", p.name, MaxDepth)
			}
			p.start(t)
			if len(p.cpus) > maxCPUNodes {
				return fmt.Errorf("%s: more than %d <cpu> NUMA nodes (Linux has at most %d)", p.name, maxCPUNodes, maxCPUNodes)
			}
			if len(p.g.Devices) > topology.MaxFunctions {
				return fmt.Errorf("%s: %w", p.name, topology.ErrTooManyFunctions)
			}
		case xml.EndElement:
			p.end(t.Name.Local)
		}
	}
}

func attrs(t xml.StartElement) map[string]string {
	m := make(map[string]string, len(t.Attr))
	for _, a := range t.Attr {
		m[a.Name.Local] = strings.TrimSpace(a.Value)
	}
	return m
}

// partial marks the topology as part of a machine, for the first reason
// found (topology.Graph.Partial).
func (p *parser) partial(why string) {
	retake := "give the whole NCCL_TOPO_DUMP_FILE output"
	if p.form != nil {
		retake = p.form.Retake
	}
	if p.g.Partial == "" {
		p.g.Partial = why + ": " + retake
	}
}

// innermost describes the deepest open element, e.g. `<pci busid="...">`.
func (p *parser) innermost() string {
	if len(p.stack) == 0 {
		return "the document"
	}
	return p.stack[len(p.stack)-1].desc
}

func (p *parser) end(name string) {
	for i := len(p.stack) - 1; i >= 0; i-- {
		if p.stack[i].name == name {
			p.stack = p.stack[:i] // also closes elements left open inside it
			return
		}
	}
	if !p.unopened {
		p.warn(p.name, fmt.Sprintf("</%s> with no <%s>: the text starts inside the tree; read what is there", name, name))
		p.partial("the text starts inside the tree")
		p.unopened = true
	}
}

// enclosing returns the nearest open frame for which ok holds, or nil.
func (p *parser) enclosing(ok func(*frame) bool) *frame {
	for i := len(p.stack) - 1; i >= 0; i-- {
		if ok(&p.stack[i]) {
			return &p.stack[i]
		}
	}
	return nil
}

func (p *parser) start(t xml.StartElement) {
	p.open(t.Name.Local, attrs(t), "")
}

// open handles one element named name with attributes a; desc names it in
// warnings, made from its key attribute when "".
func (p *parser) open(name string, a map[string]string, desc string) {
	f := frame{name: name, desc: desc}
	if desc == "" {
		f.desc = "<" + name + ">"
		for _, k := range []string{"busid", "numaid", "dev", "name", "target"} {
			if v, ok := a[k]; ok {
				f.desc = fmt.Sprintf("<%s %s=%q>", name, k, v)
				break
			}
		}
	}
	var parent *frame
	if len(p.stack) > 0 {
		parent = &p.stack[len(p.stack)-1]
	}
	switch f.name {
	case "system":
		p.seenNCCL = true
	case "cpu":
		p.seenNCCL = true
		f.hb = p.cpu(a, f.desc)
	case "pci":
		p.seenNCCL = true
		f.dev = p.pci(a, f.desc)
	case "gpu":
		if parent != nil && parent.dev != nil {
			f.gpu = parent.dev
			p.hasGPU[parent.dev] = true
			if d := parent.dev; d.VendorID == 0 && d.DeviceID == 0 && d.Name == "" {
				d.Name = gpuModel(a)
			}
			if a["gdr"] == "0" {
				p.warn(parent.dev.BDF(), "gpu gdr=0: NCCL routes its traffic with NICs through the CPU (PHB)")
			}
			parent.dev.SetNCCLGDR(a["gdr"])
			parent.dev.SetNCCLDev(a["dev"])
			if sm, err := strconv.Atoi(a["sm"]); err == nil && sm > 0 {
				parent.dev.SetComputeCapability(sm)
			}
		} else {
			p.warn(p.name, f.desc+" outside a <pci>: left out")
		}
	case "nvlink", "xgmi":
		if parent != nil && parent.gpu != nil {
			cnt, err := strconv.Atoi(a["count"])
			if err != nil || cnt <= 0 {
				cnt = 1
			}
			p.links = append(p.links, link{from: parent.gpu, target: strings.ToLower(a["target"]), count: cnt, tclass: strings.ToLower(a["tclass"])})
		}
	case "nic":
		f.nic = true
		if parent != nil && parent.dev != nil {
			f.nicD = parent.dev
			p.hasNIC[parent.dev] = true
		}
	case "net":
		p.net(parent, a)
	case "pcilink":
		p.pcilinks++
	case "c2c":
		p.c2c++
	}
	p.stack = append(p.stack, f)
}

// cpu returns the host bridge for a <cpu> element; elements with one numaid
// are one NCCL CPU node.
func (p *parser) cpu(a map[string]string, desc string) *topology.HostBridge {
	id, err := strconv.Atoi(a["numaid"])
	if err != nil {
		p.warn(p.name, desc+": numaid missing or not a number: taken as -1")
		id = -1
	}
	hb := p.hostBridge(id, fmt.Sprintf("cpu%d", id))
	s := &p.g.System
	if s.CPUArch == "" {
		s.CPUArch = a["arch"]
	}
	if s.CPUVendor == "" && a["vendor"] != "" {
		s.CPUVendor = a["vendor"]
		if v, err := strconv.Atoi(a["familyid"]); err == nil {
			s.CPUFamily = cpuFamily(v)
		}
		if v, err := strconv.Atoi(a["modelid"]); err == nil {
			s.CPUModelID = v
		}
	}
	if id >= 0 && !hasNode(s, id) {
		cpus, n := maskToList(a["affinity"])
		s.NUMANodes = append(s.NUMANodes, topology.NUMANode{ID: id, CPUs: cpus, Socket: -1})
		s.LogicalCPUs += n
	}
	return hb
}

func hasNode(s *topology.System, id int) bool {
	for _, n := range s.NUMANodes {
		if n.ID == id {
			return true
		}
	}
	return false
}

func (p *parser) hostBridge(id int, name string) *topology.HostBridge {
	if hb := p.cpus[id]; hb != nil {
		return hb
	}
	// Bus keeps the order of appearance, so that Finish's sort keeps the file's order.
	hb := &topology.HostBridge{Name: name, NUMANode: id, Socket: -1, Bus: uint8(min(len(p.cpus), 255))}
	p.cpus[id] = hb
	p.g.HostBridges = append(p.g.HostBridges, hb)
	return hb
}

// pci makes the device for a <pci> element, or returns nil (with a warning)
// when its busid is unreadable or repeated.
func (p *parser) pci(a map[string]string, desc string) *topology.Device {
	addr, err := topology.ParseBDF(a["busid"])
	if err != nil {
		p.warn(p.name, desc+": busid unreadable: left out, its children go to the node above")
		return nil
	}
	if p.devs[addr] != nil {
		p.warn(addr.String(), "busid appears twice: second <pci> left out")
		return nil
	}
	d := topology.NewDevice(addr)
	d.RoleFrom = topology.RoleFromStructure
	d.SetSeen(p.name + " " + desc)
	up := p.enclosing(func(f *frame) bool { return f.dev != nil || f.hb != nil })
	switch {
	case up != nil && up.dev != nil:
		d.Parent, d.HostBridge = up.dev, up.dev.HostBridge
		up.dev.Role = topology.RoleUpstream
	case up != nil:
		d.HostBridge, d.LinkToHost = up.hb, true // NCCL counts its link to the CPU
	default:
		if p.unplaced == nil {
			p.unplaced = &topology.HostBridge{Name: "cpu?", NUMANode: -1, Socket: -1, Bus: uint8(min(len(p.cpus), 255)), PlaceUnknown: true}
			p.g.HostBridges = append(p.g.HostBridges, p.unplaced)
		}
		d.HostBridge = p.unplaced
		p.warn(addr.String(), "<pci> outside any <cpu> (the text starts inside the tree): put under cpu? with NUMA id -1; its real place, and its paths to what is not below it, are unknown")
		p.partial("the text starts inside the tree")
	}
	if id := d.HostBridge.NUMANode; id >= 0 {
		d.NUMANode, d.RawNUMANode, d.NUMAFrom = id, id, topology.NUMAFromFile
	}
	if c, ok := hexAttr(a, "class", 32); ok {
		d.Class = uint32(c)
	} else {
		p.noClass = append(p.noClass, addr.String())
	}
	v, _ := hexAttr(a, "vendor", 16)
	dv, _ := hexAttr(a, "device", 16)
	sv, okSV := hexAttr(a, "subsystem_vendor", 16)
	sd, okSD := hexAttr(a, "subsystem_device", 16)
	d.VendorID, d.DeviceID, d.SubVendorID, d.SubDeviceID = uint16(v), uint16(dv), uint16(sv), uint16(sd)
	d.SubsystemKnown = okSV && okSD
	if f := strings.Fields(a["link_speed"]); len(f) > 0 {
		if gts, err := strconv.ParseFloat(f[0], 64); err == nil && gts > 0 {
			d.Link.MaxGTs, d.Link.CurrentGTs = gts, gts
		}
	}
	if w, err := strconv.Atoi(a["link_width"]); err == nil && w > 0 {
		d.Link.MaxWidth, d.Link.CurrentWidth = w, w
	}
	for _, n := range p.g.System.NUMANodes {
		if n.ID == d.RawNUMANode {
			d.LocalCPUs = n.CPUs
		}
	}
	p.devs[addr] = d
	p.g.Devices = append(p.g.Devices, d)
	return d
}

func hexAttr(a map[string]string, k string, bitSize int) (uint64, bool) {
	s, ok := a[k]
	if !ok || s == "" {
		return 0, false
	}
	v, err := strconv.ParseUint(strings.TrimPrefix(strings.ToLower(s), "0x"), 16, bitSize)
	return v, err == nil
}

// net records one <net> of a <nic>: its name and speed (Mbps; NCCL takes
// speed/8000 GB/s, §4).
func (p *parser) net(parent *frame, a map[string]string) {
	if parent == nil || !parent.nic {
		return
	}
	if parent.nicD == nil {
		p.warn(p.name, fmt.Sprintf("net %q has no PCI device (a NIC directly under a <cpu>): not in the graph", a["name"]))
		return
	}
	d := parent.nicD
	if n := a["name"]; n != "" {
		d.RDMA = append(d.RDMA, n)
	}
	if mbps, err := strconv.ParseFloat(a["speed"], 64); err == nil && mbps/1000 > d.PortRateGbps {
		d.PortRateGbps = mbps / 1000
	}
	if a["gdr"] == "0" {
		p.warn(d.BDF(), fmt.Sprintf("net %q gdr=0: NCCL routes GPU traffic to it through the CPU (PHB)", a["name"]))
	}
	if d.NCCLGDR() != "1" { // a NIC with several <net> ports: GDR if any port has it
		d.SetNCCLGDR(a["gdr"])
	}
}

// finish sets kinds, NVLinks and what the file lacks, then completes the graph.
func (p *parser) finish() {
	for _, d := range p.g.Devices {
		base := d.Class >> 16
		switch {
		case p.hasGPU[d]:
			d.Kind = topology.KindAccelerator
		case p.hasNIC[d]:
			d.Kind = topology.KindNIC
		case base == 0x03: // NCCL: 0x03* is a GPU whatever the vendor (kvDictPciClass)
			d.Kind = topology.KindAccelerator
		case base == 0x02: // and 0x02* a NIC
			d.Kind = topology.KindNIC
		default:
			d.Kind = topology.KindOf(d.Class, d.VendorID, d.DeviceID)
		}
	}
	if p.form != nil && p.form.KindByElement {
		var still []string
		for _, d := range p.g.Devices {
			if d.Class == 0 && !p.hasGPU[d] && !p.hasNIC[d] {
				still = append(still, d.BDF())
			}
		}
		p.noClass = still
	}
	if len(p.noClass) > 0 {
		p.warn(p.name, fmt.Sprintf("%d <pci> elements without class (%s): kind unknown", len(p.noClass), words.Examples(p.noClass, 5)))
	}
	p.nvlinks()
	p.recorded()
	if p.form != nil {
		for _, k := range p.form.NoNVLink {
			if p.devs[k[0]] != nil && p.devs[k[1]] != nil {
				p.g.NVLinks = append(p.g.NVLinks, topology.NVLink{A: k[0], B: k[1]})
			}
		}
	}
	if p.g.Partial != "" {
		p.g.Lacks = append(p.g.Lacks, "the rest of the machine ("+p.g.Partial+")")
	}
	if p.form != nil {
		p.g.Lacks = append(p.g.Lacks, p.form.Lacks...)
	} else {
		p.g.Lacks = append(p.g.Lacks, baseLacks...)
	}
	if p.pcilinks > 0 {
		p.g.Lacks = append(p.g.Lacks, fmt.Sprintf("%d <pcilink> Broadcom virtual switch links (not modelled: NCCL would join those switches at PXB)", p.pcilinks))
	}
	if p.c2c > 0 {
		p.g.Lacks = append(p.g.Lacks, fmt.Sprintf("%d <c2c> GPU-CPU links (not modelled: NCCL's C2C and P2C paths are not labelled)", p.c2c))
	}
	p.g.Finish()
}

// nvlinks turns the <nvlink>/<xgmi> elements into g.NVLinks. A link whose
// target is a GPU joins two GPUs directly. Links to NVSwitches (tclass
// 0x068000, NCCL's single NVS node) are summed per GPU; nvidia-smi shows
// NV# between two GPUs on NVSwitch (NV12 on DGX A100, NV18 on H100), which
// is modelled as: both GPUs link to NVSwitch with counts c1, c2 →
// NVLink{Count: min(c1, c2)}.
func (p *parser) nvlinks() {
	type key [2]topology.BDF
	direct := map[key]int{}
	var order []key
	nvs := map[*topology.Device]int{}
	var nvsOrder []*topology.Device
	missing := map[*topology.Device][]string{}
	for _, l := range p.links {
		switch {
		case l.tclass == classNVSwitch:
			if nvs[l.from] == 0 {
				nvsOrder = append(nvsOrder, l.from)
			}
			nvs[l.from] += l.count
			continue
		case l.tclass == classNVCPU:
			p.warn(l.from.BDF(), "NVLink to the CPU (POWER9): not modelled")
			continue
		}
		addr, err := topology.ParseBDF(l.target)
		t := p.devs[addr]
		switch {
		case err != nil:
			p.warn(l.from.BDF(), fmt.Sprintf("NVLink target %q unreadable: left out", l.target))
		case t == l.from:
			p.warn(l.from.BDF(), "NVLink to itself: left out")
		case t == nil:
			missing[l.from] = append(missing[l.from], addr.String())
		case t.Kind == topology.KindNVSwitch:
			if nvs[l.from] == 0 {
				nvsOrder = append(nvsOrder, l.from)
			}
			nvs[l.from] += l.count
		default:
			k := key{l.from.Addr, t.Addr}
			if t.Addr.Less(l.from.Addr) {
				k = key{t.Addr, l.from.Addr}
			}
			if _, ok := direct[k]; !ok {
				order = append(order, k)
			}
			// Both ends list the bond; they should agree, and the smaller is kept if not.
			if c, ok := direct[k]; !ok || l.count < c {
				direct[k] = l.count
			}
		}
	}
	for _, d := range p.g.Devices {
		if m := missing[d]; len(m) > 0 {
			p.warn(d.BDF(), fmt.Sprintf("NVLinks to %d devices the file does not hold (%s): left out", len(m), words.Examples(m, 5)))
		}
	}
	for _, k := range order {
		p.g.NVLinks = append(p.g.NVLinks, topology.NVLink{A: k[0], B: k[1], Count: direct[k]})
	}
	var whole []*topology.Device
	for _, d := range nvsOrder {
		if p.cut[d] {
			p.warn(d.BDF(), "its <gpu> element is cut off: NVSwitch link count unknown, no NV# to other GPUs")
			continue
		}
		whole = append(whole, d)
	}
	for i, a := range whole {
		for _, b := range whole[i+1:] {
			k := key{a.Addr, b.Addr}
			if b.Addr.Less(a.Addr) {
				k = key{b.Addr, a.Addr}
			}
			if _, ok := direct[k]; ok {
				continue
			}
			p.g.NVLinks = append(p.g.NVLinks, topology.NVLink{A: k[0], B: k[1], Count: min(nvs[a], nvs[b])})
		}
	}
}

// recorded says which accelerator pairs the file tells the NVLink state of.
// A dump (NCCL_TOPO_DUMP_FILE) lists, in each <gpu> element, every NVLink
// NVML reports (xml.cc, ncclTopoGetXmlFromGpu), so a file with any NVLink
// element records them all, except where a <gpu> element is cut off: then
// only pairs of whole elements are known, and those without a bond get an
// entry with Count 0.
func (p *parser) recorded() {
	if len(p.links) == 0 {
		return
	}
	var whole []*topology.Device
	cut := false
	for _, d := range p.g.Devices {
		switch {
		case d.Kind != topology.KindAccelerator:
		case p.cut[d]:
			cut = true
		default:
			whole = append(whole, d)
		}
	}
	if !cut {
		p.g.NVLinkRecorded = true
		return
	}
	for i, a := range whole {
		for _, b := range whole[i+1:] {
			if p.g.NVLinkCount(a, b) == 0 {
				p.g.NVLinks = append(p.g.NVLinks, topology.NVLink{A: a.Addr, B: b.Addr})
			}
		}
	}
}

// maskToList turns a cpumask ("0000ffff,ff000000": 32-bit hex groups, most
// significant first) into a cpulist ("24-47") and counts its CPUs. An
// unreadable mask gives "".
func maskToList(mask string) (string, int) {
	hex := strings.ReplaceAll(strings.TrimSpace(mask), ",", "")
	if hex == "" || len(hex) > 4096 {
		return "", 0
	}
	var ranges []string
	n, start := 0, -1
	total := len(hex) * 4
	for cpu := 0; cpu <= total; cpu++ {
		set := false
		if cpu < total {
			c := hex[len(hex)-1-cpu/4]
			v, err := strconv.ParseUint(string(c), 16, 8)
			if err != nil {
				return "", 0
			}
			set = v>>(cpu%4)&1 == 1
		}
		switch {
		case set && start < 0:
			start = cpu
		case !set && start >= 0:
			if start == cpu-1 {
				ranges = append(ranges, strconv.Itoa(start))
			} else {
				ranges = append(ranges, fmt.Sprintf("%d-%d", start, cpu-1))
			}
			n += cpu - start
			start = -1
		}
	}
	return strings.Join(ranges, ","), n
}

// cpuFamily turns NCCL's familyid (topo.cc: familyId + extFamilyId<<4,
// so AMD's Zen 2 reads 143 and Zen 3/4 175) into the CPU's family as
// /proc/cpuinfo gives it (base + extended where the base is 0xF: 23, 25).
func cpuFamily(id int) int {
	if id > 0xF && id&0xF == 0xF {
		return 0xF + id>>4
	}
	return id
}
