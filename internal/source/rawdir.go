package source

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
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
		return &rawFile{fd: fd, name: name, full: full, ends: liveEnds(name)}, nil
	}
}

// shortReads says what a read(2) that returns fewer bytes than asked
// means for a kind of file.
type shortReads uint8

const (
	// shortAtEnd: only at the file's end (a captured tree's regular file).
	shortAtEnd shortReads = iota
	// shortPerPage: at the end, or at a page boundary (the live sysfs: an
	// attribute's text is made whole, at most a page, and a binary
	// attribute such as config or vpd gives at most a page per read).
	shortPerPage
	// shortAnywhere: anywhere (procfs: a seq_file such as /proc/cpuinfo
	// gives whole records up to a page per read); only a read of 0 bytes
	// is the end.
	shortAnywhere
)

// liveEnds is the kind of short reads of name in the live tree.
func liveEnds(name string) shortReads {
	if name == "proc" || strings.HasPrefix(name, "proc/") {
		return shortAnywhere
	}
	return shortPerPage
}

// pageSize is the kernel's page, which bounds one read of a sysfs file.
var pageSize = os.Getpagesize()

// atEnd reports whether a read that returned n of the asked bytes reached
// the file's end, so the next read need not be made.
func (s shortReads) atEnd(n, asked int) bool {
	switch {
	case n >= asked:
		return false
	case s == shortAtEnd:
		return true
	case s == shortPerPage:
		return n%pageSize != 0
	}
	return false
}

// rawFile is an open file read with read(2). After a read that ends the
// file (see shortReads) the next Read reports EOF without another system
// call.
type rawFile struct {
	fd     int
	name   string
	full   string
	ends   shortReads
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
		f.atEOF = f.ends.atEnd(n, len(p))
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
