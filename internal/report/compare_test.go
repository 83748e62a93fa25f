package report

import (
	"maps"
	"slices"
	"strings"
	"testing"
)

// TestCompare: the first measure two servers differ on decides, with the
// difference in the sentence; unknown throughput decides nothing; a tie
// only when every known number ties.
func TestCompare(t *testing.T) {
	server := func(name string, m Measures, critical ...string) Server {
		return Server{Source: name, Measures: m, Critical: critical}
	}
	for _, tt := range []struct {
		name        string
		servers     []Server
		best, words string
		ranks       []int
		tie         bool
	}{
		{"unknown paths never rank first", []Server{
			server("dump", Measures{Accelerators: 8, RailNICs: 8, UnknownPaths: 64}),
			server("tree", Measures{WorstGbps: 100, MeanGbps: 100, Warning: 5, Accelerators: 2, RailNICs: 1})},
			"tree", "its accelerator–NIC paths are all known, and dump cannot be ranked: 64 of its accelerator–NIC paths are unknown", []int{2, 1}, false},
		{"two with unknown paths tie", []Server{
			server("d1", Measures{Accelerators: 8, RailNICs: 2, UnknownPaths: 8}),
			server("d2", Measures{Accelerators: 4, RailNICs: 1, Warning: 1, UnknownPaths: 4})},
			"", "d1 cannot be ranked: 8 of its accelerator–NIC paths are unknown", []int{1, 1}, true},
		{"GPUDirect RDMA for more accelerators ranks first, whatever a staged figure says", []Server{
			server("genoa", Measures{WorstGbps: 260, MeanGbps: 260, Critical: 1, Accelerators: 4, RailNICs: 4}, "no-local-nic"),
			server("hgx", Measures{GDRAccelerators: 8, WorstGbps: 230, MeanGbps: 379, Warning: 1, Accelerators: 8, RailNICs: 8})},
			"hgx", "its rail plan gives GPUDirect RDMA to 8 of 8 accelerators against 0 of 4 for genoa, which stages the rest through host memory; genoa's higher worst pair (260 Gb/s against 230 Gb/s) counts staged figures", []int{2, 1}, false},
		{"a staged worst pair is not higher than an unknown one", []Server{
			server("dump", Measures{GDRAccelerators: 4, Accelerators: 4, RailNICs: 6, Unseen: []string{"link state", "ACS", "NUMA nodes"}}),
			server("genoa", Measures{WorstGbps: 150, WorstStaged: true, MeanGbps: 232, Critical: 1, Accelerators: 4, RailNICs: 4}, "no-local-nic")},
			"dump", "its rail plan gives GPUDirect RDMA to 4 of 4 accelerators against 0 of 4 for genoa, which stages the rest through host memory.", []int{1, 2}, false},
		{"worst pair decides", []Server{
			server("a", Measures{WorstGbps: 196, MeanGbps: 300, Accelerators: 8, RailNICs: 4}),
			server("b", Measures{WorstGbps: 392, MeanGbps: 392, Accelerators: 4, RailNICs: 4})},
			"b", "its worst planned accelerator–NIC pair is 392 Gb/s against 196 Gb/s for a (+196 Gb/s, 2.00x)", []int{2, 1}, false},
		{"a ceiling above a figure decides nothing", []Server{
			server("xml", Measures{WorstGbps: 461, MeanGbps: 461, AtMost: true, Accelerators: 8, RailNICs: 8}),
			server("tree", Measures{WorstGbps: 400, MeanGbps: 400, Accelerators: 8, RailNICs: 10})},
			"tree", "it has 10 rail NICs against 8 for xml; they tie on critical findings, warning findings, accelerators; " +
				"ceilings that do not decide (a NIC's port rate unknown): worst planned accelerator–NIC pair, mean planned pair", []int{2, 1}, false},
		{"a ceiling below a figure ranks lower", []Server{
			server("xml", Measures{WorstGbps: 230, MeanGbps: 230, AtMost: true, Accelerators: 8, RailNICs: 10}),
			server("tree", Measures{WorstGbps: 400, MeanGbps: 400, Warning: 1, Accelerators: 8, RailNICs: 8})},
			"tree", "its worst planned accelerator–NIC pair is 400 Gb/s against at most 230 Gb/s for xml, whose NICs' port rates are not all known", []int{2, 1}, false},
		{"two ceilings decide nothing", []Server{
			server("x1", Measures{WorstGbps: 461, MeanGbps: 461, AtMost: true, Accelerators: 8, RailNICs: 8}),
			server("x2", Measures{WorstGbps: 230, MeanGbps: 230, AtMost: true, Accelerators: 4, RailNICs: 4})},
			"x1", "it has 8 accelerators against 4 for x2; they tie on critical findings, warning findings; " +
				"ceilings that do not decide (a NIC's port rate unknown): worst planned accelerator–NIC pair, mean planned pair", []int{1, 2}, false},
		{"same throughput: fewer warnings", []Server{
			server("pxb4", Measures{WorstGbps: 200, MeanGbps: 200, Warning: 1, Accelerators: 4, RailNICs: 4}),
			server("pix8", Measures{WorstGbps: 200, MeanGbps: 200, Accelerators: 8, RailNICs: 8}),
			server("ws", Measures{WorstGbps: 200, MeanGbps: 200, Warning: 3, Accelerators: 2, RailNICs: 1})},
			"pix8", "it has 0 warning findings against 1 for pxb4; they tie on worst planned accelerator–NIC pair, mean planned pair, critical findings", []int{2, 1, 3}, false},
		{"critical codes named", []Server{
			server("a", Measures{Critical: 2, Warning: 1, Accelerators: 8, RailNICs: 8}, "acs-redirect"),
			server("b", Measures{Warning: 4, Accelerators: 8, RailNICs: 8})},
			"b", "it has 0 critical findings against 2 for a, whose critical findings are acs-redirect", []int{2, 1}, false},
		{"unknown throughput is not zero", []Server{
			server("lspci", Measures{Accelerators: 4, RailNICs: 4}),
			server("xml", Measures{WorstGbps: 230, MeanGbps: 230, Accelerators: 8, RailNICs: 8})},
			"xml", "it has 8 accelerators against 4 for lspci", []int{2, 1}, false},
		{"no RDMA NIC ranks below any that may do RDMA", []Server{
			server("vm", Measures{Accelerators: 1}), // virtio-net only: no-rdma-nic, no rail
			server("dump", Measures{Accelerators: 8, RailNICs: 8, Warning: 9, UnknownPaths: 64}),
			server("cpu", Measures{RailNICs: 2})},
			"dump", "it has accelerators and a NIC that may do RDMA, and vm has no NIC that can do RDMA", []int{2, 1, 2}, false},
		{"neither can do GPUDirect RDMA: a tie", []Server{
			server("vm", Measures{Accelerators: 1, Warning: 2}),
			server("cpu", Measures{RailNICs: 2, Warning: 1})},
			"", "neither can do GPUDirect RDMA, so nothing ranks them: vm has no NIC that can do RDMA, cpu has no accelerator", []int{1, 1}, true},
		{"findings of a source that shows less are not compared", []Server{
			server("dump", Measures{Info: 1, Accelerators: 4, RailNICs: 4, Unseen: []string{"link state", "ACS", "NUMA nodes"}}),
			server("tree", Measures{WorstGbps: 230, MeanGbps: 379, Warning: 1, Info: 1, Accelerators: 8, RailNICs: 8})},
			"tree", "it has 8 accelerators against 4 for dump; unknown for one or both, so not compared: worst planned accelerator–NIC pair, mean planned pair; " +
				"not compared, as fewer findings may be fewer seen: critical findings, warning findings (tree shows link state, ACS and NUMA nodes; dump does not show link state, ACS, NUMA nodes)",
			[]int{2, 1}, false},
		{"findings of sources that show the same are compared", []Server{
			server("d8", Measures{Warning: 1, Accelerators: 8, RailNICs: 8, Unseen: []string{"link state", "NUMA nodes"}}),
			server("d4", Measures{Accelerators: 4, RailNICs: 4, Unseen: []string{"link state", "NUMA nodes"}})},
			"d4", "it has 0 warning findings against 1 for d8", []int{2, 1}, false},
		{"a tie, findings not compared", []Server{
			server("dump", Measures{Accelerators: 4, RailNICs: 4, Unseen: []string{"link state"}}),
			server("tree", Measures{Warning: 1, Accelerators: 4, RailNICs: 4})},
			"", "dump and tree tie: no measure the table shows ranks them; they tie on accelerators, rail NICs; unknown for one or both, so not compared: worst planned accelerator–NIC pair, mean planned pair; " +
				"not compared, as fewer findings may be fewer seen: critical findings, warning findings, info findings (dump does not show link state; tree shows link state, ACS and NUMA nodes).",
			[]int{1, 1}, true},
		{"a fragment whose NICs were skipped is unranked, not without RDMA", []Server{
			server("frag", Measures{Accelerators: 2, Partial: "a tree fragment: give the whole lspci -tv", SkippedNICs: 6}),
			server("tree", Measures{WorstGbps: 230, MeanGbps: 379, Warning: 1, Accelerators: 8, RailNICs: 8})},
			"tree", "its accelerator–NIC paths are all known, and frag cannot be ranked: its source holds part of the machine, with 6 NICs it does not place (a tree fragment: give the whole lspci -tv)", []int{2, 1}, false},
		{"a fragment with placed pairs and a skipped NIC is unranked too", []Server{
			server("tree", Measures{WorstGbps: 100, MeanGbps: 100, Accelerators: 2, RailNICs: 1}),
			server("frag", Measures{WorstGbps: 200, MeanGbps: 200, Accelerators: 2, RailNICs: 1, Partial: "a tree fragment: give the whole lspci -tv", SkippedNICs: 1})},
			"tree", "frag cannot be ranked: it names 1 NIC it does not place, so its paths are unknown", []int{1, 2}, false},
		{"a fragment without accelerators against a server without RDMA: nothing ranks them", []Server{
			server("vm", Measures{Accelerators: 1}),
			server("frag", Measures{RailNICs: 1, Partial: "a tree fragment: give the whole lspci -tv", SkippedNICs: 1})},
			"", "nothing ranks vm and frag: vm has no NIC that can do RDMA; whether frag can do GPUDirect RDMA is unknown: its source holds part of the machine, with no accelerator (a tree fragment", []int{1, 1}, true},
		{"two fragments: nothing ranks them", []Server{
			server("b", Measures{Accelerators: 2, Partial: "a tree fragment: give the whole lspci -tv", SkippedNICs: 6}),
			server("a", Measures{RailNICs: 1, Partial: "the text starts inside the tree: give the whole NCCL_TOPO_DUMP_FILE output"})},
			"", "whether b can do GPUDirect RDMA is unknown: its source holds part of the machine, with 6 NICs it does not place (a tree fragment: give the whole lspci -tv); " +
				"whether a can do GPUDirect RDMA is unknown: its source holds part of the machine, with no accelerator (the text starts inside the tree", []int{1, 1}, true},
		{"a fragment without accelerators against a server with unknown paths: nothing ranks them", []Server{
			server("frag", Measures{RailNICs: 1, Partial: "a tree fragment: give the whole lspci -tv"}),
			server("dump", Measures{Accelerators: 4, RailNICs: 4, UnknownPaths: 16})},
			"", "; dump cannot be ranked: 16 of its accelerator–NIC paths are unknown", []int{1, 1}, true},
		{"a partial source with accelerators and NICs is unranked", []Server{
			server("cut", Measures{WorstGbps: 400, MeanGbps: 400, Accelerators: 1, RailNICs: 2, Partial: "the text starts inside the tree: give the whole NCCL_TOPO_DUMP_FILE output"}),
			server("tree", Measures{WorstGbps: 230, MeanGbps: 379, Warning: 1, Accelerators: 8, RailNICs: 8})},
			"tree", "its accelerator–NIC paths are all known, and cut cannot be ranked: its source holds part of the machine (the text starts inside the tree", []int{2, 1}, false},
		{"tie", []Server{
			server("a", Measures{WorstGbps: 100, MeanGbps: 100, Accelerators: 2, RailNICs: 1}),
			server("b", Measures{WorstGbps: 100, MeanGbps: 100, Accelerators: 2, RailNICs: 1})},
			"", "a and b tie", []int{1, 1}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := Compare(tt.servers)
			v := c.Verdict
			if v.Best != tt.best || v.Tie != tt.tie || !strings.Contains(v.Sentence, tt.words) {
				t.Errorf("verdict %+v; want best %q, tie %v, sentence with %q", v, tt.best, tt.tie, tt.words)
			}
			for i, s := range c.Servers {
				if s.Rank != tt.ranks[i] {
					t.Errorf("%s: rank %d, want %d", s.Source, s.Rank, tt.ranks[i])
				}
			}
		})
	}
}

// TestServerOfRoundsAsShown: a server's throughput measures are rounded as
// the table shows them, so a worst pair of 0.34 Gb/s is 0.3, not 0 (which
// the comparison reads as unknown), and one of 130.4 Gb/s is 130.
func TestServerOfRoundsAsShown(t *testing.T) {
	r := &Report{Plan: Plan{WorstGbps: 0.34, MeanGbps: 130.4}}
	if m := ServerOf(r).Measures; m.WorstGbps != 0.3 || m.MeanGbps != 130 {
		t.Errorf("worst %v, mean %v; want 0.3 and 130", m.WorstGbps, m.MeanGbps)
	}
}

// TestCompareOrderFree: ranks do not depend on the order the servers are
// given in, though head to head the servers form a cycle (x above y on
// the worst pair, y above z and z above x on accelerators, z's throughput
// being unknown). v, above x and z and tied with y, ranks first on its
// count of servers ranked below; x, y and z alone share the first rank.
func TestCompareOrderFree(t *testing.T) {
	x := Server{Source: "x", Measures: Measures{WorstGbps: 200, MeanGbps: 200, Accelerators: 2, RailNICs: 1}}
	y := Server{Source: "y", Measures: Measures{WorstGbps: 100, MeanGbps: 100, Accelerators: 8, RailNICs: 8}}
	z := Server{Source: "z", Measures: Measures{Accelerators: 4, RailNICs: 4}}
	v := Server{Source: "v", Measures: Measures{Accelerators: 8, RailNICs: 8}}
	for _, perm := range [][]Server{{x, y, z, v}, {v, z, y, x}, {z, x, v, y}, {y, v, x, z}} {
		c := Compare(slices.Clone(perm))
		ranks := map[string]int{}
		for _, s := range c.Servers {
			ranks[s.Source] = s.Rank
		}
		if want := map[string]int{"v": 1, "y": 2, "z": 3, "x": 4}; !maps.Equal(ranks, want) {
			t.Errorf("given %s%s%s%s: ranks %v, want %v", perm[0].Source, perm[1].Source, perm[2].Source, perm[3].Source, ranks, want)
		}
		want := "v ranks first: of the 3 others, the servers it ranks above less those ranked above it come to +2, against +0 for y; head to head, v and y tie"
		if vd := c.Verdict; vd.Best != "v" || vd.RunnerUp != "y" || vd.Tie || !strings.HasPrefix(vd.Sentence, want) {
			t.Errorf("verdict %+v, want best v, runner-up y, sentence %q...", vd, want)
		}
	}
	for _, perm := range [][]Server{{x, y, z}, {z, y, x}} {
		c := Compare(slices.Clone(perm))
		for _, s := range c.Servers {
			if s.Rank != 1 {
				t.Errorf("%s: rank %d in a cycle, want 1", s.Source, s.Rank)
			}
		}
		if vd := c.Verdict; !vd.Tie || vd.Best != "" || !strings.Contains(vd.Sentence, "in a cycle, so nothing ranks one of them above the others") ||
			!strings.Contains(vd.Sentence, "x above y (worst planned accelerator–NIC pair)") || !strings.Contains(vd.Sentence, "z above x (accelerators)") {
			t.Errorf("cycle verdict %+v", vd)
		}
	}
}
