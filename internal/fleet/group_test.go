package fleet

import (
	"slices"
	"strings"
	"testing"

	"github.com/gdtopo/gdtopo/topology"
)

// topoLiteral is a small machine: one GPU and one NIC under a switch.
func topoLiteral() Topo {
	return Topo{
		Devices: []TopoDevice{
			{BDF: "0000:15:01.0", Kind: "bridge", Model: "8086:352a", ACS: "off", CurrentGTs: 32, CurrentWidth: 16, MaxGTs: 32, MaxWidth: 16},
			{BDF: "0000:16:00.0", Kind: "accelerator", Model: "10de:2330", Parent: "0000:15:01.0", CurrentGTs: 32, CurrentWidth: 16, MaxGTs: 32, MaxWidth: 16},
			{BDF: "0000:17:00.0", Kind: "nic", Model: "15b3:1021", Parent: "0000:15:01.0", RDMA: []string{"mlx5_0"}, Netdev: []string{"ibp23s0"},
				CurrentGTs: 32, CurrentWidth: 16, MaxGTs: 32, MaxWidth: 16, PortRateGbps: 400},
		},
		Pairs: []TopoPair{{GPU: "0000:16:00.0", NIC: "0000:17:00.0", SMI: "PIX", NCCL: "PIX", ExpectedGbps: 400, GDR: true}},
		IOMMU: "iommu=pt, 2 IOMMU units",
	}
}

func whats(ds []Difference) []string {
	var out []string
	for _, d := range ds {
		s := d.What + " " + d.Device + " " + d.Majority + " -> " + d.Node
		if len(d.Devices) > 0 {
			s += " on " + strings.Join(d.Devices, ",")
		}
		out = append(out, s)
	}
	return out
}

func TestCompare(t *testing.T) {
	ref := topoLiteral()
	if d := Compare(&ref, &ref); len(d) != 0 {
		t.Fatalf("a machine differs from itself: %v", whats(d))
	}
	renamed := topoLiteral()
	renamed.Devices[2].RDMA = []string{"mlx5_1"}
	slow := topoLiteral()
	slow.Devices[2].CurrentWidth = 8
	slow.Pairs[0].ExpectedGbps = 230.5
	slow.Pairs[0].SMI = "PXB"
	gone := topoLiteral()
	gone.Devices = gone.Devices[:2]
	gone.Pairs = nil
	unbonded, bonded := topoLiteral(), topoLiteral()
	bonded.Devices[2].Bond = "bond0"
	acs := topoLiteral()
	acs.Devices[0].ACS = "redirect"
	acs.Findings = []TopoFinding{{Code: "acs-redirect", Severity: "critical", Devices: []string{"0000:15:01.0"}}}
	acs.IOMMU = "intel_iommu=on, 2 IOMMU units"
	for _, c := range []struct {
		name string
		node Topo
		want []string
	}{
		{"renamed", renamed, []string{"renamed 0000:17:00.0 mlx5_0 ibp23s0 -> mlx5_1 ibp23s0"}},
		{"slow", slow, []string{"link 0000:17:00.0 x16 at 32 GT/s -> x8 at 32 GT/s", "label 0000:16:00.0 PIX/PIX -> PXB/PIX",
			"throughput 0000:16:00.0 400.0 Gb/s -> 230.5 Gb/s"}},
		{"gone", gone, []string{"missing 0000:17:00.0 15b3:1021 under 0000:15:01.0 -> "}},
		{"bond", bonded, []string{"bond 0000:17:00.0  -> bond0"}},
		{"acs", acs, []string{"acs 0000:15:01.0 off -> redirect", "finding_added   -> critical on 0000:15:01.0",
			"host_iommu  iommu=pt, 2 IOMMU units -> intel_iommu=on, 2 IOMMU units"}},
	} {
		got := Compare(&ref, &c.node)
		if !slices.Equal(whats(got), c.want) {
			t.Errorf("%s: %q, want %q", c.name, whats(got), c.want)
		}
		for _, d := range got {
			if d.What != "renamed" && d.What != "host_iommu" && d.What != "bond" && !d.Worse {
				t.Errorf("%s: %s not marked worse", c.name, d)
			}
		}
	}
	// Every difference Compare finds is in the key that groups sources.
	for _, c := range []Topo{renamed, slow, gone, bonded, acs} {
		if c.key() == ref.key() {
			t.Errorf("%v: the same key as the reference", whats(Compare(&ref, &c)))
		}
	}
	// A NIC out of the bond the majority's is in is worse (RoCE LAG lost
	// on that node); one in a bond the majority lacks is only different.
	lost := Compare(&bonded, &unbonded)
	if len(lost) != 1 || lost[0].What != "bond" || !lost[0].Worse || lost[0].String() != "nic 0000:17:00.0 (mlx5_0): bond none, majority bond0" {
		t.Errorf("bond lost: %q; want one worse bond difference", whats(lost))
	}
	if gained := Compare(&unbonded, &bonded); len(gained) != 1 || gained[0].Worse {
		t.Errorf("bond gained: %v; want one difference, not worse", gained)
	}
}

// TestCompareFindingsPerDevice: findings are compared per code and
// device, so a second NIC at x8 beside the fleet's one is one finding
// difference on that NIC and its port, never a finding "missing" while the
// first NIC still has it; a machine better than a degraded majority is
// not worse.
func TestCompareFindingsPerDevice(t *testing.T) {
	degraded := func(devs ...string) Topo {
		tp := topoLiteral()
		tp.Findings = []TopoFinding{{Code: "link-width-degraded", Severity: "warning", Devices: devs}}
		return tp
	}
	common := degraded("0000:15:01.0", "0000:17:00.0")
	more := degraded("0000:15:01.0", "0000:16:00.0", "0000:17:00.0")
	healthy := topoLiteral()
	if got, want := whats(Compare(&common, &more)), []string{"finding_added   -> warning on 0000:16:00.0"}; !slices.Equal(got, want) {
		t.Errorf("a second device degraded: %q, want %q", got, want)
	}
	diffs := Compare(&common, &healthy)
	if got, want := whats(diffs), []string{"finding_missing  warning ->  on 0000:15:01.0,0000:17:00.0"}; !slices.Equal(got, want) {
		t.Errorf("healthy against a degraded majority: %q, want %q", got, want)
	}
	for _, d := range diffs {
		if d.Worse {
			t.Errorf("healthy against a degraded majority: %s marked worse", d)
		}
	}
	severe := degraded("0000:15:01.0", "0000:17:00.0")
	severe.Findings = append(severe.Findings, TopoFinding{Code: "link-width-degraded", Severity: "critical", Devices: []string{"0000:17:00.0"}})
	if d := Compare(&common, &severe); len(d) != 1 || d[0].What != "finding_severity" || !d[0].Worse || !slices.Equal(d[0].Devices, []string{"0000:17:00.0"}) {
		t.Errorf("severity raised on one device: %q", whats(d))
	}
}

// TestRenumbered: a device at the same place under another bus number is
// renamed, not moved: not worse, and the machine counts as alike.
func TestRenumbered(t *testing.T) {
	ref := topoLiteral()
	ref.Devices = ref.Devices[:2] // the bridge and the GPU
	ref.Pairs = nil
	renum := topoLiteral()
	renum.Devices = renum.Devices[:2]
	renum.Pairs = nil
	renum.Devices[1].BDF = "0000:18:00.0"
	diffs := Compare(&ref, &renum)
	if len(diffs) != 1 || diffs[0].What != "renamed" || diffs[0].Worse || !diffs[0].Renumbered ||
		diffs[0].String() != "accelerator 0000:16:00.0: renamed 0000:16:00.0 -> 0000:18:00.0 (bus renumbered, same place in the tree)" {
		t.Fatalf("renumbered: %q", diffs)
	}
	f := NewFleet(3)
	for i, tp := range []Topo{ref, ref, renum} {
		f.Add(i, &tp)
	}
	r := f.Result([]string{"a", "b", "c"})
	if len(r.Groups) != 1 || r.Differing != 0 || !r.Node(2).Alike || len(r.Node(2).Differences) != 1 {
		t.Errorf("renumbered node: groups %d, differing %d, node %+v", len(r.Groups), r.Differing, r.Node(2))
	}
}

// TestEveryBridgeKept: a port whose device is gone stays in the Topo, so
// the device is missing and the port is not.
func TestEveryBridgeKept(t *testing.T) {
	dev := func(bdf string, kind topology.Kind, parent *topology.Device) *topology.Device {
		addr, err := topology.ParseBDF(bdf)
		if err != nil {
			t.Fatal(err)
		}
		return &topology.Device{Addr: addr, Kind: kind, Parent: parent}
	}
	rp := dev("0000:3e:00.0", topology.KindBridge, nil)
	port := dev("0000:3f:01.0", topology.KindBridge, rp)
	nic := dev("0000:41:00.0", topology.KindNIC, port)
	with := NewTopo(&topology.Graph{Devices: []*topology.Device{rp, port, nic}}, nil, nil)
	without := NewTopo(&topology.Graph{Devices: []*topology.Device{rp, port}}, nil, nil)
	if got, want := whats(Compare(&with, &without)), []string{"missing 0000:41:00.0 0000:0000 under 0000:3f:01.0 -> "}; !slices.Equal(got, want) {
		t.Errorf("NIC gone: %q, want %q", got, want)
	}
}

// TestFleetOrder: the result is the same whatever order the sources come
// in, and the largest group and its majority come first.
func TestFleetOrder(t *testing.T) {
	ref := topoLiteral()
	odd := topoLiteral()
	odd.Devices[2].CurrentWidth = 8
	other := topoLiteral()
	other.Devices[1].Model = "10de:20b0"
	topos := []Topo{ref, odd, ref, other, ref}
	names := []string{"a", "b", "c", "d", "e"}
	run := func(order []int) *Result {
		f := NewFleet(len(topos))
		for _, i := range order {
			f.Add(i, &topos[i])
		}
		return f.Result(names)
	}
	r := run([]int{0, 1, 2, 3, 4})
	r2 := run([]int{4, 3, 2, 1, 0})
	if len(r.Groups) != 2 || r.Groups[0].Sources != 4 || r.Groups[0].Alike != 3 || r.Groups[0].Reference != "a" ||
		len(r.Groups[0].Variants) != 1 || !slices.Equal(r.Groups[0].Variants[0].Sources, []string{"b"}) || r.Differing != 2 {
		t.Fatalf("groups %+v", r.Groups)
	}
	for i := range names {
		a, b := r.Node(i), r2.Node(i)
		if a.Group != b.Group || a.Alike != b.Alike || a.Reference != b.Reference || len(a.Differences) != len(b.Differences) {
			t.Errorf("source %s: %+v in one order, %+v in the other", names[i], a, b)
		}
	}
	if n := r.Node(3); n.Group != 2 || n.Alike || n.Reference != "a" || len(n.Differences) != 2 {
		t.Errorf("other hardware: %+v", n)
	}
}

// TestUnidentified: functions a source does not identify (possibly its
// accelerators, as on a POWER9 capture without vendor files) are compared
// as accelerators are: a machine that lacks one differs, and its group
// counts them apart from the accelerators.
func TestUnidentified(t *testing.T) {
	dev := func(bdf string, kind topology.Kind, parent *topology.Device) *topology.Device {
		addr, err := topology.ParseBDF(bdf)
		if err != nil {
			t.Fatal(err)
		}
		return &topology.Device{Addr: addr, Kind: kind, Parent: parent, Unidentified: kind == topology.KindOther}
	}
	machine := func(gpus ...string) Topo {
		rp := dev("0004:00:00.0", topology.KindBridge, nil)
		g := &topology.Graph{Devices: []*topology.Device{rp}}
		for _, bdf := range gpus {
			g.Devices = append(g.Devices, dev(bdf, topology.KindOther, rp))
		}
		return NewTopo(g, nil, nil)
	}
	both, one := machine("0004:04:00.0", "0004:05:00.0"), machine("0004:04:00.0")
	if len(both.Devices) != 3 || !both.Devices[1].Unidentified || both.Devices[0].Unidentified {
		t.Fatalf("devices %+v: want the bridge and two unidentified functions", both.Devices)
	}
	diffs := Compare(&both, &one)
	if len(diffs) != 1 || diffs[0].What != "missing" || !diffs[0].Worse ||
		diffs[0].String() != "other 0004:05:00.0 (unidentified): missing (majority: 0000:0000 under 0004:00:00.0)" {
		t.Errorf("one unidentified function gone: %q", diffs)
	}
	f := NewFleet(3)
	for i, m := range []Topo{both, both, one} {
		f.Add(i, &m)
	}
	r := f.Result([]string{"a", "b", "c"})
	if g := r.Groups[0]; len(r.Groups) != 2 || g.Unidentified != 2 || g.Accelerators != 0 || r.Groups[1].Unidentified != 1 {
		t.Errorf("groups %+v", r.Groups)
	}
}

// TestPartial: a source that holds part of a machine (a tree fragment) is
// never grouped with a whole machine of the same devices, and the
// difference says why.
func TestPartial(t *testing.T) {
	rp := &topology.Device{Addr: topology.BDF{Bus: 0x5b}, Kind: topology.KindBridge}
	gpu := &topology.Device{Addr: topology.BDF{Bus: 0x5c}, Kind: topology.KindAccelerator, Parent: rp}
	whole := NewTopo(&topology.Graph{Devices: []*topology.Device{rp, gpu}}, nil, nil)
	part := NewTopo(&topology.Graph{Devices: []*topology.Device{rp, gpu}, Partial: "a tree fragment: give the whole lspci -tv"}, nil, nil)
	diffs := Compare(&whole, &part)
	if len(diffs) != 1 || diffs[0].String() != "the source holds part of the machine: a tree fragment: give the whole lspci -tv, majority none" {
		t.Errorf("differences %q", diffs)
	}
	f := NewFleet(3)
	for i, m := range []Topo{whole, whole, part} {
		f.Add(i, &m)
	}
	if r := f.Result([]string{"a", "b", "c"}); len(r.Groups) != 2 || r.Groups[1].Topology.Partial == "" {
		t.Errorf("groups %+v: want the fragment apart", r.Groups)
	}
}

// TestPartialLacksNothing: a device a partial source did not read (a
// subtree it may not read) is not called missing; the partial difference
// says why the source differs.
func TestPartialLacksNothing(t *testing.T) {
	rp := &topology.Device{Addr: topology.BDF{Bus: 0x5b}, Kind: topology.KindBridge}
	gpu := &topology.Device{Addr: topology.BDF{Bus: 0x5c}, Kind: topology.KindAccelerator, Parent: rp}
	whole := NewTopo(&topology.Graph{Devices: []*topology.Device{rp, gpu}}, nil, nil)
	part := NewTopo(&topology.Graph{Devices: []*topology.Device{rp}, Partial: "1 function whose folder this user may not read"}, nil, nil)
	diffs := Compare(&whole, &part)
	if len(diffs) != 1 || diffs[0].What != "partial" {
		t.Errorf("differences %q; want the partial one alone", diffs)
	}
	part.Partial = ""
	missing := false
	for _, d := range Compare(&whole, &part) {
		missing = missing || d.What == "missing" && d.Device == "0000:5c:00.0"
	}
	if !missing {
		t.Errorf("a whole source without the GPU: differences %q; want it missing", Compare(&whole, &part))
	}
}
