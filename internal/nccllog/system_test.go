package nccllog

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gdtopo/gdtopo/topology"
)

var update = flag.Bool("update", false, "rewrite testdata/*.system")

// systemPrints are the real logs holding NCCL's topology print: each has a
// golden NAME.system beside it; the corpus print is read where it is.
var systemPrints = []string{
	"testdata/nccl-1053-socket-lo-system.log",
	"testdata/nccl-tests-350-a100-roce-ib-system.log",
	"testdata/rccl-901-mi100-xgmi-system.log",
	"testdata/nccl-tests-329-docker-nic-no-port-system.log",
}

const corpusPrint = "../../../shared/corpus/nccl-xml/nccl-tests-256-h200-vm.nccl-info-topology.txt"

func systemGraph(t *testing.T, name string) *topology.Graph {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		if name == corpusPrint && os.Getenv("CI") == "" {
			t.Skipf("corpus not here: %v", err)
		}
		t.Fatal(err)
	}
	g, err := ParseSystem(name, b)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// dumpGraph is what the goldens hold: each device, each accelerator-NIC
// and accelerator pair's labels, and what the graph says it lacks.
func dumpGraph(g *topology.Graph) string {
	var b strings.Builder
	fmt.Fprintf(&b, "host %s arch %q vendor %q partial %q\n", g.System.Hostname, g.System.CPUArch, g.System.CPUVendor, g.Partial)
	for _, d := range g.Devices {
		par := "-"
		if d.Parent != nil {
			par = d.Parent.BDF()
		}
		fmt.Fprintf(&b, "dev %s %s under %s/%s numa %d ids %04x:%04x port %gGb/s link %q\n", d.BDF(), d.Kind, d.HostBridge.Name, par, d.NUMANode, d.VendorID, d.DeviceID, d.PortRateGbps, d.Link.String())
	}
	for _, p := range g.Pairs() {
		if p.A.Kind != topology.KindAccelerator {
			continue
		}
		u := ""
		if p.LabelUncertain {
			u = "?"
		}
		fmt.Fprintf(&b, "pair %s %s %s%s nccl %s\n", p.A.BDF(), p.B.BDF(), p.SMI, u, p.NCCL)
	}
	for _, l := range g.Lacks {
		fmt.Fprintf(&b, "lacks %s\n", l)
	}
	for _, w := range g.Warnings {
		fmt.Fprintf(&b, "warn %s\n", w.Message)
	}
	return b.String()
}

// TestSystemGolden builds the tree of every real topology print and
// compares it with its golden (go test ./internal/nccllog -update rewrites
// them; read the diff).
func TestSystemGolden(t *testing.T) {
	for _, name := range append(append([]string{}, systemPrints...), corpusPrint) {
		t.Run(filepath.Base(name), func(t *testing.T) {
			got := dumpGraph(systemGraph(t, name))
			golden := "testdata/" + strings.TrimSuffix(strings.TrimSuffix(filepath.Base(name), ".txt"), ".log") + ".system"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("%s differs from %s:\n%s", name, golden, got)
			}
		})
	}
}

// rePathLine is NCCL's path print (src/graph/paths.cc, ncclTopoPrintPaths)
// of a GPU: "GPU/81000 :GPU/81000 (0/5000.000000/LOC) ... NET/1 (3/24.000000/PHB)".
var (
	rePathLine = regexp.MustCompile(`NCCL INFO GPU/([0-9A-Fa-f-]+) :(.*)$`)
	rePathNet  = regexp.MustCompile(`NET/([0-9A-Fa-f-]+) \(\d+/[0-9.]+/([A-Z]+)\)`)
	reNetOfNIC = regexp.MustCompile(`NIC/([0-9A-Fa-f-]+)$|NET\[[0-9.]+\] - NET/([0-9A-Fa-f-]+) `)
)

// TestSystemAgainstPaths sets the labels gdtopo gives each GPU-NIC pair of
// the print's tree against the path type NCCL printed for it in the same
// log: they must be equal (PHB may be marked uncertain, as NCCL's tree
// cannot tell PHB from NODE).
func TestSystemAgainstPaths(t *testing.T) {
	compared := 0
	for _, name := range systemPrints {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		netNIC := map[string]string{} // NET id -> NIC id, from the print's tree
		nic := ""
		for _, l := range strings.Split(string(b), "\n") {
			if m := reNetOfNIC.FindStringSubmatch(strings.TrimRight(l, " ")); m != nil {
				if m[1] != "" {
					nic = m[1]
				} else if nic != "" {
					netNIC[m[2]] = nic
				}
			}
		}
		g := systemGraph(t, name)
		dev := func(id string) *topology.Device {
			v, err := strconv.ParseUint(id[strings.LastIndexByte(id, '-')+1:], 16, 64)
			if err != nil {
				t.Fatal(err)
			}
			addr, _ := busID(int64(v))
			for _, d := range g.Devices {
				if d.Addr == addr {
					return d
				}
			}
			return nil
		}
		for _, l := range strings.Split(string(b), "\n") {
			m := rePathLine.FindStringSubmatch(l)
			if m == nil {
				continue
			}
			gpu := dev(m[1])
			for _, p := range rePathNet.FindAllStringSubmatch(m[2], -1) {
				nicID, ok := netNIC[p[1]]
				if !ok || gpu == nil {
					t.Fatalf("%s: NET/%s or GPU/%s not in the print", name, p[1], m[1])
				}
				pair := g.Classify(gpu, dev(nicID))
				if string(pair.NCCL) != p[2] {
					t.Errorf("%s: GPU/%s-NET/%s: gdtopo %s, NCCL printed %s", name, m[1], p[1], pair.NCCL, p[2])
				}
				compared++
			}
		}
	}
	if compared < 2 {
		t.Errorf("%d GPU-NIC paths compared, want the 2 of nccl-tests-350", compared)
	}
}

// TestSystemCut: a print the log ends inside, or whose indentation is
// lost, gives a partial tree that says so; the rest of the log is the same.
func TestSystemCut(t *testing.T) {
	b, err := os.ReadFile("testdata/nccl-tests-350-a100-roce-ib-system.log")
	if err != nil {
		t.Fatal(err)
	}
	cut := b[:bytes.Index(b, []byte("NCCL INFO CPU/0 (1/2/-1)"))+len("NCCL INFO CPU/0 (1/2/-1)")]
	g, err := ParseSystem("cut", cut)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(g.Partial, "ends inside NCCL's topology print") || len(g.OfKind(topology.KindNIC)) != 1 {
		t.Errorf("cut print: partial %q, %d NICs", g.Partial, len(g.OfKind(topology.KindNIC)))
	}
	flat := regexp.MustCompile(`NCCL INFO +\+`).ReplaceAll(b, []byte("NCCL INFO +"))
	g, err = ParseSystem("flat", flat)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(g.Partial, "out of its tree") {
		t.Errorf("flattened print: partial %q", g.Partial)
	}
}

// TestSystemNone: a log without a print is refused with a pointer to
// explain; text of no log is not one.
func TestSystemNone(t *testing.T) {
	b, err := os.ReadFile("testdata/nccl-899-ib-no-module.log")
	if err != nil {
		t.Fatal(err)
	}
	if SniffSystem(b) {
		t.Error("a log without a print sniffed as one")
	}
	src, err := os.ReadFile("system_test.go") // quotes print lines, as a Go file may
	if err != nil {
		t.Fatal(err)
	}
	if SniffSystem(append(src, "\nx:1:2 [0] NCCL INFO === System : maxBw 1.0 totalBw 1.0 ===\n"...)) {
		t.Error("Go source quoting a print line sniffed as a log")
	}
	if _, err := ParseSystem("x", b); err == nil || !strings.Contains(err.Error(), "gdtopo explain") {
		t.Errorf("err %v", err)
	}
}

// TestBusID: NCCL's int64 bus ids decode as int64ToBusId writes them.
func TestBusID(t *testing.T) {
	for id, want := range map[int64]string{0x81000: "0000:81:00.0", 0xd1000: "0000:d1:00.0", 0x7000: "0000:07:00.0", 0x1c1001: "0001:c1:00.1"} {
		got, ok := busID(id)
		if !ok || got.String() != want {
			t.Errorf("%x: %s %v, want %s", id, got, ok, want)
		}
	}
}

// FuzzParseSystem: whatever the text, building the tree never panics.
func FuzzParseSystem(f *testing.F) {
	for _, name := range systemPrints {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = ParseSystem("fuzz", data)
	})
}
