package cli

import (
	"cmp"
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// lateGCLimit is the memory (the runtime's total, as GOMEMLIMIT counts it)
// a run of the gdtopo binary reaches before its first garbage collection.
// No fixture or corpus input reaches it (the largest, bzip2'd hwloc
// captures, come close); a large tree's check passes it with the reader's
// garbage, and collecting then lets it reuse that memory rather than touch
// fresh pages. Lower limits reach inputs of the corpus; higher ones let a
// large tree's peak grow with garbage.
const lateGCLimit = 20 << 20

// largeSourceGCPercent is GOGC, from its first collection on, for a check
// of one source (gcPolicy.oneSource): the source is large then, and
// its graph most of the heap, so a heap a quarter over what is live keeps
// the peak near the graph's size for a few more collections.
const largeSourceGCPercent = 25

// manySourcesGCPercent is the GOGC of a run over many sources after its
// first collection. Such a run's live heap is the sources under way (one
// per worker) and what it keeps of each (a fleet's comparable state, a few
// hundred bytes), so at Go's 100 it collects every few sources; at 200 it
// collects half as often, for a heap of up to three times what is live
// instead of twice.
const manySourcesGCPercent = 200

// collectLate makes a run of the binary collect no garbage until it holds
// lateGCLimit, and from its first collection on collect as Go does by
// default (GOGC=100, no memory limit), or at the GOGC a run of one source
// (gcPolicy.oneSource) or of many (gcPolicy.manySources) asks for. Most
// runs end long before: a check of an 8-GPU server allocates a few
// megabytes in all, and at Go's default it would collect at the 4 MB
// minimum goal on the way to the exit, for nothing it would give back. A
// run that needs more (a tree of 10,000 functions) collects at the limit,
// then at its GOGC. GOGC or GOMEMLIMIT in the environment leave the
// runtime's policy alone: it returns nil then. A run over many sources
// (fleet, check of several) keeps a GOGC after its first collection, not a
// memory limit: that keeps memory flat in the number of sources at any
// GOMAXPROCS, which a memory limit raised as sources held more did not on
// one CPU (TestFleetMemoryFlat).
func collectLate(getenv func(string) string) *gcPolicy {
	if getenv("GOGC") != "" || getenv("GOMEMLIMIT") != "" {
		return nil
	}
	p := &gcPolicy{}
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(lateGCLimit)
	p.restoreAfterGC()
	return p
}

// gcPolicy is the collector policy collectLate set, whose GOGC after the
// first collection a run of one source or of many changes.
type gcPolicy struct {
	mu       sync.Mutex
	percent  int  // the GOGC from the first collection on; 0 is Go's default, 100
	restored bool // the first collection has come, and percent holds
}

// oneSource makes the run collect at largeSourceGCPercent from its first
// collection on.
func (p *gcPolicy) oneSource() { p.collectAt(largeSourceGCPercent) }

// manySources makes the run collect at manySourcesGCPercent from its first
// collection on.
func (p *gcPolicy) manySources() { p.collectAt(manySourcesGCPercent) }

// collectAt makes the run collect at GOGC percent from its first
// collection on (at once, if that has come). A nil policy, the
// environment's, stays.
func (p *gcPolicy) collectAt(percent int) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.percent = percent
	if p.restored {
		debug.SetGCPercent(cmp.Or(p.percent, 100))
	}
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

// restoreAfterGC ends the late policy after the next garbage collection:
// GOGC p.percent, no memory limit; unless another policy holds then, when it
// looks again after the collection after that.
func (p *gcPolicy) restoreAfterGC() {
	runtime.AddCleanup(new(gcSentinel), func(struct{}) {
		p.mu.Lock()
		defer p.mu.Unlock()
		if debug.SetMemoryLimit(-1) != lateGCLimit {
			p.restoreAfterGC()
			return
		}
		debug.SetGCPercent(cmp.Or(p.percent, 100))
		debug.SetMemoryLimit(math.MaxInt64)
		p.restored = true
	}, struct{}{})
}
