package source

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	mathrand "math/rand/v2"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"testing/fstest"
	"time"

	"github.com/klauspost/compress/zstd"
)

// member is one entry of a test archive or tree. A link makes a symbolic link
// unless typ says otherwise; a name ending in "/" makes a folder.
type member struct {
	name, body, link string
	typ              byte
}

const (
	devLink  = "sys/bus/pci/devices/0000:00:01.0"
	devClass = devLink + "/class"
	linkDest = "../../../devices/pci0000:00/0000:00:01.0"
)

// goodTree is a small sysfs tree with one PCI device, and no folder entries.
func goodTree(prefix string) []member {
	return []member{
		{name: prefix + devLink, link: linkDest},
		{name: prefix + "sys/devices/pci0000:00/0000:00:01.0/class", body: "0x030200\n"},
		{name: prefix + "proc/cpuinfo", body: "processor\t: 0\n"},
	}
}

// withGood appends the good tree to extra members.
func withGood(extra ...member) []member { return append(goodTree(""), extra...) }

// tarBytes writes members as a tar stream.
func tarBytes(t *testing.T, members []member) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, m := range members {
		hdr := &tar.Header{Name: m.name, Mode: 0o644, Size: int64(len(m.body)), Linkname: m.link,
			Typeflag: m.typ, ModTime: time.Unix(1700000000, 0)}
		switch {
		case m.typ != 0:
		case m.link != "":
			hdr.Typeflag = tar.TypeSymlink
		case strings.HasSuffix(m.name, "/"):
			hdr.Typeflag, hdr.Mode = tar.TypeDir, 0o755
		default:
			hdr.Typeflag = tar.TypeReg
		}
		if hdr.Typeflag != tar.TypeReg {
			hdr.Size = 0
		}
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(m.body)); err != nil && hdr.Size > 0 {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// gz, zst and bz2 compress data; bz2 skips the test without bzip2(1).
func gz(t *testing.T, data []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(data); err != nil || zw.Close() != nil {
		t.Fatal("gzip failed")
	}
	return buf.Bytes()
}

func zst(t *testing.T, data []byte) []byte {
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	return enc.EncodeAll(data, nil)
}

func bz2(t *testing.T, data []byte) []byte {
	if _, err := exec.LookPath("bzip2"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("bzip2 missing under CI (.ci/run installs it): %v", err)
		}
		t.Skip("bzip2 not installed")
	}
	cmd := exec.Command("bzip2", "-c")
	cmd.Stdin = bytes.NewReader(data)
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// writeFile writes data to a new file in a fresh temporary folder.
func writeFile(t *testing.T, base string, data []byte) string {
	t.Helper()
	name := filepath.Join(t.TempDir(), base)
	if err := os.WriteFile(name, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return name
}

// writeTree materialises members under dir.
func writeTree(t *testing.T, dir string, members []member) {
	t.Helper()
	for _, m := range members {
		p := filepath.Join(dir, filepath.FromSlash(m.name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		var err error
		if m.link != "" {
			err = os.Symlink(m.link, p)
		} else {
			err = os.WriteFile(p, []byte(m.body), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// checkGood checks that root shows the good tree.
func checkGood(t *testing.T, root FS) {
	t.Helper()
	entries, err := fs.ReadDir(root, "sys/bus/pci/devices")
	if err != nil || len(entries) != 1 || entries[0].Name() != "0000:00:01.0" {
		t.Fatalf("ReadDir devices = %v, %v; want [0000:00:01.0]", entries, err)
	}
	if entries[0].Type() != fs.ModeSymlink {
		t.Errorf("devices entry type = %v, want a symbolic link", entries[0].Type())
	}
	if target, err := fs.ReadLink(root, devLink); err != nil || target != linkDest {
		t.Errorf("ReadLink = %q, %v; want %q", target, err, linkDest)
	}
	if info, err := fs.Lstat(root, devLink); err != nil || info.Mode().Type() != fs.ModeSymlink {
		t.Errorf("Lstat = %v, %v; want a symbolic link", info, err)
	}
	if info, err := fs.Stat(root, devLink); err != nil || !info.IsDir() {
		t.Errorf("Stat = %v, %v; want a folder", info, err)
	}
	if data, err := fs.ReadFile(root, devClass); err != nil || string(data) != "0x030200\n" {
		t.Errorf("ReadFile(class) = %q, %v", data, err)
	}
	if top, err := fs.ReadDir(root, "."); err != nil || !slices.ContainsFunc(top, func(e fs.DirEntry) bool {
		return e.Name() == "sys" && e.IsDir()
	}) {
		t.Errorf("ReadDir(.) = %v, %v; want a sys folder", top, err)
	}
	if err := fstest.TestFS(root, "sys/devices/pci0000:00/0000:00:01.0/class"); err != nil {
		t.Errorf("fstest.TestFS: %v", err)
	}
}

func TestOpenGoodArchives(t *testing.T) {
	tests := []struct {
		name       string
		data       func(*testing.T) []byte
		wantFormat string
	}{
		{"plain tar", func(t *testing.T) []byte { return tarBytes(t, goodTree("")) }, "tar archive"},
		{"tar.gz", func(t *testing.T) []byte { return gz(t, tarBytes(t, goodTree(""))) }, "tar.gz archive"},
		{"tar.zst", func(t *testing.T) []byte { return zst(t, tarBytes(t, goodTree(""))) }, "tar.zst archive"},
		{"tar.bz2", func(t *testing.T) []byte { return bz2(t, tarBytes(t, goodTree(""))) }, "tar.bz2 archive"},
		{"tar.zst in two frames around a skippable frame", func(t *testing.T) []byte {
			tb := tarBytes(t, goodTree(""))
			skippable := []byte{0x50, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, 'a', 'b', 'c'}
			return slices.Concat(zst(t, tb[:1000]), skippable, zst(t, tb[1000:]))
		}, "tar.zst archive"},
		{"dot-slash names", func(t *testing.T) []byte {
			return gz(t, tarBytes(t, append([]member{{name: "./"}}, goodTree("./")...)))
		}, "tar.gz archive"},
		{"one top folder", func(t *testing.T) []byte {
			return gz(t, tarBytes(t, append([]member{{name: "host/"}}, goodTree("host/")...)))
		}, "tar.gz archive"},
		{"folder entries after files", func(t *testing.T) []byte {
			return tarBytes(t, append(goodTree(""), member{name: "sys/"}, member{name: "sys/devices/"}))
		}, "tar archive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := writeFile(t, "snapshot.bin", tt.data(t)) // the extension must not matter
			src, err := Open(name)
			if err != nil {
				t.Fatal(err)
			}
			if src.Kind != KindArchive || src.Format != tt.wantFormat || src.Name != name || len(src.Warnings) != 0 {
				t.Errorf("got kind %q, format %q, name %q, warnings %q; want archive, %q, %q, none",
					src.Kind, src.Format, src.Name, src.Warnings, tt.wantFormat, name)
			}
			checkGood(t, src.Root)
		})
	}
}

// TestLargeMembers reads members past the slabs' limit whole, in one step
// and grown step by step, and refuses one the stream cuts short.
func TestLargeMembers(t *testing.T) {
	var extra []member
	for _, n := range []int{slabMember + 1, 64 << 10, 64<<10 + 1, 300 << 10} {
		body := make([]byte, n)
		for i := range body {
			body[i] = byte(i * 7 / 3)
		}
		extra = append(extra, member{name: fmt.Sprintf("sys/large/%d", n), body: string(body)})
	}
	data := tarBytes(t, withGood(extra...))
	src, err := Open(writeFile(t, "large.tar", data))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range extra {
		if got, err := fs.ReadFile(src.Root, m.name); err != nil || string(got) != m.body {
			t.Errorf("ReadFile(%s) = %d bytes, %v; want %d bytes", m.name, len(got), err, len(m.body))
		}
	}
	cut := data[:bytes.Index(data, []byte(extra[3].name))+100<<10] // inside its content
	if _, err := Open(writeFile(t, "cut.tar", cut)); err == nil || !strings.Contains(err.Error(), "truncated tar archive near member \"sys/large/307200\"") {
		t.Errorf("a large member cut short: %v; want it refused as truncated", err)
	}
}

// TestOpenerReuse opens archives of every format one after another through
// one Opener, with failing ones between them: each reads as Open reads it,
// and the trees read earlier stay intact.
func TestOpenerReuse(t *testing.T) {
	good := tarBytes(t, goodTree(""))
	other := tarBytes(t, withGood(member{name: "proc/cmdline", body: strings.Repeat("quiet ", 2000)}))
	corrupt := gz(t, other)
	corrupt[len(corrupt)/2] ^= 0xff
	inputs := []struct {
		name string
		data []byte
	}{
		{"a.tar.gz", gz(t, good)},
		{"b.tar.gz", gz(t, other)},
		{"corrupt.tar.gz", corrupt},
		{"cut.tar.gz", gz(t, other)[:300]},
		{"c.tar", good},
		{"d.tar.zst", zst(t, other)},
		{"corrupt.tar.zst", zst(t, other)[:500]},
		{"d2.tar.zst", zst(t, good)},
		{"e.tar.gz", gz(t, good)},
		{"empty", nil},
		{"f.tar.gz", gz(t, other)},
	}
	var op Opener
	var trees []*Source
	for _, in := range inputs {
		name := writeFile(t, in.name, in.data)
		want, wantErr := Open(name)
		got, err := op.Open(name)
		if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
			t.Fatalf("%s: Opener.Open: %v; Open: %v", in.name, err, wantErr)
		}
		if err != nil {
			continue
		}
		if got.Format != want.Format {
			t.Errorf("%s: format %q; want %q", in.name, got.Format, want.Format)
		}
		checkGood(t, got.Root)
		trees = append(trees, got)
	}
	for _, src := range trees {
		checkGood(t, src.Root)
		if b, err := fs.ReadFile(src.Root, "proc/cmdline"); err == nil && string(b) != strings.Repeat("quiet ", 2000) {
			t.Errorf("%s: proc/cmdline changed after later archives were read", src.Name)
		}
	}
}

func TestOpenRefused(t *testing.T) {
	claims2GiB := func(t *testing.T) []byte {
		var buf bytes.Buffer
		tw := tar.NewWriter(&buf)
		if err := tw.WriteHeader(&tar.Header{Name: "sys/huge", Typeflag: tar.TypeReg, Size: 2 << 30}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte("0123456789")); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes() // no Close: the body stops after 10 bytes
	}
	bomb := func(t *testing.T) []byte {
		return gz(t, tarBytes(t, withGood(member{name: "sys/zeros", body: string(make([]byte, 4<<20))})))
	}
	// random returns the same 4 KiB of noise each run, so that a case
	// is not decided by chance: after a zstd magic, noise can happen to
	// be a sound raw block.
	random := func(t *testing.T) []byte {
		noise := mathrand.New(mathrand.NewPCG(5, 6))
		b := make([]byte, 4096)
		for i := range b {
			b[i] = byte(noise.Uint32())
		}
		b[0] = 0 // not a gzip, bzip2, zstd or xz magic
		return b
	}
	tests := []struct {
		name    string
		data    func(*testing.T) []byte
		lim     Limits
		want    string // in the error, next to the input name
		wantIs  error
		wantNot error
	}{
		{"dot-dot member", func(t *testing.T) []byte { return tarBytes(t, withGood(member{name: "../evil", body: "x"})) },
			Limits{}, `member "../evil": path with a ".." component; refusing`, nil, ErrUnrecognized},
		{"inner dot-dot member", func(t *testing.T) []byte { return tarBytes(t, withGood(member{name: "sys/a/../../b", body: "x"})) },
			Limits{}, `member "sys/a/../../b": path with a ".." component`, nil, nil},
		{"absolute member", func(t *testing.T) []byte { return gz(t, tarBytes(t, withGood(member{name: "/etc/passwd", body: "x"}))) },
			Limits{}, `member "/etc/passwd": absolute path; refusing`, nil, nil},
		{"absolute link in sys", func(t *testing.T) []byte { return tarBytes(t, withGood(member{name: "sys/x", link: "/etc"})) },
			Limits{}, `member "sys/x": symbolic link to absolute path "/etc"; refusing`, nil, nil},
		{"absolute link in proc of top folder", func(t *testing.T) []byte {
			return tarBytes(t, append(goodTree("top/"), member{name: "top/proc/mounts", link: "/proc/self/mounts"}))
		}, Limits{}, `member "top/proc/mounts": symbolic link to absolute path`, nil, nil},
		{"link climbing out", func(t *testing.T) []byte { return tarBytes(t, withGood(member{name: "sys/x", link: "../../../.."})) },
			Limits{}, `member "sys/x": symbolic link to "../../../.." climbs above the archive root`, nil, nil},
		{"link climbing out by one", func(t *testing.T) []byte { return tarBytes(t, withGood(member{name: "sys/x", link: "../.."})) },
			Limits{}, `climbs above the archive root`, nil, nil},
		{"hard link to dot-dot", func(t *testing.T) []byte {
			return tarBytes(t, withGood(member{name: "sys/x", link: "../etc/passwd", typ: tar.TypeLink}))
		}, Limits{}, `member "sys/x": hard link: path with a ".." component`, nil, nil},
		{"member under a file", func(t *testing.T) []byte {
			return tarBytes(t, withGood(member{name: "sys/f", body: "x"}, member{name: "sys/f/g", body: "y"}))
		}, Limits{}, `member "sys/f/g": parent "sys/f" is not a folder`, nil, nil},
		{"header claims 2 GiB", claims2GiB, Limits{}, `truncated tar archive near member "sys/huge"`, nil, nil},
		{"header claims 2 GiB, kept size", claims2GiB, Limits{MaxMember: 4 << 30, MaxKept: 4 << 30}, `truncated tar archive`, nil, nil},
		{"gzip bomb", bomb, Limits{MaxExpanded: 1 << 20}, "archive expands beyond 1 MiB; refusing", nil, nil},
		{"gzip bomb, odd limit", bomb, Limits{MaxExpanded: 100_000, MaxMember: 10}, "archive expands beyond 100000 bytes", nil, nil},
		{"too many members", func(t *testing.T) []byte { return tarBytes(t, goodTree("")) },
			Limits{MaxEntries: 2}, "archive has more than 2 members; refusing", nil, nil},
		{"members over the kept limit", func(t *testing.T) []byte { return tarBytes(t, goodTree("")) },
			Limits{MaxKept: 10}, "members add up to more than the 10 bytes kept in memory", nil, nil},
		{"many small members over the kept limit", func(t *testing.T) []byte {
			// 4000 one-byte files in folders of their own: 8000 nodes of
			// nodeCost, about 2 MiB, for 4 KB of contents.
			ms := goodTree("")
			for i := range 4000 {
				ms = append(ms, member{name: fmt.Sprintf("sys/many/d%04d/f", i), body: "x"})
			}
			return tarBytes(t, ms)
		}, Limits{MaxKept: 1 << 20}, "members add up to more than the 1 MiB kept in memory", nil, nil},
		{"empty file", func(*testing.T) []byte { return nil }, Limits{}, "empty file", nil, ErrUnrecognized},
		{"random bytes", random, Limits{}, "not a sysfs tree or snapshot archive", ErrUnrecognized, nil},
		{"short text", func(*testing.T) []byte { return []byte("00:01.0 VGA compatible controller\n") },
			Limits{}, "not a sysfs tree", ErrUnrecognized, nil},
		{"gzip of text", func(t *testing.T) []byte { return gz(t, bytes.Repeat([]byte("lspci -tv output\n"), 64)) },
			Limits{}, "the gzip stream holds no tar archive", ErrUnrecognized, nil},
		{"truncated gzip", func(t *testing.T) []byte {
			b := gz(t, tarBytes(t, withGood(member{name: "sys/noise", body: string(random(t))})))
			return b[:len(b)/2]
		}, Limits{}, "truncated tar.gz archive", nil, ErrUnrecognized},
		{"gzip with bad checksum", func(t *testing.T) []byte {
			b := gz(t, tarBytes(t, goodTree("")))
			b[len(b)-8] ^= 0xff
			return b
		}, Limits{}, "corrupt tar.gz archive", nil, nil},
		{"corrupt bzip2", func(t *testing.T) []byte { return append([]byte("BZh9"), random(t)...) },
			Limits{}, "tar.bz2 archive", nil, ErrUnrecognized},
		{"corrupt zstd", func(t *testing.T) []byte { return append([]byte{0x28, 0xb5, 0x2f, 0xfd}, random(t)...) },
			Limits{}, "tar.zst archive", nil, nil},
		{"zstd with bad checksum", func(t *testing.T) []byte {
			b := zst(t, tarBytes(t, goodTree("")))
			b[len(b)-1] ^= 0xff // the frame's last byte: its checksum's
			return b
		}, Limits{}, "corrupt tar.zst archive: CRC check failed", zstd.ErrCRCMismatch, ErrUnrecognized},
		// 128 MiB, where the decoder stops at 64 MiB: zstd --long=27 writes
		// such a frame header.
		{"zstd window over 64 MiB", func(t *testing.T) []byte {
			return append([]byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, 17 << 3, 0x01, 0x80, 0x00}, random(t)...)
		}, Limits{}, "corrupt tar.zst archive: window size exceeded", zstd.ErrWindowSizeExceeded, ErrUnrecognized},
		// A single-segment frame's content is its window: one that says it
		// holds 128 MiB is refused before any of it is decoded.
		{"zstd single segment over 64 MiB", func(t *testing.T) []byte {
			return append([]byte{0x28, 0xb5, 0x2f, 0xfd, 0xe0, 0, 0, 0, 0x08, 0, 0, 0, 0}, random(t)...)
		}, Limits{}, "corrupt tar.zst archive: decompressed size exceeds configured limit", zstd.ErrDecoderSizeExceeded, ErrUnrecognized},
		// A raw zstd block of random bytes decodes: the stream is sound
		// and what it holds is not a tar archive.
		{"zstd of random bytes", func(t *testing.T) []byte {
			return append([]byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x58, 0x01, 0x80, 0x00}, random(t)...)
		}, Limits{}, "the zstd stream holds no tar archive", ErrUnrecognized, nil},
		{"xz", func(*testing.T) []byte { return append([]byte("\xfd7zXZ\x00"), make([]byte, 600)...) },
			Limits{}, "xz-compressed archives are not supported", nil, ErrUnrecognized},
		{"no sys folder", func(t *testing.T) []byte { return tarBytes(t, []member{{name: "proc/cpuinfo", body: "x"}}) },
			Limits{}, "archive holds no sys/ folder", nil, nil},
		{"two top folders", func(t *testing.T) []byte { return tarBytes(t, append(goodTree("a/"), goodTree("b/")...)) },
			Limits{}, "archive holds no sys/ folder", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := writeFile(t, "input.tar.gz", tt.data(t))
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			src, err := OpenWithLimits(name, tt.lim)
			runtime.ReadMemStats(&after)
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
				t.Errorf("allocated %d MiB", grew>>20)
			}
			if err == nil {
				t.Fatalf("opened as %s; want an error with %q", src.Format, tt.want)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, name+": ") || !strings.Contains(msg, tt.want) {
				t.Errorf("error %q; want it to start with the input name and contain %q", msg, tt.want)
			}
			if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
				t.Errorf("error %q does not wrap %v", msg, tt.wantIs)
			}
			if tt.wantNot != nil && errors.Is(err, tt.wantNot) {
				t.Errorf("error %q wraps %v", msg, tt.wantNot)
			}
		})
	}
}

func TestOpenWarnings(t *testing.T) {
	tests := []struct {
		name     string
		members  []member
		lim      Limits
		want     []string // each in one warning, in order
		present  map[string]string
		notThere []string
	}{
		{
			name:     "member over the limit",
			members:  withGood(member{name: "sys/devices/pci0000:00/0000:00:01.0/config", body: strings.Repeat("x", 2000)}),
			lim:      Limits{MaxMember: 1024},
			want:     []string{`member "sys/devices/pci0000:00/0000:00:01.0/config" skipped: its 2000 bytes are over the 1024 bytes member limit`},
			present:  map[string]string{devClass: "0x030200\n"},
			notThere: []string{"sys/devices/pci0000:00/0000:00:01.0/config"},
		},
		{
			name: "hard links",
			members: withGood(
				member{name: "sys/early", link: "sys/late", typ: tar.TypeLink},
				member{name: "sys/late", body: "content"},
				member{name: "./sys/copy", link: "./sys/late", typ: tar.TypeLink},
			),
			want:     []string{`member "sys/early" skipped: hard link to "sys/late", which is not an earlier regular file`},
			present:  map[string]string{"sys/late": "content", "sys/copy": "content"},
			notThere: []string{"sys/early"},
		},
		{
			name: "devices and fifos skipped silently",
			members: withGood(
				member{name: "sys/char", typ: tar.TypeChar},
				member{name: "sys/block", typ: tar.TypeBlock},
				member{name: "sys/fifo", typ: tar.TypeFifo},
			),
			notThere: []string{"sys/char", "sys/block", "sys/fifo"},
		},
		{
			name:     "absolute link outside sys and proc, as in ghw snapshots",
			members:  withGood(member{name: "etc/"}, member{name: "etc/mtab", link: "/proc/self/mounts"}),
			want:     []string{`member "etc/mtab" skipped: symbolic link to absolute path "/proc/self/mounts", outside sys/ and proc/`},
			notThere: []string{"etc/mtab"},
		},
		{
			name:     "absolute link beside the top folder",
			members:  append(goodTree("top/"), member{name: "top-link", link: "/etc"}),
			want:     []string{`member "top-link" skipped`},
			present:  map[string]string{devClass: "0x030200\n"},
			notThere: []string{"top-link", "../top-link"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := writeFile(t, "input.tar", tarBytes(t, tt.members))
			src, err := OpenWithLimits(name, tt.lim)
			if err != nil {
				t.Fatal(err)
			}
			if len(src.Warnings) != len(tt.want) {
				t.Fatalf("warnings %q; want %d", src.Warnings, len(tt.want))
			}
			for i, w := range src.Warnings {
				if !strings.HasPrefix(w, name+": ") || !strings.Contains(w, tt.want[i]) {
					t.Errorf("warning %q; want the input name and %q", w, tt.want[i])
				}
			}
			for p, body := range tt.present {
				if data, err := fs.ReadFile(src.Root, p); err != nil || string(data) != body {
					t.Errorf("ReadFile(%s) = %q, %v; want %q", p, data, err, body)
				}
			}
			for _, p := range tt.notThere {
				if _, err := fs.Lstat(src.Root, p); err == nil {
					t.Errorf("%s is in the tree; want it skipped", p)
				}
			}
		})
	}
}

func TestMemFSLinks(t *testing.T) {
	name := writeFile(t, "links.tar", tarBytes(t, withGood(
		member{name: "sys/loop/a", link: "b"},
		member{name: "sys/loop/b", link: "a"},
		member{name: "sys/loop/self", link: "self"},
		member{name: "sys/loop/up", link: "."},
		member{name: "sys/loop/deep", link: "up/up/up/up/up/up/up/up/up/up/up/up/up/up/up/up/up/up/up/up/up/up/up/up/up/up/up/up/up/up/up/up/up/up/up/up/up/up/up/up/up/a"},
		member{name: "sys/rel/dir", link: "../devices/pci0000:00"},
		member{name: "sys/rel/dangling", link: "../nowhere"},
		member{name: "sys/rel/empty", typ: tar.TypeSymlink},
		member{name: "sys/rel/file", link: "../../proc/cpuinfo"},
	)))
	src, err := Open(name)
	if err != nil {
		t.Fatal(err)
	}
	root := src.Root
	tests := []struct {
		op, path string
		want     string // content, link target, or "" for a folder
		wantErr  error
	}{
		{"open", "sys/loop/a", "", errLinkLoop},
		{"open", "sys/loop/self", "", errLinkLoop},
		{"open", "sys/loop/a/x", "", errLinkLoop},
		{"open", "sys/loop/deep", "", errLinkLoop},
		{"open", "sys/loop/up/up/up/b/c", "", errLinkLoop},
		{"readlink", "sys/loop/a", "b", nil},
		{"readlink", "sys/loop/up/up/a", "b", nil},
		{"open", "sys/rel/dir/0000:00:01.0/class", "0x030200\n", nil},
		{"open", "sys/rel/file", "processor\t: 0\n", nil},
		{"open", "sys/rel/dangling", "", fs.ErrNotExist},
		{"readlink", "sys/rel/dangling", "../nowhere", nil},
		{"open", "sys/rel/empty", "", fs.ErrNotExist},
		{"readlink", "sys/rel", "", fs.ErrInvalid},
		{"open", "sys/rel/file/x", "", syscall.ENOTDIR},
		{"open", "sys/../sys", "", fs.ErrInvalid},
		{"open", "/sys", "", fs.ErrInvalid},
		{"open", ".", "", nil},
		{"open", "sys/bus/pci/devices/0000:00:01.0/../../../../proc/cpuinfo", "", fs.ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.op+" "+tt.path, func(t *testing.T) {
			done := make(chan struct{})
			var got string
			var err error
			go func() {
				defer close(done)
				if tt.op == "readlink" {
					got, err = fs.ReadLink(root, tt.path)
					return
				}
				var info fs.FileInfo
				if info, err = fs.Stat(root, tt.path); err == nil && !info.IsDir() {
					var data []byte
					data, err = fs.ReadFile(root, tt.path)
					got = string(data)
				}
			}()
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				t.Fatal("lookup hangs")
			}
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v; want %v", err, tt.wantErr)
				}
				var pe *fs.PathError
				if !errors.As(err, &pe) || pe.Path != tt.path {
					t.Errorf("err = %v; want a *fs.PathError for %q", err, tt.path)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
	if info, err := fs.Lstat(root, "sys/loop/a"); err != nil || info.Mode().Type() != fs.ModeSymlink || info.Size() != 1 {
		t.Errorf("Lstat(sys/loop/a) = %v, %v; want a 1-byte symbolic link", info, err)
	}
}

// TestMemFSOrder lists folders' entries out of order, a small folder's in
// reverse and a large one's shuffled with members given twice: ReadDir lists
// them sorted, lookups find each, and a later member replaces an earlier one.
func TestMemFSOrder(t *testing.T) {
	var extra []member
	for i := 9; i >= 0; i-- {
		extra = append(extra, member{name: fmt.Sprintf("sys/small/f%d", i), body: "small"})
	}
	extra = append(extra, member{name: "sys/small/f3", body: "again"})
	const big = 3 * sortedInsertMax
	order := mathrand.New(mathrand.NewPCG(1, 2)).Perm(big)
	for _, i := range order {
		extra = append(extra, member{name: fmt.Sprintf("sys/big/f%03d", i), body: "first"})
	}
	for _, i := range order[:big/2] {
		extra = append(extra, member{name: fmt.Sprintf("sys/big/f%03d", i), body: fmt.Sprint(i)})
	}
	extra = append(extra,
		member{name: "sys/big/d000/", typ: tar.TypeDir},
		member{name: "sys/big/d000/x", body: "x"},
		member{name: "sys/big/hard", link: "sys/big/f007", typ: tar.TypeLink},
		member{name: "sys/big/f000", body: "last"},
	)
	src, err := Open(writeFile(t, "order.tar", tarBytes(t, withGood(extra...))))
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{"sys/small", "sys/big"} {
		entries, err := fs.ReadDir(src.Root, dir)
		if err != nil {
			t.Fatal(err)
		}
		names := make([]string, len(entries))
		for i, e := range entries {
			names[i] = e.Name()
		}
		if !slices.IsSorted(names) || len(names) < 10 {
			t.Errorf("ReadDir(%s) = %q; want its entries sorted", dir, names)
		}
	}
	want := map[string]string{"sys/small/f3": "again", "sys/small/f4": "small", "sys/big/f000": "last", "sys/big/d000/x": "x"}
	for i, f := range order {
		body := "first"
		if i < big/2 {
			body = fmt.Sprint(f)
		}
		if f != 0 {
			want[fmt.Sprintf("sys/big/f%03d", f)] = body
		}
	}
	want["sys/big/hard"] = want["sys/big/f007"]
	for name, body := range want {
		if got, err := fs.ReadFile(src.Root, name); err != nil || string(got) != body {
			t.Errorf("ReadFile(%s) = %q, %v; want %q", name, got, err, body)
		}
	}
	if err := fstest.TestFS(src.Root, "sys/big/f000", "sys/small/f0", "sys/big/d000/x"); err != nil {
		t.Errorf("fstest.TestFS: %v", err)
	}
}

// TestWalkCache looks names up in random order, each walk starting from
// the folder the one before remembered: every answer is the one a walk from
// the root gives.
func TestWalkCache(t *testing.T) {
	src, err := Open(writeFile(t, "walk.tar", tarBytes(t, withGood(
		member{name: "sys/loop/a", link: "b"},
		member{name: "sys/loop/b", link: "a"},
		member{name: "sys/loop/up", link: "."},
		member{name: "sys/rel/dir", link: "../devices/pci0000:00"},
		member{name: "sys/rel/file", link: "../../proc/cpuinfo"},
		member{name: "sys/rel/x/y/z", body: "z"},
		member{name: "sys/rel/x/up", link: "../.."},
	))))
	if err != nil {
		t.Fatal(err)
	}
	m := src.Root.(*memFS)
	var names []string
	for _, dir := range []string{"sys/devices/pci0000:00/0000:00:01.0", "sys/bus/pci/devices/0000:00:01.0", "sys/loop",
		"sys/loop/up", "sys/loop/up/up", "sys/rel", "sys/rel/dir", "sys/rel/dir/0000:00:01.0", "sys/rel/x", "sys/rel/x/y",
		"sys/rel/x/up", "sys/rel/x/up/rel/x", "sys/rel/file", "sys/missing", "proc"} {
		for _, base := range []string{"class", "a", "b", "up", "dir", "file", "x", "y", "z", "cpuinfo", "nothing", ".."} {
			names = append(names, dir+"/"+base)
		}
		names = append(names, dir)
	}
	type answer struct {
		n   *node
		err string
	}
	lookup := func(name string, follow bool) answer {
		n, err := m.walk("open", name, follow)
		if err != nil {
			return answer{nil, err.Error()}
		}
		return answer{n, ""}
	}
	want := map[string]answer{}
	for _, name := range names {
		for _, follow := range []bool{false, true} {
			m.walked.Store(nil)
			want[fmt.Sprint(name, follow)] = lookup(name, follow)
		}
	}
	// What a walk from the root remembers: the last folder before the last
	// component, or before the first link followed.
	for name, dir := range map[string]string{
		"sys/devices/pci0000:00/0000:00:01.0/class":   "sys/devices/pci0000:00/0000:00:01.0",
		"sys/devices/pci0000:00/0000:00:01.0/nothing": "sys/devices/pci0000:00/0000:00:01.0",
		"sys/rel/dir/0000:00:01.0/class":              "sys/rel",
		"sys/rel/x/up/rel/x/y":                        "sys/rel/x",
		"sys/rel/x/y/z":                               "sys/rel/x/y",
		"sys/missing/class":                           "sys",
	} {
		m.walked.Store(nil)
		lookup(name, true)
		if w := m.walked.Load(); w == nil || w.path != dir || w.n != m.lookup(dir) {
			t.Errorf("after walking %q: remembered %+v; want %q", name, w, dir)
		}
	}
	r := mathrand.New(mathrand.NewPCG(3, 4))
	for range 20000 {
		name, follow := names[r.IntN(len(names))], r.IntN(2) == 0
		if got := lookup(name, follow); got != want[fmt.Sprint(name, follow)] {
			t.Fatalf("walk(%q, %v) = %v with %+v remembered; from the root: %v", name, follow, got, m.walked.Load(), want[fmt.Sprint(name, follow)])
		}
	}
}

// TestConcurrentReads reads one archive tree from many goroutines; run it with -race.
func TestConcurrentReads(t *testing.T) {
	src, err := Open(writeFile(t, "c.tar", tarBytes(t, goodTree(""))))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				data, err := fs.ReadFile(src.Root, devClass)
				entries, err2 := fs.ReadDir(src.Root, "sys/bus/pci/devices")
				if err != nil || err2 != nil || string(data) != "0x030200\n" || len(entries) != 1 {
					t.Errorf("read %q, %d entries, %v, %v", data, len(entries), err, err2)
					return
				}
			}
		})
	}
	wg.Wait()
}

func TestOpenFolders(t *testing.T) {
	tests := []struct {
		name   string
		layout func(t *testing.T, dir string) string // returns the name to open
		want   string                                // error text; "" for success
	}{
		{"folder holding sys", func(t *testing.T, dir string) string {
			writeTree(t, dir, goodTree(""))
			return dir
		}, ""},
		{"mounted sysfs", func(t *testing.T, dir string) string {
			var sysOnly []member
			for _, m := range goodTree("") {
				if rest, ok := strings.CutPrefix(m.name, "sys/"); ok {
					m.name = rest
					sysOnly = append(sysOnly, m)
				}
			}
			writeTree(t, dir, sysOnly)
			return dir
		}, ""},
		{"extracted hwloc tarball", func(t *testing.T, dir string) string {
			writeTree(t, dir, goodTree("host/"))
			writeTree(t, dir, []member{{name: "README", body: "a file beside the folder"}})
			return dir
		}, ""},
		{"no sys folder", func(t *testing.T, dir string) string {
			writeTree(t, dir, []member{{name: "proc/cpuinfo", body: "x"}})
			return dir
		}, "not a sysfs tree: no sys/ folder (give a folder holding sys/"},
		{"two subfolders", func(t *testing.T, dir string) string {
			writeTree(t, dir, append(goodTree("a/"), goodTree("b/")...))
			return dir
		}, "not a sysfs tree: no sys/ folder"},
		{"does not exist", func(t *testing.T, dir string) string { return filepath.Join(dir, "missing") },
			"no such file or directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := tt.layout(t, t.TempDir())
			src, err := Open(name)
			if tt.want != "" {
				if err == nil || !strings.HasPrefix(err.Error(), name+": ") || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("err = %v; want %q after the input name", err, tt.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if src.Kind != KindDirectory || src.Format != "sysfs directory" || src.Name != name {
				t.Errorf("got %q, %q, %q", src.Kind, src.Format, src.Name)
			}
			checkGood(t, src.Root)
		})
	}
	if _, err := Open(filepath.Join(t.TempDir(), "nope")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing input: err = %v; want fs.ErrNotExist", err)
	}
}

func TestSysViewNames(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, []member{{name: "bus/pci/devices/x", body: "1"}})
	src, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"bus", "sys/nope", "sys/../etc", "proc/cpuinfo"} {
		_, err := fs.ReadFile(src.Root, p)
		var pe *fs.PathError
		if !errors.As(err, &pe) || pe.Path != p {
			t.Errorf("ReadFile(%s): err = %v; want a *fs.PathError naming %q", p, err, p)
		}
	}
	if data, err := fs.ReadFile(src.Root, "sys/bus/pci/devices/x"); err != nil || string(data) != "1" {
		t.Errorf("ReadFile = %q, %v", data, err)
	}
}

func TestLive(t *testing.T) {
	for _, name := range []string{"", "/"} {
		src, err := Open(name)
		if err != nil || src.Kind != KindLive || src.Name != "/" || src.Format != "live /sys" {
			t.Fatalf("Open(%q) = %+v, %v", name, src, err)
		}
		if _, err := fs.Stat(src.Root, "proc"); err != nil {
			t.Errorf("live root has no proc: %v", err)
		}
	}
}

func TestDefaultLimits(t *testing.T) {
	want := Limits{MaxExpanded: 512 << 20, MaxMember: 4 << 20, MaxEntries: 500_000, MaxKept: 64 << 20}
	if got := DefaultLimits(); got != want {
		t.Errorf("DefaultLimits() = %+v; want %+v", got, want)
	}
	if got := (Limits{MaxMember: 7}).withDefaults(); got != (Limits{MaxExpanded: 512 << 20, MaxMember: 7, MaxEntries: 500_000, MaxKept: 64 << 20}) {
		t.Errorf("withDefaults kept %+v", got)
	}
}

// corpusDir is the shared corpus, relative to this package.
func corpusDir(t *testing.T) string {
	dir, err := filepath.Abs(filepath.Join("..", "..", "..", "shared", "corpus"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("corpus missing in CI: %v", err)
		}
		t.Skipf("corpus not found at %s: %v", dir, err)
	}
	return dir
}

func TestCorpus(t *testing.T) {
	dir := corpusDir(t)
	hwloc, _ := filepath.Glob(filepath.Join(dir, "hwloc", "*.tar.bz2"))
	ghw, _ := filepath.Glob(filepath.Join(dir, "ghw", "*.tar.gz"))
	files := append(hwloc, ghw...)
	if len(hwloc) == 0 || len(ghw) == 0 {
		t.Fatalf("corpus at %s holds %d hwloc and %d ghw archives; want both", dir, len(hwloc), len(ghw))
	}
	// flat lists archives whose sys/bus/pci/devices entries are folders, not links:
	// nvidiagpunumanodes is a hand-trimmed partial snapshot.
	flat := map[string]bool{"nvidiagpunumanodes.tar.bz2": true}
	for _, name := range files {
		t.Run(filepath.Base(name), func(t *testing.T) {
			src, err := Open(name)
			if err != nil {
				t.Fatal(err)
			}
			entries, err := fs.ReadDir(src.Root, "sys/bus/pci/devices")
			if err != nil || len(entries) == 0 {
				t.Fatalf("ReadDir(sys/bus/pci/devices) = %d entries, %v", len(entries), err)
			}
			dev := path.Join("sys/bus/pci/devices", entries[0].Name())
			if flat[filepath.Base(name)] {
				if !entries[0].IsDir() {
					t.Errorf("%s is %v; want a folder", dev, entries[0].Type())
				}
			} else if target, err := fs.ReadLink(src.Root, dev); err != nil || !strings.HasPrefix(target, "../../../devices/pci") {
				t.Errorf("ReadLink(%s) = %q, %v; want ../../../devices/pci...", dev, target, err)
			}
			class, err := fs.ReadFile(src.Root, dev+"/class")
			if err != nil || !strings.HasPrefix(string(class), "0x") {
				t.Errorf("ReadFile(%s/class) = %q, %v", dev, class, err)
			}
			for _, w := range src.Warnings {
				if !strings.HasPrefix(w, name+": ") {
					t.Errorf("warning %q does not name the input", w)
				}
			}
		})
	}
}

// TestNoWrites checks that the package's own code writes nothing to disk and
// that opening archives leaves their folder as it was.
func TestNoWrites(t *testing.T) {
	writers := []string{"Create", "CreateTemp", "WriteFile", "OpenFile", "Mkdir", "MkdirAll", "MkdirTemp",
		"Symlink", "Link", "Rename", "Remove", "RemoveAll", "Chmod", "Chtimes", "Truncate"}
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, fname := range names {
		if strings.HasSuffix(fname, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, fname, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		{
			ast.Inspect(f, func(n ast.Node) bool {
				if sel, ok := n.(*ast.SelectorExpr); ok {
					if id, ok := sel.X.(*ast.Ident); ok && id.Name == "os" && slices.Contains(writers, sel.Sel.Name) {
						t.Errorf("%s calls os.%s", fname, sel.Sel.Name)
					}
				}
				return true
			})
		}
	}
	dir := t.TempDir()
	data := gz(t, tarBytes(t, goodTree("top/")))
	name := filepath.Join(dir, "snap.tar.gz")
	if err := os.WriteFile(name, data, 0o444); err != nil {
		t.Fatal(err)
	}
	cwd, _ := os.ReadDir(".")
	if _, err := Open(name); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadDir(dir)
	cwdAfter, _ := os.ReadDir(".")
	if len(after) != 1 || len(cwdAfter) != len(cwd) {
		t.Errorf("opening wrote files: %v beside the archive, %d -> %d in the package folder", after, len(cwd), len(cwdAfter))
	}
}
