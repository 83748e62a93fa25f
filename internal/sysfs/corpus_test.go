package sysfs_test

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gdtopo/gdtopo/internal/source"
	"github.com/gdtopo/gdtopo/internal/sysfs"
	"github.com/gdtopo/gdtopo/topology"
)

// corpusDir returns ../shared/corpus, skipping outside CI when it is absent
// (in CI it is always there, so its absence fails).
func corpusDir(t testing.TB) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "..", "shared", "corpus"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("corpus missing in CI: %v", err)
		}
		t.Skipf("corpus not found at %s (outside CI this test is skipped)", dir)
	}
	return dir
}

func readSource(t *testing.T, name string) *topology.Graph {
	t.Helper()
	src, err := source.Open(name)
	if err != nil {
		t.Fatalf("open %s: %v", name, err)
	}
	g, err := sysfs.Read(src.Root)
	if err != nil {
		t.Fatalf("read %s: %v", name, err)
	}
	return g
}

// TestCorpusCapturesRead reads every real capture of the corpus: the hwloc
// test-suite tarballs and ghw's snapshots, as they are.
func TestCorpusCapturesRead(t *testing.T) {
	dir := corpusDir(t)
	files, _ := filepath.Glob(filepath.Join(dir, "hwloc", "*.tar.bz2"))
	ghw, _ := filepath.Glob(filepath.Join(dir, "ghw", "*.tar.gz"))
	files = append(files, ghw...)
	if len(files) < 9 {
		t.Fatalf("found %d captures, want the 4 hwloc and 5 ghw ones", len(files))
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			g := readSource(t, f)
			if len(g.Devices) == 0 || len(g.HostBridges) == 0 {
				t.Fatalf("%d devices, %d host bridges", len(g.Devices), len(g.HostBridges))
			}
			for _, d := range g.Devices {
				if d.HostBridge == nil {
					t.Errorf("%s: no host bridge", d.BDF())
				}
				if d.Kind == topology.KindBridge && d.Role == topology.RoleNone {
					t.Errorf("%s: bridge without a role", d.BDF())
				}
			}
			g.Pairs() // must not panic on any real tree
		})
	}
}

// TestCorpusKnownMachines pins facts the corpus README and SOURCES.tsv give
// about particular captures.
func TestCorpusKnownMachines(t *testing.T) {
	dir := corpusDir(t)
	g := readSource(t, filepath.Join(dir, "hwloc", "32intel64-2p8co2t+8ve.tar.bz2"))
	if n := len(g.OfKind(topology.KindAccelerator)); n != 8 {
		t.Errorf("SX-Aurora host: %d accelerators, want 8 vector engines", n)
	}
	if n := len(g.Switches()); n != 2 {
		t.Errorf("SX-Aurora host: %d switches, want 2 PLX PEX9797", n)
	}
	if g.System.Sockets != 2 || len(g.System.NUMANodes) != 2 {
		t.Errorf("SX-Aurora host: %d sockets, %d NUMA nodes; want 2 and 2", g.System.Sockets, len(g.System.NUMANodes))
	}
	// The ConnectX-4 at 1a:00.0 shares a PLX switch with the VE at 1b:00.0 (PIX).
	ve, nic := dev(t, g, "0000:1b:00.0"), dev(t, g, "0000:1a:00.0")
	if p := g.Classify(ve, nic); p.SMI != topology.PIX || p.NCCL != topology.PIX {
		t.Errorf("VE-NIC under one PLX switch: smi %s nccl %s, want PIX PIX", p.SMI, p.NCCL)
	}

	g = readSource(t, filepath.Join(dir, "ghw", "linux-amd64-accel-nvidia.tar.gz"))
	if n := len(g.OfKind(topology.KindAccelerator)); n != 1 {
		t.Errorf("QEMU P100 guest: %d accelerators, want 1", n)
	}

	// POWER9's cpuinfo names the CPU on its "cpu" lines and has no
	// "model name": the model is read, and cpuinfo is not said to be missing.
	g = readSource(t, filepath.Join(dir, "hwloc", "nvidiagpunumanodes.tar.bz2"))
	if s := g.System; s.CPUArch != "ppc64" || s.CPUModel != "POWER9, altivec supported" || slices.Contains(g.Lacks, "proc/cpuinfo") {
		t.Errorf("AC922: arch %q, model %q, lacks %q", s.CPUArch, s.CPUModel, g.Lacks)
	}
	if display, _ := g.Unidentified(); display != 6 {
		t.Errorf("AC922: %d display controllers without vendors, want its 6 V100s", display)
	}
}

func dev(t *testing.T, g *topology.Graph, bdf string) *topology.Device {
	t.Helper()
	addr, err := topology.ParseBDF(bdf)
	if err != nil {
		t.Fatal(err)
	}
	d := g.Device(addr)
	if d == nil {
		t.Fatalf("no device %s", bdf)
	}
	return d
}

// consoleDevice is a PCI object as lstopo's console output places it.
type consoleDevice struct {
	parent  string // nearest PCIBridge busid, "" under a HostBridge
	pkg     int    // Package P# above its HostBridge, -1 if none
	numa    int    // NUMANode P# above its HostBridge, -1 if none
	lineNum int
}

var (
	consoleObj  = regexp.MustCompile(`^(\s*)(Package|NUMANode|Group\d*|HostBridge|PCIBridge|PCI|Machine)\b.*?(?:P#(\d+))?`)
	consoleBus  = regexp.MustCompile(`busid=([0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7])`)
	consolePNum = regexp.MustCompile(`\(P#(\d+)`)
)

// parseConsole reads lstopo -v console text: objects nest by indentation.
func parseConsole(t *testing.T, file string) map[string]consoleDevice {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	type frame struct {
		indent      int
		kind, busid string
		num         int
	}
	var stack []frame
	out := map[string]consoleDevice{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		m := consoleObj.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		fr := frame{indent: len(m[1]), kind: m[2], num: -1}
		if pm := consolePNum.FindStringSubmatch(sc.Text()); pm != nil {
			fr.num, _ = strconv.Atoi(pm[1])
		}
		if bm := consoleBus.FindStringSubmatch(sc.Text()); bm != nil {
			fr.busid = bm[1]
		}
		for len(stack) > 0 && stack[len(stack)-1].indent >= fr.indent {
			stack = stack[:len(stack)-1]
		}
		if fr.busid != "" {
			cd := consoleDevice{pkg: -1, numa: -1, lineNum: n}
			for i := len(stack) - 1; i >= 0; i-- {
				s := stack[i]
				switch {
				case s.kind == "PCIBridge" && cd.parent == "" && !strings.HasPrefix(s.busid, "?"):
					if cd.parent == "" && i == len(stack)-1 {
						cd.parent = s.busid
					}
				case s.kind == "Package" && cd.pkg < 0:
					cd.pkg = s.num
				case s.kind == "NUMANode" && cd.numa < 0:
					cd.numa = s.num
				}
			}
			out[fr.busid] = cd
		}
		stack = append(stack, fr)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCorpusAgreesWithHwloc compares gdtopo's tree and locality with
// hwloc's own console output for the same capture.
func TestCorpusAgreesWithHwloc(t *testing.T) {
	dir := corpusDir(t)
	for _, name := range []string{"32intel64-2p8co2t+8ve", "nvidiagpunumanodes"} {
		t.Run(name, func(t *testing.T) {
			g := readSource(t, filepath.Join(dir, "hwloc", name+".tar.bz2"))
			want := parseConsole(t, filepath.Join(dir, "hwloc", name+".console"))
			if len(want) == 0 {
				t.Fatal("console lists no PCI objects")
			}
			for busid, cd := range want {
				d := dev(t, g, busid)
				parent := ""
				if d.Parent != nil {
					parent = d.Parent.BDF()
				}
				if parent != cd.parent {
					t.Errorf("%s (console line %d): parent %q, hwloc says %q", busid, cd.lineNum, parent, cd.parent)
				}
				hb := d.HostBridge
				if hb == nil {
					t.Errorf("%s: no host bridge", busid)
					continue
				}
				if cd.pkg >= 0 && hb.Socket != cd.pkg {
					t.Errorf("%s: host bridge %s on socket %d, hwloc places it in Package P#%d", busid, hb.Name, hb.Socket, cd.pkg)
				}
			}
		})
	}
}
