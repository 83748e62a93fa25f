// Package fleet writes gdtopo's results in the formats that fleet tools
// read: JSON Lines for many sources in one run, the Prometheus text
// exposition format for node_exporter's textfile collector, and a
// Kubernetes Node Feature Discovery feature file. See docs/fleet.md.
package fleet

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
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

// flusher is a buffered writer (bufio.Writer) that WriteEncoded flushes.
type flusher interface{ Flush() error }

// MarshalJSONL encodes l as one compact JSON object and a newline.
func MarshalJSONL(l Line) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(l); err != nil { // Encode appends the newline
		return nil, fmt.Errorf("encode %s: %w", l.Source, err)
	}
	return b.Bytes(), nil
}

// WriteEncoded writes a line from MarshalJSONL in one Write, and flushes w
// when it buffers: a reader of a long fleet run sees every source as soon
// as it is done.
func WriteEncoded(w io.Writer, b []byte) error {
	if _, err := w.Write(b); err != nil {
		return err
	}
	if f, ok := w.(flusher); ok {
		return f.Flush()
	}
	return nil
}

// accelNIC is one accelerator–NIC pair of a report with its two devices.
type accelNIC struct {
	GPU, NIC *report.Device
	Pair     *report.Pair
}

// accelNICPairs lists r's accelerator–NIC pairs in report order, accelerator
// first. As check's tables do, it keeps the NICs with an RDMA device when
// any has one (GPUDirect RDMA needs one; nvidia-smi shows only those).
func accelNICPairs(r *report.Report) []accelNIC {
	byBDF := make(map[string]*report.Device, len(r.Devices))
	rdma := false
	for i := range r.Devices {
		d := &r.Devices[i]
		byBDF[d.BDF] = d
		rdma = rdma || (d.Kind == string(topology.KindNIC) && len(d.RDMA) > 0)
	}
	var out []accelNIC
	for i := range r.Pairs {
		p := &r.Pairs[i]
		a, b := byBDF[p.A], byBDF[p.B]
		if a == nil || b == nil {
			continue
		}
		if b.Kind == string(topology.KindAccelerator) {
			a, b = b, a
		}
		if a.Kind != string(topology.KindAccelerator) || b.Kind != string(topology.KindNIC) || (rdma && len(b.RDMA) == 0) {
			continue
		}
		out = append(out, accelNIC{GPU: a, NIC: b, Pair: p})
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

// gbpsOf is a pair's expected throughput, 0 when not predicted.
func gbpsOf(p *report.Pair) float64 {
	if p.ExpectedGbps == nil {
		return 0
	}
	return *p.ExpectedGbps
}

// bestNICs gives each accelerator its NIC, in accelerator address order:
// the rail plan's when the report has one, else the pair with the best
// nvidia-smi label, then the highest expected throughput; none for an
// accelerator with a pair whose path the source cannot tell.
func bestNICs(r *report.Report) []accelNIC {
	pairs := accelNICPairs(r)
	best := map[string]accelNIC{}
	var order []string
	if r.Plan != nil && len(r.Plan.Assignments) > 0 {
		idx := make(map[[2]string]accelNIC, len(pairs))
		for _, p := range pairs {
			idx[[2]string{p.GPU.BDF, p.NIC.BDF}] = p
		}
		for _, a := range r.Plan.Assignments {
			if p, ok := idx[[2]string{a.Accelerator, a.NIC}]; ok {
				if _, seen := best[a.Accelerator]; !seen {
					order = append(order, a.Accelerator)
				}
				best[a.Accelerator] = p
			}
		}
	}
	if len(best) == 0 {
		unknown := map[string]bool{} // a path the source cannot tell may be the best
		for _, p := range pairs {
			if p.Pair.SMI == string(topology.Unknown) {
				unknown[p.GPU.BDF] = true
			}
		}
		for _, p := range pairs {
			if unknown[p.GPU.BDF] {
				continue
			}
			cur, ok := best[p.GPU.BDF]
			if !ok {
				order = append(order, p.GPU.BDF)
			}
			if !ok || labelRank(p.Pair.SMI) < labelRank(cur.Pair.SMI) ||
				(labelRank(p.Pair.SMI) == labelRank(cur.Pair.SMI) && gbpsOf(p.Pair) > gbpsOf(cur.Pair)) {
				best[p.GPU.BDF] = p
			}
		}
	}
	out := make([]accelNIC, 0, len(order))
	for _, g := range order {
		out = append(out, best[g])
	}
	return out
}
