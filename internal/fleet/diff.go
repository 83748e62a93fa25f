package fleet

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Difference is one way a machine differs from the machine it is compared
// with (its group's majority, or the first group's).
type Difference struct {
	// What differs: missing (a device the majority has is absent), added,
	// moved (the same model at another address), renamed (RDMA or interface
	// names on the same device), parent, numa_node, link (current speed or
	// width), link_capability, port_rate, bond (the bonding interface a
	// NIC's netdev is enslaved to, RoCE LAG), acs, iommu (a device's IOMMU
	// group), label (a pair's nvidia-smi or NCCL label), gdr, throughput (a
	// pair's expected Gb/s), finding_added, finding_missing,
	// finding_severity, host_iommu, partial (the source holds part of the
	// machine: topology.Graph.Partial).
	What     string `json:"what"`
	Device   string `json:"device,omitempty"` // the device's address (the majority's, for moved)
	Kind     string `json:"kind,omitempty"`   // accelerator, nic, bridge, other (unidentified)
	Names    string `json:"names,omitempty"`  // the device's RDMA or interface names in the majority, for people
	NIC      string `json:"nic,omitempty"`    // for pairs: the NIC's address; Device is the accelerator
	Code     string `json:"code,omitempty"`   // for findings
	Majority string `json:"majority"`         // the value in the majority ("" absent)
	Node     string `json:"node"`             // the value on this machine ("" absent)
	// Worse is set for a slower link or pair, a lost device, GPUDirect
	// RDMA lost, a worse label, a NIC out of the bond the majority's is
	// in, ACS redirect or IOMMU translation turned on, a new finding.
	Worse bool `json:"worse"`
}

// String is the difference in one line for people.
func (d Difference) String() string {
	subject := d.Kind
	if d.Device != "" {
		subject += " " + d.Device
	}
	if d.Names != "" {
		subject += " (" + d.Names + ")"
	}
	subject = strings.TrimSpace(subject)
	switch d.What {
	case "missing":
		return subject + ": missing (majority: " + d.Majority + ")"
	case "added":
		return subject + ": not in the majority (" + d.Node + ")"
	case "moved":
		return subject + ": moved to " + d.Node
	case "renamed":
		return subject + ": renamed " + d.Majority + " -> " + d.Node
	case "label", "gdr", "throughput":
		return fmt.Sprintf("pair %s - %s (%s): %s %s, majority %s", d.Device, d.NIC, d.Names, d.What, d.Node, d.Majority)
	case "finding_added":
		return "finding " + d.Code + " (" + d.Node + "): the majority does not have it"
	case "finding_missing":
		return "finding " + d.Code + " (" + d.Majority + "): the majority has it, this machine does not"
	case "finding_severity":
		return "finding " + d.Code + ": " + d.Node + ", majority " + d.Majority
	case "host_iommu":
		return "host IOMMU: " + orNone(d.Node) + ", majority " + orNone(d.Majority)
	case "partial":
		return "the source holds part of the machine: " + orNone(d.Node) + ", majority " + orNone(d.Majority)
	}
	return fmt.Sprintf("%s: %s %s, majority %s", subject, strings.ReplaceAll(d.What, "_", " "), orNone(d.Node), orNone(d.Majority))
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// Compare lists how node differs from ref: devices first (by the
// majority's address), then pairs, findings and the host's IOMMU.
// Devices are matched by place and model, so a renamed HCA is one
// difference, not a missing device and an added one; a device of the
// same model found at another address is reported as moved, and pairs of
// a device that is not at the same place in both are not compared.
func Compare(ref, node *Topo) []Difference {
	var out []Difference
	at := func(t *Topo) map[string]*TopoDevice {
		m := make(map[string]*TopoDevice, len(t.Devices))
		for i := range t.Devices {
			m[t.Devices[i].BDF] = &t.Devices[i]
		}
		return m
	}
	refAt, nodeAt := at(ref), at(node)
	same := func(a, b *TopoDevice) bool { return a != nil && b != nil && a.Model == b.Model && a.Kind == b.Kind }

	// Accelerators and NICs of node not matched at their place, by model:
	// candidates for a move.
	unmatched := map[string][]*TopoDevice{}
	for i := range node.Devices {
		d := &node.Devices[i]
		if !same(refAt[d.BDF], d) && d.Kind != "bridge" {
			unmatched[d.Kind+" "+d.Model] = append(unmatched[d.Kind+" "+d.Model], d)
		}
	}
	moved := map[string]bool{} // node addresses taken by a move
	for i := range ref.Devices {
		r := &ref.Devices[i]
		d := nodeAt[r.BDF]
		base := Difference{Device: r.BDF, Kind: r.Kind, Names: deviceNames(r)}
		if same(r, d) {
			out = append(out, compareDevice(base, r, d)...)
			continue
		}
		diff := base
		k := r.Kind + " " + r.Model
		if c := unmatched[k]; len(c) > 0 {
			unmatched[k] = c[1:]
			moved[c[0].BDF] = true
			diff.What, diff.Majority, diff.Node, diff.Worse = "moved", r.BDF, c[0].BDF, true
		} else if node.Partial != "" && d == nil {
			// A partial source (a subtree it could not read) lacks what it
			// lacks: its "partial" difference says so, and no device it
			// did not read is called missing.
			continue
		} else {
			diff.What, diff.Majority, diff.Worse = "missing", describe(r), true
		}
		out = append(out, diff)
	}
	for i := range node.Devices {
		d := &node.Devices[i]
		if same(refAt[d.BDF], d) || moved[d.BDF] {
			continue
		}
		out = append(out, Difference{What: "added", Device: d.BDF, Kind: d.Kind, Names: deviceNames(d), Node: describe(d)})
	}

	nodePairs := make(map[[2]string]*TopoPair, len(node.Pairs))
	for i := range node.Pairs {
		p := &node.Pairs[i]
		nodePairs[[2]string{p.GPU, p.NIC}] = p
	}
	for i := range ref.Pairs {
		r := &ref.Pairs[i]
		p := nodePairs[[2]string{r.GPU, r.NIC}]
		if p == nil || !same(refAt[r.GPU], nodeAt[r.GPU]) || !same(refAt[r.NIC], nodeAt[r.NIC]) {
			continue // a device missing or moved: reported above
		}
		base := Difference{Device: r.GPU, NIC: r.NIC, Names: deviceNames(refAt[r.NIC])}
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
		if p.ExpectedGbps != r.ExpectedGbps {
			d := base
			d.What, d.Majority, d.Node = "throughput", gbpsWord(r.ExpectedGbps), gbpsWord(p.ExpectedGbps)
			d.Worse = p.ExpectedGbps < r.ExpectedGbps
			out = append(out, d)
		}
	}

	findingKey := func(f TopoFinding) string { return f.Code + " " + strings.Join(f.Devices, ",") }
	refFindings := map[string]TopoFinding{}
	for _, f := range ref.Findings {
		refFindings[findingKey(f)] = f
	}
	nodeFindings := map[string]bool{}
	for _, f := range node.Findings {
		nodeFindings[findingKey(f)] = true
		r, ok := refFindings[findingKey(f)]
		switch {
		case !ok:
			out = append(out, Difference{What: "finding_added", Code: f.Code, Node: f.Severity + " on " + devicesWord(f.Devices), Worse: true})
		case r.Severity != f.Severity:
			out = append(out, Difference{What: "finding_severity", Code: f.Code, Majority: r.Severity, Node: f.Severity,
				Worse: severityRank(f.Severity) < severityRank(r.Severity)})
		}
	}
	for _, f := range ref.Findings {
		if !nodeFindings[findingKey(f)] {
			out = append(out, Difference{What: "finding_missing", Code: f.Code, Majority: f.Severity + " on " + devicesWord(f.Devices)})
		}
	}
	if ref.IOMMU != node.IOMMU {
		out = append(out, Difference{What: "host_iommu", Majority: ref.IOMMU, Node: node.IOMMU})
	}
	if ref.Partial != node.Partial {
		out = append(out, Difference{What: "partial", Majority: ref.Partial, Node: node.Partial})
	}
	return out
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
	if r.Parent != d.Parent {
		add("parent", r.Parent, d.Parent, true)
	}
	if r.NUMANode != d.NUMANode {
		add("numa_node", strconv.Itoa(r.NUMANode), strconv.Itoa(d.NUMANode), d.NUMANode < 0)
	}
	if r.CurrentGTs != d.CurrentGTs || r.CurrentWidth != d.CurrentWidth {
		add("link", linkWord(r.CurrentGTs, r.CurrentWidth), linkWord(d.CurrentGTs, d.CurrentWidth),
			d.CurrentGTs*float64(d.CurrentWidth) < r.CurrentGTs*float64(r.CurrentWidth))
	}
	if r.MaxGTs != d.MaxGTs || r.MaxWidth != d.MaxWidth {
		add("link_capability", linkWord(r.MaxGTs, r.MaxWidth), linkWord(d.MaxGTs, d.MaxWidth),
			d.MaxGTs*float64(d.MaxWidth) < r.MaxGTs*float64(r.MaxWidth))
	}
	if r.PortRateGbps != d.PortRateGbps {
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

func devicesWord(devs []string) string {
	if len(devs) == 0 {
		return "the host"
	}
	return strings.Join(devs, ",")
}
