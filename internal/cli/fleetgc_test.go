package cli

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// TestFleetGC: a fleet run collects at its memory limit with GOGC off, raises
// the limit for sources that hold more, and restores both settings after.
func TestFleetGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(123))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(1 << 40))
	g := startFleetGC(2)
	if pct := debug.SetGCPercent(-1); pct != -1 {
		t.Errorf("GOGC %d during the run; want off", pct)
	}
	if limit := debug.SetMemoryLimit(-1); limit != fleetMemoryBase+2*fleetMemoryPerWorker {
		t.Errorf("memory limit %d; want %d", limit, fleetMemoryBase+2*fleetMemoryPerWorker)
	}
	held := make([]byte, 64<<20) // a source that holds 64 MiB
	want := fleetMemoryBase + 2*int64(len(held))
	// The limit is adjusted after the collection, by a cleanup the runtime
	// runs on a goroutine of its own.
	limit := int64(0)
	for deadline := time.Now().Add(10 * time.Second); limit < want && time.Now().Before(deadline); {
		runtime.GC()
		time.Sleep(time.Millisecond)
		limit = debug.SetMemoryLimit(-1)
	}
	if limit < want {
		t.Errorf("memory limit %d with 64 MiB held; want at least %d", limit, want)
	}
	runtime.KeepAlive(held)
	g.stop()
	if g.adjust() {
		t.Error("adjust after stop reports true; want the cleanups to end")
	}
	if pct := debug.SetGCPercent(123); pct != 123 {
		t.Errorf("GOGC %d after the run; want 123 again", pct)
	}
	if limit := debug.SetMemoryLimit(-1); limit != 1<<40 {
		t.Errorf("memory limit %d after the run; want %d again", limit, int64(1<<40))
	}
}
