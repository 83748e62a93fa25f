package cli

import (
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
)

// lateGCLimit is the memory (the runtime's total, as GOMEMLIMIT counts it)
// a run of the gdtopo binary reaches before its first garbage collection.
// No fixture or corpus input reaches it (the largest, bzip2'd hwloc
// captures, come close); a large tree's check passes it with the reader's
// garbage, and collecting then lets it reuse that memory rather than touch
// fresh pages. Lower limits reach inputs of the corpus; higher ones let a
// large tree's peak grow with garbage.
const lateGCLimit = 20 << 20

// largeSourceGCPercent is GOGC, from its first collection on, for a run
// that reads one source (readsOneSource): the source is large then, and
// its graph most of the heap, so a heap a quarter over what is live keeps
// the peak near the graph's size for a few more collections.
const largeSourceGCPercent = 25

// oneSource is set while a run of the binary reads a single source.
var oneSource atomic.Bool

// readsOneSource tells the collector policy that the run reads one source:
// a run that reaches lateGCLimit then holds a large graph, not many small
// ones, and collects at largeSourceGCPercent instead of Go's default.
func readsOneSource() { oneSource.Store(true) }

// collectLate makes a run of the binary collect no garbage until it holds
// lateGCLimit, and from its first collection on collect as Go does by
// default (GOGC=100, no memory limit; a run of one source at
// largeSourceGCPercent). Most runs end long before: a check of
// an 8-GPU server allocates a few megabytes in all, and at Go's default it
// would collect at the 4 MB minimum goal on the way to the exit, for
// nothing it would give back. A run that needs more (a tree of 10,000
// functions) collects at the limit, then as Go does. GOGC or GOMEMLIMIT in
// the environment leave the runtime's policy alone. A run over many sources
// (fleet, check of several) keeps Go's collector after its first collection
// too: it keeps memory flat in the number of sources at any GOMAXPROCS,
// which a fixed memory limit raised as sources held more did not (one CPU:
// 2,000 snapshots took 320 MB, the live heap 2 MB; TestFleetMemoryFlat).
// It reports whether it set this policy.
func collectLate(getenv func(string) string) bool {
	if getenv("GOGC") != "" || getenv("GOMEMLIMIT") != "" {
		return false
	}
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(lateGCLimit)
	restoreAfterGC()
	return true
}

// collectAfterReading collects the garbage a source's reading left (the
// files' text, paths, the reader's indexes: about twice the graph it
// built) before the analysis allocates the report, when the run has
// collected already: its reading passed lateGCLimit, so the source is
// large. The analysis then reuses that memory; at Go's default pacing the
// next collection comes late in the analysis, which meanwhile takes fresh
// pages for the report on top of the garbage. A small source's run has not
// collected, and ends without collecting.
func collectAfterReading() {
	cycles := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(cycles)
	if cycles[0].Value.Kind() == metrics.KindUint64 && cycles[0].Value.Uint64() > 0 {
		runtime.GC()
	}
}

// gcSentinel is an object made to be collected: its cleanup runs after the
// collection that finds it unreachable. It holds a pointer so that the
// allocator does not pack it with other small objects, which could keep it
// alive.
type gcSentinel struct{ _ *int }

// restoreAfterGC restores Go's default collection policy after the next
// garbage collection (largeSourceGCPercent for one source), unless another
// policy holds then: it looks again after the collection after that.
func restoreAfterGC() {
	runtime.AddCleanup(new(gcSentinel), func(struct{}) {
		if debug.SetMemoryLimit(-1) != lateGCLimit {
			restoreAfterGC()
			return
		}
		percent := 100
		if oneSource.Load() {
			percent = largeSourceGCPercent
		}
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(math.MaxInt64)
	}, struct{}{})
}
