package advisor

import (
	"strings"
	"testing"

	"github.com/gdtopo/gdtopo/topology"
)

// TestPartitionedPlan runs mi300x-8oam, whose MI300X OAMs run in CPX (eight
// ranks each behind one PCI function, amdsmi.h: "On MI300X: ... CPX=>8"),
// and then the same machine in SPX and on a model whose XCD count is not
// known: each NIC is shared by the eight partitions of its OAM, each rank
// getting an eighth of it; in SPX each OAM has its NIC to itself, as
// before; where the count is unknown the share is unknown, not guessed.
func TestPartitionedPlan(t *testing.T) {
	g, r := analyzeFixture(t, "mi300x-8oam", "")
	gpus := g.OfKind(topology.KindAccelerator)
	if len(r.Plan.Assignments) != len(gpus) {
		t.Fatalf("%d assignments for %d accelerators", len(r.Plan.Assignments), len(gpus))
	}
	for _, as := range r.Plan.Assignments {
		if as.Partitions != 8 || as.Shared != 8 || as.ExpectedGbps <= 0 || as.ShareGbps != as.ExpectedGbps/8 {
			t.Errorf("CPX: %s on %s: %d partitions, shared by %d, %.1f Gb/s each of %.1f; want 8, 8, an eighth", as.GPU.BDF(), as.NIC.BDF(), as.Partitions, as.Shared, as.ShareGbps, as.ExpectedGbps)
		}
	}
	shared := 0
	for _, f := range r.Findings {
		if f.Code == "nic-shared" {
			shared++
			if !strings.Contains(f.Message, "8 ranks share NIC") || !strings.Contains(f.Message, "in 8 CPX partitions") || !strings.Contains(f.Message, "1/8") {
				t.Errorf("nic-shared: %q", f.Message)
			}
		}
	}
	if shared != len(gpus) {
		t.Errorf("%d nic-shared findings, want one per NIC (%d)", shared, len(gpus))
	}

	for _, tc := range []struct {
		name  string
		set   func(d *topology.Device)
		check func(as Assignment) bool
	}{
		{"SPX", func(d *topology.Device) { d.SetPartitions("SPX", d.MemoryPartition()) }, func(as Assignment) bool {
			return as.Partitions == 1 && as.Shared == 1 && as.ShareGbps == as.ExpectedGbps
		}},
		{"CPX, XCDs unknown", func(d *topology.Device) { d.DeviceID = 0x74ff }, func(as Assignment) bool {
			return as.Partitions == 0 && as.Shared == 0 && as.ShareGbps == 0
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, _ := analyzeFixture(t, "mi300x-8oam", "")
			for _, d := range g.OfKind(topology.KindAccelerator) {
				tc.set(d)
			}
			r := analyze(t, g, Options{})
			for _, as := range r.Plan.Assignments {
				if !tc.check(as) {
					t.Errorf("%s on %s: %d partitions, shared by %d, %.1f Gb/s each of %.1f", as.GPU.BDF(), as.NIC.BDF(), as.Partitions, as.Shared, as.ShareGbps, as.ExpectedGbps)
				}
			}
			unknown := tc.name != "SPX"
			if unknown != (r.Plan.WorstGbps == 0) {
				t.Errorf("worst %.1f Gb/s", r.Plan.WorstGbps)
			}
			shared := 0
			for _, f := range r.Findings {
				if f.Code == "nic-shared" {
					shared++
					if !unknown || !strings.Contains(f.Message, "how many the source does not show") {
						t.Errorf("nic-shared: %q", f.Message)
					}
				}
			}
			if unknown && shared != len(gpus) {
				t.Errorf("%d nic-shared findings, want one per NIC (%d)", shared, len(gpus))
			}
		})
	}
}
