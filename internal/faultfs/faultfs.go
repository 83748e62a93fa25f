// Package faultfs wraps a read-only file tree so that part of it vanishes
// partway through a read, as a device does when it is hot-unplugged from a
// live /sys or a capture does while it is being deleted. Tests use it to
// check that gdtopo's readers notice.
package faultfs

import (
	"io/fs"
	"path"
	"strings"
	"sync/atomic"
	"syscall"
)

// FS is a file tree with symbolic links, as gdtopo's readers take it.
type FS interface {
	fs.FS
	fs.ReadLinkFS
}

// Vanish is FS whose names for which Gone is true stop existing once After
// operations (Open, Stat, Lstat, ReadLink and ReadDir calls, in any order)
// have been made: from then on they fail with fs.ErrNotExist and are left
// out of their folder's listing. A file opened before then keeps reading
// unless ReadErr is set, as a deleted regular file does; sysfs instead
// fails such reads with ENODEV (ReadErr: syscall.ENODEV). Vanish is safe
// for concurrent use.
type Vanish struct {
	FS      FS
	After   int64                  // operations that see the whole tree
	Gone    func(name string) bool // what vanishes; nil: everything
	ReadErr error                  // what reads of vanished open files return; nil: their data

	ops atomic.Int64
}

var (
	_ FS            = (*Vanish)(nil)
	_ fs.ReadDirFS  = (*Vanish)(nil)
	_ fs.StatFS     = (*Vanish)(nil)
	_ fs.ReadLinkFS = (*Vanish)(nil)
)

// Ops is the number of operations made so far.
func (v *Vanish) Ops() int64 { return v.ops.Load() }

// gone counts one operation on name and reports whether name has vanished.
func (v *Vanish) gone(name string) bool {
	n := v.ops.Add(1)
	return n > v.After && v.vanished(name)
}

// vanished reports whether name is one that vanishes, once they have.
func (v *Vanish) vanished(name string) bool {
	return v.Gone == nil || v.Gone(name)
}

func notExist(op, name string) error {
	return &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
}

// Open opens name.
func (v *Vanish) Open(name string) (fs.File, error) {
	if v.gone(name) {
		return nil, notExist("open", name)
	}
	f, err := v.FS.Open(name)
	if err != nil {
		return nil, err
	}
	return &file{File: f, v: v, name: name}, nil
}

// Stat describes name, following links.
func (v *Vanish) Stat(name string) (fs.FileInfo, error) {
	if v.gone(name) {
		return nil, notExist("stat", name)
	}
	return fs.Stat(v.FS, name)
}

// Lstat describes name without following a link.
func (v *Vanish) Lstat(name string) (fs.FileInfo, error) {
	if v.gone(name) {
		return nil, notExist("lstat", name)
	}
	return v.FS.Lstat(name)
}

// ReadLink returns the target of the link name.
func (v *Vanish) ReadLink(name string) (string, error) {
	if v.gone(name) {
		return "", notExist("readlink", name)
	}
	return v.FS.ReadLink(name)
}

// ReadDir lists the folder name, without the entries that have vanished.
func (v *Vanish) ReadDir(name string) ([]fs.DirEntry, error) {
	if v.gone(name) {
		return nil, notExist("readdir", name)
	}
	entries, err := fs.ReadDir(v.FS, name)
	if v.ops.Load() <= v.After {
		return entries, err
	}
	kept := entries[:0:0]
	for _, e := range entries {
		if !v.vanished(path.Join(name, e.Name())) {
			kept = append(kept, e)
		}
	}
	return kept, err
}

// file is an open file of a Vanish.
type file struct {
	fs.File
	v    *Vanish
	name string
}

func (f *file) Read(p []byte) (int, error) {
	if f.v.ReadErr != nil && f.v.ops.Load() > f.v.After && f.v.vanished(f.name) {
		return 0, &fs.PathError{Op: "read", Path: f.name, Err: f.v.ReadErr}
	}
	return f.File.Read(p)
}

func (f *file) ReadDir(n int) ([]fs.DirEntry, error) {
	d, ok := f.File.(fs.ReadDirFile)
	if !ok {
		return nil, &fs.PathError{Op: "readdir", Path: f.name, Err: syscall.ENOTDIR}
	}
	entries, err := d.ReadDir(n)
	if f.v.ops.Load() <= f.v.After {
		return entries, err
	}
	kept := entries[:0:0]
	for _, e := range entries {
		if !f.v.vanished(path.Join(f.name, e.Name())) {
			kept = append(kept, e)
		}
	}
	return kept, err
}

// Subtree returns a Gone for the folder dir and everything below it, and
// for the links in links (and everything reached through them), as when a
// PCI function at dir is unplugged and the kernel removes its folder and
// every link to it.
func Subtree(dir string, links []string) func(name string) bool {
	set := map[string]bool{dir: true}
	for _, l := range links {
		set[l] = true
	}
	return func(name string) bool {
		for p := name; p != "." && p != "/"; p = path.Dir(p) {
			if set[p] {
				return true
			}
		}
		return false
	}
}

// LinksInto lists the links of the PCI index and of the RDMA and network
// classes whose target lies in folder dir or below it: the links the kernel
// removes with the function at dir. Links that cannot be read are skipped.
func LinksInto(fsys fs.FS, dir string) []string {
	var out []string
	for _, folder := range []string{"sys/bus/pci/devices", "sys/class/infiniband", "sys/class/net"} {
		entries, _ := fs.ReadDir(fsys, folder)
		for _, e := range entries {
			name := path.Join(folder, e.Name())
			target, err := fs.ReadLink(fsys, name)
			if err != nil {
				continue
			}
			if strings.HasPrefix(target, "/") {
				target = strings.TrimPrefix(target, "/")
			} else {
				target = path.Join(folder, target)
			}
			if target == dir || strings.HasPrefix(target, dir+"/") {
				out = append(out, name)
			}
		}
	}
	return out
}
