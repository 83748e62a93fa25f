package topology_test

import (
	"testing"

	"github.com/gdtopo/gdtopo/topology"
)

// TestKindOfServerDisplay: an older server's on-board display chip (the
// ES1000 of hwloc's 24em64t capture, beside three Tesla M2070) is no
// accelerator, so no rank is planned on it; GPUs of the same vendors are.
func TestKindOfServerDisplay(t *testing.T) {
	for _, tt := range []struct {
		class          uint32
		vendor, device uint16
		want           topology.Kind
	}{
		{0x030000, topology.VendorAMD, 0x515e, topology.KindOther},          // ES1000
		{0x030000, topology.VendorAMD, 0x4752, topology.KindOther},          // Rage XL
		{0x030200, topology.VendorNVIDIA, 0x06d2, topology.KindAccelerator}, // Tesla M2070
		{0x038000, topology.VendorAMD, 0x74a1, topology.KindAccelerator},    // Instinct MI300X
		{0x030000, topology.VendorAMD, 0, topology.KindAccelerator},         // device unknown: the vendor decides
	} {
		if got := topology.KindOf(tt.class, tt.vendor, tt.device); got != tt.want {
			t.Errorf("KindOf(%06x, %04x:%04x) = %s, want %s", tt.class, tt.vendor, tt.device, got, tt.want)
		}
	}
}

// TestKindOfOlderHCAs: InfiniBand HCAs of the serial-bus class (ConnectX-2,
// QLogic IBA7322) and a ConnectX whose firmware says "Network controller"
// are NICs; another vendor's network controller (Wi-Fi) is not.
func TestKindOfOlderHCAs(t *testing.T) {
	for _, tt := range []struct {
		class          uint32
		vendor, device uint16
		want           topology.Kind
	}{
		{0x0c0600, topology.VendorMellanox, 0x6746, topology.KindNIC}, // ConnectX-2 VPI
		{0x0c0600, 0x1077, 0x7322, topology.KindNIC},                  // QLogic IBA7322
		{0x028000, topology.VendorMellanox, 0x1003, topology.KindNIC}, // ConnectX-3
		{0x028000, topology.VendorIntel, 0x2723, topology.KindOther},  // Wi-Fi 6 AX200
	} {
		if got := topology.KindOf(tt.class, tt.vendor, tt.device); got != tt.want {
			t.Errorf("KindOf(%06x, %04x:%04x) = %s, want %s", tt.class, tt.vendor, tt.device, got, tt.want)
		}
	}
}
