package render

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/gdtopo/gdtopo/internal/report"
	"github.com/gdtopo/gdtopo/internal/reporttest"
)

// TestJSONLine: each line is one compact object, flushed as it is written,
// and round-trips; an error line has "report": null.
func TestJSONLine(t *testing.T) {
	var buf bytes.Buffer
	bw := bufio.NewWriter(&buf)
	in := []report.Result{
		report.NewResult("hosts/a.tar.gz", &report.Report{Source: report.Source{Name: "hosts/a.tar.gz"}, ExitStatus: 3}, nil, 0),
		report.NewResult("hosts/b.tar.gz", nil, io.ErrUnexpectedEOF, report.ExitError),
	}
	for i, r := range in {
		if err := JSONLine(bw, r); err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(buf.String(), "\n"); n != i+1 {
			t.Fatalf("after line %d: %d newlines, want %d (flushed per line)", i, n, i+1)
		}
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	for i, l := range lines {
		var got report.Result
		dec := json.NewDecoder(strings.NewReader(l))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&got); err != nil {
			t.Fatalf("line %d: %v", i, err)
		}
		if got.Source != in[i].Source || got.ExitStatus != in[i].ExitStatus || got.Error != in[i].Error || (got.Report == nil) != (in[i].Report == nil) {
			t.Errorf("line %d = %+v, want %+v", i, got, in[i])
		}
	}
	if !strings.Contains(lines[1], `"report":null`) || lines[0][0] != '{' || strings.Contains(lines[0], "\n") {
		t.Errorf("lines %q", lines)
	}
	if got := in[0].ExitStatus; got != report.ExitFindings {
		t.Errorf("a result's exit status is its report's: %d", got)
	}
}

// TestCheckJSONBySource: the document of a check over several sources,
// written a source at a time, is byte for byte the document encoded whole:
// reports of real fixtures (with characters encoding/json escapes for
// HTML), a source that failed, and one source alone.
func TestCheckJSONBySource(t *testing.T) {
	var results []report.Result
	for _, name := range []string{"hgx-h100", "recorded-vm", "gb200-tray"} {
		results = append(results, report.NewResult("fixtures/"+name, reporttest.Fixture(t, name), nil, 0))
	}
	results = append(results, report.NewResult("hosts/<b&c>.tar.gz", nil, io.ErrUnexpectedEOF, report.ExitError))
	for _, n := range []int{0, 1, 2, len(results)} {
		c := report.NewCheck("critical", results[:n])
		var whole, bySource bytes.Buffer
		if err := writeJSON(&whole, c); err != nil {
			t.Fatal(err)
		}
		if err := Check(&bySource, JSON, c); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(whole.Bytes(), bySource.Bytes()) {
			t.Errorf("%d sources: written by source (%d bytes) differs from the document encoded whole (%d bytes)", n, bySource.Len(), whole.Len())
		}
		if n == len(results) && !strings.Contains(bySource.String(), `"hosts/<b&c>.tar.gz"`) {
			t.Error("the failed source's name is missing or escaped for HTML")
		}
	}
}
