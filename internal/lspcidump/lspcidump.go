// Package lspcidump reads lspci output, as people paste it, into a topology
// graph: the tree (-tv, -tvnn, -tv -D), verbose listings (-vvv, -vvvnn, per
// device or whole), machine-readable records (-vmm, -Dnnvmmk), paths (-PP)
// and hex config dumps (-xxx, -xxxx), alone or concatenated, with shell
// prompts, markdown and side facts between them: numactl --hardware, lscpu,
// "BB:DD.F NUMA node: N" lines and listings of sysfs numa_node files.
//
// What a dump does not tell (NUMA nodes with only -tv, ACS without root)
// stays unknown and is listed in Graph.Lacks.
package lspcidump

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/gdtopo/gdtopo/internal/pciconfig"
	"github.com/gdtopo/gdtopo/internal/words"
	"github.com/gdtopo/gdtopo/topology"
)

// MaxInput is the largest input Parse accepts.
const MaxInput = 64 << 20

// maxLine is the longest line read; longer ones are skipped with a warning.
const maxLine = 64 << 10

// sniffBytes is how much of an input Sniff looks at.
const sniffBytes = 64 << 10

// Sniff reports whether data is lspci output of any supported form, by the
// rule Parse applies: at least one device record, and lspci text on at
// least a fifth of the non-blank lines. It looks at the first 64 KiB only.
func Sniff(data []byte) bool {
	if len(data) > sniffBytes {
		data = data[:sniffBytes]
	}
	p := newParser()
	p.feed("", data)
	return len(p.recs)+len(p.shorts)+len(p.fragSkipped) > 0 && p.mostlyLspci()
}

// Parse reads one or more concatenated lspci dumps into a graph. name is
// the input's name for messages.
func Parse(name string, data []byte) (*topology.Graph, error) {
	return ParseFiles(name, map[string][]byte{name: data})
}

// ParseFiles reads several files that describe one machine (for example
// lspci-tv.txt, lspci-vvv.md and numactl.txt) into one graph. name names
// the set in messages; each file's warnings carry its own name.
func ParseFiles(name string, files map[string][]byte) (*topology.Graph, error) {
	total := 0
	names := make([]string, 0, len(files))
	for n, b := range files {
		total += len(b)
		names = append(names, n)
	}
	if total > MaxInput {
		return nil, fmt.Errorf("%s: input of %d bytes is over the %d MiB limit", name, total, MaxInput>>20)
	}
	sort.Strings(names)
	p := newParser()
	for _, n := range names {
		p.feed(n, files[n])
	}
	if len(p.recs) == 0 && len(p.shorts) == 0 && len(p.fragSkipped) == 0 {
		return nil, fmt.Errorf("%s: no lspci output found (expected lspci -tv, -vvv, -vmm, -PP or -xxx output)", name)
	}
	if !p.mostlyLspci() {
		return nil, fmt.Errorf("%s: %d of %d lines are lspci output: not an lspci dump (expected lspci -tv, -vvv, -vmm, -PP or -xxx output)",
			name, p.known, p.known+p.other)
	}
	if len(p.recs) == 0 && len(p.shorts) == 0 {
		return nil, fmt.Errorf("%s: an lspci -tv fragment that shows no function's bus (%s named): nothing to place; give the whole lspci -tv",
			name, words.Count(len(p.fragSkipped), "function"))
	}
	if n, ok := p.numaOnly(); ok {
		return nil, fmt.Errorf("%s: only NUMA node lines, of %s: nothing says what they are or where they sit; give them after the lspci output of the same host (lspci -tv, or lspci -vvv) in one file",
			name, words.Count(n, "function"))
	}
	return p.build(), nil
}

// numaOnly reports whether the input told nothing of any function but its
// NUMA node ("03:00.0 NUMA node: 0" lines), and how many functions.
func (p *parser) numaOnly() (int, bool) {
	n := 0
	for _, m := range []map[topology.BDF]*rec{p.recs, p.shorts} {
		for _, r := range m {
			if !r.numaKnown || r.classKnown || r.classGuessed || r.name != "" || r.vendorKnown || r.bridge || r.placed || r.hasParent {
				return 0, false
			}
			n++
		}
	}
	return n, n > 0
}

// mostlyLspci is the acceptance rule for a whole input: at least a fifth
// of its non-blank lines are lspci (or numactl) text. Real pastes, prose
// and prompts included, run above 0.4; source code or prose that quotes a
// device line or two runs below 0.02.
func (p *parser) mostlyLspci() bool { return p.known*4 >= p.other }

// rec gathers what the input says about one function, from any form.
type rec struct {
	addr  topology.BDF
	short bool // written without a domain
	name  string

	class                  uint32
	classKnown, progKnown  bool
	classGuessed           bool
	vendor, device         uint16
	vendorKnown, devKnown  bool
	subVendor, subDevice   uint16
	subKnown               bool
	bridge                 bool // shown with a bus range or Bus: line
	sec, sub               int  // secondary/subordinate bus; -1 unknown
	placed                 bool // parent or root bus given by the tree or -PP
	parent                 topology.BDF
	hasParent              bool
	hbDom                  uint32
	hbBus                  uint8
	numa                   int // -1 unknown
	numaKnown              bool
	driver, iommu          string
	role                   topology.Role
	roleKnown              bool
	link                   topology.Link
	devCtlKnown            bool
	maxPayload, maxReadReq int
	relaxedOrdering        bool
	acsKnown, acsRedirect  bool
	capsSeen               bool // a capability was listed: the list was readable
	noCaps                 bool // Status: Cap-, the function has no capability list
	denied                 bool // Capabilities: <access denied>
	looped                 bool // Capabilities: [..] <chain looped>: the list ends unread
	cut                    bool // a line of its details stands for lines left out ("..."): its registers are not all shown
	bars                   []topology.BAR
	configLen              int
	sriov                  sriov // its SR-IOV capability, from -vvv
	hex                    []string
	at, verboseAt          string // where the record was first seen, and its -vvv header
}

func newRec(addr topology.BDF, short bool) *rec {
	return &rec{addr: addr, short: short, sec: -1, sub: -1, numa: -1}
}

// parser carries one Parse call's state.
type parser struct {
	recs     map[topology.BDF]*rec // full addresses
	shorts   map[topology.BDF]*rec // addresses without a domain, keyed with domain 0
	order    []*rec
	warnings []topology.Warning
	warned   map[string]bool
	// fragSkipped are the tree functions skipped because their bus is not
	// in the input, with what their lines tell; warnings[fragWarning] says
	// so, filled in once all are read.
	fragSkipped []*rec
	fragWarning int
	// cutAt is where a line outside any function's details stands for
	// lines left out of the input ("...", "[snip]"), the first such line:
	// functions may be missing.
	cutAt string

	file  string
	line  int
	cur   *rec   // device whose -vvv details or hex rows follow
	curAt string // where cur's header is
	key   string // last "Key:" of a -vvv detail line
	vmm   *rec   // open -vmm record
	// vmmIDs says the open -vmm record was written with -nn: its Class
	// ends in a bracketed ID, so a Device's last bracket is one too.
	vmmIDs bool
	tree   map[int]tctx

	numaNodes  []topology.NUMANode
	numactl    bool
	inDistance bool
	sawTree    bool
	sawVerbose bool
	sawLnkSta  bool
	sawDenied  bool

	known, other int // non-blank lines read as lspci or numactl text, and the rest

	cpu lscpuFacts // what lscpu text beside the dump said
}

// lscpuFacts is what lscpu prints about NUMA nodes and CPUs; zero values
// are unknown.
type lscpuFacts struct {
	nodes, sockets, cpus    int
	nodeCPUs                map[int]string // NUMA nodeN CPU(s)
	model, vendor           string
	family, modelID         int
	familyKnown, modelKnown bool
}

func newParser() *parser {
	return &parser{recs: map[topology.BDF]*rec{}, shorts: map[topology.BDF]*rec{}, warned: map[string]bool{}, tree: map[int]tctx{}}
}

// warn records a problem with the current line, once per kind.
func (p *parser) warn(kind, msg string) {
	if p.warned[kind] {
		return
	}
	p.warned[kind] = true
	p.warnings = append(p.warnings, topology.Warning{Subject: fmt.Sprintf("%s:%d", p.file, p.line), Message: msg})
}

// skipFragment notes r, a tree function skipped because its bus is not
// in the input; the rest of its line fills r in after.
func (p *parser) skipFragment(r *rec) {
	if len(p.fragSkipped) == 0 {
		p.fragWarning = len(p.warnings)
		p.warnings = append(p.warnings, topology.Warning{Subject: fmt.Sprintf("%s:%d", p.file, p.line)})
	}
	p.fragSkipped = append(p.fragSkipped, r)
}

// get returns the record for addr, creating it.
func (p *parser) get(addr topology.BDF, short bool) *rec {
	m := p.recs
	if short {
		m = p.shorts
	}
	r := m[addr]
	if r == nil {
		r = newRec(addr, short)
		r.at = p.where()
		m[addr] = r
		p.order = append(p.order, r)
	}
	return r
}

// where names the current line for evidence: "lspci.txt line 12".
func (p *parser) where() string { return fmt.Sprintf("%s line %d", p.file, p.line) }

func (p *parser) endBlock() {
	p.flushHex()
	p.cur, p.key, p.vmm = nil, "", nil
}

// feed reads one file's lines.
func (p *parser) feed(file string, data []byte) {
	p.file, p.line, p.tree = file, 0, map[int]tctx{}
	p.endBlock()
	for len(data) > 0 {
		var line []byte
		line, data, _ = bytes.Cut(data, []byte("\n"))
		p.line++
		if len(line) > maxLine {
			p.warn("long", fmt.Sprintf("line of %d bytes skipped", len(line)))
			p.endBlock()
			continue
		}
		p.feedLine(strings.TrimRight(string(line), "\r\t "))
	}
	p.endBlock()
}

func (p *parser) feedLine(s string) {
	t := strings.TrimLeft(s, " \t")
	switch {
	case t == "":
		p.endBlock()
		p.inDistance = false
		return
	case isElision(strings.TrimLeft(t, " |")):
		p.elide(t != s)
	case isTreeLine(s):
		p.endBlock()
		p.treeLine(s)
	case p.vmm != nil || strings.HasPrefix(s, "Slot:"):
		p.vmmLine(s)
	case t != s && p.cur != nil:
		p.detail(t)
	case p.cur != nil && isHexRow(s):
		p.cur.hex = append(p.cur.hex, s)
	case p.numaLine(s), p.lscpuLine(s), p.numaFileLine(s):
	default:
		h, ok := parseHeader(s)
		if !ok {
			if looksLikeBDF(s) {
				p.warn("header", fmt.Sprintf("not a device line: %q", clip(s)))
			}
			p.endBlock()
			p.other++
			return
		}
		p.endBlock()
		p.header(h)
	}
	p.known++
}

// elide notes a line that stands for lines left out of the input: within
// a function's -vvv details (indented), the rest of its registers are not
// all shown; elsewhere, functions may be missing.
func (p *parser) elide(indented bool) {
	if indented && p.cur != nil {
		p.cur.cut = true
		p.warn("cut "+p.cur.addr.String(), fmt.Sprintf("%s: its details are cut (a line stands for lines left out): ACS and the registers not shown unknown", p.cur.addr.Short()))
		return
	}
	p.endBlock()
	if p.cutAt == "" {
		p.cutAt = p.where()
	}
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}

// flushHex decodes the hex rows gathered for the current device.
func (p *parser) flushHex() {
	r := p.cur
	if r == nil || len(r.hex) == 0 {
		return
	}
	rows := r.hex
	r.hex = nil
	b, err := pciconfig.ParseLspciHex(rows)
	if err != nil {
		p.warn("hex", fmt.Sprintf("%s: hex dump: %v", r.addr.Short(), err))
		return
	}
	cfg, err := pciconfig.Parse(b)
	if err != nil {
		p.warn("hex", fmt.Sprintf("%s: hex dump: %v", r.addr.Short(), err))
		return
	}
	r.configLen = cfg.Len
	r.vendor, r.device, r.vendorKnown, r.devKnown = cfg.VendorID, cfg.DeviceID, true, true
	r.class, r.classKnown, r.progKnown, r.classGuessed = cfg.Class, true, true, false
	if cfg.SubsystemKnown {
		r.subVendor, r.subDevice, r.subKnown = cfg.SubsystemVendor, cfg.SubsystemDevice, true
	}
	if cfg.HeaderType == 1 {
		r.bridge, r.sec, r.sub = true, int(cfg.SecondaryBus), int(cfg.SubordinateBus)
	}
	if x := cfg.Express; x != nil {
		r.role, r.roleKnown = topology.RoleOfPort(x.PortType), true
		r.maxPayload, r.maxReadReq, r.relaxedOrdering, r.devCtlKnown = x.MaxPayload, x.MaxReadRequest, x.RelaxedOrdering, true
		if x.LinkKnown {
			maxCode := x.MaxSpeed
			for c := 7; c > 0; c-- {
				if x.SupportedSpeeds&(1<<c) != 0 {
					maxCode = c
					break
				}
			}
			r.link = topology.Link{CurrentGTs: pciconfig.SpeedGTs(x.CurSpeed), CurrentWidth: x.CurWidth,
				MaxGTs: pciconfig.SpeedGTs(maxCode), MaxWidth: x.MaxWidth}
			p.sawLnkSta = true
		}
	} else if cfg.CapsReadable && cfg.HeaderType == 1 {
		r.role, r.roleKnown = topology.RolePCIBridge, true
	}
	if cfg.ACS != nil {
		r.acsKnown, r.acsRedirect = true, cfg.ACS.Redirects()
	} else if cfg.ExtReadable || cfg.CapsReadable && cfg.Express == nil {
		r.acsKnown = true // read and absent, or a conventional PCI function, which has none
	}
	switch {
	case cfg.CapsLooped || cfg.ExtLooped:
		p.warn("loop", fmt.Sprintf("%s: hex dump: %s", r.addr.Short(), pciconfig.LoopWarning(cfg)))
	case !cfg.CapsReadable:
		r.denied = true
		p.sawDenied = true
	}
}

// parseBDF parses "dddd:bb:dd.f" or "bb:dd.f"; short is true without a domain.
func parseBDF(s string) (topology.BDF, error) {
	if len(s) != 7 && len(s) != 12 {
		return topology.BDF{}, fmt.Errorf("not a PCI address: %q", s)
	}
	return topology.ParseBDF(s)
}

func looksLikeBDF(s string) bool {
	return len(s) >= 8 && isHexStr(s[:2]) && s[2] == ':' && isHexStr(s[3:5]) && s[5] == '.'
}

func isHexStr(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isHex(s[i]) {
			return false
		}
	}
	return s != ""
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// isHexRow matches an lspci -x row: "00: de 10 30 23 ...".
func isHexRow(s string) bool {
	off, rest, ok := strings.Cut(s, ": ")
	if !ok || len(off) < 2 || len(off) > 3 || !isHexStr(off) {
		return false
	}
	f := strings.Fields(rest)
	if len(f) == 0 || len(f) > 16 {
		return false
	}
	for _, x := range f {
		if len(x) != 2 || !isHexStr(x) {
			return false
		}
	}
	return true
}

// header is a parsed device line of plain lspci, -vvv, -nn, -D or -PP.
type header struct {
	path       []topology.BDF // -PP ancestors first, the device last
	short      bool
	className  string
	classCode  int // 16-bit base<<8|sub from [0302]; -1 unknown
	name       string
	vendor     int // -1 unknown
	device     int
	progIf     int // -1 unknown
	numa       int // a "BDF NUMA node: N" line; -1 otherwise
	numaMarker bool
}

// parseHeader parses "03:00.0 3D controller [0302]: NVIDIA Corporation GH100
// [H100 SXM5 80GB] [10de:2330] (rev a1)", with the IDs taken from the right
// because names may hold brackets.
// classWords reports whether s can be the class lspci prints (pci.ids's
// class or subclass name, such as "3D controller", "GPIB (IEEE 488.1/2)
// controller", or "Class ff00"): a few words of letters, digits and
// ( ) / . - + , &, starting with a letter or digit.
func classWords(s string) bool {
	if s == "" || len(strings.Fields(s)) > 8 {
		return false
	}
	for i, c := range s {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case i > 0 && strings.ContainsRune(" ()/.-+,&", c):
		default:
			return false
		}
	}
	return true
}

func parseHeader(s string) (header, bool) {
	h := header{classCode: -1, vendor: -1, device: -1, progIf: -1, numa: -1}
	tok, rest, ok := strings.Cut(s, " ")
	if !ok || len(tok) < 7 {
		return h, false
	}
	parts := strings.Split(tok, "/")
	if len(parts) > 256 {
		return h, false
	}
	for i, part := range parts {
		a, err := parseBDF(part)
		if err != nil {
			return h, false
		}
		if i == 0 {
			h.short = len(part) == 7
		} else {
			if len(part) != 7 {
				return h, false
			}
			a.Domain = h.path[0].Domain
		}
		h.path = append(h.path, a)
	}
	if v, ok := strings.CutPrefix(rest, "NUMA node:"); ok {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < -1 || n > 1<<16 {
			return h, false
		}
		h.numa, h.numaMarker = n, true
		return h, true
	}
	cls, name, ok := strings.Cut(rest, ": ")
	if !ok {
		if cls, ok = strings.CutSuffix(rest, ":"); !ok {
			return h, false
		}
	}
	if i := strings.LastIndex(cls, " ["); i > 0 && strings.HasSuffix(cls, "]") {
		code := cls[i+2 : len(cls)-1]
		if v, err := strconv.ParseUint(code, 16, 16); err == nil && len(code) == 4 {
			h.classCode, cls = int(v), cls[:i]
		}
	}
	if !classWords(cls) {
		return h, false
	}
	h.className = cls
	if i := strings.Index(name, " (prog-if "); i >= 0 {
		if v, err := strconv.ParseUint(name[i+10:min(len(name), i+12)], 16, 8); err == nil {
			h.progIf = int(v)
		}
		name = name[:i]
	}
	if i := strings.LastIndex(name, " (rev "); i >= 0 && strings.HasSuffix(name, ")") {
		name = name[:i]
	}
	if i := strings.LastIndex(name, " ["); i >= 0 && strings.HasSuffix(name, "]") {
		if v, d, ok := parseIDPair(name[i+2 : len(name)-1]); ok {
			h.vendor, h.device, name = v, d, name[:i]
		}
	} else if v, d, ok := parseIDPair(strings.TrimPrefix(name, "Device ")); ok && strings.HasPrefix(name, "Device ") {
		h.vendor, h.device = v, d // "Device 1234:1111", as lspci prints unknown vendors
	}
	h.name = strings.TrimSpace(name)
	return h, true
}

// parseIDPair parses "10de:2330".
func parseIDPair(s string) (int, int, bool) {
	a, b, ok := strings.Cut(s, ":")
	if !ok || len(a) != 4 || len(b) != 4 {
		return 0, 0, false
	}
	v, err1 := strconv.ParseUint(a, 16, 16)
	d, err2 := strconv.ParseUint(b, 16, 16)
	return int(v), int(d), err1 == nil && err2 == nil
}

// header records a device line and opens its block.
func (p *parser) header(h header) {
	n := len(h.path)
	r := p.get(h.path[n-1], h.short)
	if h.numaMarker {
		if h.numa >= 0 {
			r.numa, r.numaKnown = h.numa, true
		}
		return
	}
	if n > 1 { // a -PP path; a one-element path is a plain device line
		for i, a := range h.path {
			x := p.get(a, h.short)
			x.placed = true
			if i == 0 {
				x.hbDom, x.hbBus = a.Domain, a.Bus
			} else {
				x.parent, x.hasParent = h.path[i-1], true
				x.hbDom, x.hbBus = h.path[0].Domain, h.path[0].Bus
			}
		}
	}
	if h.name != "" {
		r.name = h.name
	}
	if h.classCode >= 0 {
		r.class, r.classKnown, r.classGuessed = uint32(h.classCode)<<8, true, false
	} else if c, ok := classNames[h.className]; ok && (!r.classKnown || r.classGuessed) {
		r.class, r.classKnown, r.classGuessed = c<<8, true, false
	}
	if h.progIf >= 0 && r.classKnown {
		r.class = r.class&^0xff | uint32(h.progIf)
		r.progKnown = true
	}
	if h.vendor >= 0 {
		r.vendor, r.device, r.vendorKnown, r.devKnown = uint16(h.vendor), uint16(h.device), true, true
	}
	p.cur, p.curAt = r, p.where()
}

// numaLine reads numactl --hardware text; it reports whether s was one.
func (p *parser) numaLine(s string) bool {
	switch {
	case strings.HasPrefix(s, "available: ") && strings.Contains(s, " nodes"):
		p.numactl, p.numaNodes, p.inDistance = true, nil, false
		return true
	case !p.numactl || !strings.HasPrefix(s, "node "):
		if p.inDistance {
			return p.distanceRow(s)
		}
		return false
	}
	f := strings.Fields(s)
	if len(f) >= 2 && f[1] == "distances:" {
		p.inDistance = true
		return true
	}
	if len(f) < 3 || f[2] != "cpus:" {
		return len(f) >= 3 && (f[2] == "size:" || f[2] == "free:")
	}
	id, err := strconv.Atoi(f[1])
	if err != nil || id < 0 || id > 1<<16 || len(p.numaNodes) > 4096 {
		p.warn("numactl", "numactl line not understood: "+clip(s))
		return true
	}
	p.numaNodes = append(p.numaNodes, topology.NUMANode{ID: id, CPUs: cpuList(f[3:]), Socket: -1})
	return true
}

// lscpuLine reads the lines of lscpu (util-linux) that tell about NUMA
// nodes and CPUs: "NUMA node(s):", "NUMA node0 CPU(s):", "Socket(s):",
// "CPU(s):", "Model name:", "Vendor ID:", "CPU family:", "Model:".
func (p *parser) lscpuLine(s string) bool {
	k, v, ok := strings.Cut(s, ":")
	if !ok || strings.HasPrefix(k, " ") || strings.HasPrefix(k, "\t") {
		return false
	}
	k, v = strings.TrimSpace(k), strings.TrimSpace(v)
	n, err := strconv.Atoi(v)
	num := err == nil && n >= 0 && n < 1<<16
	c := &p.cpu
	switch {
	case k == "NUMA node(s)" && num:
		c.nodes = n
	case strings.HasPrefix(k, "NUMA node") && strings.HasSuffix(k, " CPU(s)"):
		id, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(k, "NUMA node"), " CPU(s)"))
		if err != nil || id < 0 || id >= 1<<12 {
			return false
		}
		if c.nodeCPUs == nil {
			c.nodeCPUs = map[int]string{}
		}
		c.nodeCPUs[id] = v
	case k == "Socket(s)" && num:
		c.sockets = n
	case k == "CPU(s)" && num:
		c.cpus = n
	case k == "Model name" && v != "":
		c.model = v
	case k == "Vendor ID" && v != "":
		c.vendor = v
	case k == "CPU family" && num:
		c.family, c.familyKnown = n, true
	case k == "Model" && num:
		c.modelID, c.modelKnown = n, true
	default:
		return false
	}
	return true
}

// numaFileLine reads a listing of sysfs numa_node files, as
// grep . /sys/bus/pci/devices/*/numa_node prints it:
// "/sys/bus/pci/devices/0000:03:00.0/numa_node:0" (or a space before the
// value).
func (p *parser) numaFileLine(s string) bool {
	i := strings.Index(s, "/numa_node")
	if i < 0 || !strings.Contains(s[:i], "/devices/") {
		return false
	}
	j := strings.LastIndexByte(s[:i], '/')
	a, err := parseBDF(s[j+1 : i])
	if err != nil {
		return false
	}
	v := strings.TrimLeft(s[i+len("/numa_node"):], ": \t")
	n, err := strconv.Atoi(v)
	if err != nil || n < -1 || n >= 1<<16 {
		return false
	}
	r := p.get(a, len(s[j+1:i]) == 7)
	if n >= 0 {
		r.numa, r.numaKnown = n, true
	}
	return true
}

func (p *parser) distanceRow(s string) bool {
	f := strings.Fields(s)
	if len(f) == 0 {
		return false
	}
	if f[0] == "node" {
		return true
	}
	id, err := strconv.Atoi(strings.TrimSuffix(f[0], ":"))
	if err != nil || !strings.HasSuffix(f[0], ":") {
		p.inDistance = false
		return false
	}
	for i := range p.numaNodes {
		if p.numaNodes[i].ID == id {
			for _, x := range f[1:] {
				if v, err := strconv.Atoi(x); err == nil {
					p.numaNodes[i].Distances = append(p.numaNodes[i].Distances, v)
				}
			}
		}
	}
	return true
}

// cpuList turns "0 1 2 3 8" into "0-3,8".
func cpuList(f []string) string {
	var out []string
	start, prev := -1, -1
	flush := func() {
		if start < 0 {
			return
		}
		if start == prev {
			out = append(out, strconv.Itoa(start))
		} else {
			out = append(out, fmt.Sprintf("%d-%d", start, prev))
		}
	}
	for _, x := range f {
		v, err := strconv.Atoi(x)
		if err != nil {
			continue
		}
		if start >= 0 && v == prev+1 {
			prev = v
			continue
		}
		flush()
		start, prev = v, v
	}
	flush()
	return strings.Join(out, ",")
}
