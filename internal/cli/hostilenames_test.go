package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
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

// TestHostileFlagFiles gives --model and --pci-ids what a stranger's
// script might: a FIFO (no writer: reading it would wait for ever), a
// sparse 400 MB file, trailing garbage, a missing file. Each ends within
// the deadline in exit 1 with one short line naming the flag's file.
func TestHostileFlagFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	huge := filepath.Join(dir, "huge.json")
	if f, err := os.Create(huge); err != nil {
		t.Fatal(err)
	} else if err := f.Truncate(400 << 20); err != nil {
		t.Fatal(err)
	} else {
		f.Close()
	}
	trailing := filepath.Join(dir, "trailing.json")
	if err := os.WriteFile(trailing, []byte(`{} {"rest": 1} garbage`), 0o644); err != nil {
		t.Fatal(err)
	}
	fixture := filepath.Join("..", "..", "fixtures", "hgx-h100")
	for _, c := range []struct{ flag, file, want string }{
		{"--model", fifo, "not a regular file"},
		{"--model", huge, "over the 64 KiB"},
		{"--model", trailing, "more after the JSON object"},
		{"--pci-ids", fifo, "not a regular file"},
		{"--pci-ids", filepath.Join(dir, "nonexistent"), "no such file or directory"},
	} {
		done := make(chan [3]string, 1)
		go func() {
			code, _, errOut := run("check", c.flag, c.file, fixture)
			done <- [3]string{strconv.Itoa(code), errOut}
		}()
		select {
		case r := <-done:
			if r[0] != "1" || strings.Count(r[1], "\n") != 1 || !strings.Contains(r[1], c.file) || !strings.Contains(r[1], c.want) || len(r[1]) > 300 {
				t.Errorf("%s %s: exit %s, %q; want exit 1 and one line naming it, saying %q", c.flag, c.file, r[0], r[1], c.want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s %s: still running after 10 s", c.flag, c.file)
		}
	}
}
