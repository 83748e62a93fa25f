package topology

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseCPUList parses a kernel cpulist such as "0-3,8,10-11".
func ParseCPUList(s string) ([]int, error) {
	var out []int
	if err := cpuRanges(s, func(lo, hi int) {
		for c := lo; c <= hi; c++ {
			out = append(out, c)
		}
	}); err != nil {
		return nil, err
	}
	return out, nil
}

// cpuRanges calls fn with the first and last CPU of each part of a kernel
// cpulist, in order, as far as the list is valid: a list ParseCPUList
// refuses gives its error, perhaps after some calls.
func cpuRanges(s string, fn func(lo, hi int)) error {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	for n, rest, more := 0, s, true; more; {
		var part string
		part, rest, more = strings.Cut(rest, ",")
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		b := a
		if err == nil && isRange {
			b, err = strconv.Atoi(hi)
		}
		if err != nil || a < 0 || b < a || b >= MaxCPUs || n+b-a >= MaxCPUs {
			return fmt.Errorf("invalid cpulist %q", s)
		}
		n += b - a + 1
		fn(a, b)
	}
	return nil
}

// NodeOfCPUs returns the NUMA node holding every CPU of a cpulist, or -1
// when they span nodes, are unknown, or the list is empty. It is asked for
// every function: each node's CPUs are a bit set for the one question, and
// the function's list is walked, never expanded.
func (s *System) NodeOfCPUs(list string) int {
	parts := 0
	if err := cpuRanges(list, func(int, int) { parts++ }); err != nil || parts == 0 {
		return -1
	}
	for _, n := range s.NUMANodes {
		top := -1
		if err := cpuRanges(n.CPUs, func(_, hi int) { top = max(top, hi) }); err != nil {
			continue
		}
		set := make([]uint64, top/64+1)
		_ = cpuRanges(n.CPUs, func(lo, hi int) {
			for c := lo; c <= hi; c++ {
				set[c/64] |= 1 << (c % 64)
			}
		})
		all := true
		_ = cpuRanges(list, func(lo, hi int) {
			for c := lo; c <= hi && all; c++ {
				all = c/64 < len(set) && set[c/64]&(1<<(c%64)) != 0
			}
		})
		if all {
			return n.ID
		}
	}
	return -1
}

// MaxCPUs bounds the CPUs one cpulist or cpumask may name, so a hostile
// or broken source cannot make gdtopo expand a list without end.
const MaxCPUs = 1 << 16
