package topology

import "testing"

// TestComputePartitions checks the logical GPUs per accelerator against
// AMD's own figures: amdsmi.h, amdsmi_accelerator_partition_profile_t's
// num_partitions ("On MI300X: SPX=>1, DPX=>2, QPX=>4, CPX=>8"); the AMD SMI
// docs, "GPU partitioning" ("MI300X has 8 XCDs and MI300A has 6", CPX being
// one partition per XCD); amdgpu's __aqua_vanjaram_get_xcc_per_xcp (TPX a
// third of the XCDs each). CPX on a model whose XCD count is not known, and
// a mode not known, are unknown (0), never a guess.
func TestComputePartitions(t *testing.T) {
	for _, tc := range []struct {
		vendor, device uint16
		mode           string
		want           int
	}{
		{VendorAMD, 0x74a1, "", 1},
		{VendorAMD, 0x74a1, "SPX", 1},
		{VendorAMD, 0x74a1, "DPX", 2},
		{VendorAMD, 0x74a1, "QPX", 4},
		{VendorAMD, 0x74a1, "CPX", 8},
		{VendorAMD, 0x74a0, "TPX", 3},
		{VendorAMD, 0x74a0, "CPX", 6},
		{VendorAMD, 0x74ff, "CPX", 0}, // XCD count unknown
		{VendorAMD, 0x74a1, "OPX", 0}, // no such mode known
		{VendorNVIDIA, 0x2330, "", 1},
	} {
		d := &Device{VendorID: tc.vendor, DeviceID: tc.device}
		d.SetPartitions(tc.mode, "")
		if got := ComputePartitions(d); got != tc.want {
			t.Errorf("%04x:%04x in %q: %d partitions, want %d", tc.vendor, tc.device, tc.mode, got, tc.want)
		}
	}
}
