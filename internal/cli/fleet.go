package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/gdtopo/gdtopo/advisor"
	"github.com/gdtopo/gdtopo/internal/fleet"
	"github.com/gdtopo/gdtopo/internal/render"
	"github.com/gdtopo/gdtopo/internal/report"
	"github.com/gdtopo/gdtopo/internal/source"
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
	if os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" && len(names) > 1 {
		// Each source allocates a few megabytes and keeps none of them.
		// Collecting at a multiple of the live heap (GOGC 400 before) made
		// the heap's target swing with what the workers held at each
		// collection, and the runtime gave memory back to the system after
		// a low target only to fault it in again: in this VM a page fault
		// costs about 10 µs, and faults and madvise took a tenth of the
		// CPU. A ballast, 32 MiB of heap that is never written so that the
		// system never backs it, keeps the target near 64 MiB plus twice
		// the live heap at Go's default GOGC of 100, steady from one
		// collection to the next: on the development VM 400 snapshots of
		// hgx-h100 took 0.75 s instead of 0.84 s, for a peak RSS of 57 MB
		// instead of 54. A large source still grows the heap as GOGC 100
		// does. A GOGC or GOMEMLIMIT the user set is kept, without the
		// ballast.
		ballast := make([]byte, 32<<20)
		defer runtime.KeepAlive(ballast)
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
			fmt.Fprintf(opts.IO.Out, "==> %s <==\n", name)
			err := checkOne(opts, name, level)
			code := exitCode(err)
			raise(code)
			if err != nil && code != ExitFindings {
				fmt.Fprintf(opts.IO.Err, "gdtopo: %v\n", err)
			}
		}
	default:
		err := opts.fleetLines(names, level, func(r fleetResult) error {
			raise(r.line.ExitCode)
			if r.line.Error != "" {
				fmt.Fprintf(opts.IO.Err, "gdtopo: %s\n", r.line.Error)
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
// in the order of names. At most two lines per worker wait for their turn,
// so memory does not grow with the number of sources. An error from emit
// stops the output; the analyses under way finish and are dropped.
func (opts *checkOptions) fleetLines(names []string, level advisor.Severity, emit func(fleetResult) error) error {
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
