//go:build linux

package source

import (
	"io/fs"
	"path"
	"runtime"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// beneath opens name under the tree's folder in one openat2 call that
// keeps the tree's rules (RESOLVE_BENEATH: no absolute link, nothing that
// climbs out; no magic link), with open flags flags. os.Root walks a name
// a folder at a time, two or three system calls per element; this
// resolves it in one.
//
// It reports false wherever openat2 fails, for any reason (the kernel
// lacks it, before 5.6; a filter refuses it; the name breaks a rule), and
// the caller then asks os.Root, whose answer and error message are the
// tree's. The one failure answered here is a name that resolves, inside
// the tree, to nothing: os.Root, following the same links, meets the same
// missing element and says ENOENT under the name asked for, which missing
// is then (op is os.Root's word for the call).
func (d rootDir) beneath(name string, flags int, op string) (fd int, ok bool, missing error) {
	how := unix.OpenHow{
		Flags:   uint64(flags) | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS,
	}
	fd, err := retryEINTR(func() (int, error) { return unix.Openat2(int(d.top.Fd()), name, &how) })
	runtime.KeepAlive(d.top)
	if err == unix.ENOENT && op != "" {
		return -1, false, &fs.PathError{Op: op, Path: name, Err: err}
	}
	return fd, err == nil, nil
}

// fstat describes the open descriptor fd.
func fstat(fd int, st *syscall.Stat_t) error {
	return ignoreEINTR(func() error { return syscall.Fstat(fd, st) })
}

// readableKind reports whether a stat mode is one the tree reads: a
// regular file or a folder.
func readableKind(mode uint32) bool {
	return mode&syscall.S_IFMT == syscall.S_IFREG || mode&syscall.S_IFMT == syscall.S_IFDIR
}

// openBeneath is Open with names resolved by openat2: the kind looked at on
// a path-only descriptor (O_PATH opens nothing: a device node's driver is
// not called), then the file opened for reading and its kind checked again
// on the open descriptor, in case it was replaced between the two. done is
// false where os.Root must answer instead. A folder is opened through
// os.Root, whose *os.File lists entries under the tree's rules.
func (d rootDir) openBeneath(name string) (f fs.File, done bool, err error) {
	pfd, ok, missing := d.beneath(name, unix.O_PATH, "statat")
	if missing != nil {
		return nil, true, missing
	}
	if !ok {
		return nil, false, nil
	}
	var st syscall.Stat_t
	serr := fstat(pfd, &st)
	_ = unix.Close(pfd)
	switch {
	case serr != nil:
		return nil, false, nil
	case !readableKind(st.Mode):
		return nil, true, &fs.PathError{Op: "open", Path: name, Err: errNotRegular}
	case st.Mode&syscall.S_IFMT == syscall.S_IFDIR:
		f, err := d.walkOpenChecked(name)
		return f, true, err
	}
	fd, ok, _ := d.beneath(name, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOCTTY, "")
	if !ok {
		return nil, false, nil // gone or unreadable since: os.Root's answer
	}
	if err := fstat(fd, &st); err != nil || !readableKind(st.Mode) {
		_ = unix.Close(fd)
		if err != nil {
			return nil, false, nil
		}
		return nil, true, &fs.PathError{Op: "open", Path: name, Err: errNotRegular}
	}
	if st.Mode&syscall.S_IFMT == syscall.S_IFDIR { // a folder now: os.Root's *os.File
		_ = unix.Close(fd)
		f, err := d.walkOpenChecked(name)
		return f, true, err
	}
	full := d.root.Name() + "/" + name // as os.Root names its files
	return &rawFile{fd: fd, name: full, full: full}, true, nil
}

// statBeneath describes name (its link target where follow is set, else
// the link itself) from a path-only descriptor; false where os.Root must
// answer.
func (d rootDir) statBeneath(name string, follow bool) (fs.FileInfo, bool, error) {
	flags := unix.O_PATH
	if !follow {
		flags |= unix.O_NOFOLLOW // O_PATH|O_NOFOLLOW opens a link itself
	}
	fd, ok, missing := d.beneath(name, flags, "statat")
	if missing != nil {
		return nil, true, missing
	}
	if !ok {
		return nil, false, nil
	}
	info := &statInfo{name: path.Base(name)}
	err := fstat(fd, &info.sys)
	_ = unix.Close(fd)
	if err != nil {
		return nil, false, nil
	}
	return info, true, nil
}

// readLinkBeneath reads the link name from a path-only descriptor of the
// link itself; false where os.Root must answer (not a link, among others).
func (d rootDir) readLinkBeneath(name string) (string, bool, error) {
	fd, ok, missing := d.beneath(name, unix.O_PATH|unix.O_NOFOLLOW, "readlinkat")
	if missing != nil {
		return "", true, missing
	}
	if !ok {
		return "", false, nil
	}
	defer unix.Close(fd)
	var buf [256]byte
	var n int
	err := ignoreEINTR(func() (err error) {
		n, err = unix.Readlinkat(fd, "", buf[:])
		return err
	})
	if err != nil || n >= len(buf) { // not a link, or perhaps cut short
		return "", false, nil
	}
	return string(buf[:n]), true, nil
}

// readDirBeneath lists folder name, opened with O_DIRECTORY (anything else
// is refused before it is opened), each entry's kind from the listing;
// false where os.Root must answer.
func (d rootDir) readDirBeneath(name string) ([]fs.DirEntry, bool, error) {
	fd, ok, missing := d.beneath(name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NONBLOCK, "statat")
	if missing != nil {
		return nil, true, missing
	}
	if !ok {
		return nil, false, nil
	}
	defer unix.Close(fd)
	entries, err := listFD(fd, d, name)
	if err != nil {
		return nil, false, nil
	}
	// A folder that may be read but not searched lists here, where os.Root
	// (which looks up each entry) refuses it: one entry is looked up as
	// os.Root would, and any failure leaves the answer to os.Root.
	if len(entries) > 0 {
		var st unix.Stat_t
		if err := ignoreEINTR(func() error {
			return unix.Fstatat(fd, entries[0].Name(), &st, unix.AT_SYMLINK_NOFOLLOW)
		}); err != nil {
			return nil, false, nil
		}
	}
	return entries, true, nil
}

// statInfo is a file's description from fstat, as os.Root's Stat and
// Lstat give it: the name is the last element of the name asked for.
type statInfo struct {
	name string
	sys  syscall.Stat_t
}

func (s *statInfo) Name() string       { return s.name }
func (s *statInfo) Size() int64        { return s.sys.Size }
func (s *statInfo) ModTime() time.Time { return time.Unix(s.sys.Mtim.Unix()) }
func (s *statInfo) IsDir() bool        { return s.Mode().IsDir() }
func (s *statInfo) Sys() any           { return &s.sys }

// Mode is the file's kind and permissions, converted as package os does.
func (s *statInfo) Mode() fs.FileMode {
	m := statType(s.sys.Mode) | fs.FileMode(s.sys.Mode&0o777)
	if s.sys.Mode&syscall.S_ISGID != 0 {
		m |= fs.ModeSetgid
	}
	if s.sys.Mode&syscall.S_ISUID != 0 {
		m |= fs.ModeSetuid
	}
	if s.sys.Mode&syscall.S_ISVTX != 0 {
		m |= fs.ModeSticky
	}
	return m
}
