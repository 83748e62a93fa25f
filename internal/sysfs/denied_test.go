package sysfs

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/gdtopo/gdtopo/fixtures/fixturetest"
	"github.com/gdtopo/gdtopo/internal/source"
	"github.com/gdtopo/gdtopo/topology"
)

// TestUnreadableSubtree reads a capture one of whose host bridges' folders
// only root may read, as nobody (on one thread whose file system identity
// is nobody's): the functions below it are left out with one warning, and
// the graph is partial, never a machine without them.
func TestUnreadableSubtree(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to take nobody's file system identity")
	}
	base := t.TempDir()
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Dir(base), 0o755); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(base, "cap")
	if err := fixturetest.ExtractFile(filepath.Join("..", "..", "fixtures", "hgx-h100.tar.gz"), dir); err != nil {
		t.Fatal(err)
	}
	if err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.Mode()&os.ModeSymlink != 0 {
			return err
		}
		if info.IsDir() {
			return os.Chmod(p, 0o755)
		}
		return os.Chmod(p, info.Mode().Perm()|0o444) // readable by anyone: only the subtree below is not
	}); err != nil {
		t.Fatal(err)
	}
	hidden := filepath.Join(dir, "sys", "devices", "pci0000:15")
	if err := os.Chmod(hidden, 0o700); err != nil {
		t.Fatal(err)
	}
	type result struct {
		g   *topology.Graph
		err error
	}
	done := make(chan result)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
		for _, call := range []uintptr{syscall.SYS_SETFSGID, syscall.SYS_SETFSUID} {
			syscall.RawSyscall(call, 65534, 0, 0)
		}
		src, err := source.Open(dir)
		if err != nil {
			done <- result{err: err}
			return
		}
		g, err := ReadOn(src.Root, 1) // one worker: every read on this thread
		done <- result{g, err}
	}()
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	if !strings.Contains(r.g.Partial, "permission denied") {
		t.Errorf("Partial %q; want it to say a part could not be read", r.g.Partial)
	}
	gpu, _ := topology.ParseBDF("0000:1a:00.0")
	if d := r.g.Device(gpu); d != nil {
		t.Errorf("0000:1a:00.0, under the unreadable folder, read as %v", d.Kind)
	}
	n := 0
	for _, w := range r.g.Warnings {
		if strings.Contains(w.Message, "permission denied") {
			n++
			if !strings.Contains(w.Message, "0000:15:00.0") {
				t.Errorf("warning %q does not name the first function left out", w.Message)
			}
		}
	}
	if n != 1 {
		t.Errorf("%d warnings say permission denied; want one for the subtree: %v", n, r.g.Warnings)
	}
}
