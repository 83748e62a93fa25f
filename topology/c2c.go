package topology

import "fmt"

// applyDataDirect moves an accelerator-NIC pair onto the NIC's ConnectX-8
// Data Direct DMA function when it has one. NCCL's IB transport exposes a
// Data Direct NIC as "<dev>_dma" with the DMA function's PCI path, and by
// default only that device (net_ib/init.cc, NCCL_IB_DATA_DIRECT=1), so
// NCCL's label and the data path are the accelerator's path to the DMA
// function. nvidia-smi knows only the NIC function: its label stays.
func (g *Graph) applyDataDirect(p *Pair) {
	if p.A.Kind != KindAccelerator || p.B.Kind != KindNIC {
		return
	}
	dma := g.DataDirectOf(p.B)
	if dma == nil {
		switch {
		case p.B.VendorID == VendorMellanox && p.B.VPDV3() == "" && g.hasDataDirect():
			p.LabelUncertain = true
			p.Notes = append(p.Notes, "the machine has ConnectX-8 Data Direct DMA functions but the source holds no VPD for this NIC "+
				"(vpd is root-only, and private in a redacted capture): NCCL may label the pair on a DMA function instead")
		case g.TextForm != "" && p.B.VPDV3() == "" && mayBeCX8(p.B):
			// A dump shows no VPD, and hwloc filters the DMA functions out
			// (or a dump without IDs cannot name them): whether NCCL sees
			// this NIC through a Data Direct function is unknown;
			// nvidia-smi's label stands.
			p.NCCLUncertain = true
		}
		return
	}
	p.DataDirect = dma
	p.NCCL = g.ncclLabel(p.A, dma) // the hops and bottleneck follow DataDirect too (classify)
	smi, words, _ := g.smiLabel(p.A, dma)
	p.Path = fmt.Sprintf("%s via Data Direct %s", words, dma.BDF())
	p.Notes = append(p.Notes, fmt.Sprintf("data path through the ConnectX-8 Data Direct DMA function %s (%s to the accelerator); nvidia-smi sees only the NIC function",
		dma.BDF(), smi))
}

// applyC2C gives NCCL's P2C label to the pairs of a C2C-attached
// accelerator and its local NICs, as paths.cc does after computing paths:
// for each GPU whose path to its CPU is C2C, every NIC among its local
// ones (ncclTopoGetLocal: the best path type, then the highest bandwidth)
// whose path to that CPU is PHB gets min(P2C, current).
func (g *Graph) applyC2C(pairs []Pair) {
	byGPU := map[*Device][]int{}
	for i, p := range pairs {
		if p.A.Kind != KindAccelerator || p.B.Kind != KindNIC {
			continue
		}
		if g.C2C(p.A) {
			pairs[i].C2C = true
			byGPU[p.A] = append(byGPU[p.A], i)
		} else if p.NCCL == PHB && p.A.DeviceID == 0 && (p.A.VendorID == 0 || p.A.VendorID == VendorNVIDIA) {
			// Without the accelerator's ID the source cannot tell whether it
			// sits on NVLink-C2C, where NCCL would say P2C.
			pairs[i].NCCLUncertain = true
		}
	}
	for _, idx := range byGPU {
		best, bw := Label(""), 0.0
		for _, i := range idx {
			p := pairs[i]
			if best == "" || p.NCCL.Rank() < best.Rank() {
				best, bw = p.NCCL, 0
			}
			if p.NCCL == best {
				bw = max(bw, pathBandwidth(p))
			}
		}
		if best != PHB {
			continue
		}
		// Which PHB NICs are local turns on their bandwidth: where a NIC's
		// port rate is unknown (a dump holds none), so is the choice.
		guessed := false
		for _, i := range idx {
			guessed = guessed || pairs[i].NCCL == PHB && pairs[i].B.PortRateGbps == 0 && g.TextForm != ""
		}
		for _, i := range idx {
			if guessed && pairs[i].NCCL == PHB {
				pairs[i].NCCLUncertain = true
			}
			if pairs[i].NCCL == PHB && pathBandwidth(pairs[i]) == bw {
				pairs[i].NCCL = P2C
				pairs[i].Notes = append(pairs[i].Notes,
					"the accelerator reaches its CPU over NVLink-C2C and the NIC hangs off that CPU: NCCL's P2C (paths.cc mergePathType)")
			}
		}
	}
}

// mayBeCX8 reports whether NIC function n is, or may be (the source gives
// no IDs), a ConnectX-8, whose Data Direct DMA function NCCL may use.
func mayBeCX8(n *Device) bool {
	return n.VendorID == VendorMellanox && n.DeviceID == DeviceCX8 ||
		n.DeviceID == 0 && (n.VendorID == 0 || n.VendorID == VendorMellanox)
}

// pathBandwidth is what NCCL's path bandwidth compares for locality: the
// slower of the PCIe bottleneck and the NIC's port rate, in Gb/s.
func pathBandwidth(p Pair) float64 {
	bw := p.BottleneckGbps
	if r := p.B.PortRateGbps; r > 0 && (bw == 0 || r < bw) {
		bw = r
	}
	return bw
}

// hasDataDirect reports whether the machine has a Data Direct DMA function.
func (g *Graph) hasDataDirect() bool {
	for _, d := range g.Devices {
		if d.IsDataDirectDMA() {
			return true
		}
	}
	return false
}
