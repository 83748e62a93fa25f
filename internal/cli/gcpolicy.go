package cli

import (
	"math"
	"runtime"
	"runtime/debug"
	"sync"
)

// lateGCLimit is the memory (the runtime's total, as GOMEMLIMIT counts it)
// a run of the gdtopo binary reaches before its first garbage collection.
// No fixture or corpus input comes near it (the largest allocate a few
// megabytes); a large tree's check passes it with the reader's garbage,
// and collecting then lets it reuse that memory rather than touch fresh
// pages. Lower limits collect more often, and reach inputs of the corpus.
const lateGCLimit = 24 << 20

// collectLate makes a run of the binary collect no garbage until it holds
// lateGCLimit, and from its first collection on collect as Go does by
// default (GOGC=100, no memory limit). Most runs end long before: a check of
// an 8-GPU server allocates a few megabytes in all, and at Go's default it
// would collect at the 4 MB minimum goal on the way to the exit, for
// nothing it would give back. A run that needs more (a tree of 10,000
// functions) collects at the limit, then as Go does. GOGC or GOMEMLIMIT in
// the environment leave the runtime's policy alone; a fleet run sets its
// own while it reads (startFleetGC).
func collectLate(getenv func(string) string) {
	if getenv("GOGC") != "" || getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(lateGCLimit)
	restoreAfterGC()
}

// gcSentinel is an object made to be collected: its cleanup runs after the
// collection that finds it unreachable. It holds a pointer so that the
// allocator does not pack it with other small objects, which could keep it
// alive.
type gcSentinel struct{ _ *int }

// restoreAfterGC restores Go's default collection policy after the next
// garbage collection, unless another policy holds then (a fleet's limit):
// it looks again after the collection after that.
func restoreAfterGC() {
	runtime.AddCleanup(new(gcSentinel), func(struct{}) {
		if debug.SetMemoryLimit(-1) != lateGCLimit {
			restoreAfterGC()
			return
		}
		debug.SetGCPercent(100)
		debug.SetMemoryLimit(math.MaxInt64)
	}, struct{}{})
}

// fleetGC collects the garbage of a run over several sources when the heap
// reaches a set size (a memory limit, GOGC off), not a multiple of the live
// heap. Each source allocates a few megabytes and keeps none of them; with
// GOGC the heap's target swings with the little the workers hold at each
// collection, and the runtime gives memory back after a low target only to
// fault it in again. The size grows with sources that hold more (see
// adjust).
type fleetGC struct {
	mu       sync.Mutex
	limit    int64  // the memory limit set
	percent  int    // GOGC before
	before   int64  // the memory limit before
	lastHeap uint64 // the heap in use at the last collection (see adjust)
	stopped  bool   // stop ran: adjust no more
}

// The memory a run collects at: a base and a share per worker, four times
// what an 8-GPU server's sources hold.
const (
	fleetMemoryBase      = 32 << 20
	fleetMemoryPerWorker = 8 << 20
)

// startFleetGC turns GOGC off and sets the memory limit for workers
// workers; after each collection it adjusts the limit.
func startFleetGC(workers int) *fleetGC {
	g := &fleetGC{limit: fleetMemoryBase + int64(workers)*fleetMemoryPerWorker}
	g.percent = debug.SetGCPercent(-1)
	g.before = debug.SetMemoryLimit(g.limit)
	g.afterNextGC()
	return g
}

// afterNextGC runs adjust after the next collection, and again after each
// one until stop.
func (g *fleetGC) afterNextGC() {
	runtime.AddCleanup(new(gcSentinel), func(g *fleetGC) {
		if g.adjust() {
			g.afterNextGC()
		}
	}, g)
}

// adjust raises the limit to the base plus twice the heap in use, where
// GOGC 100 would collect, when sources hold more than the limit allows: a
// limit the live heap nears makes the collector run all the time. It runs
// after each collection and reads the heap in use (runtime.ReadMemStats'
// HeapAlloc), which then holds the live heap, what the workers allocated
// since, and any garbage not yet swept; a reading taken early in a sweep
// can be near the limit, so the lower of the last two readings counts: one
// early reading raises nothing. (runtime/metrics has the live heap alone,
// but the init of its package would run at every start of gdtopo.) It
// reports false once stop has run.
func (g *fleetGC) adjust() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.stopped {
		return false
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	held := min(ms.HeapAlloc, g.lastHeap)
	g.lastHeap = ms.HeapAlloc
	if want := fleetMemoryBase + 2*int64(held); want > g.limit {
		g.limit = want
		debug.SetMemoryLimit(want)
	}
	return true
}

// stop restores GOGC and the memory limit.
func (g *fleetGC) stop() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.stopped = true
	debug.SetGCPercent(g.percent)
	debug.SetMemoryLimit(g.before)
}
