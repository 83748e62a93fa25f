package advisor

import (
	"fmt"

	"github.com/gdtopo/gdtopo/topology"
)

// PXN: NCCL reaches a NIC through an NVLink peer GPU that sits near it
// (ncclTopoComputePaths, src/graph/paths.cc: "Check whether we can access
// the NIC through another NVLink-connected GPU (PXN)"), and then judges
// GPUDirect RDMA by the peer's distance to the NIC (ncclTopoCheckGdr: "In
// case of PXN, use the intermediate GPU distance instead"). Only NVLink the
// source records counts (an NCCL topology, hwloc's NVLink matrix, the
// host's nvidia-smi topo -m); nvidia-smi's labels stay PCIe ones.

// pairKey is a pair's ends.
type pairKey [2]*topology.Device

// pxnRoute is the peer GPU NCCL goes through to a NIC, and the peer's
// NCCL path type to it, which decides GDR.
type pxnRoute struct {
	peer  *topology.Device
	label topology.Label
}

// pxnPeers finds, for each accelerator–NIC pair that NCCL would route
// through PXN, the peer GPU it goes through, by the rules of a.v:
//
//   - before 2.18: a pair farther than PXB goes through any NVLink peer at
//     PXB or nearer to the NIC, preferably one whose own NIC it is;
//   - from 2.18: only through the NIC's local GPU (ncclTopoGetLocalGpu: of
//     the GPUs nearest the NIC, the first whose own NIC it is), if that GPU
//     is at PXB or nearer to the NIC (P2C from 2.27 with NCCL_PXN_C2C,
//     default 0 in 2.27 and 1 from 2.28), joined to ours by NVLink, and
//     either has more bandwidth to the NIC or spares a path through the
//     CPU (ours farther than PXB; farther than PXN from 2.27);
//   - from 2.30 also only where the peer's own GDR reads are on.
//
// NCCL_PXN_DISABLE=1 turns it off. NCCL's path bandwidths are taken as the
// pairs' narrowest links (and the inter-socket link across sockets); a
// GPU's own NICs are its nearest by bandwidth, then path type, as
// ncclTopoGetLocal orders them.
//
// maybe holds the pairs that would go through a peer if NVLink joined them,
// where the source cannot show whether it does (NV?).
func (a *analysis) pxnPeers() (sure, maybe map[pairKey]pxnRoute) {
	if n, _ := a.envParam("NCCL_PXN_DISABLE", 0); n == 1 {
		return nil, nil
	}
	at := make(map[pairKey]*topology.Pair, len(a.pairs))
	for i := range a.pairs {
		p := &a.pairs[i]
		at[pairKey{p.A, p.B}] = p
	}
	var gpus []*topology.Device
	for _, d := range a.g.OfKind(topology.KindAccelerator) {
		if d.VendorID == topology.VendorNVIDIA {
			gpus = append(gpus, d)
		}
	}
	nics := a.railNICs()
	// rank is a pair's NCCL path type (ncclRank), -1 where unknown.
	rank := func(g, n *topology.Device) int {
		p := at[pairKey{g, n}]
		if p == nil || p.SMI == topology.Unknown || p.LabelUncertain {
			return -1
		}
		r, ok := ncclRank(p.NCCL)
		if !ok {
			return -1
		}
		return r
	}
	// bw is NCCL's path bandwidth: the narrowest link, the inter-socket
	// link included across sockets (ncclTopoGetInterCpuBw).
	inter := a.cpuKind().inter
	bw := func(g, n *topology.Device) float64 {
		p := at[pairKey{g, n}]
		if p == nil {
			return 0
		}
		if p.SMI == topology.SYS && inter != nil && p.BottleneckGbps > 0 {
			return min(p.BottleneckGbps, inter.Value)
		}
		return p.BottleneckGbps
	}
	// better reports whether a path of type r1 and bandwidth b1 is nearer
	// than one of r2 and b2 as ncclTopoGetLocal orders: bandwidth, then
	// type.
	better := func(r1 int, b1 float64, r2 int, b2 float64) bool { return b1 > b2 || b1 == b2 && r1 < r2 }
	// ownNIC reports whether n is among g's nearest NICs.
	ownNIC := func(g, n *topology.Device) bool {
		rn := rank(g, n)
		if rn < 0 {
			return false
		}
		for _, m := range nics {
			if rm := rank(g, m); rm >= 0 && better(rm, bw(g, m), rn, bw(g, n)) {
				return false
			}
		}
		return true
	}
	nvlink := func(x, y *topology.Device) bool { return a.g.NVLinkCount(x, y) > 0 }
	unsure := map[pairKey]bool{} // accelerator pairs NVLink may join, the source cannot tell
	for i, x := range gpus {
		for _, y := range gpus[i+1:] {
			if a.g.ClassifyWithoutHops(x, y).SMI == topology.NVLinkUnknown {
				unsure[pairKey{x, y}], unsure[pairKey{y, x}] = true, true
			}
		}
	}
	pxb, pxn := pathRank[topology.PXB], pathRank["PXN"]
	limit := pxb
	if a.v.minor >= 27 {
		def := int64(0)
		if a.v.minor >= 28 {
			def = 1
		}
		if c2c, _ := a.envParam("NCCL_PXN_C2C", def); c2c != 0 {
			limit = pathRank[topology.P2C]
		}
	}
	farther := pxb // ours must be farther than this for PXN to spare the CPU
	if a.v.minor >= 27 {
		farther = pxn
	}
	sure, maybe = map[pairKey]pxnRoute{}, map[pairKey]pxnRoute{}
	route := func(g, p, n *topology.Device) { sure[pairKey{g, n}] = pxnRoute{p, at[pairKey{p, n}].NCCL} }
	for _, n := range nics {
		// The NIC's local GPU (2.18 on).
		var local *topology.Device
		if a.v.minor >= 18 {
			best, bestBW := -1, 0.0
			for _, g := range gpus {
				if r := rank(g, n); r >= 0 && (best < 0 || better(r, bw(g, n), best, bestBW)) {
					best, bestBW = r, bw(g, n)
				}
			}
			for _, g := range gpus {
				if rank(g, n) == best && bw(g, n) == bestBW && ownNIC(g, n) {
					local = g
					break
				}
			}
			if local == nil || rank(local, n) > limit {
				continue
			}
			if a.v.minor >= 30 {
				var peer Prediction
				a.gdr(*at[pairKey{local, n}], &peer, func(string) {})
				if !peer.GDR || !peer.GDRRead || peer.GDRUnknown != "" {
					continue
				}
			}
		}
		for _, g := range gpus {
			rg := rank(g, n)
			if rg < 0 || g == local {
				continue
			}
			if a.v.minor < 18 {
				if rg <= pxb {
					continue
				}
				// The last peer that qualifies, or the first whose own NIC it is.
				for _, p := range gpus {
					if p == g || rank(p, n) < 0 || rank(p, n) > pxb {
						continue
					}
					if unsure[pairKey{p, g}] {
						maybe[pairKey{g, n}] = pxnRoute{p, at[pairKey{p, n}].NCCL}
					}
					if nvlink(p, g) {
						route(g, p, n)
						if ownNIC(p, n) {
							break
						}
					}
				}
				continue
			}
			switch {
			case bw(local, n) <= bw(g, n) && rg <= farther:
			case nvlink(local, g):
				route(g, local, n)
			case unsure[pairKey{local, g}]:
				maybe[pairKey{g, n}] = pxnRoute{local, at[pairKey{local, n}].NCCL}
			}
		}
	}
	for k := range sure {
		delete(maybe, k)
	}
	return sure, maybe
}

// applyPXN gives each prediction routed through a peer the peer's figures
// to the NIC where GDR is on: the data crosses NVLink to the peer, then the
// peer's own path. Where GDR is off NCCL stages through the CPU of the
// accelerator itself, and the pair keeps its own figures.
func (a *analysis) applyPXN() {
	if len(a.pxn) == 0 {
		return
	}
	at := make(map[pairKey]int, len(a.preds))
	for i, p := range a.preds {
		at[pairKey{p.GPU, p.NIC}] = i
	}
	for i := range a.preds {
		pr := &a.preds[i]
		peer := a.pxn[pairKey{pr.GPU, pr.NIC}].peer
		j, ok := at[pairKey{peer, pr.NIC}]
		if peer == nil || !ok || !pr.GDR {
			continue
		}
		via := a.preds[j]
		pr.ExpectedGbps, pr.ExpectedWriteGbps, pr.ExpectedReadGbps = via.ExpectedGbps, via.ExpectedWriteGbps, via.ExpectedReadGbps
		pr.ExpectedWriteMaxGbps, pr.ExpectedReadMaxGbps = via.ExpectedWriteMaxGbps, via.ExpectedReadMaxGbps
		pr.PathGbps, pr.NICGbps, pr.Efficiency, pr.AtMost = via.PathGbps, via.NICGbps, via.Efficiency, via.AtMost
		if pr.GDRRead {
			pr.HostStagedGbps = 0
		}
		pr.stagedGbps = via.stagedGbps
		pr.Uncertain = append(pr.Uncertain, fmt.Sprintf("PXN: NCCL reaches this NIC through %s over NVLink, so the figures are %s's to it (NVLink taken as no limit)", peer.BDF(), peer.BDF()))
		if a.explain {
			pr.Explain = append(pr.Explain, Step{What: fmt.Sprintf("PXN through %s over NVLink (ncclTopoComputePaths): %s's direct-RDMA figure to this NIC", peer.BDF(), peer.BDF()),
				Value: pr.ExpectedGbps, Unit: "Gb/s", Source: "NCCL src/graph/paths.cc, ncclTopoComputePaths and ncclTopoCheckGdr (PATH_PXN)"})
		}
	}
}
