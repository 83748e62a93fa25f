// Package topology holds gdtopo's device graph: host bridges, PCIe bridges and
// endpoints read from sysfs, and the rules that label every path between two
// devices the way nvidia-smi and NCCL do.
//
// The graph types carry no I/O: readers (internal/sysfs, and the text
// readers internal/lspcidump, internal/ncclxml and internal/hwloc) fill
// them, and the label rules (Classify) are tested on hand-built graphs.
package topology

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// Kind says what an endpoint is for gdtopo's purposes.
type Kind string

// Device kinds.
const (
	KindAccelerator Kind = "accelerator" // GPUs and other compute accelerators
	KindNIC         Kind = "nic"         // Ethernet (0200) and InfiniBand (0207) functions
	KindNVMe        Kind = "nvme"        // NVM Express storage (0108)
	KindNVSwitch    Kind = "nvswitch"    // NVIDIA NVSwitch management functions
	KindBridge      Kind = "bridge"      // PCI-to-PCI bridges, root ports and switch ports (0604)
	KindOther       Kind = "other"       // everything else
)

// Role is the place of a bridge in the PCIe hierarchy.
type Role string

// Bridge roles. Endpoints have RoleNone.
const (
	RoleNone       Role = ""
	RoleRootPort   Role = "root_port"
	RoleUpstream   Role = "switch_upstream"
	RoleDownstream Role = "switch_downstream"
	RolePCIBridge  Role = "pci_bridge"
)

// Where a bridge's role came from, for Device.RoleFrom.
const (
	RoleFromConfig    = "config"    // the PCIe port type in its config space (RoleOfPort)
	RoleFromStructure = "structure" // where it sits in the tree (StructuralRole)
)

// Link is a PCIe link's trained (current) and capable (max) state. Zero
// values mean unknown.
type Link struct {
	CurrentGTs   float64 // current_link_speed
	CurrentWidth int     // current_link_width
	MaxGTs       float64 // max_link_speed
	MaxWidth     int     // max_link_width
	// RateOnly says the source gave the data rate alone (hwloc's GB/s),
	// which several generations and widths share: CurrentGTs and
	// CurrentWidth are the lowest generation of them, for the arithmetic.
	RateOnly bool
	// MaxOnly says the link's state now is unknown and only its maximum
	// is: CurrentGTs and CurrentWidth hold that maximum, for the arithmetic.
	MaxOnly bool
}

// Known reports whether the current speed and width are both known.
func (l Link) Known() bool { return l.CurrentGTs > 0 && l.CurrentWidth > 0 }

// Degraded reports whether the link trained below its capability in speed or
// width. Unknown values never count as degraded.
func (l Link) Degraded() bool {
	return (l.MaxGTs > 0 && l.CurrentGTs > 0 && l.CurrentGTs < l.MaxGTs) ||
		(l.MaxWidth > 0 && l.CurrentWidth > 0 && l.CurrentWidth < l.MaxWidth)
}

// String renders a link as "Gen4 x16" or, when it trained lower,
// "Gen3 x8 (max Gen4 x16)"; a link known by its maximum alone as
// "Gen4 x16 max, now unknown".
func (l Link) String() string {
	if l.RateOnly {
		var alts []string
		for _, a := range l.SameRate() {
			alts = append(alts, speedWidth(a.CurrentGTs, a.CurrentWidth))
		}
		return strings.Join(alts, " or ")
	}
	cur := speedWidth(l.CurrentGTs, l.CurrentWidth)
	if l.MaxOnly {
		return cur + " max, now unknown"
	}
	if l.Degraded() {
		return fmt.Sprintf("%s (max %s)", cur, speedWidth(l.MaxGTs, l.MaxWidth))
	}
	return cur
}

func speedWidth(gts float64, width int) string {
	s, w := "Gen?", "x?"
	if g := Generation(gts); g > 0 {
		s = fmt.Sprintf("Gen%d", g)
	}
	if width > 0 {
		w = fmt.Sprintf("x%d", width)
	}
	return s + " " + w
}

// Generation maps a transfer rate in GT/s to its PCIe generation, 0 if unknown.
func Generation(gts float64) int {
	for i, r := range pcieRates {
		if gts == r.gts {
			return i + 1
		}
	}
	return 0
}

// LinkWidths are the link widths devices train: x12 and x32 are left out
// (none does, and x32 would make most rates ambiguous: Gen4 x32 = Gen5 x16).
var LinkWidths = [...]int{1, 2, 4, 8, 16}

// SameRate lists the generations and widths whose data rate (DataGbps at
// the default payload) equals the link's current one, lowest generation
// first: Gen3 x16 and Gen4 x8 for either.
func (l Link) SameRate() []Link {
	want := l.CurrentGbps()
	if want <= 0 {
		return nil
	}
	var out []Link
	for _, r := range pcieRates {
		for _, w := range LinkWidths {
			if math.Abs(DataGbps(r.gts, w, DefaultMPSBytes, TLPOverheadBytes)-want) < 1e-6 {
				out = append(out, Link{CurrentGTs: r.gts, CurrentWidth: w})
			}
		}
	}
	return out
}

// pcieRates lists the PCIe transfer rates, indexed by generation - 1.
var pcieRates = [...]struct{ gts float64 }{{2.5}, {5}, {8}, {16}, {32}, {64}}

// CurrentGbps is the link's current data rate in Gb/s at the default
// Max_Payload_Size (DataGbps with DefaultMPSBytes and TLPOverheadBytes):
// Gen4 x16 is 230.46 Gb/s. It is 0 when the link is unknown.
func (l Link) CurrentGbps() float64 {
	return DataGbps(l.CurrentGTs, l.CurrentWidth, DefaultMPSBytes, TLPOverheadBytes)
}

// MaxGbps is CurrentGbps for the link's capability.
func (l Link) MaxGbps() float64 {
	return DataGbps(l.MaxGTs, l.MaxWidth, DefaultMPSBytes, TLPOverheadBytes)
}

// Link arithmetic defaults: a Max_Payload_Size of 256 B, and 24 B of
// per-TLP overhead (framing, sequence number, 4 DW header, LCRC; Intel AN 708
// "TLP Packet Overhead", 5-7 DW).
const (
	DefaultMPSBytes  = 256
	TLPOverheadBytes = 24
)

// DataGbps is the data rate of a PCIe link in Gb/s, the one link arithmetic
// every figure of gdtopo uses: GT/s × lanes × LineCode × MPS/(MPS + TLP
// overhead). Gen4 x16 at MPS 256: 16 × 16 × 128/130 × 256/280 = 230.46.
// It is 0 for an unknown width or a rate that is no PCIe generation's.
func DataGbps(gts float64, width, mps int, overheadBytes float64) float64 {
	if Generation(gts) == 0 || width <= 0 || mps <= 0 {
		return 0
	}
	enc, _ := LineCode(gts)
	return gts * float64(width) * enc * float64(mps) / (float64(mps) + TLPOverhead(gts, overheadBytes))
}

// LineCode is the share of a lane's transfers that carry TLP bytes, and its
// name: 8b/10b at 2.5 and 5 GT/s, 128b/130b at 8 to 32 GT/s (PCIe base
// specification), and at 64 GT/s PCIe 6.0's FLIT mode: no 128b/130b, but
// each 256-byte flit carries 236 bytes of TLPs beside 6 of DLLP, 8 of CRC
// and 6 of FEC (PCIe 6.0 base specification, §4.2.3 flit layout; PCI-SIG
// "PCIe 6.0 Specification: The Interconnect for I/O Needs of the Future").
func LineCode(gts float64) (float64, string) {
	switch {
	case gts <= 5:
		return 0.8, "8b/10b"
	case gts >= 64:
		return 236.0 / 256, "FLIT 236/256"
	}
	return 128.0 / 130, "128b/130b"
}

// TLPOverhead is the bytes each TLP costs beside its payload at gts, given
// the non-flit figure: in FLIT mode framing, sequence number and LCRC (2 DW
// of the 6) travel in the flit, leaving the header.
func TLPOverhead(gts, overheadBytes float64) float64 {
	if gts >= 64 {
		return max(overheadBytes-8, 0)
	}
	return overheadBytes
}

// Device is one PCI function. What few functions of a sysfs tree have
// (the fields of deviceMore) is held apart, behind accessors, so that a
// large tree's thousands of switch ports and drives do not each carry it;
// a text source's devices all have one (Seen).
type Device struct {
	Addr       BDF
	bdf        string      // Addr formatted once by the reader; tables and pairs ask for it often
	Parent     *Device     // the bridge above; nil directly under a host bridge
	HostBridge *HostBridge // the root complex it hangs from; nil when unknown
	Children   []*Device

	Class                    uint32 // class code: base<<16 | sub<<8 | prog-if
	VendorID, DeviceID       uint16
	SubVendorID, SubDeviceID uint16
	ACSCtl                   uint16 // its ACS Control register, when HasACS
	SubsystemKnown           bool
	// LocalCPUsNode: LocalCPUs are all the CPUs of the device's NUMA
	// node, which node the source does not say (hwloc: the device is
	// local to a Package whose NUMA nodes all span its CPUs). Linux gives
	// each CPU one node, so devices with equal LocalCPUs share a node.
	LocalCPUsNode                bool
	ACSRedirect, ACSKnown        bool // ACS request/completion redirect on this port, and whether config showed it
	HasACS                       bool // the port has an ACS capability (config read past 256 bytes)
	RelaxedOrdering, DevCtlKnown bool
	// PlaceUnknown is set when the source does not say where the function
	// hangs (plain lspci): Parent and HostBridge are nil and every path to
	// it is unknown.
	PlaceUnknown bool
	// LinkToHost is set on a function with no bridge above it whose Link
	// runs to its host bridge: an NCCL topology's <pci> straight under
	// <cpu>, whose link_speed NCCL counts on the path to the CPU. Such a
	// link is a PCIe hop. A sysfs function on a root bus has no link to
	// count (a root-complex integrated endpoint, or a VM's emulated one).
	LinkToHost bool
	// Unidentified is set, by Graph.Finish, on an endpoint the source gives
	// no vendor ID, device ID or name for, whose class leaves an accelerator
	// possible: a display controller (a GPU or a BMC's graphics: only the
	// vendor tells) or no class at all. It is not counted as an accelerator,
	// and reports say that accelerators may be missed.
	Unidentified bool

	Kind         Kind
	Role         Role
	RoleFrom     string // "config" (PCIe port type) or "structure"
	Driver       string // basename of the driver link
	IOMMUGroup   string // basename of the iommu_group link
	NUMANode     int    // effective node; -1 unknown
	NUMAFrom     string // where NUMANode came from: "numa_node", "local_cpus" or "host_bridge"
	RawNUMANode  int    // numa_node as the file says (-1 when absent), which is what NCCL reads
	LocalCPUs    string // local_cpulist (or local_cpus as a list)
	Link         Link
	RDMA         []string // /sys/class/infiniband names
	Netdevs      []string // /sys/class/net names
	PortRateGbps float64  // fastest active port, 0 unknown
	ConfigLen    int      // bytes of config space read; 0 when absent
	Name         string   // model name, set by the names resolver
	BARs         []BAR    // memory BARs from the resource file; nil when not captured

	MaxReadRequest, MaxPayload int // DevCtl, bytes; 0 unknown
	// Bond is the bonding interface a netdev of this function is enslaved
	// to (net/<if>/master), "" when none.
	Bond string
	// Ports are the ports of its RDMA devices; nil where the source shows
	// none (lspci, hwloc and NCCL files never do): their state is unknown.
	Ports []IBPort
	// AER holds its AER counters; nil where the source has no aer_dev_*
	// file for it (not AER capable, a kernel before 4.19, or not sysfs).
	AER *AERCounts

	more *deviceMore // nil where none of its fields is set
}

// deviceMore holds what few functions have. It is never changed once a
// Device holds it (a Device copied shares it): setters replace it.
type deviceMore struct {
	physFn         string // BDF of the physical function, for SR-IOV virtual functions
	numaNodeUnread string // why sysfs numa_node was not read ("missing", "invalid value …"): RawNUMANode -1 is then no reading
	// computeCapability is an NVIDIA GPU's compute capability × 10 as an
	// NCCL topology file's <gpu sm=…> gives it; 0 when the source lacks it.
	computeCapability int
	// ncclGDR is the gdr attribute of the device's <gpu> or <net> element
	// in an NCCL topology file: "1", "0", or "" when the source lacks it.
	ncclGDR string
	// ncclDev is the dev attribute of the device's <gpu> element in an
	// NCCL or RCCL topology file: the runtime's device index with every
	// device visible; "" when the source lacks it.
	ncclDev string
	// positional is set on a function the source shows without an address
	// (lstopo console text prints bridges so): where it was seen, e.g.
	// "standard input line 31". Its Addr is a stand-in in PositionalDomain
	// and BDF() names it by that position.
	positional string
	// seen is where a text reader read this function, for evidence: "lspci.txt
	// line 120", "in.xml <pci busid=...>"; empty for sysfs, whose files are the
	// evidence.
	seen string
	// vpdV3 is the V3 keyword of the function's Vital Product Data (a UUID
	// on ConnectX-8 that ties its Data Direct DMA function to the NIC);
	// read only for Mellanox functions, "" when absent or unreadable.
	vpdV3 string
	// vpdSN is the serial number (SN) of the function's VPD: functions of
	// one card share it (rdma_topo groups a board's PFs by it).
	vpdSN string
	// computePartition and memoryPartition are amdgpu's
	// current_compute_partition (SPX, DPX, QPX, CPX) and
	// current_memory_partition (NPS1, NPS4) of an AMD Instinct accelerator.
	computePartition, memoryPartition string
	// lag is the RoCE LAG bond whose one RDMA device this function holds
	// (mlx5_bond_N): its mode and member ports; nil where it holds none or
	// the source shows no bonds.
	lag *LAG
}

// noMore is the deviceMore of every Device that has none. Nothing writes
// it: setMore copies before it changes.
var noMore deviceMore

// moreOf returns d's deviceMore, or noMore where it has none, for reading:
// a pointer, so that reading one field copies none of the others.
func (d *Device) moreOf() *deviceMore {
	if d.more == nil {
		return &noMore
	}
	return d.more
}

// setMore replaces d's deviceMore with one changed by f; none where f
// leaves every field unset.
func (d *Device) setMore(f func(*deviceMore)) {
	m := *d.moreOf()
	f(&m)
	if m == (deviceMore{}) {
		d.more = nil
		return
	}
	d.more = &m
}

// PhysFn is the BDF of the physical function, for SR-IOV virtual functions.
func (d *Device) PhysFn() string { return d.moreOf().physFn }

// SetPhysFn sets PhysFn.
func (d *Device) SetPhysFn(s string) { d.setMore(func(m *deviceMore) { m.physFn = s }) }

// NUMANodeUnread is why sysfs numa_node was not read ("missing", "invalid
// value …"): RawNUMANode -1 is then no reading.
func (d *Device) NUMANodeUnread() string { return d.moreOf().numaNodeUnread }

// SetNUMANodeUnread sets NUMANodeUnread.
func (d *Device) SetNUMANodeUnread(s string) { d.setMore(func(m *deviceMore) { m.numaNodeUnread = s }) }

// ComputeCapability is an NVIDIA GPU's compute capability × 10 as an NCCL
// topology file's <gpu sm=…> gives it; 0 when the source lacks it.
func (d *Device) ComputeCapability() int { return d.moreOf().computeCapability }

// SetComputeCapability sets ComputeCapability.
func (d *Device) SetComputeCapability(n int) {
	d.setMore(func(m *deviceMore) { m.computeCapability = n })
}

// NCCLGDR is the gdr attribute of the device's <gpu> or <net> element in
// an NCCL topology file: "1", "0", or "" when the source lacks it.
func (d *Device) NCCLGDR() string { return d.moreOf().ncclGDR }

// SetNCCLGDR sets NCCLGDR.
func (d *Device) SetNCCLGDR(s string) { d.setMore(func(m *deviceMore) { m.ncclGDR = s }) }

// NCCLDev is the dev attribute of the device's <gpu> element in an NCCL or
// RCCL topology file: the runtime's device index with every device
// visible; "" when the source lacks it.
func (d *Device) NCCLDev() string { return d.moreOf().ncclDev }

// SetNCCLDev sets NCCLDev.
func (d *Device) SetNCCLDev(s string) { d.setMore(func(m *deviceMore) { m.ncclDev = s }) }

// Positional is set on a function the source shows without an address
// (lstopo console text prints bridges so): where it was seen, e.g.
// "standard input line 31". Its Addr is a stand-in in PositionalDomain and
// BDF() names it by that position.
func (d *Device) Positional() string { return d.moreOf().positional }

// Seen is where a text reader read this function, for evidence: "lspci.txt
// line 120", "in.xml <pci busid=...>"; empty for sysfs, whose files are
// the evidence.
func (d *Device) Seen() string { return d.moreOf().seen }

// SetSeen sets Seen.
func (d *Device) SetSeen(s string) { d.setMore(func(m *deviceMore) { m.seen = s }) }

// VPDV3 is the V3 keyword of the function's Vital Product Data (a UUID on
// ConnectX-8 that ties its Data Direct DMA function to the NIC); read only
// for Mellanox functions, "" when absent or unreadable.
func (d *Device) VPDV3() string { return d.moreOf().vpdV3 }

// VPDSN is the serial number (SN) of the function's VPD: functions of one
// card share it (rdma_topo groups a board's PFs by it).
func (d *Device) VPDSN() string { return d.moreOf().vpdSN }

// SetVPD sets VPDV3 and VPDSN.
func (d *Device) SetVPD(v3, sn string) {
	d.setMore(func(m *deviceMore) { m.vpdV3, m.vpdSN = v3, sn })
}

// ComputePartition is amdgpu's current_compute_partition (SPX, DPX, QPX,
// CPX) of an AMD Instinct accelerator.
func (d *Device) ComputePartition() string { return d.moreOf().computePartition }

// MemoryPartition is amdgpu's current_memory_partition (NPS1, NPS4) of an
// AMD Instinct accelerator.
func (d *Device) MemoryPartition() string { return d.moreOf().memoryPartition }

// SetPartitions sets ComputePartition and MemoryPartition.
func (d *Device) SetPartitions(compute, memory string) {
	d.setMore(func(m *deviceMore) { m.computePartition, m.memoryPartition = compute, memory })
}

// LAG is the RoCE LAG bond whose one RDMA device this function holds
// (mlx5_bond_N): its mode and member ports; nil where it holds none or the
// source shows no bonds.
func (d *Device) LAG() *LAG { return d.moreOf().lag }

// SetLAG sets LAG.
func (d *Device) SetLAG(l *LAG) { d.setMore(func(m *deviceMore) { m.lag = l }) }

// PositionalDomain is the PCI domain of the stand-in addresses of
// positional devices. Linux domains are 16-bit, or from 0x10000 for Intel
// VMD (drivers/pci/controller/vmd.c), so no real function sorts among them.
const PositionalDomain uint32 = 0xffffffff

// maxPositional bounds the stand-in addresses of one graph (bus, device).
const maxPositional = 256 * 32

// NewPositional returns the n-th (from 0) positional device of a graph:
// Addr is a stand-in, BDF() says "bridge@line<line>", and Positional holds
// where. It returns nil past the 8192 stand-ins a graph can hold.
func NewPositional(n, line int, where string) *Device {
	if n < 0 || n >= maxPositional {
		return nil
	}
	return &Device{
		Addr:     BDF{Domain: PositionalDomain, Bus: uint8(n / 32), Device: uint8(n % 32)},
		bdf:      fmt.Sprintf("bridge@line%d", line),
		NUMANode: -1, RawNUMANode: -1, more: &deviceMore{positional: where, seen: where},
	}
}

// NewDevice returns the function at addr, its NUMA node unknown, for a
// reader to fill in; its address is formatted once, for BDF.
func NewDevice(addr BDF) *Device {
	d := new(Device)
	InitDevice(d, addr)
	return d
}

// InitDevice makes *d what NewDevice(addr) returns, in place: for a reader
// that allocates a tree's devices together.
func InitDevice(d *Device, addr BDF) {
	*d = Device{Addr: addr, bdf: addr.String(), NUMANode: -1, RawNUMANode: -1}
}

// BDF returns the canonical lowercase address, e.g. "0000:01:00.0".
func (d *Device) BDF() string {
	if d.bdf != "" {
		return d.bdf
	}
	return d.Addr.String()
}

// NUMA sources for Device.NUMAFrom.
const (
	NUMAFromFile       = "numa_node"
	NUMAFromLocalCPUs  = "local_cpus"
	NUMAFromHostBridge = "host_bridge"
)

// IsVirtualFunction reports whether d is an SR-IOV virtual function.
func (d *Device) IsVirtualFunction() bool { return d.PhysFn() != "" }

// IsSwitchPort reports whether d is an upstream or downstream port of a PCIe switch.
func (d *Device) IsSwitchPort() bool { return d.Role == RoleUpstream || d.Role == RoleDownstream }

// HostBridge is a PCI root bus (sysfs pciDDDD:BB), one root complex or
// part of one.
type HostBridge struct {
	Name     string // "pci0000:00"
	Domain   uint32
	Bus      uint8
	NUMANode int       // -1 unknown
	Socket   int       // -1 unknown
	Devices  []*Device // functions on the root bus
	Inferred bool      // named from a device's bus because the capture lacked its /sys/devices path
	// PlaceUnknown marks a host bridge that stands for the part of the tree
	// a partial source does not hold (an NCCL dump's text starting inside
	// the tree): two functions below it that share no bridge may meet
	// anywhere, so the path between them is unknown.
	PlaceUnknown bool
}

// NUMANode is one node of /sys/devices/system/node.
type NUMANode struct {
	ID        int
	CPUs      string // cpulist
	Distances []int  // SLIT row
	Socket    int    // package of its first CPU; -1 unknown
	// MemoryOnly marks a node whose cpulist was read and is empty: memory
	// without CPUs, such as the GPU memory a Grace superchip onlines. It
	// is no CPU's node.
	MemoryOnly bool
}

// System describes the host around the PCI tree. Empty strings and -1 mean
// unknown.
type System struct {
	Hostname   string
	CPUVendor  string // vendor_id: GenuineIntel, AuthenticAMD
	CPUModel   string // model name
	CPUFamily  int    // cpu family, -1 unknown
	CPUModelID int    // model number, -1 unknown
	CPUArch    string // x86_64, arm64 or ppc64 (NCCL's names); "" unknown
	// CPUImplementer and CPUPart are an Arm CPU's MIDR fields from
	// /proc/cpuinfo ("CPU implementer", "CPU part"), -1 unknown.
	CPUImplementer, CPUPart int
	// DefaultRouteIf names the interface of the IPv4 default route in
	// /proc/net/route, "" when the source has no route table.
	DefaultRouteIf string
	// RDMAListed is set when the source holds sys/class/infiniband (empty
	// or not): a NIC missing from it has no RDMA device.
	RDMAListed  bool
	Sockets     int // distinct physical packages, 0 unknown
	LogicalCPUs int // 0 unknown
	NUMANodes   []NUMANode
	// NUMANodesPartial is set when NUMANodes holds only the nodes some
	// devices named (a dump with NUMA lines but no node list): the machine
	// may have more, so one node listed is not a one-node machine.
	NUMANodesPartial bool
	Cmdline          string
	CmdlineRead      bool
}

// NodeSocket returns the socket of NUMA node id, or -1.
func (s *System) NodeSocket(id int) int {
	for _, n := range s.NUMANodes {
		if n.ID == id {
			return n.Socket
		}
	}
	return -1
}

// Warning is a problem with one file or device that did not stop the read.
type Warning struct {
	Subject string // the file or device
	Message string
}

func (w Warning) String() string { return w.Subject + ": " + w.Message }

// BAR is one memory region of a function (a line of its resource file).
type BAR struct {
	Index        int // 0-5 for BARs, 6 for the expansion ROM
	Size         uint64
	Prefetchable bool
	Is64         bool
}

// Platform is host-wide evidence that bears on GPUDirect RDMA and is not a
// PCI function. Each "Read" flag says whether the source held that part at
// all, so that absent evidence is not taken for a negative answer.
type Platform struct {
	IOMMUs          []string          // /sys/class/iommu entries: dmar0, ivhd0, smmu3.0x...
	IOMMUClassRead  bool              // /sys/class/iommu was in the source
	IOMMUGroupTypes map[string]string // group number -> default domain type (identity, DMA, DMA-FQ), for groups holding accelerators and NICs
	PeerMemory      []string          // evidence found: sys/module/nvidia_peermem, sys/module/nv_peer_mem, sys/kernel/mm/memory_peers/nv_mem
	ModulesRead     bool              // /sys/module was in the source
	// NVIDIATaint is sys/module/nvidia/taint: with P the proprietary
	// driver, without it the open kernel module; NVIDIATaintRead is false
	// when the file was not in the source (no nvidia module, or not captured).
	NVIDIATaint     string
	NVIDIATaintRead bool
	Hypervisor      bool // /proc/cpuinfo flags include "hypervisor"
}

// NVLink is a bonded set of NVLinks between two accelerators, as an NCCL
// topology file or nvidia-smi shows it; sysfs does not.
type NVLink struct {
	A, B  BDF
	Count int
}

// Graph is one machine's PCI hierarchy and the system around it.
type Graph struct {
	System   System
	Platform Platform
	// NCCLView marks a tree read from an NCCL topology file: each device's
	// parent is already its NCCL parent (a switch is one node, root and
	// downstream ports are gone) and the host bridges stand for NCCL's CPU
	// nodes, one per NUMA node. nvidia-smi's PHB and NODE cannot be told
	// apart there.
	NCCLView bool
	// TextForm names the text form the graph was read from ("lspci",
	// "lstopo", "hwloc XML", "NCCL XML"); empty for sysfs. Evidence then
	// points into the dump, and remedies say how to retake it.
	TextForm string
	// NVLinks are the bonds the source records; an entry with Count 0
	// records that a pair has none.
	NVLinks []NVLink
	// NVLinkRecorded says the source records every NVLink (an NCCL topology
	// dump with NVLink elements, a whole nvidia-smi topo -m): accelerator
	// pairs without an entry have none.
	NVLinkRecorded bool
	HostBridges    []*HostBridge
	Devices        []*Device // sorted by address
	Warnings       []Warning
	// Lacks lists what the source did not hold, in words for the summary,
	// e.g. "config space past 64 bytes (ACS, DevCtl unknown: capture as root)".
	Lacks []string
	// Partial says why the source holds only part of the machine, and what
	// would hold all of it: "a tree fragment: give the whole lspci -tv".
	// Empty where the source may hold the whole machine. What a partial
	// source does not show may be in the rest: none of its counts is all.
	Partial string
	// Skipped are functions the source names without an address gdtopo
	// can give them, such as the lines of an lspci -tv fragment whose bus
	// the input does not hold: they are not in Devices, and no path to
	// them is known.
	Skipped []SkippedFunction
}

// SkippedFunction is a function the source names but does not place
// (Graph.Skipped): its name, and its kind as far as the name tells.
type SkippedFunction struct {
	Name string // "bridge" for a bridge, whose line names its child
	Kind Kind
}

// SkippedOfKind returns the names of the skipped functions of kind k.
func (g *Graph) SkippedOfKind(k Kind) []string {
	var names []string
	for _, s := range g.Skipped {
		if s.Kind == k {
			names = append(names, s.Name)
		}
	}
	return names
}

// Device returns the function at addr, or nil.
func (g *Graph) Device(addr BDF) *Device {
	i := sort.Search(len(g.Devices), func(i int) bool { return !g.Devices[i].Addr.Less(addr) })
	if i < len(g.Devices) && g.Devices[i].Addr == addr {
		return g.Devices[i]
	}
	return nil
}

// OfKind returns the devices of kind k in address order, leaving out SR-IOV
// virtual functions.
func (g *Graph) OfKind(k Kind) []*Device {
	of := func(d *Device) bool { return d.Kind == k && !d.IsVirtualFunction() }
	n := 0
	for _, d := range g.Devices {
		if of(d) {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	out := make([]*Device, 0, n) // counted first: callers ask often
	for _, d := range g.Devices {
		if of(d) {
			out = append(out, d)
		}
	}
	return out
}

// Switches returns the upstream port of every PCIe switch.
func (g *Graph) Switches() []*Device {
	var out []*Device
	for _, d := range g.Devices {
		if d.Role == RoleUpstream {
			out = append(out, d)
		}
	}
	return out
}

// TopSwitches returns the upstream ports that head a switch hierarchy: those
// not directly below a downstream port of the same vendor and device. A
// two-level switch chip such as Broadcom's PEX88xxx/PEX89xxx counts once.
func (g *Graph) TopSwitches() []*Device {
	var out []*Device
	for _, u := range g.Switches() {
		p := u.Parent
		if p != nil && p.Role == RoleDownstream && p.VendorID == u.VendorID && p.DeviceID == u.DeviceID {
			continue
		}
		out = append(out, u)
	}
	return out
}

// NVLinkCount returns the NVLinks joining a and b, 0 if none are known.
func (g *Graph) NVLinkCount(a, b *Device) int {
	n, _ := g.nvlinkKnown(a, b)
	return n
}

// Finish completes a graph that a reader built with Parent and HostBridge
// set on each device: it sorts the devices, fills Children and each host
// bridge's root-bus Devices, takes a host bridge's NUMA node from its
// devices and its socket from the system, gives a device with no NUMA
// node its host bridge's, and marks the endpoints the source does not
// identify (Device.Unidentified).
func (g *Graph) Finish() {
	sort.Slice(g.Devices, func(i, j int) bool { return g.Devices[i].Addr.Less(g.Devices[j].Addr) })
	sort.Slice(g.HostBridges, func(i, j int) bool {
		a, b := g.HostBridges[i], g.HostBridges[j]
		return a.Domain < b.Domain || a.Domain == b.Domain && a.Bus < b.Bus
	})
	for _, hb := range g.HostBridges {
		hb.Devices = nil
	}
	for _, d := range g.Devices {
		d.Children = nil
		if d.Kind == KindOther && len(d.RDMA) > 0 {
			d.Kind = KindNIC // an RDMA device names it a NIC whatever its class (a ConnectX-3 of class 0280)
		}
	}
	for _, d := range g.Devices {
		if d.Parent != nil {
			d.Parent.Children = append(d.Parent.Children, d)
		} else if d.HostBridge != nil {
			d.HostBridge.Devices = append(d.HostBridge.Devices, d)
		}
		if hb := d.HostBridge; hb != nil && hb.NUMANode < 0 && d.NUMANode >= 0 && d.NUMAFrom != NUMAFromHostBridge {
			hb.NUMANode = d.NUMANode
		}
	}
	for _, hb := range g.HostBridges {
		if hb.NUMANode >= 0 { // else a reader's socket without a node (hwloc's Package) stays
			hb.Socket = g.System.NodeSocket(hb.NUMANode)
		}
	}
	for _, d := range g.Devices {
		if d.NUMANode < 0 && d.HostBridge != nil && d.HostBridge.NUMANode >= 0 {
			d.NUMANode, d.NUMAFrom = d.HostBridge.NUMANode, NUMAFromHostBridge
		}
		d.Unidentified = d.Kind == KindOther && len(d.Children) == 0 && d.VendorID == 0 && d.DeviceID == 0 &&
			d.Name == "" && (d.Class == 0 || d.Class>>16 == 0x03)
	}
}

// Unidentified counts the functions Finish marked Unidentified: display
// controllers of unknown vendor, and functions of unknown class.
func (g *Graph) Unidentified() (display, classless int) {
	for _, d := range g.Devices {
		switch {
		case !d.Unidentified:
		case d.Class == 0:
			classless++
		default:
			display++
		}
	}
	return display, classless
}

// MultiNUMA reports whether the machine has more than one NUMA node.
func (g *Graph) MultiNUMA() bool { return len(g.System.NUMANodes) > 1 }
