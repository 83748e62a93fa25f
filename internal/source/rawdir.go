package source

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// rawDir is os.DirFS with a cheaper Open. gdtopo opens thousands of tiny
// sysfs attribute files; os.Open costs extra system calls per file (file
// kind checks, non-blocking mode for the poller) that a one-shot read of a
// regular file does not need. Open here is openat, read, close; Stat and
// ReadDir fall back to an *os.File on demand. Everything else is os.DirFS.
type rawDir struct {
	FS
	root     string
	listings *listings // for listing its folders (see folder)
}

// newRawDir returns the FS of folder dir.
func newRawDir(dir string) FS {
	return rawDir{FS: os.DirFS(dir).(FS), root: dir, listings: newListings()}
}

// Open opens name for reading with plain system calls.
func (d rawDir) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	full := filepath.Join(d.root, filepath.FromSlash(name))
	for {
		fd, err := syscall.Open(full, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "open", Path: name, Err: err}
		}
		return &rawFile{fd: fd, name: name, full: full}, nil
	}
}

// rawFile is an open file read with read(2). After a short read of a
// regular file the next Read reports EOF without another system call: a
// regular file (and a sysfs attribute, produced whole) returns less than
// asked only at its end.
type rawFile struct {
	fd     int
	name   string
	full   string
	atEOF  bool
	osFile *os.File // set once Stat or ReadDir needed the os package
}

func (f *rawFile) Read(p []byte) (int, error) {
	if f.osFile != nil {
		return f.osFile.Read(p)
	}
	if len(p) == 0 {
		return 0, nil
	}
	if f.atEOF {
		return 0, io.EOF
	}
	for {
		n, err := syscall.Read(f.fd, p)
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return 0, &fs.PathError{Op: "read", Path: f.name, Err: err}
		case n == 0:
			f.atEOF = true
			return 0, io.EOF
		}
		if n < len(p) {
			f.atEOF = true
		}
		return n, nil
	}
}

// os returns the file as an *os.File, which then owns the descriptor.
func (f *rawFile) os() *os.File {
	if f.osFile == nil {
		f.osFile = os.NewFile(uintptr(f.fd), f.full)
	}
	return f.osFile
}

func (f *rawFile) Stat() (fs.FileInfo, error) { return f.os().Stat() }

func (f *rawFile) ReadDir(n int) ([]fs.DirEntry, error) { return f.os().ReadDir(n) }

func (f *rawFile) Close() error {
	if f.osFile != nil {
		return f.osFile.Close()
	}
	if f.fd < 0 {
		return &fs.PathError{Op: "close", Path: f.name, Err: fs.ErrClosed}
	}
	err := syscall.Close(f.fd)
	f.fd = -1
	return err
}

var _ interface {
	fs.ReadDirFile
	io.Closer
} = (*rawFile)(nil)
