//go:build linux

package source

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestFolderAnswersAsTheTree reads every kind of entry a captured folder
// can hold through OpenFolder and through the tree: the same content or
// the same error, word for word, and the tree's rules kept (links out of
// the folder refused, a link inside followed, a FIFO not read, a device
// node, made only as root, not opened). The sysfs-view form of a tree (a
// mounted sysfs given as the folder) is read the same way.
func TestFolderAnswersAsTheTree(t *testing.T) {
	top := t.TempDir()
	secret := filepath.Join(top, "secret")
	if err := os.WriteFile(secret, []byte("TOP-SECRET"), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(top, "capture")
	dev := filepath.Join(dir, "sys", "devices", "pci0000:00", "0000:00:01.0")
	for _, d := range []string{filepath.Join(dev, "sub"), filepath.Join(dir, "sys", "bus", "pci", "devices")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, data := range map[string]string{"vendor": "0x10de\n", "sub/rate": "400\n", "unreadable": "x"} {
		if err := os.WriteFile(filepath.Join(dev, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(filepath.Join(dev, "unreadable"), 0); err != nil {
		t.Fatal(err)
	}
	for name, to := range map[string]string{
		"numa_node": secret, "resource": "../../../../secret", "stdin": "/proc/self/fd/0",
		"class": "vendor", "up": "../../../devices/pci0000:00/0000:00:01.0/vendor",
		"driver": "../../../bus/pci/drivers/nvidia", "dangling": "nowhere",
	} {
		if err := os.Symlink(to, filepath.Join(dev, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(dev, "config"), 0o644); err != nil {
		t.Fatal(err)
	}
	names := []string{"vendor", "unreadable", "numa_node", "resource", "stdin", "class", "up", "driver",
		"dangling", "config", "missing", "sub", "sub/rate", "."}
	if os.Geteuid() == 0 {
		if err := syscall.Mknod(filepath.Join(dev, "irq"), syscall.S_IFCHR|0o644, 1<<8|5); err != nil { // a zero device
			t.Fatal(err)
		}
		names = append(names, "irq")
	}
	for _, c := range []struct{ open, prefix string }{{dir, "sys/"}, {filepath.Join(dir, "sys"), "sys/"}} {
		src, err := Open(c.open)
		if err != nil {
			t.Fatal(err)
		}
		base := c.prefix + "devices/pci0000:00/0000:00:01.0"
		o, ok := src.Root.(interface{ OpenFolder(string) (fs.FS, error) })
		if !ok {
			t.Fatalf("%s: %T opens no folders", c.open, src.Root)
		}
		folder, err := o.OpenFolder(base)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range names {
			inTree := base + "/" + name
			if name == "." {
				inTree = base
			}
			want, werr := readWithin(t, src.Root, inTree)
			got, gerr := readWithin(t, folder, name)
			if string(got) != string(want) || errText(gerr) != errText(werr) {
				t.Errorf("%s %s: folder read %q, %v; the tree %q, %v", c.open, name, got, gerr, want, werr)
			}
			if string(got) == "TOP-SECRET" || errors.Is(gerr, errNotRegular) != errors.Is(werr, errNotRegular) {
				t.Errorf("%s %s: the tree's rules broken: %q, %v", c.open, name, got, gerr)
			}
			wl, werr := fs.ReadLink(src.Root, inTree)
			gl, gerr := fs.ReadLink(folder, name)
			if gl != wl || errText(gerr) != errText(werr) {
				t.Errorf("%s %s: folder link %q, %v; the tree %q, %v", c.open, name, gl, gerr, wl, werr)
			}
		}
		if got, err := readWithin(t, folder, "class"); err != nil || string(got) != "0x10de\n" {
			t.Errorf("a link inside the folder: %q, %v; want it followed", got, err)
		}
		if _, err := readWithin(t, folder, "config"); !errors.Is(err, errNotRegular) {
			t.Errorf("FIFO: %v; want %v", err, errNotRegular)
		}
		want, werr := fs.ReadDir(src.Root, base)
		got, gerr := fs.ReadDir(folder, ".")
		if werr != nil || gerr != nil || len(got) != len(want) {
			t.Fatalf("ReadDir: %d entries, %v; the tree %d, %v", len(got), gerr, len(want), werr)
		}
		for i := range got {
			if got[i].Name() != want[i].Name() || got[i].Type() != want[i].Type() {
				t.Errorf("ReadDir entry %d: %s %v; the tree %s %v", i, got[i].Name(), got[i].Type(), want[i].Name(), want[i].Type())
			}
		}
		if os.Geteuid() != 0 { // root searches any folder
			// A folder that may be read but not searched: the tree refuses
			// to list it, and so must the folder.
			sub := filepath.Join(dev, "sub")
			if err := os.Chmod(sub, 0o600); err != nil {
				t.Fatal(err)
			}
			locked, err := o.OpenFolder(base + "/sub")
			if err != nil {
				t.Fatal(err)
			}
			want, werr := fs.ReadDir(src.Root, base+"/sub")
			got, gerr := fs.ReadDir(locked, ".")
			if len(got) != len(want) || errText(gerr) != errText(werr) {
				t.Errorf("unsearchable ReadDir: %d entries, %v; the tree %d, %v", len(got), gerr, len(want), werr)
			}
			_ = locked.(io.Closer).Close()
			if err := os.Chmod(sub, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		for _, name := range []string{"sub/../vendor", "/vendor", ""} {
			if _, err := folder.Open(name); !errors.Is(err, fs.ErrInvalid) {
				t.Errorf("%q: %v; want %v", name, err, fs.ErrInvalid)
			}
		}
		if err := folder.(io.Closer).Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// readWithin reads name in fsys whole, failing the test if that takes
// over 5 seconds (a read blocked on a FIFO).
func readWithin(t *testing.T, fsys fs.FS, name string) ([]byte, error) {
	t.Helper()
	return readAll(t, func() (fs.File, error) { return fsys.Open(name) })
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestLiveFolder reads a folder of a live-style tree (links followed as the
// kernel made them) through OpenFolder and through the tree.
func TestLiveFolder(t *testing.T) {
	dir := t.TempDir()
	dev := filepath.Join(dir, "sys", "devices", "pci0000:00", "0000:00:01.0")
	if err := os.MkdirAll(dev, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dev, "config"), make([]byte, 64), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../../../bus/pci/drivers/nvme", filepath.Join(dev, "driver")); err != nil {
		t.Fatal(err)
	}
	live := newRawDir(dir)
	base := "sys/devices/pci0000:00/0000:00:01.0"
	folder, err := live.(rawDir).OpenFolder(base)
	if err != nil {
		t.Fatal(err)
	}
	defer folder.(io.Closer).Close()
	for _, name := range []string{"config", "driver", "missing"} {
		want, werr := readWithin(t, live, base+"/"+name)
		got, gerr := readWithin(t, folder, name)
		if string(got) != string(want) || errText(gerr) != errText(werr) {
			t.Errorf("%s: folder read %q, %v; the tree %q, %v", name, got, gerr, want, werr)
		}
		wl, werr := fs.ReadLink(live, base+"/"+name)
		gl, gerr := fs.ReadLink(folder, name)
		if gl != wl || (gerr == nil) != (werr == nil) {
			t.Errorf("%s: folder link %q, %v; the tree %q, %v", name, gl, gerr, wl, werr)
		}
	}
	// The live folder's config is read at offsets; the captured tree's whole.
	pieces := folder.(interface {
		OpenPieces(string) (readerAtCloser, int64, error)
	})
	f, size, err := pieces.OpenPieces("config")
	if err != nil || size != 64 {
		t.Fatalf("OpenPieces(config): size %d, %v", size, err)
	}
	var b [8]byte
	if n, err := f.ReadAt(b[:], 60); n != 4 || err != io.EOF {
		t.Errorf("ReadAt past the end: %d, %v; want 4, EOF", n, err)
	}
	f.Close()
	capture, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	cf, err := capture.Root.(interface{ OpenFolder(string) (fs.FS, error) }).OpenFolder(base)
	if err != nil {
		t.Fatal(err)
	}
	defer cf.(io.Closer).Close()
	if _, _, err := cf.(interface {
		OpenPieces(string) (readerAtCloser, int64, error)
	}).OpenPieces("config"); !errors.Is(err, errors.ErrUnsupported) {
		t.Errorf("captured OpenPieces(config): %v, want ErrUnsupported", err)
	}
}
