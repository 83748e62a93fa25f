package lspcidump

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
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
