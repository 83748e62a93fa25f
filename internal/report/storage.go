package report

import (
	"slices"

	"github.com/gdtopo/gdtopo/advisor"
	"github.com/gdtopo/gdtopo/topology"
)

// storageRow is one accelerator's GPUDirect Storage view for a table: how
// many NVMe drives sit in its switch, behind the root complex and on
// another NUMA node, and the nearest ones.
type storageRow struct {
	Accelerator, Alias         string
	InSwitch, RootComplex, Far int
	Unknown                    int // drives whose route the source cannot tell
	// Unplaced counts the Unknown drives whose label is unknown too: only
	// they may sit in the switch (a guessed NODE meets across host bridges).
	Unplaced                   int
	NearestLabel, NearestRoute string
	NearestUncertain           bool     // NearestLabel is a guess
	Nearest                    []string // BDFs of the nearest drives
	BottleneckGbps             float64  // of the first nearest drive's path
}

// storageRows groups r.StoragePairs by accelerator, in their order, or
// returns the rows Build tallied in their place (Input.StorageTally).
func storageRows(r *Report) []storageRow {
	var out []storageRow
	if r.storageTallied {
		out = slices.Clone(r.storage)
	} else {
		var t StorageTally
		for _, s := range r.StoragePairs {
			t.add(s)
		}
		out = t.rows
	}
	if len(out) == 0 {
		return out
	}
	aliases := map[string]string{} // only the few aliased among thousands of devices
	for _, d := range r.Devices {
		if d.Alias != "" {
			aliases[d.BDF] = d.Alias
		} else {
			delete(aliases, d.BDF) // a later device of the same BDF, as before
		}
	}
	for i := range out {
		out[i].Alias = aliases[out[i].Accelerator]
	}
	return out
}

// StorageTally groups the advisor's storage predictions by accelerator,
// one at a time, so that the pairs themselves need not be kept
// (Input.StorageTally). The zero value is empty.
type StorageTally struct {
	rows  []storageRow // without their aliases
	index map[string]int
}

// Add counts one prediction in its accelerator's row.
func (t *StorageTally) Add(sp advisor.StoragePrediction) { t.add(storagePair(sp)) }

// add counts one pair in its accelerator's row.
func (t *StorageTally) add(s StoragePair) {
	i, ok := t.index[s.Accelerator]
	if !ok {
		if t.index == nil {
			t.index = map[string]int{}
		}
		i = len(t.rows)
		t.index[s.Accelerator] = i
		t.rows = append(t.rows, storageRow{Accelerator: s.Accelerator})
	}
	row := &t.rows[i]
	switch s.Route {
	case advisor.RouteSwitch:
		row.InSwitch++
	case advisor.RouteRootComplex:
		row.RootComplex++
	case advisor.RouteUnknown:
		row.Unknown++
		if s.SMI == string(topology.Unknown) {
			row.Unplaced++
		}
	default:
		row.Far++
	}
	// The nearest drives are those of the best label, a known label
	// before the same label guessed.
	l, r := topology.Label(s.SMI), topology.Label(row.NearestLabel).Rank()
	switch {
	case row.NearestLabel == "" || l.Rank() < r || l.Rank() == r && row.NearestUncertain && !s.LabelUncertain:
		row.NearestLabel, row.NearestRoute, row.NearestUncertain, row.Nearest, row.BottleneckGbps = s.SMI, s.Route, s.LabelUncertain, []string{s.NVMe}, s.BottleneckGbps
	case s.SMI == row.NearestLabel && s.LabelUncertain == row.NearestUncertain:
		row.Nearest = append(row.Nearest, s.NVMe)
	}
}

// NoRDMAOnly reports whether the NIC was set aside only for having no
// RDMA device (what the hidden-NICs line already says).
func (s SetAsideNIC) NoRDMAOnly() bool { return s.Reason == advisor.ReasonNoRDMA }
