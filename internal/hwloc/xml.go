package hwloc

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/gdtopo/gdtopo/topology"
)

// MaxXMLTags bounds the '<' characters (tags, comments, declarations) of
// an hwloc XML input: reading allocates about 340 bytes for the smallest
// object (<object type="Group"/>, 22 bytes of input), so the cap, not the
// input size, bounds what a file of many small objects takes (about 90
// MB). lstopo's XML of a DGX-class machine has about 500 tags; one of a
// 3584-thread, 16-socket machine about 40 000.
const MaxXMLTags = 1 << 18

// MaxXMLSize bounds an hwloc XML input's bytes: the reader keeps one copy
// of the input and points into it. Real files are tens of KiB.
const MaxXMLSize = 16 << 20

// SniffXML reports whether data looks like hwloc XML: a <topology> root
// element, in either format.
func SniffXML(data []byte) bool {
	head := data[:min(len(data), 4096)]
	i := bytes.Index(head, []byte("<topology"))
	if i < 0 || i+9 >= len(head) {
		return false
	}
	c := head[i+9]
	if c != '>' && c != ' ' && c != '\n' && c != '\r' && c != '\t' {
		return false
	}
	whole := data[:min(len(data), 1<<16)]
	if !bytes.Contains(whole, []byte("<object")) {
		return false
	}
	// At least a fifth of the lines are XML: source code that quotes a
	// <topology> element is not hwloc XML.
	yes, no := 0, 0
	for rest := whole; len(rest) > 0; {
		l := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			l, rest = rest[:i], rest[i+1:]
		} else {
			rest = nil
		}
		switch l = bytes.TrimSpace(l); {
		case len(l) == 0:
		case l[0] == '<' || l[len(l)-1] == '>':
			yes++
		default:
			no++
		}
	}
	return yes*4 >= no
}

// ParseXML reads hwloc XML (hwloc 1.x or 2.x format) named name.
func ParseXML(name string, data []byte) (*topology.Graph, error) {
	if err := checkInput("hwloc XML", name, data); err != nil {
		return nil, err
	}
	if len(data) > MaxXMLSize {
		return nil, fmt.Errorf("%s: hwloc XML of %d MiB, over the %d MiB gdtopo reads; not read", name, len(data)>>20, MaxXMLSize>>20)
	}
	// Every tag costs at least one '<', so counting them bounds the
	// objects read before any of them is built.
	if n := bytes.Count(data, []byte("<")); n > MaxXMLTags {
		return nil, fmt.Errorf("%s: hwloc XML with %d tags, over the %d gdtopo reads (a real machine's has a few thousand); not read", name, n, MaxXMLTags)
	}
	p := xmlParser{src: string(data), stack: make([]xmlFrame, 0, 16)}
	if err := p.parse(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(p.objects) == 0 {
		return nil, fmt.Errorf("%s: hwloc XML without objects", name)
	}
	version := "hwloc XML v1 (hwloc 1.x)"
	if p.version != "" {
		version = "hwloc XML v" + p.version
	}
	root := p.objects[0]
	if len(p.objects) > 1 { // only one Machine is expected; keep the others under a holder
		root = newObject("Holder")
		root.children = p.objects
	}
	for _, in := range p.infos {
		if root.infos == nil {
			root.infos = map[string]string{}
		}
		if _, ok := root.infos[in.name]; !ok {
			root.infos[in.name] = in.value
		}
	}
	g, err := build(name, root, version)
	if err != nil {
		return nil, err
	}
	for _, e := range p.warns {
		g.Warnings = append(g.Warnings, topology.Warning{Subject: name, Message: e})
	}
	nvlinksFromXML(g, name, p.nvlinkMatrix(), p.ids)
	return g, nil
}

// xmlInfo is an <info name= value=> element.
type xmlInfo struct{ name, value string }

// xmlObject holds the attributes of an <object> that gdtopo reads; hwloc
// 1.x and 2.x share these names.
type xmlObject struct {
	typ, gpIndex, osIndex, cpuset, nodeset, name, subtype string
	bridgeType, bridgePCI, busID, pciType, linkSpeed      string
}

// xmlIDs are an object's indexes as written, with the bus ID of the PCI
// device it is or belongs to, for the NVLink matrix's references.
type xmlIDs struct{ typ, gpIndex, osIndex, busID string }

// xmlKind is what an element is to gdtopo, by its name and its parent's.
type xmlKind uint8

const (
	kindOther     xmlKind = iota // read for well-formedness only
	kindTopology                 // the root
	kindObject                   // <object> under the root or an object
	kindInfo                     // <info> under the root or an object
	kindHetero                   // <distances2hetero> under the root
	kindUniform                  // <distances2> under the root
	kindIndexes                  // <indexes> under a distances element
	kindU64Values                // <u64values> under a distances element
)

// childKind is the kind of an element named local under one of kind parent.
func childKind(parent xmlKind, local string) xmlKind {
	switch parent {
	case kindTopology:
		switch local {
		case "object":
			return kindObject
		case "info":
			return kindInfo
		case "distances2hetero":
			return kindHetero
		case "distances2":
			return kindUniform
		}
	case kindObject:
		switch local {
		case "object":
			return kindObject
		case "info":
			return kindInfo
		}
	case kindHetero, kindUniform:
		switch local {
		case "indexes":
			return kindIndexes
		case "u64values":
			return kindU64Values
		}
	}
	return kindOther
}

// xmlAttrs are the attributes of one start tag that gdtopo reads.
type xmlAttrs struct {
	object                     xmlObject
	version                    string // <topology>
	name, value                string // <info>, name also of distances
	distType, indexing, nbObjs string // distances
}

func (a *xmlAttrs) set(kind xmlKind, local, v string) {
	switch kind {
	case kindTopology:
		if local == "version" {
			a.version = v
		}
	case kindInfo:
		switch local {
		case "name":
			a.name = v
		case "value":
			a.value = v
		}
	case kindHetero, kindUniform:
		switch local {
		case "name":
			a.name = v
		case "type":
			a.distType = v
		case "indexing":
			a.indexing = v
		case "nbobjs":
			a.nbObjs = v
		}
	case kindObject:
		o := &a.object
		switch local {
		case "type":
			o.typ = v
		case "gp_index":
			o.gpIndex = v
		case "os_index":
			o.osIndex = v
		case "cpuset":
			o.cpuset = v
		case "nodeset":
			o.nodeset = v
		case "name":
			o.name = v
		case "subtype":
			o.subtype = v
		case "bridge_type":
			o.bridgeType = v
		case "bridge_pci":
			o.bridgePCI = v
		case "pci_busid":
			o.busID = v
		case "pci_type":
			o.pciType = v
		case "pci_link_speed":
			o.linkSpeed = v
		}
	}
}

// xmlFrame is an open element.
type xmlFrame struct {
	name  string // as written, to match its end tag
	kind  xmlKind
	obj   *object       // kindObject
	depth int           // kindObject: nesting among objects, 0 under the root
	busID string        // kindObject: its pci_busid or its nearest enclosing object's
	dist  *xmlDistances // kindHetero, kindUniform
	text  *string       // kindIndexes, kindU64Values: where its character data goes
}

// xmlParser reads the XML that hwloc writes straight into objects, in one
// pass over the input with no copy of what needs no unescaping. It checks
// the whole document up to the root's end tag for well-formedness (names,
// quoting, entities, characters, nesting, as encoding/xml does) and reads
// what gdtopo uses where hwloc puts it: <object> and <info> under the root
// and under objects (attributes in any order, the last of a repeated one
// winning), and <distances2>/<distances2hetero> under the root with their
// <indexes> and <u64values> text. Comments, CDATA, processing instructions
// and declarations are allowed anywhere; elements of other names are read
// for well-formedness and skipped with what they hold.
type xmlParser struct {
	src   string
	pos   int
	root  bool // the root's start tag has been read
	stack []xmlFrame
	// names are the open elements inside the outermost open element of
	// kindOther, all of kindOther too: only their names are kept.
	names []string

	version string          // <topology version=>, "" in hwloc 1.x's format
	objects []*object       // the root's <object> children
	infos   []xmlInfo       // the root's <info> children
	hetero  []*xmlDistances // the root's <distances2hetero> children
	uniform []*xmlDistances // the root's <distances2> children
	ids     []xmlIDs        // every object with a gp_index, for the NVLink matrix
	warns   []string        // unreadable attributes, at most 100
}

func (p *xmlParser) parse() error {
	for {
		rest := p.src[p.pos:]
		lt := strings.IndexByte(rest, '<')
		if lt != 0 {
			text := rest
			if lt > 0 {
				text = rest[:lt]
			}
			if err := p.chardata(p.pos, text, false); err != nil {
				return err
			}
			if lt < 0 {
				if !p.root {
					return fmt.Errorf("no XML element, not hwloc XML")
				}
				p.pos = len(p.src)
				open := p.stack[len(p.stack)-1].name
				if n := len(p.names); n > 0 {
					open = p.names[n-1]
				}
				return p.eof("<" + open + ">")
			}
			p.pos += lt
			rest = rest[lt:]
		}
		var err error
		switch {
		case strings.HasPrefix(rest, "<!--"):
			err = p.comment()
		case strings.HasPrefix(rest, "<![CDATA["):
			err = p.cdata()
		case strings.HasPrefix(rest, "<!"):
			err = p.directive()
		case strings.HasPrefix(rest, "<?"):
			err = p.procInst()
		case strings.HasPrefix(rest, "</"):
			err = p.endTag()
		default:
			err = p.startTag()
		}
		if err != nil {
			return err
		}
		if p.root && len(p.stack) == 0 { // the root's end; what follows is not read
			return nil
		}
	}
}

// fail is a well-formedness error at byte offset at.
func (p *xmlParser) fail(at int, format string, args ...any) error {
	line := 1 + strings.Count(p.src[:at], "\n")
	what := "malformed XML"
	if p.root {
		what = "malformed hwloc XML"
	}
	return fmt.Errorf("%s: line %d: %s", what, line, fmt.Sprintf(format, args...))
}

// eof is the error of an input that ends inside what.
func (p *xmlParser) eof(what string) error {
	line := 1 + strings.Count(p.src, "\n")
	if p.root {
		return fmt.Errorf("hwloc XML truncated (line %d: the input ends inside %s)", line, what)
	}
	return fmt.Errorf("malformed XML: line %d: the input ends inside %s", line, what)
}

// chardata checks text that starts at byte offset at (character data, or
// a CDATA section's content when cdata) and hands it to the open
// <indexes> or <u64values> element if that is where it is.
func (p *xmlParser) chardata(at int, text string, cdata bool) error {
	if !cdata && strings.IndexByte(text, '>') >= 0 {
		if i := strings.Index(text, "]]>"); i >= 0 {
			return p.fail(at+i, "]]> outside a CDATA section")
		}
	}
	if !plain(text) {
		v, bad, msg := unescape(text, cdata)
		if msg != "" {
			return p.fail(at+bad, "%s", msg)
		}
		text = v
	}
	if n := len(p.stack); n > 0 && p.stack[n-1].text != nil {
		*p.stack[n-1].text += text
	}
	return nil
}

// plain reports whether s needs no unescaping and holds only characters
// XML allows: ASCII without '&', '\r' and controls other than tab and
// newline.
func plain(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 && c != '\t' && c != '\n' || c == '&' || c == '\r' || c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// unescape replaces entities in s (not in a CDATA section) and turns "\r\n"
// and "\r" into "\n", as XML requires; on a character or entity XML does
// not allow it returns the byte offset and what is wrong.
func unescape(s string, cdata bool) (string, int, string) {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '&' && !cdata:
			j := strings.IndexByte(s[i:], ';')
			if j < 0 {
				return "", i, fmt.Sprintf("entity %.20q without a semicolon", s[i:])
			}
			r, ok := entity(s[i+1 : i+j])
			if !ok {
				return "", i, fmt.Sprintf("invalid character entity %.20q", s[i:i+j+1])
			}
			if !xmlChar(r) {
				return "", i, fmt.Sprintf("entity %s is a character XML does not allow", s[i:i+j+1])
			}
			b.WriteRune(r)
			i += j + 1
		case c == '\r':
			b.WriteByte('\n')
			i++
			if i < len(s) && s[i] == '\n' {
				i++
			}
		case c < utf8.RuneSelf:
			if !xmlChar(rune(c)) {
				return "", i, fmt.Sprintf("illegal character code U+%04X", c)
			}
			b.WriteByte(c)
			i++
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				return "", i, "invalid UTF-8"
			}
			if !xmlChar(r) {
				return "", i, fmt.Sprintf("illegal character code U+%04X", r)
			}
			b.WriteString(s[i : i+size])
			i += size
		}
	}
	return b.String(), 0, ""
}

// entity is the character an entity's name (between '&' and ';') stands
// for: XML's five predefined ones and character references.
func entity(name string) (rune, bool) {
	switch name {
	case "lt":
		return '<', true
	case "gt":
		return '>', true
	case "amp":
		return '&', true
	case "apos":
		return '\'', true
	case "quot":
		return '"', true
	}
	num, ok := strings.CutPrefix(name, "#")
	if !ok || num == "" {
		return 0, false
	}
	base := 10
	if hex, ok := strings.CutPrefix(num, "x"); ok {
		num, base = hex, 16
	}
	n, err := strconv.ParseUint(num, base, 32)
	if err != nil || n > utf8.MaxRune {
		return 0, false
	}
	if n >= 0xD800 && n <= 0xDFFF { // a surrogate stands for nothing
		return utf8.RuneError, true
	}
	return rune(n), true
}

// xmlChar reports whether XML allows the character r.
func xmlChar(r rune) bool {
	return r == 0x09 || r == 0x0A || r == 0x0D || r >= 0x20 && r <= 0xD7FF ||
		r >= 0xE000 && r <= 0xFFFD || r >= 0x10000 && r <= 0x10FFFF
}

// name reads the name that starts at byte offset at: the run of ASCII
// letters, digits, '_', ':', '.', '-' and non-ASCII bytes there. It returns
// the name, the offset after it, and whether it is an XML name: not
// starting with a digit, '.' or '-', valid UTF-8, at most one ':' (a
// namespace prefix).
func (p *xmlParser) name(at int) (string, int, bool) {
	i, colons, ascii := at, 0, true
	for ; i < len(p.src); i++ {
		c := p.src[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '.' || c == '-' {
			continue
		}
		if c == ':' {
			colons++
		} else if c >= utf8.RuneSelf {
			ascii = false
		} else {
			break
		}
	}
	n := p.src[at:i]
	ok := n != "" && n[0] != '.' && n[0] != '-' && (n[0] < '0' || n[0] > '9') && colons <= 1 && (ascii || utf8.ValidString(n))
	return n, i, ok
}

// local is n without its namespace prefix, as encoding/xml matches names.
func local(n string) string {
	if i := strings.IndexByte(n, ':'); i > 0 && i < len(n)-1 {
		return n[i+1:]
	}
	return n
}

// skipSpace returns the offset of the first byte at or after at that is
// not XML white space.
func (p *xmlParser) skipSpace(at int) int {
	for at < len(p.src) {
		switch p.src[at] {
		case ' ', '\t', '\n', '\r':
			at++
		default:
			return at
		}
	}
	return at
}

// startTag reads the start tag at p.pos.
func (p *xmlParser) startTag() error {
	start := p.pos
	name, pos, ok := p.name(start + 1)
	if pos >= len(p.src) {
		return p.eof("a start tag")
	}
	if !ok {
		return p.fail(start, "expected an element name after <, found %q", p.src[start+1:min(pos+1, len(p.src))])
	}
	kind := kindTopology
	if !p.root {
		if l := local(name); l != "topology" {
			return fmt.Errorf("XML root <%s> is not hwloc's <topology>", l)
		}
		p.root = true
	} else {
		kind = childKind(p.stack[len(p.stack)-1].kind, local(name))
	}
	var a xmlAttrs
	empty := false
	for {
		pos = p.skipSpace(pos)
		if pos >= len(p.src) {
			return p.eof("the start tag <" + name + ">")
		}
		if c := p.src[pos]; c == '>' {
			pos++
			break
		} else if c == '/' {
			if pos+1 >= len(p.src) {
				return p.eof("the start tag <" + name + ">")
			}
			if p.src[pos+1] != '>' {
				return p.fail(pos, "expected /> in <%s>", name)
			}
			pos += 2
			empty = true
			break
		}
		attr, next, ok := p.name(pos)
		if !ok {
			if next >= len(p.src) {
				return p.eof("the start tag <" + name + ">")
			}
			return p.fail(pos, "expected an attribute name in <%s>, found %q", name, p.src[pos:min(next+1, len(p.src))])
		}
		pos = p.skipSpace(next)
		if pos >= len(p.src) {
			return p.eof("the start tag <" + name + ">")
		}
		if p.src[pos] != '=' {
			return p.fail(pos, "attribute %s of <%s> without a value", attr, name)
		}
		pos = p.skipSpace(pos + 1)
		if pos >= len(p.src) {
			return p.eof("the start tag <" + name + ">")
		}
		if c := p.src[pos]; c != '"' && c != '\'' {
			return p.fail(pos, "value of attribute %s of <%s> not quoted", attr, name)
		}
		v, next, err := p.attrValue(pos, attr, name)
		if err != nil {
			return err
		}
		pos = next
		if kind != kindOther {
			a.set(kind, local(attr), v)
		}
	}
	p.pos = pos
	return p.open(start, kind, name, &a, empty)
}

// attrValue reads the quoted value that starts at byte offset at, of
// attribute attr of element elem; it returns the value and the offset after
// its closing quote.
func (p *xmlParser) attrValue(at int, attr, elem string) (string, int, error) {
	rest := p.src[at+1:]
	end := strings.IndexByte(rest, p.src[at])
	v := rest
	if end >= 0 {
		v = rest[:end]
	}
	simple := true
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < 0x20 || c == '&' || c == '<' || c >= utf8.RuneSelf {
			if c == '<' {
				return "", 0, p.fail(at+1+i, "unescaped < in attribute %s of <%s>", attr, elem)
			}
			simple = simple && (c == '\t' || c == '\n')
		}
	}
	if end < 0 {
		return "", 0, p.eof("the value of attribute " + attr + " of <" + elem + ">")
	}
	if !simple {
		u, bad, msg := unescape(v, false)
		if msg != "" {
			return "", 0, p.fail(at+1+bad, "attribute %s of <%s>: %s", attr, elem, msg)
		}
		v = u
	}
	return v, at + 1 + end + 1, nil
}

// open records the element just read, which started at byte offset at,
// and leaves it open unless empty (<x/>).
func (p *xmlParser) open(at int, kind xmlKind, name string, a *xmlAttrs, empty bool) error {
	f := xmlFrame{name: name, kind: kind}
	var parent *xmlFrame
	if n := len(p.stack); n > 0 {
		parent = &p.stack[n-1]
	}
	if kind == kindOther && parent.kind == kindOther {
		if !empty {
			p.names = append(p.names, name)
		}
		return nil
	}
	switch kind {
	case kindTopology:
		p.version = a.version
	case kindObject:
		f.busID = a.object.busID
		if parent.kind == kindObject {
			f.depth = parent.depth + 1
			if f.busID == "" {
				f.busID = parent.busID
			}
		}
		if f.depth > maxDepth {
			return fmt.Errorf("objects nested over %d deep", maxDepth)
		}
		f.obj = p.object(&a.object)
		if parent.kind == kindObject {
			parent.obj.children = append(parent.obj.children, f.obj)
		} else {
			p.objects = append(p.objects, f.obj)
		}
		if a.object.gpIndex != "" {
			p.ids = append(p.ids, xmlIDs{a.object.typ, a.object.gpIndex, a.object.osIndex, f.busID})
		}
	case kindInfo:
		if parent.kind != kindObject {
			p.infos = append(p.infos, xmlInfo{a.name, a.value})
			break
		}
		o := parent.obj
		if o.infos == nil {
			o.infos = map[string]string{}
		}
		o.infos[a.name] = a.value
		switch a.name {
		case "NodeGUID", "Port1State":
			o.osdev = "rdma"
		}
	case kindHetero, kindUniform:
		d := &xmlDistances{Name: a.name, Type: a.distType, Indexing: a.indexing}
		if a.nbObjs != "" {
			n, err := strconv.Atoi(strings.TrimSpace(a.nbObjs))
			if err != nil {
				return p.fail(at, "<%s nbobjs=%q>: not a number", name, a.nbObjs)
			}
			d.NbObjs = n
		}
		if kind == kindHetero {
			p.hetero = append(p.hetero, d)
		} else {
			p.uniform = append(p.uniform, d)
		}
		f.dist = d
	case kindIndexes:
		parent.dist.Indexes = append(parent.dist.Indexes, "")
		f.text = &parent.dist.Indexes[len(parent.dist.Indexes)-1]
	case kindU64Values:
		parent.dist.Values = append(parent.dist.Values, "")
		f.text = &parent.dist.Values[len(parent.dist.Values)-1]
	}
	if !empty {
		p.stack = append(p.stack, f)
	}
	return nil
}

// endTag reads the end tag at p.pos and closes its element.
func (p *xmlParser) endTag() error {
	start := p.pos
	name, pos, _ := p.name(start + 2)
	pos = p.skipSpace(pos)
	if pos >= len(p.src) {
		return p.eof("an end tag")
	}
	if name == "" || p.src[pos] != '>' {
		return p.fail(start, "malformed end tag %q", p.src[start:min(pos+1, len(p.src))])
	}
	if n := len(p.names); n > 0 {
		if open := p.names[n-1]; open != name {
			return p.fail(start, "<%s> closed by </%s>", open, name)
		}
		p.names = p.names[:n-1]
		p.pos = pos + 1
		return nil
	}
	n := len(p.stack)
	if n == 0 {
		return p.fail(start, "end tag </%s> before any element", name)
	}
	if open := p.stack[n-1].name; open != name {
		return p.fail(start, "<%s> closed by </%s>", open, name)
	}
	p.stack = p.stack[:n-1]
	p.pos = pos + 1
	return nil
}

// comment skips the comment at p.pos.
func (p *xmlParser) comment() error {
	i := strings.Index(p.src[p.pos+4:], "-->")
	if i < 0 {
		return p.eof("a comment")
	}
	p.pos += 4 + i + 3
	return nil
}

// cdata reads the CDATA section at p.pos as text.
func (p *xmlParser) cdata() error {
	start := p.pos + len("<![CDATA[")
	i := strings.Index(p.src[start:], "]]>")
	if i < 0 {
		return p.eof("a CDATA section")
	}
	if err := p.chardata(start, p.src[start:start+i], true); err != nil {
		return err
	}
	p.pos = start + i + 3
	return nil
}

// directive skips the declaration at p.pos (<!DOCTYPE ...>), with any
// quoted strings, nested declarations and comments it holds.
func (p *xmlParser) directive() error {
	start := p.pos
	if c := p.src[start+2:]; c != "" && (c[0] == '-' || c[0] == '[') {
		return p.fail(start, "%.9q is neither a comment nor a CDATA section", p.src[start:])
	}
	depth := 0
	var quote byte
	// The byte after "<!" is the declaration's first and has no meaning
	// of its own, as in encoding/xml.
	for i := start + 3; i < len(p.src); i++ {
		switch c := p.src[i]; {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '>':
			if depth == 0 {
				p.pos = i + 1
				return nil
			}
			depth--
		case c == '<':
			if !strings.HasPrefix(p.src[i:], "<!--") {
				depth++
				break
			}
			j := strings.Index(p.src[i+4:], "-->")
			if j < 0 {
				return p.eof("a comment in a declaration")
			}
			i += 4 + j + 2
		}
	}
	return p.eof("a declaration")
}

// procInst skips the processing instruction at p.pos; the XML declaration
// must declare version 1.0 and UTF-8 if it declares either.
func (p *xmlParser) procInst() error {
	start := p.pos
	target, pos, ok := p.name(start + 2)
	if pos >= len(p.src) {
		return p.eof("a processing instruction")
	}
	if !ok {
		return p.fail(start, "expected a target name after <?")
	}
	i := strings.Index(p.src[pos:], "?>")
	if i < 0 {
		return p.eof("a processing instruction")
	}
	if target == "xml" {
		content := p.src[pos : pos+i]
		if v := procInstParam("version", content); v != "" && v != "1.0" {
			return p.fail(start, "XML version %q: only 1.0 is read", v)
		}
		if e := procInstParam("encoding", content); e != "" && !strings.EqualFold(e, "utf-8") {
			return p.fail(start, "encoding %q declared: hwloc XML is read as UTF-8 only", e)
		}
	}
	p.pos = pos + i + 2
	return nil
}

// procInstParam is the quoted value of param= in a processing
// instruction's content s, "" if none.
func procInstParam(param, s string) string {
	param += "="
	for i := 0; i < len(s); {
		k := strings.Index(s[i:], param)
		if k < 0 || i+k+len(param) >= len(s) {
			return ""
		}
		i += k + len(param)
		if q := s[i]; q == '\'' || q == '"' {
			if j := strings.IndexByte(s[i+1:], q); j >= 0 {
				return s[i+1 : i+1+j]
			}
			return ""
		}
	}
	return ""
}

// object makes the object an <object> element's attributes a describe;
// attribute problems become warnings.
func (p *xmlParser) object(a *xmlObject) *object {
	typ := a.typ
	switch typ {
	case "Socket":
		typ = "Package"
	case "System":
		typ = "Machine"
	case "Bridge":
		if strings.HasPrefix(a.bridgeType, "0-") || a.busID == "" {
			typ = "HostBridge"
		} else {
			typ = "PCIBridge"
		}
	case "PCIDev":
		typ = "PCI"
	}
	o := newObject(typ)
	if a.osIndex != "" {
		if v, err := strconv.Atoi(a.osIndex); err == nil {
			o.osIndex = v
		}
	}
	var err error
	if a.cpuset != "" {
		if o.cpus, err = parseBitmap(a.cpuset); err == nil {
			o.hasCPUs = true
		} else {
			p.bad(a.typ, "cpuset", a.cpuset)
		}
	}
	if a.nodeset != "" {
		if o.nodes, err = parseBitmap(a.nodeset); err == nil {
			o.hasNodes = true
		} else {
			p.bad(a.typ, "nodeset", a.nodeset)
		}
	}
	if typ == "HostBridge" {
		o.buses = a.bridgePCI
	}
	if typ == "PCI" || typ == "PCIBridge" {
		o.busid, o.link, o.subtype = a.busID, a.linkSpeed, a.subtype
		if !parsePCIType(o, a.pciType) {
			p.bad(a.typ, "pci_type", a.pciType)
		}
	}
	if typ == "OSDev" {
		o.name = a.name
		o.osdev = osdevKind(a.name)
		if strings.EqualFold(a.subtype, "OpenFabrics") {
			o.osdev = "rdma"
		}
	}
	return o
}

// bad records that attribute what of an object of type typ reads v, which
// is unreadable.
func (p *xmlParser) bad(typ, what, v string) {
	if len(p.warns) < 100 {
		p.warns = append(p.warns, fmt.Sprintf("%s object %s %q unreadable", typ, what, v))
	}
}

// nvlinkMatrix is the NVLinkBandwidth matrix, nil if none: the last one,
// <distances2> after <distances2hetero>.
func (p *xmlParser) nvlinkMatrix() *xmlDistances {
	var m *xmlDistances
	for _, list := range [][]*xmlDistances{p.hetero, p.uniform} {
		for _, d := range list {
			if d.Name == "NVLinkBandwidth" {
				m = d
			}
		}
	}
	return m
}

// parsePCIType reads pci_type "0302 [10de:2330] [10de:16c1] a1" into o.
func parsePCIType(o *object, s string) bool {
	class, s := nextField(s)
	ids, s := nextField(s)
	subIDs, _ := nextField(s)
	if ids == "" {
		return false
	}
	c, err := strconv.ParseUint(class, 16, 16)
	if err != nil {
		return false
	}
	o.class = int(c)
	v, d, ok := parseIDs(strings.Trim(ids, "[]"))
	if !ok {
		return false
	}
	o.vendor, o.device = v, d
	if subIDs != "" {
		if sv, sd, ok := parseIDs(strings.Trim(subIDs, "[]")); ok {
			o.subVen, o.subDev = sv, sd
		}
	}
	return true
}

// nextField returns the first of s's fields as strings.Fields splits them,
// and what follows it.
func nextField(s string) (string, string) {
	start := -1
	for i := 0; i < len(s); {
		r, size := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		if !unicode.IsSpace(r) {
			if start < 0 {
				start = i
			}
		} else if start >= 0 {
			return s[start:i], s[i:]
		}
		i += size
	}
	if start < 0 {
		return "", ""
	}
	return s[start:], ""
}

// parseIDs reads "vvvv:dddd".
func parseIDs(s string) (int, int, bool) {
	a, b, ok := strings.Cut(s, ":")
	if !ok {
		return 0, 0, false
	}
	v, err1 := strconv.ParseUint(a, 16, 16)
	d, err2 := strconv.ParseUint(b, 16, 16)
	return int(v), int(d), err1 == nil && err2 == nil
}
