package source

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/gdtopo/gdtopo/internal/sysfs"
)

// fuzzLimits are small so that one fuzz input costs little.
var fuzzLimits = Limits{MaxExpanded: 4 << 20, MaxMember: 64 << 10, MaxEntries: 2000, MaxKept: 1 << 20}

// fuzzSeedTar is a small sysfs-like tree as a tar stream: folders, attribute
// files, a config blob, bus and class links, a hard link and proc files.
func fuzzSeedTar(f testing.TB) []byte {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	dev := "sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0"
	entries := []tar.Header{
		{Name: "sys/", Typeflag: tar.TypeDir, Mode: 0o755},
		{Name: "sys/bus/pci/devices/", Typeflag: tar.TypeDir, Mode: 0o755},
		{Name: "sys/bus/pci/devices/0000:00:01.0", Typeflag: tar.TypeSymlink, Linkname: "../../../devices/pci0000:00/0000:00:01.0"},
		{Name: "sys/bus/pci/devices/0000:01:00.0", Typeflag: tar.TypeSymlink, Linkname: "../../../" + strings.TrimPrefix(dev, "sys/")},
		{Name: "sys/devices/pci0000:00/0000:00:01.0/class", Typeflag: tar.TypeReg, Mode: 0o444},
		{Name: dev + "/class", Typeflag: tar.TypeReg, Mode: 0o444},
		{Name: dev + "/vendor", Typeflag: tar.TypeReg, Mode: 0o444},
		{Name: dev + "/config", Typeflag: tar.TypeReg, Mode: 0o444},
		{Name: dev + "/revision", Typeflag: tar.TypeLink, Linkname: dev + "/vendor"},
		{Name: dev + "/driver", Typeflag: tar.TypeSymlink, Linkname: "../../../../bus/pci/drivers/nvidia"},
		{Name: "sys/class/infiniband/mlx5_0", Typeflag: tar.TypeSymlink, Linkname: "../../devices/pci0000:00/0000:00:01.0/0000:01:00.0/infiniband/mlx5_0"},
		{Name: "proc/cpuinfo", Typeflag: tar.TypeReg, Mode: 0o444},
	}
	bodies := map[string]string{
		"sys/devices/pci0000:00/0000:00:01.0/class": "0x060400\n",
		dev + "/class":  "0x030200\n",
		dev + "/vendor": "0x10de\n",
		dev + "/config": string(bytes.Repeat([]byte{0xde, 0x10, 0x30, 0x23}, 64)),
		"proc/cpuinfo":  "processor\t: 0\nvendor_id\t: GenuineIntel\n",
	}
	for _, h := range entries {
		h.ModTime = time.Unix(1700000000, 0)
		h.Size = int64(len(bodies[h.Name]))
		if h.Typeflag != tar.TypeReg {
			h.Size = 0
		}
		if err := tw.WriteHeader(&h); err != nil {
			f.Fatal(err)
		}
		if _, err := io.WriteString(tw, bodies[h.Name]); err != nil {
			f.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		f.Fatal(err)
	}
	return buf.Bytes()
}

// FuzzOpenArchive feeds arbitrary bytes to OpenWithLimits as a file. An input
// that opens must be walkable and readable within the limits; one that does
// not must fail with an error naming the input. It must never panic or hang.
func FuzzOpenArchive(f *testing.F) {
	plain := fuzzSeedTar(f)
	f.Add(plain)
	seed := filepath.Join(f.TempDir(), "seed.tar")
	if err := os.WriteFile(seed, plain, 0o444); err != nil {
		f.Fatal(err)
	}
	if src, err := OpenWithLimits(seed, fuzzLimits); err != nil {
		f.Fatalf("the seed archive does not open: %v", err)
	} else if b, err := fs.ReadFile(src.Root, "sys/bus/pci/devices/0000:01:00.0/config"); err != nil || len(b) != 256 {
		f.Fatalf("seed config: %d bytes, %v; want 256", len(b), err)
	}
	var gzBuf bytes.Buffer
	zw := gzip.NewWriter(&gzBuf)
	if _, err := zw.Write(plain); err != nil || zw.Close() != nil {
		f.Fatal("gzip failed")
	}
	f.Add(gzBuf.Bytes())
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(enc.EncodeAll(plain, nil))
	enc.Close()
	f.Add(gzBuf.Bytes()[:gzBuf.Len()/2]) // truncated
	f.Add(plain[:1024])                  // a tar cut inside a member
	f.Add([]byte{})
	f.Add([]byte("\x1f\x8b\x08\x00garbage"))
	f.Add([]byte("BZh91AY&SY"))
	f.Add([]byte("\xfd7zXZ\x00\x00"))
	corpus := filepath.Join("..", "..", "..", "shared", "corpus", "ghw", "linux-amd64-accel-nvidia.tar.gz")
	if data, err := os.ReadFile(corpus); err == nil {
		f.Add(data[:min(len(data), 64<<10)])
	}

	// One input file per fuzzing process, rewritten each time: the calls of
	// one process run one after another, and a fresh t.TempDir each call
	// costs more than the open itself.
	name := filepath.Join(f.TempDir(), "input")
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(name, data, 0o644); err != nil {
			t.Fatal(err)
		}
		src, err := OpenWithLimits(name, fuzzLimits)
		if err != nil {
			if !strings.HasPrefix(err.Error(), name+": ") {
				t.Fatalf("error %q does not start with the input name", err)
			}
			return
		}
		for _, w := range src.Warnings {
			if !strings.HasPrefix(w, name+": ") {
				t.Fatalf("warning %q does not start with the input name", w)
			}
		}
		var total int64
		reads := 0
		walkErr := fs.WalkDir(src.Root, ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err // an archive's tree is in memory: every folder in it reads
			}
			switch {
			case d.Type()&fs.ModeSymlink != 0:
				_, _ = fs.ReadLink(src.Root, p)
				_, _ = fs.Stat(src.Root, p) // follows the link: loops must end in an error
				if reads < 8 {
					reads++
					_, _ = fs.ReadFile(src.Root, p)
				}
			case d.Type().IsRegular():
				// Every member kept counts against the limits, read or not:
				// its size is what the archive reader kept in memory.
				info, err := d.Info()
				if err != nil {
					return nil
				}
				if info.Size() > fuzzLimits.MaxMember {
					t.Fatalf("%s: %d bytes kept, over the %d-byte member limit", p, info.Size(), fuzzLimits.MaxMember)
				}
				total += info.Size()
				if reads < 16 {
					reads++
					if b, err := fs.ReadFile(src.Root, p); err == nil && int64(len(b)) != info.Size() {
						t.Fatalf("%s: read %d bytes, its size says %d", p, len(b), info.Size())
					}
				}
			}
			return nil
		})
		if walkErr != nil {
			t.Fatalf("walk: %v", walkErr)
		}
		if total > fuzzLimits.MaxExpanded {
			t.Fatalf("kept %d bytes of members, over the %d-byte expansion limit", total, fuzzLimits.MaxExpanded)
		}
		// The rest of the pipeline on what was kept, as check runs it:
		// the sysfs reader, then every pair under the bound check keeps.
		if g, err := sysfs.Read(src.Root); err == nil && g.CheckPairEnds() == nil {
			g.Pairs()
		}
	})
}
