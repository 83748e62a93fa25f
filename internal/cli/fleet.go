package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/gdtopo/gdtopo/internal/render"
	"github.com/gdtopo/gdtopo/internal/report"
	"github.com/gdtopo/gdtopo/internal/source"
)

// exitError ends gdtopo with a code after the command has reported
// everything itself, but for msg, which Main prints when it is not "" and
// standard output took everything.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string {
	if e.msg != "" {
		return e.msg
	}
	return fmt.Sprintf("exit status %d", e.code)
}

// expandSources expands shell-style patterns that name no file as they
// are (quoted globs from scripts), keeping order; a pattern matching nothing
// stays, to fail as a source.
func expandSources(args []string) []string {
	var out []string
	for _, a := range args {
		if _, err := os.Lstat(a); err != nil && strings.ContainsAny(a, "*?[") {
			if m, err := filepath.Glob(a); err == nil && len(m) > 0 {
				out = append(out, m...)
				continue
			}
		}
		out = append(out, a)
	}
	return out
}

// checkSources analyses the sources, on every CPU when there are several,
// and hands each result to emit in the order of names. With several
// sources the garbage is collected at a memory limit (see fleetGC), unless
// the user set GOGC or GOMEMLIMIT.
func (opts *checkOptions) checkSources(names []string, f render.Format, emit func(fleetResult) error) error {
	if os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" && len(names) > 1 {
		gc := startFleetGC(min(runtime.GOMAXPROCS(0), len(names)))
		defer gc.stop()
	}
	return opts.fleetLines(names, f, emit)
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

// exitCode is the status a source that could not be analysed ends with.
func exitCode(err error) int {
	var ue *usageError
	if errors.As(err, &ue) {
		return ExitUsage
	}
	return ExitError
}

// fleetResult is one source's result, encoded already for -o jsonl, or
// for -o json over several sources.
type fleetResult struct {
	res     report.Result
	encoded []byte
}

// fleetLines analyses the sources on every CPU and hands each result to
// emit in the order of names. At most two results per worker wait for
// their turn, so memory does not grow with the number of sources (for
// -o jsonl, which writes each as it comes).
// An error from emit stops the output; the analyses under way finish and
// are dropped.
func (opts *checkOptions) fleetLines(names []string, f render.Format, emit func(fleetResult) error) error {
	workers := min(runtime.GOMAXPROCS(0), len(names))
	window := make(chan struct{}, 2*workers)
	results := make([]chan fleetResult, len(names))
	for i := range results {
		results[i] = make(chan fleetResult, 1)
	}
	next := make(chan int)
	go func() {
		for i := range names {
			window <- struct{}{}
			next <- i
		}
		close(next)
	}()
	for range workers {
		go func() {
			// One per worker: it keeps buffers for the next archive, and
			// each result is encoded before the next source opens, so
			// the tree's memory can be the next one's.
			op := source.Opener{ReuseMemory: true}
			for i := range next {
				results[i] <- opts.encodedResult(&op, names[i], f)
			}
		}()
	}
	var err error
	for i := range names {
		r := <-results[i]
		<-window
		if err == nil {
			err = emit(r)
		}
	}
	return err
}

// encodedResult analyses one source, opened through op, and encodes it
// for -o jsonl or -o json.
func (opts *checkOptions) encodedResult(op *source.Opener, name string, f render.Format) fleetResult {
	r := fleetResult{res: opts.result(op, name, f)}
	var marshal func(report.Result) ([]byte, error)
	switch f {
	case render.JSONL:
		marshal = render.MarshalJSONLine
	case render.JSON:
		marshal = render.MarshalCheckSource
	default:
		return r
	}
	b, err := marshal(r.res)
	if err != nil { // not expected: reports hold plain values only
		r.res = report.NewResult(name, nil, err, ExitError)
		b, _ = marshal(r.res)
	}
	r.encoded = b
	return r
}

// showsHops reports whether check's output in f shows the pairs' hops:
// -o json, markdown and html hold them, and -v's pair table counts them;
// the plain table, -o jsonl (whose lines leave them out), prometheus and
// nfd never print them, so their report is built without.
func (opts *checkOptions) showsHops(f render.Format) bool {
	switch f {
	case render.Table:
		return opts.Verbose
	case render.JSONL, render.Prometheus, render.NFD:
		return false
	}
	return true
}

// result analyses one source, opened through op, into its report, or the
// error that stopped it.
func (opts *checkOptions) result(op *source.Opener, name string, f render.Format) report.Result {
	a, err := opts.loadWith(op, name, false)
	if err != nil {
		return report.NewResult(name, nil, err, exitCode(err))
	}
	r, err := a.buildReport(&opts.adviceOptions, reportOptions{FailOn: opts.FailOn, NoHops: !opts.showsHops(f)})
	if err != nil {
		return report.NewResult(name, nil, err, exitCode(err))
	}
	return report.NewResult(name, r, nil, 0)
}
