package sysfs

import (
	"io/fs"
	"testing"
	"testing/fstest"

	"github.com/gdtopo/gdtopo/topology"
)

// failOpen is a tree whose file fail cannot be opened (err).
type failOpen struct {
	fstest.MapFS
	fail string
	err  error
}

func (f failOpen) Open(name string) (fs.File, error) {
	if name == f.fail {
		return nil, &fs.PathError{Op: "open", Path: name, Err: f.err}
	}
	return f.MapFS.Open(name)
}

// TestNUMANodeUnreadIsNotMinusOne: a numa_node that is missing, cannot be
// opened or holds no number leaves RawNUMANode -1 with NUMANodeUnread saying
// why, so no one reports -1 as read; a -1 read from the file is not unread.
func TestNUMANodeUnreadIsNotMinusOne(t *testing.T) {
	file := "sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:00.0/0000:03:00.0/numa_node"
	for _, tc := range []struct {
		name   string
		tree   func(m memTree) fs.FS
		unread string
	}{
		{"minus one", func(m memTree) fs.FS { return fstest.MapFS(m) }, ""},
		{"missing", func(m memTree) fs.FS { delete(m, file); return fstest.MapFS(m) }, "missing"},
		{"unopenable", func(m memTree) fs.FS { return failOpen{fstest.MapFS(m), file, fs.ErrPermission} }, fs.ErrPermission.Error()},
		{"garbage", func(m memTree) fs.FS { m.file(file, "node0\n"); return fstest.MapFS(m) }, `invalid value "node0"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, err := Read(tc.tree(smallTree()))
			if err != nil {
				t.Fatal(err)
			}
			a, _ := topology.ParseBDF("0000:03:00.0")
			d := g.Device(a)
			if d.RawNUMANode != -1 || d.NUMANodeUnread() != tc.unread {
				t.Errorf("raw %d, unread %q; want -1, %q", d.RawNUMANode, d.NUMANodeUnread(), tc.unread)
			}
		})
	}
}
