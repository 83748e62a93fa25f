package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/metrics"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkFleet measures `gdtopo check 'DIR/*.tar.gz' -o jsonl` over
// snapshots of a small VM and of an 8-GPU HGX server, for two fleet sizes:
// snapshots a second (all CPUs, one invocation), and the peak of live heap
// objects, which must not grow with the number of sources.
func BenchmarkFleet(b *testing.B) {
	for _, fixture := range []string{"recorded-vm", "hgx-h100"} {
		snap := filepath.Join(b.TempDir(), "snap.tar.gz")
		if code, _, errb := run("snapshot", fx(fixture), "--output-file", snap); code != ExitOK {
			b.Fatalf("snapshot %s: exit %d: %s", fixture, code, errb)
		}
		data, err := os.ReadFile(snap)
		if err != nil {
			b.Fatal(err)
		}
		for _, n := range []int{100, 400} {
			dir := b.TempDir()
			for i := range n {
				if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("node%04d.tar.gz", i)), data, 0o644); err != nil {
					b.Fatal(err)
				}
			}
			args := []string{"check", filepath.Join(dir, "*.tar.gz"), "-o", "jsonl"}
			b.Run(fmt.Sprintf("%s/sources=%d", fixture, n), func(b *testing.B) {
				stop := samplePeakHeap()
				start := time.Now()
				for b.Loop() {
					if code := Main(args, nil, io.Discard, io.Discard); code != ExitOK {
						b.Fatalf("exit %d", code)
					}
				}
				elapsed := time.Since(start)
				b.ReportMetric(float64(n*b.N)/elapsed.Seconds(), "snapshots/s")
				b.ReportMetric(float64(stop())/(1<<20), "peak-heap-MB")
			})
		}
	}
}

// samplePeakHeap samples the bytes of live and not yet swept heap objects
// every 200 µs until the returned function is called; that function returns
// the largest sample.
func samplePeakHeap() func() uint64 {
	var peak atomic.Uint64
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		t := time.NewTicker(200 * time.Microsecond)
		defer t.Stop()
		for {
			metrics.Read(s)
			if v := s[0].Value.Uint64(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() uint64 {
		close(done)
		<-finished
		return peak.Load()
	}
}

// BenchmarkFleetDiff measures `gdtopo fleet 'DIR/*.tar.gz'` over 200
// snapshots of fixtures/hgx-h100 (8 GPUs, 8 NICs): snapshots a second and
// the peak of live heap objects.
func BenchmarkFleetDiff(b *testing.B) {
	const n = 200
	snap := filepath.Join(b.TempDir(), "snap.tar.gz")
	if code, _, errb := run("snapshot", fx("hgx-h100"), "--output-file", snap); code != ExitOK {
		b.Fatalf("snapshot: exit %d: %s", code, errb)
	}
	data, err := os.ReadFile(snap)
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	for i := range n {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("node%04d.tar.gz", i)), data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	args := []string{"fleet", filepath.Join(dir, "*.tar.gz")}
	stop := samplePeakHeap()
	start := time.Now()
	for b.Loop() {
		if code := Main(args, nil, io.Discard, io.Discard); code != ExitOK {
			b.Fatalf("exit %d", code)
		}
	}
	b.ReportMetric(float64(n*b.N)/time.Since(start).Seconds(), "snapshots/s")
	b.ReportMetric(float64(stop())/(1<<20), "peak-heap-MB")
}
