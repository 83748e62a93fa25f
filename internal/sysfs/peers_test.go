package sysfs_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/gdtopo/gdtopo/fixtures/fixturetest"
	"github.com/gdtopo/gdtopo/internal/peers"
	"github.com/gdtopo/gdtopo/internal/source"
	"github.com/gdtopo/gdtopo/internal/sysfs"
	"github.com/gdtopo/gdtopo/topology"
)

// skipWithoutTool skips when a peer tool is missing, except in CI, which
// installs pciutils and hwloc.
func skipWithoutTool(t *testing.T, err error) {
	t.Helper()
	if errors.Is(err, exec.ErrNotFound) {
		if os.Getenv("CI") == "true" {
			t.Fatalf("peer tool missing in CI: %v", err)
		}
		t.Skipf("peer tool missing (CI installs pciutils and hwloc): %v", err)
	}
}

// TestFixturesAgreeWithPeers reads every bundled fixture with gdtopo (the
// archive), lspci and lstopo (the archive unpacked), and requires the same
// functions, parents and IDs from all three, and the same host bridge
// locality from hwloc.
func TestFixturesAgreeWithPeers(t *testing.T) {
	for _, name := range fixturetest.Names(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := fixturetest.Unpack(t, name)
			src, err := source.Open(filepath.Join("..", "..", "fixtures", name+".tar.gz"))
			if err != nil {
				t.Fatal(err)
			}
			g, err := sysfs.Read(src.Root)
			if err != nil {
				t.Fatal(err)
			}
			ours := map[string]peers.Device{}
			for _, d := range g.Devices {
				p := peers.Device{BDF: d.BDF(), VendorID: d.VendorID, DeviceID: d.DeviceID, Class: uint16(d.Class >> 8)}
				if d.Parent != nil {
					p.Parent = d.Parent.BDF()
				}
				ours[p.BDF] = p
			}

			ls, err := peers.Lspci(dir)
			skipWithoutTool(t, err)
			if err != nil {
				t.Fatal(err)
			}
			if len(ls) != len(ours) {
				t.Errorf("lspci sees %d functions, gdtopo %d", len(ls), len(ours))
			}
			for bdf, want := range ls {
				if got, ok := ours[bdf]; !ok || got != want {
					t.Errorf("lspci: %+v; gdtopo: %+v", want, got)
				}
			}

			hw, err := peers.Lstopo(dir)
			skipWithoutTool(t, err)
			if err != nil {
				t.Fatal(err)
			}
			if len(hw) == 0 {
				t.Fatal("lstopo reported no PCI objects")
			}
			for bdf, h := range hw {
				got, ok := ours[bdf]
				if !ok || got != h.Device {
					t.Errorf("lstopo: %+v; gdtopo: %+v", h.Device, got)
					continue
				}
				agreeLocality(t, g, bdf, h)
			}
		})
	}
}

// agreeLocality checks that where hwloc places a function on exactly one
// NUMA node, gdtopo puts it on the same node, and that hwloc's OS devices
// include gdtopo's RDMA and network names.
func agreeLocality(t *testing.T, g *topology.Graph, bdf string, h peers.HwlocDevice) {
	t.Helper()
	addr, _ := topology.ParseBDF(bdf)
	d := g.Device(addr)
	if len(h.NUMANodes) == 1 && len(g.System.NUMANodes) > 1 && d.NUMANode != h.NUMANodes[0] {
		t.Errorf("%s: NUMA node %d, hwloc places it on node %d (%s)", bdf, d.NUMANode, h.NUMANodes[0], h.Locality)
	}
	osdev := map[string]bool{}
	for _, n := range h.OSDevices {
		osdev[n] = true
	}
	for _, n := range append(append([]string{}, d.RDMA...), d.Netdevs...) {
		if !osdev[n] {
			t.Errorf("%s: gdtopo names it %s, hwloc's OS devices are %v", bdf, n, h.OSDevices)
		}
	}
}

// TestCorpusAgreesWithHwlocXML compares gdtopo's reading of real captures
// with the hwloc XML the hwloc test suite recorded for them.
func TestCorpusAgreesWithHwlocXML(t *testing.T) {
	dir := corpusDir(t)
	for _, name := range []string{"32em64t-2n8c+dax+nvme+mic+dimms", "40intel64-2g2n4c+pcilocality"} {
		t.Run(name, func(t *testing.T) {
			g := readSource(t, filepath.Join(dir, "hwloc", name+".tar.bz2"))
			xml, err := os.ReadFile(filepath.Join(dir, "hwloc", name+".xml"))
			if err != nil {
				t.Fatal(err)
			}
			hw, err := peers.ParseHwlocXML(xml)
			if err != nil {
				t.Fatal(err)
			}
			if len(hw) == 0 {
				t.Fatal("hwloc XML lists no PCI objects")
			}
			for bdf, h := range hw {
				addr, _ := topology.ParseBDF(bdf)
				d := g.Device(addr)
				if d == nil {
					t.Errorf("%s: in hwloc's XML, not read by gdtopo", bdf)
					continue
				}
				parent := ""
				if d.Parent != nil {
					parent = d.Parent.BDF()
				}
				if parent != h.Parent || d.VendorID != h.VendorID || d.DeviceID != h.DeviceID {
					t.Errorf("%s: gdtopo parent %q ids %04x:%04x; hwloc parent %q ids %04x:%04x",
						bdf, parent, d.VendorID, d.DeviceID, h.Parent, h.VendorID, h.DeviceID)
				}
				agreeLocality(t, g, bdf, h)
			}
		})
	}
}
