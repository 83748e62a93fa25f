package source

import (
	"errors"
	"io/fs"
	"strings"
)

// sysView shows a mounted sysfs (a folder holding bus/, devices/, ...) as the
// sys/ folder of an otherwise empty tree: "sys/X" is "X" in the folder.
type sysView struct {
	sys FS
}

var _ FS = sysView{}

// Open opens name, following symbolic links.
func (v sysView) Open(name string) (fs.File, error) {
	switch name {
	case ".":
		info, err := v.Lstat("sys")
		if err != nil {
			return nil, err
		}
		return &openDir{info: viewRoot(), entries: []fs.DirEntry{fs.FileInfoToDirEntry(info)}}, nil
	case "sys":
		f, err := v.sys.Open(".")
		if err != nil {
			return nil, renamed(err, name)
		}
		return sysDir{f.(fs.ReadDirFile)}, nil
	}
	return through(v, "open", name, fs.FS.Open)
}

// Lstat describes name without following it if it is a symbolic link.
func (v sysView) Lstat(name string) (fs.FileInfo, error) {
	switch name {
	case ".":
		return viewRoot(), nil
	case "sys":
		info, err := fs.Stat(v.sys, ".")
		if err != nil {
			return nil, renamed(err, name)
		}
		return sysInfo{info}, nil
	}
	return through(v, "lstat", name, fs.Lstat)
}

// ReadLink returns the target of the symbolic link name, as stored.
func (v sysView) ReadLink(name string) (string, error) {
	if name == "." {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: fs.ErrInvalid}
	}
	return through(v, "readlink", name, fs.ReadLink)
}

// through runs do on the mounted sysfs for a name below the view's sys/.
func through[T any](v sysView, op, name string, do func(fs.FS, string) (T, error)) (T, error) {
	var zero T
	inner, below := strings.CutPrefix(name, "sys/")
	switch {
	case !fs.ValidPath(name):
		return zero, &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	case name == "sys":
		inner = "."
	case !below:
		return zero, &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
	}
	t, err := do(v.sys, inner)
	return t, renamed(err, name)
}

// renamed names err's path after the view's name for it.
func renamed(err error, name string) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &fs.PathError{Op: pe.Op, Path: name, Err: pe.Err}
	}
	return err
}

// viewRoot describes the view's root folder.
func viewRoot() fileInfo {
	return fileInfo{name: ".", n: &node{mode: fs.ModeDir | 0o555}}
}

// sysInfo describes the mounted folder under the name sys.
type sysInfo struct{ fs.FileInfo }

// Name returns "sys".
func (sysInfo) Name() string { return "sys" }

// sysDir is the mounted folder opened as sys.
type sysDir struct{ fs.ReadDirFile }

// Stat describes the folder under the name sys.
func (d sysDir) Stat() (fs.FileInfo, error) {
	info, err := d.ReadDirFile.Stat()
	if err != nil {
		return nil, err
	}
	return sysInfo{info}, nil
}
