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
	hgxGPU2Port = hgxSwitch0 + "/0000:39:00.0/0000:3a:00.0/0000:3b:00.0"
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

// setACSRedirect turns on P2P Request and Completion Redirect (ACS Control
// register, bits 2 and 3, at the ACS extended capability (ID 0x000d) + 6;
// PCIe Base Specification, ACS Extended Capability) in the config space of
// the port in dir.
func setACSRedirect(t *testing.T, dir string) {
	t.Helper()
	file := filepath.Join(dir, "config")
	cfg, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for off, n := 0x100, 0; off >= 0x100 && off+8 <= len(cfg) && n < 64; n++ {
		h := int(cfg[off]) | int(cfg[off+1])<<8 | int(cfg[off+2])<<16 | int(cfg[off+3])<<24
		if h&0xffff == 0x000d {
			cfg[off+6] |= 0x0c
			if err := os.WriteFile(file, cfg, 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		off = h >> 20
	}
	t.Fatalf("%s: no ACS capability", dir)
}

// writeFiles writes each name's content under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
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
			s := d.What + " " + strings.Join(strings.Fields(d.Alias+" "+d.Device+" "+d.Code+" "+d.Port), " ")
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
// worse. Faults of state are each their fact and its finding: ACS
// redirect at GPU2's port (and GPU2's two pairs in the switch through the
// root complex), GPU2's numa_node -1 (unknown, not the node gdtopo infers),
// NIC3's port down (its state, not its rate or its pairs' figures) and
// AER errors counted at NIC3. With that repaired copy as --reference,
// every copy with NIC5 at x8 is flagged.
func TestFleetPlantedHGX(t *testing.T) {
	t.Parallel()
	dir := fixturetest.TempDir(t)
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
	acs := node("gpu2-acs")
	setACSRedirect(t, filepath.Join(acs, hgxGPU2Port))
	numa := node("gpu2-numa")
	writeFiles(t, filepath.Join(numa, hgxGPU2Port, "0000:3c:00.0"), map[string]string{"numa_node": "-1\n"})
	down := node("nic3-port-down")
	writeFiles(t, filepath.Join(down, hgxNIC3Port, "0000:41:00.0/infiniband/mlx5_3/ports/1"),
		map[string]string{"state": "1: DOWN\n", "phys_state": "3: Disabled\n"})
	// Linux's AER counter files (drivers/pci/pcie/aer.c, aer_stats_dev_attr):
	// a kind per line, then the TOTAL_ line.
	aer := node("nic3-aer")
	writeFiles(t, filepath.Join(aer, hgxNIC3Port, "0000:41:00.0"), map[string]string{
		"aer_dev_correctable": "RxErr 0\nBadTLP 120\nBadDLLP 3\nRollover 0\nTimeout 0\nNonFatalErr 0\nCorrIntErr 0\nHeaderOF 0\nTOTAL_ERR_COR 123\n",
		"aer_dev_nonfatal":    "Undefined 0\nDLP 0\nSDES 0\nTLP 0\nFCP 0\nCmpltTO 2\nCmpltAbrt 0\nUnxCmplt 0\nRxOF 0\nMalfTLP 0\nECRC 0\nUnsupReq 0\nACSViol 0\nTOTAL_ERR_NONFATAL 2\n",
	})
	sources = append(sources, x8, renum, gone, fixed, acs, numa, down, aer)

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
		// ACS redirect at GPU2's port sends GPU2's traffic with NIC2 and
		// NIC3, in its switch, through the root complex as GPU0's goes
		// to NIC2: 143.3 Gb/s.
		"gpu2-acs": {
			"acs 0000:3b:00.0: off -> redirect (worse)",
			"throughput GPU2 0000:3c:00.0 - NIC2: 400.0 Gb/s -> 143.3 Gb/s (worse)",
			"throughput GPU2 0000:3c:00.0 - NIC3: 400.0 Gb/s -> 143.3 Gb/s (worse)",
			"finding_added acs-redirect on 0000:3b:00.0:  -> critical (worse)",
		},
		// gdtopo places GPU2 by its local_cpus, as NCCL does
		// (topology's ncclNode): no label or figure changes.
		"gpu2-numa": {
			"numa_node GPU2 0000:3c:00.0: 0 -> unknown (no numa_node; 0 from local_cpus) (worse)",
			"finding_added numa-unknown on 0000:3c:00.0:  -> warning (worse)",
		},
		// The plan leaves NIC3 out, so GPU3 shares NIC2 with GPU2.
		"nic3-port-down": {
			"port_state NIC3 0000:41:00.0 mlx5_3 port 1: ACTIVE (LinkUp) -> DOWN (Disabled) (worse)",
			"finding_added nic-shared on 0000:3c:00.0,0000:3d:00.0,0000:40:00.0:  -> info (worse)",
			"finding_added port-down on 0000:41:00.0:  -> critical (worse)",
		},
		"nic3-aer": {
			"finding_added aer-correctable on 0000:41:00.0:  -> info (worse)",
			"finding_added aer-nonfatal on 0000:41:00.0:  -> warning (worse)",
		},
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
		if alike := !slices.Contains([]string{"nic2-x8", "nic3-gone", "nic5-repaired", "gpu2-acs", "gpu2-numa", "nic3-port-down", "nic3-aer"}, filepath.Base(n.Source)); n.Alike != alike {
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
