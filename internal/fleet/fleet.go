// Package fleet writes gdtopo's results in the formats that fleet tools
// read: the Prometheus text exposition format for node_exporter's textfile
// collector and a Kubernetes Node Feature Discovery feature file (JSON
// Lines are internal/render's). See docs/fleet.md.
package fleet

import (
	"strings"

	"github.com/gdtopo/gdtopo/internal/report"
	"github.com/gdtopo/gdtopo/topology"
)

// Line is one source's result in a multi-source run: either a report or an error.
type Line struct {
	Source   string         `json:"source"`
	Report   *report.Report `json:"report,omitempty"`
	Error    string         `json:"error,omitempty"`
	ExitCode int            `json:"exit_code"`
}

// accelNIC is one accelerator–NIC pair of a report with its two devices.
type accelNIC struct {
	GPU, NIC *report.Device
	Pair     *report.Pair
}

// accelNICPairs lists r's pairs of an accelerator and a NIC the report
// shows (r.NICs), in report order, accelerator first.
func accelNICPairs(r *report.Report) []accelNIC {
	shown := make(map[string]bool, len(r.NICs))
	for _, n := range r.NICs {
		shown[n] = true
	}
	var out []accelNIC
	for i := range r.Pairs {
		p := &r.Pairs[i]
		if p.Kinds[0] != string(topology.KindAccelerator) || !shown[p.B] {
			continue
		}
		out = append(out, accelNIC{GPU: r.Device(p.A), NIC: r.Device(p.B), Pair: p})
	}
	return out
}

// nicName is a NIC's RDMA name, else its first network interface, else "".
func nicName(d *report.Device) string {
	if len(d.RDMA) > 0 {
		return d.RDMA[0]
	}
	if len(d.Netdev) > 0 {
		return d.Netdev[0]
	}
	return ""
}

// labelRank orders nvidia-smi labels best first; "?" marks a guess.
func labelRank(l string) int { return topology.Label(strings.TrimSuffix(l, "?")).Rank() }

// gbpsOf is a pair's expected throughput, 0 when not predicted or only a
// ceiling (the NIC's port rate unknown).
func gbpsOf(p *report.Pair) float64 {
	if p.Prediction == nil || p.Prediction.AtMost {
		return 0
	}
	return p.Prediction.ExpectedGbps
}

// bestNICs gives each accelerator the NIC the report gives it (the rail
// plan's), in accelerator address order; accelerators without one are left out.
func bestNICs(r *report.Report) []accelNIC {
	var out []accelNIC
	for _, a := range r.Accelerators {
		if a.BestNIC == "" {
			continue
		}
		if p := r.Pair(a.BDF, a.BestNIC); p != nil {
			out = append(out, accelNIC{GPU: r.Device(a.BDF), NIC: r.Device(a.BestNIC), Pair: p})
		}
	}
	return out
}
