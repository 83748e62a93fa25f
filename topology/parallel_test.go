package topology_test

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/gdtopo/gdtopo/internal/source"
	"github.com/gdtopo/gdtopo/topology"
)

// TestReadSysfsParallel reads every fixture and every real capture of the
// corpus with several workers and checks that the graph, warnings and gaps
// included, is the one a sequential read gives. Under -race (as CI runs it)
// this also checks that the workers share nothing they write.
func TestReadSysfsParallel(t *testing.T) {
	sources, _ := filepath.Glob(filepath.Join("..", "fixtures", "*", "sys"))
	for i, s := range sources {
		sources[i] = filepath.Dir(s)
	}
	dir := corpusDir(t)
	for _, pattern := range []string{"hwloc/*.tar.bz2", "ghw/*.tar.gz"} {
		files, _ := filepath.Glob(filepath.Join(dir, pattern))
		sources = append(sources, files...)
	}
	if len(sources) < 16 {
		t.Fatalf("found %d fixtures and captures, want at least 16", len(sources))
	}
	for _, name := range sources {
		t.Run(filepath.Base(name), func(t *testing.T) {
			src, err := source.Open(name)
			if err != nil {
				t.Fatal(err)
			}
			want, err := topology.ReadSysfs(src.Root)
			if err != nil {
				t.Fatal(err)
			}
			for _, workers := range []int{2, 3, 16} {
				got, err := topology.ReadSysfsParallel(src.Root, workers)
				if err != nil {
					t.Fatalf("%d workers: %v", workers, err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%d workers: the graph differs from a sequential read's (%d devices, %d warnings; want %d, %d)",
						workers, len(got.Devices), len(got.Warnings), len(want.Devices), len(want.Warnings))
				}
			}
		})
	}
}
