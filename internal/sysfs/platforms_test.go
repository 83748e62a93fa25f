package sysfs_test

import (
	"testing"

	"github.com/gdtopo/gdtopo/fixtures/fixturetest"
	"github.com/gdtopo/gdtopo/topology"
)

// TestMI300XPartitions checks the 8x MI300X box (AMD Instinct MI300X
// platform; RCCL's topo_8p_940vm model): every OAM is one PCI function
// with its partition modes read from amdgpu's sysfs attributes, and its
// own NIC below the same switch.
func TestMI300XPartitions(t *testing.T) {
	g := readSource(t, fixturetest.Archive(t, "mi300x-8oam"))
	gpus := g.OfKind(topology.KindAccelerator)
	if len(gpus) != 8 {
		t.Fatalf("%d accelerators, want 8 physical MI300X", len(gpus))
	}
	for _, d := range gpus {
		if d.DeviceID != 0x74a1 || d.ComputePartition() != "CPX" || d.MemoryPartition() != "NPS4" {
			t.Errorf("%s: %04x %q/%q, want 74a1 CPX/NPS4", d.BDF(), d.DeviceID, d.ComputePartition(), d.MemoryPartition())
		}
	}
	if p := g.Classify(gpus[0], g.OfKind(topology.KindNIC)[0]); p.SMI != topology.PIX || p.NCCL != topology.PIX {
		t.Errorf("GPU0-NIC0: %s/%s, want PIX/PIX", p.SMI, p.NCCL)
	}
}

// TestRoCELAGBond checks the RoCE LAG box (NVIDIA MLNX_OFED/DOCA "RoCE
// LAG"): both ports of a card are enslaved to one bond, the RDMA device
// mlx5_bond_N sits on the first function.
func TestRoCELAGBond(t *testing.T) {
	g := readSource(t, fixturetest.Archive(t, "roce-lag-bond"))
	for bdf, want := range map[string]string{"0000:17:00.0": "bond0", "0000:17:00.1": "bond0", "0000:99:00.1": "bond1", "0000:27:00.0": ""} {
		if d := dev(t, g, bdf); d.Bond != want {
			t.Errorf("%s bond %q, want %q", bdf, d.Bond, want)
		}
	}
	if d := dev(t, g, "0000:17:00.0"); len(d.RDMA) != 1 || d.RDMA[0] != "mlx5_bond_0" {
		t.Errorf("RDMA %v, want mlx5_bond_0", d.RDMA)
	}
	if g.System.DefaultRouteIf != "ens1f0" {
		t.Errorf("default route %q, want ens1f0", g.System.DefaultRouteIf)
	}
}

// TestRoCELAGMembers checks that the function holding a bond's RDMA device
// gets the bond's mode and both ports with their net speeds, and that the
// bond's second port, which holds none, gets no LAG of its own.
func TestRoCELAGMembers(t *testing.T) {
	g := readSource(t, fixturetest.Archive(t, "roce-lag-bond"))
	lag := dev(t, g, "0000:17:00.0").LAG()
	if lag == nil {
		t.Fatal("0000:17:00.0: no LAG")
	}
	if lag.Bond != "bond0" || lag.Mode != "802.3ad" || len(lag.Members) != 2 {
		t.Fatalf("LAG %+v, want bond0 802.3ad over 2 ports", lag)
	}
	for i, want := range []string{"0000:17:00.0", "0000:17:00.1"} {
		if m := lag.Members[i]; m.Addr.String() != want || m.Gbps != 200 {
			t.Errorf("member %d %+v, want %s at 200 Gb/s", i, m, want)
		}
	}
	if got := lag.Gbps(); got != 400 {
		t.Errorf("LAG carries %g Gb/s, want 400 (both ports)", got)
	}
	if l := dev(t, g, "0000:17:00.1").LAG(); l != nil {
		t.Errorf("0000:17:00.1 has a LAG %+v, want none (no RDMA device)", l)
	}
}
