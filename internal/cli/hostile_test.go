package cli

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gdtopo/gdtopo/fixtures/fixturetest"
	"github.com/gdtopo/gdtopo/internal/hwloc"
)

// The bounds each hostile input is held to: what one check may allocate.
// Time is not bounded, since a loaded machine stretches it; what makes a
// hostile input slow (reading it whole, expanding it) shows in the bytes
// allocated, and a gzip bomb is stopped by source.Limits.MaxExpanded.
const (
	hostileAlloc = 1 << 20
	// hostileTextAlloc: a text source of 512 KiB is read whole (io.ReadAll
	// grows its buffer by doubling) before it is refused.
	hostileTextAlloc = 4 << 20
	// hostileKeptAlloc: an archive of members at the member limit is read
	// up to source.DefaultLimits().MaxKept (64 MiB) before it is refused;
	// each member's buffer doubles as its content arrives (up to twice that).
	hostileKeptAlloc = 160 << 20
)

// raceScale is how much looser a bound is under the race detector: factor
// with -race, 1 without (the plain run in .ci/run holds the measured bound).
func raceScale(factor int) int {
	if raceDetector {
		return factor
	}
	return 1
}

// hostileSecret is the content of a file outside a source that a link in
// the source points at: it must never reach the output.
const hostileSecret = "TOP-SECRET-b8f1c2"

// vmDevice is the folder of the first PCI function of the recorded-vm
// capture copied to root.
func vmDevice(t *testing.T, root string) string {
	t.Helper()
	devs := filepath.Join(root, "sys", "bus", "pci", "devices")
	entries, err := os.ReadDir(devs)
	if err != nil || len(entries) == 0 {
		t.Fatalf("%s: %v", devs, err)
	}
	dir, err := filepath.EvalSymlinks(filepath.Join(devs, entries[len(entries)-1].Name()))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// unpackTo unpacks the fixture archive src into the new folder dst.
func unpackTo(t *testing.T, src, dst string) {
	t.Helper()
	if err := fixturetest.ExtractFile(src, dst); err != nil {
		t.Fatal(err)
	}
}

// hostileTar writes a tar stream of headers with the given bodies (a nil body
// for links and folders).
func hostileTar(t *testing.T, hdrs []tar.Header, bodies map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, h := range hdrs {
		h.ModTime = time.Unix(1700000000, 0)
		if h.Typeflag == tar.TypeReg {
			h.Size, h.Mode = int64(len(bodies[h.Name])), 0o444
		}
		if err := tw.WriteHeader(&h); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(bodies[h.Name])); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// goodMembers is one readable PCI device, so that a refusal is the hostile
// member's doing and not an empty archive's.
var goodMembers = []tar.Header{
	{Name: "sys/bus/pci/devices/0000:00:01.0", Typeflag: tar.TypeSymlink, Linkname: "../../../devices/pci0000:00/0000:00:01.0"},
	{Name: "sys/devices/pci0000:00/0000:00:01.0/class", Typeflag: tar.TypeReg},
	{Name: "sys/devices/pci0000:00/0000:00:01.0/vendor", Typeflag: tar.TypeReg},
}

var goodBodies = map[string]string{
	"sys/devices/pci0000:00/0000:00:01.0/class":  "0x030200\n",
	"sys/devices/pci0000:00/0000:00:01.0/vendor": "0x10de\n",
}

func writeBytes(t *testing.T, name string, data []byte) string {
	t.Helper()
	if err := os.WriteFile(name, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return name
}

// gzipMember is data as one gzip member, at best compression.
func gzipMember(t *testing.T, data []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if _, err := zw.Write(data); err != nil || zw.Close() != nil {
		t.Fatal("gzip failed")
	}
	return buf.Bytes()
}

// manyFullMembers writes a .tar.gz of n members of 4 MiB of zeros each,
// each at the member limit, built from concatenated gzip members as
// gzipBomb's is: n*4 MiB of stream for a few hundred KiB of file.
func manyFullMembers(t *testing.T, name string, n int) string {
	t.Helper()
	const mib = 1 << 20
	var out bytes.Buffer
	zeros := gzipMember(t, make([]byte, mib))
	for i := range n {
		var hdr bytes.Buffer
		tw := tar.NewWriter(&hdr)
		if err := tw.WriteHeader(&tar.Header{Name: fmt.Sprintf("sys/full%03d", i), Typeflag: tar.TypeReg, Size: 4 * mib, Mode: 0o444}); err != nil {
			t.Fatal(err)
		}
		out.Write(gzipMember(t, hdr.Bytes()))
		for range 4 {
			out.Write(zeros)
		}
	}
	return writeBytes(t, name, out.Bytes())
}

// gzipBomb writes a .tar.gz of 120 members of 5 MiB of zeros, 600 MiB in
// all. Each member is over the member limit, so it is skipped by reading
// it through: no header claims more than the 512 MiB stream limit, so
// only that limit, counted as the stream inflates, can refuse it. The
// stream is concatenated gzip members (RFC 1952 allows it, and gzip.Reader
// reads them as one): each tar header, then the same compressed MiB of
// zeros five times, so building it costs one MiB of compression.
func gzipBomb(t *testing.T, name string) string {
	t.Helper()
	const mib = 1 << 20
	zeros := gzipMember(t, make([]byte, mib))
	var out bytes.Buffer
	for i := range 120 {
		var hdr bytes.Buffer
		tw := tar.NewWriter(&hdr)
		if err := tw.WriteHeader(&tar.Header{Name: fmt.Sprintf("sys/zeros%03d", i), Typeflag: tar.TypeReg, Size: 5 * mib, Mode: 0o444}); err != nil {
			t.Fatal(err)
		}
		out.Write(gzipMember(t, hdr.Bytes()))
		for range 5 {
			out.Write(zeros)
		}
	}
	return writeBytes(t, name, out.Bytes())
}

// listTree lists every path under dir with its size, for before/after
// comparison.
func listTree(t *testing.T, dir string) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if info, err := d.Info(); err == nil {
			out[p] = info.Size()
		}
		return nil
	})
	return out
}

// tempEntries lists the names in the system temporary folder.
func tempEntries(dir string) map[string]bool {
	out := map[string]bool{}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		out[e.Name()] = true
	}
	return out
}

// peakRSS returns the process's peak resident set (VmHWM) in KiB, 0 when
// /proc does not tell.
func peakRSS() int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kib, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kib
		}
	}
	return 0
}

// TestHostileSources runs gdtopo check on inputs built to hurt it. For each:
// no panic and no usage exit; a refusal is exit 1 with one stderr line naming
// the input; a read is exit 0 or 3 with the problem among the JSON warnings;
// it allocates within a bound; and it writes
// nothing outside the test's private folders.
func TestHostileSources(t *testing.T) {
	if testing.Short() && os.Getenv("CI") == "" {
		t.Skip("builds large sparse and compressed inputs (-short, outside CI)")
	}
	vm := fx("recorded-vm")
	if _, err := os.Stat(vm); err != nil {
		t.Fatalf("fixture %s: %v", vm, err)
	}
	sysTemp := os.TempDir()
	tempBefore := tempEntries(sysTemp)
	cwd, _ := os.Getwd()
	cwdBefore := listTree(t, cwd)
	base := t.TempDir()
	private := filepath.Join(base, "tmp")
	if err := os.Mkdir(private, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", private) // gdtopo's own temporary files, if any, would land here

	tests := []struct {
		name string
		// make builds the input under dir and returns its path.
		make func(t *testing.T, dir string) string
		// refuse: exit 1 is required; otherwise the source must be read
		// (exit 0 or 3), with a warning containing warn unless it is "".
		refuse bool
		warn   string
		// why is in the one stderr line of a refusal.
		why string
	}{
		{"empty file", func(t *testing.T, dir string) string {
			return writeBytes(t, filepath.Join(dir, "empty.tar.gz"), nil)
		}, true, "", ""},
		{"random binary", func(t *testing.T, dir string) string {
			b := make([]byte, 256<<10)
			rand.New(rand.NewSource(6)).Read(b)
			return writeBytes(t, filepath.Join(dir, "random.bin"), b)
		}, true, "", ""},
		{"truncated snapshot", func(t *testing.T, dir string) string {
			snap := filepath.Join(dir, "snap.tar.gz")
			if code, _, errb := run("snapshot", vm, "--output-file", snap); code != ExitOK {
				t.Fatalf("snapshot: exit %d: %s", code, errb)
			}
			data, err := os.ReadFile(snap)
			if err != nil {
				t.Fatal(err)
			}
			return writeBytes(t, filepath.Join(dir, "cut.tar.gz"), data[:len(data)/2])
		}, true, "", "truncated"},
		{"gzip bomb of 600 MiB", func(t *testing.T, dir string) string {
			start := time.Now()
			name := gzipBomb(t, filepath.Join(dir, "bomb.tar.gz"))
			t.Logf("built the bomb in %v", time.Since(start))
			return name
		}, true, "", "expands beyond"},
		{"tar.gz of 100 members at the 4 MiB member limit", func(t *testing.T, dir string) string {
			return manyFullMembers(t, filepath.Join(dir, "full.tar.gz"), 100)
		}, true, "", "kept in memory"},
		{"member claiming 2 GiB", func(t *testing.T, dir string) string {
			var buf bytes.Buffer
			tw := tar.NewWriter(&buf)
			if err := tw.WriteHeader(&tar.Header{Name: "sys/huge", Typeflag: tar.TypeReg, Size: 2 << 30, Mode: 0o444}); err != nil {
				t.Fatal(err)
			}
			_, _ = tw.Write([]byte("0123456789")) // the body stops here
			var zb bytes.Buffer
			zw := gzip.NewWriter(&zb)
			_, _ = zw.Write(buf.Bytes())
			_ = zw.Close()
			return writeBytes(t, filepath.Join(dir, "claims.tar.gz"), zb.Bytes())
		}, true, "", "truncated"},
		{"dot-dot member", func(t *testing.T, dir string) string {
			hdrs := append(append([]tar.Header{}, goodMembers...), tar.Header{Name: "../evil", Typeflag: tar.TypeReg})
			return writeBytes(t, filepath.Join(dir, "evil.tar"), hostileTar(t, hdrs, map[string]string{"../evil": "x"}))
		}, true, "", `".."`},
		{"absolute symlink in sys", func(t *testing.T, dir string) string {
			hdrs := append(append([]tar.Header{}, goodMembers...),
				tar.Header{Name: "sys/class/net/eth0", Typeflag: tar.TypeSymlink, Linkname: "/etc"})
			return writeBytes(t, filepath.Join(dir, "abs.tar"), hostileTar(t, hdrs, goodBodies))
		}, true, "", "absolute"},
		{"hwloc XML of too many tags", func(t *testing.T, dir string) string {
			var b bytes.Buffer
			b.WriteString(`<topology version="2.0"><object type="Machine">`)
			b.Write(bytes.Repeat([]byte("<>"), hwloc.MaxXMLTags))
			return writeBytes(t, filepath.Join(dir, "tags.xml"), b.Bytes())
		}, true, "", "tags"},
		{"symlink loop in bus/pci/devices", func(t *testing.T, dir string) string {
			root := filepath.Join(dir, "loop")
			unpackTo(t, vm, root)
			devs := filepath.Join(root, "sys", "bus", "pci", "devices")
			if err := os.Remove(filepath.Join(devs, "0000:00:05.0")); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("0000:00:05.1", filepath.Join(devs, "0000:00:05.0")); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("0000:00:05.0", filepath.Join(devs, "0000:00:05.1")); err != nil {
				t.Fatal(err)
			}
			return root
		}, false, "0000:00:05.0", ""},
		{"bus/pci/devices is itself a loop", func(t *testing.T, dir string) string {
			root := filepath.Join(dir, "loopdir")
			unpackTo(t, vm, root)
			pci := filepath.Join(root, "sys", "bus", "pci")
			if err := os.RemoveAll(filepath.Join(pci, "devices")); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("devices", filepath.Join(pci, "devices")); err != nil {
				t.Fatal(err)
			}
			return root
		}, true, "", ""},
		{"4 GiB sparse class file", func(t *testing.T, dir string) string {
			root := filepath.Join(dir, "sparse")
			unpackTo(t, vm, root)
			dev := filepath.Join(root, "sys", "devices", "pci0000:00", "0000:00:03.0")
			// Without config and modalias the class comes from the class file.
			for _, f := range []string{"config", "modalias"} {
				if err := os.Remove(filepath.Join(dev, f)); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.Truncate(filepath.Join(dev, "class"), 4<<30); err != nil {
				t.Skipf("no sparse files here: %v", err)
			}
			return root
		}, false, "0000:00:03.0/class", ""},
		{"4 GiB sparse config file", func(t *testing.T, dir string) string {
			root := filepath.Join(dir, "sparsecfg")
			unpackTo(t, vm, root)
			config := filepath.Join(root, "sys", "devices", "pci0000:00", "0000:00:03.0", "config")
			if err := os.Truncate(config, 4<<30); err != nil {
				t.Skipf("no sparse files here: %v", err)
			}
			return root
		}, false, "0000:00:03.0/config", ""}, // read as its first 4096 bytes, with a warning
		{"folder that is not sysfs", func(t *testing.T, dir string) string {
			root := filepath.Join(dir, "photos")
			if err := os.MkdirAll(filepath.Join(root, "2024", "summer"), 0o755); err != nil {
				t.Fatal(err)
			}
			writeBytes(t, filepath.Join(root, "2024", "summer", "beach.jpg"), []byte("\xff\xd8\xff\xe0 not really"))
			return root
		}, true, "", "not a sysfs tree"},
		{"path that does not exist", func(t *testing.T, dir string) string {
			return filepath.Join(dir, "no", "such", "capture")
		}, true, "", "no such file"},
		{"FIFO as an attribute file", func(t *testing.T, dir string) string {
			root := filepath.Join(dir, "fifo")
			unpackTo(t, vm, root)
			attr := filepath.Join(vmDevice(t, root), "numa_node")
			if err := os.Remove(attr); err != nil {
				t.Fatal(err)
			}
			if err := syscall.Mkfifo(attr, 0o644); err != nil {
				t.Fatal(err)
			}
			return root
		}, false, "not a regular file", ""},
		{"link to /proc/self/fd/0 as config", func(t *testing.T, dir string) string {
			root := filepath.Join(dir, "stdin")
			unpackTo(t, vm, root)
			cfg := filepath.Join(vmDevice(t, root), "config")
			if err := os.Remove(cfg); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("/proc/self/fd/0", cfg); err != nil {
				t.Fatal(err)
			}
			return root
		}, false, "config", ""},
		{"absolute link out of the folder to a secret", func(t *testing.T, dir string) string {
			root := filepath.Join(dir, "secret")
			unpackTo(t, vm, root)
			secret := writeBytes(t, filepath.Join(dir, "secret.txt"), []byte(hostileSecret))
			attr := filepath.Join(vmDevice(t, root), "numa_node")
			if err := os.Remove(attr); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(secret, attr); err != nil {
				t.Fatal(err)
			}
			return root
		}, false, "numa_node", ""},
		{"capability list that loops", func(t *testing.T, dir string) string {
			root := filepath.Join(dir, "looped")
			unpackTo(t, vm, root)
			cfg := filepath.Join(vmDevice(t, root), "config")
			b, err := os.ReadFile(cfg)
			if err != nil || len(b) < 0x40 || b[0x34] < 0x40 || int(b[0x34])+2 > len(b) {
				t.Fatalf("%s: %d bytes, %v: want a config with a capability list", cfg, len(b), err)
			}
			b[int(b[0x34]&^3)+1] = b[0x34] // the first capability points at itself
			writeBytes(t, cfg, b)
			return root
		}, false, "<chain looped>", ""},
		{"garbage in every attribute", func(t *testing.T, dir string) string {
			root := filepath.Join(dir, "garbage")
			unpackTo(t, vm, root)
			err := filepath.WalkDir(filepath.Join(root, "sys", "devices"), func(p string, d fs.DirEntry, err error) error {
				if err != nil || !d.Type().IsRegular() {
					return err
				}
				return os.WriteFile(p, []byte("\x00\xff garbage"), 0o644)
			})
			if err != nil {
				t.Fatal(err)
			}
			return root
		}, false, "invalid value", ""},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(base, strconv.Itoa(i)) // not t.TempDir: that would land in $TMPDIR
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			input := tt.make(t, dir)
			before := listTree(t, dir)

			var m0, m1 runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&m0)
			start := time.Now()
			code, out, errb := run("check", input, "-o", "json")
			took := time.Since(start)
			runtime.ReadMemStats(&m1)
			t.Logf("exit %d in %v; allocated %d KiB, heap reserved %d MiB, process peak RSS %d MiB",
				code, took.Round(time.Millisecond), (m1.TotalAlloc-m0.TotalAlloc)>>10, m1.HeapSys>>20, peakRSS()>>10)

			alloc := uint64(hostileAlloc)
			if strings.Contains(tt.name, "hwloc XML") {
				alloc = hostileTextAlloc // text sources are read whole first
			}
			if strings.Contains(tt.name, "member limit") {
				alloc = hostileKeptAlloc
			}
			alloc *= uint64(raceScale(2))
			if grew := m1.TotalAlloc - m0.TotalAlloc; grew > alloc {
				t.Errorf("allocated %d KiB; want under %d KiB", grew>>10, alloc>>10)
			}
			if strings.Contains(out+errb, hostileSecret) {
				t.Errorf("the output holds the content of a file outside the source")
			}
			switch {
			case code == ExitError:
				lines := strings.Split(strings.TrimRight(errb, "\n"), "\n")
				if len(lines) != 1 || !strings.Contains(lines[0], input) {
					t.Errorf("stderr %q; want one line naming %s", errb, input)
				}
				if tt.why != "" && !strings.Contains(errb, tt.why) {
					t.Errorf("stderr %q; want it to say %q", errb, tt.why)
				}
				if !tt.refuse {
					t.Errorf("refused (exit 1: %s); want it read with a warning", strings.TrimSpace(errb))
				}
				if out != "" {
					t.Errorf("a refusal wrote to stdout: %.200q", out)
				}
			case code == ExitOK || code == ExitFindings:
				if tt.refuse {
					t.Errorf("exit %d; want exit 1 since nothing usable is in it", code)
				}
				var doc struct {
					Sources []struct {
						Report struct {
							Warnings []struct{ Subject, Message string }
						}
					}
				}
				if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Sources) != 1 {
					t.Fatalf("stdout is not the JSON check: %v: %.300q", err, out)
				}
				r := doc.Sources[0].Report
				var all []string
				for _, w := range r.Warnings {
					all = append(all, w.Subject+": "+w.Message)
				}
				if tt.warn != "" && !strings.Contains(strings.Join(all, "\n"), tt.warn) {
					t.Errorf("warnings %q; want one containing %q", all, tt.warn)
				}
			default:
				t.Errorf("exit %d (stderr %q); want 0, 1 or 3, never a usage error", code, errb)
			}

			// The same check in a child process in every check format,
			// whose own peak RSS is bounded (hostilemem_test.go).
			for _, format := range []string{"table", "json", "markdown", "jsonl"} {
				r := runChild(t, dir, 2*time.Minute, "check", input, "-o", format)
				if r.code != code {
					t.Errorf("-o %s in a child: exit %d; in process %d (%s)", format, r.code, code, r.stderr)
				}
				if bound := int64(hostileOutputRSS * raceScale(4)); r.peakKiB<<10 > bound {
					t.Errorf("-o %s: peak RSS %d MiB; want under %d MiB", format, r.peakKiB>>10, bound>>20)
				}
			}

			after := listTree(t, dir)
			for p := range after {
				if _, ok := before[p]; !ok {
					t.Errorf("check wrote %s beside its input", p)
				}
			}
			if left, _ := os.ReadDir(private); len(left) != 0 {
				t.Errorf("check left %d entries in $TMPDIR: %v", len(left), left)
			}
		})
	}

	for name := range tempEntries(sysTemp) {
		if !tempBefore[name] && strings.Contains(strings.ToLower(name), "gdtopo") &&
			!strings.HasPrefix(private, filepath.Join(sysTemp, name)) {
			t.Errorf("new entry %s in %s", name, sysTemp)
		}
	}
	cwdAfter := listTree(t, cwd)
	for p := range cwdAfter {
		if _, ok := cwdBefore[p]; !ok {
			t.Errorf("new file %s in the package folder", p)
		}
	}
}

// TestHostilePCIIDs names devices from --pci-ids files that are damaged
// (short lines, binary bytes: pcidb, which gdtopo used before, panicked on
// these), empty or missing: a damaged or empty file names what it can and
// the run succeeds; a missing one is exit 1 with one line naming it.
func TestHostilePCIIDs(t *testing.T) {
	dir := t.TempDir()
	src := fx("sys-4029gp-v100")
	for name, data := range map[string]string{
		"short.ids":  "abc\n12\n\t\n\t2\n8086\n\t2030\n",
		"binary.ids": "\x00\xff\x7f\n\t\x00\x00\x00\x00  \xff\n8086  \xff\xfe\n\t2030  \x00\n",
		"empty.ids":  "",
	} {
		ids := filepath.Join(dir, name)
		if err := os.WriteFile(ids, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, cmd := range []string{"tree", "check"} {
			code, out, errb := run(cmd, src, "--pci-ids", ids)
			if code != ExitOK && code != ExitFindings || !strings.Contains(out, "0000:17:00.0") {
				t.Errorf("%s with %s: exit %d, stderr %q", cmd, name, code, errb)
			}
		}
	}
	missing := filepath.Join(dir, "missing.ids")
	code, _, errb := run("tree", src, "--pci-ids", missing)
	if code != ExitError || strings.Count(errb, "\n") != 1 || !strings.Contains(errb, missing) {
		t.Errorf("missing --pci-ids: exit %d, stderr %q; want 1 and one line naming it", code, errb)
	}
}
