package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestUnprivilegedLive runs gdtopo on this machine's live /sys as the
// nobody user: the kernel then returns 64 bytes of config space, and the
// report must say that what lies beyond is unknown, never absent.
func TestUnprivilegedLive(t *testing.T) {
	if os.Geteuid() != 0 {
		// .ci/unprivileged runs the suite as nobody: this test is for the
		// root run, which drops to nobody itself.
		t.Skip("needs root to drop to nobody")
	}
	// Under CI (root, util-linux, a PCI tree) the test must run.
	skip := t.Skip
	if os.Getenv("CI") != "" {
		skip = t.Fatal
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		skip("setpriv (util-linux) not installed")
	}
	if _, err := os.Stat("/sys/bus/pci/devices"); err != nil {
		skip("no PCI devices in this machine's /sys")
	}
	dir, err := os.MkdirTemp("", "unpriv-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := os.Chmod(dir, 0o755); err != nil { // nobody must reach the binary
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "gdtopo")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/gdtopo/gdtopo/cmd/gdtopo").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", bin, "check", "-o", "json")
	cmd.Dir = dir
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() != ExitFindings {
		t.Fatalf("gdtopo check as nobody: %v\n%s", err, ee.Stderr)
	}
	var r struct {
		Devices []struct {
			BDF         string
			ConfigBytes int `json:"config_bytes"`
		}
		Lacks    []string
		Findings []struct{ Code string }
	}
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	short := 0
	for _, d := range r.Devices {
		if d.ConfigBytes > 64 {
			t.Errorf("%s: %d bytes of config read as nobody; the kernel gives 64", d.BDF, d.ConfigBytes)
		}
		if d.ConfigBytes == 64 {
			short++
		}
	}
	lacks := strings.Join(r.Lacks, "; ")
	if short > 0 && !strings.Contains(lacks, "needs root") {
		t.Errorf("%d functions read 64 bytes of config, but the report does not say root would tell more: %q", short, lacks)
	}
	if short > 0 && !strings.Contains(lacks, "ACS, DevCtl, link registers unknown") {
		t.Errorf("the report does not name ACS, DevCtl and the link registers as unknown: %q", lacks)
	}
	// A finding that needs ACS or DevCtl read as off must not be raised from
	// 64 bytes: those registers are unknown, not off.
	if short > 0 {
		for _, f := range r.Findings {
			switch f.Code {
			case "acs-redirect", "max-read-request-low", "relaxed-ordering-off":
				t.Errorf("finding %s raised from a 64-byte config read", f.Code)
			}
		}
	}
}
