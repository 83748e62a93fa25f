// Package words holds the small helpers that put counts and throughputs
// into sentences.
package words

import (
	"math"
	"strconv"
	"strings"
)

// Count is "1 GPU" or "3 GPUs": n and word, with an s when n is not 1.
func Count(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

// RoundGbps rounds a throughput as gdtopo shows it: whole Gb/s, or tenths
// below 10, so that a 1 GbE port shared by two is 0.5 Gb/s, not 0 (which
// reports read as unknown).
func RoundGbps(v float64) float64 {
	if v < 9.95 {
		return math.Round(v*10) / 10
	}
	return math.Round(v)
}

// Gbps writes a throughput for people, rounded by RoundGbps; "unknown" for 0.
func Gbps(v float64) string {
	if v <= 0 {
		return "unknown"
	}
	return strconv.FormatFloat(RoundGbps(v), 'f', -1, 64) + " Gb/s"
}

// GbpsSpan is a throughput from lo to hi without its unit, each end
// rounded by RoundGbps: "83-173", or "83" where the two meet.
func GbpsSpan(lo, hi float64) string {
	n := func(v float64) string { return strconv.FormatFloat(RoundGbps(v), 'f', -1, 64) }
	if hi > lo+0.5 {
		return n(lo) + "-" + n(hi)
	}
	return n(lo)
}

// GbpsAtMost is Gbps, as a ceiling where atMost: "≤ 461 Gb/s" (the NIC's
// port rate unknown, its own PCIe link taken as its limit).
func GbpsAtMost(v float64, atMost bool) string {
	return Ceiling(Gbps(v), atMost && v > 0)
}

// Ceiling marks a figure's text as a ceiling where ceiling: "≤ w 192 / r
// 83-173 Gb/s".
func Ceiling(text string, ceiling bool) string {
	if ceiling {
		return "≤ " + text
	}
	return text
}

// CountedNames is names counted, in the order each first comes: "6 x
// ConnectX-5 Virtual Function, 2 x bridge", at most five names, then how
// many more.
func CountedNames(names []string) string {
	const most = 5
	var order []string
	count := map[string]int{}
	for _, n := range names {
		if n == "" {
			n = "unnamed"
		}
		if count[n] == 0 {
			order = append(order, n)
		}
		count[n]++
	}
	parts := make([]string, 0, most+1)
	for i, n := range order {
		if i == most {
			parts = append(parts, strconv.Itoa(len(order)-most)+" more names")
			break
		}
		parts = append(parts, strconv.Itoa(count[n])+" x "+n)
	}
	return strings.Join(parts, ", ")
}

// Examples is the first most of items, comma-separated, then how many more:
// "a, b, c and 15997 more". A list that grows with the input (every
// address of a file) stays a line.
func Examples(items []string, most int) string {
	if len(items) <= most {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:most], ", ") + " and " + strconv.Itoa(len(items)-most) + " more"
}
