// Package reporttest builds reports of bundled fixtures for other
// packages' tests, as gdtopo check does.
package reporttest

import (
	"path/filepath"
	"testing"

	"github.com/gdtopo/gdtopo/advisor"
	"github.com/gdtopo/gdtopo/internal/report"
	"github.com/gdtopo/gdtopo/internal/source"
	"github.com/gdtopo/gdtopo/internal/sysfs"
)

// Fixture builds the report of fixtures/<name>.tar.gz, read from the test
// of a package two folders below the repository root (internal/<package>),
// with the advisor's default options and --fail-on critical.
func Fixture(t testing.TB, name string) *report.Report {
	t.Helper()
	src, err := source.Open(filepath.Join("..", "..", "fixtures", name+".tar.gz"))
	if err != nil {
		t.Fatal(err)
	}
	g, err := sysfs.Read(src.Root)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	pairs := g.Pairs()
	res, err := advisor.Analyze(g, pairs, advisor.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return report.Build(report.Input{Source: report.Source{Name: src.Name, Kind: string(src.Kind), Format: src.Format},
		Graph: g, Pairs: pairs, Advice: res, FailOn: "critical"})
}
