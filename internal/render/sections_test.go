package render

import (
	"bytes"
	"io"
	"testing"

	"github.com/gdtopo/gdtopo/internal/report"
	"github.com/gdtopo/gdtopo/internal/reporttest"
)

// TestCheckSections: a check of several sources written a source at a
// time is what Check writes for all of them at once, in table and markdown
// form, and the JSON document of one source or more is the document
// encoded whole (writeJSON): with sources that could not be read first,
// between, last or only (then nothing at all, as Check writes nothing a
// check's caller shows). The JSON document's sources are given encoded
// already (as check's workers encode them) or not.
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
		{"one read", []report.Result{vm}},
		{"one failed", []report.Result{failed("a.tar.gz")}},
	} {
		c := report.NewCheck("warning", tc.sources)
		anyRead := false
		for _, r := range tc.sources {
			anyRead = anyRead || r.Report != nil
		}
		for _, f := range []Format{Table, Markdown, JSON} {
			if f != JSON && len(tc.sources) < 2 {
				continue // check writes one source's table whole
			}
			var whole, bySource bytes.Buffer
			switch {
			case !anyRead: // as check does: no table when nothing could be read
			case f == JSON:
				if err := writeJSON(&whole, c); err != nil {
					t.Fatal(err)
				}
			default:
				if err := Check(&whole, f, c, Style{Width: 100}); err != nil {
					t.Fatal(err)
				}
			}
			if f == JSON {
				d := NewCheckDocument(&bySource, c.FailOn)
				for i, r := range tc.sources {
					var encoded []byte
					if i%2 == 0 {
						var err error
						if encoded, err = MarshalCheckSource(r); err != nil {
							t.Fatal(err)
						}
					}
					if err := d.Write(r, encoded); err != nil {
						t.Fatal(err)
					}
				}
				if err := d.Close(c.ExitStatus); err != nil {
					t.Fatal(err)
				}
			} else {
				s := NewCheckSections(&bySource, f, Style{Width: 100})
				for _, r := range tc.sources {
					if err := s.Write(r); err != nil {
						t.Fatal(err)
					}
				}
			}
			if !bytes.Equal(whole.Bytes(), bySource.Bytes()) {
				t.Errorf("%s, %s: written by source (%d bytes) differs from the whole (%d bytes):\n%.2000s", tc.name, f, bySource.Len(), whole.Len(), bySource.String())
			}
		}
	}
}
