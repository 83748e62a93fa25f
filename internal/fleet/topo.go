package fleet

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gdtopo/gdtopo/advisor"
	"github.com/gdtopo/gdtopo/topology"
)

// Topo is what the fleet command compares between machines: the
// accelerators, the NICs and the bridges above them, each at its place (PCI
// address) with its model, links, names, ACS and IOMMU state; every
// accelerator–NIC pair's labels and prediction; the findings; and the
// host's IOMMU settings. It holds plain values only, no host name and no
// wording, so two machines with the same hardware in the same state have
// equal Topos.
type Topo struct {
	Devices  []TopoDevice  `json:"devices"`  // by address
	Pairs    []TopoPair    `json:"pairs"`    // accelerator–NIC, by accelerator then NIC
	Findings []TopoFinding `json:"findings"` // by code, severity, devices
	IOMMU    string        `json:"iommu"`    // the kernel command line's IOMMU settings and the IOMMU units, in words
	// Partial is topology.Graph.Partial: why the source holds only part of
	// the machine. A partial source is never the same shape as a whole one.
	Partial string `json:"partial,omitempty"`
}

// TopoDevice is one PCI function of a Topo.
type TopoDevice struct {
	BDF          string   `json:"bdf"`
	Kind         string   `json:"kind"`
	Model        string   `json:"model"` // vendor:device IDs, 10de:2330
	Name         string   `json:"name,omitempty"`
	Parent       string   `json:"parent"` // the bridge above; "" under a host bridge
	NUMANode     int      `json:"numa_node"`
	CurrentGTs   float64  `json:"current_gts"`
	CurrentWidth int      `json:"current_width"`
	MaxGTs       float64  `json:"max_gts"`
	MaxWidth     int      `json:"max_width"`
	RDMA         []string `json:"rdma,omitempty"`
	Netdev       []string `json:"netdev,omitempty"`
	PortRateGbps float64  `json:"port_rate_gbps,omitempty"`
	Bond         string   `json:"bond,omitempty"`  // NICs: the bonding interface (RoCE LAG) a netdev of it is enslaved to
	ACS          string   `json:"acs,omitempty"`   // bridges: redirect, off, unknown
	IOMMU        string   `json:"iommu,omitempty"` // the IOMMU group's domain type (identity, DMA, DMA-FQ), "group" when its type is unknown, "" without a group
	// Unidentified is set on an endpoint of kind other that the source
	// does not identify (topology.Device.Unidentified): it may be an
	// accelerator, so it is compared as one would be.
	Unidentified bool `json:"unidentified,omitempty"`
}

// TopoPair is one accelerator–NIC pair of a Topo.
type TopoPair struct {
	GPU          string  `json:"gpu"`
	NIC          string  `json:"nic"`
	SMI          string  `json:"smi"` // "?" appended when the label is a guess
	NCCL         string  `json:"nccl"`
	ExpectedGbps float64 `json:"expected_gbps"` // to 0.1 Gb/s; 0 not predicted
	GDR          bool    `json:"gdr"`
}

// TopoFinding is one finding of a Topo, without its wording.
type TopoFinding struct {
	Code     string   `json:"code"`
	Severity string   `json:"severity"`
	Devices  []string `json:"devices"`
}

// NewTopo takes from a machine's graph, its labelled pairs and the
// advisor's result what the fleet command compares. res may be nil.
func NewTopo(g *topology.Graph, pairs []topology.Pair, res *advisor.Result) Topo {
	t := Topo{Devices: []TopoDevice{}, Pairs: []TopoPair{}, Findings: []TopoFinding{}} // [] in JSON, never null
	keep := map[*topology.Device]bool{}
	for _, d := range g.Devices {
		if (d.Kind != topology.KindAccelerator && d.Kind != topology.KindNIC && !d.Unidentified) || d.IsVirtualFunction() {
			continue
		}
		for p := d; p != nil && !keep[p]; p = p.Parent {
			keep[p] = true
		}
	}
	for _, d := range g.Devices {
		if !keep[d] {
			continue
		}
		td := TopoDevice{
			BDF: d.BDF(), Kind: string(d.Kind), Model: fmt.Sprintf("%04x:%04x", d.VendorID, d.DeviceID), Name: d.Name,
			NUMANode: d.NUMANode, CurrentGTs: d.Link.CurrentGTs, CurrentWidth: d.Link.CurrentWidth,
			MaxGTs: d.Link.MaxGTs, MaxWidth: d.Link.MaxWidth,
			RDMA: slices.Clone(d.RDMA), Netdev: slices.Clone(d.Netdevs), PortRateGbps: d.PortRateGbps,
			Bond: d.Bond, Unidentified: d.Unidentified,
		}
		if d.Parent != nil {
			td.Parent = d.Parent.BDF()
		}
		if d.Kind == topology.KindBridge {
			switch {
			case !d.ACSKnown:
				td.ACS = "unknown"
			case d.ACSRedirect:
				td.ACS = "redirect"
			default:
				td.ACS = "off"
			}
		}
		if d.IOMMUGroup != "" {
			td.IOMMU = "group"
			if typ := g.Platform.IOMMUGroupTypes[d.IOMMUGroup]; typ != "" {
				td.IOMMU = typ
			}
		}
		t.Devices = append(t.Devices, td)
	}
	slices.SortFunc(t.Devices, func(a, b TopoDevice) int { return strings.Compare(a.BDF, b.BDF) })

	predicted := map[[2]*topology.Device]*advisor.Prediction{}
	if res != nil {
		for i := range res.Predictions {
			p := &res.Predictions[i]
			predicted[[2]*topology.Device{p.GPU, p.NIC}] = p
		}
	}
	for _, p := range pairs {
		gpu, nic := p.A, p.B
		if nic.Kind == topology.KindAccelerator {
			gpu, nic = nic, gpu
		}
		if gpu.Kind != topology.KindAccelerator || nic.Kind != topology.KindNIC || !keep[gpu] || !keep[nic] {
			continue
		}
		tp := TopoPair{GPU: gpu.BDF(), NIC: nic.BDF(), SMI: string(p.SMI), NCCL: string(p.NCCL)}
		if p.LabelUncertain {
			tp.SMI += "?"
		}
		if pr := predicted[[2]*topology.Device{gpu, nic}]; pr != nil {
			tp.ExpectedGbps = math.Round(pr.ExpectedGbps*10) / 10
			tp.GDR = pr.GDR
		}
		t.Pairs = append(t.Pairs, tp)
	}
	slices.SortFunc(t.Pairs, func(a, b TopoPair) int {
		return cmpStrings(a.GPU, b.GPU, a.NIC, b.NIC)
	})

	if res != nil {
		for _, f := range res.Findings {
			devs := append([]string{}, f.Devices...)
			slices.Sort(devs)
			t.Findings = append(t.Findings, TopoFinding{Code: f.Code, Severity: string(f.Severity), Devices: devs})
		}
	}
	slices.SortFunc(t.Findings, func(a, b TopoFinding) int {
		return cmpStrings(a.Code, b.Code, a.Severity, b.Severity, strings.Join(a.Devices, ","), strings.Join(b.Devices, ","))
	})
	t.IOMMU, t.Partial = iommuState(g), g.Partial
	return t
}

// cmpStrings compares pairs of strings in turn: a0 with b0, then a1 with b1...
func cmpStrings(ab ...string) int {
	for i := 0; i+1 < len(ab); i += 2 {
		if c := strings.Compare(ab[i], ab[i+1]); c != 0 {
			return c
		}
	}
	return 0
}

// iommuState is the host's IOMMU settings in words: the command line's
// IOMMU parameters and how many IOMMU units /sys/class/iommu lists.
func iommuState(g *topology.Graph) string {
	var parts []string
	if g.System.CmdlineRead {
		var params []string
		for _, f := range strings.Fields(g.System.Cmdline) {
			if strings.Contains(strings.SplitN(f, "=", 2)[0], "iommu") {
				params = append(params, f)
			}
		}
		if len(params) == 0 {
			params = []string{"no iommu parameters"}
		}
		parts = append(parts, strings.Join(params, " "))
	}
	if g.Platform.IOMMUClassRead {
		parts = append(parts, strconv.Itoa(len(g.Platform.IOMMUs))+" IOMMU units")
	}
	return strings.Join(parts, ", ")
}

// shapeKey is what makes two machines the same hardware: every device's
// place, kind, model and parent, and whether the source holds all of it.
// Machines of one shape form a group.
func (t *Topo) shapeKey() string {
	var b strings.Builder
	if t.Partial != "" {
		b.WriteString("partial: " + t.Partial + "\n")
	}
	for _, d := range t.Devices {
		b.WriteString(d.BDF)
		b.WriteByte(' ')
		b.WriteString(d.Kind)
		b.WriteByte(' ')
		b.WriteString(d.Model)
		b.WriteByte(' ')
		b.WriteString(d.Parent)
		b.WriteByte('\n')
	}
	return b.String()
}

// key is the whole Topo as a string: two machines with equal keys are
// alike in everything the fleet command compares.
func (t *Topo) key() string {
	var b strings.Builder
	b.WriteString(t.shapeKey())
	b.WriteString("--\n")
	num := func(f float64) { b.WriteString(strconv.FormatFloat(f, 'g', -1, 64)); b.WriteByte(' ') }
	for _, d := range t.Devices {
		b.WriteString(d.BDF)
		b.WriteByte(' ')
		b.WriteString(strconv.Itoa(d.NUMANode))
		b.WriteByte(' ')
		num(d.CurrentGTs)
		b.WriteString(strconv.Itoa(d.CurrentWidth))
		b.WriteByte(' ')
		num(d.MaxGTs)
		b.WriteString(strconv.Itoa(d.MaxWidth))
		b.WriteByte(' ')
		num(d.PortRateGbps)
		b.WriteString(strings.Join(d.RDMA, ","))
		b.WriteByte(' ')
		b.WriteString(strings.Join(d.Netdev, ","))
		b.WriteByte(' ')
		b.WriteString(d.Bond)
		b.WriteByte(' ')
		b.WriteString(d.ACS)
		b.WriteByte(' ')
		b.WriteString(d.IOMMU)
		b.WriteByte('\n')
	}
	b.WriteString("--\n")
	for _, p := range t.Pairs {
		b.WriteString(p.GPU + " " + p.NIC + " " + p.SMI + " " + p.NCCL + " ")
		num(p.ExpectedGbps)
		b.WriteString(strconv.FormatBool(p.GDR))
		b.WriteByte('\n')
	}
	b.WriteString("--\n")
	for _, f := range t.Findings {
		b.WriteString(f.Code + " " + f.Severity + " " + strings.Join(f.Devices, ",") + "\n")
	}
	b.WriteString("--\n")
	b.WriteString(t.IOMMU)
	return b.String()
}
