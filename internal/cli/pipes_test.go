//go:build linux

package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// pipeOf returns /dev/fd/N of a pipe that a goroutine fills with file's
// bytes, as bash's <(cat file) names one.
func pipeOf(t *testing.T, file string) string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	go func() {
		_, _ = w.Write(data)
		_ = w.Close()
	}()
	return fmt.Sprintf("/dev/fd/%d", r.Fd())
}

// runWithin is run, failing the test where it has not ended in 30 s: a
// pipe read without a writer would wait for ever.
func runWithin(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	type result struct {
		code     int
		out, err string
	}
	done := make(chan result, 1)
	go func() {
		code, out, errb := run(args...)
		done <- result{code, out, errb}
	}()
	select {
	case r := <-done:
		return r.code, r.out, r.err
	case <-time.After(30 * time.Second):
		t.Fatalf("%q: still running after 30 s", args)
	}
	return 0, "", ""
}

// TestSourcesThroughPipes: check and compare read a SOURCE given as a pipe
// (<(cat FILE), a FIFO) as they read FILE: the same output, under the
// pipe's name. An lspci dump and a snapshot archive are both recognised
// from the stream.
func TestSourcesThroughPipes(t *testing.T) {
	lspci := filepath.Join("..", "..", "..", "shared", "corpus", "lspci")
	a := filepath.Join(lspci, "lenovo-sd665n-v3-4xh100-genoa.lspci-t-vvv.txt")
	b := filepath.Join(lspci, "nccl-tests-256-h200-vm.partial.lspci-tv.txt")
	if _, err := os.Stat(a); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("corpus missing in CI: %v", err)
		}
		t.Logf("corpus not here, its lspci dumps replaced by fixtures (they run in CI): %v", err)
		a, b = fx("hgx-h100"), fx("recorded-vm")
	}
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	fillFIFO := func(file string) {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		go func() { // blocks until the command opens the FIFO to read
			if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
				_, _ = f.Write(data)
				_ = f.Close()
			}
		}()
	}
	same := func(what string, args []string, files, streams []string) {
		t.Helper()
		code, want, werr := run(append(args, files...)...)
		if code != ExitOK && code != ExitFindings {
			t.Fatalf("%s of the files: exit %d: %s", what, code, werr)
		}
		gcode, got, gerr := runWithin(t, append(args, streams...)...)
		for i := range files {
			got = strings.ReplaceAll(got, streams[i], files[i])
		}
		if gcode != code || gerr != werr || got != want {
			t.Errorf("%s through pipes: exit %d, stderr %q, output differs: %v; want exit %d, stderr %q, the files' output",
				what, gcode, gerr, got != want, code, werr)
		}
	}
	same("check", []string{"check"}, []string{a}, []string{pipeOf(t, a)})
	same("check of an archive", []string{"check", "-o", "json"}, []string{fx("dgx-a100")}, []string{pipeOf(t, fx("dgx-a100"))})
	fillFIFO(b)
	same("compare", []string{"compare", "-o", "json"}, []string{a, b}, []string{pipeOf(t, a), fifo})
}

// TestEmptyAndSpecialSources: /dev/null, a character device, reads as an
// empty stream; a socket is refused. Each is one line naming the input.
func TestEmptyAndSpecialSources(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "sock")
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	if err := syscall.Bind(fd, &syscall.SockaddrUnix{Name: sock}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, want string }{
		{"/dev/null", "gdtopo: /dev/null: empty input\n"},
		{sock, "gdtopo: " + sock + ": a socket: give a folder, a snapshot archive, a text dump (lspci, NCCL or hwloc XML), a pipe, or - for standard input\n"},
	} {
		code, out, errb := runWithin(t, "check", c.name)
		if code != ExitError || out != "" || errb != c.want {
			t.Errorf("check %s: exit %d, %q, %q; want exit 1 and %q", c.name, code, out, errb, c.want)
		}
	}
}
