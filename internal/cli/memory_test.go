package cli

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/gdtopo/gdtopo/fixtures"
	"github.com/gdtopo/gdtopo/internal/render"
)

// checkMemory is what check's analysis of one source cost the heap.
type checkMemory struct {
	functions int
	// retained is what its report keeps (the graph among it); allocated,
	// all it allocated on the way, the archive's inflated tree included.
	retained, allocated uint64
}

// measureCheck builds check's report of the source name (as its table
// does, without the pairs' hops) and measures it with runtime.MemStats.
func measureCheck(t *testing.T, opts *checkOptions, name string, functions int) checkMemory {
	t.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res := opts.result(nil, name, render.Table)
	runtime.GC()
	runtime.ReadMemStats(&after)
	if res.Report == nil {
		t.Fatalf("%s: %s", name, res.Error)
	}
	runtime.KeepAlive(res)
	return checkMemory{functions: functions, retained: after.HeapAlloc - before.HeapAlloc, allocated: after.TotalAlloc - before.TotalAlloc}
}

// TestCheckMemoryPerFunction bounds the heap a check keeps and allocates
// for each PCI function, on generated trees (fixtures.Scale: 4 GPUs, 2
// NICs, the rest switch ports and NVMe drives) of about 1,000 and 3,000
// functions: what each function beyond the smaller tree's adds must stay
// within the bounds, so memory grows linearly in the functions and no
// faster than the graph's device, the report's and the accelerator-NVMe
// pairs make it. It measures the process's heap, so it does not run in
// parallel.
func TestCheckMemoryPerFunction(t *testing.T) {
	// Bytes per function added. A function keeps about 1,600 (600 in the
	// graph, 570 in the report, and a drive's storage pairs with the four
	// accelerators, 4*104) and allocates about 15,500, most of it the
	// archive's tree in memory (the members' contents, names and nodes) and
	// reading it; read from a folder, about 3,100.
	const maxRetained, maxAllocated = 1800, 17500
	opts := &checkOptions{globalOptions: &globalOptions{IO: &Streams{Out: os.Stdout, Err: os.Stderr}}}
	var got []checkMemory
	for _, n := range []int{1000, 3000} {
		m := fixtures.Scale(n, 2)
		fns, err := m.Functions()
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Join(t.TempDir(), "scale.tar.gz")
		f, err := os.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := fixtures.WriteArchive(f, m); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		opts.result(nil, name, render.Table) // what is read once a run (pci.ids) read before measuring
		mem := measureCheck(t, opts, name, len(fns))
		t.Logf("%d functions: %d bytes kept, %d allocated", mem.functions, mem.retained, mem.allocated)
		got = append(got, mem)
	}
	small, large := got[0], got[1]
	added := uint64(large.functions - small.functions)
	retained, allocated := (large.retained-small.retained)/added, (large.allocated-small.allocated)/added
	t.Logf("each function added: %d bytes kept, %d allocated", retained, allocated)
	if retained > maxRetained {
		t.Errorf("each function added keeps %d bytes of heap, more than %d", retained, maxRetained)
	}
	if allocated > maxAllocated {
		t.Errorf("each function added allocates %d bytes, more than %d", allocated, maxAllocated)
	}
}
