package topology_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/gdtopo/gdtopo/fixtures"
	"github.com/gdtopo/gdtopo/internal/source"
	"github.com/gdtopo/gdtopo/internal/sysfs"
	"github.com/gdtopo/gdtopo/topology"
)

// scaleCase is one generated machine: about functions PCI functions, and
// nics NICs with twice as many accelerators, so 2*nics*nics
// accelerator-NIC pairs.
type scaleCase struct {
	functions, nics int
}

func (c scaleCase) name() string {
	return fmt.Sprintf("functions=%d/ends=%d", c.functions, 3*c.nics)
}

// scaleCases hold the pairs fixed while the tree grows (read should be
// linear in functions), and the tree fixed while the pairs grow (Pairs is
// quadratic in accelerators plus NICs): accelerator-NIC pairs 8, 32, 128, 512.
var scaleCases = []scaleCase{
	{100, 2}, {1000, 2}, {10000, 2},
	{1000, 4}, {1000, 8}, {1000, 16},
	{10000, 16},
}

// TestScaleMachines checks the generator on the small cases, so the
// benchmark measures what it says.
func TestScaleMachines(t *testing.T) {
	for _, c := range scaleCases[:2] {
		m := fixtures.Scale(c.functions, c.nics)
		fns, err := m.Functions()
		if err != nil {
			t.Fatalf("%s: %v", c.name(), err)
		}
		if n := len(fns); n < c.functions*9/10 || n > c.functions*11/10 {
			t.Errorf("%s: %d functions, want about %d", c.name(), n, c.functions)
		}
		if c.functions > 100 {
			continue
		}
		dir := filepath.Join(t.TempDir(), "m")
		if err := fixtures.Write(dir, m); err != nil {
			t.Fatal(err)
		}
		g := readTree(t, dir)
		if len(g.Devices) != len(fns) {
			t.Errorf("%s: read %d functions of %d", c.name(), len(g.Devices), len(fns))
		}
		pairs := g.Pairs()
		if got, want := len(topology.PairsOf(pairs, topology.KindAccelerator, topology.KindNIC)), 2*c.nics*c.nics; got != want {
			t.Errorf("%s: %d accelerator-NIC pairs, want %d", c.name(), got, want)
		}
	}
}

// readTree reads the captured tree dir as gdtopo does: source.Open, then
// sysfs.Read.
func readTree(tb testing.TB, dir string) *topology.Graph {
	src, err := source.Open(dir)
	if err != nil {
		tb.Fatal(err)
	}
	g, err := sysfs.Read(src.Root)
	if err != nil {
		tb.Fatal(err)
	}
	return g
}

// BenchmarkScale measures how reading a tree (source.Open plus sysfs.Read)
// grows with the number of PCI functions, and how Pairs grows with the
// number of accelerators and NICs. Each machine is written once, outside the
// timed loops.
//
//	go test -run '^$' -bench BenchmarkScale -benchmem ./topology/
func BenchmarkScale(b *testing.B) {
	for _, c := range scaleCases {
		b.Run(c.name(), func(b *testing.B) {
			if testing.Short() && c.functions > 5000 {
				b.Skip("10,000-function tree skipped with -short")
			}
			m := fixtures.Scale(c.functions, c.nics)
			fns, err := m.Functions()
			if err != nil {
				b.Fatal(err)
			}
			dir := filepath.Join(b.TempDir(), "m")
			if err := fixtures.Write(dir, m); err != nil {
				b.Fatal(err)
			}
			g := readTree(b, dir)
			pairs := len(g.Pairs())
			accNIC := len(topology.PairsOf(g.Pairs(), topology.KindAccelerator, topology.KindNIC))
			b.Run("read", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					readTree(b, dir)
				}
				b.ReportMetric(float64(len(fns)), "functions")
			})
			b.Run("pairs", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					g.Pairs()
				}
				b.ReportMetric(float64(pairs), "pairs")
				b.ReportMetric(float64(accNIC), "acc-nic-pairs")
			})
		})
	}
}
