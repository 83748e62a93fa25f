package topology

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
)

// peerMemoryEvidence are the files whose presence NCCL takes as GPUDirect
// RDMA peer-memory support (nccl-semantics.md §3.1, net_ib/gdr.cc), plus the
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
}

// DeviceLinks are the symbolic links read in each PCI function's folder.
var DeviceLinks = []string{"driver", "iommu_group", "physfn"}

// Size limits for reads, so a hostile or broken tree cannot make gdtopo
// read without end.
const (
	maxConfigBytes = 4096    // PCIe extended config space, and any attribute file
	maxProcBytes   = 8 << 20 // /proc/cpuinfo of a large machine
	maxCPUs        = 1 << 16 // CPUs named by one cpulist
)
