package sysfs_test

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"

	"github.com/gdtopo/gdtopo/internal/faultfs"
	"github.com/gdtopo/gdtopo/internal/source"
	"github.com/gdtopo/gdtopo/internal/sysfs"
	"github.com/gdtopo/gdtopo/topology"
)

// deviceSig is everything the reader found out about d, its place in the
// tree by name.
func deviceSig(d *topology.Device) string {
	c := *d
	parent, hb := "", ""
	if d.Parent != nil {
		parent = d.Parent.BDF()
	}
	if d.HostBridge != nil {
		hb = d.HostBridge.Name
	}
	c.Parent, c.HostBridge, c.Children = nil, nil, nil
	return fmt.Sprintf("%+v parent=%s hostbridge=%s", c, parent, hb)
}

// TestVanishingTree reads fixture trees while part of them vanishes after N
// file operations, for N across the whole read: everything (a capture being
// deleted, /sys unmounted), or one function's folder and every link to it
// (a device hot-unplugged; reads of its files opened before then fail with
// ENODEV, as sysfs's do). Each read must end, quickly and without a panic,
// in either an error saying the tree vanished or a graph in which every
// function is as the whole tree has it, or is named by a warning: none is
// shown with wrong values as if it were fine, and none is left out silently.
func TestVanishingTree(t *testing.T) {
	for _, fixture := range []string{"recorded-vm", "hgx-h100", "dgx-a100"} {
		t.Run(fixture, func(t *testing.T) {
			src, err := source.Open(filepath.Join("..", "..", "fixtures", fixture+".tar.gz"))
			if err != nil {
				t.Fatal(err)
			}
			ref, err := sysfs.Read(src.Root)
			if err != nil {
				t.Fatal(err)
			}
			counter := &faultfs.Vanish{FS: src.Root, After: math.MaxInt64}
			if _, err := sysfs.Read(counter); err != nil {
				t.Fatal(err)
			}
			total := counter.Ops()

			type scenario struct {
				name    string
				gone    func(string) bool
				readErr error
				devices map[string]bool // BDFs that vanish; nil: all
			}
			scenarios := []scenario{{name: "everything"}}
			// Unplug an accelerator, a NIC, and a bridge with functions below it.
			picked := map[topology.Kind]bool{}
			for _, d := range ref.Devices {
				k := d.Kind
				if k == topology.KindBridge && len(d.Children) == 0 || picked[k] ||
					k != topology.KindAccelerator && k != topology.KindNIC && k != topology.KindBridge {
					continue
				}
				picked[k] = true
				dir, err := fs.ReadLink(src.Root, "sys/bus/pci/devices/"+d.BDF())
				if err != nil {
					t.Fatal(err)
				}
				dir = path.Join("sys/bus/pci/devices", dir)
				links := faultfs.LinksInto(src.Root, dir)
				devices := map[string]bool{}
				for _, l := range links {
					if b, ok := strings.CutPrefix(l, "sys/bus/pci/devices/"); ok {
						devices[b] = true
					}
				}
				scenarios = append(scenarios, scenario{name: fmt.Sprintf("unplug %s %s (%d functions)", k, d.BDF(), len(devices)),
					gone: faultfs.Subtree(dir, links), readErr: syscall.ENODEV, devices: devices})
			}
			if len(scenarios) < 2 {
				t.Fatal("no accelerator, NIC or bridge to unplug")
			}

			// Every N for a small tree; about 60 spread over a large one.
			step := int64(1)
			if total > 300 {
				step = total / 60
			}
			if testing.Short() {
				step = max(1, total/15)
			}
			for _, sc := range scenarios {
				t.Run(sc.name, func(t *testing.T) {
					errs, reads := 0, 0
					var points []int64
					for after := int64(0); after < total; after += step {
						points = append(points, after)
					}
					for _, after := range append(points, total) { // the last: nothing vanishes during the read
						v := &faultfs.Vanish{FS: src.Root, After: after, Gone: sc.gone, ReadErr: sc.readErr}
						g, err := sysfs.Read(v)
						if v.Ops() > 2*total+10 {
							t.Errorf("after %d: %d operations, against %d for the whole tree", after, v.Ops(), total)
						}
						if err != nil {
							errs++
							msg := err.Error()
							if strings.Contains(msg, "\n") || !strings.Contains(msg, "vanished") && !errors.Is(err, topology.ErrNoPCI) {
								t.Errorf("after %d: error %q; want one line saying the tree vanished", after, msg)
							}
							if sc.devices != nil {
								t.Errorf("after %d: one device unplugged failed the whole read: %v", after, err)
							}
							continue
						}
						reads++
						checkVanished(t, after, ref, g, sc.devices)
					}
					t.Logf("%d operations in all; every %d: %d reads, %d errors", total, step, reads, errs)
				})
			}
		})
	}
}

// checkVanished checks a graph read while the functions gone (all when nil)
// vanished: each function is as in ref or named by a warning, and the
// others are as in ref.
func checkVanished(t *testing.T, after int64, ref, g *topology.Graph, gone map[string]bool) {
	t.Helper()
	var warned strings.Builder
	for _, w := range g.Warnings {
		fmt.Fprintf(&warned, "%s: %s\n", w.Subject, w.Message)
	}
	for _, r := range ref.Devices {
		bdf := r.BDF()
		d := g.Device(r.Addr)
		same := d != nil && deviceSig(d) == deviceSig(r)
		named := strings.Contains(warned.String(), bdf)
		switch {
		case gone != nil && !gone[bdf] && !same:
			t.Errorf("after %d: %s did not vanish, yet it reads differently:\n got %v\nwant %s", after, bdf, d, deviceSig(r))
		case gone == nil && !same:
			// With everything gone, only an error is right once anything was missed.
			t.Errorf("after %d: %s reads differently and the read did not fail", after, bdf)
		case d == nil && after == 0:
			// unplugged before the PCI index was listed: simply not there
		case !same && !named:
			if d == nil {
				t.Errorf("after %d: %s left out without a warning naming it; warnings:\n%s", after, bdf, warned.String())
			} else {
				t.Errorf("after %d: %s reads differently without a warning naming it:\n got %s\nwant %s\nwarnings:\n%s",
					after, bdf, deviceSig(d), deviceSig(r), warned.String())
			}
		}
	}
	if len(g.Devices) > len(ref.Devices) {
		t.Errorf("after %d: %d functions, more than the %d of the whole tree", after, len(g.Devices), len(ref.Devices))
	}
	if gone != nil && !reflect.DeepEqual(g.System, ref.System) {
		t.Errorf("after %d: the system (NUMA nodes, CPUs) reads differently though only a function was unplugged", after)
	}
}
