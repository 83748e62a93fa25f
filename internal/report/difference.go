package report

import (
	"fmt"
	"strings"

	"github.com/gdtopo/gdtopo/internal/words"
)

// MachineDifference is one way a machine differs from the machine it is compared
// with (its group's majority, the first group's, or the reference). Each
// fact differs once: a device's, a link's (reported on the device below
// it, not again on its port), a pair's, a finding's on some devices.
type MachineDifference struct {
	// What differs: missing (a device the majority has is absent), added,
	// moved (the same model at another place in the tree), renamed (RDMA
	// or interface names on the same device, or the device's address where
	// the bus was renumbered: the same place in the tree, Majority and
	// Node then addresses), numa_node, link (current speed or width),
	// link_capability, port_rate (the NIC's fastest active port, or with
	// Port one active port's; a port down is its port_state), bond (the bonding interface a NIC's
	// netdev is enslaved to, RoCE LAG), acs, iommu (a device's IOMMU
	// group), port_state (an RDMA port's state and physical state, Port
	// naming it), link_layer (a port's), label (a pair's nvidia-smi or NCCL
	// label), gdr, throughput (a pair's expected Gb/s; not compared where
	// the NIC has no active port on either machine, its port_state says
	// it), finding_added, finding_missing,
	// finding_severity (compared per code and device: Devices are those
	// whose finding differs), host_iommu, partial (the source holds part of
	// the machine: topology.Graph.Partial).
	What   string `json:"what"`
	Device string `json:"device,omitempty"` // the device's address (the majority's, for moved and renamed)
	Alias  string `json:"alias,omitempty"`  // its name in check's tables: GPU2, NIC3
	Kind   string `json:"kind,omitempty"`   // accelerator, nic, bridge, other (unidentified)
	// Names are the device's RDMA or interface names in the majority, or
	// for a bridge the devices below it, for people.
	Names    string   `json:"names,omitempty"`
	NIC      string   `json:"nic,omitempty"`       // for pairs: the NIC's address; Device is the accelerator
	NICAlias string   `json:"nic_alias,omitempty"` // for pairs: the NIC's name in check's tables
	Code     string   `json:"code,omitempty"`      // for findings
	Port     string   `json:"port,omitempty"`      // for ports: the majority's RDMA device and port, "mlx5_3 port 1"
	Devices  []string `json:"devices,omitempty"`   // for findings: the devices (the majority's addresses) whose finding differs
	Majority string   `json:"majority"`            // the value in the majority ("" absent)
	Node     string   `json:"node"`                // the value on this machine ("" absent)
	// Worse is set for a slower link or pair, a lost device, GPUDirect
	// RDMA lost, a worse label, a NIC out of the bond the majority's is
	// in, ACS redirect or IOMMU translation turned on, a finding the
	// majority lacks or a worse severity. A machine better than a
	// degraded majority differs without being worse.
	Worse bool `json:"worse"`
	// Renumbered marks a renamed address: the same device at the same
	// place under another bus number, which no workload sees.
	Renumbered bool `json:"renumbered,omitempty"`
}

// String is the difference in one line for people, devices named as
// check's tables name them (GPU2, NIC3) with their addresses.
func (d MachineDifference) String() string { return d.Text("majority") }

// Text is String with other words for what the machine is compared with:
// "reference" with fleet --reference.
func (d MachineDifference) Text(against string) string {
	subject := d.Alias
	if subject == "" {
		subject = d.Kind
	}
	if d.Device != "" {
		subject += " " + d.Device
	}
	if d.Port != "" {
		subject += " " + d.Port // names the RDMA device
	} else if d.Names != "" {
		subject += " (" + d.Names + ")"
	}
	subject = strings.TrimSpace(subject)
	switch d.What {
	case "missing":
		return subject + ": missing (" + against + ": " + d.Majority + ")"
	case "added":
		return subject + ": not in the " + against + " (" + d.Node + ")"
	case "moved":
		return subject + ": moved to " + d.Node
	case "renamed":
		if d.Renumbered {
			return subject + ": renamed " + d.Majority + " -> " + d.Node + " (bus renumbered, same place in the tree)"
		}
		return subject + ": renamed " + d.Majority + " -> " + d.Node
	case "label", "gdr", "throughput":
		return fmt.Sprintf("pair %s - %s: %s %s, %s %s", pairEnd(d.Alias, d.Device, ""), pairEnd(d.NICAlias, d.NIC, d.Names),
			d.What, d.Node, against, d.Majority)
	case "finding_added":
		return "finding " + d.Code + " (" + d.Node + ") on " + d.Names + ": the " + against + " does not have it there"
	case "finding_missing":
		return "finding " + d.Code + " (" + d.Majority + ") on " + d.Names + ": the " + against + " has it there, this machine does not"
	case "finding_severity":
		return "finding " + d.Code + " on " + d.Names + ": " + d.Node + ", " + against + " " + d.Majority
	case "host_iommu":
		return "host IOMMU: " + orNone(d.Node) + ", " + against + " " + orNone(d.Majority)
	case "partial":
		return "the source holds part of the machine: " + orNone(d.Node) + ", " + against + " " + orNone(d.Majority)
	}
	return fmt.Sprintf("%s: %s %s, %s %s", subject, strings.ReplaceAll(d.What, "_", " "), orNone(d.Node), against, orNone(d.Majority))
}

// pairEnd names one end of a pair: "NIC3 0000:41:00.0 (mlx5_3)".
func pairEnd(alias, bdf, names string) string {
	s := strings.TrimSpace(alias + " " + bdf)
	if names != "" {
		s += " (" + names + ")"
	}
	return s
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// Reference is how a machine differs from a known-good one (check
// --reference), in the terms fleet --reference uses: each difference's
// Majority is the reference's value.
type Reference struct {
	Source      string              `json:"source"` // the reference as given
	Differences []MachineDifference `json:"differences"`
	Worse       int                 `json:"worse"` // how many Differences are worse
}

// SetReference records how the machine differs from the reference named
// source. A worse difference counts as a critical finding does: the exit
// status is 3 at every --fail-on level but never, since a machine worse
// than the one chosen as known-good is what the comparison is asked for.
func (r *Report) SetReference(source string, diffs []MachineDifference) {
	ref := &Reference{Source: source, Differences: diffs}
	if ref.Differences == nil {
		ref.Differences = []MachineDifference{}
	}
	for _, d := range diffs {
		if d.Worse {
			ref.Worse++
		}
	}
	r.Reference = ref
	if ref.Worse > 0 && r.FailOn != FailOnNever {
		r.ExitStatus = ExitFindings
	}
}

// ReferenceHeading is the title of check's section on the reference:
// what it is and how many differences; "" without one.
func (r *Report) ReferenceHeading() string {
	ref := r.Reference
	switch {
	case ref == nil:
		return ""
	case len(ref.Differences) == 0:
		return "Like the reference " + ref.Source + ": no differences"
	}
	return fmt.Sprintf("Unlike the reference %s (%s, %d worse)", ref.Source, words.Count(len(ref.Differences), "difference"), ref.Worse)
}
