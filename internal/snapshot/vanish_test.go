package snapshot_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gdtopo/gdtopo/internal/faultfs"
	"github.com/gdtopo/gdtopo/internal/snapshot"
	"github.com/gdtopo/gdtopo/topology"
)

// TestCaptureVanishingTree captures a tree that vanishes (a capture being
// deleted) after N file operations, for every N: the capture fails saying
// so, or is the whole tree's, byte for byte. Never a smaller snapshot
// taken for the machine.
func TestCaptureVanishingTree(t *testing.T) {
	fsys := open(t, fixture("recorded-vm"))
	opts := snapshot.Options{Redact: true, Now: fixed}
	counter := &faultfs.Vanish{FS: fsys, After: math.MaxInt64}
	var whole bytes.Buffer
	if _, err := snapshot.Capture(counter, &whole, opts); err != nil {
		t.Fatal(err)
	}
	failed := 0
	for after := range counter.Ops() + 1 {
		var buf bytes.Buffer
		_, err := snapshot.Capture(&faultfs.Vanish{FS: fsys, After: after}, &buf, opts)
		switch {
		case err != nil:
			failed++
			if !strings.Contains(err.Error(), "vanished while being read") && !errors.Is(err, topology.ErrNoPCI) {
				t.Errorf("after %d: %v; want it to say the tree vanished", after, err)
			}
		case !bytes.Equal(buf.Bytes(), whole.Bytes()):
			t.Errorf("after %d: a snapshot of %d bytes, not the whole tree's %d", after, buf.Len(), whole.Len())
		}
	}
	t.Logf("%d operations; %d captures failed", counter.Ops(), failed)
}

// TestCaptureUnplugged captures fixture trees while one function's folder,
// with every link to it, goes away after N file operations (a device
// hot-unplugged: reads of its files opened before then fail with ENODEV, as
// sysfs's do), for N across the whole capture: an accelerator, a NIC, and a
// bridge with functions below it. Each capture succeeds and holds every
// function whole or not at all: a function the snapshot has reads as in the
// whole tree, one it lacks went away and is named in Stats and the
// manifest, and no link of the snapshot leads into a folder it lacks.
func TestCaptureUnplugged(t *testing.T) {
	for _, name := range []string{"recorded-vm", "hgx-h100"} {
		t.Run(name, func(t *testing.T) {
			fsys := open(t, fixture(name))
			whole := read(t, fsys)
			ref := map[string]devView{}
			for _, d := range project(whole).Devices {
				ref[d.BDF] = d
			}
			picked := map[topology.Kind]bool{}
			for _, d := range whole.Devices {
				k := d.Kind
				if k == topology.KindBridge && len(d.Children) == 0 || picked[k] ||
					k != topology.KindAccelerator && k != topology.KindNIC && k != topology.KindBridge {
					continue
				}
				picked[k] = true
				target, err := fs.ReadLink(fsys, "sys/bus/pci/devices/"+d.BDF())
				if err != nil {
					t.Fatal(err)
				}
				dir := path.Join("sys/bus/pci/devices", target)
				links := faultfs.LinksInto(fsys, dir)
				gone := map[string]bool{}
				for _, l := range links {
					if b, ok := strings.CutPrefix(l, "sys/bus/pci/devices/"); ok {
						gone[b] = true
					}
				}
				t.Run(fmt.Sprintf("unplug %s %s (%d functions)", k, d.BDF(), len(gone)), func(t *testing.T) {
					opts := snapshot.Options{Redact: true, Now: fixed}
					counter := &faultfs.Vanish{FS: fsys, After: math.MaxInt64}
					if _, err := snapshot.Capture(counter, io.Discard, opts); err != nil {
						t.Fatal(err)
					}
					total := counter.Ops()
					step := max(1, total/30)
					left := 0
					for after := int64(0); after <= total; after += step {
						v := &faultfs.Vanish{FS: fsys, After: after, Gone: faultfs.Subtree(dir, links), ReadErr: syscall.ENODEV}
						out := filepath.Join(t.TempDir(), "snap.tar.gz")
						st, err := snapshot.WriteFile(out, v, opts)
						if err != nil {
							t.Fatalf("after %d: %v", after, err)
						}
						checkUnplugged(t, after, out, st, ref, gone)
						if len(st.Vanished) > 0 {
							left++
						}
					}
					t.Logf("%d operations, every %d; %d snapshots left functions out", total, step, left)
					if left == 0 {
						t.Error("no capture saw the function go away")
					}
				})
			}
		})
	}
}

// checkUnplugged checks one snapshot taken while the functions gone went
// away: see TestCaptureUnplugged.
func checkUnplugged(t *testing.T, after int64, out string, st snapshot.Stats, ref map[string]devView, gone map[string]bool) {
	t.Helper()
	got := map[string]devView{}
	for _, d := range project(read(t, open(t, out))).Devices {
		got[d.BDF] = d
	}
	vanished := map[string]bool{}
	for _, b := range st.Vanished {
		vanished[b] = true
		if !gone[b] {
			t.Errorf("after %d: %s is named as gone, but was not unplugged", after, b)
		}
	}
	for b, want := range ref {
		d, ok := got[b]
		switch {
		case !ok && !vanished[b] && !(after == 0 && gone[b]):
			// (after 0, they are gone before the index is listed)
			t.Errorf("after %d: %s is missing from the snapshot and not named as gone", after, b)
		case ok && !cmp.Equal(d, want):
			t.Errorf("after %d: %s is captured in part (-whole +snapshot):\n%s", after, b, cmp.Diff(want, d))
		}
	}
	m := members(t, out)
	var manifest snapshot.Manifest
	if err := json.Unmarshal([]byte(m[snapshot.ManifestName]), &manifest); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(manifest.Vanished, st.Vanished) {
		t.Errorf("after %d: the manifest names %v as gone, Stats %v", after, manifest.Vanished, st.Vanished)
	}
	for name, v := range m {
		target, ok := strings.CutPrefix(v, "-> ")
		if !ok {
			continue
		}
		p := path.Join(path.Dir(name), target)
		if _, ok := m[p]; !ok && !hasBelow(m, p) {
			t.Errorf("after %d: link %s leads to %s, which the snapshot lacks", after, name, p)
		}
	}
}

// hasBelow reports whether members holds anything below folder dir (a
// snapshot leaves out folder entries implied by what they hold).
func hasBelow(members map[string]string, dir string) bool {
	for p := range members {
		if strings.HasPrefix(p, dir+"/") {
			return true
		}
	}
	return false
}
