package report

import (
	"reflect"
	"testing"
)

// TestNewCheckView: the details check -v shows are in a Verbose view only,
// and a view without them says so (Details); a source without NICs has no
// matrix, and says why.
func TestNewCheckView(t *testing.T) {
	r := &Report{
		Source:       Source{Name: "m", Format: "sysfs"},
		Accelerators: []Accelerator{{BDF: "a0", Alias: "GPU0", GDR: true}},
		NICs:         []string{"n0"},
		Devices:      []Device{{BDF: "a0", Alias: "GPU0", Kind: "accelerator"}, {BDF: "n0", Alias: "NIC0", Kind: "nic", RDMA: []string{"mlx5_0"}}},
		Pairs: []Pair{{A: "a0", B: "n0", SMI: "PIX", NCCL: "PIX", Notes: []string{"no NUMA nodes: NODE if a0 and n0 share one"},
			Prediction: &Prediction{ExpectedGbps: 200, GDR: true, GDRRead: true}}},
		Counts:   Counts{Warning: 1},
		Findings: []Finding{{Code: "W1", Severity: "warning", Devices: []string{"a0", "n0"}, Message: "m", Evidence: "e", Remedy: []RemedyStep{{Kind: "bios", Text: "x"}}}},
		Plan: Plan{Assignments: []Assignment{{Accelerator: "a0", NIC: "n0", ExpectedGbps: 200, ShareGbps: 200, Shared: 1, Known: true}},
			WorstGbps: 200, MeanGbps: 200, Ranks: []Rank{{LocalRank: 0, Env: []string{"NCCL_IB_HCA==mlx5_0", "X=a b"}, Numactl: "numactl -N 0"}}},
	}
	short := NewCheckView(r, CheckViewOptions{})
	if short.Severity != "warning" || short.Verdict != "1 warning; rail plan: GPUDirect RDMA for 1 of 1 accelerators, worst 200 Gb/s" {
		t.Errorf("verdict %q %q", short.Severity, short.Verdict)
	}
	if short.Pairs != nil || short.Plan.Ranks != nil || short.Findings[0].Remedy != nil || short.Findings[0].Evidence != "" || !short.Details {
		t.Errorf("short view holds details: %+v", short)
	}
	if short.Findings[0].Devices != "GPU0, NIC0" || !reflect.DeepEqual(short.Notes, []string{"GPU0-NIC0: no NUMA nodes: NODE if a0 and n0 share one"}) {
		t.Errorf("short view: devices %q, notes %q", short.Findings[0].Devices, short.Notes)
	}
	full := NewCheckView(r, CheckViewOptions{Verbose: true})
	if want := [][]string{{"GPU0 a0", "NIC0 mlx5_0 n0", "PIX", "PIX", "", "unknown", "0", "200 Gb/s", "", "yes"}}; !reflect.DeepEqual(full.Pairs, want) {
		t.Errorf("pairs %q, want %q", full.Pairs, want)
	}
	if f := full.Findings[0]; f.Devices != "GPU0 a0, NIC0 n0" || f.Evidence != "e" || !reflect.DeepEqual(f.Remedy, []string{"# BIOS: x"}) || full.Details {
		t.Errorf("verbose finding %+v, details %v", f, full.Details)
	}
	if want := []CheckRank{{0, "rank 0", "NCCL_IB_HCA==mlx5_0 X='a b' numactl -N 0"}}; !reflect.DeepEqual(full.Plan.Ranks, want) {
		t.Errorf("ranks %+v, want %+v", full.Plan.Ranks, want)
	}
	r.NICs = nil
	none := NewCheckView(r, CheckViewOptions{Verbose: true})
	if none.Matrix != nil || none.Pairs != nil || none.NoPairs != "no NICs found among 2 PCI functions: nothing for GPUDirect RDMA to use" {
		t.Errorf("without NICs: matrix %v, pairs %q, %q", none.Matrix, none.Pairs, none.NoPairs)
	}
}

// TestCheckPlanLinkShared: the plan's NIC use says where the card's one
// PCIe link, not the port, bounds an accelerator's share.
func TestCheckPlanLinkShared(t *testing.T) {
	r := &Report{
		Devices: []Device{{BDF: "a0", Alias: "GPU0"}, {BDF: "n0", Alias: "NIC0"}},
		Plan:    Plan{Assignments: []Assignment{{Accelerator: "a0", NIC: "n0", Known: true}}},
	}
	for _, c := range []struct {
		shared, link int
		want         string
	}{{1, 0, "own"}, {1, 2, "own port, card link shared by 2"}, {2, 0, "shared by 2"}, {2, 4, "shared by 2, card link by 4"}} {
		r.Plan.Assignments[0].Shared, r.Plan.Assignments[0].LinkShared = c.shared, c.link
		if got := checkPlan(r, false).Rows[0][4]; got != c.want {
			t.Errorf("shared %d, link %d: %q, want %q", c.shared, c.link, got, c.want)
		}
	}
}
