package topology

import (
	"fmt"
	"strings"
)

// RDMAEngine says whether a NIC's model has an RDMA engine.
type RDMAEngine int

// The answers of RDMAByModel.
const (
	RDMAEngineUnknown RDMAEngine = iota
	RDMAEngineYes
	RDMAEngineNo
)

// RDMAByModel knows which NIC families have an RDMA engine: ConnectX and
// BlueField (InfiniBand/RoCE), Intel E810 (irdma) and X722 (iWARP),
// Broadcom NetXtreme-E (bnxt_re), AWS EFA; Broadcom NetXtreme II (bnx2) and Intel's 1/10/25/40 GbE families without
// one (82574L, 82576, 82580, I350, I210/I211, I225/I226, 82599, X540, X550, X710/XL710/XXV710),
// Realtek, Aquantia, virtio-net and AWS ENA have none.
func RDMAByModel(n *Device) (RDMAEngine, string) {
	if n.Class>>8 == 0x0207 {
		return RDMAEngineYes, "an InfiniBand controller" // InfiniBand has no transport but RDMA
	}
	switch n.VendorID {
	case VendorMellanox:
		return RDMAEngineYes, "Mellanox/NVIDIA NIC"
	case VendorIntel:
		switch d := n.DeviceID; {
		case d >= 0x1591 && d <= 0x1593, d == 0x159b, d >= 0x37d0 && d <= 0x37d3:
			return RDMAEngineYes, "Intel E810/X722"
		case d == 0 && n.Name != "":
			if has, model := intelByName(n.Name); has != RDMAEngineUnknown {
				return has, model
			}
		case d == 0x1520, d == 0x1521, d == 0x1533, // I350 VF and PF, I210 d == 0x1539, d == 0x15f3, d == 0x125b, d == 0x125c, d == 0x10fb,
			d == 0x1528, d == 0x1563, d == 0x1572, d >= 0x1580 && d <= 0x158b,
			d == 0x10c9, d >= 0x10e6 && d <= 0x10e8, d == 0x150a, d == 0x150d, d == 0x1518, d == 0x1526, // 82576
			d == 0x10d3, d >= 0x150e && d <= 0x1511, d == 0x1516, d == 0x1527: // 82574L, 82580
			return RDMAEngineNo, fmt.Sprintf("Intel %04x has no RDMA engine", d)
		}
	case 0x14e4: // Broadcom's NIC vendor ID
		switch d := n.DeviceID; {
		case d >= 0x16d6 && d <= 0x16df, d >= 0x1750 && d <= 0x1760:
			return RDMAEngineYes, "Broadcom NetXtreme-E"
		case d == 0x164a, d == 0x16aa, d == 0x164c, d == 0x16ac, d >= 0x1639 && d <= 0x163b: // bnx2: BCM5706, 5708, 5709, 5716
			return RDMAEngineNo, "Broadcom NetXtreme II has no RDMA engine"
		}
	case 0x10ec, 0x1d6a:
		return RDMAEngineNo, "Realtek/Aquantia NICs have no RDMA engine"
	case 0x1af4: // virtio (Red Hat's vendor ID), as cloud and microVM guests show
		return RDMAEngineNo, "virtio network devices have no RDMA engine"
	case VendorAmazon:
		switch {
		case n.DeviceID == 0x0ec2, n.DeviceID == 0x1ec2, n.DeviceID == 0xec20, n.DeviceID == 0xec21: // Linux ena_pci_id_tbl.h
			return RDMAEngineNo, "AWS ENA has no RDMA engine (EFA is AWS's RDMA device)"
		case EFAID(n.DeviceID):
			return RDMAEngineYes, "AWS EFA"
		}
	}
	return RDMAEngineUnknown, "no sys/class/infiniband in the source and the model is not known"
}

// EFAID reports an Amazon device ID of an Elastic Fabric Adapter (Linux
// drivers/infiniband/hw/efa/efa_main.c, efa_pci_tbl: efa0-efa3).
func EFAID(id uint16) bool { return id >= 0xefa0 && id <= 0xefa3 }

// intelByName tells an Intel NIC's RDMA engine from its pci.ids name where
// the source gives the name alone (lspci without -nn): the families
// RDMAByModel knows by ID, by the model word pci.ids names them with.
func intelByName(name string) (RDMAEngine, string) {
	for _, w := range strings.FieldsFunc(name, func(r rune) bool { return r == ' ' || r == '-' || r == '/' }) {
		switch w {
		case "E810", "X722":
			return RDMAEngineYes, "Intel " + w
		case "I210", "I211", "I350", "I225", "I226", "82574L", "82576", "82580", "82599", "82599ES", "X540", "X550", "X550T", "X710", "XL710", "XXV710":
			return RDMAEngineNo, "Intel " + w + " has no RDMA engine"
		}
	}
	return RDMAEngineUnknown, ""
}
