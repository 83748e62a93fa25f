package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/gdtopo/gdtopo/internal/fleet"
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
// and hands each result to emit in the order of names.
func (opts *checkOptions) checkSources(names []string, f render.Format, emit func(fleetResult) error) error {
	return opts.fleetLines(names, f, emit)
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
	opts.IO.gc.manySources()
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
	r, err := a.buildReport(&opts.adviceOptions, reportOptions{FailOn: opts.FailOn, NoHops: !opts.showsHops(f), PlainTable: opts.plainTable(f)})
	if err != nil {
		return report.NewResult(name, nil, err, exitCode(err))
	}
	if opts.reference != nil {
		// The machine as fleet takes it from its report, so that check
		// and fleet --reference find the same differences.
		t := fleet.TopoFromReport(r)
		r.SetReference(opts.Reference, fleet.Compare(opts.reference, &t))
	}
	return report.NewResult(name, r, nil, 0)
}
