package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gdtopo/gdtopo/internal/faultfs"
	"github.com/gdtopo/gdtopo/internal/source"
)

// deletingFS deletes the folder dir from the disk (rm -rf) before its
// operation number at, then goes on reading through fsys: the operating
// system's own errors follow.
type deletingFS struct {
	source.FS
	dir string
	at  int64
	ops atomic.Int64
}

func (d *deletingFS) step() {
	if d.ops.Add(1) == d.at {
		_ = os.RemoveAll(d.dir)
	}
}

func (d *deletingFS) Open(name string) (fs.File, error) { d.step(); return d.FS.Open(name) }

func (d *deletingFS) ReadLink(name string) (string, error) { d.step(); return d.FS.ReadLink(name) }

func (d *deletingFS) Lstat(name string) (fs.FileInfo, error) { d.step(); return d.FS.Lstat(name) }

func (d *deletingFS) Stat(name string) (fs.FileInfo, error) { d.step(); return fs.Stat(d.FS, name) }

func (d *deletingFS) ReadDir(name string) ([]fs.DirEntry, error) {
	d.step()
	return fs.ReadDir(d.FS, name)
}

// fleetLine is one line of -o jsonl.
type fleetLine struct {
	Source   string
	Error    string
	ExitCode int `json:"exit_status"`
	Report   *json.RawMessage
}

// TestFleetSourceVanishes checks a fleet, given as a quoted glob, whose
// sources vanish after the glob was expanded: one deleted before gdtopo
// gets to it, one deleted from the disk while it is being read, at several
// points of the read. Each gets its own error line naming it (on stderr
// and in the JSON), the others are reported in full, and the exit status
// is 1.
func TestFleetSourceVanishes(t *testing.T) {
	// The operations a whole read of the folder source takes.
	counted, err := source.Open(fx("cloud-vm-flat"))
	if err != nil {
		t.Fatal(err)
	}
	counter := &faultfs.Vanish{FS: counted.Root, After: math.MaxInt64}
	if code := mainStreams([]string{"check", fx("cloud-vm-flat"), "-o", "json"}, &Streams{In: strings.NewReader(""), Out: &bytes.Buffer{}, Err: &bytes.Buffer{},
		OpenSource: func(string) (*source.Source, error) { c := *counted; c.Root = counter; return &c, nil }}); code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	total := counter.Ops()

	for _, at := range []int64{1, 2, 10, total / 4, total / 2, total - 20, total} {
		dir := t.TempDir()
		snap := filepath.Join(dir, "a.tar.gz")
		if code, _, errb := run("snapshot", fx("recorded-vm"), "--output-file", snap); code != ExitOK {
			t.Fatalf("snapshot: exit %d: %s", code, errb)
		}
		deleted, deleting, last := filepath.Join(dir, "b"), filepath.Join(dir, "c"), filepath.Join(dir, "d")
		unpackTo(t, fx("recorded-vm"), deleted)
		unpackTo(t, fx("cloud-vm-flat"), deleting)
		unpackTo(t, fx("recorded-vm"), last)

		var stdout, stderr bytes.Buffer
		code := mainStreams([]string{"check", filepath.Join(dir, "*"), "-o", "jsonl"}, &Streams{In: strings.NewReader(""), Out: &stdout, Err: &stderr,
			OpenSource: func(name string) (*source.Source, error) {
				switch name {
				case deleted:
					if err := os.RemoveAll(deleted); err != nil {
						t.Error(err)
					}
				case deleting:
					src, err := source.Open(name)
					if err != nil {
						return nil, err
					}
					src.Root = &deletingFS{FS: src.Root, dir: deleting, at: at}
					return src, nil
				}
				return source.Open(name)
			}})

		lines := strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")
		if len(lines) != 4 {
			t.Fatalf("deleted at operation %d of %d: %d JSON lines, want 4:\n%s", at, total, len(lines), stdout.String())
		}
		errLines := strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n")
		for i, want := range []string{snap, deleted, deleting, last} {
			var l fleetLine
			if err := json.Unmarshal([]byte(lines[i]), &l); err != nil {
				t.Fatalf("line %d: %v: %s", i+1, err, lines[i])
			}
			if l.Source != want {
				t.Errorf("line %d is %s, want %s", i+1, l.Source, want)
			}
			failed := want == deleted || want == deleting && at < total
			switch {
			case failed && (l.Error == "" || l.Report != nil || l.ExitCode != ExitError || !strings.HasPrefix(l.Error, want+": ")):
				t.Errorf("deleted at operation %d of %d: %s: %+v; want an error naming it and no report", at, total, want, l)
			case failed && want == deleting && !strings.Contains(l.Error, "vanished while being read") &&
				!strings.Contains(l.Error, "no PCI devices: sys/bus/pci/devices is missing"): // gone before the first read
				t.Errorf("deleted at operation %d of %d: %s: error %q; want it to say the source vanished", at, total, want, l.Error)
			case !failed && (l.Error != "" || l.Report == nil):
				t.Errorf("deleted at operation %d of %d: %s: %s; want a report", at, total, want, l.Error)
			}
			if failed && !strings.Contains(stderr.String(), "gdtopo: "+want+": ") {
				t.Errorf("deleted at operation %d of %d: stderr %q does not name %s", at, total, stderr.String(), want)
			}
		}
		if wantErrs := 2 - map[bool]int{true: 1}[at == total]; len(errLines) != wantErrs {
			t.Errorf("deleted at operation %d of %d: stderr %q; want %d lines", at, total, stderr.String(), wantErrs)
		}
		if code != ExitError {
			t.Errorf("deleted at operation %d of %d: exit %d, want 1", at, total, code)
		}
	}
}

// TestVanishingSource checks a captured tree that vanishes after N file
// operations, for every N over the whole run of gdtopo check: exit 1 with
// one line on stderr naming the source and saying it vanished, or a report
// (exit 0) identical to that of the whole tree. topology's
// TestVanishingTree checks the graphs in detail, and unplugged devices.
func TestVanishingSource(t *testing.T) {
	src := fx("recorded-vm")
	code, want, errb := run("check", src, "-o", "json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errb)
	}
	opened, err := source.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	withVanish := func(v *faultfs.Vanish) *Streams {
		return &Streams{In: strings.NewReader(""), Out: &bytes.Buffer{}, Err: &bytes.Buffer{},
			OpenSource: func(string) (*source.Source, error) { s := *opened; s.Root = v; return &s, nil }}
	}
	counter := &faultfs.Vanish{FS: opened.Root, After: math.MaxInt64}
	if code := mainStreams([]string{"check", src, "-o", "json"}, withVanish(counter)); code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	errs := 0
	for after := range counter.Ops() + 1 {
		s := withVanish(&faultfs.Vanish{FS: opened.Root, After: after})
		code := mainStreams([]string{"check", src, "-o", "json"}, s)
		out, stderr := s.Out.(*bytes.Buffer).String(), s.Err.(*bytes.Buffer).String()
		switch code {
		case ExitError:
			errs++
			if lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n"); len(lines) != 1 ||
				!strings.HasPrefix(lines[0], "gdtopo: "+src+": ") || !strings.Contains(lines[0], "vanished") && !strings.Contains(lines[0], "no PCI devices") {
				t.Errorf("after %d: stderr %q; want one line naming %s and saying it vanished", after, stderr, src)
			}
			if out != "" {
				t.Errorf("after %d: a failed read wrote %q", after, out)
			}
		case ExitOK:
			// Gone once all was read: the report of the whole tree, but for
			// warnings that functions vanished.
			if got := withoutVanished(t, out); got != withoutVanished(t, want) {
				t.Errorf("after %d: the report differs from the whole tree's:\n%s", after, got)
			}
		default:
			t.Errorf("after %d: exit %d: %s", after, code, stderr)
		}
	}
	t.Logf("%d operations; %d reads failed", counter.Ops(), errs)
}

// withoutVanished is a JSON report without its warnings that functions
// vanished while being read.
func withoutVanished(t *testing.T, report string) string {
	t.Helper()
	var doc struct {
		Sources []struct{ Report map[string]any }
	}
	if err := json.Unmarshal([]byte(report), &doc); err != nil || len(doc.Sources) != 1 {
		t.Fatalf("%v: %.300s", err, report)
	}
	r := doc.Sources[0].Report
	var kept []any
	warnings, _ := r["warnings"].([]any)
	for _, w := range warnings {
		if m, _ := w.(map[string]any); !strings.Contains(fmt.Sprint(m["message"]), "vanished while being read") {
			kept = append(kept, w)
		}
	}
	r["warnings"] = kept
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestTruncatedArchive cuts a snapshot at points all along it, the last
// bytes one by one. A file truncated while gdtopo reads it is read as if it
// had been cut where the reader found its end, so this covers truncation
// mid-read too. Each cut must be refused, with one line naming the archive,
// or read to the whole archive's report: never read as a smaller machine.
func TestTruncatedArchive(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "snap.tar.gz")
	if code, _, errb := run("snapshot", fx("recorded-vm"), "--output-file", name); code != ExitOK {
		t.Fatalf("snapshot: exit %d: %s", code, errb)
	}
	whole, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	code, want, errb := run("check", name, "-o", "json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errb)
	}
	var cuts []int
	for n := 0; n < len(whole)-32; n += 37 {
		cuts = append(cuts, n)
	}
	for n := len(whole) - 32; n < len(whole); n++ {
		cuts = append(cuts, n)
	}
	refused := 0
	for _, n := range cuts {
		writeBytes(t, name, whole[:n])
		code, out, errb := run("check", name, "-o", "json")
		switch {
		case code == ExitError:
			refused++
			if lines := strings.Split(strings.TrimSuffix(errb, "\n"), "\n"); len(lines) != 1 || !strings.HasPrefix(lines[0], "gdtopo: "+name+": ") {
				t.Errorf("cut at %d of %d: stderr %q; want one line naming the archive", n, len(whole), errb)
			}
		case code == ExitOK && out == want:
		default:
			t.Errorf("cut at %d of %d: exit %d, and not the whole archive's report (stderr %q)", n, len(whole), code, errb)
		}
	}
	t.Logf("%d cuts of %d bytes: %d refused", len(cuts), len(whole), refused)
}

// TestSnapshotUnplugged snapshots a tree whose NIC is unplugged midway: the
// snapshot is written (exit 0), stands without the NIC, and a warning on
// standard error names the function and the file.
func TestSnapshotUnplugged(t *testing.T) {
	fixture := fx("recorded-vm")
	opened, err := source.Open(fixture)
	if err != nil {
		t.Fatal(err)
	}
	const nic = "0000:00:03.0"
	target, err := fs.ReadLink(opened.Root, "sys/bus/pci/devices/"+nic)
	if err != nil {
		t.Fatal(err)
	}
	dir := path.Join("sys/bus/pci/devices", target)
	v := &faultfs.Vanish{FS: opened.Root, After: 40, Gone: faultfs.Subtree(dir, faultfs.LinksInto(opened.Root, dir))}
	snap := filepath.Join(t.TempDir(), "snap.tar.gz")
	var out, errb bytes.Buffer
	code := mainStreams([]string{"snapshot", fixture, "--output-file", snap}, &Streams{In: strings.NewReader(""), Out: &out, Err: &errb,
		OpenSource: func(string) (*source.Source, error) { s := *opened; s.Root = v; return &s, nil }})
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	want := fmt.Sprintf("gdtopo: warning: %s: function %s went away while being captured (hot-unplugged?): left out of %s\n", opened.Name, nic, snap)
	if errb.String() != want {
		t.Errorf("stderr = %q, want %q", errb.String(), want)
	}
	code, report, stderr := run("check", snap, "-o", "json")
	if code != ExitOK && code != ExitFindings {
		t.Fatalf("check of the snapshot: exit %d: %s", code, stderr)
	}
	if strings.Contains(report, nic) {
		t.Errorf("the snapshot still holds %s", nic)
	}
}
