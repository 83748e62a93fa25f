package hwloc

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/gdtopo/gdtopo/fixtures/fixturetest"
	"github.com/gdtopo/gdtopo/internal/source"
	"github.com/gdtopo/gdtopo/internal/sysfs"
	"github.com/gdtopo/gdtopo/topology"
)

const corpusDir = "../../../shared/corpus/hwloc"

// corpus returns the path of a corpus file, skipping the test when the
// corpus is absent (unless CI=true).
func corpus(t testing.TB, name string) string {
	t.Helper()
	p := filepath.Join(corpusDir, name)
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("corpus file missing: %v", err)
		}
		t.Skipf("corpus absent: %v", err)
	}
	return p
}

func parseFile(t *testing.T, path string) *topology.Graph {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var g *topology.Graph
	switch {
	case strings.HasSuffix(path, ".xml"):
		if !SniffXML(data) || SniffConsole(data) {
			t.Errorf("%s: sniffers disagree on XML", path)
		}
		g, err = ParseXML(path, data)
	default:
		if !SniffConsole(data) || SniffXML(data) {
			t.Errorf("%s: sniffers disagree on console text", path)
		}
		g, err = ParseConsole(path, data)
	}
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return g
}

// count returns how many functions match vendor:device.
func count(g *topology.Graph, vendor, device uint16) int {
	n := 0
	for _, d := range g.Devices {
		if d.VendorID == vendor && d.DeviceID == device {
			n++
		}
	}
	return n
}

// TestCorpus reads every hwloc file of the corpus; the counts were taken
// by reading the files.
func TestCorpus(t *testing.T) {
	type ids struct {
		vendor, device uint16
		n              int
	}
	tests := []struct {
		file          string
		hostBridges   int
		nodes         int
		sockets       int
		accels, nics  int
		ids           []ids
		hostname, cpu string
		parentOf      map[string]string // device -> parent BDF ("" = root bus)
		numa          map[string]int
	}{
		{file: "nvidiaDGX2.xml", hostBridges: 4, nodes: 2, sockets: 2, accels: 16, nics: 0,
			ids: []ids{{0x10de, 0x1db8, 16}, {0x10b5, 0x9781, 34}}, cpu: "Intel(R) Xeon(R) Platinum 8174 CPU @ 3.10GHz"},
		{file: "32em64t-2n8c2t-pci-wholeio.xml", hostBridges: 2, nodes: 2, sockets: 2, accels: 4, nics: 3,
			ids:      []ids{{0x10de, 0x1094, 3}, {0x15b3, 0x1013, 1}, {0x8086, 0x1521, 2}},
			hostname: "conan", parentOf: map[string]string{"0000:03:00.0": "0000:00:03.0", "0000:81:00.0": "0000:80:01.0"},
			numa: map[string]int{"0000:03:00.0": 0, "0000:83:00.0": 1}},
		{file: "24em64t-2n6c2t-pci.xml", hostBridges: 2, nodes: 2, sockets: 2, accels: 3, nics: 3, // the AMD ES1000 is the on-board display, no accelerator; the ConnectX-2 is class 0c06
			ids: []ids{{0x10de, 0x06d2, 3}, {0x8086, 0x10c9, 2}}, hostname: "mirage004"},
		{file: "power8gpudistances.xml", hostBridges: 4, nodes: 2, sockets: 2, accels: 4, nics: 0,
			ids: []ids{{0x10de, 0x15f9, 4}}, hostname: "drac-12.grenoble.grid5000.fr"},
		{file: "32em64t-2n8c+dax+nvme+mic+dimms.xml", hostBridges: 4, nodes: 2, sockets: 2, accels: 1, nics: 3, // the ConnectX-3 (class 0280) has mlx4_0
			ids: []ids{{0x15b3, 0x1003, 1}}},
		{file: "40intel64-2g2n4c+pcilocality.xml", hostBridges: 2, nodes: 4, sockets: 4, accels: 0, nics: 5}, // with the QLogic IBA7322 (class 0c06)
		{file: "32intel64-2p8co2t+8ve.console", hostBridges: 3, nodes: 2, sockets: 2, accels: 8, nics: 4,
			ids:      []ids{{0x1bcf, 0x001c, 8}, {0x15b3, 0x1013, 2}, {0x10b5, 0x9797, 12}},
			hostname: "ve", cpu: "Intel(R) Xeon(R) Silver 4108 CPU @ 1.80GHz",
			parentOf: map[string]string{"0000:1a:00.0": "0000:19:04.0", "0000:17:00.0": ""},
			numa:     map[string]int{"0000:1a:00.0": 0}},
		{file: "nvidiagpunumanodes.console", hostBridges: 6, nodes: 2, sockets: 2, accels: 0, nics: 0,
			hostname: "c685f8n02"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			g := parseFile(t, corpus(t, tt.file))
			if got := len(g.HostBridges); got != tt.hostBridges {
				t.Errorf("host bridges = %d, want %d", got, tt.hostBridges)
			}
			if got := len(g.System.NUMANodes); got != tt.nodes {
				t.Errorf("NUMA nodes = %d, want %d", got, tt.nodes)
			}
			if g.System.Sockets != tt.sockets {
				t.Errorf("sockets = %d, want %d", g.System.Sockets, tt.sockets)
			}
			if got := len(g.OfKind(topology.KindAccelerator)); got != tt.accels {
				t.Errorf("accelerators = %d, want %d", got, tt.accels)
			}
			if got := len(g.OfKind(topology.KindNIC)); got != tt.nics {
				t.Errorf("NICs = %d, want %d", got, tt.nics)
			}
			for _, id := range tt.ids {
				if got := count(g, id.vendor, id.device); got != id.n {
					t.Errorf("%04x:%04x = %d, want %d", id.vendor, id.device, got, id.n)
				}
			}
			if tt.hostname != "" && g.System.Hostname != tt.hostname {
				t.Errorf("hostname = %q, want %q", g.System.Hostname, tt.hostname)
			}
			if tt.cpu != "" && g.System.CPUModel != tt.cpu {
				t.Errorf("CPU model = %q, want %q", g.System.CPUModel, tt.cpu)
			}
			for dev, want := range tt.parentOf {
				d := mustDevice(t, g, dev)
				got := ""
				if d.Parent != nil {
					got = d.Parent.BDF()
				}
				if got != want {
					t.Errorf("parent of %s = %q, want %q", dev, got, want)
				}
			}
			for dev, want := range tt.numa {
				if d := mustDevice(t, g, dev); d.NUMANode != want {
					t.Errorf("NUMA node of %s = %d, want %d", dev, d.NUMANode, want)
				}
			}
			for _, d := range g.Devices {
				if d.Kind == topology.KindBridge && d.Role == topology.RoleNone {
					t.Errorf("bridge %s has no role", d.BDF())
				}
				if d.HostBridge == nil {
					t.Errorf("%s has no host bridge", d.BDF())
				}
			}
		})
	}
}

func mustDevice(t *testing.T, g *topology.Graph, s string) *topology.Device {
	t.Helper()
	a, err := topology.ParseBDF(s)
	if err != nil {
		t.Fatal(err)
	}
	d := g.Device(a)
	if d == nil {
		t.Fatalf("%s missing", s)
	}
	return d
}

// TestDGX2Switches checks the PLX switch structure of the DGX-2: each V100
// sits below a downstream port of a 10b5:9781 switch.
func TestDGX2Switches(t *testing.T) {
	g := parseFile(t, corpus(t, "nvidiaDGX2.xml"))
	for _, d := range g.OfKind(topology.KindAccelerator) {
		p := d.Parent
		if p == nil || p.VendorID != 0x10b5 || p.DeviceID != 0x9781 || p.Role != topology.RoleDownstream {
			t.Errorf("%s: parent %v is not a PLX 9781 downstream port", d.BDF(), p)
		}
	}
}

// TestLink checks the GB/s to generation × width conversion.
func TestLink(t *testing.T) {
	tests := []struct {
		in       string
		gts      float64
		width    int
		ambig    bool
		rateOnly bool // several generations and widths of one data rate: the lowest taken
	}{
		{"63.02GB/s", 32, 16, false, false},
		{"63.015381", 32, 16, false, false},
		{"7.88GB/s", 8, 8, true, true}, // Gen3 x8 or Gen4 x4
		{"1.97", 8, 2, true, true},     // Gen3 x2 or Gen4 x1
		{"3.94", 8, 4, true, true},
		{"126.03", 0, 0, false, false}, // no x32
		{"60.50", 64, 8, false, false},
		{"2.00", 2.5, 8, true, true}, // Gen1 x8 or Gen2 x4
		{"0.50", 2.5, 2, true, true},
		{"0.20", 0, 0, false, false},
		{"abc", 0, 0, false, false},
		{"15.75", 8, 16, true, true},
		{"31.51", 16, 16, true, true},
		{"0.25GB/s", 2.5, 1, false, false},
		{"4.00", 2.5, 16, true, true},
		{"8.00", 5, 16, false, false},
		{"0.000000", 0, 0, false, false},
		{"", 0, 0, false, false},
	}
	for _, tt := range tests {
		b := &builder{g: &topology.Graph{}}
		l := b.link("x", tt.in)
		if l.CurrentGTs != tt.gts || l.CurrentWidth != tt.width || (len(b.ambig) > 0) != tt.ambig || l.RateOnly != tt.rateOnly {
			t.Errorf("link(%q) = %v %d (ambiguous %v, rate only %v), want %v %d (%v, %v)", tt.in, l.CurrentGTs, l.CurrentWidth, len(b.ambig) > 0, l.RateOnly, tt.gts, tt.width, tt.ambig, tt.rateOnly)
		}
	}
	if got, want := (topology.Link{CurrentGTs: 8, CurrentWidth: 16, RateOnly: true}).String(), "Gen3 x16 or Gen4 x8 or Gen5 x4"; got != want {
		t.Errorf("rate-only link reads %q, want %q", got, want)
	}
}

func ends(g *topology.Graph) map[string]bool {
	m := map[string]bool{}
	for _, k := range []topology.Kind{topology.KindAccelerator, topology.KindNIC} {
		for _, d := range g.OfKind(k) {
			m[d.BDF()] = true
		}
	}
	return m
}

// comparePairs checks that the hwloc graph labels every pair of
// accelerators and NICs both graphs see as the sysfs graph does. A graph
// without Broadcom switch subsystem IDs (console text) is held to the smi
// labels only, and must say so in Lacks.
func comparePairs(t *testing.T, hw, sys *topology.Graph, minPairs int) {
	t.Helper()
	a, b := ends(hw), ends(sys)
	want := map[[2]string]topology.Pair{}
	for _, p := range sys.Pairs() {
		want[[2]string{p.A.BDF(), p.B.BDF()}] = p
	}
	n := 0
	var diffs []string
	for _, p := range hw.Pairs() {
		if !a[p.A.BDF()] || !b[p.A.BDF()] || !a[p.B.BDF()] || !b[p.B.BDF()] {
			continue
		}
		w, ok := want[[2]string{p.A.BDF(), p.B.BDF()}]
		if !ok {
			continue
		}
		n++
		// A label may be marked uncertain where the form lacks what decides
		// it; it must never be a different confident one.
		if !p.LabelUncertain && p.SMI != w.SMI || !p.LabelUncertain && !p.NCCLUncertain && p.NCCL != w.NCCL {
			diffs = append(diffs, fmt.Sprintf("%s-%s: hwloc %s/%s, sysfs %s/%s", p.A.BDF(), p.B.BDF(), p.SMI, p.NCCL, w.SMI, w.NCCL))
		}
	}
	if n < minPairs {
		t.Errorf("only %d common pairs (hwloc ends %d, sysfs ends %d), want at least %d", n, len(a), len(b), minPairs)
	}
	for i, d := range diffs {
		if i == 5 {
			t.Errorf("... and %d more", len(diffs)-5)
			break
		}
		t.Error(d)
	}
}

func readSysfs(t *testing.T, path string) *topology.Graph {
	t.Helper()
	src, err := source.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	g, err := sysfs.Read(src.Root)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestSameAsSysfs compares hwloc's form of a capture with the sysfs reader
// on its tarball.
func TestSameAsSysfs(t *testing.T) {
	tests := []struct {
		hwloc, tarball string
		minPairs       int
	}{
		{"32intel64-2p8co2t+8ve.console", "32intel64-2p8co2t+8ve.tar.bz2", 66},
		{"32em64t-2n8c+dax+nvme+mic+dimms.xml", "32em64t-2n8c+dax+nvme+mic+dimms.tar.bz2", 3},
		{"40intel64-2g2n4c+pcilocality.xml", "40intel64-2g2n4c+pcilocality.tar.bz2", 6},
	}
	for _, tt := range tests {
		t.Run(tt.hwloc, func(t *testing.T) {
			hw := parseFile(t, corpus(t, tt.hwloc))
			sys := readSysfs(t, corpus(t, tt.tarball))
			comparePairs(t, hw, sys, tt.minPairs)
		})
	}
}

// TestLstopoFixtures runs lstopo on bundled sysfs fixtures and reads its
// XML (both formats) and console text (-v and without).
func TestLstopoFixtures(t *testing.T) {
	tool, err := exec.LookPath("lstopo-no-graphics")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("lstopo-no-graphics missing")
		}
		t.Skip("lstopo-no-graphics missing")
	}
	forms := []struct {
		name    string
		args    []string
		console bool
		exact   bool // labels must equal sysfs's
	}{
		{"xml-v2", []string{"--of", "xml"}, false, true},
		{"xml-v1", []string{"--of", "xml", "--export-xml-flags", "1"}, false, true},
		{"console-v", []string{"--of", "console", "-v"}, true, true},
		{"console", []string{"--of", "console"}, true, true},
	}
	for _, fx := range fixturetest.Names(t) {
		dir := fixturetest.Unpack(t, fx)
		sys := readSysfs(t, filepath.Join("..", "..", "fixtures", fx+".tar.gz"))
		for _, f := range forms {
			t.Run(fx+"/"+f.name, func(t *testing.T) {
				args := append([]string{"--input", dir}, f.args...)
				out, err := exec.Command(tool, append(args, "-")...).Output()
				if err != nil {
					t.Fatalf("%s %v: %v", tool, args, err)
				}
				var hw *topology.Graph
				if f.console {
					hw, err = ParseConsole(fx, out)
				} else {
					hw, err = ParseXML(fx, out)
				}
				if err != nil {
					t.Fatal(err)
				}
				if display, _ := hw.Unidentified(); len(ends(hw)) != len(ends(sys)) && display == 0 {
					t.Errorf("hwloc sees %d accelerators and NICs, sysfs %d", len(ends(hw)), len(ends(sys)))
				}
				if !f.console && hasLack(hw, "subsystem IDs of Broadcom") {
					t.Errorf("XML has subsystem IDs, yet Lacks says %q", hw.Lacks)
				}
				if f.exact {
					comparePairs(t, hw, sys, min(1, len(ends(sys))-1))
				}
				positional := 0
				for _, d := range hw.Devices {
					if d.Positional() != "" {
						positional++
						if d.Kind != topology.KindBridge || !strings.HasPrefix(d.BDF(), "bridge@line") {
							t.Errorf("positional %s is a %s", d.BDF(), d.Kind)
						}
					}
				}
				if f.name == "console" && hasBridges(sys) && (positional == 0 || !hasLack(hw, "bridge bus IDs")) {
					t.Errorf("console without -v: %d bridges kept by position, Lacks %q", positional, hw.Lacks)
				}
				if f.name != "console" && positional > 0 {
					t.Errorf("%s: %d bridges placed by position, yet the form names every bridge", f.name, positional)
				}
			})
		}
	}
}

func hasBridges(g *topology.Graph) bool {
	for _, d := range g.Devices {
		if d.Kind == topology.KindBridge && d.Role != topology.RoleNone {
			return true
		}
	}
	return false
}

func hasLack(g *topology.Graph, s string) bool {
	for _, l := range g.Lacks {
		if strings.Contains(l, s) {
			return true
		}
	}
	return false
}

// TestBadInput checks errors and warnings on broken input.
func TestBadInput(t *testing.T) {
	const smallXML = `<?xml version="1.0"?><topology version="2.0"><object type="Machine" os_index="0" nodeset="0x1">` +
		`<object type="Bridge" bridge_type="0-1" bridge_pci="0000:[00-01]">` +
		`<object type="PCIDev" pci_busid="0000:00:02.0" pci_type="0302 [10de:2330] [10de:16c1] a1"/></object></object></topology>`
	tests := []struct {
		name    string
		console bool
		in      string
		wantErr string // substring; "" = no error
		warn    string // substring of a warning when no error
	}{
		{"empty xml", false, "", "empty input", ""},
		{"blank console", true, "  \n\n", "empty input", ""},
		{"binary", false, "\x7fELF\x00\x01\x02", "binary data", ""},
		{"binary console", true, "\x00\x00\x00", "binary data", ""},
		{"not xml", false, "hello world", "not hwloc XML", ""},
		{"foreign xml", false, `<?xml version="1.0"?><system version="1"><cpu/></system>`, "is not hwloc's <topology>", ""},
		{"truncated xml", false, smallXML[:len(smallXML)/2], "truncated", ""},
		{"malformed xml", false, `<topology><object type="Machine"></objectx></topology>`, "malformed", ""},
		{"no pci", false, `<topology version="2.0"><object type="Machine" os_index="0"/></topology>`, "no PCI devices", ""},
		{"small xml", false, smallXML, "", ""},
		{"not console", true, "$ echo hi\nhi\n", "not lstopo console text", ""},
		{"console cut", true, "Machine (P#0 total=1GB)\n  Package L#0\n    NUMANode L#0 (P#0 1GB)\n    ...\n    HostBridge L#0 (buses=0000:[00-01])\n" +
			"          PCI L#0 (busid=0000:01:00.0 id=10de:2330 class=0302(3D) link=63.02GB/s)\n", "", "lines cut at line 4"},
		{"console no busid", true, "Machine\n  HostBridge\n    PCIBridge\n      PCI 10de:1094\n      PCI 03:00.0 (3D)\n", "", "without a bus ID"},
		{"console bad link", true, "Machine\n  HostBridge L#0 (buses=0000:[00-01])\n    PCI L#0 (busid=0000:00:02.0 id=10de:2330 class=0302(3D) link=abcGB/s)\n", "", "unreadable"},
		{"console duplicate below itself", true, "Machine\n  HostBridge L#0 (buses=0000:[00-01])\n    PCIBridge L#1 (busid=0000:00:01.0 id=8086:2030 class=0604(PCIBridge) buses=0000:[01-01])\n" +
			"      PCI L#0 (busid=0000:00:01.0 id=10de:2330 class=0302(3D))\n      PCI L#1 (busid=0000:01:00.0 id=10de:2330 class=0302(3D))\n", "", "listed twice"},
		{"console only pci ids", true, "Machine\n  HostBridge\n    PCI 10de:1094\n", "no PCI devices", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var g *topology.Graph
			var err error
			if tt.console {
				g, err = ParseConsole("in.txt", []byte(tt.in))
			} else {
				g, err = ParseXML("in.xml", []byte(tt.in))
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), "in.") || strings.Contains(err.Error(), "\n") {
					t.Fatalf("error = %v, want one line naming the input with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.warn != "" && !strings.Contains(fmt.Sprint(g.Warnings), tt.warn) {
				t.Errorf("warnings %v lack %q", g.Warnings, tt.warn)
			}
		})
	}
	if _, err := ParseXML("big.xml", make([]byte, maxInput+1)); err == nil || !strings.Contains(err.Error(), "over") && !strings.Contains(err.Error(), "binary") {
		t.Errorf("oversized input: %v", err)
	}
	if _, err := ParseXML("none.xml", []byte(`<topology/>`)); err == nil || errors.Is(err, topology.ErrNoPCI) {
		t.Errorf("objectless XML: %v", err)
	}
}

// TestDeep checks that deep nesting is refused, not overflowed.
func TestDeep(t *testing.T) {
	n := maxDepth + 10
	x := `<topology version="2.0">` + strings.Repeat(`<object type="Group">`, n) + strings.Repeat(`</object>`, n) + `</topology>`
	if _, err := ParseXML("deep.xml", []byte(x)); err == nil || !strings.Contains(err.Error(), "deep") {
		t.Errorf("deep XML: %v", err)
	}
	var sb strings.Builder
	for i := range n {
		sb.WriteString(strings.Repeat(" ", 2*i) + "PCIBridge\n")
	}
	if _, err := ParseConsole("deep.txt", []byte("Machine\n"+sb.String())); err == nil || !strings.Contains(err.Error(), "deep") {
		t.Errorf("deep console: %v", err)
	}
}

func seeds(f *testing.F, ext string) {
	files, _ := filepath.Glob(filepath.Join(corpusDir, "*"+ext))
	for _, p := range files {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
}

func FuzzParseXML(f *testing.F) {
	seeds(f, ".xml")
	f.Add([]byte(`<topology version="2.0"><object type="Machine"><object type="Bridge" bridge_type="0-1" bridge_pci="0000:[00-01]"><object type="PCIDev" pci_busid="0000:00:02.0" pci_type="0207 [15b3:1021] [15b3:0041] 00" pci_link_speed="63.02"><object type="OSDev" name="mlx5_0"/></object></object></object></topology>`))
	f.Add([]byte(`<topology><object type="Socket" nodeset="0xf...f"/></topology>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := ParseXML("fuzz.xml", data)
		if err == nil && g.CheckPairEnds() == nil { // the bound gdtopo itself labels pairs under
			g.Pairs()
		}
	})
}

func FuzzParseConsole(f *testing.F) {
	seeds(f, ".console")
	f.Add([]byte("Machine (2GB)\n  Package L#0\n    NUMANode L#0 (P#0 2GB)\n    HostBridge\n      PCIBridge\n        PCI 03:00.0 (3D)\n        ...\n        PCI 04:00.0 (InfiniBand)\n          Net \"ib0\"\n          OpenFabrics \"mlx5_0\"\n"))
	f.Add([]byte("HostBridge L#0 (buses=0000:[17-1e])\n  PCIBridge L#1 (busid=0000:17:00.0 id=8086:2030 class=0604(PCIBridge) link=15.75GB/s buses=0000:[18-1e])\n    PCI L#0 (busid=0000:18:00.0 id=15b3:1013 class=0207(InfiniBand) link=(15.75GB/s)\n"))
	f.Add([]byte("Machine\n  HostBridge\n    2 x { PCI 00:02.0-03.0 (3D) }\n    3 x { PCI L#4-6 (busid=0000:00:04.0-07.0 class=0302(3D)) }\n    9 x { PCI ff:1f.7-00.0 (3D) }\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := ParseConsole("fuzz.txt", data)
		if err == nil && g.CheckPairEnds() == nil {
			g.Pairs()
		}
	})
}

// TestCollapsedConsole reads lstopo's folded lines: a range that holds
// exactly the folded count gives every address; otherwise only its ends
// are kept, with a warning.
func TestCollapsedConsole(t *testing.T) {
	in := "Machine\n  HostBridge\n    2 x { PCI 00:02.0-03.0 (3D) }\n    3 x { PCI L#4-6 (busid=0000:00:04.0-07.0 id=10de:20b2 class=0302(3D)) }\n"
	g, err := ParseConsole("in.txt", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range g.OfKind(topology.KindAccelerator) {
		got = append(got, d.BDF())
	}
	if want := "[0000:00:02.0 0000:00:03.0 0000:00:04.0 0000:00:07.0]"; fmt.Sprint(got) != want {
		t.Errorf("accelerators %v, want %s", got, want)
	}
	if len(g.Warnings) == 0 || !strings.Contains(g.Warnings[0].Message, "not shown") {
		t.Errorf("warnings %v: want one on the 3 folded into 04.0-07.0", g.Warnings)
	}
}

// TestParseXMLBounds: past MaxXMLTags or MaxXMLSize the input is refused in
// one line naming it, before any of it is decoded.
func TestParseXMLBounds(t *testing.T) {
	head := `<topology version="2.0"><object type="Machine">`
	tags := head + strings.Repeat("<>", MaxXMLTags)
	size := head + `<info name="x" value="` + strings.Repeat("f", MaxXMLSize) + `"/></object></topology>`
	for _, tc := range []struct{ name, data, want string }{
		{"tags.xml", tags, "tags"},
		{"size.xml", size, "MiB"},
	} {
		data := []byte(tc.data)
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		_, err := ParseXML(tc.name, data)
		runtime.ReadMemStats(&m1)
		if err == nil || !strings.HasPrefix(err.Error(), tc.name+": ") || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: err %v; want one line naming it and saying %q", tc.name, err, tc.want)
		}
		if grew := m1.TotalAlloc - m0.TotalAlloc; grew > 64<<10 {
			t.Errorf("%s: refusing allocated %d KiB; want under 64 KiB", tc.name, grew>>10)
		}
	}
}

// TestArchitecture reads the Machine's Architecture info (uname's machine)
// into NCCL's name for it, and leaves it unknown where hwloc wrote none.
func TestArchitecture(t *testing.T) {
	for file, want := range map[string]string{
		"power8gpudistances.xml":           "ppc64", // ppc64le
		"24em64t-2n6c2t-pci.xml":           "x86_64",
		"40intel64-2g2n4c+pcilocality.xml": "",
	} {
		if got := parseFile(t, corpus(t, file)).System.CPUArch; got != want {
			t.Errorf("%s: arch %q, want %q", file, got, want)
		}
	}
}

// TestMain lets the tests that run lstopo share unpacked fixtures.
func TestMain(m *testing.M) { os.Exit(fixturetest.Run(m)) }

// TestConsoleCutPUs: lstopo text with PUs left out at "..." (as pasted in
// issues) is partial, and gives no CPU count or CPU affinity, which would
// be those of the PUs left in; the NUMA placement, from the nesting,
// stays. The same text whole gives both.
func TestConsoleCutPUs(t *testing.T) {
	pkg := func(p int, cut bool) string {
		s := fmt.Sprintf("  Package L#%d\n    NUMANode L#%d (P#%d 64GB)\n", p, p, p)
		for c := range 4 {
			if cut && c > 0 && c < 3 {
				if c == 1 {
					s += "    ...\n"
				}
				continue
			}
			s += fmt.Sprintf("    Core L#%d\n      PU L#%d (P#%d)\n", 4*p+c, 4*p+c, 4*p+c)
		}
		return s + fmt.Sprintf("    HostBridge\n      PCI %02x:00.0 (3D)\n", 0x10*(p+1))
	}
	for _, cut := range []bool{false, true} {
		g, err := ParseConsole("in.txt", []byte("Machine (128GB total)\n"+pkg(0, cut)+pkg(1, cut)))
		if err != nil {
			t.Fatal(err)
		}
		accs := g.OfKind(topology.KindAccelerator)
		if len(accs) != 2 {
			t.Fatalf("cut %v: %d accelerators, want 2", cut, len(accs))
		}
		wantCPUs, wantLocal, wantPartial := 8, "4-7", false
		if cut {
			wantCPUs, wantLocal, wantPartial = 0, "", true
		}
		if g.System.LogicalCPUs != wantCPUs || accs[1].LocalCPUs != wantLocal || (g.Partial != "") != wantPartial {
			t.Errorf("cut %v: %d logical CPUs, local CPUs %q, partial %q; want %d, %q, partial %v",
				cut, g.System.LogicalCPUs, accs[1].LocalCPUs, g.Partial, wantCPUs, wantLocal, wantPartial)
		}
		if accs[0].NUMANode != 0 || accs[1].NUMANode != 1 {
			t.Errorf("cut %v: NUMA nodes %d, %d, want 0, 1", cut, accs[0].NUMANode, accs[1].NUMANode)
		}
	}
}

// TestIOFiltered: the DGX-2 export holds its 16 GPUs but none of its
// ConnectX-5 NICs or NVMe drives, which hwloc's default filter keeps: it
// is partial, so it cannot say the machine has no NICs. Exports that hold
// a network or storage controller, or no accelerator, are not.
func TestIOFiltered(t *testing.T) {
	for name, want := range map[string]bool{
		"nvidiaDGX2.xml": true, "power8gpudistances.xml": true,
		"32em64t-2n8c2t-pci-wholeio.xml": false, "24em64t-2n6c2t-pci.xml": false, "40intel64-2g2n4c+pcilocality.xml": false,
	} {
		g := parseFile(t, corpus(t, name))
		if got := strings.Contains(g.Partial, "lstopo --whole-io"); got != want {
			t.Errorf("%s: partial %q, want I/O filtered %v", name, g.Partial, want)
		}
	}
}
