package fleet

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// TestWriteFleetPrometheus parses fleet's metrics strictly and checks each
// node's figures, the worse differences by what included.
func TestWriteFleetPrometheus(t *testing.T) {
	ref := topoLiteral()
	odd := topoLiteral()
	odd.Devices[2].CurrentWidth = 8
	odd.Pairs[0].ExpectedGbps = 230.5
	f := NewFleet(4)
	for i, tp := range []*Topo{&ref, &odd, &ref} {
		f.Add(i, tp)
	}
	f.Fail(3, "no sys/ folder")
	r := f.Result([]string{"a", "b", "c", `bad "d"`})
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	var buf bytes.Buffer
	if err := WriteFleetPrometheus(&buf, r, now); err != nil {
		t.Fatal(err)
	}
	p := expfmt.NewTextParser(model.LegacyValidation)
	mfs, err := p.TextToMetricFamilies(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, buf.String())
	}
	got := map[string]float64{}
	for name, mf := range mfs {
		for _, m := range mf.GetMetric() {
			k := name
			for _, lp := range m.GetLabel() {
				k += " " + lp.GetName() + "=" + lp.GetValue()
			}
			got[k] = m.GetGauge().GetValue()
		}
	}
	want := map[string]float64{
		"gdtopo_fleet_up source=a":                                        1,
		`gdtopo_fleet_up source=bad "d"`:                                  0,
		"gdtopo_fleet_alike source=b":                                     0,
		"gdtopo_fleet_alike source=c":                                     1,
		"gdtopo_fleet_worse_differences source=b":                         2,
		"gdtopo_fleet_worse_differences_by_what source=b what=link":       1,
		"gdtopo_fleet_worse_differences_by_what source=b what=throughput": 1,
		"gdtopo_fleet_last_run_timestamp_seconds":                         float64(now.Unix()),
	}
	for k, v := range want {
		if g, ok := got[k]; !ok || g != v {
			t.Errorf("%s = %g (present %v), want %g", k, g, ok, v)
		}
	}
	for k := range got {
		if strings.HasPrefix(k, "gdtopo_fleet_worse_differences_by_what ") {
			if _, ok := want[k]; !ok {
				t.Errorf("unexpected %s = %g: only the odd node's worse kinds, non-zero", k, got[k])
			}
		}
	}
}
