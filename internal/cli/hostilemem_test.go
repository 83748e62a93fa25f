package cli

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// hostileChildEnv marks a child process started by runChild: its
// arguments after "--" are gdtopo's.
const hostileChildEnv = "GDTOPO_HOSTILE_CHILD"

// TestHostileChild is gdtopo itself when the test binary is started by
// runChild; otherwise it does nothing.
func TestHostileChild(t *testing.T) {
	if os.Getenv(hostileChildEnv) != "1" {
		return
	}
	code := MainTerminal(flag.Args(), os.Stdin, os.Stdout, os.Stderr, os.Getenv, "")
	// The peak of this process's own memory (VmHWM), written to the file
	// runChild passed as descriptor 3: getrusage's ru_maxrss of a child
	// started with vfork, as Go starts it, holds the parent's peak at the
	// exec, as Linux carries the old memory's high-water mark over.
	fmt.Fprintf(os.NewFile(3, "peak"), "%d\n", peakRSS())
	os.Exit(code)
}

// childRun is what one gdtopo run in a child process did.
type childRun struct {
	code    int
	peakKiB int64 // the child's peak resident set (VmHWM)
	out     int64 // bytes written to standard output
	stderr  string
	took    time.Duration
}

// runChild runs gdtopo with args in a child process (this test binary,
// running TestHostileChild), its standard output to a file in dir, and
// returns its exit status and peak RSS. A run past limit is killed.
func runChild(t *testing.T, dir string, limit time.Duration, args ...string) childRun {
	t.Helper()
	return runChildEnv(t, dir, limit, nil, args...)
}

// runChildEnv is runChild with env added to the child's environment.
func runChildEnv(t *testing.T, dir string, limit time.Duration, env []string, args ...string) childRun {
	t.Helper()
	out, err := os.CreateTemp(dir, "stdout-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(out.Name())
	defer out.Close()
	peak, err := os.CreateTemp(dir, "peak-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(peak.Name())
	defer peak.Close()
	var errb strings.Builder
	cmd := exec.Command(os.Args[0], append([]string{"-test.run=^TestHostileChild$", "-test.count=1", "--"}, args...)...)
	cmd.Env = append(append(os.Environ(), env...), hostileChildEnv+"=1")
	cmd.Stdout, cmd.Stderr, cmd.ExtraFiles = out, &errb, []*os.File{peak}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	timer := time.AfterFunc(limit, func() { _ = cmd.Process.Kill() })
	err = cmd.Wait()
	timer.Stop()
	r := childRun{code: cmd.ProcessState.ExitCode(), stderr: errb.String(), took: time.Since(start)}
	if b, err := os.ReadFile(peak.Name()); err == nil {
		r.peakKiB, _ = strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok && r.peakKiB == 0 {
		r.peakKiB = ru.Maxrss // KiB, an upper bound (see TestHostileChild)
	}
	if info, err := out.Stat(); err == nil {
		r.out = info.Size()
	}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		t.Fatalf("gdtopo %s killed after %v (%v), peak RSS %d MiB", strings.Join(args, " "), r.took.Round(time.Millisecond), err, r.peakKiB>>10)
	}
	return r
}

// hostileOutputRSS is the bound on the peak RSS of one check of an input of
// the hostile output suite, in any output format: docs/reliability.md
// ("Output") states it.
const hostileOutputRSS = 192 << 20

// TestHostileOutputMemory checks inputs that make many warnings or one huge
// value in every output format, each in a child process whose peak RSS must
// stay under hostileOutputRSS: one warning listing every address, with every
// table row padded to it, took gigabytes in the table and markdown formats.
func TestHostileOutputMemory(t *testing.T) {
	if testing.Short() && os.Getenv("CI") == "" {
		t.Skip("builds large inputs (-short, outside CI)")
	}
	base := t.TempDir()
	const gpu = `<pci busid="0000:01:00.0" class="0x030200" vendor="0x10de" device="0x2330" link_speed="32.0 GT/s PCIe" link_width="16"><gpu dev="0" sm="90" rank="0" gdr="1"/></pci>`
	nic := func(vendor string) string {
		return `<pci busid="0000:02:00.0" class="0x020700" vendor="` + vendor + `" device="0x1021" link_speed="32.0 GT/s PCIe" link_width="16"><nic><net name="mlx5_0" dev="0" speed="400000" port="1" gdr="1"/></nic></pci>`
	}
	tests := []struct {
		name string
		make func(t *testing.T, dir string) string
		// refuse, when set, is what the one stderr line of exit 1 says.
		refuse string
	}{
		{"NCCL XML of 6000 bare <pci> outside any <cpu>", func(t *testing.T, dir string) string {
			var b strings.Builder
			b.WriteString(`<system version="1"><cpu numaid="0">` + gpu + nic("0x15b3") + `</cpu>`)
			for i := range 6000 {
				fmt.Fprintf(&b, `<pci busid="0000:%02x:%02x.%d"/>`, 0x10+i/256, i%256/8, i%8)
			}
			b.WriteString(`</system>`)
			return writeBytes(t, filepath.Join(dir, "bare.xml"), []byte(b.String()))
		}, ""},
		{"NCCL XML with a 16 MiB vendor attribute", func(t *testing.T, dir string) string {
			doc := `<system version="1"><cpu numaid="0">` + gpu + nic("0x"+strings.Repeat("A", 16<<20)) + `</cpu></system>`
			return writeBytes(t, filepath.Join(dir, "vendor.xml"), []byte(doc))
		}, ""},
		{"captured folder with 6000 empty device folders under no host bridge", func(t *testing.T, dir string) string {
			root := filepath.Join(dir, "empty")
			unpackTo(t, fx("recorded-vm"), root)
			devs := filepath.Join(root, "sys", "bus", "pci", "devices")
			for i := range 6000 {
				if err := os.Mkdir(filepath.Join(devs, fmt.Sprintf("0001:%02x:%02x.%d", i/256, i%256/8, i%8)), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			return root
		}, ""},
		{"tar.gz of 480 000 nine-byte members", func(t *testing.T, dir string) string {
			return smallMembers(t, filepath.Join(dir, "many.tar.gz"), 480_000, func(i int) string {
				return fmt.Sprintf("sys/devices/pci0000:00/0000:00:01.0/d%06d", i)
			})
		}, "kept in memory"},
		{"tar.gz of 60 000 bridges", func(t *testing.T, dir string) string {
			return smallMembers(t, filepath.Join(dir, "bridges.tar.gz"), 60_000, func(i int) string {
				return fmt.Sprintf("sys/bus/pci/devices/%04x:%02x:%02x.%d/class", i>>16, i>>8&0xff, i>>3&0x1f, i&7)
			})
		}, "PCI functions"},
		{"NCCL XML of 48 MB of bridges", func(t *testing.T, dir string) string {
			var b strings.Builder
			b.WriteString(`<system version="1"><cpu numaid="0">` + gpu)
			for i := range 400_000 {
				fmt.Fprintf(&b, `<pci busid="%04x:%02x:%02x.%d" class="0x060400" vendor="0x1000" device="0xc030" link_speed="16.0 GT/s PCIe" link_width="16"/>`, i>>16, i>>8&0xff, i>>3&0x1f, i&7)
			}
			b.WriteString(`</cpu></system>`)
			return writeBytes(t, filepath.Join(dir, "bridges.xml"), []byte(b.String()))
		}, "PCI functions"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(base, fmt.Sprint(i))
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			input := tt.make(t, dir)
			for _, format := range []string{"table", "json", "markdown", "jsonl"} {
				r := runChild(t, dir, 2*time.Minute, "check", input, "-o", format)
				t.Logf("-o %s: exit %d in %v, peak RSS %d MiB, %d KiB written", format, r.code, r.took.Round(time.Millisecond), r.peakKiB>>10, r.out>>10)
				switch {
				case tt.refuse != "":
					if r.code != ExitError || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, tt.refuse) {
						t.Errorf("-o %s: exit %d, stderr %q; want exit 1 and one line saying %q", format, r.code, r.stderr, tt.refuse)
					}
				case r.code != ExitOK && r.code != ExitFindings:
					t.Errorf("-o %s: exit %d: %s", format, r.code, r.stderr)
				}
				if bound := int64(hostileOutputRSS * raceScale(4)); r.peakKiB<<10 > bound {
					t.Errorf("-o %s: peak RSS %d MiB; want under %d MiB", format, r.peakKiB>>10, bound>>20)
				}
				if limit := int64(64 << 10); format != "json" && format != "jsonl" && r.out > limit {
					t.Errorf("-o %s: wrote %d KiB; want under %d KiB (warnings grouped, long values cut)", format, r.out>>10, limit>>10)
				}
			}
		})
	}
}

// smallMembers writes a .tar.gz of n members of nine bytes, member i named
// name(i).
func smallMembers(t *testing.T, file string, n int, name func(int) string) string {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for i := range n {
		hdr := tar.Header{Name: name(i), Typeflag: tar.TypeReg, Size: 9, Mode: 0o444, ModTime: time.Unix(1700000000, 0)}
		if err := tw.WriteHeader(&hdr); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte("0x060400\n")); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return writeBytes(t, file, buf.Bytes())
}

// fleetFlatRSS is the bound on the peak RSS of a run over 2,000 small
// snapshots on one CPU: as for 200 (about 19 MiB here), not growing with
// the sources.
const fleetFlatRSS = 40 << 20

// TestFleetMemoryFlat runs fleet and check -o jsonl over 2,000 snapshots
// with GOMAXPROCS=1 (what Go sets in a container limited to one CPU), in a
// child process whose peak RSS must stay under fleetFlatRSS: a memory limit
// raised whenever sources seemed to hold more ratcheted up on one CPU,
// where its adjustment ran late (74 MiB for these 2,000, 320 MiB for 2,000
// 8-GPU snapshots).
func TestFleetMemoryFlat(t *testing.T) {
	if testing.Short() && os.Getenv("CI") == "" {
		t.Skip("runs 2,000 sources (-short, outside CI)")
	}
	dir := t.TempDir()
	data, err := os.ReadFile(fx("recorded-vm"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2000 {
		writeBytes(t, filepath.Join(dir, fmt.Sprintf("s%04d.tar.gz", i)), data)
	}
	glob := filepath.Join(dir, "*.tar.gz")
	for _, args := range [][]string{{"fleet", glob}, {"check", glob, "-o", "jsonl"}} {
		r := runChildEnv(t, t.TempDir(), 5*time.Minute, []string{"GOMAXPROCS=1", "GOGC=", "GOMEMLIMIT="}, args...)
		t.Logf("%s: exit %d in %v, peak RSS %d MiB", args[0], r.code, r.took.Round(time.Millisecond), r.peakKiB>>10)
		if r.code != ExitOK && r.code != ExitFindings {
			t.Errorf("%s: exit %d: %s", args[0], r.code, r.stderr)
		}
		if bound := int64(fleetFlatRSS * raceScale(4)); r.peakKiB<<10 > bound {
			t.Errorf("%s over 2,000 sources at GOMAXPROCS=1: peak RSS %d MiB; want under %d MiB", args[0], r.peakKiB>>10, bound>>20)
		}
	}
}
