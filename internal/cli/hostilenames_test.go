package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestHostileNames gives a capture an InfiniBand device whose name holds
// shell syntax and a terminal escape, read from a SOURCE path holding a
// newline and an OSC sequence: the report must carry no control character
// but newlines, and the rank settings must reach a shell as plain words.
func TestHostileNames(t *testing.T) {
	const evil = "mlx5_0;id;$(touch pwned)\x1b[2J"
	dir := filepath.Join(t.TempDir(), "cap\nture\x1b]0;owned\x07")
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "..", "fixtures", "hgx-h100"))); err != nil {
		t.Fatal(err)
	}
	class := filepath.Join(dir, "sys", "class", "infiniband")
	target, err := os.Readlink(filepath.Join(class, "mlx5_0"))
	if err != nil {
		t.Fatal(err)
	}
	devDir := filepath.Join(class, filepath.Dir(target))
	if err := os.Rename(filepath.Join(devDir, "mlx5_0"), filepath.Join(devDir, evil)); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(class, "mlx5_0")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(filepath.Dir(target), evil), filepath.Join(class, evil)); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := run("check", dir)
	if code != ExitOK && code != ExitFindings {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, s := range []string{out, errOut} {
		if i := strings.IndexFunc(s, func(r rune) bool { return r < ' ' && r != '\n' || r == 0x7f }); i >= 0 {
			t.Errorf("a control character reaches the terminal: %q", s[max(0, i-40):min(len(s), i+40)])
		}
	}
	var line string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "NCCL_IB_HCA=") && strings.Contains(l, "touch") {
			line = strings.TrimSpace(l[strings.Index(l, ":")+1:])
		}
	}
	if line == "" {
		t.Fatalf("no rank setting names the device:\n%s", out)
	}
	work := t.TempDir()
	cmd := exec.Command("sh", "-c", "printf '%s\\n' "+line)
	cmd.Dir = work
	got, err := cmd.Output()
	if err != nil {
		t.Fatalf("sh: %v", err)
	}
	if _, err := os.Stat(filepath.Join(work, "pwned")); err == nil {
		t.Errorf("pasting %q into a shell ran a command", line)
	}
	if !strings.Contains(string(got), "NCCL_IB_HCA==mlx5_0;id;$(touch pwned)\\x1b[2J\n") {
		t.Errorf("the shell read the setting as %q", got)
	}
}
