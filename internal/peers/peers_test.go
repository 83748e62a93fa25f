package peers

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// corpusDir is the shared corpus, next to the repository checkout
// (internal/peers -> repo root -> ../shared/corpus).
var corpusDir = filepath.Join("..", "..", "..", "shared", "corpus")

const veCapture = "32intel64-2p8co2t+8ve"

// skipOrFail skips outside CI and fails in CI (CI=true provides the tools
// and the corpus).
func skipOrFail(t *testing.T, format string, args ...any) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf(format, args...)
	}
	t.Skipf(format, args...)
}

func check(t *testing.T, err error) {
	t.Helper()
	if errors.Is(err, ErrToolMissing) {
		skipOrFail(t, "%v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// extractCapture unpacks the hwloc test-suite capture of a Supermicro
// SYS-4029GP-TRT2 into a temporary directory and returns its root.
func extractCapture(t *testing.T) string {
	t.Helper()
	tarball := filepath.Join(corpusDir, "hwloc", veCapture+".tar.bz2")
	if _, err := os.Stat(tarball); err != nil {
		skipOrFail(t, "corpus capture not available: %v", err)
	}
	if _, err := exec.LookPath("tar"); err != nil {
		skipOrFail(t, "tar not installed: %v", err)
	}
	dir := t.TempDir()
	out, err := exec.Command("tar", "-xjf", tarball, "-C", dir).CombinedOutput()
	if err != nil {
		skipOrFail(t, "tar -xjf %s: %v: %s", tarball, err, out)
	}
	return filepath.Join(dir, veCapture)
}

// consoleDevice is a PCI object of an lstopo console dump.
type consoleDevice struct {
	Device
	HostBridge string
	Package    string
}

var (
	consoleBusID   = regexp.MustCompile(`busid=([0-9a-f:.]+) id=([0-9a-f]{4}):([0-9a-f]{4}) class=([0-9a-f]{4})`)
	consoleHB      = regexp.MustCompile(`^HostBridge L#\d+ \(buses=(\S+)\)`)
	consolePackage = regexp.MustCompile(`^Package L#\d+ \(P#(\d+)`)
)

// parseConsole reads the PCI part of `lstopo -v` console output, taking
// parents from the indentation.
func parseConsole(t *testing.T, path string) map[string]consoleDevice {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		skipOrFail(t, "corpus console not available: %v", err)
	}
	defer f.Close()
	type open struct {
		indent int
		busid  string // "" for a host bridge
	}
	var stack []open
	devs := map[string]consoleDevice{}
	var hb, pkg string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	for sc.Scan() {
		line := sc.Text()
		body := strings.TrimLeft(line, " ")
		indent := len(line) - len(body)
		for len(stack) > 0 && stack[len(stack)-1].indent >= indent {
			stack = stack[:len(stack)-1]
		}
		if m := consolePackage.FindStringSubmatch(body); m != nil {
			pkg = "Package:" + m[1]
			stack = nil
			continue
		}
		if m := consoleHB.FindStringSubmatch(body); m != nil {
			hb = m[1]
			stack = []open{{indent: indent}}
			continue
		}
		m := consoleBusID.FindStringSubmatch(body)
		if m == nil || len(stack) == 0 {
			continue
		}
		ven, _ := strconv.ParseUint(m[2], 16, 16)
		dev, _ := strconv.ParseUint(m[3], 16, 16)
		class, _ := strconv.ParseUint(m[4], 16, 16)
		devs[m[1]] = consoleDevice{
			Device:     Device{BDF: m[1], Parent: stack[len(stack)-1].busid, VendorID: uint16(ven), DeviceID: uint16(dev), Class: uint16(class)},
			HostBridge: hb, Package: pkg,
		}
		stack = append(stack, open{indent: indent, busid: m[1]})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(devs) == 0 {
		t.Fatalf("no PCI objects in %s", path)
	}
	return devs
}

// TestCorpusCapture runs both tools on a real hwloc-gather-topology capture
// and holds them against each other and against hwloc's recorded console.
func TestCorpusCapture(t *testing.T) {
	dir := extractCapture(t)
	ls, err := Lspci(dir)
	check(t, err)
	hw, err := Lstopo(dir)
	check(t, err)

	// lspci and lstopo agree on every function both report.
	both := 0
	for bdf, l := range ls {
		h, ok := hw[bdf]
		if !ok {
			continue
		}
		both++
		if l != h.Device {
			t.Errorf("%s: lspci says %+v, lstopo says %+v", bdf, l, h.Device)
		}
	}
	if both != len(ls) || both != len(hw) {
		t.Errorf("lspci lists %d functions, lstopo %d, %d in common", len(ls), len(hw), both)
	}

	// lstopo agrees with the console output hwloc's test suite recorded.
	console := parseConsole(t, filepath.Join(corpusDir, "hwloc", veCapture+".console"))
	for bdf, c := range console {
		h, ok := hw[bdf]
		if !ok {
			t.Errorf("%s: in the recorded console, not reported by lstopo", bdf)
			continue
		}
		if h.Device != c.Device {
			t.Errorf("%s: lstopo says %+v, recorded console %+v", bdf, h.Device, c.Device)
		}
		if h.HostBridge != c.HostBridge || h.Locality != c.Package {
			t.Errorf("%s: lstopo places it under %s in %s, recorded console under %s in %s", bdf, h.HostBridge, h.Locality, c.HostBridge, c.Package)
		}
	}
	if len(console) != len(hw) {
		t.Errorf("recorded console has %d PCI objects, lstopo %d", len(console), len(hw))
	}

	// A few busids spelled out.
	for _, tc := range []struct {
		bdf, parent, hostBridge string
		vendor, device, class   uint16
	}{
		{"0000:1a:00.0", "0000:19:04.0", "0000:[17-1e]", 0x15b3, 0x1013, 0x0207}, // ConnectX-4 behind the first PLX switch
		{"0000:19:04.0", "0000:18:00.0", "0000:[17-1e]", 0x10b5, 0x9797, 0x0604}, // PLX downstream port
		{"0000:17:00.0", "", "0000:[17-1e]", 0x8086, 0x2030, 0x0604},             // root port on the root bus
		{"0000:3e:00.0", "0000:3c:08.0", "0000:[3a-41]", 0x15b3, 0x1013, 0x0207},
		{"0000:60:00.1", "0000:5e:00.0", "0000:[5d-60]", 0x8086, 0x37d2, 0x0200}, // bus 5f is not in the capture
	} {
		want := Device{BDF: tc.bdf, Parent: tc.parent, VendorID: tc.vendor, DeviceID: tc.device, Class: tc.class}
		if got := ls[tc.bdf]; got != want {
			t.Errorf("lspci %s = %+v, want %+v", tc.bdf, got, want)
		}
		got := hw[tc.bdf]
		if got.Device != want || got.HostBridge != tc.hostBridge || got.Locality != "Package:0" {
			t.Errorf("lstopo %s = %+v under %s in %s, want %+v under %s in Package:0", tc.bdf, got.Device, got.HostBridge, got.Locality, want, tc.hostBridge)
		}
	}
	if got := hw["0000:1b:00.0"].OSDevices; fmt.Sprint(got) != "[ve0]" {
		t.Errorf("lstopo 0000:1b:00.0 OS devices %v, want [ve0]", got)
	}
	if got := hw["0000:60:00.0"]; fmt.Sprint(got.NUMANodes) != "[0]" || len(got.CPUs) != 16 {
		t.Errorf("lstopo 0000:60:00.0 local NUMA nodes %v and %d CPUs, want [0] and 16", got.NUMANodes, len(got.CPUs))
	}
}

func TestToolMissing(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	dir := "/nonexistent/tree"
	for name, f := range map[string]func(string) error{
		LspciTool:  func(d string) error { _, err := Lspci(d); return err },
		LstopoTool: func(d string) error { _, err := Lstopo(d); return err },
	} {
		err := f(dir)
		if !errors.Is(err, ErrToolMissing) || !errors.Is(err, exec.ErrNotFound) {
			t.Errorf("%s with an empty PATH: err = %v, want ErrToolMissing and exec.ErrNotFound", name, err)
			continue
		}
		if !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), dir) {
			t.Errorf("%s error %q does not name the tool and the tree", name, err)
		}
	}
}

func TestToolFailureNamesToolAndDir(t *testing.T) {
	if _, err := exec.LookPath(LstopoTool); err != nil {
		skipOrFail(t, "%s not installed", LstopoTool)
	}
	dir := t.TempDir() // no proc/: not a file-system root for hwloc
	_, err := Lstopo(dir)
	if err == nil || errors.Is(err, ErrToolMissing) || !strings.Contains(err.Error(), LstopoTool) || !strings.Contains(err.Error(), dir) {
		t.Errorf("lstopo on an empty directory: err = %v, want a failure naming the tool and %s", err, dir)
	}
}

func TestParseLspci(t *testing.T) {
	out := `0000:00:00.0 Host bridge [0600]: Advanced Micro Devices, Inc. [AMD] Starship/Matisse Root Complex [1022:1480]
0000:00:01.1 PCI bridge [0604]: Advanced Micro Devices, Inc. [AMD] Starship/Matisse GPP Bridge [1022:1483] (prog-if 00 [Normal decode])
0000:00:01.1/01:00.0 PCI bridge [0604]: Broadcom / LSI PEX890xx PCIe Gen 5 Switch [1000:c030] (rev b0)
0000:00:01.1/01:00.0/02:00.0/03:00.0 3D controller [0302]: NVIDIA Corporation GH100[H100 SXM5 80GB] [10de:2330] (rev a1)
0001:00:00.0/01:00.0 Class [ff00]: Device [1234:5678]
`
	got, err := ParseLspci([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Device{
		"0000:00:00.0": {BDF: "0000:00:00.0", VendorID: 0x1022, DeviceID: 0x1480, Class: 0x0600},
		"0000:00:01.1": {BDF: "0000:00:01.1", VendorID: 0x1022, DeviceID: 0x1483, Class: 0x0604},
		"0000:01:00.0": {BDF: "0000:01:00.0", Parent: "0000:00:01.1", VendorID: 0x1000, DeviceID: 0xc030, Class: 0x0604},
		"0000:03:00.0": {BDF: "0000:03:00.0", Parent: "0000:02:00.0", VendorID: 0x10de, DeviceID: 0x2330, Class: 0x0302},
		"0001:01:00.0": {BDF: "0001:01:00.0", Parent: "0001:00:00.0", VendorID: 0x1234, DeviceID: 0x5678, Class: 0xff00},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("ParseLspci:\n got %v\nwant %v", got, want)
	}
	for _, bad := range []string{"00:00.0 Host bridge [0600]: X [1022:1480]\n", "garbage\n", "0000:00:00.0 Host bridge [0600]: no ids\n"} {
		if _, err := ParseLspci([]byte(bad)); err == nil {
			t.Errorf("ParseLspci(%q) succeeded, want an error", bad)
		}
	}
}

func TestParseHwlocXML(t *testing.T) {
	xml := `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE topology SYSTEM "hwloc2.dtd">
<topology version="2.0">
  <object type="Machine" os_index="0" cpuset="0x000000ff" nodeset="0x00000003">
    <object type="Package" os_index="1" cpuset="0x000000f0" nodeset="0x00000002">
      <object type="NUMANode" os_index="1" cpuset="0x000000f0" nodeset="0x00000002"/>
      <object type="Bridge" bridge_type="0-1" depth="0" bridge_pci="0000:[80-82]">
        <object type="PCIDev" pci_busid="0000:80:00.0" pci_type="0600 [1022:14a4] [1022:14a4] 01" pci_link_speed="0.000000"/>
        <object type="Bridge" bridge_type="1-1" depth="1" bridge_pci="0000:[81-82]" pci_busid="0000:80:01.1" pci_type="0604 [1022:14ab] [1022:1453] 01" pci_link_speed="63.015385">
          <object type="PCIDev" pci_busid="0000:81:00.0" pci_type="0207 [15b3:1021] [15b3:0023] 00" pci_link_speed="63.015385">
            <object type="OSDev" name="ibp129s0" osdev_type="2"/>
            <object type="OSDev" name="mlx5_0" osdev_type="3"/>
          </object>
        </object>
      </object>
    </object>
  </object>
</topology>
`
	got, err := ParseHwlocXML([]byte(xml))
	if err != nil {
		t.Fatal(err)
	}
	nic := got["0000:81:00.0"]
	want := HwlocDevice{
		Device:     Device{BDF: "0000:81:00.0", Parent: "0000:80:01.1", VendorID: 0x15b3, DeviceID: 0x1021, Class: 0x0207},
		HostBridge: "0000:[80-82]", Locality: "Package:1", NUMANodes: []int{1}, CPUs: []int{4, 5, 6, 7},
		OSDevices: []string{"ibp129s0", "mlx5_0"}, LinkGBps: 63.015385,
	}
	if fmt.Sprintf("%+v", nic) != fmt.Sprintf("%+v", want) {
		t.Errorf("NIC:\n got %+v\nwant %+v", nic, want)
	}
	if len(got) != 3 || got["0000:80:00.0"].Parent != "" || got["0000:80:01.1"].Class != 0x0604 {
		t.Errorf("ParseHwlocXML: %+v", got)
	}
}

func TestParseBitmap(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string
	}{
		{"", "[]"},
		{"0x00000003", "[0 1]"},
		{"0x00ff00ff", "[0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23]"},
		{"0x00000001,0x80000000", "[31 32]"},
	} {
		got, err := ParseBitmap(tc.in)
		if err != nil || fmt.Sprint(got) != tc.want {
			t.Errorf("ParseBitmap(%q) = %v, %v; want %s", tc.in, got, err, tc.want)
		}
	}
	if _, err := ParseBitmap("0xf...f,0x1"); err == nil {
		t.Error("ParseBitmap accepted an infinite bitmap")
	}
}
