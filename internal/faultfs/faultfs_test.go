package faultfs_test

import (
	"errors"
	"io"
	"io/fs"
	"syscall"
	"testing"
	"testing/fstest"

	"github.com/gdtopo/gdtopo/internal/faultfs"
)

func tree() fstest.MapFS {
	return fstest.MapFS{
		"sys/devices/a/vendor":   {Data: []byte("0x10de\n")},
		"sys/devices/b/vendor":   {Data: []byte("0x15b3\n")},
		"sys/bus/pci/devices/a":  {Data: []byte("../../../devices/a"), Mode: fs.ModeSymlink},
		"sys/bus/pci/devices/b":  {Data: []byte("../../../devices/b"), Mode: fs.ModeSymlink},
		"sys/class/net/eth0":     {Data: []byte("../../devices/b/net/eth0"), Mode: fs.ModeSymlink},
		"sys/devices/b/net/eth0": {Mode: fs.ModeDir},
	}
}

func TestVanish(t *testing.T) {
	gone := faultfs.Subtree("sys/devices/b", []string{"sys/bus/pci/devices/b", "sys/class/net/eth0"})
	v := &faultfs.Vanish{FS: tree(), After: 2, Gone: gone, ReadErr: syscall.ENODEV}
	f, err := v.Open("sys/devices/b/vendor") // 1
	if err != nil {
		t.Fatal(err)
	}
	if entries, err := fs.ReadDir(v, "sys/bus/pci/devices"); err != nil || len(entries) != 2 { // 2: before it goes
		t.Fatalf("%v, %v; want both entries", entries, err)
	}
	if entries, err := fs.ReadDir(v, "sys/bus/pci/devices"); err != nil || len(entries) != 1 || entries[0].Name() != "a" {
		t.Errorf("%v, %v; want only a once b went", entries, err)
	}
	if _, err := io.ReadAll(f); !errors.Is(err, syscall.ENODEV) {
		t.Errorf("read of a file opened before it went: %v, want ENODEV", err)
	}
	for _, name := range []string{"sys/devices/b/vendor", "sys/devices/b", "sys/class/net/eth0", "sys/class/net/eth0/speed"} {
		if _, err := fs.Stat(v, name); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("stat %s: %v, want it gone", name, err)
		}
	}
	if _, err := fs.ReadLink(v, "sys/bus/pci/devices/b"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("readlink of b's link: %v, want it gone", err)
	}
	if b, err := fs.ReadFile(v, "sys/devices/a/vendor"); err != nil || string(b) != "0x10de\n" {
		t.Errorf("a: %q, %v; want it still there", b, err)
	}
	if v.Ops() < 8 {
		t.Errorf("%d operations counted", v.Ops())
	}
	all := &faultfs.Vanish{FS: tree(), After: 0}
	if _, err := fs.ReadFile(all, "sys/devices/a/vendor"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("with everything gone: %v", err)
	}
}
