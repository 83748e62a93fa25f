package advisor

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/gdtopo/gdtopo/topology"
)

// BusBWRun is one nccl-tests run (all_reduce_perf and friends) as calibrate
// reads it: where its ranks ran and the highest bus bandwidth it printed.
type BusBWRun struct {
	From string
	// Ranks are the "# Using devices" lines: each rank's host and its
	// GPU's bus as nccl-tests printed it ("0000:1a:00" or "0x1a"). Empty
	// when the output lacks them.
	Ranks []BusBWRank
	// LogHosts are the hosts an NCCL_DEBUG=INFO log beside the table
	// names, for an output without the device list.
	LogHosts  []string
	PeakGBps  float64 // the highest busbw of the table, out-of-place or in-place, GB/s
	PeakBytes int64   // the message size it was measured at
	Rows      int
}

// BusBWRank is one rank of an nccl-tests run.
type BusBWRank struct {
	Host string
	Bus  string
}

// BusBWCheck is what one nccl-tests run says of the model: never a fitted
// number, at most a bound set against the plan.
type BusBWCheck struct {
	BusBWRun
	Hosts int // hosts the ranks ran on; 0 unknown
	// PlanGbps is the plan's figure for one host's ranks: the sum of the
	// planned NIC shares of the accelerators they ran on (Gb/s); 0 when
	// it cannot be had (one host, GPUs not in the source).
	PlanGbps   float64
	PlanAtMost bool // PlanGbps rests on a NIC of unknown port rate: a ceiling
	// Says is the verdict in a sentence: what the figure shows, and why it
	// fits nothing.
	Says string
}

// CheckBusBW sets each nccl-tests run against the plan for g under opts.
// busbw is nccl-tests' ring-equivalent figure: the rate of the slowest link
// a ring would cross (nccl-tests doc/PERFORMANCE.md, "Bus bandwidth"), the
// same for every collective. Across hosts a ring crosses the NICs, one
// channel per NIC, so a host's NICs together carry busbw: NCCL's own model
// of a collective's bus bandwidth is its channels' count times each
// channel's bandwidth (src/graph/tuning.cc, ncclTopoTuneModel). It is never fitted:
// it mixes every rank's reads and writes, the network's switches and line
// rate, and NCCL's algorithm and protocol (NVLS, CollNet and tree reduce
// before or inside the network, so busbw may exceed what the NICs carry).
// Within one host it is GPU to GPU (NVLink, PCIe P2P, SHM): not the GPU-NIC
// path the model predicts at all.
func CheckBusBW(g *topology.Graph, pairs []topology.Pair, opts Options, runs []BusBWRun) ([]BusBWCheck, error) {
	var plan *Plan
	out := make([]BusBWCheck, len(runs))
	for i, run := range runs {
		c := BusBWCheck{BusBWRun: run}
		hosts, first := distinctHosts(run)
		c.Hosts = len(hosts)
		peak := fmt.Sprintf("busbw %s GB/s (%s Gb/s) at %s", fmtNum(run.PeakGBps), fmtNum(run.PeakGBps*8), fmtBytes(run.PeakBytes))
		switch {
		case len(hosts) == 0:
			c.Says = peak + ": the output names no host (no \"# Using devices\" list, no NCCL_DEBUG=INFO lines), so whether it crossed the network is not known; fits nothing"
		case len(hosts) == 1:
			c.Says = peak + ": every rank on " + hosts[0] + ", so it measures GPU to GPU (NVLink, PCIe P2P or SHM), not the GPU-NIC path the model predicts; fits nothing"
		default:
			if plan == nil {
				o := opts
				o.SkipExplain = true
				r, err := Analyze(g, pairs, o)
				if err != nil {
					return nil, err
				}
				plan = &r.Plan
			}
			c.PlanGbps, c.PlanAtMost, c.Says = planFor(plan, first)
			if c.PlanGbps > 0 {
				c.Says = judge(peak, len(hosts), run.PeakGBps*8, c.PlanGbps, c.PlanAtMost, len(first))
			} else {
				c.Says = peak + " across " + strconv.Itoa(len(hosts)) + " hosts: " + c.Says + "; fits nothing"
			}
		}
		out[i] = c
	}
	return out, nil
}

// distinctHosts lists the run's hosts in order of appearance and the GPU
// buses of the first host's ranks.
func distinctHosts(run BusBWRun) (hosts, firstBuses []string) {
	seen := map[string]bool{}
	for _, r := range run.Ranks {
		if !seen[r.Host] {
			seen[r.Host] = true
			hosts = append(hosts, r.Host)
		}
		if r.Host == hosts[0] {
			firstBuses = append(firstBuses, r.Bus)
		}
	}
	if len(hosts) == 0 {
		for _, h := range run.LogHosts {
			if h != "" && !seen[h] {
				seen[h] = true
				hosts = append(hosts, h)
			}
		}
	}
	return hosts, firstBuses
}

// planFor sums the plan's NIC shares over the accelerators at buses (one
// host's ranks), assuming every host is built like the source. It says
// why when it cannot.
func planFor(plan *Plan, buses []string) (gbps float64, atMost bool, why string) {
	if len(buses) == 0 {
		return 0, false, "the output lists no GPU per rank, so the plan's accelerators are not known"
	}
	used := map[*topology.Device]bool{}
	for _, b := range buses {
		var hit *Assignment
		for i := range plan.Assignments {
			a := &plan.Assignments[i]
			if busMatches(a.GPU, b) {
				if hit != nil {
					return 0, false, "GPU bus " + b + " matches several accelerators of the source (print the PCI domain)"
				}
				hit = a
			}
		}
		if hit == nil || used[hit.GPU] {
			return 0, false, "the ranks' GPUs (bus " + strings.Join(buses, ", ") + ") are not the source's planned accelerators: the hosts are not built like the source"
		}
		used[hit.GPU] = true
		if hit.ShareGbps <= 0 {
			return 0, false, "the plan has no figure for " + hit.GPU.BDF()
		}
		gbps += hit.ShareGbps
		atMost = atMost || hit.AtMost
	}
	return gbps, atMost, ""
}

// busMatches reports whether d is the GPU nccl-tests printed as bus:
// "dddd:bb:dd" (domain, bus, device) or "0xbb" (bus alone).
func busMatches(d *topology.Device, bus string) bool {
	if strings.HasPrefix(bus, "0x") {
		v, err := strconv.ParseUint(bus[2:], 16, 8)
		return err == nil && uint8(v) == d.Addr.Bus
	}
	return fmt.Sprintf("%04x:%02x:%02x", d.Addr.Domain, d.Addr.Bus, d.Addr.Device) == bus
}

// judge sets the measured figure against the plan's for one host.
func judge(peak string, hosts int, gbps, plan float64, atMost bool, ranks int) string {
	ceiling := ""
	if atMost {
		ceiling = "at most "
	}
	s := fmt.Sprintf("%s across %d hosts: %d%% of the plan's %s%s Gb/s for one host's %d ranks (their NIC shares summed, every host taken to be built like the source)",
		peak, hosts, int(gbps/plan*100+0.5), ceiling, fmtNum(plan), ranks)
	if gbps > plan*1.05 {
		return s + "; above the plan: the model is low for these paths, or NCCL reduced over NVLink or in the network first (NVLS, CollNet, tree), which busbw does not tell apart; fits nothing: measure a pair with ib_write_bw/ib_read_bw --use_cuda to fit it"
	}
	return s + "; what holds a run below its plan (the network, NCCL's algorithm and channels, a GPU-NIC path) busbw cannot tell, and it mixes every rank's reads and writes; fits nothing: measure the pairs with ib_write_bw/ib_read_bw --use_cuda"
}

func fmtNum(v float64) string { return strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64) }

// fmtBytes writes a message size as nccl-tests' sizes are: powers of two.
func fmtBytes(n int64) string {
	for _, u := range []struct {
		unit string
		size int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.size && n%u.size == 0 {
			return strconv.FormatInt(n/u.size, 10) + " " + u.unit
		}
	}
	return strconv.FormatInt(n, 10) + " B"
}
