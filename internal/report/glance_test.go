package report

import (
	"reflect"
	"testing"
)

// TestNoteGroups: a note every pair shares is one group with all the
// pairs; notes that differ after their first ": " share their head.
func TestNoteGroups(t *testing.T) {
	r := &Report{
		Accelerators: []Accelerator{{BDF: "a0", Alias: "GPU0"}, {BDF: "a1", Alias: "GPU1"}},
		NICs:         []string{"n0"},
		Devices:      []Device{{BDF: "a0", Alias: "GPU0"}, {BDF: "a1", Alias: "GPU1"}, {BDF: "n0", Alias: "NIC0"}},
		Pairs: []Pair{
			{A: "a0", B: "n0", Notes: []string{"link speeds unknown: no bottleneck computed", "no NUMA nodes: NODE if a0 and n0 share one"}},
			{A: "a1", B: "n0", Notes: []string{"link speeds unknown: no bottleneck computed", "no NUMA nodes: NODE if a1 and n0 share one"}},
		},
	}
	want := []noteGroup{
		{Note: "link speeds unknown: no bottleneck computed", Pairs: []string{"GPU0-NIC0", "GPU1-NIC0"}},
		{Note: "no NUMA nodes", Pairs: []string{"GPU0-NIC0", "GPU1-NIC0"}},
	}
	if got := noteGroups(r); !reflect.DeepEqual(got, want) {
		t.Errorf("noteGroups = %+v, want %+v", got, want)
	}
}

// TestGbps: whole Gb/s, tenths below 10 (a 1 GbE port shared by two is
// 0.5 Gb/s, not 0), unknown for 0.
