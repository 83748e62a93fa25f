package hwloc

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/gdtopo/gdtopo/topology"
)

type xmlInfo struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

// xmlObject is an <object> of either format; hwloc 1.x and 2.x share these
// attribute names.
type xmlObject struct {
	Type       string      `xml:"type,attr"`
	GPIndex    string      `xml:"gp_index,attr"`
	OSIndex    string      `xml:"os_index,attr"`
	CPUSet     string      `xml:"cpuset,attr"`
	NodeSet    string      `xml:"nodeset,attr"`
	Name       string      `xml:"name,attr"`
	Subtype    string      `xml:"subtype,attr"`
	BridgeType string      `xml:"bridge_type,attr"`
	BridgePCI  string      `xml:"bridge_pci,attr"`
	BusID      string      `xml:"pci_busid,attr"`
	PCIType    string      `xml:"pci_type,attr"`
	LinkSpeed  string      `xml:"pci_link_speed,attr"`
	Infos      []xmlInfo   `xml:"info"`
	Children   []xmlObject `xml:"object"`
}

type xmlTopology struct {
	XMLName xml.Name    `xml:"topology"`
	Version string      `xml:"version,attr"`
	Objects []xmlObject `xml:"object"`
	Infos   []xmlInfo   `xml:"info"`
	// Distances are hwloc 2.x matrices; NVLinkBandwidth gives NVLink.
	Distances []xmlDistances `xml:"distances2hetero"`
	Uniform   []xmlDistances `xml:"distances2"`
}

// MaxXMLTags bounds the '<' characters (tags, comments, declarations) of
// an hwloc XML input: decoding costs about 2 KiB of allocation and 1.3 KiB
// of live memory per object, so the cap, not the input size, bounds what a
// file of many small objects takes. lstopo's XML of a DGX-class machine has
// about 500; one of a 3584-thread, 16-socket machine about 40 000.
const MaxXMLTags = 1 << 18

// MaxXMLSize bounds an hwloc XML input's bytes: decoding allocates about
// 13 bytes per byte of a long attribute. Real files are tens of KiB.
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
	for _, raw := range bytes.Split(whole, []byte("\n")) {
		switch l := strings.TrimSpace(string(raw)); {
		case l == "":
		case strings.HasPrefix(l, "<") || strings.HasSuffix(l, ">"):
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
	// decoded tree before any of it is built.
	if n := bytes.Count(data, []byte("<")); n > MaxXMLTags {
		return nil, fmt.Errorf("%s: hwloc XML with %d tags, over the %d gdtopo reads (a real machine's has a few thousand); not read", name, n, MaxXMLTags)
	}
	dec := xml.NewDecoder(bytes.NewReader(data))
	// Skip to the root element to tell a foreign XML from a broken one.
	var root xml.StartElement
	for {
		tok, err := dec.Token()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil, fmt.Errorf("%s: no XML element, not hwloc XML", name)
			}
			return nil, fmt.Errorf("%s: malformed XML: %v", name, err)
		}
		if se, ok := tok.(xml.StartElement); ok {
			root = se
			break
		}
	}
	if root.Name.Local != "topology" {
		return nil, fmt.Errorf("%s: XML root <%s> is not hwloc's <topology>", name, root.Name.Local)
	}
	var top xmlTopology
	if err := dec.DecodeElement(&top, &root); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) || strings.Contains(err.Error(), "unexpected EOF") {
			return nil, fmt.Errorf("%s: hwloc XML truncated (%v)", name, err)
		}
		return nil, fmt.Errorf("%s: malformed hwloc XML: %v", name, err)
	}
	if len(top.Objects) == 0 {
		return nil, fmt.Errorf("%s: hwloc XML without objects", name)
	}
	version := "hwloc XML v1 (hwloc 1.x)"
	if top.Version != "" {
		version = "hwloc XML v" + top.Version
	}
	var errs []string
	objs := make([]*object, 0, len(top.Objects))
	for i := range top.Objects {
		o, err := fromXML(&top.Objects[i], 0, &errs)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", name, err)
		}
		objs = append(objs, o)
	}
	root0 := objs[0]
	if len(objs) > 1 { // only one Machine is expected; keep the others under a holder
		root0 = newObject("Holder")
		root0.children = objs
	}
	for _, in := range top.Infos {
		if root0.infos == nil {
			root0.infos = map[string]string{}
		}
		if _, ok := root0.infos[in.Name]; !ok {
			root0.infos[in.Name] = in.Value
		}
	}
	g, err := build(name, root0, version)
	if err != nil {
		return nil, err
	}
	for _, e := range errs {
		g.Warnings = append(g.Warnings, topology.Warning{Subject: name, Message: e})
	}
	top.Distances = append(top.Distances, top.Uniform...)
	nvlinksFromXML(g, name, &top)
	return g, nil
}

// fromXML converts x and its children; attribute problems become warnings
// in errs, nesting past maxDepth an error.
func fromXML(x *xmlObject, depth int, errs *[]string) (*object, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("objects nested over %d deep", maxDepth)
	}
	typ := x.Type
	switch typ {
	case "Socket":
		typ = "Package"
	case "System":
		typ = "Machine"
	case "Bridge":
		if strings.HasPrefix(x.BridgeType, "0-") || x.BusID == "" {
			typ = "HostBridge"
		} else {
			typ = "PCIBridge"
		}
	case "PCIDev":
		typ = "PCI"
	}
	o := newObject(typ)
	if v, err := strconv.Atoi(x.OSIndex); err == nil {
		o.osIndex = v
	}
	bad := func(what, v string) {
		if len(*errs) < 100 {
			*errs = append(*errs, fmt.Sprintf("%s object %s %q unreadable", x.Type, what, v))
		}
	}
	var err error
	if x.CPUSet != "" {
		if o.cpus, err = parseBitmap(x.CPUSet); err == nil {
			o.hasCPUs = true
		} else {
			bad("cpuset", x.CPUSet)
		}
	}
	if x.NodeSet != "" {
		if o.nodes, err = parseBitmap(x.NodeSet); err == nil {
			o.hasNodes = true
		} else {
			bad("nodeset", x.NodeSet)
		}
	}
	if typ == "HostBridge" {
		o.buses = x.BridgePCI
	}
	if typ == "PCI" || typ == "PCIBridge" {
		o.busid, o.link = x.BusID, x.LinkSpeed
		if !parsePCIType(o, x.PCIType) {
			bad("pci_type", x.PCIType)
		}
	}
	if typ == "OSDev" {
		o.name = x.Name
		o.osdev = osdevKind(x.Name)
		if strings.EqualFold(x.Subtype, "OpenFabrics") {
			o.osdev = "rdma"
		}
	}
	for _, in := range x.Infos {
		if o.infos == nil {
			o.infos = map[string]string{}
		}
		o.infos[in.Name] = in.Value
		switch in.Name {
		case "NodeGUID", "Port1State":
			o.osdev = "rdma"
		}
	}
	for i := range x.Children {
		c, err := fromXML(&x.Children[i], depth+1, errs)
		if err != nil {
			return nil, err
		}
		o.children = append(o.children, c)
	}
	return o, nil
}

// parsePCIType reads pci_type "0302 [10de:2330] [10de:16c1] a1" into o.
func parsePCIType(o *object, s string) bool {
	f := strings.Fields(s)
	if len(f) < 2 {
		return false
	}
	c, err := strconv.ParseUint(f[0], 16, 16)
	if err != nil {
		return false
	}
	o.class = int(c)
	v, d, ok := parseIDs(strings.Trim(f[1], "[]"))
	if !ok {
		return false
	}
	o.vendor, o.device = v, d
	if len(f) > 2 {
		if sv, sd, ok := parseIDs(strings.Trim(f[2], "[]")); ok {
			o.subVen, o.subDev = sv, sd
		}
	}
	return true
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
