package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gdtopo/gdtopo/fixtures/fixturetest"
	"github.com/gdtopo/gdtopo/topology"
)

// TestHostileNames gives a capture an InfiniBand device whose name holds
// shell syntax and a terminal escape, read from a SOURCE path holding a
// newline and an OSC sequence: the report must carry no control character
// but newlines, and the rank settings must reach a shell as plain words.
func TestHostileNames(t *testing.T) {
	const evil = "mlx5_0;id;$(touch pwned)\x1b[2J"
	dir := filepath.Join(t.TempDir(), "cap\nture\x1b]0;owned\x07")
	captureWithNIC(t, dir, evil)
	code, out, errOut := run("check", "-v", dir)
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
	// NCCL_IB_HCA is one list for every rank (NVIDIA/nccl#1478): the hostile
	// name is its first entry, read back as one word.
	if !strings.Contains(string(got), "NCCL_IB_HCA==mlx5_0;id;$(touch pwned)\\x1b[2J,mlx5_1,") {
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
	fixture := fx("hgx-h100")
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

// TestPairEndsBound gives lspci text of many accelerators and NICs: past
// topology.MaxPairEnds it is one line and exit 1, read in memory that grows
// with the text, not with the square of it; at the bound it is analysed.
func TestPairEndsBound(t *testing.T) {
	text := func(acc, nic int) string {
		var b strings.Builder
		for i := range acc {
			fmt.Fprintf(&b, "%02x:%02x.0 3D controller [0302]: NVIDIA Corporation GH100 [H100 SXM5 80GB] [10de:2330] (rev a1)\n", i%250+1, i/250)
		}
		for i := range nic {
			fmt.Fprintf(&b, "%02x:%02x.0 Infiniband controller [0207]: Mellanox Technologies MT2910 Family [ConnectX-7] [15b3:1021]\n", i%250+1, i/250+8)
		}
		return b.String()
	}
	dir := t.TempDir()
	over, at := filepath.Join(dir, "over.txt"), filepath.Join(dir, "at.txt")
	if err := os.WriteFile(over, []byte(text(300, 300)), 0o644); err != nil {
		t.Fatal(err)
	}
	half := topology.MaxPairEnds / 2
	if err := os.WriteFile(at, []byte(text(half, half)), 0o644); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	code, _, errOut := run("check", over)
	runtime.ReadMemStats(&after)
	if code != ExitError || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "300 accelerators and 300 NICs") {
		t.Errorf("600 ends: exit %d, %q; want exit 1 and one line", code, errOut)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 32<<20 {
		t.Errorf("600 ends: %d MiB allocated; want under 32 MiB", alloc>>20)
	}
	if code, _, errOut := run("check", at); code != ExitOK && code != ExitFindings {
		t.Errorf("%d ends: exit %d, %s; want it analysed", 2*half, code, errOut)
	}
}

// TestFleetSurvivesHostileSource runs check -o jsonl over two good captures
// with hostile sources between them (a FIFO where an attribute should be,
// lspci text of 600 accelerators and NICs, a gzip bomb, a missing path):
// the run ends in time with exit 1, one error line per bad source, and the
// good sources' lines exactly as each gives alone.
func TestFleetSurvivesHostileSource(t *testing.T) {
	dir := t.TempDir()
	good1 := fx("hgx-h100")
	good2 := fx("dgx-a100")
	fifoCap := filepath.Join(dir, "fifo")
	if err := fixturetest.ExtractFile(fx("recorded-vm"), fifoCap); err != nil {
		t.Fatal(err)
	}
	attr := filepath.Join(vmDevice(t, fifoCap), "numa_node")
	if err := os.Remove(attr); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(attr, 0o644); err != nil {
		t.Fatal(err)
	}
	var many strings.Builder
	for i := range 600 {
		fmt.Fprintf(&many, "%02x:%02x.0 3D controller [0302]: NVIDIA Corporation GH100 [10de:2330]\n", i%250+1, i/250)
	}
	lspci := filepath.Join(dir, "many.txt")
	if err := os.WriteFile(lspci, []byte(many.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	bomb := gzipBomb(t, filepath.Join(dir, "bomb.tar.gz"))
	missing := filepath.Join(dir, "missing")
	alone := func(src string) string {
		_, out, _ := run("check", "-o", "jsonl", src, src)
		return strings.SplitN(out, "\n", 2)[0]
	}
	done := make(chan [3]string, 1)
	go func() {
		code, out, errOut := run("check", "-o", "jsonl", good1, fifoCap, lspci, bomb, missing, good2)
		done <- [3]string{strconv.Itoa(code), out, errOut}
	}()
	var r [3]string
	select {
	case r = <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("the fleet run still runs after 60 s")
	}
	lines := strings.Split(strings.TrimRight(r[1], "\n"), "\n")
	if r[0] != "1" || len(lines) != 6 {
		t.Fatalf("exit %s, %d lines; want exit 1 and a line per source:\n%s\n%s", r[0], len(lines), r[1], r[2])
	}
	if lines[0] != alone(good1) || lines[5] != alone(good2) {
		t.Errorf("a good source's line changed beside hostile ones")
	}
	for _, bad := range []string{lspci, bomb, missing} {
		if strings.Count(r[2], bad) != 1 {
			t.Errorf("stderr names %s %d times; want one line:\n%s", bad, strings.Count(r[2], bad), r[2])
		}
	}
}

// TestMarkdownHeadingOneLine: a source whose name holds a newline keeps
// the markdown headings of check and tree on one line (the newline escaped
// as \n), and compare's verdict names it on one line.
func TestMarkdownHeadingOneLine(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cap\nture")
	if err := fixturetest.ExtractFile(fx("hgx-h100"), dir); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"check", "-o", "markdown", dir},
		{"tree", "-o", "markdown", dir},
		{"compare", "-o", "markdown", dir, "../../fixtures/sys-4029gp-v100.tar.gz"},
	} {
		code, out, errOut := run(args...)
		if code != ExitOK && code != ExitFindings {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "ture") {
				t.Errorf("%v: the source's name splits a line:\n%s", args[:3], out)
				break
			}
		}
		if !strings.Contains(out, `cap\nture`) {
			t.Errorf("%v: the name is not shown escaped:\n%s", args[:3], out)
		}
	}
}

// captureWithNIC unpacks hgx-h100 into dir with its first InfiniBand
// device mlx5_0 renamed to name (its folder and its class link).
func captureWithNIC(t *testing.T, dir, name string) {
	t.Helper()
	if err := fixturetest.ExtractFile(fx("hgx-h100"), dir); err != nil {
		t.Fatal(err)
	}
	class := filepath.Join(dir, "sys", "class", "infiniband")
	target, err := os.Readlink(filepath.Join(class, "mlx5_0"))
	if err != nil {
		t.Fatal(err)
	}
	devDir := filepath.Join(class, filepath.Dir(target))
	if err := os.Rename(filepath.Join(devDir, "mlx5_0"), filepath.Join(devDir, name)); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(class, "mlx5_0")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(filepath.Dir(target), name), filepath.Join(class, name)); err != nil {
		t.Fatal(err)
	}
}
