package report

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/gdtopo/gdtopo/advisor"
	"github.com/gdtopo/gdtopo/fixtures"
	"github.com/gdtopo/gdtopo/internal/source"
	"github.com/gdtopo/gdtopo/internal/sysfs"
)

// BenchmarkAnalysis measures what check does after reading a source: label
// the pairs (Graph.Pairs), run the advisor (predictions, storage pairs,
// findings, plan) and build the report, on bundled fixtures and on the
// generated 10,000-function tree. Reading is outside the timed loop.
//
//	go test -run '^$' -bench BenchmarkAnalysis -benchmem ./internal/report/
func BenchmarkAnalysis(b *testing.B) {
	dirs := map[string]string{}
	for _, name := range []string{"dgx-a100", "hgx-b200", "gds-storage"} {
		dirs[name] = filepath.Join("..", "..", "fixtures", name+".tar.gz")
	}
	for _, name := range []string{"dgx-a100", "hgx-b200", "gds-storage", "scale-10000"} {
		b.Run(name, func(b *testing.B) {
			dir := dirs[name]
			switch {
			case dir != "":
				if _, err := os.Stat(dir); err != nil {
					b.Skip(err)
				}
			case os.Getenv("GDTOPO_SCALE_TREE") != "": // a tree go run ./fixtures/gen -scale 10000 wrote
				dir = os.Getenv("GDTOPO_SCALE_TREE")
			case testing.Short():
				b.Skip("10,000-function tree skipped with -short")
			default:
				var buf bytes.Buffer
				if err := fixtures.WriteArchive(&buf, fixtures.Scale(10000, 2)); err != nil {
					b.Fatal(err)
				}
				dir = filepath.Join(b.TempDir(), "m.tar.gz")
				if err := os.WriteFile(dir, buf.Bytes(), 0o644); err != nil {
					b.Fatal(err)
				}
			}
			src, err := source.Open(dir)
			if err != nil {
				b.Fatal(err)
			}
			g, err := sysfs.Read(src.Root)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				pairs := g.Pairs()
				res, err := advisor.Analyze(g, pairs, advisor.Options{SkipExplain: true})
				if err != nil {
					b.Fatal(err)
				}
				Build(Input{Source: Source{Name: name}, Graph: g, Pairs: pairs, Advice: res, FailOn: "critical"})
			}
		})
	}
}
