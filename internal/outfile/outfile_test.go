package outfile_test

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/gdtopo/gdtopo/internal/outfile"
)

// faultOS is the real file system with one call failing.
type faultOS struct {
	outfile.OS
	createErr, renameErr error
	writeAfter           int // bytes each file takes before writeErr; <0: no limit
	writeErr             error
	chmodErr, syncErr    error
	closeErr             error
	temps                []string
	closed               int
}

func (o *faultOS) CreateTemp(dir, pattern string) (outfile.File, error) {
	if o.createErr != nil {
		return nil, &fs.PathError{Op: "open", Path: filepath.Join(dir, pattern), Err: o.createErr}
	}
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return nil, err
	}
	o.temps = append(o.temps, f.Name())
	return &faultFile{File: f, o: o}, nil
}

func (o *faultOS) Rename(oldpath, newpath string) error {
	if o.renameErr != nil {
		return &os.LinkError{Op: "rename", Old: oldpath, New: newpath, Err: o.renameErr}
	}
	return os.Rename(oldpath, newpath)
}

type faultFile struct {
	*os.File
	o *faultOS
	n int
}

func (f *faultFile) Write(p []byte) (int, error) {
	if f.o.writeAfter < 0 || f.n+len(p) <= f.o.writeAfter {
		n, err := f.File.Write(p)
		f.n += n
		return n, err
	}
	n, _ := f.File.Write(p[:f.o.writeAfter-f.n])
	f.n += n
	return n, &fs.PathError{Op: "write", Path: f.Name(), Err: f.o.writeErr}
}

func (f *faultFile) Chmod(mode fs.FileMode) error {
	if f.o.chmodErr != nil {
		return &fs.PathError{Op: "chmod", Path: f.Name(), Err: f.o.chmodErr}
	}
	return f.File.Chmod(mode)
}

func (f *faultFile) Sync() error {
	if f.o.syncErr != nil {
		return &fs.PathError{Op: "sync", Path: f.Name(), Err: f.o.syncErr}
	}
	return f.File.Sync()
}

func (f *faultFile) Close() error {
	f.o.closed++
	err := f.File.Close()
	if f.o.closeErr != nil {
		return &fs.PathError{Op: "close", Path: f.Name(), Err: f.o.closeErr}
	}
	return err
}

// writeAll writes data in chunks of 700 bytes, checking each write.
func writeAll(data []byte) func(io.Writer) error {
	return func(w io.Writer) error {
		for rest := data; len(rest) > 0; {
			n := min(700, len(rest))
			if _, err := w.Write(rest[:n]); err != nil {
				return err
			}
			rest = rest[n:]
		}
		return nil
	}
}

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "out.xml")
	data := []byte(strings.Repeat("0123456789abcdef", 1000))
	for range 2 { // the second replaces the first
		if err := outfile.Write(name, outfile.Options{}, writeAll(data)); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(name)
	if err != nil || string(got) != string(data) {
		t.Fatalf("read back %d bytes, %v; want %d", len(got), err, len(data))
	}
	info, _ := os.Stat(name)
	if entries, _ := os.ReadDir(dir); len(entries) != 1 || info.Mode().Perm() != 0o644 {
		t.Errorf("%d entries, mode %v; want one file, 0644", len(entries), info.Mode().Perm())
	}
}

// TestWriteFails fails each step of Write in turn, a write at every 500th
// byte: the error names the file (never the temporary one), keeps its cause
// for errors.Is, says what to do about a full disk; the temporary file is
// closed and removed, and a file already there is left as it was.
func TestWriteFails(t *testing.T) {
	data := []byte(strings.Repeat("x", 10_000))
	const full = "no space left on device (the disk is full: free some space or write elsewhere)"
	type tc struct {
		name  string
		os    faultOS
		write func(io.Writer) error
		is    error
		want  string
	}
	var cases []tc
	for n := 0; n < len(data); n += 500 {
		cases = append(cases, tc{fmt.Sprintf("full after %d bytes", n), faultOS{writeAfter: n, writeErr: syscall.ENOSPC}, writeAll(data), syscall.ENOSPC, full})
	}
	swallow := func(w io.Writer) error { _, _ = w.Write(data); _, _ = w.Write(data); return nil }
	cases = append(cases,
		tc{"no inode left", faultOS{writeAfter: -1, createErr: syscall.ENOSPC}, writeAll(data), syscall.ENOSPC, full},
		tc{"write error ignored by the writer", faultOS{writeAfter: 100, writeErr: syscall.ENOSPC}, swallow, syscall.ENOSPC, full},
		tc{"chmod", faultOS{writeAfter: -1, chmodErr: syscall.EPERM}, writeAll(data), syscall.EPERM, "operation not permitted"},
		tc{"sync", faultOS{writeAfter: -1, syncErr: syscall.ENOSPC}, writeAll(data), syscall.ENOSPC, full},
		tc{"close", faultOS{writeAfter: -1, closeErr: syscall.EDQUOT}, writeAll(data), syscall.EDQUOT, "disk quota exceeded (the disk quota is used up"},
		tc{"rename", faultOS{writeAfter: -1, renameErr: syscall.EXDEV}, writeAll(data), syscall.EXDEV, "invalid cross-device link"},
		tc{"file size limit", faultOS{writeAfter: 4096, writeErr: syscall.EFBIG}, writeAll(data), syscall.EFBIG, "file too large (over the file size limit"},
		tc{"the writer's own error", faultOS{writeAfter: -1}, func(w io.Writer) error {
			_, _ = w.Write(data[:10])
			return fs.ErrNotExist
		}, fs.ErrNotExist, "file does not exist"},
	)
	for _, c := range cases {
		for _, existing := range []bool{false, true} {
			if c.name == "chmod" && !existing {
				continue // a new file keeps the mode it was created with
			}
			dir := t.TempDir()
			name := filepath.Join(dir, "out.svg")
			if existing {
				if err := os.WriteFile(name, []byte("before"), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			fos := c.os
			err := outfile.Write(name, outfile.Options{System: &fos}, c.write)
			what := fmt.Sprintf("%s (existing: %v)", c.name, existing)
			if err == nil {
				t.Errorf("%s: no error", what)
				continue
			}
			if !errors.Is(err, c.is) || !strings.HasPrefix(err.Error(), "write "+name+": "+c.want) || strings.Contains(err.Error(), ".tmp") {
				t.Errorf("%s: %q (is %v: %v); want it to start %q", what, err, c.is, errors.Is(err, c.is), "write "+name+": "+c.want)
			}
			if fos.closed != len(fos.temps) {
				t.Errorf("%s: %d temporary files, %d closed", what, len(fos.temps), fos.closed)
			}
			entries, _ := os.ReadDir(dir)
			switch b, _ := os.ReadFile(name); {
			case existing && (len(entries) != 1 || string(b) != "before"):
				t.Errorf("%s: %d entries, the file holds %q; want it as before", what, len(entries), b)
			case !existing && len(entries) != 0:
				t.Errorf("%s: %d entries left", what, len(entries))
			}
		}
	}
}

// shortOS's files take half of each write and say nothing.
type shortOS struct{ outfile.OS }

func (shortOS) CreateTemp(dir, pattern string) (outfile.File, error) {
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return nil, err
	}
	return shortFile{f}, nil
}

type shortFile struct{ *os.File }

func (f shortFile) Write(p []byte) (int, error) { return f.File.Write(p[:len(p)/2]) }

func TestShortWrite(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "out")
	err := outfile.Write(name, outfile.Options{System: shortOS{}}, func(w io.Writer) error {
		_, _ = w.Write([]byte("some bytes"))
		return nil
	})
	if !errors.Is(err, io.ErrShortWrite) || !strings.Contains(err.Error(), "write "+name+": short write (the disk took only part of it") {
		t.Errorf("%v; want a short write naming %s", err, name)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("%d entries left", len(entries))
	}
}

func TestWriteWhere(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a-file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{
		filepath.Join(dir, "no", "out"): "folder " + filepath.Join(dir, "no") + " does not exist",
		filepath.Join(file, "out"):      file + " is not a folder",
		dir:                             "is a folder",
	} {
		err := outfile.Write(name, outfile.Options{}, writeAll([]byte("x")))
		if err == nil || err.Error() != "write "+name+": "+want {
			t.Errorf("%s: %v; want %q", name, err, want)
		}
	}
}

func TestWritePanics(t *testing.T) {
	dir := t.TempDir()
	fos := &faultOS{writeAfter: -1}
	func() {
		defer func() { _ = recover() }()
		_ = outfile.Write(filepath.Join(dir, "out"), outfile.Options{System: fos}, func(w io.Writer) error {
			_, _ = w.Write([]byte("half"))
			panic("a bug in the writer")
		})
	}()
	if entries, _ := os.ReadDir(dir); len(entries) != 0 || fos.closed != 1 {
		t.Errorf("after a panic: %d entries left, %d of 1 temporary files closed", len(entries), fos.closed)
	}
}
