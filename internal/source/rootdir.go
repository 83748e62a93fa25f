package source

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// errNotRegular is the error for a captured folder's entry that is neither
// a regular file nor a folder: a device, FIFO or socket is never opened for
// reading, since reading one could block for ever or have side effects.
var errNotRegular = errors.New("not a regular file or folder: not read")

// rootDir is a captured folder, read under the rules archives have: nothing
// outside the folder (an absolute symbolic link, or one that climbs out,
// fails to open; os.Root enforces it for every component), and only regular
// files and folders read. Every file is opened non-blocking and its kind
// checked on the open descriptor before any read, so a FIFO or a device
// node where an attribute should be cannot hang the run.
//
// The live machine is read with rawDir instead: its /sys links are made by
// the kernel and may point anywhere under /sys.
type rootDir struct {
	root *os.Root
	top  *os.File // the folder itself, which OpenFolder resolves names under
}

var _ FS = rootDir{}

// newRootDir opens folder dir as a rootDir.
func newRootDir(dir string) (FS, error) {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	top, err := r.Open(".")
	if err != nil {
		return nil, err
	}
	return rootDir{root: r, top: top}, nil
}

// Open opens name for reading if it is a regular file or a folder.
func (d rootDir) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	// The kind is checked before the open too: opening a device node can
	// have side effects (a watchdog starts counting), so one is never opened.
	if info, err := d.root.Stat(name); err != nil {
		return nil, renamed(err, name)
	} else if !info.Mode().IsRegular() && !info.IsDir() {
		return nil, &fs.PathError{Op: "open", Path: name, Err: errNotRegular}
	}
	f, err := d.root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, renamed(err, name)
	}
	info, err := f.Stat()
	if err == nil && !info.Mode().IsRegular() && !info.IsDir() {
		err = &fs.PathError{Op: "open", Path: name, Err: errNotRegular}
	}
	if err != nil {
		_ = f.Close()
		return nil, err
	}
	return f, nil
}

// Stat describes name, following symbolic links that stay in the folder.
func (d rootDir) Stat(name string) (fs.FileInfo, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrInvalid}
	}
	info, err := d.root.Stat(name)
	return info, renamed(err, name)
}

// Lstat describes name without following it if it is a symbolic link.
func (d rootDir) Lstat(name string) (fs.FileInfo, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "lstat", Path: name, Err: fs.ErrInvalid}
	}
	info, err := d.root.Lstat(name)
	return info, renamed(err, name)
}

// ReadLink returns the target of the symbolic link name, as stored.
func (d rootDir) ReadLink(name string) (string, error) {
	if !fs.ValidPath(name) {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: fs.ErrInvalid}
	}
	target, err := d.root.Readlink(name)
	return target, renamed(err, name)
}
