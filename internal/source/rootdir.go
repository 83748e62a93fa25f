package source

import (
	"errors"
	"io/fs"
	"os"
	"slices"
	"strings"
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
// Each name is first resolved in one system call where the kernel can
// enforce the same rules itself (openat2 on Linux, see rootdir_linux.go);
// os.Root, which walks the name a folder at a time, answers wherever that
// fails, so every refusal and error message is os.Root's.
//
// The live machine is read with rawDir instead: its /sys links are made by
// the kernel and may point anywhere under /sys.
type rootDir struct {
	root     *os.Root
	top      *os.File  // the folder itself, which names are resolved under
	listings *listings // for listing its folders (see folder)
}

var _ interface {
	FS
	fs.StatFS
	fs.ReadDirFS
} = rootDir{}

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
	return rootDir{root: r, top: top, listings: newListings()}, nil
}

// Open opens name for reading if it is a regular file or a folder.
func (d rootDir) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	if f, done, err := d.openBeneath(name); done {
		return f, err
	}
	return d.walkOpen(name)
}

// walkOpen is Open through os.Root.
func (d rootDir) walkOpen(name string) (fs.File, error) {
	// The kind is checked before the open too: opening a device node can
	// have side effects (a watchdog starts counting), so one is never opened.
	if info, err := d.root.Stat(name); err != nil {
		return nil, renamed(err, name)
	} else if !info.Mode().IsRegular() && !info.IsDir() {
		return nil, &fs.PathError{Op: "open", Path: name, Err: errNotRegular}
	}
	return d.walkOpenChecked(name)
}

// walkOpenChecked opens name through os.Root, whose kind was found to be a
// regular file or a folder, and checks the kind again on the descriptor.
func (d rootDir) walkOpenChecked(name string) (fs.File, error) {
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
	if info, done, err := d.statBeneath(name, true); done {
		return info, err
	}
	return d.walkStat(name)
}

// walkStat is Stat through os.Root.
func (d rootDir) walkStat(name string) (fs.FileInfo, error) {
	info, err := d.root.Stat(name)
	return info, renamed(err, name)
}

// Lstat describes name without following it if it is a symbolic link.
func (d rootDir) Lstat(name string) (fs.FileInfo, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "lstat", Path: name, Err: fs.ErrInvalid}
	}
	if info, done, err := d.statBeneath(name, false); done {
		return info, err
	}
	return d.walkLstat(name)
}

// walkLstat is Lstat through os.Root.
func (d rootDir) walkLstat(name string) (fs.FileInfo, error) {
	info, err := d.root.Lstat(name)
	return info, renamed(err, name)
}

// ReadLink returns the target of the symbolic link name, as stored.
func (d rootDir) ReadLink(name string) (string, error) {
	if !fs.ValidPath(name) {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: fs.ErrInvalid}
	}
	if target, done, err := d.readLinkBeneath(name); done {
		return target, err
	}
	return d.walkReadLink(name)
}

// walkReadLink is ReadLink through os.Root.
func (d rootDir) walkReadLink(name string) (string, error) {
	target, err := d.root.Readlink(name)
	return target, renamed(err, name)
}

// ReadDir lists folder name, sorted by name, as fs.ReadDir does.
func (d rootDir) ReadDir(name string) ([]fs.DirEntry, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	if entries, done, err := d.readDirBeneath(name); done {
		return entries, err
	}
	return d.walkReadDir(name)
}

// walkReadDir is ReadDir through os.Root: what fs.ReadDir gives of a tree
// that lists folders only by opening them.
func (d rootDir) walkReadDir(name string) ([]fs.DirEntry, error) {
	f, err := d.walkOpen(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	dir, ok := f.(fs.ReadDirFile)
	if !ok {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: errors.New("not implemented")}
	}
	entries, err := dir.ReadDir(-1)
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, err
}
