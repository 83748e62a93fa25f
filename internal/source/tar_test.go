package source

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	kgzip "github.com/klauspost/compress/gzip"

	"github.com/gdtopo/gdtopo/internal/sysfs"
)

// writtenTars are archives written by archive/tar in each of its formats,
// with long and non-ASCII names, every member type and contents around a
// block boundary.
func writtenTars(t testing.TB) map[string][]byte {
	long := strings.Repeat("0000:00:01.0/", 30) + "config" // longer than USTAR's 255 bytes
	members := []tar.Header{
		{Name: "sys/", Typeflag: tar.TypeDir, Mode: 0o755},
		{Name: "sys/devices/pci0000:00/0000:00:01.0/vendor", Typeflag: tar.TypeReg, Mode: 0o444, Size: 7},
		{Name: "sys/" + strings.Repeat("x", 120) + "/class", Typeflag: tar.TypeReg, Mode: 0o444, Size: 512},
		{Name: "sys/" + long, Typeflag: tar.TypeReg, Mode: 0o644, Size: 513},
		{Name: "sys/empty", Typeflag: tar.TypeReg, Mode: 0o444},
		{Name: "sys/bus/pci/devices/0000:00:01.0", Typeflag: tar.TypeSymlink, Linkname: "../../../devices/pci0000:00/0000:00:01.0"},
		{Name: "sys/long-link", Typeflag: tar.TypeSymlink, Linkname: strings.Repeat("../", 40) + "devices"},
		{Name: "sys/hard", Typeflag: tar.TypeLink, Linkname: "sys/empty"},
		{Name: "sys/fifo", Typeflag: tar.TypeFifo, Mode: 0o600},
		{Name: "sys/char", Typeflag: tar.TypeChar, Mode: 0o600, Devmajor: 1, Devminor: 3},
		{Name: "sys/bus/\u00fcnicode-\u540d", Typeflag: tar.TypeReg, Mode: 0o444, Size: 3},
	}
	out := map[string][]byte{}
	for _, format := range []tar.Format{tar.FormatUnknown, tar.FormatUSTAR, tar.FormatPAX, tar.FormatGNU} {
		var buf bytes.Buffer
		tw := tar.NewWriter(&buf)
		written := 0
		for i, h := range members {
			h.Format = format
			h.ModTime = time.Unix(1700000000+int64(i), 0)
			if err := tw.WriteHeader(&h); err != nil {
				continue // a name or link this format cannot hold
			}
			if _, err := tw.Write(bytes.Repeat([]byte{byte('a' + i)}, int(h.Size))); err != nil {
				t.Fatal(err)
			}
			written++
		}
		if err := tw.Close(); err != nil {
			t.Fatal(err)
		}
		if written < 6 {
			t.Fatalf("format %v took only %d members", format, written)
		}
		out[format.String()] = buf.Bytes()
	}
	// A PAX global header, and a PAX header whose size record overrides the
	// header's.
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, h := range []tar.Header{
		{Name: "global", Typeflag: tar.TypeXGlobalHeader, PAXRecords: map[string]string{"comment": "x"}},
		{Name: "sys/a", Typeflag: tar.TypeReg, Size: 1 << 34 / (1 << 30), PAXRecords: map[string]string{"comment": "y"}},
	} {
		if err := tw.WriteHeader(&h); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(bytes.Repeat([]byte("z"), int(h.Size))); h.Typeflag == tar.TypeReg && err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	out["PAX global"] = buf.Bytes()
	return out
}

// readTar reads every member of data with tarReader, as the names it
// returned and the error it stopped with (io.EOF at a sound end).
func readTar(data []byte) ([]string, error) {
	tr := newTarReader(bytes.NewReader(data))
	var names []string
	for {
		h, err := tr.Next()
		if err != nil {
			return names, err
		}
		if _, err := io.Copy(io.Discard, tr); err != nil {
			return names, err
		}
		names = append(names, h.Name)
	}
}

// TestTarReaderEnds reads archives of every format whole, and cut at every
// block boundary and inside blocks: a cut stream is never taken as a
// complete archive, whatever the cut falls on (a header, content, padding,
// a PAX or GNU long name record, the first end-of-archive block).
func TestTarReaderEnds(t *testing.T) {
	for name, data := range writtenTars(t) {
		t.Run(name, func(t *testing.T) {
			whole, err := readTar(data)
			if err != io.EOF || len(whole) == 0 {
				t.Fatalf("whole archive: %d members, %v; want them all and io.EOF", len(whole), err)
			}
			if slices.Contains(whole, "global") {
				t.Errorf("the PAX global header was returned as a member: %q", whole)
			}
			// One end-of-archive block is enough, as for archive/tar.
			if got, err := readTar(data[:len(data)-512]); err != io.EOF || len(got) != len(whole) {
				t.Errorf("one end block: %d members, %v; want %d and io.EOF", len(got), err, len(whole))
			}
			for n := 0; n < len(data)-512; n += 128 {
				_, err := readTar(data[:n])
				if err != errTarNoEnd && err != io.ErrUnexpectedEOF {
					t.Errorf("cut at %d of %d bytes: %v; want errTarNoEnd or io.ErrUnexpectedEOF", n, len(data), err)
				}
			}
		})
	}
}

// TestTarReaderZeroContent: a member whose content ends in whole blocks of
// zeros, cut right after it, is still a cut archive.
func TestTarReaderZeroContent(t *testing.T) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, name := range []string{"sys/a", "sys/zeros"} {
		if err := tw.WriteHeader(&tar.Header{Name: name, Typeflag: tar.TypeReg, Mode: 0o444, Size: 2048}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(make([]byte, 2048)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	if names, err := readTar(data); err != io.EOF || len(names) != 2 {
		t.Fatalf("whole: %q, %v", names, err)
	}
	for _, n := range []int{512 + 2048, 2 * (512 + 2048)} {
		if _, err := readTar(data[:n]); err != errTarNoEnd {
			t.Errorf("cut after a member of zeros, at %d: %v; want errTarNoEnd", n, err)
		}
	}
}

func TestTarReaderErrors(t *testing.T) {
	data := writtenTars(t)["GNU"]
	bad := bytes.Clone(data)
	bad[0] ^= 1 // the checksum no longer matches
	if _, err := newTarReader(bytes.NewReader(bad)).Next(); !errors.Is(err, tar.ErrHeader) {
		t.Errorf("bad checksum: %v; want tar.ErrHeader", err)
	}
	if _, err := newTarReader(bytes.NewReader(data[:300])).Next(); err != io.ErrUnexpectedEOF {
		t.Errorf("half a header: %v; want io.ErrUnexpectedEOF", err)
	}
	if _, err := newTarReader(bytes.NewReader(nil)).Next(); err != errTarNoEnd {
		t.Errorf("empty stream: %v; want errTarNoEnd", err)
	}
	// A GNU sparse member (archive/tar refuses to write one: made by hand),
	// and PAX records of GNU's sparse formats.
	h := bytes.Clone(data[:512])
	h[156] = tar.TypeGNUSparse
	fixChecksum(h)
	h = append(h, make([]byte, 1024)...)
	if _, err := newTarReader(bytes.NewReader(h)).Next(); !errors.Is(err, errTarSparse) {
		t.Errorf("GNU sparse member: %v; want errTarSparse", err)
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	if err := tw.WriteHeader(&tar.Header{Name: "global", Typeflag: tar.TypeXGlobalHeader, PAXRecords: map[string]string{"GNU.sparse.name": "sys/a"}}); err != nil {
		t.Fatal(err)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := newTarReader(&buf).Next(); !errors.Is(err, errTarSparse) {
		t.Errorf("PAX sparse records: %v; want errTarSparse", err)
	}
}

// TestOpenCutTar: a plain tar cut anywhere, at a block boundary too, is
// refused as truncated, never read as a smaller machine.
func TestOpenCutTar(t *testing.T) {
	data := fuzzSeedTar(t)
	file := filepath.Join(t.TempDir(), "cut.tar")
	for n := 512; n <= len(data)-1024; n += 256 {
		if err := os.WriteFile(file, data[:n], 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Open(file)
		if err == nil || !strings.Contains(err.Error(), file+": truncated tar archive") {
			t.Errorf("cut at %d of %d bytes: %v; want a truncated tar archive", n, len(data), err)
		}
	}
}

// fixChecksum rewrites the checksum of the header block h.
func fixChecksum(h []byte) {
	copy(h[148:156], "        ")
	sum := 0
	for _, c := range h[:512] {
		sum += int(c)
	}
	copy(h[148:156], fmt.Sprintf("%06o\x00 ", sum))
}

func TestMemberPathAndClimbs(t *testing.T) {
	for _, name := range []string{"sys", "sys/a", "./sys/a", "sys//a", "sys/./a", "sys/a/", "sys/a/.", ".", "", "a/b/c/d"} {
		got, err := memberPath(name)
		if want := path.Clean(name); err != nil || got != want {
			t.Errorf("memberPath(%q) = %q, %v; want %q", name, got, err, want)
		}
	}
	for _, name := range []string{"/abs", "a/../b", "..", "a/.."} {
		if _, err := memberPath(name); err == nil {
			t.Errorf("memberPath(%q) accepted", name)
		}
	}
	for _, link := range []string{"l", "a/l", "a/b/l", "a/b/c/l"} {
		for _, target := range []string{"x", "../x", "../../x", "../../../x", "./../x", "x/../../y", "a//..//..", "../a/../../b", ".."} {
			j := path.Join(path.Dir(link), target)
			if want := j == ".." || strings.HasPrefix(j, "../"); climbsAbove(link, target) != want {
				t.Errorf("climbsAbove(%q, %q) = %v; path.Join gives %q", link, target, !want, j)
			}
		}
	}
}

// TestMemberPathAfter: the method, which checks only what follows the last
// clean name's folder, answers as the function whatever name came before.
func TestMemberPathAfter(t *testing.T) {
	names := []string{"sys", "sys/a", "sys/a/b", "sys/a/b/c", "sys/a/.", "sys/a/..", "sys/a/", "sys/a//b", "sys/a/./b",
		"sys/ab", "sys/a/b/../c", "sys/a/b/..", "sys/a/b/.", "./sys/a/b", "sys/a/b/", "/sys/a/b", "sys/a/b/.x", "sys/a/b/..x", ""}
	for _, before := range names {
		for _, name := range names {
			var r archiveReader
			r.memberPath(before)
			got, err := r.memberPath(name)
			want, wantErr := memberPath(name)
			if got != want || (err == nil) != (wantErr == nil) {
				t.Errorf("after %q: memberPath(%q) = %q, %v; want %q, %v", before, name, got, err, want, wantErr)
			}
		}
	}
}

// hgxArchive returns the name of the hgx-h100 fixture's tar.gz (an 8-GPU
// server, about 3,400 members) and how many members it holds.
func hgxArchive(b *testing.B) (string, int) {
	file := filepath.Join("..", "..", "fixtures", "hgx-h100.tar.gz")
	f, err := os.Open(file)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		b.Fatal(err)
	}
	tr := tar.NewReader(zr)
	members := 0
	for {
		if _, err := tr.Next(); err == io.EOF {
			return file, members
		} else if err != nil {
			b.Fatal(file, err)
		}
		members++
	}
}

// BenchmarkOpenArchive reads a tar.gz of the hgx-h100 fixture into memory,
// as check does for a snapshot: with Open, and through one Opener again
// and again, as a fleet worker does.
func BenchmarkOpenArchive(b *testing.B) {
	file, members := hgxArchive(b)
	var op Opener
	for _, bb := range []struct {
		name string
		open func(string) (*Source, error)
	}{{"Open", Open}, {"Opener", op.Open}} {
		b.Run(bb.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := bb.open(file); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(members), "members")
		})
	}
}

// BenchmarkArchiveStages reads a tar.gz in stages, each doing what the one
// before does and more, so that the differences are what each stage adds:
// inflating only, parsing the tar headers too, opening the archive into its
// tree as a fleet worker does, and reading the graph from that tree. The
// archive is the hgx-h100 fixture's, or the file GDTOPO_BENCH_ARCHIVE
// names (a snapshot that gdtopo snapshot wrote, say).
func BenchmarkArchiveStages(b *testing.B) {
	file := os.Getenv("GDTOPO_BENCH_ARCHIVE")
	if file == "" {
		file, _ = hgxArchive(b)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		b.Fatal(err)
	}
	// drain sets br to read the decompressed stream, inflated from memory
	// as Opener inflates an archive that fits in its file buffer.
	drain := func(zr *kgzip.Reader, br *bufio.Reader) {
		if err := zr.Reset(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
		br.Reset(zr)
	}
	zr, br := new(kgzip.Reader), bufio.NewReaderSize(nil, 32<<10)
	op := Opener{ReuseMemory: true}
	b.Run("inflate", func(b *testing.B) {
		for b.Loop() {
			drain(zr, br)
			for { // Discard, not io.Copy: that would skip the copies out of the inflater
				if _, err := br.Discard(1 << 20); err == io.EOF {
					break
				} else if err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("tar", func(b *testing.B) {
		for b.Loop() {
			drain(zr, br)
			tr := newTarReader(br)
			for {
				if _, err := tr.Next(); err == io.EOF {
					break
				} else if err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("open", func(b *testing.B) {
		for b.Loop() {
			if _, err := op.Open(file); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("read", func(b *testing.B) {
		for b.Loop() {
			src, err := op.Open(file)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := sysfs.Read(src.Root); err != nil {
				b.Fatal(err)
			}
		}
	})
}
