package fleet

import (
	"cmp"
	"slices"

	"github.com/gdtopo/gdtopo/internal/report"
)

// Fleet groups machines by their Topo as they are added, keeping one Topo
// for each distinct machine state and a number for each source: memory
// grows with the number of distinct states, not with the sources. Add and
// Fail may come in any order; the result depends only on each source's
// index.
type Fleet struct {
	byKey    map[string]int32 // Topo key -> variant
	variants []*variant
	shapes   map[string]int // shape key -> index in shapeN
	shapeN   []shapeCount
	nodes    []int32 // per source: its variant, or -1
	errs     map[int]string
	keyBuf   []byte // Add's buffer for a machine's key
	ref      *Topo  // the golden reference every state is compared with; nil: each group's majority
	refName  string
}

// variant is one distinct machine state.
type variant struct {
	topo  Topo
	shape int
	count int
	first int // the lowest source index in it
}

// shapeCount counts the sources of one shape.
type shapeCount struct{ count, first int }

// NewFleet prepares for n sources.
func NewFleet(n int) *Fleet {
	f := &Fleet{byKey: map[string]int32{}, shapes: map[string]int{}, nodes: make([]int32, n), errs: map[int]string{}}
	for i := range f.nodes {
		f.nodes[i] = -1
	}
	return f
}

// Add records source i's Topo.
func (f *Fleet) Add(i int, t *Topo) {
	f.grow(i)
	t.setPlaces()
	f.keyBuf = t.appendKey(f.keyBuf[:0])
	v, ok := f.byKey[string(f.keyBuf)] // no string made to look up
	if !ok {
		k := string(f.keyBuf)
		sk := t.shapeKey()
		s, ok := f.shapes[sk]
		if !ok {
			s = len(f.shapeN)
			f.shapes[sk] = s
			f.shapeN = append(f.shapeN, shapeCount{first: i})
		}
		v = int32(len(f.variants))
		f.byKey[k] = v
		f.variants = append(f.variants, &variant{topo: *t, shape: s, first: i})
	}
	vr := f.variants[v]
	vr.count++
	vr.first = min(vr.first, i)
	s := &f.shapeN[vr.shape]
	s.count++
	s.first = min(s.first, i)
	f.nodes[i] = v
}

// SetReference makes t, read from name, what every machine is compared
// with instead of its group's majority: a known-good machine, so that a
// fault most of the fleet shares is found on every machine that has it.
func (f *Fleet) SetReference(name string, t *Topo) {
	t.setPlaces()
	f.ref, f.refName = t, name
}

// Fail records that source i could not be read.
func (f *Fleet) Fail(i int, msg string) {
	f.grow(i)
	f.errs[i] = msg
}

// grow makes room for source i: a file of reports holds more machines
// than NewFleet was told of.
func (f *Fleet) grow(i int) {
	for len(f.nodes) <= i {
		f.nodes = append(f.nodes, -1)
	}
}

// Result is the fleet's groups, largest first.
type Result struct {
	SchemaVersion int `json:"schema_version"` // report.SchemaVersion

	Sources    int `json:"sources"`
	Unreadable int `json:"unreadable"`
	Differing  int `json:"differing"` // sources unlike their group's majority (or the reference), or in a group after the first, other than by renumbered addresses
	// Reference is the golden reference (fleet --reference) every
	// machine was compared with; "" when each group's majority was.
	Reference string  `json:"reference,omitempty"`
	Groups    []Group `json:"groups"`
	Errors    []Error `json:"errors"`

	names []string
	nodes []int32
	errs  map[int]string
	place []variantPlace // per variant
}

// Group is the machines of one hardware shape: the same accelerators,
// NICs and bridges, by model, at the same places in the tree (Place).
type Group struct {
	Group        int `json:"group"` // 1 is the largest
	Sources      int `json:"sources"`
	Accelerators int `json:"accelerators"`
	NICs         int `json:"nics"`
	// Unidentified is how many functions the sources do not identify
	// (TopoDevice.Unidentified): accelerators, possibly, that
	// Accelerators does not count.
	Unidentified int    `json:"unidentified"`
	Alike        int    `json:"alike"`     // sources in the group's majority state
	Reference    string `json:"reference"` // the first source in the majority state
	Topology     *Topo  `json:"topology"`  // the majority state
	// ComparedWith is 1 for groups after the first: their Differences are
	// their majority's against the first group's. With a reference
	// (Result.Reference) it is 0 and every group's Differences are its
	// majority's against the reference, its variants' too.
	ComparedWith int          `json:"compared_with,omitempty"`
	Differences  []Difference `json:"differences,omitempty"`
	// SharedDevices is how many of its devices group 1 (or the reference)
	// has at the same place with the same model, for groups compared with
	// one: few means other hardware rather than a changed machine.
	SharedDevices int `json:"shared_devices,omitempty"`
	// Variants are the group's machines unlike its majority, one entry
	// per state, most sources first.
	Variants []Variant `json:"variants"`
}

// OtherHardware reports whether g, a group after the first, differs from
// the first group in most of its devices: other hardware rather than a
// changed machine, whose differences -o json lists rather than the text.
func (g *Group) OtherHardware(first *Group) bool {
	return len(g.Differences) > 0 && 2*g.SharedDevices < max(len(g.Topology.Devices), len(first.Topology.Devices))
}

// Variant is the machines of a group in one state other than the majority's.
type Variant struct {
	Sources     []string     `json:"sources"`
	Differences []Difference `json:"differences"`
}

// Error is a source that could not be read.
type Error struct {
	Source string `json:"source"`
	Error  string `json:"error"`
}

// Node is one source's place in the fleet: a line of -o jsonl.
type Node struct {
	SchemaVersion int    `json:"schema_version"` // so that each line stands alone
	Source        string `json:"source"`
	Group         int    `json:"group,omitempty"` // 0 when unreadable
	Alike         bool   `json:"alike"`           // in the majority state of group 1 (like the reference, with one), or unlike it by renumbered addresses only
	// Reference is the source the differences are against: the group's
	// first in its majority state, or group 1's for a group majority, or
	// the fleet's reference (fleet --reference).
	Reference   string       `json:"reference,omitempty"`
	Differences []Difference `json:"differences"`
	Error       string       `json:"error,omitempty"`
}

// variantPlace is where a variant sits in the result.
type variantPlace struct {
	group     int // index in Groups
	majority  bool
	reference int  // source index compared with, -1 none
	golden    bool // compared with the fleet's reference
	diffs     []Difference
}

// Result groups what was added; names are the sources, by index.
func (f *Fleet) Result(names []string) *Result {
	r := &Result{SchemaVersion: report.SchemaVersion, Sources: len(names), Unreadable: len(f.errs), names: names, nodes: f.nodes, errs: f.errs,
		Groups: []Group{}, Errors: []Error{}, Reference: f.refName}
	order := make([]int, len(f.shapeN))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		return cmp.Or(cmp.Compare(f.shapeN[b].count, f.shapeN[a].count), cmp.Compare(f.shapeN[a].first, f.shapeN[b].first))
	})
	groupOf := make([]int, len(f.shapeN))
	for gi, s := range order {
		groupOf[s] = gi
	}
	byGroup := make([][]int, len(order))
	for vi, v := range f.variants {
		byGroup[groupOf[v.shape]] = append(byGroup[groupOf[v.shape]], vi)
	}
	r.place = make([]variantPlace, len(f.variants))
	slot := make([]int, len(f.variants)) // variant -> index in its group's Variants
	for gi, vs := range byGroup {
		slices.SortFunc(vs, func(a, b int) int {
			va, vb := f.variants[a], f.variants[b]
			return cmp.Or(cmp.Compare(vb.count, va.count), cmp.Compare(va.first, vb.first))
		})
		maj := f.variants[vs[0]]
		g := Group{Group: gi + 1, Sources: f.shapeN[order[gi]].count, Alike: maj.count, Reference: names[maj.first],
			Topology: &maj.topo, Variants: []Variant{}}
		for _, d := range maj.topo.Devices {
			switch {
			case d.Unidentified:
				g.Unidentified++
			case d.Kind == "accelerator":
				g.Accelerators++
			case d.Kind == "nic":
				g.NICs++
			}
		}
		r.place[vs[0]] = variantPlace{group: gi, majority: true, reference: -1}
		against := &maj.topo // what the variants are compared with
		switch {
		case f.ref != nil:
			against = f.ref
			g.Differences = Compare(f.ref, &maj.topo)
			g.SharedDevices = sharedDevices(f.ref, &maj.topo)
			r.place[vs[0]].golden, r.place[vs[0]].diffs = true, g.Differences
			if !OnlyRenumbered(g.Differences) {
				r.Differing += maj.count
			}
		case gi > 0:
			first := f.variants[byGroup[0][0]]
			g.ComparedWith = 1
			g.Differences = Compare(&first.topo, &maj.topo)
			g.SharedDevices = sharedDevices(&first.topo, &maj.topo)
			r.place[vs[0]].reference = first.first
			r.place[vs[0]].diffs = g.Differences
			if !OnlyRenumbered(g.Differences) {
				r.Differing += maj.count
			}
		}
		for j, vi := range vs[1:] {
			v := f.variants[vi]
			diffs := Compare(against, &v.topo)
			r.place[vi] = variantPlace{group: gi, reference: maj.first, golden: f.ref != nil, diffs: diffs}
			slot[vi] = j
			g.Variants = append(g.Variants, Variant{Sources: []string{}, Differences: diffs})
			if !OnlyRenumbered(diffs) {
				r.Differing += v.count
			}
		}
		r.Groups = append(r.Groups, g)
	}
	for i, v := range f.nodes {
		if v < 0 || r.place[v].majority {
			continue
		}
		vs := &r.Groups[r.place[v].group].Variants[slot[v]]
		vs.Sources = append(vs.Sources, names[i])
	}
	for i := range names {
		if msg, ok := f.errs[i]; ok {
			r.Errors = append(r.Errors, Error{Source: names[i], Error: msg})
		}
	}
	return r
}

// Node is source i's line: its group and how it differs.
func (r *Result) Node(i int) Node {
	n := Node{SchemaVersion: report.SchemaVersion, Source: r.names[i], Differences: []Difference{}}
	if msg, ok := r.errs[i]; ok {
		n.Error = msg
		return n
	}
	v := r.nodes[i]
	if v < 0 {
		n.Error = "not analysed"
		return n
	}
	p := r.place[v]
	n.Group = p.group + 1
	n.Alike = p.group == 0 && (p.majority || OnlyRenumbered(p.diffs))
	if p.golden {
		n.Alike, n.Reference, n.Differences = OnlyRenumbered(p.diffs), r.Reference, p.diffs
		if n.Differences == nil {
			n.Differences = []Difference{}
		}
		return n
	}
	if p.reference >= 0 {
		n.Reference = r.names[p.reference]
		n.Differences = p.diffs
	}
	return n
}

// OnlyRenumbered reports whether ds are all renumbered addresses: the same
// devices at the same places, which no workload sees, so the machine
// counts as alike.
func OnlyRenumbered(ds []Difference) bool {
	for _, d := range ds {
		if !d.Renumbered {
			return false
		}
	}
	return true
}

// sharedDevices counts t's devices that ref has at the same place with
// the same kind and model.
func sharedDevices(ref, t *Topo) int {
	at := make(map[string]*TopoDevice, len(ref.Devices))
	for i := range ref.Devices {
		at[ref.Devices[i].Place] = &ref.Devices[i]
	}
	n := 0
	for _, d := range t.Devices {
		if r := at[d.Place]; r != nil && r.Kind == d.Kind && r.Model == d.Model {
			n++
		}
	}
	return n
}
