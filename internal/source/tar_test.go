package source

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/bzip2"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"time"

	kgzip "github.com/klauspost/compress/gzip"

	"github.com/gdtopo/gdtopo/internal/sysfs"
)

// tarMember is what gdtopo takes from a tar member.
type tarMember struct {
	name, link string
	typ        byte
	mode, mod  int64
	content    string
}

func (m tarMember) String() string {
	return fmt.Sprintf("%q type %q link %q mode %o mtime %d, %d bytes", m.name, m.typ, m.link, m.mode, m.mod, len(m.content))
}

// tarMembers lists the members of a tar stream read with next and content.
// Global PAX headers, which archive/tar returns as members and tarReader
// skips, are left out.
func tarMembers(next func() (*tarHeader, error), content io.Reader) ([]tarMember, error) {
	var out []tarMember
	for len(out) < 2000 {
		h, err := next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		if h.Typeflag == tar.TypeXGlobalHeader {
			continue
		}
		b, err := io.ReadAll(io.LimitReader(content, 64<<10))
		if err != nil {
			return out, err
		}
		out = append(out, tarMember{h.Name, h.Linkname, h.Typeflag, h.Mode, h.ModTime.Unix(), string(b)})
	}
	return out, errors.New("too many members")
}

// compareTarReaders reads data with archive/tar and with tarReader. Where
// archive/tar reads it, tarReader must read the same members, unless it
// refuses a sparse member; where both read it, the members must agree.
func compareTarReaders(t *testing.T, data []byte) {
	t.Helper()
	std := tar.NewReader(bytes.NewReader(data))
	stdNext := func() (*tarHeader, error) {
		h, err := std.Next()
		if err != nil {
			return nil, err
		}
		return &tarHeader{Name: h.Name, Linkname: h.Linkname, Typeflag: h.Typeflag, Size: h.Size, Mode: h.Mode, ModTime: h.ModTime}, nil
	}
	want, stdErr := tarMembers(stdNext, std)
	ours := newTarReader(bytes.NewReader(data))
	got, ourErr := tarMembers(ours.Next, ours)
	switch {
	case stdErr == nil && (errors.Is(ourErr, errTarSparse) || errors.Is(ourErr, errTarNoEnd)):
		return
	case stdErr == nil && ourErr != nil:
		t.Fatalf("archive/tar reads %d members; tarReader fails after %d: %v", len(want), len(got), ourErr)
	case stdErr != nil || ourErr != nil:
		// The readers may stop at different places in a corrupt stream,
		// but what both returned must agree.
		want = want[:min(len(want), len(got))]
		got = got[:len(want)]
	}
	if len(got) != len(want) {
		t.Fatalf("tarReader read %d members; archive/tar %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("member %d: tarReader read %v\narchive/tar read %v", i, got[i], want[i])
		}
	}
}

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

func TestTarReaderMatchesArchiveTar(t *testing.T) {
	for name, data := range writtenTars(t) {
		t.Run(name, func(t *testing.T) {
			compareTarReaders(t, data)
			// Truncated at every block and inside one.
			for n := 0; n < len(data); n += 256 + 1 {
				compareTarReaders(t, data[:n])
			}
		})
	}
}

// TestTarReaderCorpus reads every capture in the shared corpus both ways.
func TestTarReaderCorpus(t *testing.T) {
	dir := corpusDir(t)
	files, _ := filepath.Glob(filepath.Join(dir, "*", "*.tar.*"))
	if len(files) == 0 {
		t.Fatalf("no archives in %s", dir)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			f, err := os.Open(file)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			var r io.Reader = f
			if strings.HasSuffix(file, ".bz2") {
				r = bzip2.NewReader(f)
			} else if r, err = gzip.NewReader(f); err != nil {
				t.Fatal(err)
			}
			data, err := io.ReadAll(r)
			if err != nil {
				t.Fatal(err)
			}
			compareTarReaders(t, data)
		})
	}
}

func TestTarReaderErrors(t *testing.T) {
	data := writtenTars(t)["GNU"]
	bad := bytes.Clone(data)
	bad[0] ^= 1 // the checksum no longer matches
	if _, err := newTarReader(bytes.NewReader(bad)).Next(); !errors.Is(err, errTarHeader) {
		t.Errorf("bad checksum: %v; want errTarHeader", err)
	}
	if _, err := newTarReader(bytes.NewReader(data[:300])).Next(); err != io.ErrUnexpectedEOF {
		t.Errorf("half a header: %v; want io.ErrUnexpectedEOF", err)
	}
	if _, err := newTarReader(bytes.NewReader(nil)).Next(); err != errTarNoEnd {
		t.Errorf("empty stream: %v; want errTarNoEnd", err)
	}
	// Cut at every block boundary before the end-of-archive blocks: never
	// taken as a complete archive.
	for n := 512; n < len(data)-1024; n += 512 {
		tr := newTarReader(bytes.NewReader(data[:n]))
		var err error
		for err == nil {
			_, err = tr.Next()
		}
		if err != errTarNoEnd && err != io.ErrUnexpectedEOF {
			t.Errorf("cut at %d of %d bytes: %v; want errTarNoEnd or io.ErrUnexpectedEOF", n, len(data), err)
		}
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	if err := tw.WriteHeader(&tar.Header{Name: "sparse", Typeflag: tar.TypeGNUSparse, Format: tar.FormatGNU}); err == nil {
		t.Log("archive/tar wrote a sparse header") // it refuses to; build one by hand below
	}
	h := bytes.Clone(data[:512])
	h[156] = tar.TypeGNUSparse
	fixChecksum(h)
	if _, err := newTarReader(bytes.NewReader(h)).Next(); !errors.Is(err, errTarSparse) {
		t.Errorf("GNU sparse member: %v; want errTarSparse", err)
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

// FuzzTarReader checks tarReader against archive/tar on arbitrary streams.
func FuzzTarReader(f *testing.F) {
	for _, data := range writtenTars(f) {
		f.Add(data)
	}
	f.Add(fuzzSeedTar(f))
	f.Fuzz(compareTarReaders)
}

// TestChecksum checks checksum, and both ways of summing a block, against
// a byte-by-byte sum on blocks of every shape.
func TestChecksum(t *testing.T) {
	b := make([]byte, tarBlock)
	for i := range 300 {
		for j := range b {
			b[j] = byte(j*7 + i*13 + j*j*i)
		}
		switch {
		case i >= 200: // only the checksum field set: taking it out must borrow from no lane
			clear(b)
			for j := 148; j < 156; j++ {
				b[j] = byte(0xff - i + j)
			}
		case i%2 == 0:
			for j := range b {
				b[j] |= 0x80 // every lane at its largest
			}
		}
		var want int64
		for j, c := range b {
			if j >= 148 && j < 156 {
				c = ' '
			}
			want += int64(c)
		}
		if got := checksum(b); got != want {
			t.Fatalf("block %d: checksum %d; want %d", i, got, want)
		}
		var sum uint64
		for _, c := range b {
			sum += uint64(c)
		}
		blk := (*[tarBlock]byte)(b)
		if got := sumBlock(blk); got != sum {
			t.Fatalf("block %d: sumBlock %d; want %d", i, got, sum)
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

// TestParseOctal checks parseOctal, which reads eight digits at a time,
// against a digit-by-digit reading of the same rules on fields of every
// shape tar writers and damaged archives give.
func TestParseOctal(t *testing.T) {
	slow := func(b []byte) (int64, bool) {
		b = bytes.Trim(b, " \x00")
		var x uint64
		for _, c := range b {
			if c == 0 {
				break
			}
			if c < '0' || c > '7' || x>>61 != 0 {
				return 0, false
			}
			x = x<<3 | uint64(c-'0')
		}
		return int64(x), int64(x) >= 0
	}
	fields := []string{"", "0000644\x00", "00000000012\x00", "15000000000\x00", "012345\x00 ",
		"7777777777777777777777", "77777777777777777777777", "01234567", "012345678", "0123456\x007",
		" 0001750 ", "\x00\x00\x00\x00\x00\x00\x00\x00", "00000000000", "0000000x\x00", "1234567 1234"}
	for i := range 20000 { // every byte value at every place of short fields
		f := []byte("01234567012\x00")
		f[i%12] = byte(i / 12 % 256)
		f[(i*7)%12] = "01234567 \x00x9"[i%12]
		fields = append(fields, string(f), string(f[:8]))
	}
	for _, f := range fields {
		x, ok := parseOctal([]byte(f))
		wx, wok := slow([]byte(f))
		if x != wx || ok != wok {
			t.Fatalf("parseOctal(%q) = %d, %v; want %d, %v", f, x, ok, wx, wok)
		}
	}
}
