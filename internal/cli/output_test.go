package cli

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"

	"github.com/gdtopo/gdtopo/internal/outfile"
)

// fullDisk is the real file system, but its temporary files take limit
// bytes and then fail with writeErr (or, with short, stop short without an
// error), and their Sync or Close fail with syncErr or closeErr.
type fullDisk struct {
	outfile.OS
	limit             int64 // -1: no limit
	writeErr          error
	short             bool
	syncErr, closeErr error
	created           []string
}

func (d *fullDisk) CreateTemp(dir, pattern string) (outfile.File, error) {
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return nil, err
	}
	d.created = append(d.created, f.Name())
	return &fullFile{File: f, d: d}, nil
}

// fullFile is a temporary file of a fullDisk.
type fullFile struct {
	*os.File
	d      *fullDisk
	n      int64
	closed bool
}

func (f *fullFile) Write(p []byte) (int, error) {
	if f.d.limit < 0 || f.n+int64(len(p)) <= f.d.limit {
		n, err := f.File.Write(p)
		f.n += int64(n)
		return n, err
	}
	n, err := f.File.Write(p[:max(0, f.d.limit-f.n)])
	f.n += int64(n)
	if err != nil || f.d.short {
		return n, err
	}
	return n, &fs.PathError{Op: "write", Path: f.Name(), Err: f.d.writeErr}
}

func (f *fullFile) Sync() error {
	if f.d.syncErr != nil {
		return &fs.PathError{Op: "sync", Path: f.Name(), Err: f.d.syncErr}
	}
	return f.File.Sync()
}

func (f *fullFile) Close() error {
	f.closed = true
	err := f.File.Close()
	if f.d.closeErr != nil {
		return &fs.PathError{Op: "close", Path: f.Name(), Err: f.d.closeErr}
	}
	return err
}

// folderFiles lists a folder's entries with their contents.
func folderFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = string(b)
	}
	return out
}

func sortedKeys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestOutputFileDiskFull writes every kind of output file to a disk that
// fills up at several points, or fails the sync or close that a full disk
// often fails instead: exit status 1, one line on stderr naming the file and
// saying what to do, nothing on stdout, and the folder as it was: no file,
// no temporary file, and an existing file of that name unchanged.
func TestOutputFileDiskFull(t *testing.T) {
	src := fx("dgx-a100")
	commands := [][]string{
		{"snapshot", src, "--output-file"},
		{"export", "-o", "nccl-xml", src, "--output-file"},
		{"export", "-o", "svg", src, "--output-file"},
		{"export", "-o", "dot", src, "--output-file"},
	}
	const full = "no space left on device (the disk is full: free some space or write elsewhere)"
	for _, command := range commands {
		t.Run(strings.Join(command[:len(command)-2], " "), func(t *testing.T) {
			ok := filepath.Join(t.TempDir(), "out")
			if code, _, errb := run(append(command, ok)...); code != ExitOK {
				t.Fatalf("exit %d: %s", code, errb)
			}
			info, err := os.Stat(ok)
			if err != nil {
				t.Fatal(err)
			}
			size := info.Size()
			if info.Mode().Perm() != 0o644 {
				t.Errorf("written with mode %v, want 0644", info.Mode().Perm())
			}
			faults := []struct {
				name string
				disk fullDisk
				want string
			}{
				{"full from the start", fullDisk{limit: 0, writeErr: syscall.ENOSPC}, full},
				{"full after 1 byte", fullDisk{limit: 1, writeErr: syscall.ENOSPC}, full},
				{"full after 100 bytes", fullDisk{limit: 100, writeErr: syscall.ENOSPC}, full},
				{"full halfway", fullDisk{limit: size / 2, writeErr: syscall.ENOSPC}, full},
				{"full near the end", fullDisk{limit: size - 64, writeErr: syscall.ENOSPC}, full}, // a snapshot's size varies by a few bytes with its time
				{"short write", fullDisk{limit: size / 2, short: true}, "short write (the disk took only part of it"},
				{"quota", fullDisk{limit: size / 3, writeErr: syscall.EDQUOT}, "disk quota exceeded (the disk quota is used up"},
				{"file size limit", fullDisk{limit: size / 3, writeErr: syscall.EFBIG}, "file too large (over the file size limit, ulimit -f"},
				{"full at sync", fullDisk{limit: -1, syncErr: syscall.ENOSPC}, full},
				{"full at close", fullDisk{limit: -1, closeErr: syscall.ENOSPC}, full},
				{"I/O error at sync", fullDisk{limit: -1, syncErr: syscall.EIO}, "input/output error"},
			}
			for i, f := range faults {
				for _, existing := range []bool{false, true} {
					dir := t.TempDir()
					out := filepath.Join(dir, "topo.out")
					if existing {
						if err := os.WriteFile(out, []byte("the previous file\n"), 0o644); err != nil {
							t.Fatal(err)
						}
					}
					before := folderFiles(t, dir)
					disk := faults[i].disk
					var stdout, stderr bytes.Buffer
					code := mainStreams(append(command, out), &Streams{In: strings.NewReader(""), Out: &stdout, Err: &stderr,
						Files: outfile.Options{System: &disk}})
					what := fmt.Sprintf("%s (existing file: %v)", f.name, existing)
					if code != ExitError {
						t.Errorf("%s: exit %d, want 1", what, code)
					}
					want := "gdtopo: write " + out + ": " + f.want
					if lines := strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n"); len(lines) != 1 || !strings.HasPrefix(lines[0], want) {
						t.Errorf("%s: stderr %q; want one line starting %q", what, stderr.String(), want)
					}
					if strings.Contains(stderr.String(), ".tmp") {
						t.Errorf("%s: stderr names the temporary file: %q", what, stderr.String())
					}
					if stdout.Len() != 0 {
						t.Errorf("%s: wrote %d bytes to stdout", what, stdout.Len())
					}
					if after := folderFiles(t, dir); fmt.Sprint(after) != fmt.Sprint(before) {
						t.Errorf("%s: the folder holds %v, want %v as before", what, sortedKeys(after), sortedKeys(before))
					}
					if len(disk.created) != 1 {
						t.Errorf("%s: %d temporary files made, want 1", what, len(disk.created))
					}
				}
			}
		})
	}
}

// failingWriter takes limit bytes, then fails with err (or, with short,
// stops short without an error).
type failingWriter struct {
	bytes.Buffer
	limit int
	err   error
	short bool
	calls int
}

func (w *failingWriter) Write(p []byte) (int, error) {
	w.calls++
	if w.limit < 0 || w.Len()+len(p) <= w.limit {
		return w.Buffer.Write(p)
	}
	n, _ := w.Buffer.Write(p[:max(0, w.limit-w.Len())])
	if w.short {
		return n, nil
	}
	return n, &fs.PathError{Op: "write", Path: "/dev/stdout", Err: w.err}
}

// TestStdoutFailures runs every command that writes to standard output with
// an output that fills up (a redirect to a full disk) at several points,
// stops short, or is a closed pipe. A full disk or short write: exit status
// 1 and one line on stderr saying standard output could not be written, for
// every output format, whether or not the command checks its writes itself.
// A closed pipe: exit status 1 and nothing on stderr (the gdtopo binary
// itself dies of SIGPIPE first, see TestBinaryOutputFailures).
func TestStdoutFailures(t *testing.T) {
	commands := [][]string{
		{"check", fx("dgx-a100")},
		{"check", fx("sys-4029gp-v100")}, // critical findings: exit 3 when the output is fine
		{"check", fx("dgx-a100"), "-o", "json"},
		{"check", fx("dgx-a100"), "-o", "markdown"},
		{"check", fx("dgx-a100"), "-o", "jsonl"},
		{"check", fx("dgx-a100"), fx("hgx-h100"), "-o", "jsonl"},
		{"check", fx("dgx-a100"), "-o", "prometheus"},
		{"check", fx("dgx-a100"), "-o", "nfd"},
		{"matrix", fx("dgx-a100")},
		{"tree", fx("dgx-a100")},
		{"path", "GPU0", "NIC0", fx("dgx-a100")},
		{"compare", fx("dgx-a100"), fx("hgx-h100")},
		{"export", "-o", "svg", fx("dgx-a100")},
		{"export", "-o", "nccl-xml", fx("dgx-a100"), "--output-file", "-"},
		{"--help"},
	}
	const full = "gdtopo: write standard output: no space left on device (the disk is full: free some space or write elsewhere)\n"
	for _, args := range commands {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			whole := &failingWriter{limit: -1}
			var stderr bytes.Buffer
			code := mainStreams(args, &Streams{In: strings.NewReader(""), Out: whole, Err: &stderr})
			if code != ExitOK && code != ExitFindings || whole.Len() == 0 {
				t.Fatalf("exit %d, %d bytes out: %s", code, whole.Len(), stderr.String())
			}
			size := whole.Len()
			for _, w := range []*failingWriter{
				{limit: 0, err: syscall.ENOSPC},
				{limit: 1, err: syscall.ENOSPC},
				{limit: size / 3, err: syscall.ENOSPC},
				// Near the end, but not at the last byte: -o prometheus carries
				// the time of the run, whose length varies by a few bytes.
				{limit: max(0, size-64), err: syscall.ENOSPC},
				{limit: size / 2, short: true},
				{limit: 0, err: syscall.EPIPE},
				{limit: size / 2, err: syscall.EPIPE},
			} {
				var stderr bytes.Buffer
				code := mainStreams(args, &Streams{In: strings.NewReader(""), Out: w, Err: &stderr})
				what := fmt.Sprintf("%v after %d bytes (short: %v)", w.err, w.limit, w.short)
				if code != ExitError {
					t.Errorf("%s: exit %d, want 1", what, code)
				}
				want := full
				switch {
				case w.short:
					want = "gdtopo: write standard output: short write (the disk took only part of it, as when full: free some space or write elsewhere)\n"
				case w.err == syscall.EPIPE:
					want = ""
				}
				if stderr.String() != want {
					t.Errorf("%s: stderr %q, want %q", what, stderr.String(), want)
				}
				if w.Len() > w.limit {
					t.Errorf("%s: %d bytes written", what, w.Len())
				}
			}
		})
	}

	// Several sources in a table are one output: it fails once.
	w := &failingWriter{limit: 500, err: syscall.ENOSPC}
	var stderr bytes.Buffer
	code := mainStreams([]string{"check", fx("dgx-a100"), fx("hgx-h100"), fx("recorded-vm")}, &Streams{In: strings.NewReader(""), Out: w, Err: &stderr})
	if code != ExitError || stderr.String() != full {
		t.Errorf("three sources to a full disk: exit %d, stderr %q; want 1 and the full-disk line once", code, stderr.String())
	}
}

// errWriter is a standard output that fails every write with err.
type errWriter struct{ err error }

func (w errWriter) Write([]byte) (int, error) { return 0, w.err }

// TestStdoutErrorKinds: the words for each kind of failed write to
// standard output.
func TestStdoutErrorKinds(t *testing.T) {
	src := fx("recorded-vm")
	for _, c := range []struct {
		err  error
		want string
	}{
		{syscall.EDQUOT, "gdtopo: write standard output: disk quota exceeded (the disk quota is used up: free some space or write elsewhere)\n"},
		{syscall.EFBIG, "gdtopo: write standard output: file too large (over the file size limit, ulimit -f, or the largest file the file system allows: raise the limit or write elsewhere)\n"},
		{syscall.EBADF, "gdtopo: write standard output: bad file descriptor\n"},
		{io.ErrClosedPipe, "gdtopo: write standard output: io: read/write on closed pipe\n"},
	} {
		var stderr bytes.Buffer
		code := mainStreams([]string{"tree", src}, &Streams{In: strings.NewReader(""), Out: errWriter{c.err}, Err: &stderr})
		if code != ExitError || stderr.String() != c.want {
			t.Errorf("%v: exit %d, stderr %q; want 1 and %q", c.err, code, stderr.String(), c.want)
		}
	}
}
