package topology

import (
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
)

// This file reads and names what the servers of 2024-2026 add to the PCI
// tree: Arm (Grace) CPUs, NVLink-C2C attached GPUs, the PCIe switches
// inside ConnectX-8 and BlueField-3, ConnectX-8 Data Direct DMA functions,
// AMD Instinct partition modes, bonded netdevs and the default route.

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

// armCoreName names an Arm core from its MIDR implementer and part numbers
// (Arm's Technical Reference Manuals, MIDR_EL1), "" when unknown.
func armCoreName(implementer, part int) string {
	if implementer != 0x41 {
		return ""
	}
	switch part {
	case 0xd4f:
		return "Arm Neoverse V2"
	case 0xd40:
		return "Arm Neoverse V1"
	case 0xd0c:
		return "Arm Neoverse N1"
	case 0xd49:
		return "Arm Neoverse N2"
	}
	return ""
}

func hexOr(s string, def int) int {
	if v, err := strconv.ParseInt(strings.TrimPrefix(s, "0x"), 16, 32); err == nil {
		return int(v)
	}
	return def
}

// defaultRoute returns the interface of the default route in
// /proc/net/route (destination and mask 00000000), or "".
func (r *reader) defaultRoute() string {
	b, err := r.readSmall(pathRoute)
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(b), "\n")[1:] {
		f := strings.Fields(line)
		if len(f) >= 8 && f[1] == "00000000" && f[7] == "00000000" {
			return f[0]
		}
	}
	return ""
}

// readExtras reads the per-function facts of the new platforms: the VPD
// V3 of Mellanox functions, amdgpu's partition modes, and the bond each
// netdev belongs to. Absent files leave the fields empty.
func (r *reader) readExtras(dirs map[BDF]string) {
	for _, d := range r.g.Devices {
		dir := dirs[d.Addr]
		if dir == "" {
			continue
		}
		switch {
		case d.VendorID == VendorMellanox && (d.Kind == KindNIC || d.DeviceID == DeviceCX8DMA):
			if b, err := r.read(path.Join(dir, "vpd"), maxConfigBytes); err == nil {
				d.VPDV3, d.VPDSN = vpdKeyword(b, "V3"), vpdKeyword(b, "SN")
			}
		case d.Kind == KindAccelerator && d.VendorID == VendorAMD:
			if s, err := r.text(path.Join(dir, "current_compute_partition")); err == nil {
				d.ComputePartition = s
			}
			if s, err := r.text(path.Join(dir, "current_memory_partition")); err == nil {
				d.MemoryPartition = s
			}
		}
		for _, n := range d.Netdevs {
			nd, err := r.resolve(path.Join(pathNet, n))
			if err != nil {
				continue
			}
			if t, err := r.resolve(path.Join(nd, "master")); err == nil && d.Bond == "" {
				d.Bond = path.Base(t)
			}
		}
	}
}

// vpdKeyword returns the value of a read-only VPD keyword (PCI Local Bus
// Specification §6.4: large resources 0x82 identifier and 0x90 VPD-R, each
// with a 16-bit length; keywords of two letters and a length byte), as
// rdma_topo's parse_vpd reads V3. It returns "" on malformed data.
func vpdKeyword(b []byte, key string) string {
	for i := 0; i < len(b); {
		tag := b[i]
		if tag == 0x78 || tag == 0x79 { // end tags
			return ""
		}
		if tag&0x80 == 0 { // small resource: length in the low three bits
			i += 1 + int(tag&0x07)
			continue
		}
		if i+3 > len(b) {
			return ""
		}
		n := int(b[i+1]) | int(b[i+2])<<8
		data := b[i+3 : min(len(b), i+3+n)]
		if tag == 0x90 {
			for j := 0; j+3 <= len(data); {
				k, l := string(data[j:j+2]), int(data[j+2])
				if j+3+l > len(data) {
					return ""
				}
				if k == key {
					return strings.TrimSpace(string(data[j+3 : j+3+l]))
				}
				j += 3 + l
			}
		}
		i += 3 + n
	}
	return ""
}

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
	if n.Kind != KindNIC || n.VPDSN == "" || n.NUMANode < 0 {
		return nil
	}
	var out []*Device
	for _, d := range g.OfKind(KindNIC) {
		if d != n && d.VPDSN == n.VPDSN && d.NUMANode >= 0 && d.NUMANode != n.NUMANode {
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
	if n.Kind != KindNIC || n.VPDV3 == "" {
		return nil
	}
	for _, d := range g.Devices {
		if d.IsDataDirectDMA() && d.VPDV3 == n.VPDV3 {
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
		if d.ComputePartition == "" && d.MemoryPartition == "" {
			continue
		}
		m := strings.Trim(d.ComputePartition+"/"+d.MemoryPartition, "/")
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
