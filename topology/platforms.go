package topology

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// This file names what recent servers add to the PCI tree:
// NVLink-C2C attached GPUs on Grace, the PCIe switches inside ConnectX-8
// and BlueField-3, ConnectX-8 Data Direct DMA functions and Socket Direct
// cards. internal/sysfs reads their facts (its platforms.go).

// PCI IDs of the devices these rules know. The Mellanox and Grace IDs are
// those rdma-core's kernel-boot/rdma_topo matches (PCI_VDEVICE table).
const (
	DeviceCX8Switch  uint16 = 0x197c // ports of the PCIe switch inside a ConnectX-8 (rdma_topo "cx_switch")
	DeviceCXSwitch   uint16 = 0x1979 // ports of an earlier ConnectX switch (rdma_topo "cx_switch")
	DeviceBF3Switch  uint16 = 0x197b // ports of the PCIe switch inside a BlueField-3 (rdma_topo "bf3_switch")
	DeviceCX8DMA     uint16 = 0x2100 // ConnectX-8 Data Direct DMA function (rdma_topo "cx_dma")
	DeviceCX8        uint16 = 0x1023 // ConnectX-8 NIC function (pci.ids "CX8 Family [ConnectX-8]")
	DeviceBlueField3 uint16 = 0xa2dc
)

// graceRootPorts are NVIDIA Grace's PCIe root ports (rdma_topo "grace_rp").
var graceRootPorts = map[uint16]bool{0x22b1: true, 0x22b2: true, 0x22b8: true}

// c2cGPUs are the NVIDIA GPUs that sit on a Grace CPU's NVLink-C2C in a
// superchip: GH200 (0x2342, 0x2348), GB200 (0x2941), and a Blackwell Ultra
// B300 (0x3182) found with a Grace CPU, which is a GB300. An NVIDIA GPU of
// another ID on a Grace machine is a PCIe card and is not taken as C2C.
var c2cGPUs = map[uint16]bool{0x2342: true, 0x2348: true, 0x2941: true, 0x3182: true}

// IsGraceRootPort reports whether d is an NVIDIA Grace PCIe root port.
func (d *Device) IsGraceRootPort() bool {
	return d.VendorID == VendorNVIDIA && graceRootPorts[d.DeviceID]
}

// IsNICSwitchPort reports whether d is a port of the PCIe switch inside a
// ConnectX-8 or BlueField-3 (or an earlier ConnectX switch).
func (d *Device) IsNICSwitchPort() bool {
	return d.VendorID == VendorMellanox && (d.DeviceID == DeviceCX8Switch || d.DeviceID == DeviceCXSwitch || d.DeviceID == DeviceBF3Switch)
}

// IsDataDirectDMA reports whether d is a ConnectX-8 Data Direct DMA function.
func (d *Device) IsDataDirectDMA() bool {
	return d.VendorID == VendorMellanox && d.DeviceID == DeviceCX8DMA
}

// SocketDirectPeers returns the other halves of n's Socket Direct card: NIC
// functions with n's VPD serial number (one card, as rdma_topo groups a
// board's PFs by SN) on another NUMA node, so reached over another
// socket's PCIe link (NVIDIA ConnectX-7 user manual, "Socket Direct").
// nil when n is not on such a card or the VPD is not in the source.
func (g *Graph) SocketDirectPeers(n *Device) []*Device {
	if n.Kind != KindNIC || n.VPDSN() == "" || n.NUMANode < 0 {
		return nil
	}
	var out []*Device
	for _, d := range g.OfKind(KindNIC) {
		if d != n && d.VPDSN() == n.VPDSN() && d.NUMANode >= 0 && d.NUMANode != n.NUMANode {
			out = append(out, d)
		}
	}
	return out
}

// Grace reports whether the machine is an NVIDIA Grace system: a Grace
// root port in the PCI tree.
func (g *Graph) Grace() bool {
	for _, d := range g.Devices {
		if d.IsGraceRootPort() {
			return true
		}
	}
	return false
}

// C2C reports whether accelerator d reaches its CPU over NVLink-C2C: an
// NVIDIA superchip GPU (c2cGPUs) on a Grace system. NCCL learns the same
// from NVML's C2C link count (xml.cc, NVML_FI_DEV_C2C_LINK_COUNT).
func (g *Graph) C2C(d *Device) bool {
	return d.Kind == KindAccelerator && d.VendorID == VendorNVIDIA && c2cGPUs[d.DeviceID] && g.Grace()
}

// DataDirectOf returns the Data Direct DMA function of NIC function n: a
// ConnectX-8 DMA function whose VPD V3 UUID equals n's, as rdma_topo
// matches them (PCITopo.__get_nvcx_complex). nil when there is none.
func (g *Graph) DataDirectOf(n *Device) *Device {
	if n.Kind != KindNIC || n.VPDV3() == "" {
		return nil
	}
	for _, d := range g.Devices {
		if d.IsDataDirectDMA() && d.VPDV3() == n.VPDV3() {
			return d
		}
	}
	return nil
}

// PlatformFeatures names, in words for a summary, what of the newer
// platforms the machine shows: Grace, NVLink-C2C GPUs, GPU memory NUMA
// nodes, ConnectX-8/BlueField-3 switches, Data Direct functions, AMD
// Instinct partition modes, bonded NICs. Empty for other machines.
func (g *Graph) PlatformFeatures() []string {
	var out []string
	if g.Grace() {
		out = append(out, "NVIDIA Grace (Grace root ports 10de:22b1/22b2/22b8)")
	}
	c2c := 0
	for _, d := range g.OfKind(KindAccelerator) {
		if g.C2C(d) {
			c2c++
		}
	}
	if c2c > 0 {
		out = append(out, fmt.Sprintf("%d accelerators on NVLink-C2C to their Grace (NCCL P2C to its NICs)", c2c))
	}
	var memOnly []string
	for _, n := range g.System.NUMANodes {
		if n.MemoryOnly {
			memOnly = append(memOnly, strconv.Itoa(n.ID))
		}
	}
	if len(memOnly) > 0 {
		out = append(out, fmt.Sprintf("NUMA nodes %s hold memory and no CPUs (GPU memory on a superchip): no CPU's node", strings.Join(memOnly, ",")))
	}
	cx8, bf3, dma := 0, 0, 0
	for _, d := range g.Devices {
		switch {
		case d.VendorID == VendorMellanox && d.DeviceID == DeviceBF3Switch && d.Role == RoleUpstream:
			bf3++
		case d.IsNICSwitchPort() && d.Role == RoleUpstream:
			cx8++
		case d.IsDataDirectDMA():
			dma++
		}
	}
	if cx8+bf3 > 0 {
		out = append(out, fmt.Sprintf("PCIe switch levels inside NICs: %d ConnectX, %d BlueField-3 (NCCL does not flatten them)", cx8, bf3))
	}
	if dma > 0 {
		out = append(out, fmt.Sprintf("%d ConnectX-8 Data Direct DMA functions (15b3:2100)", dma))
	}
	modes := map[string]int{}
	var order []string
	for _, d := range g.OfKind(KindAccelerator) {
		if d.ComputePartition() == "" && d.MemoryPartition() == "" {
			continue
		}
		m := strings.Trim(d.ComputePartition()+"/"+d.MemoryPartition(), "/")
		if modes[m] == 0 {
			order = append(order, m)
		}
		modes[m]++
	}
	for _, m := range order {
		out = append(out, fmt.Sprintf("%d AMD Instinct accelerators partitioned %s (compute/memory; one PCI function per physical part)", modes[m], m))
	}
	var sd []string
	for _, d := range g.OfKind(KindNIC) {
		if peers := g.SocketDirectPeers(d); len(peers) > 0 && !peers[0].Addr.Less(d.Addr) {
			words := d.BDF()
			for _, p := range peers {
				words += " + " + p.BDF()
			}
			sd = append(sd, words)
		}
	}
	if len(sd) > 0 {
		out = append(out, "Socket Direct cards (one card, a PCIe link per socket): "+strings.Join(sd, ", "))
	}
	var bonds []string
	for _, d := range g.OfKind(KindNIC) {
		if d.Bond != "" && !slices.Contains(bonds, d.Bond) {
			bonds = append(bonds, d.Bond)
		}
	}
	if len(bonds) > 0 {
		out = append(out, "bonded NICs: "+strings.Join(bonds, ", "))
	}
	return out
}

// ComputePartitions is how many logical GPUs amdgpu makes of accelerator d
// in its compute partition mode, each its own KFD node, render node and
// RCCL rank behind the one PCI function: the XCDs over the XCDs per
// partition (Linux drivers/gpu/drm/amd/amdgpu/aqua_vanjaram.c,
// __aqua_vanjaram_get_xcc_per_xcp), so 1 unpartitioned or in SPX, 2 in
// DPX, 3 in TPX, 4 in QPX and one per XCD in CPX (amdsmi.h,
// amdsmi_accelerator_partition_profile_t: "On MI300X: SPX=>1, DPX=>2,
// QPX=>4, CPX=>8"). 0 where unknown: a mode it does not know, or CPX on a
// model whose XCD count it does not know.
func ComputePartitions(d *Device) int {
	switch d.ComputePartition() {
	case "", "SPX":
		return 1
	case "DPX":
		return 2
	case "TPX":
		return 3
	case "QPX":
		return 4
	case "CPX":
		return instinctXCDs(d)
	}
	return 0
}

// instinctXCDs is the number of accelerator complex dies (XCDs) of an AMD
// Instinct model, 0 unknown: AMD SMI docs, "GPU partitioning": "MI300X has
// 8 XCDs and MI300A has 6" (PCI IDs 1002:74a1, 1002:74a0).
func instinctXCDs(d *Device) int {
	if d.VendorID != VendorAMD {
		return 0
	}
	switch d.DeviceID {
	case 0x74a1: // Instinct MI300X
		return 8
	case 0x74a0: // Instinct MI300A
		return 6
	}
	return 0
}
