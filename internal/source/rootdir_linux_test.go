//go:build linux

package source

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// hostileTree builds a captured folder holding every kind of entry a
// stranger could put there, and returns it opened as a rootDir with the
// names to ask of it.
func hostileTree(t *testing.T) (rootDir, []string) {
	t.Helper()
	top := t.TempDir()
	if err := os.WriteFile(filepath.Join(top, "secret"), []byte("TOP-SECRET"), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(top, "capture")
	dev := filepath.Join(dir, "sys", "devices", "pci0000:00", "0000:00:01.0")
	for _, d := range []string{filepath.Join(dev, "ports", "1"), filepath.Join(dir, "sys", "class", "infiniband"), filepath.Join(dev, "locked")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, data := range map[string]string{"vendor": "0x10de\n", "ports/1/rate": "400 Gb/sec (4X NDR)\n", "unreadable": "x", "locked/inside": "y"} {
		if err := os.WriteFile(filepath.Join(dev, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"sys/class/infiniband/mlx5_0": "../../devices/pci0000:00/0000:00:01.0", // a class link, as sysfs has
		"sys/class/infiniband/out":    "../../../../secret",                    // climbing out
		"sys/class/infiniband/abs":    filepath.Join(top, "secret"),            // absolute
		"sys/class/infiniband/stdin":  "/proc/self/fd/0",                       // a magic link
		"sys/class/infiniband/gone":   "../../devices/pci0000:00/0000:00:09.0", // dangling, inside
		"sys/class/infiniband/goneup": "../../../../nowhere",                   // dangling, climbing out
		"sys/class/infiniband/fifo":   "../../devices/pci0000:00/0000:00:01.0/config",
		"sys/class/infiniband/long":   strings.Repeat("./", 150) + "mlx5_0", // a target over 256 bytes
		"sys/class/infiniband/loop":   "loop",
	}
	// A chain of four links, within os.Root's eight.
	for i := 0; i < 4; i++ {
		links["sys/class/infiniband/chain"+string(rune('0'+i))] = "chain" + string(rune('1'+i))
	}
	links["sys/class/infiniband/chain4"] = "mlx5_0"
	for name, to := range links {
		if err := os.Symlink(to, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(dev, "config"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A socket file made with mknod, not bind: bind refuses a path over 107
	// bytes, which a test's temporary folder can exceed (.ci/unprivileged).
	if err := syscall.Mknod(filepath.Join(dev, "sock"), syscall.S_IFSOCK|0o644, 0); err != nil {
		t.Fatal(err)
	}
	names := []string{
		".", "sys", "sys/devices/pci0000:00/0000:00:01.0", "sys/devices/pci0000:00/0000:00:01.0/vendor",
		"sys/devices/pci0000:00/0000:00:01.0/unreadable", "sys/devices/pci0000:00/0000:00:01.0/config",
		"sys/devices/pci0000:00/0000:00:01.0/sock", "sys/devices/pci0000:00/0000:00:01.0/missing",
		"sys/devices/pci0000:00/0000:00:09.0/vendor", "sys/devices/pci0000:00/0000:00:01.0/vendor/x",
		"sys/devices/pci0000:00/0000:00:01.0/locked", "sys/devices/pci0000:00/0000:00:01.0/locked/inside",
		"sys/class/infiniband", "sys/class/infiniband/mlx5_0/ports", "sys/class/infiniband/mlx5_0/ports/1/rate",
		"sys/class/infiniband/mlx5_0/vendor", "sys/class/infiniband/mlx5_0/missing", "sys/class/infiniband/fifo",
		"sys/class/infiniband/chain0", "sys/class/infiniband/chain0/vendor", "sys/class/infiniband/long",
		"sys/class/infiniband/long/vendor", "sys/class/infiniband/loop", "sys/class/infiniband/loop/x",
	}
	for name := range links {
		names = append(names, name, name+"/vendor")
	}
	if os.Geteuid() == 0 {
		if err := syscall.Mknod(filepath.Join(dev, "irq"), syscall.S_IFCHR|0o644, 1<<8|5); err != nil { // a zero device
			t.Fatal(err)
		}
		names = append(names, "sys/devices/pci0000:00/0000:00:01.0/irq")
	} else {
		if err := os.Chmod(filepath.Join(dev, "unreadable"), 0); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(filepath.Join(dev, "locked"), 0o600); err != nil { // no search permission
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(filepath.Join(dev, "locked"), 0o755) })
	}
	fsys, err := newRootDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return fsys.(rootDir), names
}

// TestRootDirAnswersAsOSRoot asks every name of a hostile tree through
// rootDir (openat2, one call per name) and through os.Root alone (the walk
// it falls back to): the same content, description, link target, listing
// or error, word for word, and the tree's rules kept.
func TestRootDirAnswersAsOSRoot(t *testing.T) {
	d, names := hostileTree(t)
	for _, name := range names {
		got, gerr := readAll(t, func() (fs.File, error) { return d.Open(name) })
		want, werr := readAll(t, func() (fs.File, error) { return d.walkOpen(name) })
		if string(got) != string(want) || errText(gerr) != errText(werr) {
			t.Errorf("Open %s: %q, %v; os.Root %q, %v", name, got, gerr, want, werr)
		}
		if strings.Contains(string(got), "TOP-SECRET") || strings.Contains(errText(gerr), "TOP-SECRET") {
			t.Errorf("Open %s: read outside the tree: %q, %v", name, got, gerr)
		}
		for _, c := range []struct {
			op        string
			fast, way func(string) (fs.FileInfo, error)
		}{{"Stat", d.Stat, d.walkStat}, {"Lstat", d.Lstat, d.walkLstat}} {
			gi, gerr := c.fast(name)
			wi, werr := c.way(name)
			if describe(gi) != describe(wi) || errText(gerr) != errText(werr) {
				t.Errorf("%s %s: %s, %v; os.Root %s, %v", c.op, name, describe(gi), gerr, describe(wi), werr)
			}
		}
		gl, gerr := d.ReadLink(name)
		wl, werr := d.walkReadLink(name)
		if gl != wl || errText(gerr) != errText(werr) {
			t.Errorf("ReadLink %s: %q, %v; os.Root %q, %v", name, gl, gerr, wl, werr)
		}
		ge, gerr := d.ReadDir(name)
		we, werr := d.walkReadDir(name)
		if listing(ge) != listing(we) || errText(gerr) != errText(werr) {
			t.Errorf("ReadDir %s: %s, %v; os.Root %s, %v", name, listing(ge), gerr, listing(we), werr)
		}
		for i := range min(len(ge), len(we)) {
			gi, gerr := ge[i].Info()
			wi, werr := we[i].Info()
			if describe(gi) != describe(wi) || (gerr == nil) != (werr == nil) {
				t.Errorf("ReadDir %s: entry %s: Info %s, %v; os.Root %s, %v", name, ge[i].Name(), describe(gi), gerr, describe(wi), werr)
			}
		}
	}
	for _, name := range []string{"", "/sys", "sys/../sys", "sys/"} {
		for op, err := range map[string]error{
			"Open": second(d.Open(name)), "Stat": second(d.Stat(name)), "Lstat": second(d.Lstat(name)),
			"ReadLink": second(d.ReadLink(name)), "ReadDir": second(d.ReadDir(name)),
		} {
			if !errors.Is(err, fs.ErrInvalid) {
				t.Errorf("%s %q: %v; want %v", op, name, err, fs.ErrInvalid)
			}
		}
	}
	if b, err := fs.ReadFile(d, "sys/class/infiniband/chain0/ports/1/rate"); err != nil || string(b) != "400 Gb/sec (4X NDR)\n" {
		t.Errorf("links inside the tree: %q, %v; want them followed", b, err)
	}
	if _, err := d.Open("sys/devices/pci0000:00/0000:00:01.0/config"); !errors.Is(err, errNotRegular) {
		t.Errorf("FIFO: %v; want %v", err, errNotRegular)
	}
}

// TestRootDirSwappedFile swaps a regular file and a FIFO under one name
// while it is read over and over: every read gives the file's content or
// refuses a FIFO, and none blocks.
func TestRootDirSwappedFile(t *testing.T) {
	dir := t.TempDir()
	sys := filepath.Join(dir, "sys")
	if err := os.Mkdir(sys, 0o755); err != nil {
		t.Fatal(err)
	}
	file, fifo, name := filepath.Join(dir, "file"), filepath.Join(dir, "fifo"), filepath.Join(sys, "numa_node")
	fsys, err := newRootDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	stop, swapped := make(chan struct{}), make(chan int)
	go func() {
		n := 0
		defer func() { swapped <- n }()
		for {
			select {
			case <-stop:
				return
			default:
			}
			if err := os.WriteFile(file, []byte("1\n"), 0o644); err != nil {
				t.Error(err)
				return
			}
			if err := syscall.Mkfifo(fifo, 0o644); err != nil {
				t.Error(err)
				return
			}
			if os.Rename(file, name) != nil || os.Rename(fifo, name) != nil {
				t.Error("rename failed")
				return
			}
			n++
		}
	}()
	counts := map[string]int{}
	for deadline := time.Now().Add(500 * time.Millisecond); time.Now().Before(deadline) && (counts["file"] < 100 || counts["fifo"] < 100); {
		b, err := readAll(t, func() (fs.File, error) { return fsys.Open("sys/numa_node") })
		switch {
		case err == nil && string(b) == "1\n":
			counts["file"]++
		case errors.Is(err, errNotRegular):
			counts["fifo"]++
		case errors.Is(err, fs.ErrNotExist):
			counts["missing"]++
		default:
			t.Fatalf("read %q, %v; want the file's content or the FIFO refused", b, err)
		}
	}
	close(stop)
	t.Logf("%d swaps; reads: %v", <-swapped, counts)
}

// readAll opens a file with open and reads it whole, failing the test if
// that takes over 5 seconds (a read blocked on a FIFO).
func readAll(t *testing.T, open func() (fs.File, error)) ([]byte, error) {
	t.Helper()
	type result struct {
		b   []byte
		err error
	}
	done := make(chan result, 1)
	go func() {
		f, err := open()
		if err != nil {
			done <- result{nil, err}
			return
		}
		defer f.Close()
		b, err := io.ReadAll(f)
		done <- result{b, err}
	}()
	select {
	case r := <-done:
		return r.b, r.err
	case <-time.After(5 * time.Second):
		t.Fatal("read still blocked after 5 s")
		return nil, nil
	}
}

// describe is what a FileInfo says that gdtopo can use.
func describe(fi fs.FileInfo) string {
	if fi == nil {
		return "<nil>"
	}
	return fi.Name() + " " + fi.Mode().String() + " " + fi.ModTime().String() + " " + strings.Repeat("+", int(min(fi.Size(), 64)))
}

// listing is a folder listing's names and kinds.
func listing(entries []fs.DirEntry) string {
	var b strings.Builder
	for _, e := range entries {
		b.WriteString(e.Name() + ":" + e.Type().String() + " ")
	}
	return b.String()
}

func second[T any](_ T, err error) error { return err }
