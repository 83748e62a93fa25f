package tarfmt

import (
	"archive/tar"
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"
)

// writeBoth writes the members hs, each with Size bytes of content, with
// archive/tar and with Writer.
func writeBoth(t testing.TB, hs []Header) (want, got []byte, wantErr, gotErr error) {
	var a, b bytes.Buffer
	at, ot := tar.NewWriter(&a), NewWriter(&b)
	for _, h := range hs {
		body := bytes.Repeat([]byte{'x'}, int(h.Size))
		regular := h.Typeflag == TypeReg || h.Typeflag == TypeRegA && !strings.HasSuffix(h.Name, "/")
		th := &tar.Header{Name: h.Name, Linkname: h.Linkname, Typeflag: h.Typeflag, Size: h.Size, Mode: h.Mode, ModTime: h.ModTime}
		if wantErr == nil {
			if wantErr = at.WriteHeader(th); wantErr == nil && regular {
				_, wantErr = at.Write(body)
			}
		}
		if gotErr == nil {
			if gotErr = ot.WriteHeader(&h); gotErr == nil && regular {
				_, gotErr = ot.Write(body)
			}
		}
	}
	if wantErr == nil {
		wantErr = at.Close()
	}
	if gotErr == nil {
		gotErr = ot.Close()
	}
	return a.Bytes(), b.Bytes(), wantErr, gotErr
}

// TestWriterMatches holds Writer to archive/tar's bytes for the headers a
// snapshot writes, with names of every length and kind.
func TestWriterMatches(t *testing.T) {
	at := time.Date(2026, 12, 4, 19, 0, 0, 400_000_000, time.UTC)
	long := "sys/devices/pci0000:b7/0000:b7:01.0/0000:b8:00.0/0000:b9:01.0/0000:ba:00.0/0000:bb:00.0/0000:bc:00.0/"
	cases := map[string][]Header{
		"plain": {
			{Name: "gdtopo-snapshot.json", Typeflag: TypeReg, Size: 200, Mode: 0o644, ModTime: at},
			{Name: "sys/bus/pci/devices/0000:00:00.0", Typeflag: TypeSymlink, Linkname: "../../../devices/pci0000:00/0000:00:00.0", Mode: 0o777, ModTime: at},
			{Name: "sys/class/infiniband/", Typeflag: TypeDir, Mode: 0o755, ModTime: at},
			{Name: "proc/cpuinfo", Typeflag: TypeReg, Size: 512, Mode: 0o644, ModTime: at},
			{Name: "empty", Typeflag: TypeReg, Mode: 0o644, ModTime: at},
			{Name: "v7", Typeflag: TypeRegA, Size: 3, Mode: 0o644},
			{Name: "v7dir/", Typeflag: TypeRegA, Mode: 0o755},
		},
		"split": {
			{Name: long + "config", Typeflag: TypeReg, Size: 4096, Mode: 0o644, ModTime: at},
			{Name: long + "driver", Typeflag: TypeSymlink, Linkname: "../../../../../../../bus/pci/drivers/nvidia", Mode: 0o777, ModTime: at},
			{Name: long + strings.Repeat("d", 99) + "/", Typeflag: TypeDir, Mode: 0o755, ModTime: at},
		},
		"pax path": {
			{Name: long + long + "config", Typeflag: TypeReg, Size: 10, Mode: 0o644, ModTime: at},
			{Name: long + strings.Repeat("n", 101), Typeflag: TypeReg, Size: 1, Mode: 0o644, ModTime: at},
			{Name: long + long + "sub/", Typeflag: TypeDir, Mode: 0o755, ModTime: at},
			{Name: "sys/class/net/ethé", Typeflag: TypeSymlink, Linkname: "../../devices/virtual/net/ethé", Mode: 0o777, ModTime: at},
			{Name: "sys/class/net/\xff", Typeflag: TypeReg, Size: 2, Mode: 0o644, ModTime: at},
		},
		"pax link": {
			{Name: "sys/bus/pci/devices/0000:bc:00.0", Typeflag: TypeSymlink, Linkname: "../../../" + long + long, Mode: 0o777, ModTime: at},
			{Name: long + "iommu_group", Typeflag: TypeSymlink, Linkname: "../../../" + long + long, Mode: 0o777, ModTime: at},
			{Name: strings.Repeat("p", 300), Typeflag: TypeSymlink, Linkname: strings.Repeat("q", 300), Mode: 0o777, ModTime: at},
		},
		"zero time": {{Name: "a", Typeflag: TypeReg, Size: 1, Mode: 0o644}},
	}
	for name, hs := range cases {
		want, got, wantErr, gotErr := writeBoth(t, hs)
		if wantErr != nil || gotErr != nil {
			t.Fatalf("%s: archive/tar: %v; Writer: %v", name, wantErr, gotErr)
		}
		if !bytes.Equal(got, want) {
			for i := range min(len(got), len(want)) {
				if got[i] != want[i] {
					t.Fatalf("%s: %d bytes, archive/tar %d; first difference at byte %d: %q, want %q", name, len(got), len(want), i, got[i], want[i])
				}
			}
			t.Fatalf("%s: %d bytes, archive/tar %d", name, len(got), len(want))
		}
	}
}

// TestWriterRefuses covers what Writer refuses: content that does not match
// the header, a NUL in a name, a file named as a folder, and a time tar's
// header cannot hold.
func TestWriterRefuses(t *testing.T) {
	var buf bytes.Buffer
	tw := NewWriter(&buf)
	if err := tw.WriteHeader(&Header{Name: "a", Typeflag: TypeReg, Size: 2}); err != nil {
		t.Fatal(err)
	}
	if _, err := tw.Write([]byte("abc")); err == nil {
		t.Error("a write past the member's size succeeded")
	}
	if _, err := tw.Write([]byte("a")); err != nil {
		t.Fatal(err)
	}
	if err := tw.Close(); err == nil || !strings.Contains(err.Error(), "missed writing 1 bytes") {
		t.Errorf("Close with 1 byte unwritten: %v", err)
	}
	for _, h := range []Header{
		{Name: "a\x00b", Typeflag: TypeReg},
		{Name: "a", Typeflag: TypeSymlink, Linkname: "b\x00"},
		{Name: "a/", Typeflag: TypeReg},
	} {
		if err := NewWriter(&buf).WriteHeader(&h); !errors.Is(err, ErrHeader) {
			t.Errorf("%q -> %q: %v; want ErrHeader", h.Name, h.Linkname, err)
		}
	}
	for _, at := range []time.Time{time.Unix(-1, 0), time.Unix(1<<33, 0)} {
		if err := NewWriter(&buf).WriteHeader(&Header{Name: "a", ModTime: at}); !errors.Is(err, ErrFieldTooLong) {
			t.Errorf("time %v: %v; want ErrFieldTooLong", at, err)
		}
	}
}

// FuzzWriter holds Writer to archive/tar's bytes for any name and link
// target both accept.
func FuzzWriter(f *testing.F) {
	f.Add("sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/config", "", byte(TypeReg), int64(5))
	f.Add(strings.Repeat("a/", 80)+"b", strings.Repeat("../", 40), byte(TypeSymlink), int64(0))
	f.Add("é/"+strings.Repeat("x", 120), "", byte(TypeDir), int64(0))
	f.Fuzz(func(t *testing.T, name, link string, typ byte, size int64) {
		if size < 0 || size > 2000 {
			return
		}
		switch typ {
		case TypeReg, TypeSymlink, TypeDir, TypeRegA:
		default:
			return // the types a snapshot writes
		}
		at := time.Date(2026, 12, 4, 0, 0, 0, 0, time.UTC)
		want, got, wantErr, gotErr := writeBoth(t, []Header{{Name: name, Linkname: link, Typeflag: typ, Size: size, Mode: 0o644, ModTime: at}})
		if wantErr != nil || gotErr != nil {
			if (wantErr == nil) != (gotErr == nil) {
				t.Fatalf("archive/tar: %v; Writer: %v", wantErr, gotErr)
			}
			return
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("name %q link %q type %q: bytes differ from archive/tar's", name, link, typ)
		}
	})
}
