package sysfs_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/jaypipes/ghw"
	"github.com/jaypipes/ghw/pkg/pci"
	"github.com/jaypipes/pcidb"

	"github.com/gdtopo/gdtopo/fixtures/fixturetest"
)

// TestAgreesWithGhw reads every fixture and this machine's /sys with ghw's
// pci package, which does device enumeration, the bridge tree, drivers,
// IOMMU groups and NUMA nodes right (../shared/docs/libraries.md §1), and
// requires gdtopo's reader to agree on all of them.
func TestAgreesWithGhw(t *testing.T) {
	db, err := pcidb.New(pcidb.WithPath(filepath.Join("..", "cli", "testdata", "pci.ids")))
	if err != nil {
		t.Fatal(err)
	}
	var roots []string
	for _, name := range fixturetest.Names(t) {
		roots = append(roots, fixturetest.Unpack(t, name))
	}
	if _, err := os.Stat("/sys/bus/pci/devices"); err == nil {
		roots = append(roots, "/")
	}
	for _, root := range roots {
		t.Run(filepath.Base(root), func(t *testing.T) {
			info, err := pci.New(ghw.WithChroot(root), ghw.WithPCIDB(db), ghw.WithDisableTools(), ghw.WithDisableWarnings())
			if err != nil {
				t.Fatal(err)
			}
			if len(info.Devices) == 0 {
				t.Fatal("ghw found no devices") // its getDevices drops all on one bad modalias
			}
			g := readSource(t, root)
			if len(g.Devices) != len(info.Devices) {
				t.Errorf("ghw sees %d functions, gdtopo %d", len(info.Devices), len(g.Devices))
			}
			for _, d := range info.Devices {
				ours := dev(t, g, d.Address)
				parent := ""
				if ours.Parent != nil {
					parent = ours.Parent.BDF()
				}
				numa := -1
				if d.Node != nil {
					numa = d.Node.ID
				}
				if parent != d.ParentAddress || ours.Driver != d.Driver || ours.IOMMUGroup != d.IOMMUGroup ||
					(numa >= 0 && ours.RawNUMANode != numa) {
					t.Errorf("%s: gdtopo parent %q driver %q iommu %q numa %d; ghw %q %q %q %d",
						d.Address, parent, ours.Driver, ours.IOMMUGroup, ours.RawNUMANode, d.ParentAddress, d.Driver, d.IOMMUGroup, numa)
				}
			}
		})
	}
}
