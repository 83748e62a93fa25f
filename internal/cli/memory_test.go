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
	// loaded is what the source read keeps (its graph, the archive's tree
	// let go); retained, what its report for check's plain table keeps
	// (the graph among it), and whole, what its whole report (-o json's,
	// without hops) keeps; allocated, all the plain table's report
	// allocated on the way, the archive's tree included.
	loaded, retained, whole, allocated uint64
}

// heapOf returns the heap that what build returns keeps, and the bytes
// build allocated. What it keeps is measured as what a collection frees
// once it is dropped: two collections in a row, so that whatever else the
// process frees or allocates meanwhile (an earlier test's goroutines)
// hardly counts.
func heapOf(build func() any) (kept, allocated uint64) {
	var before, with, without runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	v := build()
	runtime.GC()
	runtime.ReadMemStats(&with)
	runtime.KeepAlive(v)
	runtime.GC()
	runtime.ReadMemStats(&without)
	return with.HeapAlloc - without.HeapAlloc, with.TotalAlloc - before.TotalAlloc
}

// measureCheck measures check's analysis of the source name: the source
// read, then its report as check's table builds it, and whole (both
// without the pairs' hops).
func measureCheck(t *testing.T, opts *checkOptions, name string, functions int) checkMemory {
	t.Helper()
	load := func() *analysis {
		a, err := opts.loadWith(nil, name, false)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	m := checkMemory{functions: functions}
	m.loaded, _ = heapOf(func() any { return load() })
	report := func(ro reportOptions) func() any {
		return func() any {
			r, err := load().buildReport(&opts.adviceOptions, ro)
			if err != nil {
				t.Fatal(err)
			}
			return r // the graph with it, as check's result holds them
		}
	}
	m.retained, m.allocated = heapOf(report(reportOptions{NoHops: !opts.showsHops(render.Table), PlainTable: opts.plainTable(render.Table)}))
	m.whole, _ = heapOf(report(reportOptions{NoHops: true}))
	return m
}

// TestCheckMemoryPerFunction bounds the heap a check keeps (once the
// source is read, and with its report) and allocates for each PCI
// function, on generated trees (fixtures.Scale: 4 GPUs, 2 NICs, the rest
// switch ports and NVMe drives) of about 1,000 and 3,000 functions: what
// each function beyond the smaller tree's adds must stay within the
// bounds, so memory grows linearly in the functions and no faster than the
// graph's device (and, in the whole report, the report's and the
// accelerator-NVMe pairs) make it. It measures the process's heap, so it
// does not run in parallel.
func TestCheckMemoryPerFunction(t *testing.T) {
	if raceDetector {
		// The heap it measures is the same under -race (within 1%), but
		// reading the trees takes 15 times as long.
		t.Skip("measured without the race detector")
	}
	// Bytes per function added, each bound with some headroom over what a
	// run takes. Once read, a function keeps its device in the graph (the
	// archive's tree is let go); with check's plain table's report about as
	// much (it keeps the accelerators and NICs alone, and the storage pairs
	// tallied); with the whole report, its device in the report and a
	// drive's storage pairs with the four accelerators besides. What it
	// allocates is mostly the archive's tree (the members' contents, names
	// and nodes) and reading it.
	const maxLoaded, maxRetained, maxWhole, maxAllocated = 560, 580, 1650, 15500
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
		t.Logf("%d functions: %d bytes kept read, %d with the plain table's report, %d with the whole, %d allocated", mem.functions, mem.loaded, mem.retained, mem.whole, mem.allocated)
		got = append(got, mem)
	}
	small, large := got[0], got[1]
	added := uint64(large.functions - small.functions)
	loaded := (large.loaded - small.loaded) / added
	retained, allocated := (large.retained-small.retained)/added, (large.allocated-small.allocated)/added
	whole := (large.whole - small.whole) / added
	t.Logf("each function added: %d bytes kept read, %d with the plain table's report, %d with the whole, %d allocated", loaded, retained, whole, allocated)
	if loaded > maxLoaded {
		t.Errorf("each function added keeps %d bytes of heap once read, more than %d", loaded, maxLoaded)
	}
	if retained > maxRetained {
		t.Errorf("each function added keeps %d bytes of heap with the plain table's report, more than %d", retained, maxRetained)
	}
	if whole > maxWhole {
		t.Errorf("each function added keeps %d bytes of heap with the whole report, more than %d", whole, maxWhole)
	}
	if allocated > maxAllocated {
		t.Errorf("each function added allocates %d bytes, more than %d", allocated, maxAllocated)
	}
}
