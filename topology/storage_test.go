package topology_test

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/gdtopo/gdtopo/fixtures"
	"github.com/gdtopo/gdtopo/fixtures/fixturetest"
	"github.com/gdtopo/gdtopo/topology"
)

// TestStoragePairsAsClassify: every accelerator-NVMe pair StoragePairs
// gives is Classify's for the two devices but for the hops it leaves out,
// bottleneck included, on every fixture and a generated tree of cascaded
// switches with drives at every depth.
func TestStoragePairsAsClassify(t *testing.T) {
	graphs := map[string]*topology.Graph{}
	for _, name := range fixturetest.Names(t) {
		graphs[name] = readFixture(t, name)
	}
	dir := filepath.Join(t.TempDir(), "scale")
	if err := fixtures.Write(dir, fixtures.Scale(300, 2)); err != nil {
		t.Fatal(err)
	}
	graphs["scale-300"] = readTree(t, dir)
	total := 0
	for name, g := range graphs {
		for _, p := range g.StoragePairs() {
			total++
			want := g.Classify(p.A, p.B)
			if p.Hops != nil || want.Hops == nil {
				t.Errorf("%s %s-%s: hops %v, Classify's %v", name, p.A.BDF(), p.B.BDF(), p.Hops, want.Hops)
			}
			want.Hops = nil
			if !reflect.DeepEqual(p, want) {
				t.Errorf("%s %s-%s:\n got %+v\nwant %+v", name, p.A.BDF(), p.B.BDF(), p, want)
			}
		}
	}
	if total < 100 {
		t.Errorf("only %d accelerator-NVMe pairs compared", total)
	}
}

// TestPairsWithoutHopsAsPairs: PairsWithoutHops gives Pairs' pairs but for
// their hops, which AppendHops gives one pair at a time as Pairs holds them
// (Data Direct pairs, unplaced functions and NVLink pairs included), on
// every fixture.
func TestPairsWithoutHopsAsPairs(t *testing.T) {
	total, dataDirect := 0, 0
	for _, name := range fixturetest.Names(t) {
		g := readFixture(t, name)
		full, bare := g.Pairs(), g.PairsWithoutHops()
		if len(full) != len(bare) {
			t.Fatalf("%s: %d pairs, %d without hops", name, len(full), len(bare))
		}
		var buf []topology.Hop
		for i, p := range bare {
			want := full[i]
			total++
			if want.DataDirect != nil {
				dataDirect++
			}
			buf = g.AppendHops(buf[:0], p)
			if p.Hops != nil || len(buf) != len(want.Hops) || len(buf) > 0 && !reflect.DeepEqual(buf, want.Hops) {
				t.Errorf("%s %s-%s: hops %v (appended %v), Pairs' %v", name, p.A.BDF(), p.B.BDF(), p.Hops, buf, want.Hops)
			}
			if got := g.AppendHops(nil, want); !reflect.DeepEqual(got, want.Hops) && len(got)+len(want.Hops) > 0 {
				t.Errorf("%s %s-%s: AppendHops of a pair with hops gives %v, not its %v", name, p.A.BDF(), p.B.BDF(), got, want.Hops)
			}
			want.Hops = nil
			if !reflect.DeepEqual(p, want) {
				t.Errorf("%s %s-%s:\n got %+v\nwant %+v", name, p.A.BDF(), p.B.BDF(), p, want)
			}
		}
	}
	if total < 500 || dataDirect == 0 {
		t.Errorf("only %d pairs compared, %d through Data Direct", total, dataDirect)
	}
}

// TestEachStoragePairStops: a loop over EachStoragePair may stop early,
// and the pairs it gives before are StoragePairs' first ones.
func TestEachStoragePairStops(t *testing.T) {
	g := readFixture(t, "gds-storage")
	all := g.StoragePairs()
	if len(all) < 3 {
		t.Fatalf("gds-storage has %d storage pairs", len(all))
	}
	var got []topology.Pair
	for p := range g.EachStoragePair() {
		got = append(got, p)
		if len(got) == 2 {
			break
		}
	}
	if !reflect.DeepEqual(got, all[:2]) {
		t.Errorf("first two pairs %+v, want %+v", got, all[:2])
	}
}
