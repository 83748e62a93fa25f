package lspcidump

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/gdtopo/gdtopo/internal/source"
	"github.com/gdtopo/gdtopo/internal/sysfs"
	"github.com/gdtopo/gdtopo/topology"
)

// TestHexDumpAgreesWithLspci feeds each fixture's `lspci -xxxx` dump back to
// lspci itself (`lspci -F dump -vvv`), the peer that decodes the same bytes,
// and requires gdtopo's reading of the hex dump to agree with its reading of
// lspci's decoding: IDs, class, port types, links, ACS and DevCtl.
func TestHexDumpAgreesWithLspci(t *testing.T) {
	for _, dir := range lspciFixtures(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			dump := filepath.Join(t.TempDir(), "dump.txt")
			if err := os.WriteFile(dump, lspciOn(t, dir, "-xxxx", "-D"), 0o644); err != nil {
				t.Fatal(err)
			}
			peer, err := exec.Command("lspci", "-F", dump, "-vvv", "-D", "-nn").Output()
			if err != nil {
				t.Fatalf("lspci -F: %v", err)
			}
			hexData, _ := os.ReadFile(dump)
			fromHex, err := Parse("hex", hexData)
			if err != nil {
				t.Fatal(err)
			}
			fromPeer, err := Parse("lspci -F", peer)
			if err != nil {
				t.Fatal(err)
			}
			if len(fromHex.Devices) != len(fromPeer.Devices) {
				t.Fatalf("%d functions from the hex dump, %d from lspci -F", len(fromHex.Devices), len(fromPeer.Devices))
			}
			for i, h := range fromHex.Devices {
				p := fromPeer.Devices[i]
				if h.Addr != p.Addr || h.VendorID != p.VendorID || h.DeviceID != p.DeviceID || h.Class>>8 != p.Class>>8 ||
					h.Role != p.Role || h.Link != p.Link || h.ACSKnown != p.ACSKnown || h.ACSRedirect != p.ACSRedirect ||
					h.DevCtlKnown != p.DevCtlKnown || h.MaxReadRequest != p.MaxReadRequest || h.RelaxedOrdering != p.RelaxedOrdering {
					t.Errorf("%s: hex dump %+v %s %+v acs %v/%v devctl %v %d %v;\n lspci -F %+v %s %+v acs %v/%v devctl %v %d %v",
						h.BDF(), [3]uint32{uint32(h.VendorID), uint32(h.DeviceID), h.Class}, h.Role, h.Link, h.ACSKnown, h.ACSRedirect, h.DevCtlKnown, h.MaxReadRequest, h.RelaxedOrdering,
						[3]uint32{uint32(p.VendorID), uint32(p.DeviceID), p.Class}, p.Role, p.Link, p.ACSKnown, p.ACSRedirect, p.DevCtlKnown, p.MaxReadRequest, p.RelaxedOrdering)
				}
			}
		})
	}
}

// TestEveryFormNeverConfidentlyWrong runs the real lspci on every fixture
// in each form a user pastes, alone, and reads it back: every pair of
// accelerators and NICs gets the sysfs tree's nvidia-smi label, or a label
// marked uncertain where that form lacks what decides it (plain lspci has
// no hierarchy; -tv, -PP and -xxxx have no NUMA nodes). A different
// confident label fails. NCCL's label is held to the same rule: where the
// form lacks a Broadcom switch's subsystem IDs, which decide NCCL's
// flattening, it must be marked (NCCLUncertain).
func TestEveryFormNeverConfidentlyWrong(t *testing.T) {
	forms := []struct {
		name string
		args []string
	}{
		{"plain", nil},
		{"nn", []string{"-nn"}},
		{"tv", []string{"-tv"}},
		{"tvnn", []string{"-tvnn"}},
		{"tv-D", []string{"-tv", "-D"}},
		{"vvv", []string{"-vvv"}},
		{"vvvnn-D", []string{"-vvv", "-nn", "-D"}},
		{"vmm", []string{"-vmm"}},
		{"Dnnvmmk", []string{"-Dnnvmmk"}},
		{"PP", []string{"-PP"}},
		{"PPnn-D", []string{"-PP", "-nn", "-D"}},
		{"xxxx", []string{"-xxxx"}},
		{"xxxx-D", []string{"-xxxx", "-D"}},
	}
	for _, dir := range lspciFixtures(t) {
		src, err := source.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		want, err := sysfs.Read(src.Root)
		if err != nil {
			t.Fatal(err)
		}
		wantPairs := want.Pairs()
		for _, f := range forms {
			t.Run(filepath.Base(dir)+"/"+f.name, func(t *testing.T) {
				got, err := Parse(f.name, lspciOn(t, dir, f.args...))
				if err != nil {
					t.Fatal(err)
				}
				var wrong []string
				checked := 0
				// Pairs where the form tells the same kinds: NCCL's P2C is
				// decided over all of an accelerator's NICs at once.
				gotPairs := map[[2]topology.BDF]topology.Pair{}
				for _, q := range got.Pairs() {
					gotPairs[[2]topology.BDF{q.A.Addr, q.B.Addr}] = q
				}
				for _, p := range wantPairs {
					a, b := got.Device(p.A.Addr), got.Device(p.B.Addr)
					if a == nil || b == nil {
						wrong = append(wrong, fmt.Sprintf("%s-%s: missing", p.A.BDF(), p.B.BDF()))
						continue
					}
					q, ok := gotPairs[[2]topology.BDF{p.A.Addr, p.B.Addr}]
					if !ok {
						q = got.Classify(a, b)
					}
					checked++
					if !q.LabelUncertain && q.SMI != p.SMI || !q.LabelUncertain && !q.NCCLUncertain && q.NCCL != p.NCCL {
						wrong = append(wrong, fmt.Sprintf("%s-%s: %s/%s, sysfs says %s/%s", p.A.BDF(), p.B.BDF(), q.SMI, q.NCCL, p.SMI, p.NCCL))
					}
				}
				if len(wantPairs) > 0 && checked == 0 {
					t.Error("no pair checked")
				}
				for i, w := range wrong {
					if i == 5 {
						t.Errorf("... and %d more", len(wrong)-5)
						break
					}
					t.Error(w)
				}
			})
		}
	}
}
