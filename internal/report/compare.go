package report

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/gdtopo/gdtopo/internal/words"
	"github.com/gdtopo/gdtopo/topology"
)

// Comparison puts servers side by side and ranks them.
type Comparison struct {
	SchemaVersion int      `json:"schema_version"`
	Servers       []Server `json:"servers"` // in the order given
	Verdict       Verdict  `json:"verdict"`
}

// Server is one compared source: the numbers the comparison table shows.
type Server struct {
	Source       string         `json:"source"`
	Format       string         `json:"format"`
	Rank         int            `json:"rank"` // 1 is best; equal numbers share a rank
	CPU          string         `json:"cpu"`
	NUMANodes    int            `json:"numa_nodes"`
	Accelerators string         `json:"accelerators"` // by model and link
	NICs         string         `json:"nics"`         // the rail NICs by model and link
	PCIeSwitches string         `json:"pcie_switches"`
	PairsByLabel map[string]int `json:"pairs_by_label"` // accelerator–rail NIC pairs per nvidia-smi label
	Measures     Measures       `json:"measures"`
	FindingCodes []string       `json:"finding_codes"` // each code once, worst first
	Critical     []string       `json:"critical_codes"`
}

// Measures are what servers are ranked by, in this order; each as the
// table prints it (throughput rounded by RoundGbps).
type Measures struct {
	// GDRAccelerators counts the accelerators the rail plan gives
	// GPUDirect RDMA; the share of Accelerators ranks first: a plan that
	// stages through host memory is ranked by it, whatever its figures.
	GDRAccelerators int `json:"gdr_accelerators"`
	// GDRUndecided counts the accelerators whose GPUDirect RDMA verdict
	// rests on what the source does not show; not in GDRAccelerators.
	GDRUndecided int     `json:"gdr_undecided"`
	WorstGbps    float64 `json:"worst_gbps"` // the rail plan's worst pair: what a collective waits for; more is better
	// WorstStaged says WorstGbps is a host-staged figure.
	WorstStaged bool    `json:"worst_staged"`
	MeanGbps    float64 `json:"mean_gbps"` // more is better
	// AtMost is the plan's: WorstGbps and MeanGbps are ceilings, a NIC's
	// port rate unknown. A ceiling ranks a server below one whose figure
	// is above it, and decides nothing else.
	AtMost       bool `json:"at_most"`
	Critical     int  `json:"critical"`     // fewer is better
	Warning      int  `json:"warning"`      // fewer is better
	Accelerators int  `json:"accelerators"` // more is better
	RailNICs     int  `json:"rail_nics"`    // the NICs the rail plan uses (the rails where it has none); more is better
	Info         int  `json:"info"`         // fewer is better
	// UnknownPaths counts the accelerator–rail NIC pairs whose path the
	// source cannot tell ("?"): a server with any is never ranked above
	// one with none, nor ranked at all against another with some.
	UnknownPaths int `json:"unknown_paths"`
	// UnidentifiedFunctions is the summary's count of functions the source
	// does not identify: a server without accelerators may have some there.
	// Not a ranking measure.
	UnidentifiedFunctions int `json:"unidentified_functions"`
	// Partial is the summary's: why the source holds only part of the
	// machine. A partial server is ranked as one with unknown paths, and
	// one that shows no accelerator or no NIC may have them in the part it
	// lacks. SkippedAccelerators and SkippedNICs are the summary's counts
	// of accelerators and NICs the source names but does not place. Not
	// ranking measures.
	Partial             string `json:"partial"`
	SkippedAccelerators int    `json:"skipped_accelerators"`
	SkippedNICs         int    `json:"skipped_nics"`
	// Unseen lists what the source does not show that findings rest on
	// (see unseenEvidence): two servers whose sources do not show the same
	// are not ranked by their findings, as fewer findings there may be
	// fewer seen. [] when the source shows all of it.
	Unseen []string `json:"unseen"`
}

// measure is one ranking measure: its name for the verdict, its value and
// whether more is better.
type measure struct {
	name, unit string
	value      func(Measures) float64
	more       bool
	mayBeZero  bool // else 0 means unknown: such a measure decides nothing
	finding    bool // a count of findings: compared only where both sources show the same (Measures.Unseen)
	gbps       bool // a rail plan figure: a ceiling where Measures.AtMost
	// hi is the highest the value may be where the source leaves part of
	// it undecided (nil: value is exact); it ranks only where the two
	// servers' ranges do not overlap.
	hi func(Measures) float64
}

// comparable reports whether m can rank x against y: known for both, for
// a count of findings drawn from sources that show the same, and for a
// plan figure that is a ceiling (Measures.AtMost), below the other's
// figure, so that the other's is the better for certain.
func (m *measure) comparable(x, y Measures) bool {
	if !m.mayBeZero && (m.value(x) == 0 || m.value(y) == 0) {
		return false
	}
	if m.hi != nil && (m.hi(x) != m.value(x) || m.hi(y) != m.value(y)) && m.value(x) <= m.hi(y) && m.value(y) <= m.hi(x) {
		return false // undecided parts that could turn the order
	}
	if m.gbps {
		switch {
		case x.AtMost && y.AtMost:
			return false
		case x.AtMost:
			return m.value(x) < m.value(y)
		case y.AtMost:
			return m.value(y) < m.value(x)
		}
	}
	return !m.finding || sameUnseen(x, y)
}

// ceiling reports whether m is a plan figure that is a ceiling for x or y
// (Measures.AtMost).
func (m *measure) ceiling(x, y Measures) bool { return m.gbps && (x.AtMost || y.AtMost) }

// sameUnseen reports whether x's and y's sources leave out the same of
// what findings rest on (Measures.Unseen): only then are their findings
// counted against each other.
func sameUnseen(x, y Measures) bool { return slices.Equal(x.Unseen, y.Unseen) }

// gdrShare is the measure of the share of accelerators with GPUDirect
// RDMA in the plan; its sentence counts them.
var gdrShare = measure{name: "share of accelerators the plan gives GPUDirect RDMA", value: func(m Measures) float64 {
	if m.Accelerators == 0 {
		return 0
	}
	return float64(m.GDRAccelerators) / float64(m.Accelerators)
}, more: true, mayBeZero: true, hi: func(m Measures) float64 {
	if m.Accelerators == 0 {
		return 0
	}
	return float64(m.GDRAccelerators+m.GDRUndecided) / float64(m.Accelerators)
}}

var measures = []measure{
	gdrShare,
	{"worst planned accelerator–NIC pair", "Gb/s", func(m Measures) float64 { return m.WorstGbps }, true, false, false, true, nil},
	{"mean planned pair", "Gb/s", func(m Measures) float64 { return m.MeanGbps }, true, false, false, true, nil},
	{"critical findings", "", func(m Measures) float64 { return float64(m.Critical) }, false, true, true, false, nil},
	{"warning findings", "", func(m Measures) float64 { return float64(m.Warning) }, false, true, true, false, nil},
	{"accelerators", "", func(m Measures) float64 { return float64(m.Accelerators) }, true, true, false, false, nil},
	{"rail NICs", "", func(m Measures) float64 { return float64(m.RailNICs) }, true, true, false, false, nil},
	{"info findings", "", func(m Measures) float64 { return float64(m.Info) }, false, true, true, false, nil},
}

// RankingMeasures names the measures servers are ranked by, in their
// order (after the gates of decide): what compare's help lists.
func RankingMeasures() []string {
	names := make([]string, len(measures))
	for i, m := range measures {
		names[i] = m.name
	}
	return names
}

// Verdict says which server wins, on which measure, by how much.
type Verdict struct {
	Best       string  `json:"best"`       // "" on a tie
	RunnerUp   string  `json:"runner_up"`  // the second
	Measure    string  `json:"measure"`    // the first measure they differ on; "" on a tie
	BestValue  float64 `json:"best_value"` // on that measure
	OtherValue float64 `json:"runner_up_value"`
	Tie        bool    `json:"tie"` // every measure equal
	Sentence   string  `json:"sentence"`
}

// UnknownPaths counts the pairs of an accelerator and a shown NIC whose
// path the source cannot tell ("?"), and all such pairs.
func UnknownPaths(r *Report) (unknown, all int) {
	for _, a := range r.Accelerators {
		for _, n := range r.NICs {
			if p := r.Pair(a.BDF, n); p != nil {
				all++
				if p.SMI == string(topology.Unknown) {
					unknown++
				}
			}
		}
	}
	return unknown, all
}

// ServerOf condenses a report for the comparison.
func ServerOf(r *Report) Server {
	s := Server{Source: r.Source.Name, Format: r.Source.Format, CPU: cpuText(r.System, r.NCCLTopology()), NUMANodes: len(r.System.NUMANodes),
		Accelerators: r.Summary.AcceleratorLinks, NICs: r.Summary.RailNICLinks, PCIeSwitches: r.Summary.PCIeSwitches,
		PairsByLabel: map[string]int{}, FindingCodes: []string{}, Critical: []string{}}
	for _, a := range r.Accelerators {
		for _, n := range r.NICs {
			if p := r.Pair(a.BDF, n); p != nil {
				s.PairsByLabel[Label(p)]++
			}
		}
	}
	unknownPaths, _ := UnknownPaths(r)
	railNICs := len(r.NICs)
	if len(r.Plan.Assignments) > 0 { // NICs no rank uses carry nothing
		used := map[string]bool{}
		for _, as := range r.Plan.Assignments {
			used[as.NIC] = true
			for _, n := range as.MoreNICs {
				used[n] = true
			}
		}
		railNICs = len(used)
	}
	if r.NoRDMANIC() { // the rails are NICs without RDMA: none counts
		railNICs = 0
		s.NICs = "none (" + s.NICs + ": no RDMA)"
	}
	seen := map[string]bool{}
	for _, f := range r.Findings {
		if !seen[f.Code] {
			seen[f.Code] = true
			s.FindingCodes = append(s.FindingCodes, f.Code)
		}
		if f.Severity == "critical" && !contains(s.Critical, f.Code) {
			s.Critical = append(s.Critical, f.Code)
		}
	}
	gdr, undecided, _ := gdrCounts(r.Accelerators)
	worstStaged := false
	if w := worstAssignment(r.Plan); w != nil {
		worstStaged = w.Mode == "host_staged"
	}
	s.Measures = Measures{GDRAccelerators: gdr, GDRUndecided: undecided, WorstGbps: words.RoundGbps(r.Plan.WorstGbps), WorstStaged: worstStaged, MeanGbps: words.RoundGbps(r.Plan.MeanGbps), AtMost: r.Plan.AtMost,
		Critical: r.Counts.Critical, Warning: r.Counts.Warning, Info: r.Counts.Info,
		Accelerators: len(r.Accelerators), RailNICs: railNICs, UnknownPaths: unknownPaths,
		UnidentifiedFunctions: r.Summary.UnidentifiedFunctions, Partial: r.Summary.Partial,
		SkippedAccelerators: r.Summary.SkippedAccelerators,
		SkippedNICs:         r.Summary.SkippedNICs, Unseen: unseenEvidence(r)}
	return s
}

// unseenEvidence lists what r's source does not show that findings rest
// on, from the facts check's "Source lacks" rests on: "link state" (a
// current link speed or width unknown on the way from an accelerator or a
// rail NIC to its root port: no degraded-link finding can be drawn), "ACS"
// (the advisor's acs-unknown, or bridges none of whose ACS the source
// shows, as a plain lspci without ACSCtl lines: no acs-redirect), "NUMA
// nodes" (none known: no numa-unknown, and no cross-socket path told from
// another).
func unseenEvidence(r *Report) []string {
	unseen := []string{}
	if linkStateUnseen(r) {
		unseen = append(unseen, "link state")
	}
	if acsUnseen(r) {
		unseen = append(unseen, "ACS")
	}
	if len(r.System.NUMANodes) == 0 {
		unseen = append(unseen, "NUMA nodes")
	}
	return unseen
}

// acsUnseen reports whether the source leaves ACS unknown: at a bridge on
// an accelerator–NIC path (acs-unknown), or at every bridge it holds, as
// the readers' "Source lacks" says it (a plain lspci dump has no paths, so
// no acs-unknown, however many bridges it lists).
func acsUnseen(r *Report) bool {
	if slices.ContainsFunc(r.Findings, func(f Finding) bool { return f.Code == "acs-unknown" }) {
		return true
	}
	unknown := false
	for _, d := range r.Devices {
		switch d.ACS {
		case "redirect", "off":
			return false
		case "unknown":
			unknown = true
		}
	}
	return unknown
}

// linkStateUnseen reports whether the current link of an accelerator, a
// rail NIC or a bridge between it and its root port is unknown.
func linkStateUnseen(r *Report) bool {
	ends := make([]string, 0, len(r.Accelerators)+len(r.NICs))
	for _, a := range r.Accelerators {
		ends = append(ends, a.BDF)
	}
	ends = append(ends, r.NICs...)
	for _, bdf := range ends {
		// At most one step per device: a parent chain is never longer.
		for d, steps := r.Device(bdf), 0; d != nil && steps < len(r.Devices); d, steps = r.Device(d.Parent), steps+1 {
			if (d.Link.CurrentGTs <= 0 || d.Link.CurrentWidth <= 0) && d.PhysFn == "" {
				return true
			}
		}
	}
	return false
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// Compare ranks servers by Measures. Two servers are compared by the
// first measure on which they differ (decide), which is not transitive:
// a measure unknown for one server, or counts of findings from sources
// that show different things, decide nothing for some pairs and
// something for others. So that the ranks do not depend on the order the
// servers are given in, each server is scored by how many of the others
// it ranks above less how many rank above it, head to head; servers are
// ranked by that score, and servers of equal score by the same count
// among themselves. Servers equal on both share a rank, listed as given.
func Compare(servers []Server) *Comparison {
	c := &Comparison{SchemaVersion: SchemaVersion, Servers: servers}
	n := len(servers)
	beats := make([][]int, n) // beats[i][j]: +1 i above j, -1 below, 0 nothing decides
	for i := range beats {
		beats[i] = make([]int, n)
	}
	score := make([]int, n)
	for i := range n {
		for j := i + 1; j < n; j++ {
			_, d := decide(servers[i].Measures, servers[j].Measures)
			beats[i][j], beats[j][i] = d, -d
			score[i] += d
			score[j] -= d
		}
	}
	within := make([]int, n) // the same count among the servers of equal score
	for i := range n {
		for j := range n {
			if score[i] == score[j] {
				within[i] += beats[i][j]
			}
		}
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	key := func(i int) [2]int { return [2]int{score[i], within[i]} }
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Or(cmp.Compare(score[b], score[a]), cmp.Compare(within[b], within[a]))
	})
	for k, i := range order {
		servers[i].Rank = k + 1
		if k > 0 && key(order[k-1]) == key(i) {
			servers[i].Rank = servers[order[k-1]].Rank
		}
	}
	if n < 2 {
		return c
	}
	best, next := order[0], order[1]
	switch {
	case beats[best][next] > 0 && servers[best].Rank < servers[next].Rank, beats[best][next] == 0 && servers[best].Rank == servers[next].Rank:
		c.Verdict = verdict(servers[best], servers[next])
	case servers[best].Rank == servers[next].Rank: // head to head one decides, but the others even it out
		c.Verdict = cycleVerdict(servers, order, beats)
	default:
		c.Verdict = scoreVerdict(servers[best], servers[next], [2]int{score[best], within[best]}, [2]int{score[next], within[next]}, n, beats[best][next])
	}
	return c
}

// scoreVerdict says why best ranks first when head to head it does not
// rank above next (headToHead 0: nothing decides; -1: next ranks above):
// of the others, it ranks above more, less those ranked above it (the
// scores' first number), or, where that is equal, it does so among the
// servers of that score (the second).
func scoreVerdict(best, next Server, bestScore, nextScore [2]int, n, headToHead int) Verdict {
	v := Verdict{Best: best.Source, RunnerUp: next.Source}
	if bestScore[0] == nextScore[0] {
		v.Measure, v.BestValue, v.OtherValue = "servers ranked below, less those ranked above, among servers of equal count", float64(bestScore[1]), float64(nextScore[1])
		v.Sentence = fmt.Sprintf("%s ranks first: of the %d others, the servers it ranks above less those ranked above it come to %+d, as for %s, and among the servers with that count to %+d against %+d",
			best.Source, n-1, bestScore[0], next.Source, bestScore[1], nextScore[1])
	} else {
		v.Measure, v.BestValue, v.OtherValue = "servers ranked below, less those ranked above", float64(bestScore[0]), float64(nextScore[0])
		v.Sentence = fmt.Sprintf("%s ranks first: of the %d others, the servers it ranks above less those ranked above it come to %+d, against %+d for %s",
			best.Source, n-1, bestScore[0], nextScore[0], next.Source)
	}
	above, below := best, next
	if headToHead < 0 {
		above, below = next, best
	}
	v.Sentence += "; head to head, " + verdict(above, below).Sentence
	return v
}

// cycleVerdict says that the servers sharing the first rank do so though
// some of them rank above others head to head: each is ranked above and
// below as often as the others.
func cycleVerdict(servers []Server, order []int, beats [][]int) Verdict {
	var names, wins []string
	for _, i := range order {
		if servers[i].Rank != 1 {
			break
		}
		names = append(names, servers[i].Source)
		for _, j := range order {
			if servers[j].Rank == 1 && beats[i][j] > 0 {
				m, _ := decide(servers[i].Measures, servers[j].Measures)
				wins = append(wins, servers[i].Source+" above "+servers[j].Source+" ("+m.name+")")
			}
		}
	}
	return Verdict{RunnerUp: servers[order[1]].Source, Tie: true,
		Sentence: fmt.Sprintf("%s share the first rank: head to head, %s, in a cycle, so nothing ranks one of them above the others.",
			strings.Join(names, ", "), strings.Join(wins, "; "))}
}

// rdmaPossible is the measure that comes first: a server with
// accelerators and a rail NIC that may do RDMA ranks above one without
// (no accelerator, or only NICs without RDMA), whatever their other
// numbers, which then describe no GPUDirect RDMA. It is unknown
// (rdmaUnknown) for a partial source that shows no accelerator or no rail
// NIC: the part it lacks may hold them.
var rdmaPossible = measure{name: "accelerators and an RDMA NIC", value: func(m Measures) float64 {
	switch {
	case (m.Accelerators == 0 || m.RailNICs == 0) && m.Partial != "":
		return rdmaUnknown
	case m.Accelerators == 0 || m.RailNICs == 0:
		return 0
	}
	return 1
}, more: true, mayBeZero: true}

// rdmaUnknown is rdmaPossible's value where the source cannot tell.
const rdmaUnknown = -1

// pathsKnown is the measure that comes next: a server whose
// accelerator–NIC paths are all known ranks above one with unknown paths,
// whose plan, predictions and locality findings are missing, not good.
// A partial source's paths in the part it lacks are unknown too.
var pathsKnown = measure{name: "accelerator–NIC paths known", value: func(m Measures) float64 {
	if m.UnknownPaths > 0 || m.Partial != "" {
		return 0
	}
	return 1
}, more: true, mayBeZero: true}

// decide finds the first measure x and y differ on, known for both: +1
// when x is better there, -1 when y is; nil and 0 when they tie on all.
// Two servers that both have unknown paths tie: nothing ranks them.
func decide(x, y Measures) (*measure, int) {
	// The gates, rdmaPossible then pathsKnown: where two servers differ on
	// one it decides, and where both fail one nothing ranks them. Where
	// rdmaPossible is unknown for one, it decides nothing: against a server
	// that may do RDMA the paths decide (the unknown one's are unknown),
	// and against one that cannot, nothing ranks them.
	switch a, b := rdmaPossible.value(x), rdmaPossible.value(y); {
	case a == rdmaUnknown && b < 1, b == rdmaUnknown && a < 1:
		return nil, 0
	case a != rdmaUnknown && b != rdmaUnknown:
		if m, d, done := gate(&rdmaPossible, a, b); done {
			return m, d
		}
	}
	if m, d, done := gate(&pathsKnown, pathsKnown.value(x), pathsKnown.value(y)); done {
		return m, d
	}
	for i := range measures {
		m := &measures[i]
		a, b := m.value(x), m.value(y)
		if a == b || !m.comparable(x, y) {
			continue
		}
		if (a > b) == m.more {
			return m, 1
		}
		return m, -1
	}
	return nil, 0
}

// gate compares two servers' values a and b (1 or 0) on the gate g: where
// they differ g decides, and where both are 0 nothing ranks them (done);
// where both are 1 the next measure decides.
func gate(g *measure, a, b float64) (m *measure, d int, done bool) {
	switch {
	case a > b:
		return g, 1, true
	case a < b:
		return g, -1, true
	case a == 0:
		return nil, 0, true
	}
	return nil, 0, false
}

func verdict(best, next Server) Verdict {
	v := Verdict{Best: best.Source, RunnerUp: next.Source}
	m, _ := decide(best.Measures, next.Measures)
	switch {
	case m == nil && (rdmaPossible.value(best.Measures) == rdmaUnknown || rdmaPossible.value(next.Measures) == rdmaUnknown):
		v.Best, v.Tie = "", true
		v.Sentence = fmt.Sprintf("nothing ranks %s and %s: %s; %s.", best.Source, next.Source, mayDoRDMA(best), mayDoRDMA(next))
		return v
	case rdmaPossible.value(best.Measures) == 0: // nor can next: they tie
		v.Best, v.Tie = "", true
		v.Sentence = fmt.Sprintf("neither can do GPUDirect RDMA, so nothing ranks them: %s has %s, %s has %s.",
			best.Source, lacking(best.Measures), next.Source, lacking(next.Measures))
		return v
	case m == &rdmaPossible:
		v.Measure, v.BestValue, v.OtherValue = m.name, 1, 0
		v.Sentence = fmt.Sprintf("%s ranks first: it has accelerators and a NIC that may do RDMA, and %s has %s.", best.Source, next.Source, lacking(next.Measures))
		return v
	case best.Measures.UnknownPaths > 0: // and so has next: they tie
		v.Best, v.Tie = "", true
		v.Sentence = unranked(best) + "; nor can " + next.Source + "."
		return v
	case m == &pathsKnown:
		v.Measure, v.BestValue, v.OtherValue = m.name, 1, 0
		v.Sentence = fmt.Sprintf("%s ranks first: its accelerator–NIC paths are all known, and %s.", best.Source, unranked(next))
		return v
	}
	if m == nil {
		v.Best, v.Tie = "", true
		v.Sentence = fmt.Sprintf("%s and %s tie: no measure the table shows ranks them%s.", best.Source, next.Source, notDeciding(measures, best, next))
		return v
	}
	v.Measure, v.BestValue, v.OtherValue = m.name, m.value(best.Measures), m.value(next.Measures)
	switch {
	case m == &measures[0]: // GPUDirect RDMA for more of its accelerators
		b, n := best.Measures, next.Measures
		rest := "which stages the rest through host memory"
		switch staged := n.Accelerators - n.GDRAccelerators - n.GDRUndecided; {
		case n.GDRUndecided > 0 && staged > 0:
			rest = fmt.Sprintf("which stages %d through host memory and whose source leaves %d undecided", staged, n.GDRUndecided)
		case n.GDRUndecided > 0:
			rest = fmt.Sprintf("whose source leaves the rest undecided (%d)", n.GDRUndecided)
		}
		v.Sentence = fmt.Sprintf("%s ranks first: its rail plan gives GPUDirect RDMA to %d of %d accelerators against %d of %d for %s, %s",
			best.Source, b.GDRAccelerators, b.Accelerators, n.GDRAccelerators, n.Accelerators, next.Source, rest)
		// Only a worst pair known for both (and not a lower ceiling) is
		// higher: against an unknown one it is no comparison.
		if fb, fn := measures[1].value(b), measures[1].value(n); fn > fb && measures[1].comparable(b, n) {
			v.Sentence += fmt.Sprintf("; %s's higher worst pair (%s against %s) counts staged figures", next.Source, words.Gbps(fn), words.Gbps(fb))
		}
	case m.unit != "":
		if next.Measures.AtMost { // a ceiling: by how much is unknown, only that it is less
			v.Sentence = fmt.Sprintf("%s ranks first: its %s is %s against at most %s for %s, whose NICs' port rates are not all known",
				best.Source, m.name, words.Gbps(v.BestValue), words.Gbps(v.OtherValue), next.Source)
		} else {
			v.Sentence = fmt.Sprintf("%s ranks first: its %s is %s against %s for %s (+%s",
				best.Source, m.name, words.Gbps(v.BestValue), words.Gbps(v.OtherValue), next.Source, words.Gbps(v.BestValue-v.OtherValue))
			if v.OtherValue > 0 {
				v.Sentence += fmt.Sprintf(", %.2fx", v.BestValue/v.OtherValue)
			}
			v.Sentence += ")"
		}
	default:
		v.Sentence = fmt.Sprintf("%s ranks first: it has %.0f %s against %.0f for %s", best.Source, v.BestValue, m.name, v.OtherValue, next.Source)
	}
	if m.name == "critical findings" && len(next.Critical) > 0 {
		v.Sentence += fmt.Sprintf(", whose critical findings are %s", strings.Join(next.Critical, ", "))
	}
	v.Sentence += notDeciding(measures[:indexOf(m)], best, next) + "."
	return v
}

// notDeciding says why the measures before the deciding one did not
// decide: tied, unknown, or counts of findings from sources that do not
// show the same.
func notDeciding(before []measure, best, next Server) string {
	var tied, unknown, ceilings, unseen []string
	for i := range before {
		x := &before[i]
		switch {
		case x.name == gdrShare.name && best.Measures.GDRAccelerators == 0 && next.Measures.GDRAccelerators == 0:
			// neither plan gives GPUDirect RDMA: nothing to say
		case x.finding && !sameUnseen(best.Measures, next.Measures):
			unseen = append(unseen, x.name)
		case x.value(best.Measures) == x.value(next.Measures) && x.comparable(best.Measures, next.Measures):
			tied = append(tied, x.name)
		case x.ceiling(best.Measures, next.Measures) && x.value(best.Measures) > 0 && x.value(next.Measures) > 0:
			ceilings = append(ceilings, x.name)
		default:
			unknown = append(unknown, x.name)
		}
	}
	var out string
	if len(tied) > 0 {
		out += "; they tie on " + strings.Join(tied, ", ")
	}
	if len(unknown) > 0 {
		out += "; unknown for one or both, so not compared: " + strings.Join(unknown, ", ")
	}
	if len(ceilings) > 0 {
		out += "; ceilings that do not decide (a NIC's port rate unknown): " + strings.Join(ceilings, ", ")
	}
	if len(unseen) > 0 {
		out += fmt.Sprintf("; not compared, as fewer findings may be fewer seen: %s (%s; %s)",
			strings.Join(unseen, ", "), showsWords(best), showsWords(next))
	}
	return out
}

// showsWords says what s's source does not show of what findings rest on
// (Measures.Unseen).
func showsWords(s Server) string {
	if len(s.Measures.Unseen) == 0 {
		return s.Source + " shows link state, ACS and NUMA nodes"
	}
	return s.Source + " does not show " + strings.Join(s.Measures.Unseen, ", ")
}

// lacking says what keeps GPUDirect RDMA off a server rdmaPossible ranks
// last: no accelerator, or no NIC that may do RDMA.
func lacking(m Measures) string {
	if m.Accelerators == 0 && m.UnidentifiedFunctions > 0 {
		return "no accelerator identified (" + words.Count(m.UnidentifiedFunctions, "function") + " the source does not identify)"
	}
	if m.Accelerators == 0 {
		return "no accelerator"
	}
	return "no NIC that can do RDMA"
}

// unranked says why s cannot be ranked: its source is partial, or its
// paths are unknown.
func unranked(s Server) string {
	m := s.Measures
	switch {
	case rdmaPossible.value(m) == rdmaUnknown:
		return fmt.Sprintf("%s cannot be ranked: its source holds part of the machine, with %s (%s)", s.Source, partialShows(m), m.Partial)
	case m.SkippedAccelerators+m.SkippedNICs > 0:
		whose := "their"
		if m.SkippedAccelerators+m.SkippedNICs == 1 {
			whose = "its"
		}
		return fmt.Sprintf("%s cannot be ranked: it names %s it does not place, so %s paths are unknown (%s)", s.Source, skippedCount(m), whose, m.Partial)
	case m.Partial != "":
		return fmt.Sprintf("%s cannot be ranked: its source holds part of the machine (%s)", s.Source, m.Partial)
	}
	return fmt.Sprintf("%s cannot be ranked: %d of its accelerator–NIC paths are unknown (the source shows no PCI hierarchy: capture lspci -tv, or sudo lspci -vvv)",
		s.Source, m.UnknownPaths)
}

// skippedCount is "2 accelerators and 6 NICs": the accelerators and NICs
// a source names but does not place.
func skippedCount(m Measures) string {
	var parts []string
	if m.SkippedAccelerators > 0 {
		parts = append(parts, words.Count(m.SkippedAccelerators, "accelerator"))
	}
	if m.SkippedNICs > 0 {
		parts = append(parts, words.Count(m.SkippedNICs, "NIC"))
	}
	return strings.Join(parts, " and ")
}

// partialShows says what keeps rdmaPossible unknown for a partial source:
// "no accelerator and 6 NICs it does not place".
func partialShows(m Measures) string {
	var shows []string
	for _, k := range []struct {
		shown, skipped int
		kind           string
	}{{m.Accelerators, m.SkippedAccelerators, "accelerator"}, {m.RailNICs, m.SkippedNICs, "NIC"}} {
		switch {
		case k.shown > 0:
		case k.skipped > 0:
			shows = append(shows, words.Count(k.skipped, k.kind)+" it does not place")
		default:
			shows = append(shows, "no "+k.kind)
		}
	}
	return strings.Join(shows, " and ")
}

// mayDoRDMA says whether s can do GPUDirect RDMA, for a verdict where
// rdmaPossible is unknown for one or both.
func mayDoRDMA(s Server) string {
	switch rdmaPossible.value(s.Measures) {
	case rdmaUnknown:
		return fmt.Sprintf("whether %s can do GPUDirect RDMA is unknown: its source holds part of the machine, with %s (%s)",
			s.Source, partialShows(s.Measures), s.Measures.Partial)
	case 0:
		return s.Source + " has " + lacking(s.Measures)
	}
	if pathsKnown.value(s.Measures) == 0 {
		return unranked(s)
	}
	return s.Source + " has accelerators and a NIC that may do RDMA"
}

func indexOf(m *measure) int {
	for i := range measures {
		if &measures[i] == m {
			return i
		}
	}
	return -1
}

// cpuText describes the CPU: "2 x Intel Xeon ... (GenuineIntel family 6
// model 143), 224 logical CPUs"; "unknown" parts where unknown. An NCCL
// topology's count is of the CPU masks it lists, not the machine's.
func cpuText(s System, ncclTopology bool) string {
	cpu := s.CPUModel
	if cpu == "" {
		cpu = "unknown"
	}
	if s.Sockets > 0 {
		cpu = fmt.Sprintf("%d x %s", s.Sockets, cpu)
	}
	if s.CPUVendor != "" && s.CPUFamily >= 0 {
		cpu += fmt.Sprintf(" (%s family %d model %d)", s.CPUVendor, s.CPUFamily, s.CPUModelID)
	}
	switch {
	case s.LogicalCPUs > 0 && ncclTopology:
		cpu += fmt.Sprintf(", %d logical CPUs in the file's CPU masks", s.LogicalCPUs)
	case s.LogicalCPUs > 0:
		cpu += fmt.Sprintf(", %d logical CPUs", s.LogicalCPUs)
	}
	return cpu
}

// worstAssignment is the plan's assignment with the lowest share, the one
// its worst figure is of; nil without assignments.
func worstAssignment(p Plan) *Assignment {
	var w *Assignment
	for i := range p.Assignments {
		if a := &p.Assignments[i]; w == nil || a.ShareGbps < w.ShareGbps {
			w = a
		}
	}
	return w
}
