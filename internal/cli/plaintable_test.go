package cli

import (
	"io"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/gdtopo/gdtopo/fixtures"
	"github.com/gdtopo/gdtopo/fixtures/fixturetest"
	"github.com/gdtopo/gdtopo/internal/render"
	"github.com/gdtopo/gdtopo/internal/report"
)

// TestPlainTableReport checks that the report check's plain table builds
// (the storage pairs tallied, only the named devices kept) shows what the
// whole report shows there, on every fixture and on a generated tree of
// switches and drives.
func TestPlainTableReport(t *testing.T) {
	opts := &checkOptions{globalOptions: &globalOptions{IO: &Streams{Out: io.Discard, Err: os.Stderr}}}
	if !opts.plainTable(render.Table) || opts.plainTable(render.JSON) || opts.plainTable(render.Markdown) {
		t.Fatal("plainTable: the plain table is -o table")
	}
	for _, o := range []*checkOptions{{Verbose: true}, {Reference: "ref.tar.gz"}} {
		if o.plainTable(render.Table) {
			t.Fatalf("plainTable with -v %v, --reference %q: -v shows every pair and --reference compares every device", o.Verbose, o.Reference)
		}
	}
	for _, name := range append(fixturetest.Names(t), "scale") {
		src := fx(name)
		if name == "scale" {
			src = scaleArchive(t, 600)
		}
		a, err := opts.load(src, false)
		if err != nil {
			t.Fatal(err)
		}
		var views []*report.CheckView
		for _, plain := range []bool{false, true} {
			r, err := a.buildReport(&opts.adviceOptions, reportOptions{NoHops: true, PlainTable: plain})
			if err != nil {
				t.Fatal(err)
			}
			if plain && (len(r.StoragePairs) != 0 || len(r.Devices) > len(r.Accelerators)+len(r.NICs)+len(r.HiddenNICs)+len(r.SetAsideNICs)) {
				t.Errorf("%s: the plain table's report keeps %d storage pairs and %d devices", name, len(r.StoragePairs), len(r.Devices))
			}
			views = append(views, report.NewCheckView(r, report.CheckViewOptions{}))
		}
		if !reflect.DeepEqual(views[0], views[1]) {
			t.Errorf("%s: the plain table's report shows\n%+v\nthe whole report\n%+v", name, views[1], views[0])
		}
	}
}

// scaleArchive writes fixtures.Scale(functions, 2) as a snapshot archive
// and returns its path.
func scaleArchive(t *testing.T, functions int) string {
	t.Helper()
	name := filepath.Join(t.TempDir(), "scale.tar.gz")
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := fixtures.WriteArchive(f, fixtures.Scale(functions, 2)); err != nil {
		t.Fatal(err)
	}
	return name
}
