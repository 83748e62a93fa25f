package topology_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/gdtopo/gdtopo/internal/peers"
	"github.com/gdtopo/gdtopo/internal/source"
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

// TestFixturesAgreeWithPeers reads every bundled fixture with gdtopo, lspci
// and lstopo, and requires the same functions, parents and IDs from all
// three, and the same host bridge locality from hwloc.
func TestFixturesAgreeWithPeers(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join("..", "fixtures", "*", "sys"))
	if len(dirs) < 7 {
		t.Fatalf("found %d fixtures, want at least 7", len(dirs))
	}
	for _, sys := range dirs {
		dir := filepath.Dir(sys)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			t.Parallel()
			src, err := source.Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			g, err := topology.ReadSysfs(src.Root)
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
				}
			}
		})
	}
}
