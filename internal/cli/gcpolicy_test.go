package cli

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
	"time"

	"github.com/gdtopo/gdtopo/internal/source"
)

// gcPercent is the current GOGC, read without changing it.
func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// TestCollectLate checks the binary's collection policy: none until the
// limit, then Go's default from the first collection on (a run of one
// source: largeSourceGCPercent); and nothing changed when the environment
// sets GOGC or GOMEMLIMIT. It changes the process's collector settings, so
// it does not run in parallel, and puts them back.
func TestCollectLate(t *testing.T) {
	defaultGCSettings(t)

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

	for _, one := range []bool{false, true} {
		want := 100
		policy := collectLate(func(string) string { return "" })
		if one {
			want = largeSourceGCPercent
			policy.oneSource()
		}
		if p, l := gcPercent(), debug.SetMemoryLimit(-1); p != -1 || l != lateGCLimit {
			t.Fatalf("after collectLate: GOGC %d, memory limit %d; want -1 and %d", p, l, lateGCLimit)
		}
		collectUntil(t, want)
	}
}

// defaultGCSettings sets Go's default collector settings (GOGC 100, no
// memory limit) for a test, and puts the process's back when it ends.
func defaultGCSettings(t *testing.T) {
	percent, limit := gcPercent(), debug.SetMemoryLimit(-1)
	t.Cleanup(func() {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	})
	debug.SetGCPercent(100)
	debug.SetMemoryLimit(math.MaxInt64)
}

// collectUntil collects until the policy's cleanup has set GOGC want and
// lifted the memory limit, and fails after a thousand collections.
func collectUntil(t *testing.T, want int) {
	t.Helper()
	for range 1000 {
		if gcPercent() == want && debug.SetMemoryLimit(-1) == math.MaxInt64 {
			return
		}
		runtime.GC()
		time.Sleep(time.Millisecond) // the cleanup runs on a goroutine of its own
	}
	t.Fatalf("after a thousand collections: GOGC %d, memory limit %d; want %d and none", gcPercent(), debug.SetMemoryLimit(-1), want)
}

// TestCollectAfterReading checks that a command reading one source, told
// to (a Streams with the collector policy MainTerminal sets), collects
// between reading the source and analysing it once the process has
// collected before, and that a fleet's worker (an Opener of its own) does
// not.
func TestCollectAfterReading(t *testing.T) {
	o := &globalOptions{IO: &Streams{gc: &gcPolicy{}}}
	o.resolver()
	runtime.GC() // the process has collected: as a run whose reading passed lateGCLimit
	// No collection but the one asked for: the collector off, as it is
	// while a run of the binary reads (collectLate).
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	for _, worker := range []bool{false, true} {
		var op *source.Opener
		if worker {
			op = &source.Opener{}
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if _, err := o.loadWith(op, fx("hgx-h100"), false); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		if collected := after.NumGC > before.NumGC; collected == worker {
			t.Errorf("fleet worker %v: collected %v after reading, want %v", worker, collected, !worker)
		}
	}
}

// TestManySources checks that a run over many sources collects at
// manySourcesGCPercent from the first collection on, whether it says so
// before that collection or after, and that the environment's policy (a
// nil gcPolicy) stays whatever the run says.
func TestManySources(t *testing.T) {
	defaultGCSettings(t)
	(*gcPolicy)(nil).manySources()
	(*gcPolicy)(nil).oneSource()
	if gcPercent() != 100 {
		t.Fatalf("a nil policy's manySources or oneSource set GOGC %d", gcPercent())
	}
	before := collectLate(func(string) string { return "" })
	before.manySources()
	if p := gcPercent(); p != -1 {
		t.Fatalf("manySources before the first collection set GOGC %d; want the late policy's -1 until it", p)
	}
	collectUntil(t, manySourcesGCPercent)

	after := collectLate(func(string) string { return "" })
	collectUntil(t, 100)
	after.manySources()
	if p := gcPercent(); p != manySourcesGCPercent {
		t.Fatalf("manySources after the first collection: GOGC %d, want %d", p, manySourcesGCPercent)
	}
}
