package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// fleetResult is gdtopo fleet over n snapshots, and over small (n/10) for
// the memory comparison.
type fleetResult struct {
	n, small      int
	snapshotBytes int64
	rate          stat    // snapshots per second
	cpu           float64 // median CPU seconds of the n-snapshot run
	rss, smallRSS peak    // peak resident set of the n and the small runs
}

// measureFleet takes a snapshot of the fleet fixture, links it n and n/10
// times into two folders and runs `gdtopo fleet 'DIR/*.tar.gz'` on each,
// alternately: one untimed run each, then o.FleetRuns timed ones.
func measureFleet(o options, t tools, tmp string) (fleetResult, error) {
	r := fleetResult{n: o.Fleet, small: max(1, o.Fleet/10)}
	dir := filepath.Join(tmp, "fleet")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return r, err
	}
	base := filepath.Join(dir, "base.tar.gz")
	snap := command{path: t.gdtopo, args: []string{"snapshot", filepath.Join(o.Root, "fixtures", fleetFixture+".tar.gz"), "--output-file", base}, ok: []int{0}}
	if _, err := snap.run(); err != nil {
		return r, err
	}
	st, err := os.Stat(base)
	if err != nil {
		return r, err
	}
	r.snapshotBytes = st.Size()
	big, err := copies(base, filepath.Join(dir, "n"), r.n)
	if err != nil {
		return r, err
	}
	small, err := copies(base, filepath.Join(dir, "small"), r.small)
	if err != nil {
		return r, err
	}
	bigCmd := command{path: t.gdtopo, args: []string{"fleet", big}, ok: []int{0, 3}}
	smallCmd := command{path: t.gdtopo, args: []string{"fleet", small}, ok: []int{0, 3}}
	o.logf("fleet: %d and %d snapshots of fixtures/%s", r.n, r.small, fleetFixture)
	p, err := pair(bigCmd, smallCmd, 1, o.FleetRuns)
	if err != nil {
		return r, err
	}
	rates := make([]float64, len(p.a))
	for i, s := range p.a {
		rates[i] = float64(r.n) / s.wall.Seconds()
	}
	r.rate = statOf(rates)
	r.cpu = median(cpus(p.a))
	r.rss, r.smallRSS = peakRSS(p.a), peakRSS(p.b)
	o.logf("fleet: %.0f snapshots/s, peak RSS %s (%s at %d)", r.rate.med, r.rss, r.smallRSS, r.small)
	return r, nil
}

// copies puts n hard links to (or, where linking fails, copies of) base
// into dir, and returns the glob that names them.
func copies(base, dir string, n int) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	for i := range n {
		p := filepath.Join(dir, fmt.Sprintf("node-%05d.tar.gz", i+1))
		if err := os.Link(base, p); err != nil {
			if err := copyFile(base, p); err != nil {
				return "", err
			}
		}
	}
	return filepath.Join(dir, "*.tar.gz"), nil
}

func copyFile(from, to string) error {
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.Create(to)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return err
	}
	return dst.Close()
}
