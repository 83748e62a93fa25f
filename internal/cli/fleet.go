package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gdtopo/gdtopo/advisor"
	"github.com/gdtopo/gdtopo/internal/fleet"
	"github.com/gdtopo/gdtopo/internal/render"
	"github.com/gdtopo/gdtopo/internal/report"
	"github.com/gdtopo/gdtopo/internal/source"
	"github.com/gdtopo/gdtopo/internal/termsafe"
	"github.com/gdtopo/gdtopo/topology"
)

// Fleet output formats, for check only.
const (
	formatJSONL      = "jsonl"
	formatPrometheus = "prometheus"
	formatNFD        = "nfd"
)

// exitError ends gdtopo with a code after the command has reported
// everything itself.
type exitError struct{ code int }

func (e *exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

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

// fleetRun checks several sources, or one for a fleet format: each source
// is reported on its own (a failing one does not stop the rest) and the exit
// status is the highest of theirs: 3 (findings at or above --fail-on) over
// 1 (a source could not be read) over 0.
func fleetRun(opts *checkOptions, level advisor.Severity) error {
	switch opts.Output {
	case formatJSONL, formatPrometheus, formatNFD:
	default:
		if _, err := opts.format(); err != nil {
			return err
		}
	}
	names := opts.Sources
	if opts.Output == formatNFD && len(names) != 1 {
		return usagef("-o nfd describes one machine: give one SOURCE")
	}
	if _, err := opts.loadModel(); err != nil {
		return err // once, not on every source's line
	}
	adjustGC := func() {} // see fleetGC; a GOGC or GOMEMLIMIT the user set is kept
	if os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" && len(names) > 1 {
		gc := startFleetGC(min(runtime.GOMAXPROCS(0), len(names)))
		defer gc.stop()
		adjustGC = gc.adjust
	}
	worst := ExitOK
	raise := func(code int) {
		if code > worst {
			worst = code
		}
	}
	var lines []fleet.Line
	switch opts.Output {
	case string(render.Text), string(render.Markdown):
		for i, name := range names {
			if i > 0 {
				fmt.Fprintln(opts.IO.Out)
			}
			fmt.Fprintf(opts.IO.Out, "==> %s <==\n", termsafe.Text(name))
			err := checkOne(opts, name, level)
			adjustGC()
			code := exitCode(err)
			raise(code)
			if err != nil && code != ExitFindings {
				fmt.Fprintf(opts.IO.Err, "gdtopo: %s\n", termsafe.Text(err.Error()))
			}
		}
	default:
		err := opts.fleetLines(names, level, adjustGC, func(r fleetResult) error {
			raise(r.line.ExitCode)
			if r.line.Error != "" {
				fmt.Fprintf(opts.IO.Err, "gdtopo: %s\n", termsafe.Text(r.line.Error))
			}
			if opts.Output == formatJSONL {
				return fleet.WriteEncoded(opts.IO.Out, r.jsonl)
			}
			lines = append(lines, r.line)
			return nil
		})
		if err != nil {
			return err
		}
	}
	switch opts.Output {
	case formatPrometheus:
		if err := fleet.WritePrometheus(opts.IO.Out, lines, time.Now()); err != nil {
			return err
		}
	case formatNFD:
		if lines[0].Report != nil {
			if err := fleet.WriteNFD(opts.IO.Out, lines[0].Report); err != nil {
				return err
			}
		}
	case string(render.JSON):
		enc := json.NewEncoder(opts.IO.Out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(lines); err != nil {
			return err
		}
	}
	if worst != ExitOK {
		return &exitError{worst}
	}
	return nil
}

// fleetGC collects the garbage of a run over several sources when the heap
// reaches a set size (a memory limit, GOGC off), not a multiple of the live
// heap. Each source allocates a few megabytes and keeps none of them; at
// GOGC 400 the heap's target swung with the little the workers held at
// each collection, and the runtime gave memory back to the system after a
// low target only to fault it in again: in the development VM a page fault
// costs about 10 µs, and faults and madvise took a tenth of the CPU. With a
// steady target, 400 snapshots of hgx-h100 take 0.68 s there instead of
// 0.76 s at GOGC 400, for a peak RSS of 53 MB instead of 52. The size
// grows with sources that hold more (see adjust).
type fleetGC struct {
	mu      sync.Mutex
	limit   int64             // the memory limit set
	live    [1]metrics.Sample // the live heap after the last collection
	percent int               // GOGC before
	before  int64             // the memory limit before
}

// The memory a run collects at: a base and a share per worker, four times
// what an 8-GPU server's sources hold.
const (
	fleetMemoryBase      = 32 << 20
	fleetMemoryPerWorker = 8 << 20
)

// startFleetGC turns GOGC off and sets the memory limit for workers workers.
func startFleetGC(workers int) *fleetGC {
	g := &fleetGC{limit: fleetMemoryBase + int64(workers)*fleetMemoryPerWorker}
	g.live[0].Name = "/gc/heap/live:bytes"
	g.percent = debug.SetGCPercent(-1)
	g.before = debug.SetMemoryLimit(g.limit)
	return g
}

// adjust raises the limit to the base plus twice the live heap, where GOGC
// 100 would collect, when sources hold more than that allows: a limit the
// live heap nears makes the collector run all the time. Call it after each
// source.
func (g *fleetGC) adjust() {
	g.mu.Lock()
	defer g.mu.Unlock()
	metrics.Read(g.live[:])
	if want := fleetMemoryBase + 2*int64(g.live[0].Value.Uint64()); want > g.limit {
		g.limit = want
		debug.SetMemoryLimit(want)
	}
}

// stop restores GOGC and the memory limit.
func (g *fleetGC) stop() {
	debug.SetGCPercent(g.percent)
	debug.SetMemoryLimit(g.before)
}

// exitCode is the status an error from checkOne ends with.
func exitCode(err error) int {
	var fe *findingsError
	var ue *usageError
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &fe):
		return ExitFindings
	case errors.As(err, &ue):
		return ExitUsage
	}
	return ExitError
}

// fleetResult is one source's line of a fleet report, encoded already for
// -o jsonl.
type fleetResult struct {
	line  fleet.Line
	jsonl []byte
}

// fleetLines analyses the sources on every CPU and hands each line to emit
// in the order of names; each worker calls done after each source. At most
// two lines per worker wait for their turn, so memory does not grow with
// the number of sources. An error from emit stops the output; the analyses
// under way finish and are dropped.
func (opts *checkOptions) fleetLines(names []string, level advisor.Severity, done func(), emit func(fleetResult) error) error {
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
			var op source.Opener // one per worker: it keeps buffers for the next archive
			for i := range next {
				results[i] <- opts.encodedLine(&op, names[i], level)
				done()
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

// encodedLine analyses one source, opened through op, and encodes its line
// for -o jsonl.
func (opts *checkOptions) encodedLine(op *source.Opener, name string, level advisor.Severity) fleetResult {
	r := fleetResult{line: opts.fleetLine(op, name, level)}
	if opts.Output != formatJSONL {
		return r
	}
	b, err := fleet.MarshalJSONL(r.line)
	if err != nil { // not expected: reports hold plain values only
		r.line = fleet.Line{Source: r.line.Source, Error: err.Error(), ExitCode: ExitError}
		b, _ = fleet.MarshalJSONL(r.line)
	}
	r.jsonl = b
	return r
}

// fleetLine analyses one source, opened through op, into a line of a fleet
// report.
func (opts *checkOptions) fleetLine(op *source.Opener, name string, level advisor.Severity) fleet.Line {
	line := fleet.Line{Source: name}
	if name == "" {
		line.Source = "/"
	}
	a, err := opts.loadWith(op, name, false)
	if err == nil {
		var res *advisor.Result
		if res, err = a.advise(&opts.adviceOptions, false); err == nil {
			pairs := a.allPairs()
			if opts.Output == formatJSONL {
				pairs = withoutHops(pairs)
			}
			line.Report = report.New(a.sourceInfo(), a.g, pairs, res)
			if failOn(res, level) != nil {
				line.ExitCode = ExitFindings
			}
			return line
		}
	}
	line.Error, line.ExitCode = err.Error(), exitCode(err)
	return line
}

// withoutHops copies pairs without their hops, for -o jsonl lines: hops are
// most of a report (85% of an 8-GPU server's), and -o json on one source
// has them.
func withoutHops(pairs []topology.Pair) []topology.Pair {
	out := slices.Clone(pairs)
	for i := range out {
		out[i].Hops = nil
	}
	return out
}
