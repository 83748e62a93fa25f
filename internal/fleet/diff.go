package fleet

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gdtopo/gdtopo/internal/report"
	"github.com/gdtopo/gdtopo/topology"
)

// Difference is one way a machine differs from the machine it is compared
// with: report.MachineDifference, which check --reference reports too.
type Difference = report.MachineDifference

// matching pairs the devices of a reference Topo with a node's by place in
// the tree, kind and model, then the rest by kind and model (moves).
type matching struct {
	ref, node  *Topo
	refAt      map[string]*TopoDevice // by address
	nodeToRef  map[string]*TopoDevice // node address -> the reference device at its place
	refToNode  map[string]*TopoDevice // reference address -> the node device at its place
	movedTo    map[string]*TopoDevice // reference address -> the node device it moved to
	movedFrom  map[string]bool        // node addresses taken by a move
	belowNames map[string]string      // reference bridge -> the named devices right below it
	children   map[string]int         // reference address -> devices right below it
}

func match(ref, node *Topo) *matching {
	ref.setPlaces()
	node.setPlaces()
	m := &matching{ref: ref, node: node, refAt: make(map[string]*TopoDevice, len(ref.Devices)),
		nodeToRef: make(map[string]*TopoDevice, len(node.Devices)), refToNode: make(map[string]*TopoDevice, len(ref.Devices)),
		movedTo: map[string]*TopoDevice{}, movedFrom: map[string]bool{}, belowNames: map[string]string{}, children: map[string]int{}}
	refPlace := make(map[string]*TopoDevice, len(ref.Devices))
	for i := range ref.Devices {
		r := &ref.Devices[i]
		m.refAt[r.BDF] = r
		refPlace[r.Place] = r
	}
	for i := range ref.Devices {
		r := &ref.Devices[i]
		m.children[r.Parent]++
		if p := m.refAt[r.Parent]; p != nil && p.Kind == "bridge" && r.Alias != "" {
			m.belowNames[p.BDF] = strings.TrimPrefix(m.belowNames[p.BDF]+", "+r.Alias, ", ")
		}
	}
	unmatched := map[string][]*TopoDevice{} // node accelerators and NICs at no reference place, by kind and model
	for i := range node.Devices {
		d := &node.Devices[i]
		if r := refPlace[d.Place]; r != nil && r.Kind == d.Kind && r.Model == d.Model {
			m.nodeToRef[d.BDF], m.refToNode[r.BDF] = r, d
		} else if d.Kind != "bridge" {
			unmatched[d.Kind+" "+d.Model] = append(unmatched[d.Kind+" "+d.Model], d)
		}
	}
	// Then by address, where the places differ only because a source put
	// siblings on two buses (setPlaces).
	nodeAt := make(map[string]*TopoDevice, len(node.Devices))
	for i := range node.Devices {
		nodeAt[node.Devices[i].BDF] = &node.Devices[i]
	}
	for i := range ref.Devices {
		r := &ref.Devices[i]
		if d := nodeAt[r.BDF]; d != nil && m.refToNode[r.BDF] == nil && m.nodeToRef[d.BDF] == nil && d.Kind == r.Kind && d.Model == r.Model {
			m.nodeToRef[d.BDF], m.refToNode[r.BDF] = r, d
			k := d.Kind + " " + d.Model
			unmatched[k] = slices.DeleteFunc(unmatched[k], func(u *TopoDevice) bool { return u == d })
		}
	}
	for i := range ref.Devices {
		r := &ref.Devices[i]
		if m.refToNode[r.BDF] != nil {
			continue
		}
		k := r.Kind + " " + r.Model
		if c := unmatched[k]; len(c) > 0 {
			unmatched[k] = c[1:]
			m.movedTo[r.BDF], m.movedFrom[c[0].BDF] = c[0], true
		}
	}
	return m
}

// refAddress is the reference's address for a node device at the same
// place, else the node's own.
func (m *matching) refAddress(bdf string) string {
	if r := m.nodeToRef[bdf]; r != nil {
		return r.BDF
	}
	return bdf
}

// names is what Difference.Names holds for a reference device.
func (m *matching) names(r *TopoDevice) string {
	if r.Kind == "bridge" {
		if s := m.belowNames[r.BDF]; s != "" {
			return "above " + s
		}
		return ""
	}
	return deviceNames(r)
}

// Compare lists how node differs from ref: devices first (by the
// majority's address), then pairs, findings and the host's IOMMU.
// Devices are matched by place in the tree and model, so a renamed HCA or
// a renumbered bus is one difference, not a missing device and an added
// one; a device of the same model found at another place is reported as
// moved, and pairs of a device that is not at the same place in both are
// not compared. It fills in the devices' places where they are empty.
func Compare(ref, node *Topo) []Difference {
	var out []Difference
	m := match(ref, node)
	var links []int // indexes in out of link differences, to drop a port's that its child repeats
	for i := range ref.Devices {
		r := &ref.Devices[i]
		d := m.refToNode[r.BDF]
		base := Difference{Device: r.BDF, Alias: r.Alias, Kind: r.Kind, Names: m.names(r)}
		switch {
		case d != nil:
			if d.BDF != r.BDF {
				diff := base
				diff.What, diff.Majority, diff.Node, diff.Renumbered = "renamed", r.BDF, d.BDF, true
				out = append(out, diff)
			}
			for _, diff := range compareDevice(base, r, d) {
				if diff.What == "link" {
					links = append(links, len(out))
				}
				out = append(out, diff)
			}
		case m.movedTo[r.BDF] != nil:
			diff := base
			diff.What, diff.Majority, diff.Node, diff.Worse = "moved", r.BDF, m.movedTo[r.BDF].BDF, true
			out = append(out, diff)
		case node.Partial != "":
			// A partial source (a subtree it could not read) lacks what it
			// lacks: its "partial" difference says so, and no device it
			// did not read is called missing.
		default:
			diff := base
			diff.What, diff.Majority, diff.Worse = "missing", describe(r), true
			out = append(out, diff)
		}
	}
	out = dropPortLinks(out, links, m)
	for i := range node.Devices {
		d := &node.Devices[i]
		if m.nodeToRef[d.BDF] != nil || m.movedFrom[d.BDF] {
			continue
		}
		out = append(out, Difference{What: "added", Device: d.BDF, Alias: d.Alias, Kind: d.Kind, Names: deviceNames(d), Node: describe(d)})
	}

	nodePairs := make(map[[2]string]*TopoPair, len(node.Pairs))
	for i := range node.Pairs {
		p := &node.Pairs[i]
		nodePairs[[2]string{p.GPU, p.NIC}] = p
	}
	for i := range ref.Pairs {
		r := &ref.Pairs[i]
		g, n := m.refToNode[r.GPU], m.refToNode[r.NIC]
		if g == nil || n == nil {
			continue // a device missing or moved: reported above
		}
		p := nodePairs[[2]string{g.BDF, n.BDF}]
		if p == nil {
			continue
		}
		rg, rn := m.refAt[r.GPU], m.refAt[r.NIC]
		base := Difference{Device: r.GPU, Alias: rg.Alias, NIC: r.NIC, NICAlias: rn.Alias, Names: deviceNames(rn)}
		if p.SMI != r.SMI || p.NCCL != r.NCCL {
			d := base
			d.What, d.Majority, d.Node = "label", r.SMI+"/"+r.NCCL, p.SMI+"/"+p.NCCL
			d.Worse = labelRank(p.SMI) > labelRank(r.SMI) || labelRank(p.NCCL) > labelRank(r.NCCL)
			out = append(out, d)
		}
		if p.GDR != r.GDR {
			d := base
			d.What, d.Majority, d.Node, d.Worse = "gdr", gdrWord(r.GDR), gdrWord(p.GDR), r.GDR
			out = append(out, d)
		}
		// A NIC with no active port carries no RDMA: the advisor's figure
		// for it assumes a rate it cannot know, and its port_state is the
		// difference.
		if p.ExpectedGbps != r.ExpectedGbps && !portsDown(rn) && !portsDown(n) {
			d := base
			d.What, d.Majority, d.Node = "throughput", gbpsWord(r.ExpectedGbps), gbpsWord(p.ExpectedGbps)
			d.Worse = p.ExpectedGbps < r.ExpectedGbps
			out = append(out, d)
		}
	}
	out = append(out, m.compareFindings()...)
	if ref.IOMMU != node.IOMMU {
		out = append(out, Difference{What: "host_iommu", Majority: ref.IOMMU, Node: node.IOMMU})
	}
	if ref.Partial != node.Partial {
		out = append(out, Difference{What: "partial", Majority: ref.Partial, Node: node.Partial})
	}
	return out
}

// dropPortLinks removes a port's link difference where the one device
// below it has the same: a downstream or root port's link status is the
// link to that device (PCIe Base Specification, Link Status register of a
// Downstream Port), one fact, reported on the device.
func dropPortLinks(out []Difference, links []int, m *matching) []Difference {
	byDevice := make(map[string]*Difference, len(links))
	for _, i := range links {
		byDevice[out[i].Device] = &out[i]
	}
	drop := map[int]bool{}
	for _, i := range links {
		r := m.refAt[out[i].Device]
		p := byDevice[r.Parent]
		if p == nil || p.Majority != out[i].Majority || p.Node != out[i].Node || p.Kind != "bridge" || m.children[r.Parent] != 1 {
			continue
		}
		for _, j := range links {
			if &out[j] == p {
				drop[j] = true
			}
		}
	}
	if len(drop) == 0 {
		return out
	}
	kept := out[:0]
	for i, d := range out {
		if !drop[i] {
			kept = append(kept, d)
		}
	}
	return kept
}

// compareFindings compares the findings per code and device (the
// reference's address at the device's place): a finding that spreads to a
// NIC, or leaves one, differs on that NIC only. Devices that differ the
// same way under one code make one difference. Findings on no device are
// compared per code.
func (m *matching) compareFindings() []Difference {
	type fact struct{ code, dev string }
	refSev, nodeSev := map[fact]string{}, map[fact]string{}
	var order []fact // first seen, reference first
	add := func(to map[fact]string, f TopoFinding, addr func(string) string) {
		devs := f.Devices
		if len(devs) == 0 {
			devs = []string{""}
		}
		for _, d := range devs {
			k := fact{f.Code, addr(d)}
			if _, seen := refSev[k]; !seen {
				if _, seen := nodeSev[k]; !seen {
					order = append(order, k)
				}
			}
			if old, ok := to[k]; !ok || severityRank(f.Severity) < severityRank(old) {
				to[k] = f.Severity
			}
		}
	}
	for _, f := range m.ref.Findings {
		add(refSev, f, func(s string) string { return s })
	}
	for _, f := range m.node.Findings {
		add(nodeSev, f, m.refAddress)
	}
	type change struct{ what, code, majority, node string }
	byChange := map[change]*Difference{}
	var out []*Difference
	for _, k := range order {
		r, inRef := refSev[k]
		n, inNode := nodeSev[k]
		var c change
		switch {
		case inRef && inNode && r == n:
			continue
		case inRef && inNode:
			c = change{"finding_severity", k.code, r, n}
		case inNode:
			c = change{"finding_added", k.code, "", n}
		default:
			c = change{"finding_missing", k.code, r, ""}
		}
		d := byChange[c]
		if d == nil {
			d = &Difference{What: c.what, Code: c.code, Majority: c.majority, Node: c.node,
				Worse: c.what == "finding_added" || c.what == "finding_severity" && severityRank(n) < severityRank(r)}
			byChange[c] = d
			out = append(out, d)
		}
		if k.dev != "" {
			d.Devices = append(d.Devices, k.dev)
		}
	}
	diffs := make([]Difference, len(out))
	for i, d := range out {
		slices.Sort(d.Devices)
		d.Names = m.deviceList(d.Devices)
		diffs[i] = *d
	}
	slices.SortStableFunc(diffs, func(a, b Difference) int { return cmpStrings(a.Code, b.Code, a.What, b.What) })
	return diffs
}

// deviceList names a finding's devices for people: "NIC2 0000:3d:00.0,
// 0000:3b:01.0 (above NIC2)", "the host" for none.
func (m *matching) deviceList(devs []string) string {
	if len(devs) == 0 {
		return "the host"
	}
	parts := make([]string, len(devs))
	for i, b := range devs {
		parts[i] = b
		r := m.refAt[b]
		if r == nil {
			if d := m.nodeDevice(b); d != nil && d.Alias != "" {
				parts[i] = d.Alias + " " + b + " (not in the majority)"
			}
			continue
		}
		if r.Alias != "" {
			parts[i] = r.Alias + " " + b
		} else if n := m.names(r); n != "" {
			parts[i] = b + " (" + n + ")"
		}
	}
	return strings.Join(parts, ", ")
}

// nodeDevice is the node's device at an address.
func (m *matching) nodeDevice(bdf string) *TopoDevice {
	for i := range m.node.Devices {
		if m.node.Devices[i].BDF == bdf {
			return &m.node.Devices[i]
		}
	}
	return nil
}

// compareDevice lists how d differs from r, the same device (same place
// and model) in the majority.
func compareDevice(base Difference, r, d *TopoDevice) []Difference {
	var out []Difference
	add := func(what, majority, node string, worse bool) {
		diff := base
		diff.What, diff.Majority, diff.Node, diff.Worse = what, majority, node, worse
		out = append(out, diff)
	}
	if !slices.Equal(r.RDMA, d.RDMA) || !slices.Equal(r.Netdev, d.Netdev) {
		add("renamed", namesWord(r), namesWord(d), false)
	}
	if r.NUMANode != d.NUMANode || numaRead(r) != numaRead(d) {
		// A numa_node of -1 is what NCCL reads, whatever node gdtopo
		// infers from local_cpus or the host bridge: it differs as unknown.
		add("numa_node", numaWord(r), numaWord(d), d.NUMANode < 0 && r.NUMANode >= 0 || numaRead(r) && !numaRead(d))
	}
	if r.CurrentGTs != d.CurrentGTs || r.CurrentWidth != d.CurrentWidth {
		add("link", linkWord(r.CurrentGTs, r.CurrentWidth), linkWord(d.CurrentGTs, d.CurrentWidth),
			d.CurrentGTs*float64(d.CurrentWidth) < r.CurrentGTs*float64(r.CurrentWidth))
	}
	if r.MaxGTs != d.MaxGTs || r.MaxWidth != d.MaxWidth {
		add("link_capability", linkWord(r.MaxGTs, r.MaxWidth), linkWord(d.MaxGTs, d.MaxWidth),
			d.MaxGTs*float64(d.MaxWidth) < r.MaxGTs*float64(r.MaxWidth))
	}
	if len(r.Ports) > 0 && len(d.Ports) > 0 {
		out = append(out, comparePorts(base, r, d)...)
	} else if r.PortRateGbps != d.PortRateGbps {
		// Without the ports' files, the rate is the device's.
		add("port_rate", gbpsWord(r.PortRateGbps), gbpsWord(d.PortRateGbps), d.PortRateGbps < r.PortRateGbps)
	}
	if r.Bond != d.Bond {
		add("bond", r.Bond, d.Bond, d.Bond == "")
	}
	if r.ACS != d.ACS {
		add("acs", r.ACS, d.ACS, d.ACS == "redirect")
	}
	if r.IOMMU != d.IOMMU {
		add("iommu", orNone(r.IOMMU), orNone(d.IOMMU), strings.HasPrefix(d.IOMMU, "DMA") && !strings.HasPrefix(r.IOMMU, "DMA"))
	}
	return out
}

// comparePorts lists how d's RDMA ports differ from r's, each port matched
// by its RDMA device's place in the device's list and its number (so a
// renamed mlx5_1 is still the same port). A port's rate is compared only
// where it is active on both: a port that is down shows a rate no link
// has, and its state is the difference (NCCL src/transport/net_ib.cc,
// ncclIbInitDevices, uses only IBV_PORT_ACTIVE ports).
func comparePorts(base Difference, r, d *TopoDevice) []Difference {
	var out []Difference
	add := func(port, what, majority, node string, worse bool) {
		diff := base
		diff.Port, diff.What, diff.Majority, diff.Node, diff.Worse = port, what, majority, node, worse
		out = append(out, diff)
	}
	nodePorts := make(map[string]*TopoPort, len(d.Ports))
	for i := range d.Ports {
		nodePorts[portKey(d, &d.Ports[i])] = &d.Ports[i]
	}
	seen := make(map[string]bool, len(r.Ports))
	for i := range r.Ports {
		rp := &r.Ports[i]
		k := portKey(r, rp)
		seen[k] = true
		name := rp.RDMA + " port " + rp.Port
		np := nodePorts[k]
		if np == nil {
			add(name, "port_state", portStateWord(rp), "none", false)
			continue
		}
		if rp.State != np.State || rp.PhysState != np.PhysState {
			add(name, "port_state", portStateWord(rp), portStateWord(np), rp.State == "ACTIVE" && np.State != "" && np.State != "ACTIVE")
		}
		if rp.State == "ACTIVE" && np.State == "ACTIVE" && rp.RateGbps != np.RateGbps {
			add(name, "port_rate", gbpsWord(rp.RateGbps), gbpsWord(np.RateGbps), np.RateGbps < rp.RateGbps)
		}
		if rp.LinkLayer != np.LinkLayer {
			add(name, "link_layer", orNone(rp.LinkLayer), orNone(np.LinkLayer), false)
		}
	}
	for i := range d.Ports {
		if np := &d.Ports[i]; !seen[portKey(d, np)] {
			add(np.RDMA+" port "+np.Port, "port_state", "none", portStateWord(np), false)
		}
	}
	return out
}

// portKey names a port by its RDMA device's index in the device's RDMA
// names, else the name, and its number.
func portKey(d *TopoDevice, p *TopoPort) string {
	if i := slices.Index(d.RDMA, p.RDMA); i >= 0 {
		return strconv.Itoa(i) + "/" + p.Port
	}
	return p.RDMA + "/" + p.Port
}

// portStateWord is a port's state and physical state: "DOWN (Disabled)".
func portStateWord(p *TopoPort) string {
	s := p.State
	if s == "" {
		s = "unknown"
	}
	if p.PhysState != "" {
		s += " (" + p.PhysState + ")"
	}
	return s
}

// portsDown reports whether d has RDMA ports whose states were all read
// and none is active (topology.Device.PortsAllDown).
func portsDown(d *TopoDevice) bool {
	if d == nil || len(d.Ports) == 0 {
		return false
	}
	for _, p := range d.Ports {
		if p.State == "" || p.State == "ACTIVE" {
			return false
		}
	}
	return true
}

// numaRead reports whether d's NUMA node is the one its numa_node file
// gives (or the source's own, where it has no such file).
func numaRead(d *TopoDevice) bool {
	return d.NUMAFrom == "" || d.NUMAFrom == topology.NUMAFromFile
}

// numaWord is d's NUMA node in words: the node numa_node gives, else
// unknown with the node gdtopo infers and from what.
func numaWord(d *TopoDevice) string {
	if numaRead(d) {
		return strconv.Itoa(d.NUMANode)
	}
	return fmt.Sprintf("unknown (no numa_node; %d from %s)", d.NUMANode, d.NUMAFrom)
}

// severityRank orders severities worst first.
func severityRank(s string) int {
	switch s {
	case "critical":
		return 0
	case "warning":
		return 1
	}
	return 2
}

// deviceNames is a device's RDMA names, else its interfaces.
func deviceNames(d *TopoDevice) string {
	if d.Unidentified {
		return "unidentified"
	}
	if len(d.RDMA) > 0 {
		return strings.Join(d.RDMA, ",")
	}
	return strings.Join(d.Netdev, ",")
}

// namesWord is a device's RDMA and interface names.
func namesWord(d *TopoDevice) string {
	s := strings.Join(append(slices.Clone(d.RDMA), d.Netdev...), " ")
	if s == "" {
		return "no names"
	}
	return s
}

// describe is a device in a few words: model, name, parent.
func describe(d *TopoDevice) string {
	s := d.Model
	if d.Name != "" {
		s += " " + d.Name
	}
	if d.Parent != "" {
		s += " under " + d.Parent
	}
	return s
}

func linkWord(gts float64, width int) string {
	if gts == 0 && width == 0 {
		return "unknown"
	}
	return fmt.Sprintf("x%d at %s GT/s", width, strconv.FormatFloat(gts, 'g', -1, 64))
}

func gbpsWord(g float64) string {
	if g == 0 {
		return "unknown"
	}
	return strconv.FormatFloat(g, 'f', 1, 64) + " Gb/s"
}

func gdrWord(b bool) string {
	if b {
		return "GPUDirect RDMA"
	}
	return "no GPUDirect RDMA"
}

// orNone is s, or "none" when it is empty.
func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
