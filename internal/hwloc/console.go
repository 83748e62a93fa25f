package hwloc

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/gdtopo/gdtopo/topology"
)

// consoleLine matches the start of an lstopo object line: a type word,
// optionally with [subtype] and (subtype), then the end, an index, a
// parenthesis, a quoted name or a bus ID. It is compiled on first use:
// compiling it costs every gdtopo start half a millisecond.
var consoleLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(Machine|System|Package|Socket|NUMANode|Group\d*|Die|Core|PU|L\d[diu]?(Cache)?|MemCache|HostBridge|PCIBridge|PCI|Bridge|OSDev|Net|Network|OpenFabrics|Block|GPU|CoProc|Co-Processor|DMA|Misc|MemoryModule)(\[[^\]]*\])?(\([^)]*\))?( |$)`)
})

// SniffConsole reports whether data looks like lstopo console text.
func SniffConsole(data []byte) bool {
	head := string(data[:min(len(data), 1<<16)])
	if strings.Contains(head, "<topology") {
		return false
	}
	n := 0
	for _, l := range strings.Split(head, "\n") {
		t := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(t, "Machine ("), strings.HasPrefix(t, "Package L#"), strings.HasPrefix(t, "NUMANode L#"),
			t == "HostBridge", strings.HasPrefix(t, "HostBridge L#"), t == "PCIBridge", strings.HasPrefix(t, "PCIBridge L#"),
			strings.HasPrefix(t, "PCI ") && consoleLine().MatchString(t):
			n++
		}
	}
	if n < 2 {
		return false
	}
	objects, other := consoleShare(data[:min(len(data), 1<<16)])
	return objects*4 >= other
}

// consoleShare counts the non-blank lines of data that are lstopo objects
// (or its "Topology infos" and cut marks) and the rest. lstopo text is the
// input when it is at least a fifth of the lines: a paste has prompts and
// prose around it, source code that quotes a line or two does not pass.
func consoleShare(data []byte) (objects, other int) {
	for _, raw := range bytes.Split(data, []byte("\n")) {
		t := strings.TrimSpace(string(raw))
		switch {
		case t == "":
		case consoleLine().MatchString(t), strings.HasPrefix(t, "Topology infos:"), strings.HasPrefix(t, "..."), t == "…":
			objects++
		default:
			other++
		}
	}
	return objects, other
}

// ParseConsole reads lstopo or lstopo-no-graphics console text (with or
// without -v) named name. Nesting comes from indentation; lines a poster
// cut ("...") are warned about, never filled in.
func ParseConsole(name string, data []byte) (*topology.Graph, error) {
	if err := checkInput("lstopo console text", name, data); err != nil {
		return nil, err
	}
	type open struct {
		indent int
		o      *object
	}
	root := newObject("Holder")
	var stack []open
	var cuts []int
	var hostname string
	var collapseWarnings []topology.Warning
	objects := 0
	lines := bytes.Split(data, []byte("\n"))
	for i, raw := range lines {
		ln := i + 1
		line := strings.TrimRight(strings.ReplaceAll(string(raw), "\t", "    "), " \r")
		t := strings.TrimLeft(line, " ")
		indent := len(line) - len(t)
		switch {
		case t == "":
			continue
		case t == "..." || t == "…" || t == "[...]" || strings.HasPrefix(t, "...") && len(t) < 8:
			cuts = append(cuts, ln)
			at := root // the object the cut lines were under
			for j := len(stack) - 1; j >= 0; j-- {
				if stack[j].indent < indent {
					at = stack[j].o
					break
				}
			}
			at.cut = true
			continue
		case strings.HasPrefix(t, "Topology infos:"):
			if _, v, ok := strings.Cut(t, "HostName="); ok {
				hostname, _, _ = strings.Cut(v, " ")
			}
			continue
		}
		// lstopo folds identical neighbours into one line:
		// "2 x { PCI 00:02.0-03.0 (3D) }".
		count := 1
		if m := collapsedLine().FindStringSubmatch(t); m != nil {
			if n, err := strconv.Atoi(m[1]); err == nil && n > 1 && n <= 1<<16 {
				count, t = n, m[2]
			}
		}
		if !consoleLine().MatchString(t) {
			continue // lstopo's summary lines, prompts, prose
		}
		objects++
		for len(stack) > 0 && stack[len(stack)-1].indent >= indent {
			stack = stack[:len(stack)-1]
		}
		parent := root
		if len(stack) > 0 {
			top := stack[len(stack)-1]
			parent = top.o
			if indent > top.indent+2 {
				cuts = append(cuts, ln) // a level is missing
				top.o.cut = true
			}
		}
		// "Package L#0 + L3 L#0 (16MB) + Core L#0 + PU L#0 (P#0)": a chain.
		segs := splitTop(t, " + ")
		if depth := len(stack) + len(segs); depth > maxDepth {
			return nil, fmt.Errorf("%s: objects nested over %d deep at line %d", name, maxDepth, ln)
		}
		if count > 1 && len(segs) == 1 {
			objs, warn := expandCollapsed(segs[0], count, ln)
			if warn != "" {
				collapseWarnings = append(collapseWarnings, topology.Warning{Subject: fmt.Sprintf("%s line %d", name, ln), Message: warn})
			}
			parent.children = append(parent.children, objs...)
			parent = objs[0]
			segs = nil
		}
		for _, seg := range segs {
			o := parseSegment(seg, ln)
			parent.children = append(parent.children, o)
			parent = o
		}
		stack = append(stack, open{indent, parent})
	}
	if objects == 0 {
		return nil, fmt.Errorf("%s: no lstopo object lines (Machine, Package, HostBridge, PCI ...), not lstopo console text", name)
	}
	if o, other := consoleShare(data); o*4 < other {
		return nil, fmt.Errorf("%s: %d of %d lines are lstopo objects: not lstopo console text", name, o, o+other)
	}
	top := root
	if len(root.children) == 1 {
		top = root.children[0]
	}
	if hostname != "" {
		if top.infos == nil {
			top.infos = map[string]string{}
		}
		top.infos["HostName"] = hostname
	}
	g, err := build(name, top, "lstopo console text")
	if err != nil {
		return nil, err
	}
	g.Warnings = append(g.Warnings, collapseWarnings...)
	for _, c := range cuts {
		g.Warnings = append(g.Warnings, topology.Warning{Subject: name, Message: fmt.Sprintf("lines cut at line %d: what was there is not known", c)})
	}
	if len(cuts) > 0 && g.Partial == "" {
		g.Partial = fmt.Sprintf("lstopo output with lines left out (line %d): give the whole lstopo output", cuts[0])
	}
	return g, nil
}

// collapsedLine matches lstopo's line for identical neighbours folded
// into one: "2 x { PCI 00:02.0-03.0 (3D) }" (lstopo-text.c).
var collapsedLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(\d+) x \{ (.*) \}$`)
})

// pciRange matches the bus IDs of folded PCI functions: "00:02.0-03.0",
// with or without the domain.
var pciRange = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`((?:[0-9a-fA-F]{4,8}:)?[0-9a-fA-F]{2}:)([0-9a-fA-F]{2})\.([0-7])-([0-9a-fA-F]{2})\.([0-7])`)
})

// expandCollapsed makes the objects a folded line stands for. PCI
// functions take the addresses of the range when it holds exactly n (at
// most 256: one bus); otherwise only its two ends are certain, and the
// rest are left out with a warning.
func expandCollapsed(seg string, n, ln int) ([]*object, string) {
	m := pciRange().FindStringSubmatchIndex(seg)
	if m == nil { // lstopo folds PCI functions only (--no-collapse)
		return []*object{parseSegment(seg, ln)}, fmt.Sprintf("%d objects folded into one line: one kept", n)
	}
	sub := func(k int) string { return seg[m[2*k]:m[2*k+1]] }
	hexv := func(k int) int { v, _ := strconv.ParseUint(sub(k), 16, 8); return int(v) }
	first, last := hexv(2)*8+hexv(3), hexv(4)*8+hexv(5)
	addr := func(devfn int) string { return fmt.Sprintf("%s%02x.%x", sub(1), devfn/8, devfn%8) }
	with := func(devfn int) *object { return parseSegment(seg[:m[0]]+addr(devfn)+seg[m[1]:], ln) }
	if last-first+1 == n {
		out := make([]*object, 0, n)
		for devfn := first; devfn <= last; devfn++ {
			out = append(out, with(devfn))
		}
		return out, ""
	}
	if last <= first {
		return []*object{with(first)}, fmt.Sprintf("%d functions folded into %s: only %s is certain", n, sub(0), addr(first))
	}
	return []*object{with(first), with(last)}, fmt.Sprintf("%d functions folded into %s: the addresses of %d between %s and %s are not shown (run lstopo with --no-collapse)",
		n, sub(0), n-2, addr(first), addr(last))
}

// splitTop splits s at sep outside parentheses, brackets and quotes.
func splitTop(s, sep string) []string {
	var out []string
	depth, quoted, start := 0, false, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"':
			quoted = !quoted
		case quoted:
		case c == '(' || c == '[':
			depth++
		case c == ')' || c == ']':
			depth--
		case depth == 0 && strings.HasPrefix(s[i:], sep):
			out = append(out, s[start:i])
			start = i + len(sep)
			i += len(sep) - 1
		}
	}
	return append(out, s[start:])
}

// parseSegment reads one object: `PCI L#1 (busid=... id=... class=0302(3D)
// link=31.51GB/s)`, `PCI 1a:00.0 (3D)`, `Net "ib0"`, `NUMANode L#0 (P#0 16GB)`.
func parseSegment(s string, ln int) *object {
	s = strings.TrimSpace(s)
	end := strings.IndexAny(s, " [(")
	if end < 0 {
		end = len(s)
	}
	typ := s[:end]
	rest := s[end:]
	sub := ""
	if strings.HasPrefix(rest, "[") { // OSDev[Network], OSDev[Co-Processor](VectorEngine)
		if j := strings.IndexByte(rest, ']'); j > 0 {
			sub, rest = rest[1:j], rest[j+1:]
		}
	}
	if strings.HasPrefix(rest, "(") && typ == "OSDev" {
		if j := strings.IndexByte(rest, ')'); j > 0 {
			rest = rest[j+1:]
		}
	}
	switch typ {
	case "Socket":
		typ = "Package"
	case "System":
		typ = "Machine"
	case "Net", "Network":
		typ, sub = "OSDev", "Network"
	case "OpenFabrics":
		typ, sub = "OSDev", "OpenFabrics"
	case "Block", "GPU", "CoProc", "Co-Processor", "DMA":
		typ = "OSDev"
	}
	o := newObject(typ)
	o.line = ln
	attrs := map[string]string{}
	var words []string
	for _, tok := range splitTop(strings.TrimSpace(rest), " ") {
		switch {
		case tok == "":
		case strings.HasPrefix(tok, "(") && strings.HasSuffix(tok, ")"):
			for _, a := range splitTop(tok[1:len(tok)-1], " ") {
				if k, v, ok := strings.Cut(a, "="); ok {
					attrs[k] = strings.Trim(v, `"`)
				} else if a != "" {
					words = append(words, a)
				}
			}
		case strings.HasPrefix(tok, `"`):
			o.name = strings.Trim(tok, `"`)
		case strings.HasPrefix(tok, "L#"):
			o.lIndex, _ = strconv.Atoi(tok[2:])
		default:
			words = append(words, tok)
		}
	}
	for _, w := range words {
		if strings.HasPrefix(w, "P#") {
			if v, err := strconv.Atoi(w[2:]); err == nil {
				o.osIndex = v
			}
		}
	}
	o.infos = attrs
	switch typ {
	case "HostBridge":
		o.buses = attrs["buses"]
	case "PCI", "PCIBridge", "Bridge":
		if typ == "Bridge" {
			o.typ = "PCIBridge"
		}
		o.busid, o.link = attrs["busid"], attrs["link"]
		if v, d, ok := parseIDs(attrs["id"]); ok {
			o.vendor, o.device = v, d
		}
		if c, err := strconv.ParseUint(strings.SplitN(attrs["class"], "(", 2)[0], 16, 16); err == nil {
			o.class = int(c)
		}
		for _, w := range words { // without -v: "PCI 1a:00.0 (3D)"
			if _, err := topology.ParseBDF(w); err == nil && o.busid == "" {
				o.busid = w
			} else if c, ok := classNames[w]; ok && o.class < 0 {
				o.class = c
			}
		}
		if o.typ == "PCIBridge" && o.class < 0 {
			o.class = 0x0604
		}
	case "OSDev":
		o.osdev = osdevKind(o.name)
		switch sub {
		case "OpenFabrics":
			o.osdev = "rdma"
		case "Network":
			o.osdev = "net"
		}
	}
	return o
}

// classNames are hwloc's words for PCI classes, as lstopo prints them
// without -v (only those that matter to gdtopo's kinds).
var classNames = map[string]int{
	"Ethernet": 0x0200, "InfiniBand": 0x0207, "Fabric": 0x0208, "Network": 0x0280,
	"VGA": 0x0300, "XGA": 0x0301, "3D": 0x0302, "Display": 0x0380,
	"NVMExp": 0x0108, "SATA": 0x0106, "SAS": 0x0107, "RAID": 0x0104, "SCSI": 0x0100,
	"HostBridge": 0x0600, "PCIBridge": 0x0604, "Co-Processor": 0x0b40,
	"ProcessingAccelerator": 0x1200, "ProcessingAccelerators": 0x1200,
}
