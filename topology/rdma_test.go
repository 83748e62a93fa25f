package topology

import "testing"

// TestRDMAByName: where lspci gives an Intel NIC's pci.ids name without
// its device ID, the model word tells its RDMA engine (names as pci.ids
// gives them for 8086:1533, 1572, 159b, 37d2, 1521).
func TestRDMAByName(t *testing.T) {
	for name, want := range map[string]RDMAEngine{
		"Intel Corporation I210 Gigabit Network Connection":          RDMAEngineNo,
		"Intel Corporation Ethernet Controller X710 for 10GbE SFP+":  RDMAEngineNo,
		"Intel Corporation Ethernet Controller E810-C for SFP":       RDMAEngineYes,
		"Intel Corporation Ethernet Connection X722 for 10GbE SFP+":  RDMAEngineYes,
		"Intel Corporation I350 Gigabit Network Connection (rev 01)": RDMAEngineNo,
		"Intel Corporation Ethernet Controller (unknown model)":      RDMAEngineUnknown,
	} {
		if got, _ := RDMAByModel(&Device{VendorID: VendorIntel, Class: 0x020000, Name: name}); got != want {
			t.Errorf("%q: %v, want %v", name, got, want)
		}
	}
	// A device ID, where given, decides: 0x1533 is the I210 whatever the name says.
	if got, _ := RDMAByModel(&Device{VendorID: VendorIntel, DeviceID: 0x1533, Class: 0x020000, Name: "E810"}); got != RDMAEngineNo {
		t.Errorf("8086:1533 named E810: %v, want no RDMA engine", got)
	}
}
