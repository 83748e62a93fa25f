package sysfs

import "slices"

// The files gdtopo reads, relative to a source root (the folder that holds
// sys/ and proc/). Keeping them in one place shows what gdtopo touches and is
// the list a capture must keep.
const (
	pathPCIDevices = "sys/bus/pci/devices"
	pathInfiniband = "sys/class/infiniband"
	pathNet        = "sys/class/net"
	pathNodes      = "sys/devices/system/node"
	pathCPUs       = "sys/devices/system/cpu"
	pathCPUInfo    = "proc/cpuinfo"
	pathCmdline    = "proc/cmdline"
	pathHostname   = "proc/sys/kernel/hostname"
	pathIOMMU      = "sys/class/iommu"
	pathIOMMUGroup = "sys/kernel/iommu_groups"
	pathModules    = "sys/module"
	// ManifestName is the manifest a gdtopo snapshot holds at its root
	// (written by internal/snapshot); its source "/" says the running
	// machine was captured.
	ManifestName = "gdtopo-snapshot.json"
	pathRoute    = "proc/net/route"
	// pathNVIDIATaint holds the nvidia module's taint flags: P for a
	// proprietary licence, absent for the open kernel module (Dual MIT/GPL;
	// kernel Documentation/ABI/testing/sysfs-module, tainted-kernels.rst).
	pathNVIDIATaint = "sys/module/nvidia/taint"
)

// peerMemoryEvidence are the files whose presence NCCL takes as GPUDirect
// RDMA peer-memory support (NCCL src/transport/net_ib, ncclIbGdrSupport), plus the
// module folders themselves.
var peerMemoryEvidence = []string{
	"sys/module/nvidia_peermem",
	"sys/module/nv_peer_mem",
	"sys/kernel/mm/memory_peers/nv_mem/version",
	"sys/kernel/mm/memory_peers/nv_mem_nc/version",
}

// DeviceFiles are the attribute files read in each PCI function's folder.
var DeviceFiles = []string{
	"class", "vendor", "device", "subsystem_vendor", "subsystem_device", "revision",
	"modalias", "numa_node", "local_cpulist",
	"current_link_speed", "current_link_width", "max_link_speed", "max_link_width",
	"config", "resource",
	"current_compute_partition", "current_memory_partition",
}

// DeviceLinks are the symbolic links read in each PCI function's folder.
var DeviceLinks = []string{"driver", "iommu_group", "physfn"}

// Size limits for reads, so a hostile or broken tree cannot make gdtopo
// read without end.
const (
	maxConfigBytes = 4096    // PCIe extended config space, and any attribute file
	maxProcBytes   = 8 << 20 // /proc/cpuinfo of a large machine
)

// Per-entry files the reader opens inside the folders above. The reader
// spells them where it reads them; they are listed here so that a capture
// keeps them.
const (
	fileIBPorts    = "ports"  // sys/class/infiniband/<dev>/ports/<n>/
	fileIBRate     = "rate"   // .../ports/<n>/rate
	fileNetSpeed   = "speed"  // sys/class/net/<if>/speed
	linkNetMaster  = "master" // sys/class/net/<if>/master: the bond a port is enslaved to
	fileBondMode   = "bonding/mode"
	linkBondLower  = "lower_"   // sys/class/net/<bond>/lower_<if>: the bond's ports (netdev_adjacent)
	fileCPUList    = "cpulist"  // node/nodeN/cpulist
	fileDistance   = "distance" // node/nodeN/distance
	fileGroupType  = "type"     // kernel/iommu_groups/<N>/type
	dirCPUTopology = "topology" // cpu/cpuN/topology/physical_package_id and the rest
)

// Port and AER files, read where the reader knows what they describe.
const (
	fileIBState     = "state"      // .../ports/<n>/state: "4: ACTIVE"
	fileIBPhysState = "phys_state" // .../ports/<n>/phys_state: "5: LinkUp"
	fileIBLinkLayer = "link_layer" // .../ports/<n>/link_layer: InfiniBand or Ethernet
)

// AERFiles are a PCI function's AER counter files (kernel 4.19+,
// Documentation/ABI/testing/sysfs-bus-pci-devices-aer), read for
// accelerators, NICs and the bridges above them.
var AERFiles = []string{"aer_dev_correctable", "aer_dev_nonfatal", "aer_dev_fatal"}

// peerToolFiles are per-function files gdtopo does not read but lspci -v and
// lstopo need to accept a capture (pciutils lib/sysfs.c; hwloc
// topology-linux.c), as found by running both on generated trees.
var peerToolFiles = []string{"irq", "resource", "local_cpus", "secondary_bus_number", "subordinate_bus_number", "numa_node"}

// Spec lists what a capture keeps so that Read, lspci -A linux-sysfs
// and lstopo --input read the copy as they read the machine. Paths are
// relative to the source root; file names are relative to the folder they
// are read in. Lists marked private hold serial numbers and GUIDs, which a
// redacted capture leaves out.
type Spec struct {
	PCIDevices    string   // one link (or folder) per function, named by its BDF
	DeviceFiles   []string // attribute files of each function's folder
	DeviceLinks   []string // links of each function's folder (driver, iommu_group, physfn)
	DevicePrivate []string // private per-function files (serial_number)
	IOMMUGroups   string   // where iommu_group links point
	GroupFiles    []string // files of each linked group
	Classes       []ClassSpec
	Nodes         string   // NUMA node folder
	NodeFiles     []string // files of each nodeN folder
	NodeTop       []string // files of the node folder itself
	CPUs          string   // CPU folder
	CPUTop        []string // files of the CPU folder itself
	CPUTopology   string   // the folder of each cpuN whose files are all kept
	Proc          []string // files under proc/
	IOMMUClass    string   // its entries (links to the IOMMUs) are kept
	Modules       string   // kept as a folder: its presence says modules were readable
	PeerMemory    []string // files and folders whose presence is GPUDirect peer-memory evidence
	DriverFiles   []string // files that tell the NVIDIA kernel driver's flavour
	DMI           string   // firmware identity (a link to the folder in the live tree)
	DMIFiles      []string
	DMIPrivate    []string
	AttrLimit     int64 // bytes kept of a sysfs file, config included
	ProcLimit     int64 // bytes kept of a proc file
}

// ClassSpec is one /sys/class folder: its entries link into function folders.
type ClassSpec struct {
	Dir       string   // sys/class/<name>
	Files     []string // files of each entry
	Ports     string   // folder of numbered ports inside an entry, "" if none
	PortFiles []string // files of each port
	Private   []string // private files of each entry
	// Master is the link from an entry to the software device it is
	// enslaved to (a bond), kept with MasterFiles and the master's links
	// back to its members, named MasterLinks and a member's name; "" none.
	Master      string
	MasterFiles []string
	MasterLinks string
}

// CaptureSpec returns what a capture keeps, built from the reader's own
// paths. Each call returns fresh slices.
func CaptureSpec() Spec {
	files := append([]string{}, DeviceFiles...)
	for _, f := range append(slices.Clone(peerToolFiles), AERFiles...) {
		if !slices.Contains(files, f) {
			files = append(files, f)
		}
	}
	return Spec{
		PCIDevices:    pathPCIDevices,
		DeviceFiles:   files,
		DeviceLinks:   slices.Clone(DeviceLinks),
		DevicePrivate: []string{"serial_number", "vpd"}, // VPD holds the serial number (and the V3 UUID Data Direct pairing needs)
		IOMMUGroups:   pathIOMMUGroup,
		GroupFiles:    []string{fileGroupType},
		Classes: []ClassSpec{
			{Dir: pathInfiniband, Files: []string{"node_type"}, Ports: fileIBPorts,
				PortFiles: []string{fileIBRate, fileIBState, fileIBPhysState, fileIBLinkLayer},
				Private:   []string{"node_guid", "sys_image_guid"}},
			// address (the MAC) is never kept, redacted or not.
			{Dir: pathNet, Files: []string{fileNetSpeed, "type", "dev_port"},
				Master: linkNetMaster, MasterFiles: []string{fileBondMode}, MasterLinks: linkBondLower},
		},
		Nodes:       pathNodes,
		NodeFiles:   []string{fileCPUList, "cpumap", fileDistance, "meminfo"},
		NodeTop:     []string{"online", "possible"},
		CPUs:        pathCPUs,
		CPUTop:      []string{"online", "possible", "present"},
		CPUTopology: dirCPUTopology,
		Proc:        []string{pathCPUInfo, pathCmdline, pathHostname, "proc/meminfo", pathRoute},
		IOMMUClass:  pathIOMMU,
		Modules:     pathModules,
		PeerMemory:  slices.Clone(peerMemoryEvidence),
		DriverFiles: []string{pathNVIDIATaint},
		DMI:         "sys/class/dmi/id",
		DMIFiles:    []string{"sys_vendor", "product_name", "product_version", "board_vendor", "board_name", "bios_vendor", "bios_version", "bios_date"},
		DMIPrivate:  []string{"product_serial", "board_serial", "chassis_serial", "product_uuid"},
		AttrLimit:   maxConfigBytes,
		ProcLimit:   maxProcBytes,
	}
}
