package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gdtopo/gdtopo/advisor"
	"github.com/gdtopo/gdtopo/internal/render"
	"github.com/gdtopo/gdtopo/topology"
)

// computeOnly drops the NICs the advisor set aside from the compute rails.
func computeOnly(nics []*topology.Device, aside []advisor.SetAsideNIC) []*topology.Device {
	var out []*topology.Device
	for _, n := range nics {
		if !slices.ContainsFunc(aside, func(s advisor.SetAsideNIC) bool { return s.NIC == n }) {
			out = append(out, n)
		}
	}
	return out
}

// writeSetAside lists the NICs left out of the compute rails, with the
// advisor's reason, except the hidden ones it sets aside only for having
// no RDMA device (the line above says so).
func (a *analysis) writeSetAside(p *render.Printer, res *advisor.Result, hidden []*topology.Device) {
	var lines []string
	for _, s := range res.SetAside {
		if !slices.Contains(hidden, s.NIC) || s.Reason != advisor.ReasonNoRDMA {
			lines = append(lines, fmt.Sprintf("  %s: %s", strings.TrimSpace(a.aliases[s.NIC]+" "+s.NIC.BDF()), s.Reason))
		}
	}
	if len(lines) > 0 {
		p.Printf("\nNICs set aside from the compute rails (matrix, rail plan and findings leave them out):\n%s\n", strings.Join(lines, "\n"))
	}
}

// writeStorage shows, per accelerator, how far its NVMe drives are for
// GPUDirect Storage: how many sit in its switch, behind the root complex
// and across sockets, and the nearest ones.
func (a *analysis) writeStorage(p *render.Printer, res *advisor.Result) error {
	if len(res.Storage) == 0 {
		return nil
	}
	columns := [][]string{{advisor.RouteSwitch}, {advisor.RouteRootComplex}, {advisor.RouteNUMA, advisor.RouteSockets}}
	type row struct {
		counts  map[string]int
		nearest []advisor.StoragePrediction
	}
	byGPU := map[*topology.Device]*row{}
	var order []*topology.Device
	for _, s := range res.Storage {
		r := byGPU[s.Pair.A]
		if r == nil {
			r = &row{counts: map[string]int{}}
			byGPU[s.Pair.A] = r
			order = append(order, s.Pair.A)
		}
		r.counts[s.Route]++
		switch {
		case len(r.nearest) == 0 || s.Pair.SMI.Rank() < r.nearest[0].Pair.SMI.Rank():
			r.nearest = []advisor.StoragePrediction{s}
		case s.Pair.SMI == r.nearest[0].Pair.SMI:
			r.nearest = append(r.nearest, s)
		}
	}
	p.Heading("Accelerator x NVMe (GPUDirect Storage)")
	var rows [][]string
	for _, g := range order {
		r := byGPU[g]
		cells := []string{a.aliases[g] + " " + g.BDF()}
		for _, col := range columns {
			n := 0
			for _, rt := range col {
				n += r.counts[rt]
			}
			cells = append(cells, fmt.Sprint(n))
		}
		var near []string
		for _, s := range r.nearest {
			near = append(near, s.Pair.B.BDF())
		}
		n := r.nearest[0]
		cells = append(cells, fmt.Sprintf("%s %s: %s", n.Pair.SMI, n.Route, strings.Join(near, ", ")), gbps(n.ExpectedGbps))
		rows = append(rows, cells)
	}
	return p.Table([]string{"Accelerator", "In switch", "Root complex", "Other NUMA node", "Nearest drives", "Bottleneck"}, rows)
}
