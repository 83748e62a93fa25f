package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
)

// fleetResult is gdtopo fleet over n snapshots (or nodes' reports), and
// over small (n/10) for the memory comparison.
type fleetResult struct {
	reports       bool // the sources are check -o jsonl files, not snapshots
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
	return measureFleetOf(o, t, tmp, false)
}

// measureFleetOf is measureFleet over o.Reports files of the snapshot's
// check -o jsonl report where reports is set: what a central run over
// the reports nodes wrote themselves costs.
func measureFleetOf(o options, t tools, tmp string, reports bool) (fleetResult, error) {
	n, kind, ext := o.Fleet, "snapshots", ".tar.gz"
	if reports {
		n, kind, ext = o.Reports, "reports", ".jsonl"
	}
	r := fleetResult{reports: reports, n: n, small: max(1, n/10)}
	dir := filepath.Join(tmp, "fleet-"+kind)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return r, err
	}
	base := filepath.Join(dir, "base.tar.gz")
	snap := command{path: t.gdtopo, args: []string{"snapshot", filepath.Join(o.Root, "fixtures", fleetFixture+".tar.gz"), "--output-file", base}, ok: []int{0}}
	if _, err := snap.run(); err != nil {
		return r, err
	}
	if reports {
		out, err := exec.Command(t.gdtopo, "check", base, "-o", "jsonl", "--fail-on", "never").Output()
		if err != nil {
			return r, fmt.Errorf("check -o jsonl %s: %w", base, err)
		}
		base = filepath.Join(dir, "base.jsonl")
		if err := os.WriteFile(base, out, 0o644); err != nil {
			return r, err
		}
	}
	st, err := os.Stat(base)
	if err != nil {
		return r, err
	}
	r.snapshotBytes = st.Size()
	big, err := copies(base, filepath.Join(dir, "n"), r.n, ext)
	if err != nil {
		return r, err
	}
	small, err := copies(base, filepath.Join(dir, "small"), r.small, ext)
	if err != nil {
		return r, err
	}
	bigCmd := command{path: t.gdtopo, args: []string{"fleet", big}, ok: []int{0, 3}}
	smallCmd := command{path: t.gdtopo, args: []string{"fleet", small}, ok: []int{0, 3}}
	o.logf("fleet: %d and %d %s of fixtures/%s", r.n, r.small, kind, fleetFixture)
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
	o.logf("fleet: %.0f %s/s, peak RSS %s (%s at %d)", r.rate.med, kind, r.rss, r.smallRSS, r.small)
	return r, nil
}

// copies puts n hard links to base into dir, named node-N.ext, and
// returns the glob that names them. Where linking fails (a file system
// allows some 65,000 links to a file) it copies base and links to the
// copy from then on.
func copies(base, dir string, n int, ext string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	for i := range n {
		p := filepath.Join(dir, fmt.Sprintf("node-%06d%s", i+1, ext))
		if err := os.Link(base, p); err != nil {
			if err := copyFile(base, p); err != nil {
				return "", err
			}
			base = p
		}
	}
	return filepath.Join(dir, "*"+ext), nil
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
