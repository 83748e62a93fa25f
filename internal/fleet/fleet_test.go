package fleet

import (
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
