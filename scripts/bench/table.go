package main

import (
	"fmt"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/gdtopo/gdtopo/internal/words"
)

// workload is one paired comparison, gdtopo's command against a peer's.
type workload int

const (
	checkLspci  workload = iota // check DIR against lspci -tv
	checkLstopo                 // check DIR against lstopo --input DIR
	treeLspci                   // tree DIR against lspci -tv
	xmlLstopo                   // check X.xml against lstopo --input X.xml
	bigLspci                    // check against lspci -tv on the generated tree
	bigLstopo                   // check against lstopo on the generated tree
)

// perInput are the workloads run on every fixture and corpus capture.
func perInput() []workload { return []workload{checkLspci, checkLstopo, treeLspci, xmlLstopo} }

// String is the workload's row label.
func (w workload) String() string {
	switch w {
	case checkLspci:
		return "check vs lspci -tv"
	case checkLstopo:
		return "check vs lstopo"
	case treeLspci:
		return "tree vs lspci -tv"
	case xmlLstopo:
		return "hwloc XML: check vs lstopo --input"
	case bigLspci:
		return "large tree: check vs lspci -tv"
	case bigLstopo:
		return "large tree: check vs lstopo"
	}
	return "workload " + strconv.Itoa(int(w))
}

// goal is the largest ratio of gdtopo's time to the peer's that the table
// marks as met, 0 for a retired goal: a small tree's check is mostly process
// start-up, at the floor of any Go program (docs/performance.md, Goals).
func (w workload) goal() float64 {
	switch w {
	case bigLspci:
		return 0.2
	case bigLstopo:
		return 0.7
	}
	return 0
}

// Row labels of the rows that are not paired comparisons.
const (
	fleetRow       = "fleet"
	fleetRSSRow    = "fleet peak RSS"
	reportsRow     = "fleet of reports"
	reportsRSSRow  = "fleet of reports peak RSS"
	reportsGoal    = 100000 // reports in under reportsGoalSecs on this machine's CPUs
	reportsGoalSec = 60
	checkRSSRow    = "check peak RSS"
	maxFleetGrow   = 1.5  // "memory flat": peak RSS at n at most this times that at n/10
	fleetGoal      = 1000 // snapshots per CPU-second
)

// comparison is one workload on one input.
type comparison struct {
	workload workload
	input    string
	p        paired
	err      error
}

// results are everything one run measured.
type results struct {
	comparisons []comparison
	fleet       *fleetResult
	reports     *fleetResult // fleet over nodes' own reports
	notes       []string
	tmp         string // the temporary folder, left out of error messages
}

// add runs one paired comparison and keeps it, or its error.
func (r *results) add(o options, w workload, in string, a, b command) {
	p, err := pair(a, b, o.Warmup, o.Runs)
	if err != nil {
		o.logf("%s: %s: %v", in, w, err)
	} else {
		o.logf("%s: %s: ratio %.2f", in, w, median(p.ratios))
	}
	r.comparisons = append(r.comparisons, comparison{workload: w, input: in, p: p, err: err})
}

// row is one table row; the detail table adds CPU and peak memory.
type row struct {
	workload, input, gdtopo, peer, ratio, goal, met string
	gdCPU, peerCPU, cpuRatio, gdRSS, peerRSS        string
}

func (r row) cells(detail bool) []string {
	c := []string{r.workload, r.input, r.gdtopo, r.peer, r.ratio, r.goal, r.met}
	if detail {
		c = append(c, r.gdCPU, r.peerCPU, r.cpuRatio, r.gdRSS, r.peerRSS)
	}
	return c
}

// header is the tables' first line; the detail table adds CPU and memory.
func header(detail bool) []string {
	h := []string{"workload", "input", "gdtopo median", "peer median", "ratio median (min-max)", "goal", "met?"}
	if detail {
		h = append(h, "gdtopo CPU", "peer CPU", "CPU ratio median (min-max)", "gdtopo peak RSS", "peer peak RSS")
	}
	return h
}

// Markers around the printed tables, for whoever reads them back.
const (
	summaryMarker = "bench:summary"
	detailMarker  = "bench:detail"
)

// document is the printed result: the summary block (machine line and one
// row per workload) and the detail block (one row per workload and input).
type document struct{ summary, detail string }

func render(m machine, r results) document {
	head := m.line()
	relative := func(s string) string { return strings.ReplaceAll(s, r.tmp+string(os.PathSeparator), "") } // paths in tmp
	for _, n := range r.notes {
		head += "\n\n" + "Note: " + relative(n) + "."
	}
	for _, c := range r.comparisons {
		if c.err != nil {
			head += "\n\n" + fmt.Sprintf("Failed: %s, %s: %s.", c.input, c.workload, relative(c.err.Error()))
		}
	}
	var summary, detail []row
	for _, w := range perInput() {
		var ok []comparison
		for _, c := range r.comparisons {
			if c.workload == w {
				detail = append(detail, comparisonRow(c))
				if c.err == nil {
					ok = append(ok, c)
				}
			}
		}
		summary = append(summary, summaryRow(w, ok))
	}
	for _, c := range r.comparisons {
		if c.workload == bigLspci || c.workload == bigLstopo {
			summary = append(summary, comparisonRow(c))
			detail = append(detail, comparisonRow(c))
		}
	}
	if r.fleet != nil {
		summary = append(summary, fleetRows(*r.fleet)...)
		detail = append(detail, fleetRows(*r.fleet)...)
	}
	if r.reports != nil {
		summary = append(summary, fleetRows(*r.reports)...)
		detail = append(detail, fleetRows(*r.reports)...)
	}
	rss := rssRows(r.comparisons)
	summary, detail = append(summary, rss...), append(detail, rss...)
	return document{
		summary: block(summaryMarker, head, table(summary, false)),
		detail:  block(detailMarker, "", table(detail, true)),
	}
}

func (m machine) line() string {
	how := "go run ./scripts/bench"
	if m.mode == "quick" {
		how += " -quick"
	}
	line := fmt.Sprintf("Measured %s by `%s`: %s, %d CPUs, Linux %s, %s, pciutils %s, hwloc %s; "+
		"load average %s at the start, %s at the end; %s after %s of each command",
		m.date.Format("2006-01-02 15:04 MST"), how,
		m.cpu, m.cpus, m.kernel, m.goVersion, m.pciutils, m.hwloc, m.loadStart, m.loadEnd,
		words.Count(m.runs, "timed pair"), words.Count(m.warmup, "warm-up run"))
	if m.bigRuns > 0 {
		line += fmt.Sprintf(" (on the generated tree %s after %s)", words.Count(m.bigRuns, "pair"), words.Count(m.bigWarmup, "warm-up run"))
	}
	if m.only != "" {
		line += fmt.Sprintf("; only the inputs matching `%s`", m.only)
	}
	return line + "."
}

func block(marker, head, table string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<!-- %s begin -->\n", marker)
	if head != "" {
		b.WriteString(head + "\n\n")
	}
	b.WriteString(table)
	fmt.Fprintf(&b, "<!-- %s end -->\n", marker)
	return b.String()
}

func table(rows []row, detail bool) string {
	var b strings.Builder
	line := func(cells []string) {
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
	line(header(detail))
	sep := make([]string, len(header(detail)))
	for i := range sep {
		sep[i] = "---"
	}
	line(sep)
	for _, r := range rows {
		line(r.cells(detail))
	}
	return b.String()
}

func comparisonRow(c comparison) row {
	r := row{workload: c.workload.String(), input: c.input, goal: goalCell(c.workload)}
	if c.err != nil {
		r.gdtopo, r.peer, r.ratio, r.met = "failed", "failed", "-", "-"
		r.gdCPU, r.peerCPU, r.cpuRatio, r.gdRSS, r.peerRSS = "-", "-", "-", "-", "-"
		return r
	}
	ratio := statOf(c.p.ratios)
	r.gdtopo, r.peer = ms(median(walls(c.p.a))), ms(median(walls(c.p.b)))
	r.ratio = ratioCell(ratio)
	r.met = metCell(c.workload, ratio.med <= c.workload.goal())
	r.gdCPU, r.peerCPU = ms(median(cpus(c.p.a))), ms(median(cpus(c.p.b)))
	r.cpuRatio = ratioCell(statOf(c.p.cpuRatios))
	r.gdRSS, r.peerRSS = peakRSS(c.p.a).String(), peakRSS(c.p.b).String()
	return r
}

// summaryRow sums one workload up over the inputs: the median of the
// inputs' median times and ratios, the range of the inputs' median ratios,
// and met only when every input's median ratio meets the goal.
func summaryRow(w workload, cs []comparison) row {
	r := row{workload: w.String(), goal: goalCell(w)}
	if len(cs) == 0 {
		r.input, r.gdtopo, r.peer, r.ratio, r.met = "none", "-", "-", "-", "-"
		return r
	}
	var gd, peer, ratios []float64
	worst, over := 0, 0
	for i, c := range cs {
		m := median(c.p.ratios)
		gd, peer, ratios = append(gd, median(walls(c.p.a))), append(peer, median(walls(c.p.b))), append(ratios, m)
		if m > median(cs[worst].p.ratios) {
			worst = i
		}
		if m > w.goal() {
			over++
		}
	}
	r.input = fmt.Sprintf("%s; worst %s", words.Count(len(cs), "input"), cs[worst].input)
	r.gdtopo, r.peer = ms(median(gd)), ms(median(peer))
	r.ratio = ratioCell(statOf(ratios))
	r.met = "yes"
	switch {
	case w.goal() == 0:
		r.met = "-"
	case over > 0:
		r.met = fmt.Sprintf("no (%d of %d over)", over, len(cs))
	}
	return r
}

func fleetRows(f fleetResult) []row {
	grow := float64(f.rss.bytes) / float64(f.smallRSS.bytes)
	perCPU := 0.0
	if f.cpu > 0 {
		perCPU = float64(f.n) / f.cpu
	}
	label, rssLabel, kind, of := fleetRow, fleetRSSRow, "snapshots", "snapshots of fixtures/"+fleetFixture
	goal, met := fmt.Sprintf("≥ %s per CPU-second", thousands(fleetGoal)), perCPU >= fleetGoal
	if f.reports {
		label, rssLabel, kind, of = reportsRow, reportsRSSRow, "reports", "check -o jsonl reports of fixtures/"+fleetFixture
		// 100,000 reports in a minute on this machine's CPUs, all busy.
		need := float64(reportsGoal) / float64(reportsGoalSec*runtime.NumCPU())
		goal, met = fmt.Sprintf("≥ %s per CPU-second (%s in %d s on %d CPUs)", thousands(int(math.Ceil(need))), thousands(reportsGoal), reportsGoalSec, runtime.NumCPU()), perCPU >= need
	}
	return []row{{
		workload: label,
		input:    fmt.Sprintf("%s %s (%s bytes each)", thousands(f.n), of, thousands(int(f.snapshotBytes))),
		gdtopo:   fmt.Sprintf("%s %s/s (%s-%s), %s per CPU-second", thousands(int(f.rate.med)), kind, thousands(int(f.rate.lo)), thousands(int(f.rate.hi)), thousands(int(perCPU))),
		peer:     "-", ratio: "-",
		goal:  goal,
		met:   yesNo(met),
		gdCPU: fmt.Sprintf("%.2f s", f.cpu), peerCPU: "-", cpuRatio: "-", gdRSS: f.rss.String(), peerRSS: "-",
	}, {
		workload: rssLabel,
		input:    fmt.Sprintf("%s %s against %s", thousands(f.n), kind, thousands(f.small)),
		gdtopo:   f.rss.String(),
		peer:     fmt.Sprintf("%s (gdtopo, %s %s)", f.smallRSS, thousands(f.small), kind),
		ratio:    f.rss.over(f.smallRSS),
		goal:     fmt.Sprintf("flat (≤ %.1fx)", maxFleetGrow),
		met:      yesNo(grow <= maxFleetGrow),
		gdCPU:    "-", peerCPU: "-", cpuRatio: "-", gdRSS: f.rss.String(), peerRSS: f.smallRSS.String(),
	}}
}

// rssRows state the peak memory of a single check: the largest over the
// fixtures and corpus captures, and on the generated tree, each beside
// lstopo's on the same input.
func rssRows(cs []comparison) []row {
	var rows []row
	for _, w := range []workload{checkLstopo, bigLstopo} {
		var pick *comparison
		for i, c := range cs {
			if c.err != nil || c.workload != w {
				continue
			}
			if pick == nil || peakRSS(c.p.a).bytes > peakRSS(pick.p.a).bytes {
				pick = &cs[i]
			}
		}
		if pick == nil {
			continue
		}
		input := pick.input
		if w == checkLstopo {
			input = "largest of all inputs: " + input
		}
		gd, peer := peakRSS(pick.p.a), peakRSS(pick.p.b)
		rows = append(rows, row{
			workload: checkRSSRow, input: input,
			gdtopo: gd.String(), peer: peer.String() + " (lstopo)",
			ratio: gd.over(peer),
			goal:  "stated", met: "-",
			gdCPU: "-", peerCPU: "-", cpuRatio: "-", gdRSS: gd.String(), peerRSS: peer.String(),
		})
	}
	return rows
}

func goalCell(w workload) string {
	if w.goal() == 0 {
		return "retired"
	}
	return fmt.Sprintf("≤ %.1fx", w.goal())
}

// metCell says whether a comparison met its goal; "-" for a retired one.
func metCell(w workload, met bool) string {
	if w.goal() == 0 {
		return "-"
	}
	return yesNo(met)
}

func ratioCell(s stat) string { return fmt.Sprintf("%.2f (%.2f-%.2f)", s.med, s.lo, s.hi) }

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// ms formats seconds as milliseconds, three significant figures or whole.
func ms(sec float64) string {
	v := sec * 1000
	switch {
	case v >= 100:
		return thousands(int(v+0.5)) + " ms"
	case v >= 10:
		return fmt.Sprintf("%.1f ms", v)
	}
	return fmt.Sprintf("%.2f ms", v)
}

// thousands writes n with commas between groups of three digits.
func thousands(n int) string {
	s := strconv.Itoa(n)
	if n < 0 {
		return "-" + thousands(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
