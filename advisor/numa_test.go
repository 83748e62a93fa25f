//go:build unix

package advisor

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/gdtopo/gdtopo/fixtures/fixturetest"
	"github.com/gdtopo/gdtopo/internal/source"
	"github.com/gdtopo/gdtopo/internal/sysfs"
	"github.com/gdtopo/gdtopo/topology"
)

// TestNUMAUnknownSaysWhatWasRead breaks one GPU's numa_node in a copy of
// hgx-h100 and checks that the numa-unknown finding's message, evidence and
// remedy say what was read, and agree with the device's numa_from (the
// JSON's): -1 only where the file said -1, the BIOS step only then.
func TestNUMAUnknownSaysWhatWasRead(t *testing.T) {
	const bdf = "0000:1a:00.0"
	file := "sys/bus/pci/devices/" + bdf + "/numa_node"
	for _, tc := range []struct {
		name    string
		breakIt func(path string) error
		why     string // "" for a real -1
	}{
		{"missing", os.Remove, "missing"},
		{"fifo", func(p string) error {
			if err := os.Remove(p); err != nil {
				return err
			}
			return syscall.Mkfifo(p, 0o644)
		}, "not a regular file"},
		{"garbage", func(p string) error { return os.WriteFile(p, []byte("node0\n"), 0o644) }, `invalid value "node0"`},
		{"minus one", func(p string) error { return os.WriteFile(p, []byte("-1\n"), 0o644) }, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := fixturetest.Copy(t, "hgx-h100")
			real, err := filepath.EvalSymlinks(filepath.Join(dir, "sys/bus/pci/devices", bdf))
			if err != nil {
				t.Fatal(err)
			}
			if err := tc.breakIt(filepath.Join(real, "numa_node")); err != nil {
				t.Fatal(err)
			}
			src, err := source.Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			g, err := sysfs.Read(src.Root)
			if err != nil {
				t.Fatal(err)
			}
			addr, err := topology.ParseBDF(bdf)
			if err != nil {
				t.Fatal(err)
			}
			d := g.Device(addr)
			var f *Finding
			r := analyze(t, g, Options{})
			for i := range r.Findings {
				if r.Findings[i].Code == "numa-unknown" {
					f = &r.Findings[i]
				}
			}
			if f == nil {
				t.Fatalf("no numa-unknown finding; %s: raw %d, unread %q", bdf, d.RawNUMANode, d.NUMANodeUnread())
			}
			var remedy strings.Builder
			bios := false
			for _, s := range f.Remedy {
				remedy.WriteString(s.Text + " # " + s.Comment + "\n")
				bios = bios || s.Kind == RemedyBIOS
			}
			// The fixture's local CPUs lie in one node: the JSON's numa_from.
			if d.NUMAFrom != topology.NUMAFromLocalCPUs || d.NUMANode != 0 {
				t.Fatalf("numa_from %q node %d, want local_cpus 0", d.NUMAFrom, d.NUMANode)
			}
			if tc.why == "" {
				if d.NUMANodeUnread() != "" {
					t.Errorf("a read -1 marked unread: %q", d.NUMANodeUnread())
				}
				if want := "numa_node is -1 for " + bdf + " on a 2-node machine"; !strings.HasPrefix(f.Message, want) {
					t.Errorf("message %q, want it to start %q", f.Message, want)
				}
				if f.Evidence != file+" = -1" {
					t.Errorf("evidence %q", f.Evidence)
				}
				if !bios || !strings.Contains(remedy.String(), "echo 0 | sudo tee /"+file) {
					t.Errorf("want the BIOS step and the echo of the local_cpus node:\n%s", remedy.String())
				}
				return
			}
			if !strings.Contains(d.NUMANodeUnread(), tc.why) {
				t.Errorf("unread %q, want %q", d.NUMANodeUnread(), tc.why)
			}
			for _, s := range []string{f.Message, f.Evidence, remedy.String()} {
				if strings.Contains(s, "-1 for") || strings.Contains(s, "= -1") || strings.Contains(s, "is -1") {
					t.Errorf("claims -1 where the file was not read: %q", s)
				}
			}
			if !strings.Contains(f.Message, "numa_node could not be read") || !strings.Contains(f.Message, tc.why) ||
				!strings.Contains(f.Message, "node 0 taken from local_cpus") {
				t.Errorf("message %q does not say what was read and where the node came from", f.Message)
			}
			if !strings.HasPrefix(f.Evidence, file+" could not be read (") || !strings.Contains(f.Evidence, tc.why) {
				t.Errorf("evidence %q", f.Evidence)
			}
			if bios || strings.Contains(remedy.String(), "sudo tee") || !strings.Contains(remedy.String(), "cat /"+file) {
				t.Errorf("want no BIOS step and no write, a read of the file on the host:\n%s", remedy.String())
			}
		})
	}
}
