package lspcidump

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/gdtopo/gdtopo/fixtures/fixturetest"
	"github.com/gdtopo/gdtopo/internal/source"
	"github.com/gdtopo/gdtopo/internal/sysfs"
	"github.com/gdtopo/gdtopo/topology"
)

const corpus = "../../../shared/corpus"

// needDir skips when dir is absent, unless CI=true.
func needDir(t *testing.T, dir string) {
	t.Helper()
	if _, err := os.Stat(dir); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is missing: %v", dir, err)
		}
		t.Skipf("%s is missing", dir)
	}
}

func read(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func dev(t *testing.T, g *topology.Graph, s string) *topology.Device {
	t.Helper()
	a, err := topology.ParseBDF(s)
	if err != nil {
		t.Fatal(err)
	}
	d := g.Device(a)
	if d == nil {
		t.Fatalf("%s: not in the graph", s)
	}
	return d
}

func parentOf(d *topology.Device) string {
	if d.Parent == nil {
		return ""
	}
	return d.Parent.BDF()
}

// TestPaired checks the smi labels read from the lspci dumps of the
// Threadripper workstation against its own nvidia-smi topo -m.
func TestPaired(t *testing.T) {
	dir := filepath.Join(corpus, "paired", "puget-wrx90-threadripper-2xrtx6000ada-cx7")
	needDir(t, dir)
	files := map[string][]byte{}
	for _, n := range []string{"lspci-tv.txt", "lspci-vvv.md", "numactl.txt"} {
		files[n] = read(t, filepath.Join(dir, n))
	}
	g, err := ParseFiles("puget", files)
	if err != nil {
		t.Fatal(err)
	}
	// GPUn by address order of accelerators; NICn by the NIC Legend's
	// mlx5_n in address order of Mellanox functions.
	names := map[string]*topology.Device{}
	for i, d := range g.OfKind(topology.KindAccelerator) {
		names[fmt.Sprintf("GPU%d", i)] = d
	}
	var mlx []*topology.Device
	for _, d := range g.OfKind(topology.KindNIC) {
		if d.VendorID == topology.VendorMellanox {
			mlx = append(mlx, d)
		}
	}
	legend := map[string]string{}
	var header []string
	want := map[[2]string]string{}
	for _, line := range strings.Split(string(read(t, filepath.Join(dir, "nvsmi-topo.txt"))), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) > 0 && f[0] == "GPU0" && header == nil:
			header = f
		case len(f) == 2 && strings.HasPrefix(f[0], "NIC") && strings.HasSuffix(f[0], ":"):
			legend[strings.TrimSuffix(f[0], ":")] = f[1]
		case header != nil && len(f) > 4 && (strings.HasPrefix(f[0], "GPU") || strings.HasPrefix(f[0], "NIC")):
			for j, col := range header {
				if j+1 < len(f) && (strings.HasPrefix(col, "GPU") || strings.HasPrefix(col, "NIC")) {
					want[[2]string{f[0], col}] = f[j+1]
				}
			}
		}
	}
	for nic, ib := range legend {
		var n int
		if _, err := fmt.Sscanf(ib, "mlx5_%d", &n); err != nil || n >= len(mlx) {
			t.Fatalf("%s: %s has no Mellanox function (%d found)", nic, ib, len(mlx))
		}
		names[nic] = mlx[n]
	}
	if len(want) != 16 || len(names) != 4 {
		t.Fatalf("read %d cells and %d names from nvsmi-topo.txt, want 16 and 4", len(want), len(names))
	}
	for k, label := range want {
		if k[0] == k[1] {
			continue
		}
		a, b := names[k[0]], names[k[1]]
		if got := g.Classify(a, b).SMI; string(got) != label {
			t.Errorf("%s-%s (%s-%s): smi %s, nvidia-smi says %s", k[0], k[1], a.BDF(), b.BDF(), got, label)
		}
	}
	for _, s := range []string{"0000:c1:00.0", "0000:c2:00.0", "0000:21:00.0"} {
		if d := dev(t, g, s); !d.ACSKnown || d.ACSRedirect || !d.Link.Known() || !d.DevCtlKnown {
			t.Errorf("%s: ACS known %v redirect %v, link %v, DevCtl known %v; want ACS known without redirect, link and DevCtl known",
				s, d.ACSKnown, d.ACSRedirect, d.Link, d.DevCtlKnown)
		}
	}
	if d := dev(t, g, "0000:c1:00.0"); d.Link.CurrentGTs != 2.5 || d.Link.MaxGTs != 16 || d.Driver != "nvidia" || d.MaxReadRequest != 512 || !d.RelaxedOrdering {
		t.Errorf("c1:00.0: link %v driver %q MRRS %d RO %v", d.Link, d.Driver, d.MaxReadRequest, d.RelaxedOrdering)
	}
}

// TestCorpus reads every file of the lspci corpus.
func TestCorpus(t *testing.T) {
	dir := filepath.Join(corpus, "lspci")
	needDir(t, dir)
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	// The captures pasted in part: two tree fragments, and a tree whose
	// root bus ends in "...".
	partial := map[string]bool{"nccl-246-8xv100pcie-cx5-skx.fragment-a.txt": true, "nccl-246-8xv100pcie-cx5-skx.fragment-b.txt": true,
		"nccl-tests-256-h200-vm.partial.lspci-tv.txt": true}
	for _, e := range entries {
		t.Run(e.Name(), func(t *testing.T) {
			data := read(t, filepath.Join(dir, e.Name()))
			if !Sniff(data) {
				t.Errorf("Sniff: false")
			}
			g, err := Parse(e.Name(), data)
			if strings.HasSuffix(e.Name(), ".numa.txt") { // NUMA node lines alone: no dump
				if err == nil || !strings.Contains(err.Error(), "only NUMA node lines, of 4 functions") {
					t.Errorf("NUMA node lines alone: %v, want them refused", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(g.Devices) == 0 {
				t.Fatal("no devices")
			}
			if got := g.Partial != ""; got != partial[e.Name()] {
				t.Errorf("Partial %q, want partial %v", g.Partial, partial[e.Name()])
			}
		})
	}
	t.Run("lenovo", func(t *testing.T) {
		files := map[string][]byte{}
		for _, n := range []string{"lspci-t-vvv.txt", "lspci.txt", "numa.txt"} {
			files[n] = read(t, filepath.Join(dir, "lenovo-sd665n-v3-4xh100-genoa."+n))
		}
		g, err := ParseFiles("lenovo", files)
		if err != nil {
			t.Fatal(err)
		}
		gpus := g.OfKind(topology.KindAccelerator)
		if len(gpus) != 4 {
			t.Fatalf("%d accelerators, want 4", len(gpus))
		}
		for _, d := range gpus {
			if d.VendorID != topology.VendorNVIDIA || d.Class>>8 != 0x0302 {
				t.Errorf("%s: %04x class %06x", d.BDF(), d.VendorID, d.Class)
			}
		}
		if n := len(g.HostBridges); n != 8 {
			t.Errorf("%d host bridges, want 8", n)
		}
		for _, c := range []struct{ dev, parent, hb string }{
			{"0000:06:00.0", "0000:05:00.0", "pci0000:00"},
			{"0000:03:00.0", "0000:02:00.0", "pci0000:00"},
			{"0000:02:02.0", "0000:01:00.0", "pci0000:00"},
			{"0000:c6:00.0", "0000:c5:00.0", "pci0000:c0"},
			{"0000:01:00.0", "0000:00:01.1", "pci0000:00"},
			{"0000:00:01.1", "", "pci0000:00"},
		} {
			d := dev(t, g, c.dev)
			if parentOf(d) != c.parent || d.HostBridge == nil || d.HostBridge.Name != c.hb {
				t.Errorf("%s: parent %q host bridge %v, want %q %s", c.dev, parentOf(d), d.HostBridge, c.parent, c.hb)
			}
		}
		if d := dev(t, g, "0000:03:00.0"); d.Kind != topology.KindNIC || d.NUMANode != 0 {
			t.Errorf("03:00.0: %s node %d", d.Kind, d.NUMANode)
		}
		if d := dev(t, g, "0000:a6:00.0"); d.NUMANode != 1 {
			t.Errorf("a6:00.0 node %d, want 1 from its host bridge", d.NUMANode)
		}
		for _, c := range []struct {
			a, b string
			smi  topology.Label
		}{
			{"0000:06:00.0", "0000:03:00.0", topology.PXB},
			{"0000:06:00.0", "0000:23:00.0", topology.NODE},
			{"0000:06:00.0", "0000:a3:00.0", topology.SYS},
			{"0000:06:00.0", "0000:26:00.0", topology.NODE},
		} {
			p := g.Classify(dev(t, g, c.a), dev(t, g, c.b))
			got := p.SMI
			if got == topology.NVLinkUnknown { // H100 SXM5 pairs read NV?; their PCIe label is kept beside it
				got = p.PCIeSMI
			}
			if got != c.smi {
				t.Errorf("%s-%s: %s, want %s", c.a, c.b, got, c.smi)
			}
		}
	})
}

// lspciOn runs lspci on a fixture's sysfs tree; stderr is ignored.
func lspciOn(t *testing.T, dir string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command("lspci", append([]string{"-A", "linux-sysfs", "-O", "sysfs.path=" + filepath.Join(dir, "sys", "bus", "pci")}, args...)...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("lspci %v: %v", args, err)
	}
	return out
}

// lspciFixtures returns the bundled fixtures, unpacked, for tests that run
// lspci on them, skipping when lspci is missing except in CI, which
// installs it.
func lspciFixtures(t *testing.T) []string {
	t.Helper()
	if _, err := exec.LookPath("lspci"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("lspci is missing")
		}
		t.Skip("lspci is missing")
	}
	var dirs []string
	for _, name := range fixturetest.Names(t) {
		dirs = append(dirs, fixturetest.Unpack(t, name))
	}
	return dirs
}

// TestMain lets the tests that run lspci share unpacked fixtures.
func TestMain(m *testing.M) { os.Exit(fixturetest.Run(m)) }

// TestRoundTrip runs lspci on each sysfs fixture and reads its dumps back.
func TestRoundTrip(t *testing.T) {
	for _, dir := range lspciFixtures(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			src, err := source.Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			want, err := sysfs.Read(src.Root)
			if err != nil {
				t.Fatal(err)
			}
			tree := lspciOn(t, dir, "-tvnn", "-D")
			vvv := lspciOn(t, dir, "-vvv", "-D", "-nn")
			pp := lspciOn(t, dir, "-PP", "-D", "-nn")
			hex := lspciOn(t, dir, "-xxxx", "-D")
			vmm := lspciOn(t, dir, "-Dnnvmmk")
			for _, c := range []struct {
				name   string
				data   []byte
				labels bool
			}{
				{"all", bytes.Join([][]byte{tree, vvv, pp, hex}, []byte("\n")), true},
				{"vvv", vvv, true},
				{"tree", tree, false},
				{"pp", pp, false},
				{"xxxx", hex, false},
				{"vmm+tree", append(append([]byte{}, vmm...), tree...), true},
			} {
				t.Run(c.name, func(t *testing.T) {
					got, err := Parse(c.name, c.data)
					if err != nil {
						t.Fatal(err)
					}
					same(t, want, got, c.labels, c.name != "tree")
				})
			}
		})
	}
}

func same(t *testing.T, want, got *topology.Graph, labels, ids bool) {
	t.Helper()
	if len(got.Devices) != len(want.Devices) {
		t.Errorf("%d devices, want %d", len(got.Devices), len(want.Devices))
	}
	for _, w := range want.Devices {
		d := got.Device(w.Addr)
		if d == nil {
			t.Errorf("%s: missing", w.BDF())
			continue
		}
		if ids && (d.VendorID != w.VendorID || d.DeviceID != w.DeviceID) {
			t.Errorf("%s: %04x:%04x class %06x, want %04x:%04x class %06x", w.BDF(), d.VendorID, d.DeviceID, d.Class, w.VendorID, w.DeviceID, w.Class)
		}
		if ids && d.Class>>8 != w.Class>>8 {
			t.Errorf("%s: class %06x, want %06x", w.BDF(), d.Class, w.Class)
		}
		if parentOf(d) != parentOf(w) {
			t.Errorf("%s: parent %q, want %q", w.BDF(), parentOf(d), parentOf(w))
		}
		if d.PhysFn() != w.PhysFn() {
			t.Errorf("%s: physfn %q, want %q", w.BDF(), d.PhysFn(), w.PhysFn())
		}
	}
	if !labels {
		return
	}
	var diffs []string
	for _, p := range topology.PairsOf(want.Pairs(), topology.KindAccelerator, topology.KindNIC) {
		a, b := got.Device(p.A.Addr), got.Device(p.B.Addr)
		if a == nil || b == nil {
			continue
		}
		if l := got.Classify(a, b).SMI; l != p.SMI {
			diffs = append(diffs, fmt.Sprintf("%s-%s: %s, want %s", p.A.BDF(), p.B.BDF(), l, p.SMI))
		}
	}
	sort.Strings(diffs)
	for i, d := range diffs {
		if i == 5 {
			t.Errorf("... and %d more", len(diffs)-5)
			break
		}
		t.Error(d)
	}
}

// TestBadInput feeds inputs that are not, or only partly, lspci output.
func TestBadInput(t *testing.T) {
	vvv := "03:00.0 3D controller [0302]: NVIDIA Corporation GH100 [H100 SXM5 80GB] [10de:2330] (rev a1)\n\tNUMA node: 1\n\tLnkSta:\tSpeed 16GT/s (downgraded), Width x16\n"
	for _, c := range []struct {
		name, data string
		err        bool
		warn       bool
	}{
		{"empty", "", true, false},
		{"binary", "\x00\x01\x02\xff\xfe\x7fELF\x00\x00", true, false},
		{"markdown", "# Servers\n\n```\n$ nvidia-smi\nno dump here\n```\n- item: value\n", true, false},
		{"numactl only", "available: 1 nodes (0)\nnode 0 cpus: 0 1\n", true, false},
		{"cut mid-line", vvv + "04:00.0 Infiniband contr", false, true},
		{"cut tree", "-[0000:00]-+-01.0-[01-04]----00.0-[02-04]--+-00.0-[0", false, true},
		{"bad hex", "03:00.0 3D controller: NVIDIA Corporation Device 2330\n00: de 10 30 23\nzz: 00\n1000: 00 00\n", false, false},
		{"orphan branch", "            |   +-00.0  NVIDIA Corporation Device 2330\n" + vvv, false, true},
		{"bad bus", "00:01.0 PCI bridge: AMD Device\n\tBus: primary=00, secondary=zz\n", false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			g, err := Parse(c.name, []byte(c.data))
			if c.err {
				if err == nil || !strings.HasPrefix(err.Error(), c.name+": no lspci output found") {
					t.Fatalf("error %v, want one naming the input", err)
				}
				if Sniff([]byte(c.data)) {
					t.Errorf("Sniff: true")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.warn && len(g.Warnings) == 0 {
				t.Errorf("no warnings")
			}
		})
	}
	if _, err := Parse("big", make([]byte, MaxInput+1)); err == nil || !strings.Contains(err.Error(), "limit") {
		t.Errorf("oversized input: %v", err)
	}
}

// FuzzParse checks that no input panics.
func FuzzParse(f *testing.F) {
	for _, glob := range []string{"lspci/*", "paired/*/*"} {
		names, _ := filepath.Glob(filepath.Join(corpus, glob))
		for _, n := range names {
			if b, err := os.ReadFile(n); err == nil {
				f.Add(b)
			}
		}
	}
	for _, s := range []string{"", "-[0000:00]-+-00.0  x\n           \\-01.0-[01]----00.0  y", "Slot:\t00:00.0\nClass:\tPCI bridge [0604]\n",
		"0000:00:01.0/01:00.0 PCI bridge [0604]: x [1000:c030]\n", "00:00.0 Host bridge: x\n00: 22 10 80 14 00 00 00 00 00 00 00 06 00 00 80 00\n",
		"01:00.0 PCI bridge: x\n\tBus: primary=01, secondary=01, subordinate=ff\n02:00.0 PCI bridge: y\n\tBus: primary=02, secondary=01, subordinate=ff\n",
		"03:00.0 3D controller: x\nNUMA node(s): 2\nNUMA node1 CPU(s): 0-3\nSocket(s): 1\n/sys/bus/pci/devices/0000:03:00.0/numa_node:1\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		Sniff(data)
		g, err := Parse("fuzz", data)
		if err == nil && len(g.Devices) == 0 {
			t.Fatal("a graph with no devices")
		}
		if err == nil && g.CheckPairEnds() == nil { // the bound gdtopo itself labels pairs under
			g.Pairs()
		}
	})
}

// TestPlainListingHasNoHierarchy reads plain lspci (no -t, no Bus lines, no
// -PP): where each function hangs is unknown, so no host bridge is made up,
// every path between two devices is Unknown, and the Lacks line says what
// to capture.
func TestPlainListingHasNoHierarchy(t *testing.T) {
	dir := filepath.Join(corpus, "lspci")
	needDir(t, dir)
	g, err := Parse("plain", read(t, filepath.Join(dir, "lenovo-sd665n-v3-4xh100-genoa.lspci.txt")))
	if err != nil {
		t.Fatal(err)
	}
	// Root buses are known: bus 00 and those holding a host bridge
	// function. Every other function's place is unknown.
	root := map[uint8]bool{0: true}
	for _, d := range g.Devices {
		if d.Class>>8 == 0x0600 {
			root[d.Addr.Bus] = true
		}
	}
	for _, hb := range g.HostBridges {
		if !root[hb.Bus] {
			t.Errorf("host bridge %s made up", hb.Name)
		}
	}
	for _, d := range g.Devices {
		placed := root[d.Addr.Bus]
		if d.PlaceUnknown == placed || d.Parent != nil || (d.HostBridge != nil) != placed {
			t.Errorf("%s: PlaceUnknown %v, parent %v, host bridge %v", d.BDF(), d.PlaceUnknown, d.Parent, d.HostBridge != nil)
		}
	}
	pairs := g.Pairs()
	if len(pairs) < 28 {
		t.Fatalf("%d pairs, want at least 28", len(pairs))
	}
	for _, p := range pairs {
		same := p.A.Addr.SameDevice(p.B.Addr)
		if p.A.Kind == topology.KindAccelerator && p.B.Kind == topology.KindAccelerator && g.NVLinkHint() != "" {
			// SXM5 modules: NVLink is possible, which no PCIe path decides.
			if p.SMI != topology.NVLinkUnknown || !p.LabelUncertain {
				t.Errorf("%s-%s: %s uncertain %v, want NV?", p.A.BDF(), p.B.BDF(), p.SMI, p.LabelUncertain)
			}
			continue
		}
		if !same && (p.SMI != topology.Unknown || p.NCCL != topology.Unknown || !p.LabelUncertain) {
			t.Errorf("%s-%s: %s/%s uncertain %v, want unknown", p.A.BDF(), p.B.BDF(), p.SMI, p.NCCL, p.LabelUncertain)
		}
		if same && p.SMI != topology.PIX {
			t.Errorf("%s-%s: two functions of one device read %s", p.A.BDF(), p.B.BDF(), p.SMI)
		}
	}
	if !strings.Contains(strings.Join(g.Lacks, "; "), "lspci -tv") {
		t.Errorf("Lacks %q does not say what to capture", g.Lacks)
	}
	// The same functions with the tree beside them are placed.
	withTree := append(read(t, filepath.Join(dir, "lenovo-sd665n-v3-4xh100-genoa.lspci.txt")), read(t, filepath.Join(dir, "lenovo-sd665n-v3-4xh100-genoa.lspci-t-vvv.txt"))...)
	g, err = Parse("plain+tree", withTree)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range g.Pairs() {
		if p.SMI == topology.Unknown {
			t.Errorf("with the tree: %s-%s still unknown", p.A.BDF(), p.B.BDF())
		}
	}
}

// TestSideFacts reads facts a user pastes beside a dump: lscpu decides a
// one-node machine (the paired workstation's nvidia-smi says NODE), a
// listing of sysfs numa_node files gives devices their node, and a node
// list made only from the nodes devices named is never taken for the
// whole machine.
func TestSideFacts(t *testing.T) {
	needDir(t, corpus)
	tv, err := filepath.Glob(filepath.Join(corpus, "paired", "*", "lspci-tv.txt"))
	if err != nil || len(tv) != 1 {
		t.Fatalf("paired lspci-tv.txt: %v %v", tv, err)
	}
	lscpu := "Architecture:            x86_64\nCPU(s):                  24\nVendor ID:               AuthenticAMD\n" +
		"Model name:              AMD Ryzen Threadripper PRO 7965WX 24-Cores\nCPU family:              25\nModel:                   24\n" +
		"Socket(s):               1\nNUMA node(s):            1\nNUMA node0 CPU(s):       0-23\n"
	g, err := Parse("tv+lscpu", append(read(t, tv[0]), lscpu...))
	if err != nil {
		t.Fatal(err)
	}
	s := g.System
	if len(s.NUMANodes) != 1 || s.NUMANodes[0].CPUs != "0-23" || s.Sockets != 1 || s.LogicalCPUs != 24 || s.CPUFamily != 25 || s.CPUModelID != 24 || s.CPUVendor != "AuthenticAMD" {
		t.Errorf("system from lscpu: %+v", s)
	}
	for _, p := range topology.PairsOf(g.Pairs(), topology.KindAccelerator, topology.KindNIC) {
		if p.SMI != topology.NODE || p.LabelUncertain {
			t.Errorf("%s-%s: %s uncertain %v, want NODE (nvidia-smi)", p.A.BDF(), p.B.BDF(), p.SMI, p.LabelUncertain)
		}
	}

	tree := read(t, filepath.Join(corpus, "lspci", "lenovo-sd665n-v3-4xh100-genoa.lspci-t-vvv.txt"))
	listing := "$ grep . /sys/bus/pci/devices/*/numa_node\n/sys/bus/pci/devices/0000:42:00.0/numa_node:0\n/sys/bus/pci/devices/0000:42:00.1/numa_node:0\n"
	g, err = Parse("tree+numa_node", append(append([]byte{}, tree...), listing...))
	if err != nil {
		t.Fatal(err)
	}
	if n := dev(t, g, "0000:42:00.0"); n.NUMANode != 0 || n.NUMAFrom != topology.NUMAFromFile {
		t.Errorf("42:00.0: NUMA %d from %q, want 0 from the numa_node listing", n.NUMANode, n.NUMAFrom)
	}
	if !g.System.NUMANodesPartial {
		t.Error("nodes named by devices only, yet the list is not marked partial")
	}
	for _, p := range g.Pairs() {
		if p.A.NUMANode < 0 && p.B.NUMANode >= 0 && p.SMI == topology.NODE && !p.LabelUncertain {
			t.Errorf("%s-%s: confident NODE with %s's node unknown", p.A.BDF(), p.B.BDF(), p.A.BDF())
		}
	}
}

// TestVmmModelThatLooksLikeAnID: without -nn, lspci -vmm prints a model in
// brackets that may be four hex digits ("GB100 [B200]", from a database that
// knows the B200); that is a name, not device ID b200. With -nn every field
// ends in its ID, the Class line first.
func TestVmmModelThatLooksLikeAnID(t *testing.T) {
	for _, tt := range []struct {
		form, dump string
		device     uint16
		name       string
	}{
		{"names", "Slot:\t1a:00.0\nClass:\t3D controller\nVendor:\tNVIDIA Corporation\nDevice:\tGB100 [B200]\n",
			0, "NVIDIA Corporation GB100 [B200]"},
		{"-nn", "Slot:\t1a:00.0\nClass:\t3D controller [0302]\nVendor:\tNVIDIA Corporation [10de]\nDevice:\tGB100 [B200] [2901]\n",
			0x2901, "NVIDIA Corporation GB100 [B200]"},
		{"-n", "Slot:\t1a:00.0\nClass:\t0302\nVendor:\t10de\nDevice:\t2901\n", 0x2901, ""},
	} {
		g, err := Parse(tt.form, []byte(tt.dump))
		if err != nil {
			t.Fatalf("%s: %v", tt.form, err)
		}
		d := g.Device(topology.BDF{Bus: 0x1a})
		if d == nil {
			t.Fatalf("%s: 1a:00.0 not read", tt.form)
		}
		if d.DeviceID != tt.device || tt.name != "" && d.Name != tt.name {
			t.Errorf("%s: device ID %04x name %q, want %04x %q", tt.form, d.DeviceID, d.Name, tt.device, tt.name)
		}
	}
}

// TestVvvChainLooped: lspci -vvv stops at a capability list that revisits
// an entry and prints "<chain looped>"; an ACS capability past the loop was
// never read, so its absence is unknown, and the dump says why.
func TestVvvChainLooped(t *testing.T) {
	head := "00:01.0 PCI bridge: Intel Corporation Device 09ab (prog-if 00 [Normal decode])\n" +
		"\tBus: primary=00, secondary=01, subordinate=01, sec-latency=0\n" +
		"\tCapabilities: [40] Express (v2) Root Port (Slot+), MSI 00\n" +
		"\t\tLnkSta:\tSpeed 16GT/s, Width x16\n"
	for _, tt := range []struct {
		name, tail string
		acsKnown   bool
	}{
		{"listed whole", "\tCapabilities: [100 v1] Advanced Error Reporting\n", true},
		{"looped", "\tCapabilities: [100 v1] Advanced Error Reporting\n\tCapabilities: [100 v1] <chain looped>\n", false},
	} {
		g, err := Parse(tt.name, []byte(head+tt.tail))
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if warned := bridgeACS(t, tt.name, g, tt.acsKnown, "<chain looped>"); warned == tt.acsKnown {
			t.Errorf("%s: <chain looped> warning %v, want %v", tt.name, warned, !tt.acsKnown)
		}
	}
}

// bridgeACS checks that g read 00:01.0 with ACSKnown as want, and reports
// whether a warning holds warning.
func bridgeACS(t *testing.T, name string, g *topology.Graph, want bool, warning string) bool {
	t.Helper()
	d := g.Device(topology.BDF{Device: 1})
	if d == nil {
		t.Fatalf("%s: 00:01.0 not read", name)
	}
	if d.ACSKnown != want {
		t.Errorf("%s: ACSKnown %v, want %v", name, d.ACSKnown, want)
	}
	return slices.ContainsFunc(g.Warnings, func(w topology.Warning) bool { return strings.Contains(w.Message, warning) })
}

// TestElision: a line that stands for lines left out ("...", as people
// paste long output) makes a tree partial, not complete, and within a
// function's -vvv details leaves its ACS unknown rather than absent.
func TestElision(t *testing.T) {
	tree := "-+-[0000:64]-+-00.0-[65]----00.0  Mellanox Technologies MT2910 Family [ConnectX-7]\n" +
		" |           \\-01.0-[66]----00.0  NVIDIA Corporation Device 2335\n" +
		" \\-[0000:00]-+-00.0  Intel Corporation 82G33/G31/P35/P31 Express DRAM Controller\n"
	vvv := "00:01.0 PCI bridge: Intel Corporation Device 09ab (prog-if 00 [Normal decode])\n" +
		"\tBus: primary=00, secondary=01, subordinate=01, sec-latency=0\n" +
		"\tCapabilities: [40] Express (v2) Root Port (Slot+), MSI 00\n"
	for _, tt := range []struct {
		name, text     string
		partial        bool
		acsKnown, warn bool // of 00:01.0 in the -vvv cases
	}{
		{"whole tree", tree, false, false, false},
		{"tree cut", tree + "             +-01.0  Device 1234:1111\n...\n", true, false, false},
		{"tree cut inside a branch", tree + " |           ...\n", true, false, false},
		{"tree cut with an ellipsis", tree + "[…]\n", true, false, false},
		{"tree snipped", tree + "-- snip --\n", true, false, false},
		{"vvv whole", vvv, false, true, false},
		{"vvv details cut", vvv + "\t...\n", false, false, true},
		{"vvv functions cut", vvv + "\n...\n", true, true, false},
		{"two dots are not a cut", tree + "..\n", false, false, false},
	} {
		g, err := Parse(tt.name, []byte(tt.text))
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got := g.Partial != ""; got != tt.partial {
			t.Errorf("%s: Partial %q, want partial %v", tt.name, g.Partial, tt.partial)
		}
		if lacks := strings.Join(g.Lacks, "; "); strings.Contains(lacks, "left out at") != tt.partial {
			t.Errorf("%s: Lacks %q", tt.name, lacks)
		}
		if !strings.HasPrefix(tt.name, "vvv") {
			continue
		}
		if warned := bridgeACS(t, tt.name, g, tt.acsKnown, "its details are cut"); warned != tt.warn {
			t.Errorf("%s: details-cut warning %v, want %v", tt.name, warned, tt.warn)
		}
	}
}

// TestTreeFragment: a piece of lspci -tv cut from the middle of a tree
// (as pasted in a bug report) keeps the functions whose bus it shows,
// counts and names in one warning those it skips, and says the hierarchy
// above the kept ones is missing because the tree was cut, not because
// lspci lists no hierarchy.
func TestTreeFragment(t *testing.T) {
	text := []byte(` |           |               +-03.4  Mellanox Technologies MT27800 Family [ConnectX-5 Virtual Function]
 |           |               \-04.1  Mellanox Technologies MT27800 Family [ConnectX-5 Virtual Function]
 |           +-08.0-[5c-5f]----00.0  NVIDIA Corporation GV100GL [Tesla V100 PCIe 32GB]
 |           +-0c.0-[60-63]----00.0  NVIDIA Corporation GV100GL [Tesla V100 PCIe 32GB]
`)
	g, err := Parse("fragment", text)
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Devices) != 2 {
		t.Fatalf("%d functions kept, want the two GPUs", len(g.Devices))
	}
	var frag []string
	for _, w := range g.Warnings {
		if strings.Contains(w.Message, "tree fragment") {
			frag = append(frag, w.Subject+": "+w.Message)
		}
	}
	want := "fragment:1: tree fragment: 4 functions whose bus is not in the input skipped: 2 x Mellanox Technologies MT27800 Family [ConnectX-5 Virtual Function], 2 x bridge"
	if len(frag) != 1 || frag[0] != want {
		t.Errorf("fragment warnings %q, want %q", frag, want)
	}
	lacks := strings.Join(g.Lacks, "; ")
	if !strings.Contains(lacks, "the PCI hierarchy above 2 functions (a tree fragment") || strings.Contains(lacks, "lists functions, not how they connect") {
		t.Errorf("Lacks %q", lacks)
	}
	vf := "Mellanox Technologies MT27800 Family [ConnectX-5 Virtual Function]"
	wantSkipped := []topology.SkippedFunction{{Name: vf, Kind: topology.KindNIC}, {Name: vf, Kind: topology.KindNIC},
		{Name: "bridge", Kind: topology.KindBridge}, {Name: "bridge", Kind: topology.KindBridge}}
	if !slices.Equal(g.Skipped, wantSkipped) {
		t.Errorf("Skipped %+v, want %+v", g.Skipped, wantSkipped)
	}
}

// TestTreeFragmentNothingPlaced: a fragment cut below every bus line is
// recognised as lspci, and refused with why, not taken for another format.
func TestTreeFragmentNothingPlaced(t *testing.T) {
	text := []byte(` |           |               +-03.4  Mellanox Technologies MT27800 Family [ConnectX-5 Virtual Function]
 |           \-04.1  NVIDIA Corporation GV100GL [Tesla V100 PCIe 32GB]
`)
	if !Sniff(text) {
		t.Error("Sniff = false")
	}
	_, err := Parse("frag", text)
	if want := "frag: an lspci -tv fragment that shows no function's bus (2 functions named): nothing to place; give the whole lspci -tv"; err == nil || err.Error() != want {
		t.Errorf("err %v, want %q", err, want)
	}
}

// TestTreeFragmentAllPlaced: a fragment whose kept functions all have a
// place still says the rest of the tree is missing, and keeps the kinds
// of what it skipped.
func TestTreeFragmentAllPlaced(t *testing.T) {
	text := []byte(` |           |                \-00.1  Intel Corporation Ethernet Connection X722 for 10GbE backplane
 |           +-04.0  Intel Corporation Sky Lake-E CBDMA Registers
 +-[0000:53]-+-00.0-[54-55]----00.0  Mellanox Technologies MT27800 Family [ConnectX-5]
`)
	g, err := Parse("fragment", text)
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Devices) != 2 {
		t.Fatalf("%d functions kept, want the root port and its NIC", len(g.Devices))
	}
	if nics := g.SkippedOfKind(topology.KindNIC); len(g.Skipped) != 2 || len(nics) != 1 {
		t.Errorf("Skipped %+v: want 2, 1 of them a NIC", g.Skipped)
	}
	if lacks := strings.Join(g.Lacks, "; "); !strings.Contains(lacks, "the rest of the PCI tree (a tree fragment: 2 functions whose bus is not in the input skipped") {
		t.Errorf("Lacks %q", lacks)
	}
}
