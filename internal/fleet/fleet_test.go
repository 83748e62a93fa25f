package fleet

import (
	"sync"
	"testing"

	"github.com/gdtopo/gdtopo/internal/report"
	"github.com/gdtopo/gdtopo/internal/reporttest"
)

var (
	reportsMu sync.Mutex
	reports   = map[string]*report.Report{}
)

// fixture builds the report of fixtures/<name> as gdtopo check -o json
// does, once per fixture.
func fixture(t testing.TB, name string) *report.Report {
	t.Helper()
	reportsMu.Lock()
	defer reportsMu.Unlock()
	if r := reports[name]; r != nil {
		return r
	}
	r := reporttest.Fixture(t, name)
	reports[name] = r
	return r
}
