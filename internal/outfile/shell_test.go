package outfile_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"

	"github.com/gdtopo/gdtopo/internal/outfile"
)

// TestModeFromUmask: a new file gets 0666 less the umask, as a shell's >
// makes it; a replaced file keeps its permissions.
func TestModeFromUmask(t *testing.T) {
	dir := t.TempDir()
	old := syscall.Umask(0o077) // the tests of this package run one at a time
	defer syscall.Umask(old)
	name := filepath.Join(dir, "new.svg")
	if err := outfile.Write(name, outfile.Options{}, writeAll([]byte("x"))); err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat(name); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("new file under umask 077: %v, %v; want 0600", info.Mode().Perm(), err)
	}
	syscall.Umask(0o022)
	kept := filepath.Join(dir, "kept.svg")
	if err := os.WriteFile(kept, []byte("old"), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(kept, 0o640); err != nil {
		t.Fatal(err)
	}
	if err := outfile.Write(kept, outfile.Options{}, writeAll([]byte("x"))); err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat(kept); err != nil || info.Mode().Perm() != 0o640 {
		t.Errorf("replaced 0640 file: %v, %v; want 0640 kept", info.Mode().Perm(), err)
	}
}

// TestNoReplacingWhatTheUserCannotWrite: as nobody, a root-owned 0444 file
// in a folder anyone may write is refused, as a shell's > refuses it, and
// left as it was; renaming over it would have replaced it. The check runs
// on one thread whose file system identity (setfsuid) is nobody's.
func TestNoReplacingWhatTheUserCannotWrite(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to take nobody's file system identity")
	}
	dir := t.TempDir()
	if err := os.Chmod(filepath.Dir(dir), 0o755); err != nil { // nobody must reach dir
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(dir, "root.svg")
	if err := os.WriteFile(name, []byte("root's"), 0o444); err != nil {
		t.Fatal(err)
	}
	done := make(chan error)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
		if err := setfs(65534); err != nil {
			done <- err
			return
		}
		done <- outfile.Write(name, outfile.Options{}, writeAll([]byte("nobody's")))
	}()
	err := <-done
	if !errors.Is(err, fs.ErrPermission) {
		t.Errorf("Write as nobody over a root-owned 0444 file: %v; want permission denied", err)
	}
	if b, _ := os.ReadFile(name); string(b) != "root's" {
		t.Errorf("the file holds %q; want it as it was", b)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d entries in the folder; want the file alone", len(entries))
	}
}

// setfs sets the calling thread's file system user and group to id.
func setfs(id int) error {
	if _, _, e := syscall.RawSyscall(syscall.SYS_SETFSGID, uintptr(id), 0, 0); e != 0 {
		return e
	}
	if _, _, e := syscall.RawSyscall(syscall.SYS_SETFSUID, uintptr(id), 0, 0); e != 0 {
		return e
	}
	return nil
}
