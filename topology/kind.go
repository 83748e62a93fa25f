package topology

import (
	"errors"

	"github.com/gdtopo/gdtopo/internal/pciconfig"
)

// ErrNoPCI means a source holds no PCI devices to analyse.
var ErrNoPCI = errors.New("no PCI devices")

// StructuralRole guesses a bridge's role from where it sits, for trees whose
// config space (or dump) does not show the PCIe port type: a bridge on a
// root bus is a root port, one below an upstream port a downstream port, one
// with bridges below it an upstream port, any other a PCI bridge.
func StructuralRole(d *Device) Role {
	switch {
	case d.Parent == nil:
		return RoleRootPort
	case d.Parent.Role == RoleUpstream:
		return RoleDownstream
	}
	for _, c := range d.Children {
		if c.Kind == KindBridge {
			return RoleUpstream
		}
	}
	return RolePCIBridge
}

// RoleOfPort is the role of a bridge whose config space shows its PCI
// Express port type t: RoleNone for a type that is no bridge's.
func RoleOfPort(t pciconfig.PortType) Role {
	switch t {
	case pciconfig.RootPort:
		return RoleRootPort
	case pciconfig.UpstreamPort:
		return RoleUpstream
	case pciconfig.DownstreamPort:
		return RoleDownstream
	case pciconfig.PCIeToPCIBridge, pciconfig.PCIToPCIeBridge:
		return RolePCIBridge
	}
	return RoleNone
}

// PCI vendor IDs that matter to classification.
const (
	VendorNVIDIA   = 0x10de
	VendorAMD      = 0x1002
	VendorIntel    = 0x8086
	VendorMellanox = 0x15b3
	VendorBroadcom = 0x1000
	VendorAmazon   = 0x1d0f // AWS Nitro: ENA, EFA, NVMe
)

// displayOnly are GPU vendors' server display chips, the on-board VGA of
// older servers (pci.ids: 1002:515e ES1000, 1002:5159 RV100 "RN50",
// 1002:4752/474d/474f Rage XL): neither CUDA nor ROCm computes on them.
var displayOnly = map[[2]uint16]bool{
	{VendorAMD, 0x515e}: true, {VendorAMD, 0x5159}: true,
	{VendorAMD, 0x4752}: true, {VendorAMD, 0x474d}: true, {VendorAMD, 0x474f}: true,
}

// KindOf classifies a function by class code, vendor and device ID (0
// where unknown).
func KindOf(class uint32, vendor, device uint16) Kind {
	base, sub := class>>16, class>>8&0xff
	switch {
	case base == 0x03 && displayOnly[[2]uint16{vendor, device}]:
		return KindOther // a server's on-board display, no accelerator
	case base == 0x03 && (vendor == VendorNVIDIA || vendor == VendorAMD):
		return KindAccelerator // VGA, 3D and display controllers of GPU vendors
	case base == 0x03 && vendor == VendorIntel && (sub == 0x02 || sub == 0x80):
		return KindAccelerator // Intel data-centre GPUs; VGA-class Intel is integrated graphics
	case base == 0x12, base == 0x0b && sub == 0x40:
		return KindAccelerator // processing accelerators, co-processors
	case base == 0x02 && (sub == 0x00 || sub == 0x07), base == 0x0c && sub == 0x06:
		return KindNIC // Ethernet, InfiniBand, and the serial-bus InfiniBand class of older HCAs (ConnectX-2)
	case base == 0x02 && sub == 0x80 && vendor == VendorMellanox:
		return KindNIC // a ConnectX whose firmware reports "Network controller"
	case base == 0x01 && sub == 0x08:
		return KindNVMe
	case base == 0x06 && sub == 0x80 && vendor == VendorNVIDIA:
		return KindNVSwitch
	case base == 0x06 && (sub == 0x04 || sub == 0x09):
		return KindBridge
	}
	return KindOther
}
