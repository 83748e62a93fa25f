package render

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gdtopo/gdtopo/internal/fleet"
)

// TestFleet draws a fleet result of three groups: the second other
// hardware (no device shared with the first), the third a changed
// machine, with a variant of 25 sources and 40 differences. The text says
// so for each and cuts the long lists where -o json does not.
func TestFleet(t *testing.T) {
	devices := func(n int, model string) *fleet.Topo {
		topo := &fleet.Topo{}
		for i := range n {
			topo.Devices = append(topo.Devices, fleet.TopoDevice{BDF: fmt.Sprintf("0000:%02x:00.0", i), Kind: "accelerator", Model: model})
		}
		return topo
	}
	var sources []string
	var diffs []fleet.Difference
	for i := range 40 {
		diffs = append(diffs, fleet.Difference{What: "missing", Kind: "accelerator", Device: fmt.Sprintf("0000:%02x:00.0", i), Majority: "10de:2330"})
	}
	for i := range 25 {
		sources = append(sources, fmt.Sprintf("n%02d", i))
	}
	r := &fleet.Result{Sources: 30, Differing: 27, Unreadable: 1,
		Groups: []fleet.Group{
			{Group: 1, Sources: 3, Accelerators: 8, Alike: 2, Reference: "a", Topology: devices(8, "10de:2330"),
				Variants: []fleet.Variant{{Sources: sources, Differences: diffs}}},
			{Group: 2, Sources: 1, Accelerators: 8, Alike: 1, Reference: "b", Topology: devices(8, "1002:74a1"),
				ComparedWith: 1, Differences: diffs[:16], SharedDevices: 0},
			{Group: 3, Sources: 1, Accelerators: 7, Alike: 1, Reference: "c", Topology: devices(7, "10de:2330"),
				ComparedWith: 1, Differences: diffs[7:8], SharedDevices: 7},
			{Group: 4, Sources: 1, Unidentified: 6, Alike: 1, Reference: "e", Topology: &fleet.Topo{}},
			{Group: 5, Sources: 1, Accelerators: 2, Alike: 1, Reference: "f", Topology: &fleet.Topo{Partial: "a tree fragment: give the whole lspci -tv"}},
		},
		Errors: []fleet.Error{{Source: "d", Error: "d: not a sysfs tree"}}}
	var b strings.Builder
	if err := Fleet(&b, r, Style{Width: 200}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"30 sources: 5 groups, 27 unlike the majority, 1 unreadable\n",
		"group 1: 3 sources (8 accelerators, 0 NICs), 2 alike, like a\n",
		"  n00 n01 n02 n03 n04 n05 n06 n07 n08 n09 n10 n11 n12 n13 n14 n15 n16 n17 n18 n19 and 5 more:\n",
		"    ... and 10 more differences (-o json lists them all)\n",
		"group 2: 1 source (8 accelerators, 0 NICs), 1 alike, like b\n  other hardware than group 1: 0 of its 8 devices are at the same place with the same model there, of 8 in group 1",
		"group 3: 1 source (7 accelerators, 0 NICs), 1 alike, like c\n  unlike group 1:\n    accelerator 0000:07:00.0: missing (majority: 10de:2330)\n",
		"group 4: 1 source (no accelerator identified among 6 unidentified functions, 0 NICs), 1 alike, like e\n",
		"group 5: 1 source (2 accelerators, 0 NICs in a partial source: a tree fragment: give the whole lspci -tv), 1 alike, like f\n",
		"unreadable:\n  d: not a sysfs tree\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("fleet text lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "0000:1e:00.0") {
		t.Errorf("fleet text lists a 31st difference:\n%s", out)
	}
}
