// Package outfile writes gdtopo's output files whole or not at all: into a
// temporary file in the destination's folder, which is synced, closed and
// renamed over the destination. On any failure (a full disk, a quota, a file
// size limit, a short write, a failed sync or close, SIGINT or SIGTERM) the
// temporary file is removed, so nothing partial is left behind.
//
// Only a new name or a regular file is replaced that way. What else may sit
// at the path is never replaced, since gdtopo often runs as root: a
// character device or a FIFO (/dev/null, a pipe) is written in place, as a
// shell redirection would; a symbolic link, a block device, a socket or a
// folder is refused. StickyWriter, which keeps the first failed write,
// serves standard output too.
package outfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// File is an open temporary file, as System.CreateTemp returns it.
type File interface {
	io.Writer
	Name() string
	Chmod(mode fs.FileMode) error
	Sync() error
	Close() error
}

// System is the file system calls Write makes. OS is the operating
// system's; tests substitute one that fails.
type System interface {
	Stat(name string) (fs.FileInfo, error)
	Lstat(name string) (fs.FileInfo, error)
	// OpenInPlace opens an existing character device, FIFO or regular file
	// for writing, neither creating nor truncating it (for a regular file,
	// to learn whether the user may write it).
	OpenInPlace(name string) (io.WriteCloser, error)
	// CreateTemp creates a new file in dir, its name pattern with "*"
	// made unique, with permissions 0666 less the umask, as a shell's >
	// makes a new file.
	CreateTemp(dir, pattern string) (File, error)
	Rename(oldpath, newpath string) error
	Remove(name string) error
	// SyncDir makes a rename in folder dir durable.
	SyncDir(dir string) error
}

// Options are Write's dependencies.
type Options struct {
	System System // nil: OS
}

// OS is the operating system's file system.
type OS struct{}

// Stat is os.Stat.
func (OS) Stat(name string) (fs.FileInfo, error) { return os.Stat(name) }

// Lstat is os.Lstat.
func (OS) Lstat(name string) (fs.FileInfo, error) { return os.Lstat(name) }

// OpenInPlace opens name write-only without creating, truncating or
// following a final symbolic link, and without making a terminal the
// controlling one. Opening a FIFO waits for a reader, as a shell's > does.
func (OS) OpenInPlace(name string) (io.WriteCloser, error) {
	return os.OpenFile(name, os.O_WRONLY|syscall.O_NOFOLLOW|syscall.O_NOCTTY, 0)
}

// CreateTemp is os.CreateTemp with the mode a shell's > gives a new file:
// 0666 less the umask, which the kernel applies (os.CreateTemp asks for
// 0600).
func (OS) CreateTemp(dir, pattern string) (File, error) {
	prefix, suffix, _ := strings.Cut(pattern, "*")
	for range 10000 {
		name := filepath.Join(dir, prefix+strconv.FormatUint(uint64(rand.Uint32()), 10)+suffix)
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, err // a nil *os.File must not become a non-nil File
		}
		return f, nil
	}
	return nil, fmt.Errorf("create a temporary file in %s: every name tried exists", dir)
}

// Rename is os.Rename.
func (OS) Rename(oldpath, newpath string) error { return os.Rename(oldpath, newpath) }

// Remove is os.Remove.
func (OS) Remove(name string) error { return os.Remove(name) }

// SyncDir opens dir and syncs it.
func (OS) SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// Write creates or replaces the file name with what write writes. It
// writes to a temporary file in name's folder, sets it to mode 0644, syncs
// and closes it, and renames it over name; on any error the temporary file
// is removed and name is left as it was. A SIGINT or SIGTERM while the
// temporary file exists removes it and is then delivered again, with its
// usual effect. Errors name the file, never the temporary one, and say what
// to do about a full disk, a quota or a file size limit (see Explain); the
// cause stays in the chain for errors.Is.
//
// When name is a character device or a FIFO, write writes to it in place
// (there is nothing to rename over it, and replacing /dev/null with a
// regular file would break every process using it). A symbolic link, a
// block device, a socket or a folder at name is refused with an error that
// says why, and nothing is written.
//
// A write that fails, or is short, fails every later write and Write
// itself, even when write does not pass the error on.
func Write(name string, opts Options, write func(w io.Writer) error) error {
	sys := opts.System
	if sys == nil {
		sys = OS{}
	}
	fail := func(err error) error { return fmt.Errorf("write %s: %w", name, Explain(bare(err))) }
	dir := filepath.Dir(name)
	switch fi, err := sys.Stat(dir); {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("write %s: folder %s does not exist", name, dir)
	case err != nil:
		return fail(err)
	case !fi.IsDir():
		return fmt.Errorf("write %s: %s is not a folder", name, dir)
	}
	fi, err := sys.Lstat(name)
	keep := fs.FileMode(0) // the permissions of the file replaced; 0: a new file
	switch {
	case errors.Is(err, fs.ErrNotExist):
		// a new name: created with the umask's mode
	case err == nil && fi.Mode().IsRegular():
		// A regular file is replaced whole, and only when the user could
		// have written it, as a shell's > opens it: the folder's write
		// permission alone would let a rename replace a file its owner
		// made read-only, or one owned by root. The replacement keeps the
		// file's permissions, as > does.
		w, err := sys.OpenInPlace(name)
		if err != nil {
			return fail(err)
		}
		_ = w.Close()
		keep = fi.Mode().Perm()
	case err != nil:
		return fail(err)
	case fi.IsDir():
		return fmt.Errorf("write %s: is a folder", name)
	case fi.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("write %s: is a symbolic link, which gdtopo does not replace or write through: give the path it points to", name)
	case fi.Mode()&fs.ModeCharDevice != 0, fi.Mode()&fs.ModeNamedPipe != 0:
		return writeInPlace(name, sys, fail, write)
	case fi.Mode()&fs.ModeDevice != 0:
		return fmt.Errorf("write %s: is a block device, which gdtopo does not overwrite: give a file name", name)
	default:
		return fmt.Errorf("write %s: is a %s, not a regular file: give a file name", name, kindOf(fi.Mode()))
	}
	f, err := sys.CreateTemp(dir, "."+filepath.Base(name)+".*.tmp")
	if err != nil {
		return fail(err)
	}
	tmp := f.Name()
	guard := removeOnSignal(sys, tmp)
	closed, renamed := false, false
	defer func() { // on every way out, a panic in write included
		if !closed {
			_ = f.Close()
		}
		guard.done(!renamed)
	}()
	w := &StickyWriter{W: f}
	err = write(w)
	if w.Err != nil {
		err = w.Err // the cause, whatever write made of it
	}
	if err == nil && keep != 0 {
		err = f.Chmod(keep)
	}
	if err == nil {
		err = f.Sync() // a full disk often shows only here, or at Close
	}
	closed = true
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = guard.rename(name)
	}
	if err != nil {
		return fail(err)
	}
	renamed = true
	_ = sys.SyncDir(dir) // makes the rename durable; the file is complete either way
	return nil
}

// writeInPlace writes to the character device or FIFO name.
func writeInPlace(name string, sys System, fail func(error) error, write func(w io.Writer) error) error {
	f, err := sys.OpenInPlace(name)
	if err != nil {
		return fail(err)
	}
	w := &StickyWriter{W: f}
	err = write(w)
	if w.Err != nil {
		err = w.Err
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fail(err)
	}
	return nil
}

// kindOf names the file kind of mode in words.
func kindOf(mode fs.FileMode) string {
	switch {
	case mode&fs.ModeSocket != 0:
		return "socket"
	case mode&fs.ModeIrregular != 0:
		return "file of unknown kind"
	}
	return "special file"
}

// tempGuard removes a temporary file on SIGINT or SIGTERM, then delivers
// the signal again with the handler gone, so that it has its usual effect.
// Its mutex orders that removal against the rename.
type tempGuard struct {
	sys  System
	tmp  string
	ch   chan os.Signal
	stop chan struct{}
	mu   sync.Mutex
	gone bool // renamed or removed
}

// removeOnSignal watches for SIGINT and SIGTERM until done is called. A
// signal the process was started ignoring (SIGINT in a job a script put in
// the background, SIGTERM under some supervisors) stays ignored: watching
// it would make it stop the write, then be ignored when raised again.
func removeOnSignal(sys System, tmp string) *tempGuard {
	g := &tempGuard{sys: sys, tmp: tmp, ch: make(chan os.Signal, 1), stop: make(chan struct{})}
	for _, sig := range []os.Signal{syscall.SIGINT, syscall.SIGTERM} {
		if !signal.Ignored(sig) {
			signal.Notify(g.ch, sig)
		}
	}
	go func() {
		select {
		case sig := <-g.ch:
			g.mu.Lock()
			if !g.gone {
				_ = g.sys.Remove(g.tmp)
				g.gone = true
			}
			g.mu.Unlock()
			signal.Stop(g.ch)
			if s, ok := sig.(syscall.Signal); ok {
				_ = syscall.Kill(os.Getpid(), s) // no rename after this: gone is set
			}
		case <-g.stop:
		}
	}()
	return g
}

// rename renames the temporary file to name unless a signal removed it.
func (g *tempGuard) rename(name string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.gone {
		return errors.New("interrupted")
	}
	err := g.sys.Rename(g.tmp, name)
	g.gone = err == nil
	return err
}

// done stops watching for signals and, when remove is set, removes the
// temporary file.
func (g *tempGuard) done(remove bool) {
	signal.Stop(g.ch)
	close(g.stop)
	if remove {
		g.mu.Lock()
		if !g.gone {
			_ = g.sys.Remove(g.tmp)
			g.gone = true
		}
		g.mu.Unlock()
	}
}

// StickyWriter writes to W and keeps its first error, a short write
// counting as io.ErrShortWrite, as Err; every later write fails with Err.
// When Wrap is set, the error kept is Wrap of the first one.
type StickyWriter struct {
	W    io.Writer
	Wrap func(error) error
	Err  error
}

// Write writes p to W unless an earlier write failed.
func (s *StickyWriter) Write(p []byte) (int, error) {
	if s.Err != nil {
		return 0, s.Err
	}
	n, err := s.W.Write(p)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	if err != nil && s.Wrap != nil {
		err = s.Wrap(err)
	}
	s.Err = err
	return n, err
}

// bare strips an *fs.PathError or *os.LinkError around err, whose path is
// the temporary file's: the caller names the file itself. One deeper in the
// chain is about something else (the source being read) and stays.
func bare(err error) error {
	switch e := err.(type) {
	case *fs.PathError:
		return e.Err
	case *os.LinkError:
		return e.Err
	}
	return err
}

// hintError is an error with advice on what to do about it.
type hintError struct {
	err  error
	hint string
}

func (e *hintError) Error() string { return e.err.Error() + " (" + e.hint + ")" }
func (e *hintError) Unwrap() error { return e.err }

// Explain adds what to do to the errors a full or limited disk gives:
// ENOSPC, EDQUOT, EFBIG and a short write. Other errors are returned as
// they are.
func Explain(err error) error {
	var hint string
	switch {
	case errors.Is(err, syscall.ENOSPC):
		hint = "the disk is full: free some space or write elsewhere"
	case errors.Is(err, syscall.EDQUOT):
		hint = "the disk quota is used up: free some space or write elsewhere"
	case errors.Is(err, syscall.EFBIG):
		hint = "over the file size limit, ulimit -f, or the largest file the file system allows: raise the limit or write elsewhere"
	case errors.Is(err, io.ErrShortWrite):
		hint = "the disk took only part of it, as when full: free some space or write elsewhere"
	default:
		return err
	}
	var h *hintError
	if errors.As(err, &h) {
		return err // explained already
	}
	return &hintError{err: err, hint: hint}
}
