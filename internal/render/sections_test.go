package render

import (
	"bytes"
	"io"
	"testing"

	"github.com/gdtopo/gdtopo/internal/report"
	"github.com/gdtopo/gdtopo/internal/reporttest"
)

// TestCheckSections: a check of several sources written a source at a
// time is what Check writes for all of them at once, in table and
// markdown form: with sources that could not be read first, between, last
// or only (then nothing at all, as Check writes nothing a check's caller
// shows).
func TestCheckSections(t *testing.T) {
	read := func(name string) report.Result {
		return report.NewResult("fixtures/"+name, reporttest.Fixture(t, name), nil, 0)
	}
	failed := func(name string) report.Result {
		return report.NewResult(name, nil, io.ErrUnexpectedEOF, report.ExitError)
	}
	h100, vm, gb200 := read("hgx-h100"), read("recorded-vm"), read("gb200-tray")
	for _, tc := range []struct {
		name    string
		sources []report.Result
	}{
		{"all read", []report.Result{h100, vm, gb200}},
		{"failed first", []report.Result{failed("a.tar.gz"), failed("b.tar.gz"), h100, vm}},
		{"failed between and last", []report.Result{vm, failed("a.tar.gz"), gb200, failed("b.tar.gz")}},
		{"none read", []report.Result{failed("a.tar.gz"), failed("b.tar.gz")}},
	} {
		for _, f := range []Format{Table, Markdown} {
			var whole, bySource bytes.Buffer
			anyRead := false
			for _, r := range tc.sources {
				anyRead = anyRead || r.Report != nil
			}
			if anyRead { // as check does: no table when nothing could be read
				if err := Check(&whole, f, report.NewCheck("critical", tc.sources), Style{Width: 100}); err != nil {
					t.Fatal(err)
				}
			}
			s := NewCheckSections(&bySource, f, Style{Width: 100})
			for _, r := range tc.sources {
				if err := s.Write(r); err != nil {
					t.Fatal(err)
				}
			}
			if !bytes.Equal(whole.Bytes(), bySource.Bytes()) {
				t.Errorf("%s, %s: written by source:\n%s\nwant:\n%s", tc.name, f, bySource.String(), whole.String())
			}
		}
	}
}
