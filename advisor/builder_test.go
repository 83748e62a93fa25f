package advisor

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/gdtopo/gdtopo/topology"
)

// builder makes graphs by hand. Every device starts healthy: Gen4 x16 links
// trained at full speed, DevCtl read (MPS 256, MaxReadReq 512, relaxed
// ordering on), ACS read and off. The machine is a two-socket Sapphire
// Rapids with nvidia_peermem loaded and no IOMMU.
type builder struct {
	g      *topology.Graph
	nextHB int
}

var gen4x16 = topology.Link{CurrentGTs: 16, CurrentWidth: 16, MaxGTs: 16, MaxWidth: 16}

func newBuilder() *builder {
	return &builder{g: &topology.Graph{
		System: topology.System{
			CPUVendor: "GenuineIntel", CPUFamily: 6, CPUModelID: 0x8f,
			NUMANodes:   []topology.NUMANode{{ID: 0, Socket: 0}, {ID: 1, Socket: 1}},
			Cmdline:     "ro quiet",
			CmdlineRead: true,
		},
		Platform: topology.Platform{
			IOMMUClassRead: true,
			PeerMemory:     []string{"sys/module/nvidia_peermem"},
			ModulesRead:    true,
		},
	}}
}

// hb adds a host bridge on NUMA node numa with a root port on it.
func (b *builder) hb(numa int) (*topology.HostBridge, *topology.Device) {
	bus := 0x10 * b.nextHB
	b.nextHB++
	h := &topology.HostBridge{Name: fmt.Sprintf("pci0000:%02x", bus), Bus: uint8(bus), NUMANode: numa, Socket: numa}
	b.g.HostBridges = append(b.g.HostBridges, h)
	rp := b.dev(fmt.Sprintf("0000:%02x:01.0", bus), h, topology.KindBridge, topology.RoleRootPort)
	return h, rp
}

// dev adds a function under a *Device or on a *HostBridge.
func (b *builder) dev(bdf string, above any, kind topology.Kind, role topology.Role) *topology.Device {
	addr, err := topology.ParseBDF(bdf)
	if err != nil {
		panic(err)
	}
	d := &topology.Device{Addr: addr, Kind: kind, Role: role, Link: gen4x16,
		ACSKnown: true, DevCtlKnown: true, MaxPayload: 256, MaxReadRequest: 512, RelaxedOrdering: true}
	switch p := above.(type) {
	case *topology.Device:
		d.Parent, d.HostBridge = p, p.HostBridge
		p.Children = append(p.Children, d)
	case *topology.HostBridge:
		d.HostBridge = p
		p.Devices = append(p.Devices, d)
	}
	d.NUMANode, d.RawNUMANode = d.HostBridge.NUMANode, d.HostBridge.NUMANode
	b.g.Devices = append(b.g.Devices, d)
	return d
}

// sw adds a switch (upstream port) under a root port: its downstream ports
// are made by port.
func (b *builder) sw(rp *topology.Device) *topology.Device {
	bus := int(rp.Addr.Bus) + 1
	return b.dev(fmt.Sprintf("0000:%02x:00.0", bus), rp, topology.KindBridge, topology.RoleUpstream)
}

// port adds downstream port i of switch usp.
func (b *builder) port(usp *topology.Device, i int) *topology.Device {
	return b.dev(fmt.Sprintf("0000:%02x:%02x.0", int(usp.Addr.Bus)+1, i), usp, topology.KindBridge, topology.RoleDownstream)
}

// under returns the bus below a port, for the endpoint's address.
func below(port *topology.Device, i int) string {
	return fmt.Sprintf("0000:%02x:00.0", int(port.Addr.Bus)+2+i)
}

func (b *builder) gpu(bdf string, above any) *topology.Device {
	d := b.dev(bdf, above, topology.KindAccelerator, topology.RoleNone)
	d.VendorID, d.DeviceID = topology.VendorNVIDIA, 0x20b2 // A100 SXM4 80GB, sm80
	d.BARs = []topology.BAR{{Index: 0, Size: 16 << 20}, {Index: 1, Size: 128 << 30, Prefetchable: true, Is64: true}}
	return d
}

func (b *builder) nic(bdf string, above any, name string) *topology.Device {
	d := b.dev(bdf, above, topology.KindNIC, topology.RoleNone)
	d.VendorID, d.DeviceID = topology.VendorMellanox, 0x101b
	d.RDMA, d.Netdevs, d.PortRateGbps = []string{name}, []string{"ib" + strings.TrimPrefix(name, "mlx5_")}, 200
	return d
}

// graph sorts the devices by address, as the reader leaves them.
func (b *builder) graph() *topology.Graph {
	sort.Slice(b.g.Devices, func(i, j int) bool { return b.g.Devices[i].Addr.Less(b.g.Devices[j].Addr) })
	return b.g
}

// rails builds nGPU switches, nGPU/2 per socket, each with its accelerator
// and, for the first nNIC, a NIC: the HGX layout when nNIC == nGPU (every
// pair PIX). NICs beyond the switches get a root port of their own.
func rails(nGPU, nNIC int) (*builder, []*topology.Device, []*topology.Device) {
	b := newBuilder()
	var gpus, nics []*topology.Device
	for i := 0; i < nGPU; i++ {
		_, rp := b.hb(i * 2 / nGPU)
		usp := b.sw(rp)
		p0 := b.port(usp, 0)
		gpus = append(gpus, b.gpu(below(p0, 0), p0))
		if i < nNIC {
			p1 := b.port(usp, 1)
			nics = append(nics, b.nic(below(p1, 1), p1, fmt.Sprintf("mlx5_%d", i)))
		}
	}
	return b, gpus, nics
}

// analyze runs Analyze with default options and fails the test on error.
func analyze(t *testing.T, g *topology.Graph, opts Options) *Result {
	t.Helper()
	r, err := Analyze(g, g.Pairs(), opts)
	if err != nil {
		t.Fatalf("Analyze: %v", err)
	}
	for _, f := range r.Findings {
		if _, ok := Codes[f.Code]; !ok {
			t.Errorf("finding code %q is not documented in Codes", f.Code)
		}
	}
	return r
}

// pred returns the prediction for gpu and nic.
func pred(t *testing.T, r *Result, gpu, nic *topology.Device) Prediction {
	t.Helper()
	for _, p := range r.Predictions {
		if p.GPU == gpu && p.NIC == nic {
			return p
		}
	}
	t.Fatalf("no prediction for %s–%s", gpu.BDF(), nic.BDF())
	return Prediction{}
}

func near(a, b float64) bool { d := a - b; return d < 0.01 && d > -0.01 }

// rootPort adds another root port (device dev) on host bridge h; endpoint
// returns an address below it.
func (b *builder) rootPort(h *topology.HostBridge, dev int) *topology.Device {
	return b.dev(fmt.Sprintf("0000:%02x:%02x.0", h.Bus, dev), h, topology.KindBridge, topology.RoleRootPort)
}

func endpoint(rp *topology.Device) string {
	return fmt.Sprintf("0000:%02x:00.0", int(rp.Addr.Bus)+9+int(rp.Addr.Device))
}

// pix is one switch holding an accelerator and a NIC on socket 0.
func pix() (*builder, *topology.Device, *topology.Device) {
	b := newBuilder()
	_, rp := b.hb(0)
	usp := b.sw(rp)
	p0, p1 := b.port(usp, 0), b.port(usp, 1)
	return b, b.gpu(below(p0, 0), p0), b.nic(below(p1, 1), p1, "mlx5_0")
}

// phb puts the accelerator and the NIC under two root ports of one host bridge.
func phb() (*builder, *topology.Device, *topology.Device) {
	b := newBuilder()
	h, _ := b.hb(0)
	r2, r3 := b.rootPort(h, 2), b.rootPort(h, 3)
	return b, b.gpu(endpoint(r2), r2), b.nic(endpoint(r3), r3, "mlx5_0")
}

// sys puts the accelerator on socket 0 and the NIC on socket 1.
func sys() (*builder, *topology.Device, *topology.Device) {
	b := newBuilder()
	h0, _ := b.hb(0)
	h1, _ := b.hb(1)
	r0, r1 := b.rootPort(h0, 2), b.rootPort(h1, 2)
	return b, b.gpu(endpoint(r0), r0), b.nic(endpoint(r1), r1, "mlx5_0")
}
