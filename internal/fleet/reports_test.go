package fleet

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/gdtopo/gdtopo/internal/report"
)

// reportDocs is fixtures/hgx-h100's report as a node writes it: check -o
// json's document (indented) and a line of check -o jsonl (compact).
func reportDocs(t testing.TB) map[string][]byte {
	r := fixture(t, "hgx-h100")
	doc := map[string]any{"schema_version": 2, "fail_on": "critical", "exit_status": 0,
		"sources": []any{map[string]any{"schema_version": 2, "source": "/", "exit_status": 0, "error": "", "report": r}}}
	indented, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	lean := *r // -o jsonl gives no pair's hops
	lean.Pairs = slices.Clone(r.Pairs)
	for i := range lean.Pairs {
		lean.Pairs[i].Hops = []report.Hop{}
	}
	line, err := json.Marshal(map[string]any{"schema_version": 2, "source": "/", "exit_status": 0, "error": "", "report": &lean})
	if err != nil {
		t.Fatal(err)
	}
	return map[string][]byte{"json": indented, "jsonl": append(line, '\n')}
}

// TestReadReports: what the scanner decodes of a report gives the Topo the
// report itself gives, in each form; a string with escapes is read as
// encoding/json reads it; broken JSON is an error, not a machine.
func TestReadReports(t *testing.T) {
	r := fixture(t, "hgx-h100")
	want := TopoFromReport(r)
	for form, data := range reportDocs(t) {
		var got []Topo
		if err := ReadReports(data, func(res ReportResult) {
			if res.Report == nil {
				t.Fatalf("%s: no report: %+v", form, res)
			}
			got = append(got, TopoFromReport(res.Report))
		}); err != nil {
			t.Fatalf("%s: %v", form, err)
		}
		if len(got) != 1 || got[0].key() != want.key() {
			t.Errorf("%s: %d machines; the Topo differs: %q", form, len(got), whats(Compare(&want, &got[0])))
		}
	}
	var name string
	if err := ReadReports([]byte(`{"source":{"name":"a\"b\\\\c\u00e9"},"devices":[]}`), func(res ReportResult) { name = res.Source }); err != nil || name != "a\"b\\\\cé" {
		t.Errorf("escaped name %q, %v", name, err)
	}
	for _, bad := range []string{`{"devices":[`, `{"devices":[{"bdf":"0000:00:00.0"}]`, `{"x":1}`, `{"report":{"devices":[{"numa_node":"x"}]}}`, ``} {
		n := 0
		if err := ReadReports([]byte(bad), func(ReportResult) { n++ }); err == nil || n != 0 {
			t.Errorf("%q: %d machines, error %v", bad, n, err)
		}
	}
	// Several values, one per line: each a machine, in order.
	lines := strings.Repeat(string(reportDocs(t)["jsonl"]), 3)
	var sources []string
	if err := ReadReports([]byte(lines), func(res ReportResult) { sources = append(sources, res.Source) }); err != nil || !slices.Equal(sources, []string{"/", "/", "/"}) {
		t.Errorf("three lines: %q, %v", sources, err)
	}
}

// BenchmarkReports measures what fleet does with a node's own report of
// fixtures/hgx-h100 (8 GPUs, 8 NICs) on one CPU: scanning it, making its
// Topo and adding it to a fleet. reports/s is per CPU-second; the fleet
// keeps one state, so memory stays flat however many are added.
func BenchmarkReports(b *testing.B) {
	for _, form := range []string{"json", "jsonl"} {
		data := reportDocs(b)[form]
		b.Run(form, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			f := NewFleet(0)
			var rr ReportReader
			i := 0
			for b.Loop() {
				if err := rr.Read(data, func(res ReportResult) {
					t := TopoFromReport(res.Report)
					f.Add(i, &t)
					i++
				}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "reports/s")
		})
	}
}
