package advisor

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gdtopo/gdtopo/internal/words"
	"github.com/gdtopo/gdtopo/topology"
)

// ReasonNoRDMA is the reason given for a NIC set aside for having no RDMA
// device.
const ReasonNoRDMA = "no RDMA device: NCCL would use sockets"

// SetAsideNIC is a NIC left out of the compute rails, and why.
type SetAsideNIC struct {
	NIC    *topology.Device
	Reason string
}

// computeNICs splits the NICs into compute rails and the ones set aside:
//   - a port of a RoCE LAG bond whose RDMA device sits on another function
//     of the bond (mlx5 RoCE LAG: one mlx5_bond_N on the first function)
//     is part of that NIC, not a rail of its own;
//   - a NIC carrying the default route (and the other functions of its
//     card) is the management or storage network;
//   - a NIC without an RDMA device, when others have one, is no rail.
//
// A rule that would leave no compute NIC is not applied. BlueField DPU mode
// cannot be told from the host's sysfs and is not a rule here.
func computeNICs(g *topology.Graph) ([]*topology.Device, []SetAsideNIC) {
	all := g.OfKind(topology.KindNIC)
	aside := map[*topology.Device]string{}
	bondRDMA := map[string]*topology.Device{}
	for _, n := range all {
		if n.Bond != "" && len(n.RDMA) > 0 {
			bondRDMA[n.Bond] = n
		}
	}
	for _, n := range all {
		if o := bondRDMA[n.Bond]; n.Bond != "" && len(n.RDMA) == 0 && o != nil {
			aside[n] = fmt.Sprintf("port of bond %s, whose RDMA device %s (RoCE LAG) is on %s", n.Bond, o.RDMA[0], o.BDF())
		}
	}
	remaining := func(extra map[*topology.Device]string) int {
		k := 0
		for _, n := range all {
			if _, ok := aside[n]; ok {
				continue
			}
			if _, ok := extra[n]; !ok {
				k++
			}
		}
		return k
	}
	if r := g.System.DefaultRouteIf; r != "" {
		route := map[*topology.Device]string{}
		for _, n := range all {
			if slices.Contains(n.Netdevs, r) || n.Bond == r {
				for _, m := range all {
					if m.Addr.SameDevice(n.Addr) {
						route[m] = fmt.Sprintf("carries the default route (%s, proc/net/route) or shares its card: management/storage network", r)
					}
				}
			}
		}
		if remaining(route) > 0 {
			for n, why := range route {
				if _, ok := aside[n]; !ok {
					aside[n] = why
				}
			}
		}
	}
	plain := map[*topology.Device]string{}
	for _, n := range all {
		if len(n.RDMA) == 0 {
			plain[n] = ReasonNoRDMA
		}
	}
	if remaining(plain) > 0 {
		for n, why := range plain {
			if _, ok := aside[n]; !ok {
				aside[n] = why
			}
		}
	}
	var compute []*topology.Device
	var out []SetAsideNIC
	for _, n := range all {
		if why, ok := aside[n]; ok {
			out = append(out, SetAsideNIC{NIC: n, Reason: why})
		} else {
			compute = append(compute, n)
		}
	}
	return compute, out
}

// findSocketDirect names the halves of each Socket Direct card: one NIC
// with a PCIe link per socket, whose port the halves share. Each
// accelerator should use the half on its own socket, which the plan's
// locality already prefers.
func (a *analysis) findSocketDirect(plan Plan) {
	var g group
	seen := map[*topology.Device]bool{}
	for _, n := range a.g.OfKind(topology.KindNIC) {
		peers := a.g.SocketDirectPeers(n)
		if len(peers) == 0 || seen[n] {
			continue
		}
		card := append([]*topology.Device{n}, peers...)
		users := 0
		for _, d := range card {
			seen[d] = true
			for _, as := range plan.Assignments {
				if as.NIC == d {
					users++
				}
			}
		}
		port := "its port (rate unknown)"
		if n.PortRateGbps > 0 {
			port = "its " + words.Gbps(n.PortRateGbps) + " port"
		}
		g.add(card, fmt.Sprintf("%s are one card (VPD serial %s), %d accelerators planned on it, sharing %s",
			strings.Join(bdfs(card), " + "), n.VPDSN(), users, port), RemedyStep{},
			a.evidence(n, "sys/bus/pci/devices/"+n.BDF()+"/vpd: SN", "VPD serial number "+n.VPDSN()))
	}
	a.emit("socket-direct", Info, &g, "Socket Direct: %s",
		[]RemedyStep{manual("run each accelerator's ranks on the half of the card on its own socket", "the rail plan does; the halves share the card's port bandwidth")}, nil)
}

// cardLoad is the load (ranks) planned on nics[j]'s card: its own load
// plus that of its Socket Direct halves, which share its port; -1 where
// one of them is unknown (negative).
func cardLoad(g *topology.Graph, nics []*topology.Device, load []int, j int) int {
	n := load[j]
	for _, p := range g.SocketDirectPeers(nics[j]) {
		if k := slices.Index(nics, p); k >= 0 {
			if load[k] < 0 || n < 0 {
				return -1
			}
			n += load[k]
		}
	}
	return n
}

// linkLoad counts the load (ranks) planned on NIC j and on the other
// NICs that are functions of its device (same domain, bus and device
// number: the ports of a dual-port card), which all cross the device's
// one PCIe link (PCI Express Base Specification, multi-function devices
// share their Link); -1 where one of them is unknown (negative).
func linkLoad(nics []*topology.Device, load []int, j int) int {
	n := 0
	a := nics[j].Addr
	for k, o := range nics {
		if b := o.Addr; b.Domain == a.Domain && b.Bus == a.Bus && b.Device == a.Device && o.Positional() == "" {
			if load[k] < 0 {
				return -1
			}
			n += load[k]
		}
	}
	return max(n, load[j])
}
