//go:build linux

package source

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// A folder is one folder of a tree, opened once and held by its
// descriptor, so that the files in it are read by name relative to it
// (fstatat, openat, readlinkat) rather than by walking the folder's path
// again for every file. A PCI function's attribute files, read through its
// folder, cost a system call or two each instead of two per path element.
//
// A folder answers only for single names in it, and only in the cases that
// need no rule of the tree's beyond "a regular file, not a link": a link, a
// sub-folder, a longer path or an error other than a missing name is asked
// of the tree itself (outer) under the name dir/name, so every answer and
// every error message is the one the tree gives.
//
// A folder whose names turn out missing is listed, once (getdents64 into
// a buffer the tree keeps between its folders), and the listing then
// answers what it can without a system call: a name it lacks does not
// exist, a name it shows as a regular file is opened at once (its kind
// still checked on the open descriptor), and a link is the only kind
// whose target is read. Listing costs about as much as six lookups of
// names that are there (ext4 hashes and sorts every entry of a listed
// folder), so a folder is listed only where names are missing: after its
// second missing name, or its first once another folder of the tree
// lacked files (a capture that keeps only some attribute files, such as
// ghw's, lacks the same ones everywhere). A folder that cannot be listed
// (one that may be searched but not read), or a name the listing cannot
// answer for (its kind unknown, DT_UNKNOWN, or a name no listing can
// hold), is asked of the file system name by name. A folder is read by one
// goroutine at a time.
type folder struct {
	fd       int
	file     *os.File    // owns fd when the folder was opened through os.Root; nil when fd is ours to close
	dir      string      // the folder's name in outer, which errors name
	outer    FS          // the tree
	names    *listBuffer // the listing's getdents64 records, when listed is listPartial or listHeld
	listings *listings   // what the tree's folders share about listing; nil for nothing
	confined bool        // a captured tree: regular files only, nothing followed out of it
	closed   bool
	listed   listState
	// searched is set once a name was looked up in the folder: it may be
	// searched, so a name missing from its listing is missing, not refused.
	searched bool
	misses   uint8 // names found missing one by one
}

// listState says whether a folder's listing is read.
type listState uint8

const (
	listLater   listState = iota // read once names are found missing (see folder)
	listPending                  // read on the next name asked
	listPartial                  // read in part: folder.names holds its start
	listHeld                     // read whole: folder.names holds it
	listNone                     // not read (the folder may not be read, or was listed whole by ReadDir): names are asked one by one
)

// OpenFolder opens folder dir of the captured tree for reading the files in
// it by name (see folder). The caller closes it. One openat2 call resolves
// dir under the tree's rules (RESOLVE_BENEATH: no absolute link, no climbing
// out); where the kernel lacks openat2 (before 5.6) or a filter refuses it,
// or dir does not resolve, os.Root walks it as every other name is walked,
// so the outcome and error are os.Root's.
func (d rootDir) OpenFolder(dir string) (fs.FS, error) {
	return d.openFolder(dir, dir, d)
}

// openFolder opens dir, named shown in outer's terms.
func (d rootDir) openFolder(dir, shown string, outer FS) (fs.FS, error) {
	if !fs.ValidPath(dir) {
		return nil, &fs.PathError{Op: "open", Path: shown, Err: fs.ErrInvalid}
	}
	// Opened for reading, to be listed; a folder that may be searched but
	// not read is opened path-only and asked name by name.
	listed := listLater
	fd, err := d.openat2Dir(dir, unix.O_RDONLY|unix.O_NONBLOCK)
	if err != nil {
		listed = listNone
		fd, err = d.openat2Dir(dir, unix.O_PATH)
	}
	if err == nil {
		return &folder{fd: fd, dir: shown, outer: outer, confined: true, listed: listed, listings: d.listings}, nil
	}
	// O_DIRECTORY: a device node is refused before it is opened.
	f, err := d.root.OpenFile(dir, os.O_RDONLY|unix.O_DIRECTORY|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, renamed(err, shown)
	}
	return &folder{fd: int(f.Fd()), file: f, dir: shown, outer: outer, confined: true, listings: d.listings}, nil
}

// openat2Dir opens folder dir beneath the tree (RESOLVE_BENEATH: no
// absolute link, no climbing out; no magic link) with flags besides
// O_DIRECTORY.
func (d rootDir) openat2Dir(dir string, flags uint64) (int, error) {
	how := unix.OpenHow{
		Flags:   flags | unix.O_DIRECTORY | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS,
	}
	fd, err := retryEINTR(func() (int, error) { return unix.Openat2(int(d.top.Fd()), dir, &how) })
	runtime.KeepAlive(d.top)
	return fd, err
}

// OpenFolder opens a folder of the mounted sysfs shown as sys/.
func (v sysView) OpenFolder(name string) (fs.FS, error) {
	inner, below := strings.CutPrefix(name, "sys/")
	if r, ok := v.sys.(rootDir); ok && below {
		return r.openFolder(inner, name, v)
	}
	return &joined{fsys: v, dir: name}, nil
}

// OpenFolder opens folder dir of the live tree for reading the files in it
// by name. The live /sys is read as the kernel made it, links and all.
func (d rawDir) OpenFolder(dir string) (fs.FS, error) {
	if !fs.ValidPath(dir) {
		return nil, &fs.PathError{Op: "open", Path: dir, Err: fs.ErrInvalid}
	}
	full := filepath.Join(d.root, filepath.FromSlash(dir))
	listed := listLater
	fd, err := retryEINTR(func() (int, error) { return unix.Open(full, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0) })
	if err != nil {
		listed = listNone
		fd, err = retryEINTR(func() (int, error) { return unix.Open(full, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0) })
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	return &folder{fd: fd, dir: dir, outer: d, listed: listed, listings: d.listings}, nil
}

// ends is the kind of short reads of the folder's regular files.
func (f *folder) ends() shortReads {
	if f.confined {
		return shortAtEnd
	}
	return liveEnds(f.dir)
}

// single reports whether the valid name is one element naming something
// in the folder (not the folder itself).
func single(name string) bool {
	return name != "." && !strings.Contains(name, "/")
}

// inTree is name in the folder as the tree names it.
func (f *folder) inTree(name string) string {
	if name == "." {
		return f.dir
	}
	return f.dir + "/" + name
}

// Open opens the file name in the folder for reading.
func (f *folder) Open(name string) (fs.File, error) {
	fd, file, err := f.openRegular(name)
	if fd >= 0 {
		full := f.dir + "/" + name
		return &rawFile{fd: fd, name: full, full: full, ends: f.ends()}, nil
	}
	return file, err
}

// ReadSmall reads the file name in the folder into buf, until its end or
// buf is full, and returns the number of bytes read: Open and Read without
// a file value made for it. Its answers and errors are Open's and Read's.
func (f *folder) ReadSmall(name string, buf []byte) (int, error) {
	fd, file, err := f.openRegular(name)
	if err != nil {
		return 0, err
	}
	if fd < 0 { // the tree's file
		defer file.Close()
		n, err := io.ReadFull(file, buf)
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			err = nil // its end before buf is full
		}
		return n, err
	}
	defer unix.Close(fd)
	ends := f.ends()
	n := 0
	for n < len(buf) {
		m, err := unix.Read(fd, buf[n:])
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return n, &fs.PathError{Op: "read", Path: f.dir + "/" + name, Err: err}
		case m == 0:
			return n, nil
		}
		end := ends.atEnd(m, len(buf)-n) // as rawFile takes it
		n += m
		if end {
			return n, nil
		}
	}
	return n, nil
}

// OpenPieces opens the regular file name of a live folder for reads at
// offsets, and gives its size as the kernel states it. A live sysfs file
// computes what is read: its config file costs a bus read per 4 bytes,
// so reading only the bytes needed is cheaper than reading it whole. A
// captured tree's file is cheaper read whole in one system call: its
// folder answers errors.ErrUnsupported, as it does for a name that is not
// a regular file of the folder itself.
func (f *folder) OpenPieces(name string) (readerAtCloser, int64, error) {
	if f.confined {
		return nil, 0, errors.ErrUnsupported
	}
	fd, file, err := f.openRegular(name)
	if err != nil {
		return nil, 0, err
	}
	if fd < 0 {
		_ = file.Close()
		return nil, 0, errors.ErrUnsupported
	}
	var st unix.Stat_t
	if err := ignoreEINTR(func() error { return unix.Fstat(fd, &st) }); err != nil {
		_ = unix.Close(fd)
		return nil, 0, &fs.PathError{Op: "fstat", Path: f.dir + "/" + name, Err: err}
	}
	return &pieceFile{fd: fd, name: f.dir + "/" + name}, st.Size, nil
}

// readerAtCloser is a file read at offsets. An alias, so that a method
// returning it matches an interface of another package that spells the
// same type.
type readerAtCloser = interface {
	io.ReaderAt
	io.Closer
}

// pieceFile is an open file read with pread(2).
type pieceFile struct {
	fd   int
	name string
}

// ReadAt reads len(b) bytes at off; fewer, with io.EOF, at the file's end.
func (p *pieceFile) ReadAt(b []byte, off int64) (int, error) {
	n := 0
	for n < len(b) {
		m, err := unix.Pread(p.fd, b[n:], off+int64(n))
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return n, &fs.PathError{Op: "read", Path: p.name, Err: err}
		case m == 0:
			return n, io.EOF
		}
		n += m
	}
	return n, nil
}

func (p *pieceFile) Close() error { return unix.Close(p.fd) }

// openRegular opens the file name in the folder: a regular file opened
// here comes back as its descriptor fd, anything else as the tree's file
// (fd -1) or an error.
func (f *folder) openRegular(name string) (fd int, file fs.File, err error) {
	if !fs.ValidPath(name) {
		return -1, nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	if !single(name) || f.closed {
		file, err = f.outer.Open(f.inTree(name))
		return -1, file, err
	}
	kind, listed, known := f.lookup(name)
	if known && !listed && f.searched {
		return -1, nil, f.missing(f.dir + "/" + name) // no system call
	}
	if !f.confined {
		fd, err := retryEINTR(func() (int, error) { return unix.Openat(f.fd, name, unix.O_RDONLY|unix.O_CLOEXEC, 0) })
		f.looked(name, err)
		if err != nil {
			return -1, nil, &fs.PathError{Op: "open", Path: f.dir + "/" + name, Err: err}
		}
		return fd, nil, nil
	}
	var st unix.Stat_t
	switch {
	case known && kind == unix.DT_REG: // opened at once, its kind checked below
	case known && listed && kind != unix.DT_UNKNOWN:
		file, err = f.outer.Open(f.dir + "/" + name) // a link (followed if it stays in the tree), a folder, or refused there
		return -1, file, err
	default:
		// The kind first, without following a link: a device node is
		// never opened (see rootDir.Open).
		err := ignoreEINTR(func() error { return unix.Fstatat(f.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) })
		f.looked(name, err)
		if err != nil {
			if errors.Is(err, unix.ENOENT) {
				return -1, nil, &fs.PathError{Op: "statat", Path: f.dir + "/" + name, Err: err} // as os.Root says it
			}
			file, err = f.outer.Open(f.dir + "/" + name)
			return -1, file, err
		}
		if st.Mode&unix.S_IFMT != unix.S_IFREG {
			file, err = f.outer.Open(f.dir + "/" + name) // a link (followed if it stays in the tree), a folder, or refused there
			return -1, file, err
		}
	}
	fd, err = retryEINTR(func() (int, error) {
		return unix.Openat(f.fd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	})
	if err != nil {
		file, err = f.outer.Open(f.dir + "/" + name) // replaced since, or not readable: the tree's answer
		return -1, file, err
	}
	f.searched = true
	// Checked on the open descriptor: it may have been replaced since it
	// was listed or looked at.
	if err := ignoreEINTR(func() error { return unix.Fstat(fd, &st) }); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		_ = unix.Close(fd)
		if err == nil {
			err = errNotRegular
		}
		return -1, nil, &fs.PathError{Op: "open", Path: f.dir + "/" + name, Err: err}
	}
	return fd, nil, nil
}

// Absent reports whether the folder's listing shows that name, a single
// name, is not in it: its reader then takes the file as missing without a
// system call or an error made for it. False where the listing cannot
// tell (see lookup), and until a name was looked up in the folder (see
// folder.searched); Open and ReadLink answer then.
func (f *folder) Absent(name string) bool {
	if f.closed || !single(name) {
		return false
	}
	_, listed, known := f.lookup(name)
	return known && !listed && f.searched && fs.ValidPath(name)
}

// ReadLink returns the target of the symbolic link name in the folder.
func (f *folder) ReadLink(name string) (string, error) {
	if !fs.ValidPath(name) {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: fs.ErrInvalid}
	}
	if !single(name) || f.closed {
		return f.outer.ReadLink(f.inTree(name))
	}
	var err error
	kind, listed, known := f.lookup(name)
	switch {
	case !known || !f.searched: // asked of the file system
	case !listed:
		err = unix.ENOENT // no system call
	case kind != unix.DT_LNK && kind != unix.DT_UNKNOWN:
		err = unix.EINVAL // not a link, as readlinkat says
	}
	var buf [256]byte
	var n int
	if err == nil {
		err = ignoreEINTR(func() (err error) {
			n, err = unix.Readlinkat(f.fd, name, buf[:])
			return err
		})
		f.looked(name, err)
	}
	switch {
	case err == nil && n < len(buf):
		return string(buf[:n]), nil
	case err == nil: // perhaps cut short: a long target, asked of the tree
		return f.outer.ReadLink(f.inTree(name))
	case f.confined:
		return "", &fs.PathError{Op: "readlinkat", Path: f.dir + "/" + name, Err: err} // as os.Root says it
	}
	return "", &fs.PathError{Op: "readlink", Path: f.dir + "/" + name, Err: err}
}

// ReadDir lists the folder (name "."), sorted by name, each entry's kind
// from the listing itself. An *os.File opened through os.Root looks up
// every entry again (lstat), a system call per PCI function in the index.
func (f *folder) ReadDir(name string) ([]fs.DirEntry, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrInvalid}
	}
	if name != "." || f.closed {
		return fs.ReadDir(f.outer, f.inTree(name))
	}
	if f.listed == listLater || f.listed == listPending {
		f.listed = listNone // listed whole here: its names are what its user asks next
	}
	entries, err := f.list()
	if err != nil {
		return fs.ReadDir(f.outer, f.dir) // the tree's answer and error
	}
	return entries, nil
}

// list reads the folder's entries.
func (f *folder) list() ([]fs.DirEntry, error) {
	fd, err := retryEINTR(func() (int, error) {
		return unix.Openat(f.fd, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	})
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	return listFD(fd, f.outer, f.dir)
}

// listFD reads the entries of the folder open as fd with getdents64,
// sorted by name, each entry's kind from the listing itself. dir is the
// folder's name in the tree outer, which an entry's Info asks.
func listFD(fd int, outer FS, dir string) ([]fs.DirEntry, error) {
	var out []fs.DirEntry
	buf := make([]byte, 16<<10)
	for {
		n, err := retryEINTR(func() (int, error) { return unix.Getdents(fd, buf) })
		if err != nil {
			return nil, err
		}
		if n == 0 {
			slices.SortFunc(out, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
			return out, nil
		}
		// struct linux_dirent64: d_ino (8 bytes), d_off (8), d_reclen (2),
		// d_type (1), then the name, NUL-terminated.
		for b := buf[:n]; len(b) >= 19; {
			reclen := int(binary.NativeEndian.Uint16(b[16:18]))
			if reclen < 19 || reclen > len(b) {
				return nil, unix.EIO
			}
			rec := b[:reclen]
			b = b[reclen:]
			nameBytes := rec[19:]
			if i := bytes.IndexByte(nameBytes, 0); i >= 0 {
				nameBytes = nameBytes[:i]
			}
			name := string(nameBytes)
			if name == "." || name == ".." {
				continue
			}
			typ, ok := direntType(rec[18])
			if !ok { // the file system does not say: ask
				var st unix.Stat_t
				if err := ignoreEINTR(func() error { return unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) }); err != nil {
					continue // gone since
				}
				typ = statType(st.Mode)
			}
			out = append(out, &dirEntry{name: name, typ: typ, outer: outer, dir: dir})
		}
	}
}

// direntType is the kind of a getdents64 d_type; false for DT_UNKNOWN.
func direntType(t byte) (fs.FileMode, bool) {
	switch t {
	case unix.DT_REG:
		return 0, true
	case unix.DT_DIR:
		return fs.ModeDir, true
	case unix.DT_LNK:
		return fs.ModeSymlink, true
	case unix.DT_FIFO:
		return fs.ModeNamedPipe, true
	case unix.DT_SOCK:
		return fs.ModeSocket, true
	case unix.DT_CHR:
		return fs.ModeDevice | fs.ModeCharDevice, true
	case unix.DT_BLK:
		return fs.ModeDevice, true
	}
	return 0, false
}

// statType is the kind of a stat mode.
func statType(mode uint32) fs.FileMode {
	switch mode & unix.S_IFMT {
	case unix.S_IFDIR:
		return fs.ModeDir
	case unix.S_IFLNK:
		return fs.ModeSymlink
	case unix.S_IFIFO:
		return fs.ModeNamedPipe
	case unix.S_IFSOCK:
		return fs.ModeSocket
	case unix.S_IFCHR:
		return fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFBLK:
		return fs.ModeDevice
	}
	return 0
}

// dirEntry is one entry of a folder's listing; its Info is asked of the
// tree when wanted.
type dirEntry struct {
	name  string
	typ   fs.FileMode
	outer FS     // the tree
	dir   string // the folder's name in outer
}

func (e *dirEntry) Name() string      { return e.name }
func (e *dirEntry) IsDir() bool       { return e.typ.IsDir() }
func (e *dirEntry) Type() fs.FileMode { return e.typ }
func (e *dirEntry) Info() (fs.FileInfo, error) {
	if e.dir == "." {
		return e.outer.Lstat(e.name)
	}
	return e.outer.Lstat(e.dir + "/" + e.name)
}

// Lstat describes name in the folder without following a link.
func (f *folder) Lstat(name string) (fs.FileInfo, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "lstat", Path: name, Err: fs.ErrInvalid}
	}
	return f.outer.Lstat(f.inTree(name))
}

// Close releases the folder's descriptor. Reading through a closed folder
// goes to the tree.
func (f *folder) Close() error {
	if f.closed {
		return &fs.PathError{Op: "close", Path: f.dir, Err: fs.ErrClosed}
	}
	f.closed = true
	if f.names != nil {
		f.listings.put(f.names)
		f.names = nil
	}
	if f.file != nil {
		return f.file.Close()
	}
	return unix.Close(f.fd)
}

// missing is the error for name, a full name in the tree, that the
// folder's listing lacks: the error the system call would have given.
func (f *folder) missing(full string) error {
	op := "open"
	if f.confined {
		op = "statat" // as os.Root says it
	}
	return &fs.PathError{Op: op, Path: full, Err: unix.ENOENT}
}

// looked records the outcome of the system call that looked name up in
// the folder: found or missing (or, for readlinkat, not a link), the folder
// may be searched (a name with a NUL never reached the kernel); missing,
// the folder may be due for listing.
func (f *folder) looked(name string, err error) {
	if (err == nil || err == unix.ENOENT || err == unix.EINVAL) && strings.IndexByte(name, 0) < 0 {
		f.searched = true
	}
	if err != unix.ENOENT || f.listed != listLater {
		return
	}
	// Missing: list the folder after its second missing name, or its
	// first where the tree lacks files elsewhere (see folder).
	f.misses++
	if f.misses >= 2 {
		f.listings.sawGaps()
	}
	if f.misses >= 2 || f.listings.hasGaps() {
		f.listed = listPending
	}
}

// Offsets in a struct linux_dirent64: d_ino (8 bytes), d_off (8), d_reclen
// (2), d_type (1), then the name, NUL-terminated.
const (
	direntReclen = 16
	direntKind   = 18
	direntName   = 19
)

// lookup finds name, a single name, in the folder's listing, reading the
// listing as far as it needs: a name is usually found in the first
// getdents64 call's records; one missing is known missing once a call
// reads the end. known is false where the listing cannot answer: there is
// none, or name is one no listing holds (empty, over NAME_MAX bytes, or
// with a NUL), whose error only the system call gives. listed says
// whether the listing holds name, kind is its d_type.
func (f *folder) lookup(name string) (kind byte, listed, known bool) {
	if f.listed == listPending {
		f.names, f.listed = f.listings.get(), listPartial
		f.names.b = f.names.b[:0]
		f.readMore()
	}
	if f.listed != listHeld && f.listed != listPartial || name == "" || len(name) > unix.NAME_MAX || strings.IndexByte(name, 0) >= 0 {
		return 0, false, false
	}
	end := direntName + len(name)
	for from := 0; ; {
		for b := f.names.b[from:]; len(b) > direntName; {
			rec := b[:binary.NativeEndian.Uint16(b[direntReclen:])]
			b = b[len(rec):]
			if len(rec) > end && rec[direntName] == name[0] && rec[end] == 0 && string(rec[direntName:end]) == name {
				return rec[direntKind], true, true
			}
		}
		if f.listed == listHeld {
			return 0, false, true
		}
		from = len(f.names.b)
		if !f.readMore() {
			return 0, false, false
		}
	}
}

// readMore reads the folder's next entries with one getdents64 call,
// appended to its listing as the kernel wrote them (checked here, so that
// lookup may trust their lengths: no value is made per entry). It reports
// false, with the folder then asked name by name, where the folder cannot
// be listed.
func (f *folder) readMore() bool {
	b := f.names.b
	if cap(b)-len(b) < minListRoom {
		b = append(b, make([]byte, cap(b))...)[:len(b)]
	}
	for {
		n, err := unix.Getdents(f.fd, b[len(b):cap(b)])
		if err == unix.EINTR {
			continue
		}
		for rest := b[len(b) : len(b)+max(n, 0)]; err == nil && len(rest) > 0; {
			reclen := 0
			if len(rest) > direntName {
				reclen = int(binary.NativeEndian.Uint16(rest[direntReclen:]))
			}
			if reclen <= direntName || reclen > len(rest) {
				err = unix.EIO
				break
			}
			rest = rest[reclen:]
		}
		switch {
		case err != nil:
			f.names.b = b
			f.listings.put(f.names)
			f.names, f.listed = nil, listNone
			return false
		case n == 0:
			f.listed = listHeld
		}
		f.names.b = b[:len(b)+n]
		return true
	}
}

// minListRoom is the room a getdents64 call is given at least: a record
// with the longest name (NAME_MAX bytes) fits, with room for a few more.
const minListRoom = 1024

// joined is a folder read through its tree by joined names, for a tree that
// cannot open folders.
type joined struct {
	fsys FS
	dir  string
}

func (j *joined) Open(name string) (fs.File, error) { return j.fsys.Open(path.Join(j.dir, name)) }

func (j *joined) ReadLink(name string) (string, error) {
	return j.fsys.ReadLink(path.Join(j.dir, name))
}

func (j *joined) Lstat(name string) (fs.FileInfo, error) { return j.fsys.Lstat(path.Join(j.dir, name)) }

func (j *joined) Close() error { return nil }

// retryEINTR runs call until it is not interrupted by a signal.
func retryEINTR(call func() (int, error)) (int, error) {
	for {
		fd, err := call()
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// ignoreEINTR runs call until it is not interrupted by a signal.
func ignoreEINTR(call func() error) error {
	for {
		if err := call(); err != unix.EINTR {
			return err
		}
	}
}
