package fleet

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/gdtopo/gdtopo/advisor"
	"github.com/gdtopo/gdtopo/internal/report"
	"github.com/gdtopo/gdtopo/internal/source"
	"github.com/gdtopo/gdtopo/topology"
)

var (
	reportsMu sync.Mutex
	reports   = map[string]*report.Report{}
)

// fixture builds the report of fixtures/<name> as gdtopo check -o json does.
func fixture(t testing.TB, name string) *report.Report {
	t.Helper()
	reportsMu.Lock()
	defer reportsMu.Unlock()
	if r := reports[name]; r != nil {
		return r
	}
	src, err := source.Open("../../fixtures/" + name)
	if err != nil {
		t.Fatal(err)
	}
	g, err := topology.ReadSysfs(src.Root)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	pairs := g.Pairs()
	res, err := advisor.Analyze(g, pairs, advisor.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := report.Build(report.Input{Source: report.Source{Name: src.Name, Kind: string(src.Kind), Format: src.Format},
		Graph: g, Pairs: pairs, Advice: res, FailOn: "critical"})
	reports[name] = r
	return r
}

func TestWriteJSONL(t *testing.T) {
	var buf bytes.Buffer
	bw := bufio.NewWriter(&buf)
	in := []Line{
		{Source: "hosts/a.tar.gz", Report: fixture(t, "hgx-h100")},
		{Source: "hosts/b.tar.gz", Error: "hosts/b.tar.gz: not a sysfs tree or snapshot archive", ExitCode: 1},
		{Source: "hosts/c", Report: fixture(t, "sys-4029gp-v100"), ExitCode: 3},
	}
	for i, l := range in {
		if err := writeJSONL(bw, l); err != nil {
			t.Fatal(err)
		}
		// Flushed per line: the line is complete in buf before the next one.
		if n := strings.Count(buf.String(), "\n"); n != i+1 {
			t.Fatalf("after line %d: %d newlines in the output, want %d", i, n, i+1)
		}
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != len(in) {
		t.Fatalf("%d lines, want %d", len(lines), len(in))
	}
	for i, s := range lines {
		var got Line
		dec := json.NewDecoder(strings.NewReader(s))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&got); err != nil {
			t.Fatalf("line %d: %v", i, err)
		}
		want := in[i]
		if got.Source != want.Source || got.Error != want.Error || got.ExitCode != want.ExitCode {
			t.Errorf("line %d = {%q %q %d}, want {%q %q %d}", i, got.Source, got.Error, got.ExitCode, want.Source, want.Error, want.ExitCode)
		}
		if want.Error != "" {
			if got.Report != nil || strings.Contains(s, `"report"`) {
				t.Errorf("line %d: an error line has a report: %.200s", i, s)
			}
			continue
		}
		if got.Report == nil || len(got.Report.Pairs) != len(want.Report.Pairs) || got.Report.System.Hostname != want.Report.System.Hostname {
			t.Errorf("line %d: report does not round-trip", i)
		}
	}
}

// failWriter fails every write.
type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, io.ErrShortWrite }

func TestWriteJSONLError(t *testing.T) {
	if err := writeJSONL(failWriter{}, Line{Source: "x"}); err == nil {
		t.Fatal("no error from a failing writer")
	}
}

// writeJSONL writes l as a jsonl line, as check -o jsonl does.
func writeJSONL(w io.Writer, l Line) error {
	b, err := MarshalJSONL(l)
	if err != nil {
		return err
	}
	return WriteEncoded(w, b)
}

func BenchmarkJSONL(b *testing.B) {
	l := Line{Source: "hgx-h100.tar.gz", Report: fixture(b, "hgx-h100")}
	var n int64
	b.ReportAllocs()
	for b.Loop() {
		c := &countWriter{}
		if err := writeJSONL(c, l); err != nil {
			b.Fatal(err)
		}
		n = c.n
	}
	b.SetBytes(n)
}

type countWriter struct{ n int64 }

func (c *countWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }
