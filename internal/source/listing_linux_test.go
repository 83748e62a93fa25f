//go:build linux

package source

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// listedTree makes a captured tree whose function folder holds every kind
// of entry a stranger could put there, more entries than one getdents64
// call returns, and names that differ from a listed one by a byte; it
// returns the tree's folder, the folder's name in it and the names to ask.
func listedTree(t *testing.T) (dir, base string, names []string) {
	t.Helper()
	top := t.TempDir()
	secret := filepath.Join(top, "secret")
	if err := os.WriteFile(secret, []byte("TOP-SECRET"), 0o600); err != nil {
		t.Fatal(err)
	}
	dir = filepath.Join(top, "capture")
	base = "sys/devices/pci0000:00/0000:00:01.0"
	dev := filepath.Join(dir, filepath.FromSlash(base))
	if err := os.MkdirAll(filepath.Join(dev, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("n", unix.NAME_MAX)
	files := map[string]string{"vendor": "0x10de\n", "unreadable": "x", long: "longest", "\xff\xfe": "not UTF-8",
		"new\nline": "nl", "sub/rate": "400\n"}
	// Enough entries that the listing takes several getdents64 calls.
	for i := range 200 {
		files[fmt.Sprintf("msi_irq_with_a_long_name_%03d", i)] = "1\n"
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dev, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(filepath.Join(dev, "unreadable"), 0); err != nil {
		t.Fatal(err)
	}
	for name, to := range map[string]string{
		"numa_node": secret, "resource": "../../../../secret", "stdin": "/proc/self/fd/0",
		"class": "vendor", "driver": "../../../bus/pci/drivers/nvidia", "dangling": "nowhere", "loop": "loop",
		"subdir": "sub",
	} {
		if err := os.Symlink(to, filepath.Join(dev, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(dev, "config"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mknod(filepath.Join(dev, "sock"), syscall.S_IFSOCK|0o644, 0); err != nil {
		t.Fatal(err)
	}
	names = []string{"vendor", "unreadable", long, "\xff\xfe", "new\nline", "msi_irq_with_a_long_name_000",
		"msi_irq_with_a_long_name_199", "msi_irq_with_a_long_name_200", "numa_node", "resource", "stdin", "class",
		"driver", "dangling", "loop", "subdir", "config", "sock", "sub", "sub/rate", "missing", "vend", "vendorx",
		"VENDOR", "", "vendor\x00", "x\x00y", long + "n", strings.Repeat("m", unix.NAME_MAX), "-", " ", "\xff"}
	if os.Geteuid() == 0 {
		if err := syscall.Mknod(filepath.Join(dev, "irq"), syscall.S_IFCHR|0o644, 1<<8|5); err != nil { // a zero device
			t.Fatal(err)
		}
		names = append(names, "irq")
	}
	return dir, base, names
}

// folderOf opens folder base of fsys as a *folder, to be listed on the
// first name asked of it where it may be read.
func folderOf(t *testing.T, fsys FS, base string) *folder {
	t.Helper()
	o, ok := fsys.(interface{ OpenFolder(string) (fs.FS, error) })
	if !ok {
		t.Fatalf("%T opens no folders", fsys)
	}
	f, err := o.OpenFolder(base)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.(io.Closer).Close() })
	folder := f.(*folder)
	switch folder.listed {
	case listLater:
		folder.listed = listPending
	case listNone: // a folder that may not be read
	default:
		t.Fatalf("%s: a new folder's listing is %d; want it left for later", base, folder.listed)
	}
	return folder
}

// sameAnswers asks every name of got and want, folders of tree, and fails
// where they differ in content, link target or error, word for word, or
// where got reads outside the tree or a FIFO, socket or device. A live
// folder is not asked for the FIFO, socket, device or magic link: the
// live tree opens what the kernel made, and those would block.
func sameAnswers(t *testing.T, what string, got, want *folder, tree FS, names []string) {
	t.Helper()
	for _, name := range names {
		if !got.confined && (name == "config" || name == "sock" || name == "irq" || name == "stdin") {
			continue // the live tree opens what the kernel made: these would block
		}
		gb, gerr := readWithin(t, got, name)
		wb, werr := readWithin(t, want, name)
		if string(gb) != string(wb) || errText(gerr) != errText(werr) {
			t.Errorf("%s: Open %q: %q, %v; name by name %q, %v", what, name, gb, gerr, wb, werr)
		}
		if tree != nil && fs.ValidPath(got.dir+"/"+name) {
			tb, terr := readWithin(t, tree, got.dir+"/"+name)
			if string(gb) != string(tb) || errText(gerr) != errText(terr) {
				t.Errorf("%s: Open %q: %q, %v; the tree %q, %v", what, name, gb, gerr, tb, terr)
			}
		}
		if got.confined && (string(gb) == "TOP-SECRET" || (name == "config" || name == "sock" || name == "irq") && gerr == nil) {
			t.Errorf("%s: Open %q: the tree's rules broken: %q, %v", what, name, gb, gerr)
		}
		gl, gerr := got.ReadLink(name)
		wl, werr := want.ReadLink(name)
		if gl != wl || errText(gerr) != errText(werr) {
			t.Errorf("%s: ReadLink %q: %q, %v; name by name %q, %v", what, name, gl, gerr, wl, werr)
		}
	}
}

// TestListingAnswersAsNameByName asks every name of a hostile folder
// through its listing and name by name (the folder not listed, as before
// folders were listed): the same content, link target or error, word for
// word, the tree's rules kept; for a captured tree and a live one, and
// for folders that may be read but not searched, or searched but not read.
func TestListingAnswersAsNameByName(t *testing.T) {
	dir, base, names := listedTree(t)
	captured, err := newRootDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	trees := []struct {
		what string
		fsys FS
		tree FS // what the folder must answer as, where it answers as its tree
	}{{"captured", captured, captured}, {"live", newRawDir(dir), nil}}
	for _, c := range trees {
		listed, byName := folderOf(t, c.fsys, base), folderOf(t, c.fsys, base)
		byName.listed = listNone
		sameAnswers(t, c.what, listed, byName, c.tree, names)
		if listed.listed != listHeld {
			t.Errorf("%s: the folder was not listed whole (state %d)", c.what, listed.listed)
		}
		if kind, ok, known := listed.lookup("msi_irq_with_a_long_name_199"); !known || !ok || kind != unix.DT_REG {
			t.Errorf("%s: the listing's last entries: %d, %v, %v", c.what, kind, ok, known)
		}
	}
	if os.Geteuid() == 0 {
		return // root reads and searches any folder
	}
	dev := filepath.Join(dir, filepath.FromSlash(base))
	t.Cleanup(func() { _ = os.Chmod(dev, 0o755) })
	for _, mode := range []os.FileMode{0o644, 0o311} { // read, not search; search, not read
		if err := os.Chmod(dev, mode); err != nil {
			t.Fatal(err)
		}
		for _, c := range trees {
			listed, byName := folderOf(t, c.fsys, base), folderOf(t, c.fsys, base)
			byName.listed = listNone
			sameAnswers(t, fmt.Sprintf("%s %o", c.what, mode), listed, byName, c.tree, names)
		}
	}
	if err := os.Chmod(dev, 0o755); err != nil {
		t.Fatal(err)
	}
}

// TestListingUnknownKind reads a folder whose listing gives no kinds
// (DT_UNKNOWN, as some file systems list): each name is then looked at
// before it is opened, as without a listing.
func TestListingUnknownKind(t *testing.T) {
	dir, base, names := listedTree(t)
	captured, err := newRootDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, fsys := range []FS{captured, newRawDir(dir)} {
		unknown, byName := folderOf(t, fsys, base), folderOf(t, fsys, base)
		byName.listed = listNone
		if _, _, known := unknown.lookup("vendor"); !known || unknown.listed != listPartial && unknown.listed != listHeld {
			t.Fatalf("%T: not listed", fsys)
		}
		for b := unknown.names.b; len(b) > 0; b = b[binary.NativeEndian.Uint16(b[direntReclen:]):] {
			b[direntKind] = unix.DT_UNKNOWN
		}
		sameAnswers(t, fmt.Sprintf("%T DT_UNKNOWN", fsys), unknown, byName, nil, names)
		if kind, ok, known := unknown.lookup("config"); !known || !ok || kind != unix.DT_UNKNOWN {
			t.Errorf("%T: config listed as %d, %v, %v; want DT_UNKNOWN", fsys, kind, ok, known)
		}
	}
}

// TestListedFileSwapped replaces a file listed as a regular file, after
// the listing, with a FIFO, a link out of the tree and a folder: none is
// read, and nothing blocks.
func TestListedFileSwapped(t *testing.T) {
	top := t.TempDir()
	if err := os.WriteFile(filepath.Join(top, "secret"), []byte("TOP-SECRET"), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(top, "capture")
	base := "sys/devices/pci0000:00/0000:00:01.0"
	dev := filepath.Join(dir, filepath.FromSlash(base))
	if err := os.MkdirAll(dev, 0o755); err != nil {
		t.Fatal(err)
	}
	swaps := map[string]func(string) error{
		"fifo":   func(p string) error { return syscall.Mkfifo(p, 0o644) },
		"link":   func(p string) error { return os.Symlink("../../../../secret", p) },
		"folder": func(p string) error { return os.Mkdir(p, 0o755) },
	}
	for name := range swaps {
		if err := os.WriteFile(filepath.Join(dev, name), []byte("0\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fsys, err := newRootDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	f := folderOf(t, fsys, base)
	for name, swap := range swaps {
		if kind, ok, known := f.lookup(name); !known || !ok || kind != unix.DT_REG {
			t.Fatalf("%s: listed as %d, %v, %v; want a regular file", name, kind, ok, known)
		}
		p := filepath.Join(dev, name)
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
		if err := swap(p); err != nil {
			t.Fatal(err)
		}
		b, err := readWithin(t, f, name)
		if err == nil || string(b) == "TOP-SECRET" {
			t.Errorf("%s swapped in after the listing: read %q, %v; want it refused", name, b, err)
		}
		if name == "fifo" && !errors.Is(err, errNotRegular) {
			t.Errorf("FIFO swapped in after the listing: %v; want %v", err, errNotRegular)
		}
	}
}

// TestListingWhereNamesAreMissing reads folders name by name until names
// turn out missing: a folder is listed after its second missing name, or
// after its first once another folder of its tree lacked files; a
// folder that lacks nothing is never listed.
func TestListingWhereNamesAreMissing(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"a/vendor", "a/numa_node", "b/vendor", "c/vendor"} {
		p := filepath.Join(dir, "sys", filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	captured, err := newRootDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, fsys := range []FS{captured, newRawDir(dir)} {
		open := func(name string) *folder {
			f, err := fsys.(interface{ OpenFolder(string) (fs.FS, error) }).OpenFolder(name)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = f.(io.Closer).Close() })
			return f.(*folder)
		}
		ask := func(f *folder, names ...string) {
			for _, name := range names {
				_, _ = readWithin(t, f, name)
			}
		}
		whole := open("sys/a")
		ask(whole, "vendor", "numa_node", "vendor")
		if whole.listed != listLater || whole.listings.hasGaps() {
			t.Errorf("%T: a folder lacking nothing: listing %d, tree gappy %v; want neither", fsys, whole.listed, whole.listings.hasGaps())
		}
		once := open("sys/b")
		ask(once, "vendor", "config")
		if once.listed != listLater {
			t.Errorf("%T: one missing name: listing %d; want it left for later", fsys, once.listed)
		}
		ask(once, "numa_node", "iommu_group")
		if once.listed != listHeld || !once.listings.hasGaps() {
			t.Errorf("%T: two missing names: listing %d, tree gappy %v; want it listed", fsys, once.listed, once.listings.hasGaps())
		}
		next := open("sys/c")
		ask(next, "config", "numa_node")
		if next.listed != listHeld {
			t.Errorf("%T: a gappy tree's folder after one missing name: listing %d; want it listed", fsys, next.listed)
		}
		if !next.Absent("iommu_group") || next.Absent("vendor") {
			t.Errorf("%T: Absent from the listing: iommu_group %v, vendor %v", fsys, next.Absent("iommu_group"), next.Absent("vendor"))
		}
	}
}
