package fleet

import (
	"slices"
	"strconv"
	"strings"

	"github.com/gdtopo/gdtopo/internal/report"
	"github.com/gdtopo/gdtopo/topology"
)

// TopoFromReport takes from a report what the fleet command compares, as
// NewTopo takes it from the graph the report was built from: a node's own
// `check -o json` report stands for the node without its tree.
func TopoFromReport(r *report.Report) Topo {
	t := Topo{Devices: []TopoDevice{}, Pairs: []TopoPair{}, Findings: []TopoFinding{}}
	at := make(map[string]int, len(r.Devices))
	for i := range r.Devices {
		at[r.Devices[i].BDF] = i
	}
	keep := make([]bool, len(r.Devices))
	for i := range r.Devices {
		d := &r.Devices[i]
		if (d.Kind != string(topology.KindAccelerator) && d.Kind != string(topology.KindNIC) && d.Kind != string(topology.KindBridge) && !d.Unidentified) || d.PhysFn != "" {
			continue
		}
		for j, ok := i, true; ok && !keep[j]; j, ok = at[r.Devices[j].Parent] {
			keep[j] = true
		}
	}
	for i := range r.Devices {
		if !keep[i] {
			continue
		}
		d := &r.Devices[i]
		td := TopoDevice{
			BDF: d.BDF, Alias: d.Alias, Kind: d.Kind, Model: d.VendorID + ":" + d.DeviceID, Name: d.Name, Parent: d.Parent,
			NUMANode: d.NUMANode, NUMAFrom: d.NUMAFrom, CurrentGTs: d.Link.CurrentGTs, CurrentWidth: d.Link.CurrentWidth,
			MaxGTs: d.Link.MaxGTs, MaxWidth: d.Link.MaxWidth, RDMA: nilIfEmpty(d.RDMA), Netdev: nilIfEmpty(d.Netdev),
			PortRateGbps: d.PortRateGbps, Bond: d.Bond, ACS: d.ACS, Unidentified: d.Unidentified,
		}
		for _, p := range d.Ports {
			td.Ports = append(td.Ports, TopoPort{RDMA: p.RDMA, Port: p.Port, State: p.State, PhysState: p.PhysState,
				RateGbps: p.RateGbps, LinkLayer: p.LinkLayer})
		}
		if d.IOMMUGroup != "" {
			td.IOMMU = "group"
			if d.IOMMUType != "" {
				td.IOMMU = d.IOMMUType
			}
		}
		t.Devices = append(t.Devices, td)
	}
	t.finishDevices()

	kept := func(bdf string) bool { i, ok := at[bdf]; return ok && keep[i] }
	for i := range r.Pairs {
		p := &r.Pairs[i]
		if len(p.Kinds) != 2 {
			continue
		}
		gpu, nic := p.A, p.B
		switch {
		case p.Kinds[0] == string(topology.KindAccelerator) && p.Kinds[1] == string(topology.KindNIC):
		case p.Kinds[1] == string(topology.KindAccelerator) && p.Kinds[0] == string(topology.KindNIC):
			gpu, nic = nic, gpu
		default:
			continue
		}
		if !kept(gpu) || !kept(nic) {
			continue
		}
		tp := TopoPair{GPU: gpu, NIC: nic, SMI: p.SMI, NCCL: p.NCCL}
		if p.LabelUncertain {
			tp.SMI += "?"
		}
		if p.Prediction != nil {
			tp.ExpectedGbps = roundGbps(p.Prediction.ExpectedGbps)
			tp.GDR = p.Prediction.GDR
		}
		t.Pairs = append(t.Pairs, tp)
	}
	slices.SortFunc(t.Pairs, func(a, b TopoPair) int { return cmpStrings(a.GPU, b.GPU, a.NIC, b.NIC) })

	for _, f := range r.Findings {
		devs := append([]string{}, f.Devices...)
		slices.Sort(devs)
		t.Findings = append(t.Findings, TopoFinding{Code: f.Code, Severity: f.Severity, Devices: devs})
	}
	sortFindings(t.Findings)
	var cmdline string
	if r.System.Cmdline != nil {
		cmdline = *r.System.Cmdline
	}
	units := -1
	if r.System.IOMMUUnits != nil {
		units = *r.System.IOMMUUnits
	}
	t.IOMMU, t.Partial = iommuWords(cmdline, r.System.Cmdline != nil, units), r.Summary.Partial
	return t
}

// nilIfEmpty is s, nil when empty: a report's lists are [] where a
// graph's are nil.
func nilIfEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}

// iommuWords is the host's IOMMU settings in words: the command line's
// IOMMU parameters (when read) and how many IOMMU units /sys/class/iommu
// lists (units < 0: not read).
func iommuWords(cmdline string, cmdlineRead bool, units int) string {
	var parts []string
	if cmdlineRead {
		var params []string
		for _, f := range strings.Fields(cmdline) {
			if strings.Contains(strings.SplitN(f, "=", 2)[0], "iommu") {
				params = append(params, f)
			}
		}
		if len(params) == 0 {
			params = []string{"no iommu parameters"}
		}
		parts = append(parts, strings.Join(params, " "))
	}
	if units >= 0 {
		parts = append(parts, strconv.Itoa(units)+" IOMMU units")
	}
	return strings.Join(parts, ", ")
}
