package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// command is one process to time: a resolved binary, its arguments and the
// exit statuses that count as success (gdtopo exits 3 on findings).
type command struct {
	path string
	args []string
	ok   []int
}

// sample is one run of a command.
type sample struct {
	wall time.Duration // from just before the start to just after wait returns
	cpu  time.Duration // user plus system time of the process
	rss  int64         // peak resident set, bytes
	// floor is this program's own peak resident set when it started the
	// process. Linux starts a child's peak at its parent's (the child
	// shares the parent's memory until exec), so an rss at or below floor
	// says only that the process's own peak was no larger.
	floor int64
}

// run starts the command with standard input, output and error on the null
// device, waits for it and returns what it cost.
func (c command) run() (sample, error) {
	floor := resetPeakRSS()
	cmd := exec.Command(c.path, c.args...)
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) || !slices.Contains(c.ok, exit.ExitCode()) {
			return sample{}, c.failure(err)
		}
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return sample{}, fmt.Errorf("%s: no resource usage from wait", c)
	}
	return sample{
		wall:  wall,
		cpu:   time.Duration(ru.Utime.Nano() + ru.Stime.Nano()),
		rss:   ru.Maxrss * 1024, // Linux reports kilobytes
		floor: floor,
	}, nil
}

// resetPeakRSS returns this program's memory to the system, resets its
// peak resident set to the current one (proc(5), clear_refs "5") and
// returns that peak in bytes (VmHWM), or 0 where /proc cannot tell.
func resetPeakRSS() int64 {
	debug.FreeOSMemory()
	_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				return 0
			}
			return kb * 1024
		}
	}
	return 0
}

// failure runs a failed command again with its error output kept, and
// names the command, the error and the first line it wrote.
func (c command) failure(err error) error {
	out, _ := exec.Command(c.path, c.args...).CombinedOutput()
	first, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	if first != "" {
		return fmt.Errorf("%s: %w: %s", filepath.Base(c.path), err, first)
	}
	return fmt.Errorf("%s: %w", filepath.Base(c.path), err)
}

func (c command) String() string {
	return strings.Join(append([]string{c.path}, c.args...), " ")
}

// paired holds the timed runs of two commands, run alternately.
type paired struct {
	a, b      []sample
	ratios    []float64 // a's wall time over b's, pair by pair
	cpuRatios []float64 // a's CPU time over b's, pair by pair
}

// pair runs a and b alternately, warmup times each untimed, then runs
// timed pairs.
func pair(a, b command, warmup, runs int) (paired, error) {
	var p paired
	for range warmup {
		if _, err := a.run(); err != nil {
			return p, err
		}
		if _, err := b.run(); err != nil {
			return p, err
		}
	}
	for range runs {
		sa, err := a.run()
		if err != nil {
			return p, err
		}
		sb, err := b.run()
		if err != nil {
			return p, err
		}
		p.a, p.b = append(p.a, sa), append(p.b, sb)
		p.ratios = append(p.ratios, sa.wall.Seconds()/sb.wall.Seconds())
		p.cpuRatios = append(p.cpuRatios, sa.cpu.Seconds()/sb.cpu.Seconds())
	}
	return p, nil
}

// median of a non-empty slice; the mean of the middle two for an even
// length.
func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// stat is a median with its range.
type stat struct{ med, lo, hi float64 }

func statOf(v []float64) stat {
	return stat{median(v), slices.Min(v), slices.Max(v)}
}

func walls(s []sample) []float64 {
	v := make([]float64, len(s))
	for i, x := range s {
		v[i] = x.wall.Seconds()
	}
	return v
}

func cpus(s []sample) []float64 {
	v := make([]float64, len(s))
	for i, x := range s {
		v[i] = x.cpu.Seconds()
	}
	return v
}

// peak is a peak resident set in bytes; bound says it is only an upper
// bound (the process's own peak was no larger).
type peak struct {
	bytes int64
	bound bool
}

// peakRSS is the largest peak resident set of the runs.
func peakRSS(s []sample) peak {
	var p peak
	for _, x := range s {
		if x.rss > p.bytes {
			p = peak{x.rss, x.rss <= x.floor}
		}
	}
	return p
}

func (p peak) String() string {
	s := fmt.Sprintf("%.1f MiB", float64(p.bytes)/(1<<20))
	if p.bound {
		return "≤ " + s
	}
	return s
}

// over is p's size as a multiple of q's: "-" where p is only a bound,
// "≥ r" where q is.
func (p peak) over(q peak) string {
	if p.bound || q.bytes == 0 {
		return "-"
	}
	r := fmt.Sprintf("%.2f", float64(p.bytes)/float64(q.bytes))
	if q.bound {
		return "≥ " + r
	}
	return r
}
