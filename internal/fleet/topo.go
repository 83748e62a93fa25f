package fleet

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gdtopo/gdtopo/advisor"
	"github.com/gdtopo/gdtopo/internal/report"
	"github.com/gdtopo/gdtopo/topology"
)

// Topo is what the fleet command compares between machines: the
// accelerators, the NICs, every bridge and the functions above them, each at
// its place (Place: the slots from its root bus, which bus renumbering does
// not change) and address, with its model, links, names, ACS and IOMMU state; every
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
	BDF string `json:"bdf"`
	// Place is the device's place in the tree: its root bus, then the
	// device.function of each function from the top down
	// ("0000:15/01.0/00.0/01.0/00.0"). Bus numbers below the root bus are
	// the firmware's or kernel's choice, so a renumbered device keeps its
	// place and changes its address.
	Place        string   `json:"place"`
	Alias        string   `json:"alias,omitempty"` // GPU2, NIC3: the names check's tables use
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
	// NUMAFrom is where NUMANode came from (topology.Device.NUMAFrom):
	// numa_node, or local_cpus or host_bridge where numa_node gives none
	// (-1, which NCCL reads, or unread), so a -1 differs from a node read.
	NUMAFrom string `json:"numa_from,omitempty"`
	// Ports are its RDMA ports, where the source shows them.
	Ports []TopoPort `json:"ports,omitempty"`
}

// TopoPort is one RDMA port of a device (topology.IBPort): its states,
// rate and link layer, which NCCL's IB transport reads before it uses the
// port.
type TopoPort struct {
	RDMA      string  `json:"rdma"`                 // mlx5_3
	Port      string  `json:"port"`                 // "1"
	State     string  `json:"state,omitempty"`      // ACTIVE, DOWN...; "" unknown
	PhysState string  `json:"phys_state,omitempty"` // LinkUp, Disabled...
	RateGbps  float64 `json:"rate_gbps,omitempty"`
	LinkLayer string  `json:"link_layer,omitempty"` // InfiniBand, Ethernet
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
	t := Topo{Pairs: []TopoPair{}, Findings: []TopoFinding{}} // [] in JSON, never null (Devices: made below)
	keep := map[*topology.Device]bool{}
	for _, d := range g.Devices {
		// Every bridge is kept, so an empty slot is compared as a slot, not
		// reported missing with the device that left it.
		if (d.Kind != topology.KindAccelerator && d.Kind != topology.KindNIC && d.Kind != topology.KindBridge && !d.Unidentified) || d.IsVirtualFunction() {
			continue
		}
		for p := d; p != nil && !keep[p]; p = p.Parent {
			keep[p] = true
		}
	}
	aliases := report.Aliases(g)
	t.Devices = make([]TopoDevice, 0, len(keep))
	for _, d := range g.Devices {
		if !keep[d] {
			continue
		}
		td := TopoDevice{
			BDF: d.BDF(), Alias: aliases[d], Kind: string(d.Kind), Model: fmt.Sprintf("%04x:%04x", d.VendorID, d.DeviceID), Name: d.Name,
			NUMANode: d.NUMANode, NUMAFrom: d.NUMAFrom, CurrentGTs: d.Link.CurrentGTs, CurrentWidth: d.Link.CurrentWidth,
			MaxGTs: d.Link.MaxGTs, MaxWidth: d.Link.MaxWidth,
			RDMA: slices.Clone(d.RDMA), Netdev: slices.Clone(d.Netdevs), PortRateGbps: report.Round(d.PortRateGbps),
			Bond: d.Bond, Unidentified: d.Unidentified,
		}
		for _, p := range d.Ports {
			td.Ports = append(td.Ports, TopoPort{RDMA: p.Device, Port: p.Port, State: p.State, PhysState: p.PhysState,
				RateGbps: report.Round(p.RateGbps), LinkLayer: p.LinkLayer})
		}
		if d.Parent != nil {
			td.Parent = d.Parent.BDF()
		}
		if d.Kind == topology.KindBridge {
			td.ACS = report.ACSState(d)
		}
		if d.IOMMUGroup != "" {
			td.IOMMU = "group"
			if typ := g.Platform.IOMMUGroupTypes[d.IOMMUGroup]; typ != "" {
				td.IOMMU = typ
			}
		}
		t.Devices = append(t.Devices, td)
	}
	t.finishDevices()

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
			tp.ExpectedGbps = roundGbps(pr.ExpectedGbps)
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
	sortFindings(t.Findings)
	t.IOMMU, t.Partial = iommuState(g), g.Partial
	return t
}

// sortFindings orders findings by code, severity and devices.
func sortFindings(fs []TopoFinding) {
	slices.SortFunc(fs, func(a, b TopoFinding) int {
		return cmpStrings(a.Code, b.Code, a.Severity, b.Severity, strings.Join(a.Devices, ","), strings.Join(b.Devices, ","))
	})
}

// roundGbps rounds a pair's throughput to 0.1 Gb/s as a report would
// hold it (report.Round, then 0.1), so a Topo read from a report and one
// from the source it was written from are equal.
func roundGbps(g float64) float64 { return math.Round(report.Round(g)*10) / 10 }

// finishDevices sorts the devices by address and gives each its place.
func (t *Topo) finishDevices() {
	slices.SortFunc(t.Devices, func(a, b TopoDevice) int { return strings.Compare(a.BDF, b.BDF) })
	t.setPlaces()
}

// setPlaces gives each device without a place its place, from the
// parents' addresses. A bridge has one secondary bus, so its children
// differ in device.function; where a source puts two children of one
// parent at the same device.function on two buses, their buses stay in
// their places.
func (t *Topo) setPlaces() {
	if !slices.ContainsFunc(t.Devices, func(d TopoDevice) bool { return d.Place == "" }) {
		return
	}
	at := make(map[string]int, len(t.Devices))
	slots := map[[2]string]int{} // parent and device.function -> children there
	for i, d := range t.Devices {
		at[d.BDF] = i
		slots[[2]string{d.Parent, slotOf(d.BDF)}]++
	}
	var place func(i, depth int) string
	place = func(i, depth int) string {
		d := &t.Devices[i]
		if d.Place != "" {
			return d.Place
		}
		p, ok := at[d.Parent]
		if d.Parent == "" || !ok || depth > len(t.Devices) {
			d.Place = rootBus(d.BDF) + "/" + slotOf(d.BDF)
			return d.Place
		}
		elem := slotOf(d.BDF)
		if slots[[2]string{d.Parent, elem}] > 1 {
			elem = strings.TrimPrefix(d.BDF, rootBus(rootBus(d.BDF))+":")
		}
		d.Place = place(p, depth+1) + "/" + elem
		return d.Place
	}
	for i := range t.Devices {
		place(i, 0)
	}
}

// rootBus is an address's domain and bus ("0000:15" of 0000:15:01.0), or
// the whole string where it is not a PCI address (a stand-in).
func rootBus(bdf string) string {
	if i := strings.LastIndexByte(bdf, ':'); i > 0 {
		return bdf[:i]
	}
	return bdf
}

// slotOf is an address's device.function ("01.0" of 0000:15:01.0).
func slotOf(bdf string) string {
	if i := strings.LastIndexByte(bdf, ':'); i >= 0 {
		return bdf[i+1:]
	}
	return bdf
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
	units := -1
	if g.Platform.IOMMUClassRead {
		units = len(g.Platform.IOMMUs)
	}
	return iommuWords(g.System.Cmdline, g.System.CmdlineRead, units)
}

// shapeKey is what makes two machines the same hardware: every device's
// place in the tree (so its parent's), kind and model, and whether the
// source holds all of it; not its address, which renumbering changes.
// Machines of one shape form a group.
func (t *Topo) shapeKey() string {
	var b strings.Builder
	if t.Partial != "" {
		b.WriteString("partial: " + t.Partial + "\n")
	}
	byPlace := make([]*TopoDevice, len(t.Devices))
	for i := range t.Devices {
		byPlace[i] = &t.Devices[i]
	}
	slices.SortFunc(byPlace, func(a, b *TopoDevice) int { return strings.Compare(a.Place, b.Place) })
	for _, d := range byPlace {
		b.WriteString(d.Place)
		b.WriteByte(' ')
		b.WriteString(d.Kind)
		b.WriteByte(' ')
		b.WriteString(d.Model)
		b.WriteByte('\n')
	}
	return b.String()
}

// key is the whole Topo as a string: two machines with equal keys are
// alike in everything the fleet command compares, their shape included.
func (t *Topo) key() string { return string(t.appendKey(nil)) }

// appendKey appends key to b: Fleet.Add looks a machine up with it in a
// buffer it reuses, so only a new state's key is kept as a string.
func (t *Topo) appendKey(b []byte) []byte {
	str := func(s ...string) {
		for _, x := range s {
			b = append(b, x...)
			b = append(b, ' ')
		}
	}
	list := func(l []string) {
		for i, x := range l {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, x...)
		}
		b = append(b, ' ')
	}
	num := func(f float64) { b = append(strconv.AppendFloat(b, f, 'g', -1, 64), ' ') }
	integer := func(n int) { b = append(strconv.AppendInt(b, int64(n), 10), ' ') }
	str("partial:", t.Partial, "\n")
	for _, d := range t.Devices {
		str(d.BDF, d.Place, d.Kind, d.Model, d.Parent, d.Alias)
		integer(d.NUMANode)
		str(d.NUMAFrom)
		num(d.CurrentGTs)
		integer(d.CurrentWidth)
		num(d.MaxGTs)
		integer(d.MaxWidth)
		num(d.PortRateGbps)
		list(d.RDMA)
		list(d.Netdev)
		for _, p := range d.Ports {
			str(p.RDMA, p.Port, p.State, p.PhysState, p.LinkLayer)
			num(p.RateGbps)
		}
		str(d.Bond, d.ACS, d.IOMMU, "\n")
	}
	b = append(b, "--\n"...)
	for _, p := range t.Pairs {
		str(p.GPU, p.NIC, p.SMI, p.NCCL)
		num(p.ExpectedGbps)
		b = strconv.AppendBool(b, p.GDR)
		b = append(b, '\n')
	}
	b = append(b, "--\n"...)
	for _, f := range t.Findings {
		str(f.Code, f.Severity)
		list(f.Devices)
		b = append(b, '\n')
	}
	b = append(b, "--\n"...)
	return append(b, t.IOMMU...)
}
