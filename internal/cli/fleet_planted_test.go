package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gdtopo/gdtopo/fixtures/fixturetest"
)

// hgxSwitch0 is the folder of fixtures/hgx-h100's third PCIe switch, above
// GPU2 3c:00.0, NIC2 3d:00.0, GPU3 40:00.0 and NIC3 41:00.0; hgxNIC5Port
// the downstream port above NIC5 a1:00.0, which the fixture has at x8.
const (
	hgxSwitch0  = "sys/devices/pci0000:37/0000:37:01.0/0000:38:00.0"
	hgxNIC2Port = hgxSwitch0 + "/0000:39:00.0/0000:3a:00.0/0000:3b:01.0"
	hgxGPU3Port = hgxSwitch0 + "/0000:39:01.0/0000:3e:00.0/0000:3f:00.0"
	hgxNIC3Port = hgxSwitch0 + "/0000:39:01.0/0000:3e:00.0/0000:3f:01.0"
	hgxNIC5Port = "sys/devices/pci0000:97/0000:97:01.0/0000:98:00.0/0000:99:01.0/0000:9e:00.0/0000:9f:01.0"
)

// setLinkWidth trains the link of the function in dir at width lanes: its
// config space's Link Status (PCIe capability + 0x12, bits 9:4), which the
// reader prefers, and its current_link_width file.
func setLinkWidth(t *testing.T, dir string, width int) {
	t.Helper()
	cfg, err := os.ReadFile(filepath.Join(dir, "config"))
	if err != nil {
		t.Fatal(err)
	}
	p := int(cfg[0x34])
	for p != 0 && cfg[p] != 0x10 {
		p = int(cfg[p+1])
	}
	if p == 0 {
		t.Fatalf("%s: no PCIe capability", dir)
	}
	ls := p + 0x12
	v := (int(cfg[ls]) | int(cfg[ls+1])<<8) &^ 0x3f0
	v |= width << 4
	cfg[ls], cfg[ls+1] = byte(v), byte(v>>8)
	if err := os.WriteFile(filepath.Join(dir, "config"), cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "current_link_width"), []byte(strconv.Itoa(width)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// renumber moves the function old under port to bus newBus, as firmware
// numbering the port's secondary bus otherwise would: its folder, the
// port's secondary_bus_number and every link to it.
func renumber(t *testing.T, root, port, old, newBDF string, newBus int) {
	t.Helper()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Rename(filepath.Join(root, port, old), filepath.Join(root, port, newBDF)))
	must(os.WriteFile(filepath.Join(root, port, "secondary_bus_number"), []byte(strconv.Itoa(newBus)+"\n"), 0o644))
	must(filepath.Walk(filepath.Join(root, "sys"), func(p string, info os.FileInfo, err error) error {
		if err != nil || info.Mode()&os.ModeSymlink == 0 {
			return err
		}
		target, err := os.Readlink(p)
		if err != nil || !strings.Contains(target, old) && filepath.Base(p) != old {
			return err
		}
		if err := os.Remove(p); err != nil {
			return err
		}
		name := p
		if filepath.Base(p) == old {
			name = filepath.Join(filepath.Dir(p), newBDF)
		}
		return os.Symlink(strings.ReplaceAll(target, old, newBDF), name)
	}))
}

// removeFunction takes the function bdf out of the tree: its folder and
// every link named after it.
func removeFunction(t *testing.T, root, dir, bdf string) {
	t.Helper()
	if err := os.RemoveAll(filepath.Join(root, dir, bdf)); err != nil {
		t.Fatal(err)
	}
	var links []string
	if err := filepath.Walk(filepath.Join(root, "sys"), func(p string, info os.FileInfo, err error) error {
		if err == nil && filepath.Base(p) == bdf {
			links = append(links, p)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	for _, l := range links {
		if err := os.Remove(l); err != nil {
			t.Fatal(err)
		}
	}
}

// diffLines is each line's differences, "what alias device: majority -> node
// (worse)", by the source's base name.
func diffLines(t *testing.T, out string) map[string][]string {
	t.Helper()
	got := map[string][]string{}
	for _, n := range fleetLines(t, out) {
		for _, d := range n.Differences {
			s := d.What + " " + strings.TrimSpace(d.Alias+" "+d.Device+" "+d.Code)
			if d.NIC != "" {
				s += " - " + d.NICAlias
			}
			if len(d.Devices) > 0 {
				s += " on " + strings.Join(d.Devices, ",")
			}
			s += ": " + d.Majority + " -> " + d.Node
			if d.Worse {
				s += " (worse)"
			}
			got[filepath.Base(n.Source)] = append(got[filepath.Base(n.Source)], s)
		}
	}
	return got
}

// TestFleetPlantedHGX: copies of fixtures/hgx-h100 (whose NIC5 is at x8
// on every copy) with one planted fault each give exactly the true
// differences, once each: NIC2 at x8 beside the common NIC5 is one link
// and one finding on NIC2 (nothing said of NIC5), a GPU renumbered under
// the same port is a rename that leaves the fleet alike, a NIC gone
// leaves its port present, and a copy with NIC5 repaired is better, not
// worse. With that repaired copy as --reference, every copy with NIC5 at
// x8 is flagged.
func TestFleetPlantedHGX(t *testing.T) {
	dir := t.TempDir()
	node := func(name string) string {
		to := filepath.Join(dir, name)
		if err := fixturetest.ExtractFile(fx("hgx-h100"), to); err != nil {
			t.Fatal(err)
		}
		return to
	}
	var sources []string
	for i := range 5 {
		sources = append(sources, node(fmt.Sprintf("n%d", i)))
	}
	x8 := node("nic2-x8")
	setLinkWidth(t, filepath.Join(x8, hgxNIC2Port), 8)
	setLinkWidth(t, filepath.Join(x8, hgxNIC2Port, "0000:3d:00.0"), 8)
	renum := node("gpu3-renumbered")
	renumber(t, renum, hgxGPU3Port, "0000:40:00.0", "0000:44:00.0", 0x44)
	gone := node("nic3-gone")
	removeFunction(t, gone, hgxNIC3Port, "0000:41:00.0")
	fixed := node("nic5-repaired")
	setLinkWidth(t, filepath.Join(fixed, hgxNIC5Port), 16)
	setLinkWidth(t, filepath.Join(fixed, hgxNIC5Port, "0000:a1:00.0"), 16)
	sources = append(sources, x8, renum, gone, fixed)

	code, out, errb := run(append([]string{"fleet", "-o", "jsonl"}, sources...)...)
	if code != ExitFindings {
		t.Fatalf("fleet: exit %d, want 3; stderr: %s", code, errb)
	}
	gpus := []string{"0000:1a:00.0", "0000:1e:00.0", "0000:3c:00.0", "0000:40:00.0", "0000:9c:00.0", "0000:a0:00.0", "0000:bc:00.0", "0000:c0:00.0"}
	// The advisor's throughput of each pair through the changed NIC: 400
	// Gb/s in the switch, 143.3 through the root complex (ACS redirect
	// reads), 92.3 across sockets; at x8, 230.5 and 82.6.
	x8Want := []string{"link NIC2 0000:3d:00.0: x16 at 32 GT/s -> x8 at 32 GT/s (worse)"}
	for i, g := range gpus {
		from, to := map[int]string{0: "143.3", 1: "143.3", 2: "400.0", 3: "400.0"}[i], "82.6"
		if from == "" {
			from = "92.3"
		}
		if i == 2 || i == 3 {
			to = "230.5"
		}
		x8Want = append(x8Want, "throughput GPU"+strconv.Itoa(i)+" "+g+" - NIC2: "+from+" Gb/s -> "+to+" Gb/s (worse)")
	}
	x8Want = append(x8Want, "finding_added link-width-degraded on 0000:3b:01.0,0000:3d:00.0:  -> warning (worse)")
	fixedWant := []string{"link NIC5 0000:a1:00.0: x8 at 32 GT/s -> x16 at 32 GT/s"}
	for i, g := range gpus {
		from, to := "82.6", map[int]string{4: "400.0", 5: "400.0", 6: "143.3", 7: "143.3"}[i]
		if to == "" {
			to = "92.3"
		}
		if i == 4 || i == 5 {
			from = "230.5"
		}
		fixedWant = append(fixedWant, "throughput GPU"+strconv.Itoa(i)+" "+g+" - NIC5: "+from+" Gb/s -> "+to+" Gb/s")
	}
	fixedWant = append(fixedWant, "finding_missing link-width-degraded on 0000:9f:01.0,0000:a1:00.0: warning -> ")
	want := map[string][]string{
		"nic2-x8":         x8Want,
		"gpu3-renumbered": {"renamed GPU3 0000:40:00.0: 0000:40:00.0 -> 0000:44:00.0"},
		"nic3-gone": {
			"missing NIC3 0000:41:00.0: 15b3:1021 NVIDIA ConnectX-7 under 0000:3f:01.0 ->  (worse)",
			"finding_added nic-shared on 0000:3c:00.0,0000:3d:00.0,0000:40:00.0:  -> info (worse)",
		},
		"nic5-repaired": fixedWant,
	}
	got := diffLines(t, out)
	for name, ds := range want {
		if !slices.Equal(got[name], ds) {
			t.Errorf("%s: differences\n%s\nwant\n%s", name, strings.Join(got[name], "\n"), strings.Join(ds, "\n"))
		}
	}
	if len(got) != len(want) {
		t.Errorf("differences for %d sources, want %d: %v", len(got), len(want), got)
	}
	for _, n := range fleetLines(t, out) {
		if alike := !slices.Contains([]string{"nic2-x8", "nic3-gone", "nic5-repaired"}, filepath.Base(n.Source)); n.Alike != alike {
			t.Errorf("%s: alike %v, want %v", n.Source, n.Alike, alike)
		}
	}
	// The renumbered GPU alone leaves the fleet alike: exit 0.
	if code, out, _ := run("fleet", sources[0], sources[1], renum); code != ExitOK || !strings.Contains(out, "renamed 0000:40:00.0 -> 0000:44:00.0 (bus renumbered, same place in the tree)") {
		t.Errorf("renumbered GPU: exit %d, output\n%s", code, out)
	}

	// With the repaired copy as the reference, the copies with NIC5 at x8
	// (all but it) are flagged, each with NIC5's link; the repaired copy
	// itself is alike.
	code, out, errb = run(append([]string{"fleet", "-o", "jsonl", "--reference", fixed}, sources...)...)
	if code != ExitFindings {
		t.Fatalf("fleet --reference: exit %d, want 3; stderr: %s", code, errb)
	}
	got = diffLines(t, out)
	nic5 := "link NIC5 0000:a1:00.0: x16 at 32 GT/s -> x8 at 32 GT/s (worse)"
	for _, n := range fleetLines(t, out) {
		name := filepath.Base(n.Source)
		if n.Reference != fixed {
			t.Errorf("%s: reference %q, want %q", name, n.Reference, fixed)
		}
		switch name {
		case "nic5-repaired":
			if !n.Alike || len(got[name]) != 0 {
				t.Errorf("the reference's own copy: alike %v, %q", n.Alike, got[name])
			}
		case "gpu3-renumbered":
			if n.Alike || !slices.Contains(got[name], nic5) || !slices.Contains(got[name], "renamed GPU3 0000:40:00.0: 0000:40:00.0 -> 0000:44:00.0") {
				t.Errorf("%s: %q", name, got[name])
			}
		default:
			if n.Alike || !slices.Contains(got[name], nic5) || strings.Count(strings.Join(got[name], "\n"), "link NIC5") != 1 {
				t.Errorf("%s: alike %v, differences %q; want NIC5's link once", name, n.Alike, got[name])
			}
		}
	}
	// -o json names the reference (the document is checked against the
	// schema with every other).
	_, js, _ := run("fleet", "-o", "json", "--reference", fixed, sources[0], x8)
	var doc struct{ Reference string }
	if err := json.Unmarshal([]byte(js), &doc); err != nil || doc.Reference != fixed {
		t.Errorf("fleet -o json --reference: reference %q, %v", doc.Reference, err)
	}
	if code, _, errb := run("fleet", "--reference", filepath.Join(dir, "absent"), sources[0]); code != ExitError || !strings.Contains(errb, "absent") {
		t.Errorf("an unreadable reference: exit %d, stderr %q", code, errb)
	}
}
