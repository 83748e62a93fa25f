package names

// builtinVendors names the vendors whose devices gdtopo classifies.
var builtinVendors = map[uint16]string{
	0x10de: "NVIDIA", 0x15b3: "Mellanox", 0x1000: "Broadcom", 0x10b5: "PLX",
	0x1002: "AMD", 0x1022: "AMD", 0x8086: "Intel", 0x1da3: "Habana",
	0x1d0f: "Amazon", 0x14e4: "Broadcom", 0x1bcf: "NEC", 0x1af4: "Red Hat",
	0x1b36: "Red Hat", 0x1414: "Microsoft", 0x144d: "Samsung", 0x1077: "QLogic",
	0x8088: "Wangxun", 0x19e5: "Huawei", 0x1dd8: "AMD Pensando", 0x1fc1: "Cornelis",
}

// builtinDevices names the accelerators, NICs and PCIe switches that matter
// for GPUDirect placement, keyed by vendor<<16 | device. Names follow the
// products' marketing names, not pci.ids' chip names.
var builtinDevices = map[uint32]string{
	// NVIDIA data-centre and workstation GPUs.
	0x10de15f7: "NVIDIA Tesla P100 PCIe 12GB", 0x10de15f8: "NVIDIA Tesla P100 PCIe 16GB", 0x10de15f9: "NVIDIA Tesla P100 SXM2",
	0x10de1db1: "NVIDIA Tesla V100 SXM2 16GB", 0x10de1db4: "NVIDIA Tesla V100 PCIe 16GB", 0x10de1db5: "NVIDIA Tesla V100 SXM2 32GB",
	0x10de1db6: "NVIDIA Tesla V100 PCIe 32GB", 0x10de1db8: "NVIDIA Tesla V100 SXM3 32GB", 0x10de1df6: "NVIDIA Tesla V100S PCIe 32GB",
	0x10de1eb8: "NVIDIA Tesla T4",
	0x10de20b0: "NVIDIA A100 SXM4 40GB", 0x10de20b2: "NVIDIA A100 SXM4 80GB", 0x10de20b5: "NVIDIA A100 PCIe 80GB",
	0x10de20f1: "NVIDIA A100 PCIe 40GB", 0x10de20b7: "NVIDIA A30", 0x10de2235: "NVIDIA A40", 0x10de2236: "NVIDIA A10",
	0x10de20f3: "NVIDIA A800 SXM4 80GB", 0x10de20f5: "NVIDIA A800 PCIe 80GB",
	0x10de2330: "NVIDIA H100 SXM5 80GB", 0x10de2331: "NVIDIA H100 PCIe", 0x10de2324: "NVIDIA H800",
	0x10de2322: "NVIDIA H800 PCIe", 0x10de2321: "NVIDIA H100 NVL", 0x10de2335: "NVIDIA H200 SXM 141GB",
	0x10de2342: "NVIDIA GH200",
	0x10de2901: "NVIDIA B200", 0x10de2941: "NVIDIA GB200", 0x10de3182: "NVIDIA B300",
	// NVIDIA Grace root ports (rdma-core kernel-boot/rdma_topo grace_rp).
	0x10de22b1: "NVIDIA Grace PCIe root port", 0x10de22b2: "NVIDIA Grace PCIe root port", 0x10de22b8: "NVIDIA Grace PCIe root port",
	0x10de26b5: "NVIDIA L40", 0x10de26b9: "NVIDIA L40S", 0x10de27b8: "NVIDIA L4",
	0x10de26b1: "NVIDIA RTX 6000 Ada Generation", 0x10de2230: "NVIDIA RTX A6000", 0x10de2684: "NVIDIA GeForce RTX 4090",
	// NVSwitch.
	0x10de1af1: "NVIDIA NVSwitch (A100 generation)", 0x10de22a3: "NVIDIA NVSwitch (H100 generation)",
	// AMD Instinct.
	0x1002738c: "AMD Instinct MI100", 0x1002740c: "AMD Instinct MI250X/MI250", 0x1002740f: "AMD Instinct MI210",
	0x100274a1: "AMD Instinct MI300X",
	// Other accelerators.
	0x1da31000: "Habana Gaudi", 0x1da31020: "Habana Gaudi2",
	0x1bcf001c: "NEC SX-Aurora Vector Engine",
	// NVIDIA (Mellanox) NICs and DPUs.
	0x15b31003: "Mellanox ConnectX-3", 0x15b31007: "Mellanox ConnectX-3 Pro", 0x15b31013: "Mellanox ConnectX-4",
	0x15b31015: "Mellanox ConnectX-4 Lx", 0x15b31017: "Mellanox ConnectX-5", 0x15b31019: "Mellanox ConnectX-5 Ex",
	0x15b3101b: "Mellanox ConnectX-6", 0x15b3101d: "Mellanox ConnectX-6 Dx", 0x15b3101f: "Mellanox ConnectX-6 Lx",
	0x15b31021: "NVIDIA ConnectX-7", 0x15b31023: "NVIDIA ConnectX-8",
	0x15b3a2d6: "NVIDIA BlueField-2", 0x15b3a2dc: "NVIDIA BlueField-3",
	// The PCIe switches inside ConnectX-8 and BlueField-3, and the ConnectX-8
	// Data Direct DMA function (rdma-core kernel-boot/rdma_topo).
	0x15b3197c: "NVIDIA ConnectX-8 PCIe switch", 0x15b3197b: "NVIDIA BlueField-3 PCIe switch",
	0x15b32100: "NVIDIA ConnectX-8 Data Direct DMA",
	0x15b3101c: "Mellanox ConnectX-6 VF", 0x15b31018: "Mellanox ConnectX-5 VF", 0x15b3101e: "Mellanox ConnectX Family VF",
	// Other RDMA NICs.
	0x1d0fefa0: "Amazon EFA", 0x1d0fefa1: "Amazon EFA", 0x1d0fefa2: "Amazon EFA",
	0x14e41750: "Broadcom BCM57508 NetXtreme-E",
	0x80861592: "Intel E810-C", 0x80861593: "Intel E810-C SFP", 0x8086159b: "Intel E810-XXV",
	// Common server Ethernet, so a check rarely needs pci.ids.
	0x80861572: "Intel X710 10GbE SFP+", 0x80861583: "Intel XL710 40GbE QSFP+", 0x80861584: "Intel XL710 40GbE QSFP+",
	0x8086158b: "Intel XXV710 25GbE SFP28", 0x808615ff: "Intel X710 10GBASE-T", 0x80861521: "Intel I350 Gigabit",
	0x80861563: "Intel X550 10GBASE-T", 0x808610fb: "Intel 82599ES 10GbE SFP+", 0x80861889: "Intel Ethernet Adaptive VF",
	0x808637d0: "Intel X722 10GbE SFP+", 0x808637d1: "Intel X722 1GbE", 0x808637d2: "Intel X722 10GBASE-T", 0x808637d3: "Intel X722 10GbE SFP+",
	0x14e416d7: "Broadcom BCM57414 NetXtreme-E 25GbE", 0x14e416d8: "Broadcom BCM57416 NetXtreme-E 10GBASE-T",
	0x14e41751: "Broadcom BCM57504 NetXtreme-E", 0x14e4165f: "Broadcom BCM5720 Gigabit", 0x14e41657: "Broadcom BCM5719 Gigabit",
	0x15b31011: "Mellanox Connect-IB", 0x15b3a2d2: "Mellanox BlueField", 0x1d0fec20: "Amazon ENA",
	0x1af41041: "Virtio network device", 0x1af41000: "Virtio network device (legacy)",
	// PCIe switches.
	0x1000c010: "Broadcom PEX88000 Gen4 switch", 0x1000c030: "Broadcom PEX89000 Gen5 switch",
	0x10b58747: "PLX PEX 8747 Gen3 switch", 0x10b58764: "PLX PEX 8764 Gen3 switch", 0x10b58796: "PLX PEX 8796 Gen3 switch",
	0x10b59765: "PLX PEX 9765 Gen3 switch", 0x10b59781: "PLX PEX 9781 Gen3 switch", 0x10b59797: "PLX PEX 9797 Gen3 switch",
}
