package sysfs

import "testing"

// TestVPDKeyword reads V3 as rdma-core's rdma_topo parse_vpd does, and
// gives "" or the whole value (never a part, never a panic) on truncated
// or malformed data.
func TestVPDKeyword(t *testing.T) {
	name := "NVIDIA ConnectX-8"
	ro := []byte("SN\x04MT01V3\x24")
	ro = append(ro, "4c5a1d0e-9b1f-4a0b-8c59-0d1f00000000"...)
	ro = append(ro, 'R', 'V', 1, 0)
	b := append([]byte{0x82, byte(len(name)), 0}, name...)
	b = append(b, 0x90, byte(len(ro)), 0)
	b = append(b, ro...)
	b = append(b, 0x78)
	if got := vpdKeyword(b, "V3"); got != "4c5a1d0e-9b1f-4a0b-8c59-0d1f00000000" {
		t.Errorf("V3 = %q", got)
	}
	if got := vpdKeyword(b, "SN"); got != "MT01" {
		t.Errorf("SN = %q", got)
	}
	for i := range b { // a cut never yields part of a value
		if got := vpdKeyword(b[:i], "V3"); got != "" && got != "4c5a1d0e-9b1f-4a0b-8c59-0d1f00000000" {
			t.Errorf("truncated to %d bytes: V3 %q", i, got)
		}
	}
	if got := vpdKeyword([]byte{0x90, 0xff, 0xff, 'V', '3', 0xff}, "V3"); got != "" {
		t.Errorf("malformed: %q", got)
	}
}
