package fleet

import (
	"bytes"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/gdtopo/gdtopo/internal/report"
)

// checkGolden is fixtures/hgx-h100's check -o json as gdtopo writes it (the
// golden internal/cli's TestGolden keeps): what a node's report is.
const checkGolden = "../cli/testdata/hgx-h100/check.json"

// reportDocs is fixtures/hgx-h100's report as a node writes it: check -o
// json's document (indented, with the pairs' hops) and a line of check -o
// jsonl (compact, without hops), with the report encoding/json decodes.
func reportDocs(t testing.TB) (map[string][]byte, *report.Report) {
	indented, err := os.ReadFile(checkGolden)
	if err != nil {
		t.Fatal(err)
	}
	var doc report.Check
	if err := json.Unmarshal(indented, &doc); err != nil || len(doc.Sources) != 1 || doc.Sources[0].Report == nil {
		t.Fatalf("%s: %v", checkGolden, err)
	}
	res := doc.Sources[0]
	lean := *res.Report // -o jsonl gives no pair's hops
	lean.Pairs = slices.Clone(lean.Pairs)
	for i := range lean.Pairs {
		lean.Pairs[i].Hops = []report.Hop{}
	}
	res.Report = &lean
	var line bytes.Buffer
	enc := json.NewEncoder(&line)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(res); err != nil {
		t.Fatal(err)
	}
	return map[string][]byte{"json": indented, "jsonl": line.Bytes()}, doc.Sources[0].Report
}

// TestReadReports: what the scanner decodes of a report gives the Topo the
// report encoding/json decodes gives, in each form; a string with escapes is read as
// encoding/json reads it; broken JSON is an error, not a machine.
func TestReadReports(t *testing.T) {
	docs, r := reportDocs(t)
	want := TopoFromReport(r)
	for form, data := range docs {
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
	lines := strings.Repeat(string(docs["jsonl"]), 3)
	var sources []string
	if err := ReadReports([]byte(lines), func(res ReportResult) { sources = append(sources, res.Source) }); err != nil || !slices.Equal(sources, []string{"../../fixtures/hgx-h100.tar.gz", "../../fixtures/hgx-h100.tar.gz", "../../fixtures/hgx-h100.tar.gz"}) {
		t.Errorf("three lines: %q, %v", sources, err)
	}
}

// BenchmarkReports measures what fleet does with a node's own report of
// fixtures/hgx-h100 (8 GPUs, 8 NICs; reportDocs) on one CPU: scanning it, making its
// Topo and adding it to a fleet. reports/s is per CPU-second; the fleet
// keeps one state, so memory stays flat however many are added.
func BenchmarkReports(b *testing.B) {
	for _, form := range []string{"json", "jsonl"} {
		docs, _ := reportDocs(b)
		data := docs[form]
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

// TestSkip: skip steps over exactly one value, eight bytes a step or one,
// wherever the value's quotes, escapes and brackets fall in a word: a
// bracket or an escaped quote inside a string is text, an escaped
// backslash ends its escape. Each value is tried at every offset in a
// word, and cut short, which is an error.
func TestSkip(t *testing.T) {
	values := []string{
		`{}`, `[]`, `[1,2,3]`, `{"a":{"b":[{"c":"d"}]}}`,
		`["]"]`, `["}}}}}}}}}}"]`, `{"k":"[[[[[[[[[["}`, `["\"]"]`, `["\\"]`, `["\\\\\\\"]]]]]]"]`,
		`["a\"b\\","c"]`, `{"x\\":"\\\\","y":"\u00e9–"}`,
		"[\n        {\n          \"from\": \"0000:1a:00.0\",\n          \"gbps\": 460.9\n        }\n      ]",
		`{"` + strings.Repeat("Y_y{", 9) + `":[` + strings.Repeat(`"\\",`, 5) + `"]"]}`,
	}
	for _, v := range values {
		if !json.Valid([]byte(v)) {
			t.Fatalf("not JSON: %s", v)
		}
		for pad := range 10 {
			doc := strings.Repeat(" ", pad) + v + `,"after":1}`
			s := &scanner{b: []byte(doc), rep: &report.Report{}}
			s.skip()
			if s.err != nil || doc[s.i:] != `,"after":1}` {
				t.Errorf("%s at offset %d: stopped at %d (%q), %v", v, pad, s.i, doc[min(s.i, len(doc)):], s.err)
			}
			cut := strings.Repeat(" ", pad) + v[:len(v)-1]
			s = &scanner{b: []byte(cut), rep: &report.Report{}}
			if s.skip(); s.err == nil {
				t.Errorf("%q cut short: no error", cut)
			}
		}
	}
}
