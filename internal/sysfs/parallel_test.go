package sysfs_test

import (
	"fmt"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/gdtopo/gdtopo/fixtures/fixturetest"
	"github.com/gdtopo/gdtopo/internal/source"
	"github.com/gdtopo/gdtopo/internal/sysfs"
	"github.com/gdtopo/gdtopo/topology"
)

// TestReadSysfsOnSameGraph reads every fixture and corpus capture on one
// goroutine and on several, and wants the same graph: devices, links,
// warnings and their order. Run with -race, it also checks that the
// goroutines share nothing they write.
func TestReadSysfsOnSameGraph(t *testing.T) {
	var names []string
	for _, f := range fixturetest.Names(t) {
		names = append(names, filepath.Join("..", "..", "fixtures", f+".tar.gz"))
	}
	dir := corpusDir(t)
	for _, pattern := range []string{"hwloc/*.tar.bz2", "ghw/*.tar.gz"} {
		m, _ := filepath.Glob(filepath.Join(dir, pattern))
		names = append(names, m...)
	}
	parallel := 0
	for _, name := range names {
		t.Run(filepath.Base(name), func(t *testing.T) {
			src, err := source.Open(name)
			if err != nil {
				t.Fatal(err)
			}
			one, err := sysfs.ReadOn(src.Root, 1)
			if err != nil {
				t.Fatal(err)
			}
			if len(one.Devices) >= 2*16 {
				parallel++
			}
			for _, workers := range []int{2, 3, 8} {
				g, err := sysfs.ReadOn(src.Root, workers)
				if err != nil {
					t.Fatalf("%d goroutines: %v", workers, err)
				}
				if !reflect.DeepEqual(one, g) {
					t.Errorf("%d goroutines read another graph than one:\n%s", workers, firstDifference(one, g))
				}
			}
		})
	}
	if parallel < 5 {
		t.Errorf("only %d inputs have enough functions to be read on several goroutines; want 5 or more", parallel)
	}
}

// firstDifference names the first device or warning where a and b differ.
func firstDifference(a, b *topology.Graph) string {
	if len(a.Devices) != len(b.Devices) {
		return fmt.Sprintf("%d devices against %d", len(a.Devices), len(b.Devices))
	}
	for i := range a.Devices {
		if !reflect.DeepEqual(a.Devices[i], b.Devices[i]) {
			return fmt.Sprintf("device %s: %+v\nagainst %+v", a.Devices[i].BDF(), *a.Devices[i], *b.Devices[i])
		}
	}
	if !reflect.DeepEqual(a.Warnings, b.Warnings) {
		return fmt.Sprintf("warnings %q\nagainst %q", a.Warnings, b.Warnings)
	}
	return "elsewhere in the graph"
}
