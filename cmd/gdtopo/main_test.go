package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// runMainEnv makes the test binary run gdtopo's main instead of the tests,
// so that the tests below run the real program (its runtime, its signal
// handling, its standard streams) as a subprocess without building it.
const runMainEnv = "GDTOPO_TEST_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(runMainEnv) == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

// result is how a gdtopo process ended.
type result struct {
	code           int            // exit status; -1 when killed by a signal
	signal         syscall.Signal // the signal that killed it
	stdout, stderr string
}

// gdtopo runs gdtopo with args through /bin/sh, which first runs setup
// (ulimit, redirections); stdout, when not nil, is the process's standard
// output.
func gdtopo(t *testing.T, setup string, stdout *os.File, args ...string) result {
	t.Helper()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh to run gdtopo with")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	script := `exec "$0" "$@"`
	if setup != "" {
		script = setup + " && " + script
	}
	cmd := exec.Command(sh, append([]string{"-c", script, self}, args...)...)
	cmd.Env = append(os.Environ(), runMainEnv+"=1")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if stdout != nil {
		cmd.Stdout = stdout
	}
	err = cmd.Run()
	res := result{stdout: out.String(), stderr: errb.String()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		res.code = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			res.signal = ws.Signal()
		}
	default:
		t.Fatal(err)
	}
	return res
}

// outputs are commands that write a file, less the file's name.
func outputs() [][]string {
	src := filepath.Join("..", "..", "fixtures", "dgx-a100.tar.gz")
	return [][]string{
		{"snapshot", src, "--output-file"},
		{"export", "-o", "svg", src, "--output-file"},
		{"export", "-o", "nccl-xml", src, "--output-file"},
	}
}

// checkFailed checks that r is exit status 1 (not a signal) with one
// line on stderr starting with want, and that dir is empty.
func checkFailed(t *testing.T, what string, r result, want, dir string) {
	t.Helper()
	if r.code != 1 || r.signal != 0 {
		t.Errorf("%s: exit %d (signal %v), want 1", what, r.code, r.signal)
	}
	if lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n"); len(lines) != 1 || !strings.HasPrefix(lines[0], want) {
		t.Errorf("%s: stderr %q; want one line starting %q", what, r.stderr, want)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("%s: left %v behind", what, names)
	}
}

// TestFileSizeLimit runs gdtopo with RLIMIT_FSIZE (ulimit -f) below the
// size of what it writes, which fails a write the way a full disk does, but
// with EFBIG. Go's runtime catches SIGXFSZ and, as nobody asked for it,
// ignores it, so the write fails with EFBIG rather than the kernel's default
// action killing the process: exit status 1 and one line saying so, and no
// file or temporary file left.
func TestFileSizeLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("runs gdtopo as a subprocess")
	}
	const limit = "ulimit -f 4" // 4 blocks: 2 or 4 KiB, by shell
	for _, command := range outputs() {
		name := strings.Join(command[:len(command)-2], " ")
		whole := filepath.Join(t.TempDir(), "whole")
		if r := gdtopo(t, "", nil, append(command, whole)...); r.code != 0 {
			t.Fatalf("%s: exit %d: %s", name, r.code, r.stderr)
		}
		if info, err := os.Stat(whole); err != nil || info.Size() <= 4<<10 {
			t.Fatalf("%s: %v; want a file over 4 KiB to exceed the limit", name, err)
		}
		dir := t.TempDir()
		out := filepath.Join(dir, "out")
		r := gdtopo(t, limit, nil, append(command, out)...)
		checkFailed(t, name, r, "gdtopo: write "+out+": file too large (over the file size limit, ulimit -f", dir)
	}

	// Standard output redirected to a file, under the same limit.
	f, err := os.Create(filepath.Join(t.TempDir(), "stdout.svg"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := gdtopo(t, limit, f, "export", "-o", "svg", filepath.Join("..", "..", "fixtures", "dgx-a100.tar.gz"))
	if r.code != 1 || r.signal != 0 || r.stderr != "gdtopo: write standard output: file too large (over the file size limit, ulimit -f, or the largest file the file system allows: raise the limit or write elsewhere)\n" {
		t.Errorf("stdout over the limit: exit %d (signal %v), stderr %q", r.code, r.signal, r.stderr)
	}
}

// TestDiskFull writes to a real full disk: a 4 KiB tmpfs, which needs root
// and a mount that works (skipped otherwise; TestOutputFileDiskFull in
// internal/cli covers the same with an injected file system).
func TestDiskFull(t *testing.T) {
	if testing.Short() {
		t.Skip("runs gdtopo as a subprocess")
	}
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs needs root")
	}
	mnt := filepath.Join(t.TempDir(), "small")
	if err := os.Mkdir(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", mnt, "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV, "size=4k,mode=0755"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("cannot mount a tmpfs as root: %v (CI runs this test as root where mounts work)", err)
		}
		t.Skipf("cannot mount a tmpfs: %v", err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(mnt, syscall.MNT_DETACH); err != nil {
			t.Errorf("unmount %s: %v", mnt, err)
		}
	})
	for _, command := range outputs() {
		name := strings.Join(command[:len(command)-2], " ")
		out := filepath.Join(mnt, "out")
		r := gdtopo(t, "", nil, append(command, out)...)
		checkFailed(t, name, r, "gdtopo: write "+out+": no space left on device (the disk is full: free some space or write elsewhere)", mnt)
	}
	// Standard output redirected to the full disk.
	f, err := os.Create(filepath.Join(mnt, "stdout.svg"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := gdtopo(t, "", f, "export", "-o", "svg", filepath.Join("..", "..", "fixtures", "dgx-a100.tar.gz"))
	if r.code != 1 || r.stderr != "gdtopo: write standard output: no space left on device (the disk is full: free some space or write elsewhere)\n" {
		t.Errorf("stdout to a full disk: exit %d (signal %v), stderr %q", r.code, r.signal, r.stderr)
	}
}

// TestClosedPipe runs gdtopo with standard output a pipe whose reader has
// gone, as in gdtopo check | head -1 once head has exited. Go's runtime ends
// a program whose write to standard output fails with EPIPE by SIGPIPE, as
// cat and grep end: quietly (the shell shows status 141 only with
// pipefail). gdtopo keeps that convention.
func TestClosedPipe(t *testing.T) {
	if testing.Short() {
		t.Skip("runs gdtopo as a subprocess")
	}
	src := filepath.Join("..", "..", "fixtures", "dgx-a100.tar.gz")
	for _, args := range [][]string{
		{"check", src},
		{"check", src, src, "-o", "jsonl"},
		{"export", "-o", "svg", src},
	} {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		r.Close()
		res := gdtopo(t, "", w, args...)
		w.Close()
		if res.signal != syscall.SIGPIPE || res.stderr != "" {
			t.Errorf("gdtopo %s into a closed pipe: exit %d, signal %v, stderr %q; want SIGPIPE and nothing on stderr",
				strings.Join(args, " "), res.code, res.signal, res.stderr)
		}
	}
}
