package topology_test

import (
	"path/filepath"
	"testing"

	"github.com/gdtopo/gdtopo/internal/source"
	"github.com/gdtopo/gdtopo/internal/sysfs"
	"github.com/gdtopo/gdtopo/topology"
)

func readFixture(t *testing.T, name string) *topology.Graph {
	t.Helper()
	src, err := source.Open(filepath.Join("..", "fixtures", name+".tar.gz"))
	if err != nil {
		t.Fatal(err)
	}
	g, err := sysfs.Read(src.Root)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// pairOf returns the labelled pair of the accelerator and NIC at the BDFs.
func pairOf(t *testing.T, pairs []topology.Pair, a, b string) topology.Pair {
	t.Helper()
	for _, p := range pairs {
		if p.A.BDF() == a && p.B.BDF() == b {
			return p
		}
	}
	t.Fatalf("no pair %s-%s", a, b)
	return topology.Pair{}
}

// TestGB200Tray checks the GB200 NVL72 compute tray (NVIDIA GB200 NVL72 and
// DGX GB200 User Guide: two GB200 superchips, four ConnectX-7, one
// BlueField-3 per tray) as NCCL labels it: a GPU's path to its Grace is
// C2C, a NIC's PHB, so paths.cc's mergePathType gives P2C for the local
// 400G NICs; the slower BlueField-3 is not among ncclTopoGetLocal's NICs
// and stays PHB; across Graces SYS. GPU memory nodes are no CPU's.
func TestGB200Tray(t *testing.T) {
	g := readFixture(t, "gb200-tray")
	if !g.Grace() {
		t.Fatal("Grace root ports not recognised")
	}
	if s := g.System; s.CPUImplementer != 0x41 || s.CPUPart != 0xd4f || s.CPUModel != "Arm Neoverse V2" || s.Sockets != 2 {
		t.Errorf("CPU %+v, want Arm Neoverse V2 (0x41/0xd4f) on 2 sockets", s)
	}
	for _, n := range g.System.NUMANodes {
		if want := n.ID >= 2; n.MemoryOnly != want || want && n.Socket != -1 {
			t.Errorf("node %d: memory only %v socket %d, want %v", n.ID, n.MemoryOnly, n.Socket, want)
		}
	}
	for _, d := range g.OfKind(topology.KindAccelerator) {
		if !g.C2C(d) || d.NUMANode > 1 {
			t.Errorf("%s: C2C %v NUMA %d, want C2C on a CPU node", d.BDF(), g.C2C(d), d.NUMANode)
		}
	}
	pairs := g.Pairs()
	for _, c := range []struct {
		a, b      string
		smi, nccl topology.Label
	}{
		{"0008:01:00.0", "0000:01:00.0", topology.NODE, topology.P2C},
		{"0008:01:00.0", "0002:01:00.0", topology.NODE, topology.P2C},
		{"0008:01:00.0", "0006:01:00.0", topology.NODE, topology.PHB}, // BlueField-3, 200G: not local
		{"0008:01:00.0", "0010:01:00.0", topology.SYS, topology.SYS},
		{"0019:01:00.0", "0012:01:00.0", topology.NODE, topology.P2C},
	} {
		p := pairOf(t, pairs, c.a, c.b)
		if p.SMI != c.smi || p.NCCL != c.nccl || !p.C2C {
			t.Errorf("%s-%s: %s/%s C2C %v, want %s/%s C2C", c.a, c.b, p.SMI, p.NCCL, p.C2C, c.smi, c.nccl)
		}
	}
}

// TestGraceCX8DataDirect checks the Grace + ConnectX-8 Data Direct tray:
// the DMA function is matched to its NIC by the VPD V3 UUID (rdma-core
// kernel-boot/rdma_topo), NCCL's label is the GPU's path to the DMA
// function (net_ib/init.cc exposes "<dev>_dma" with that PCI path): PXB
// across the ConnectX-8's two switch levels, which NCCL does not flatten
// (topo.cc flattens only Broadcom PEX switches); nvidia-smi, seeing the NIC
// function in another segment, says NODE; the GPU link is Gen6.
func TestGraceCX8DataDirect(t *testing.T) {
	g := readFixture(t, "grace-cx8-dd")
	nic := g.Device(mustBDF(t, "0000:01:00.0"))
	dma := g.DataDirectOf(nic)
	if dma == nil || dma.BDF() != "0008:03:00.0" || nic.VPDV3() == "" {
		t.Fatalf("Data Direct of mlx5_0: %v (V3 %q), want 0008:03:00.0", dma, nic.VPDV3())
	}
	pairs := g.Pairs()
	p := pairOf(t, pairs, "0008:06:00.0", "0000:01:00.0")
	if p.SMI != topology.NODE || p.NCCL != topology.PXB || p.DataDirect != dma {
		t.Errorf("GPU0-mlx5_0: %s/%s via %v, want NODE/PXB via the DMA function", p.SMI, p.NCCL, p.DataDirect)
	}
	// Gen6 x16 in FLIT mode at MPS 256: 64 x 16 x 236/256 x 256/(256+16) = 888.5 Gb/s.
	if want := topology.DataGbps(64, 16, 256, topology.TLPOverheadBytes); p.BottleneckGbps != want || want < 888.4 || want > 888.5 {
		t.Errorf("GPU0-mlx5_0 bottleneck %v Gb/s, want %v (Gen6 x16 below the NIC switch)", p.BottleneckGbps, want)
	}
	// Another NIC's DMA function, under GPU1's Grace root port: PHB, and
	// not P2C, because GPU0 has a closer (PXB) NIC.
	if q := pairOf(t, pairs, "0008:06:00.0", "0001:01:00.0"); q.NCCL != topology.PHB {
		t.Errorf("GPU0-mlx5_1: NCCL %s, want PHB", q.NCCL)
	}
	gpu := g.Device(mustBDF(t, "0008:06:00.0"))
	if gpu.Link.CurrentGTs != 64 || gpu.Link.CurrentWidth != 16 {
		t.Errorf("GPU0 link %v, want Gen6 x16", gpu.Link)
	}
	usp := gpu.Parent.Parent
	if !usp.IsNICSwitchPort() || usp.BroadcomSubSwitch() {
		t.Errorf("%s: ConnectX-8 switch port %v, Broadcom sub-switch %v", usp.BDF(), usp.IsNICSwitchPort(), usp.BroadcomSubSwitch())
	}
}

// TestHGXB200 checks the HGX B200 board (NVIDIA DGX B200 User Guide): each
// B200 and its ConnectX-7 below one PEX890xx, which NCCL flattens, so the
// other NIC of the same switch is PIX for NCCL and PXB for nvidia-smi.
func TestHGXB200(t *testing.T) {
	g := readFixture(t, "hgx-b200")
	pairs := g.Pairs()
	for _, c := range []struct {
		a, b      string
		smi, nccl topology.Label
	}{
		{"0000:1a:00.0", "0000:1b:00.0", topology.PIX, topology.PIX},
		{"0000:1a:00.0", "0000:1f:00.0", topology.PXB, topology.PIX},
		{"0000:1a:00.0", "0000:3d:00.0", topology.NODE, topology.PHB},
		{"0000:1a:00.0", "0000:9d:00.0", topology.SYS, topology.SYS},
	} {
		if p := pairOf(t, pairs, c.a, c.b); p.SMI != c.smi || p.NCCL != c.nccl {
			t.Errorf("%s-%s: %s/%s, want %s/%s", c.a, c.b, p.SMI, p.NCCL, c.smi, c.nccl)
		}
	}
	if g.System.DefaultRouteIf != "enp39s0f0np0" {
		t.Errorf("default route %q, want the BlueField-3 port", g.System.DefaultRouteIf)
	}
}

// TestGDSStoragePairs checks the GPUDirect Storage server (NVIDIA GDS
// design guide: GPU, NIC and drives under one switch): each GPU has four
// drives PIX, the root-port drives of its socket NODE, the rest SYS.
func TestGDSStoragePairs(t *testing.T) {
	g := readFixture(t, "gds-storage")
	count := map[topology.Label]int{}
	for _, p := range g.StoragePairs() {
		if p.A.BDF() == "0000:18:00.0" {
			count[p.SMI]++
		}
	}
	if count[topology.PIX] != 4 || count[topology.NODE] != 8 || count[topology.SYS] != 12 {
		t.Errorf("GPU0's drives by label %v, want 4 PIX, 8 NODE, 12 SYS", count)
	}
}

func mustBDF(t *testing.T, s string) topology.BDF {
	t.Helper()
	b, err := topology.ParseBDF(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestSocketDirect checks the Socket Direct card (NVIDIA ConnectX-7 user
// manual, "Socket Direct"): two PFs on two sockets with one VPD serial
// number are one card, each half the NODE-local NIC of its socket's GPU.
func TestSocketDirect(t *testing.T) {
	g := readFixture(t, "socket-direct")
	a, b := g.Device(mustBDF(t, "0000:21:00.0")), g.Device(mustBDF(t, "0000:a1:00.0"))
	if p := g.SocketDirectPeers(a); len(p) != 1 || p[0] != b {
		t.Errorf("peers of %s: %v, want %s", a.BDF(), p, b.BDF())
	}
	if a.NUMANode == b.NUMANode {
		t.Errorf("halves on one NUMA node %d", a.NUMANode)
	}
	// A card without a VPD serial has no peers.
	for _, d := range readFixture(t, "genoa-2s-rootports").OfKind(topology.KindNIC) {
		if p := g.SocketDirectPeers(d); p != nil {
			t.Errorf("%s: peers %v without a VPD", d.BDF(), p)
		}
	}
}

// TestGB200C2CDataPath checks that a C2C accelerator's own PCIe link, off
// the data path to a NIC outside its switch (NCCL P2C: C2C to the Grace,
// PCIe from there), is marked so and left out of the bottleneck, and that
// the links the data crosses take their own Max_Payload_Size (the NIC's
// 512 B), as the advisor's prediction does: one value per link.
func TestGB200C2CDataPath(t *testing.T) {
	g := readFixture(t, "gb200-tray")
	for _, pairs := range [][]topology.Pair{g.Pairs(), g.PairsWithoutHops()} {
		p := pairOf(t, pairs, "0008:01:00.0", "0000:01:00.0")
		// Gen5 x16 at MPS 512: 32 x 16 x 128/130 x 512/536 = 481.6 Gb/s.
		if want := topology.DataGbps(32, 16, 512, topology.TLPOverheadBytes); p.BottleneckGbps != want {
			t.Errorf("GPU0-mlx5_0 bottleneck %v Gb/s, want %v (the NIC's link at its MPS 512)", p.BottleneckGbps, want)
		}
	}
	p := pairOf(t, g.Pairs(), "0008:01:00.0", "0000:01:00.0")
	var off, on int
	for _, h := range g.AppendHops(nil, p) {
		if h.Kind != topology.HopPCIe {
			continue
		}
		switch {
		case h.OffPath && h.From == "0008:01:00.0" && h.Gbps == topology.DataGbps(32, 16, 256, topology.TLPOverheadBytes):
			off++
		case !h.OffPath && h.To == "0000:01:00.0" && h.Gbps == p.BottleneckGbps:
			on++
		default:
			t.Errorf("hop %+v: want the GPU's link off the path at MPS 256, the NIC's on it at %v", h, p.BottleneckGbps)
		}
	}
	if off != 1 || on != 1 {
		t.Errorf("%d links off the path and %d on it, want 1 and 1", off, on)
	}
	// A NIC across the sockets: the data still leaves over C2C.
	if h := pairOf(t, g.Pairs(), "0008:01:00.0", "0010:01:00.0").Hops[0]; !h.OffPath {
		t.Errorf("GPU0-mlx5_4 (SYS) first hop %+v on the path, want off it", h)
	}
	// Under the accelerator's own switch (a Data Direct NIC, PXB) the data
	// crosses the accelerator's link.
	dd := readFixture(t, "grace-cx8-dd")
	for _, h := range pairOf(t, dd.Pairs(), "0008:06:00.0", "0000:01:00.0").Hops {
		if h.OffPath {
			t.Errorf("grace-cx8-dd GPU0-mlx5_0 (PXB) hop %+v marked off the path", h)
		}
	}
}
