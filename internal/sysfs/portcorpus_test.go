package sysfs_test

import (
	"path/filepath"
	"testing"

	"github.com/gdtopo/gdtopo/topology"
)

// TestCorpusPortState reads the ports of the two real captures that hold
// InfiniBand HCAs (hwloc's test suite: a ConnectX-3 at FDR, a QLogic QDR
// HCA), both up: read as ACTIVE, LinkUp, InfiniBand, at their rate.
func TestCorpusPortState(t *testing.T) {
	dir := corpusDir(t)
	for _, c := range []struct {
		file, bdf, rdma string
		rate            float64
	}{
		{"32em64t-2n8c+dax+nvme+mic+dimms.tar.bz2", "0000:82:00.0", "mlx4_0", 56},
		{"40intel64-2g2n4c+pcilocality.tar.bz2", "0000:43:00.0", "qib0", 40},
	} {
		g := readSource(t, filepath.Join(dir, "hwloc", c.file))
		d := dev(t, g, c.bdf)
		want := topology.IBPort{Device: c.rdma, Port: "1", State: "ACTIVE", PhysState: "LinkUp", LinkLayer: "InfiniBand", RateGbps: c.rate}
		if len(d.Ports) != 1 {
			t.Fatalf("%s: %s ports %+v, want one", c.file, c.bdf, d.Ports)
		}
		got := d.Ports[0]
		got.Rate = ""
		if got != want || d.PortRateGbps != c.rate || d.PortsAllDown() {
			t.Errorf("%s: %s port %+v (rate %g), want %+v", c.file, c.bdf, d.Ports[0], d.PortRateGbps, want)
		}
	}
}
