package cli

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// gcPercent is the current GOGC, read without changing it.
func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// TestCollectLate checks the binary's collection policy: none until the
// limit, then Go's default from the first collection on; and nothing
// changed when the environment sets GOGC or GOMEMLIMIT. It changes the
// process's collector settings, so it does not run in parallel, and puts
// them back.
func TestCollectLate(t *testing.T) {
	percent, limit := gcPercent(), debug.SetMemoryLimit(-1)
	t.Cleanup(func() {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	})
	debug.SetGCPercent(100)
	debug.SetMemoryLimit(math.MaxInt64)

	for _, env := range []string{"GOGC", "GOMEMLIMIT"} {
		collectLate(func(k string) string {
			if k == env {
				return "200"
			}
			return ""
		})
		if gcPercent() != 100 || debug.SetMemoryLimit(-1) != math.MaxInt64 {
			t.Fatalf("with %s set, collectLate changed the policy", env)
		}
	}

	collectLate(func(string) string { return "" })
	if p, l := gcPercent(), debug.SetMemoryLimit(-1); p != -1 || l != lateGCLimit {
		t.Fatalf("after collectLate: GOGC %d, memory limit %d; want -1 and %d", p, l, lateGCLimit)
	}
	deadline := time.Now().Add(10 * time.Second)
	for gcPercent() != 100 || debug.SetMemoryLimit(-1) != math.MaxInt64 {
		if time.Now().After(deadline) {
			t.Fatalf("after a collection: GOGC %d, memory limit %d; want Go's default back", gcPercent(), debug.SetMemoryLimit(-1))
		}
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
}
