package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gdtopo/gdtopo/fixtures"
	"github.com/gdtopo/gdtopo/fixtures/fixturetest"
)

// fleetPlant is one deliberate difference a node of the test fleet has.
type fleetPlant string

const (
	plantNone     fleetPlant = ""
	plantNICx8    fleetPlant = "nic-x8"      // NIC 1 trained at x8 of x16
	plantNoNIC    fleetPlant = "nic-missing" // NIC 3 gone
	plantACS      fleetPlant = "acs-on"      // ACS redirect on the switch downstream ports
	plantRenamed  fleetPlant = "hca-renamed" // mlx5_0 and mlx5_1 swapped
	plantGPUMoved fleetPlant = "gpu-moved"   // GPU 1 and NIC 1 swap slots
)

// fleetMachine is fixtures' clean two-socket HGX-style test server (as
// fixtures.FaultVariant builds it) with plant p.
func fleetMachine(p fleetPlant) fixtures.Machine {
	nic := func() *fixtures.Dev { return fixtures.IB(fixtures.ConnectX7, fixtures.NDR400).Payload(0, 4096) }
	nics := []*fixtures.Dev{nic(), nic(), nic(), nic()}
	gpus := []*fixtures.Dev{fixtures.GPU(fixtures.H100SXM5), fixtures.GPU(fixtures.H100SXM5), fixtures.GPU(fixtures.H100SXM5), fixtures.GPU(fixtures.H100SXM5)}
	switch p {
	case plantNICx8:
		nics[1].Trained(fixtures.Gen5, 8)
	case plantRenamed:
		nics[0].Named("mlx5_1", "")
		nics[1].Named("mlx5_0", "")
	}
	stack := func(bus, node int, ends ...*fixtures.Dev) fixtures.Root {
		var ports []*fixtures.Dev
		for _, e := range ends {
			d := fixtures.DSP(e)
			if p == plantACS {
				d.ACS(fixtures.ACSKernelDefault)
			}
			ports = append(ports, d)
		}
		return fixtures.HostBridge(bus, node,
			fixtures.Endpoint(fixtures.SPRMemMapVTd).At(0, 0),
			fixtures.RootPort(fixtures.SPRRootPort, fixtures.Switch(fixtures.PEX89104, ports...)).At(1, 0))
	}
	first := []*fixtures.Dev{gpus[0], nics[0], gpus[1], nics[1]}
	second := []*fixtures.Dev{gpus[2], nics[2], gpus[3], nics[3]}
	switch p {
	case plantNoNIC:
		second = second[:3]
	case plantGPUMoved:
		first = []*fixtures.Dev{gpus[0], nics[0], nics[1], gpus[1]}
	}
	return fixtures.Machine{
		Name: "fleet-" + string(p), Hostname: "gpu-node", Kernel: "6.8.0-45-generic",
		Cmdline: "BOOT_IMAGE=/vmlinuz-6.8.0-45-generic root=/dev/nvme0n1p2 ro intel_iommu=on iommu=pt",
		CPU:     fixtures.XeonPlatinum8480, Sockets: 2, NUMAPerSocket: 1, CoresPerSocket: 4, Threads: 2,
		IOMMU:        &fixtures.IOMMU{Kind: fixtures.IntelVTd, GroupType: "identity"},
		NvidiaDriver: "550.90.07", PeerMem: true,
		Roots: []fixtures.Root{stack(0x15, 0, first...), stack(0x97, 1, second...)},
	}
}

// fleetNode is a line of fleet -o jsonl.
type fleetNode struct {
	Source      string
	Group       int
	Alike       bool
	Reference   string
	Differences []struct {
		What, Device, Alias, Kind, NIC, Code, Majority, Node string
		NICAlias                                             string `json:"nic_alias"`
		Port                                                 string
		Devices                                              []string
		Worse                                                bool
	}
	Error string
}

// fleetLines decodes fleet -o jsonl's lines.
func fleetLines(t *testing.T, out string) []fleetNode {
	t.Helper()
	var lines []fleetNode
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		var n fleetNode
		if err := json.Unmarshal([]byte(l), &n); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, n)
	}
	return lines
}

// TestFleetFindsThePlantedNodes builds a fleet of 20 snapshots, five of
// them with one planted difference each, and checks that fleet names
// exactly those five and exactly their differences.
func TestFleetFindsThePlantedNodes(t *testing.T) {
	t.Parallel()
	dir := fixturetest.TempDir(t)
	clean := filepath.Join(dir, "clean")
	if err := fixtures.Write(clean, fleetMachine(plantNone)); err != nil {
		t.Fatal(err)
	}
	archive := filepath.Join(dir, "clean.tar.gz")
	if code, _, errb := run("snapshot", clean, archive); code != 0 {
		t.Fatalf("snapshot: %d %s", code, errb)
	}
	data, err := os.ReadFile(archive)
	if err != nil {
		t.Fatal(err)
	}
	planted := map[int]fleetPlant{3: plantNICx8, 7: plantNoNIC, 11: plantACS, 13: plantRenamed, 17: plantGPUMoved}
	fleetDir := filepath.Join(dir, "fleet")
	if err := os.Mkdir(fleetDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		name := filepath.Join(fleetDir, fmt.Sprintf("node-%02d", i))
		if p, ok := planted[i]; ok {
			if err := fixtures.Write(name, fleetMachine(p)); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(name+".tar.gz", data, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	code, out, errb := run("fleet", filepath.Join(fleetDir, "node-*"), "-o", "jsonl")
	if code != ExitFindings {
		t.Fatalf("fleet: exit %d, want 3 (nodes differ); stderr: %s", code, errb)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 20 {
		t.Fatalf("fleet -o jsonl wrote %d lines, want 20:\n%s", len(lines), out)
	}
	got := map[fleetPlant][]string{}
	for i, l := range lines {
		var n fleetNode
		if err := json.Unmarshal([]byte(l), &n); err != nil {
			t.Fatalf("line %d: %v", i, err)
		}
		p, isPlanted := planted[i]
		if !strings.Contains(n.Source, fmt.Sprintf("node-%02d", i)) {
			t.Fatalf("line %d is %s: not in the order of the sources", i, n.Source)
		}
		if !isPlanted {
			if !n.Alike || n.Group != 1 || len(n.Differences) != 0 {
				t.Errorf("%s: a clean node reported as differing: %s", n.Source, l)
			}
			continue
		}
		if n.Alike || len(n.Differences) == 0 {
			t.Errorf("%s (%s): not found: %s", n.Source, p, l)
		}
		for _, d := range n.Differences {
			s := d.What
			for _, f := range []string{d.Kind, d.Device, d.Code} {
				if f != "" {
					s += " " + f
				}
			}
			if d.NIC != "" {
				s += "-" + d.NIC
			}
			if len(d.Devices) > 0 {
				s += " on " + strings.Join(d.Devices, ",")
			}
			got[p] = append(got[p], s+": "+d.Majority+" -> "+d.Node)
		}
	}
	// The planted differences, by the clean machine's addresses: socket 0's
	// switch (downstream ports 17:00.0-17:03.0) holds GPU0 18:00.0, NIC0
	// 19:00.0 (mlx5_0), GPU1 1a:00.0, NIC1 1b:00.0 (mlx5_1); socket 1's
	// (99:00.0-99:03.0) GPU2 9a:00.0, NIC2 9b:00.0, GPU3 9c:00.0, NIC3
	// 9d:00.0. The throughput changes are the advisor's, for the pairs
	// through the changed device; with the NIC gone, GPU2 and GPU3 share
	// NIC2. Throughput is the advisor's lower direction: with ACS redirect the
	// NIC reads GPU memory through the root complex (0.43, read_factor_min,
	// of the 400 × 5/6 = 333.3 Gb/s write); across sockets sys_p2p_gbps (92.3) caps it.
	acsPorts := []string{"17:00.0", "17:01.0", "17:02.0", "17:03.0", "99:00.0", "99:01.0", "99:02.0", "99:03.0"}
	var acs []string
	for _, port := range acsPorts {
		acs = append(acs, "acs bridge 0000:"+port+": off -> redirect")
	}
	for _, pair := range []string{"18:00.0-0000:19:00.0", "18:00.0-0000:1b:00.0", "1a:00.0-0000:19:00.0", "1a:00.0-0000:1b:00.0",
		"9a:00.0-0000:9b:00.0", "9a:00.0-0000:9d:00.0", "9c:00.0-0000:9b:00.0", "9c:00.0-0000:9d:00.0"} {
		acs = append(acs, "throughput 0000:"+pair+": 400.0 Gb/s -> 143.3 Gb/s")
	}
	acs = append(acs, "finding_added acs-redirect on 0000:"+strings.Join(acsPorts, ",0000:")+":  -> critical")
	want := map[fleetPlant][]string{
		plantACS: acs,
		plantRenamed: {
			"renamed nic 0000:19:00.0: mlx5_0 ibp25s0 -> mlx5_1 ibp25s0",
			"renamed nic 0000:1b:00.0: mlx5_1 ibp27s0 -> mlx5_0 ibp27s0",
		},
		plantGPUMoved: {
			"moved accelerator 0000:1a:00.0: 0000:1a:00.0 -> 0000:1b:00.0",
			"moved nic 0000:1b:00.0: 0000:1b:00.0 -> 0000:1a:00.0",
		},
		plantNICx8: {
			"link nic 0000:1b:00.0: x16 at 32 GT/s -> x8 at 32 GT/s",
			"throughput 0000:18:00.0-0000:1b:00.0: 400.0 Gb/s -> 230.5 Gb/s",
			"throughput 0000:1a:00.0-0000:1b:00.0: 400.0 Gb/s -> 230.5 Gb/s",
			"throughput 0000:9a:00.0-0000:1b:00.0: 92.3 Gb/s -> 82.6 Gb/s",
			"throughput 0000:9c:00.0-0000:1b:00.0: 92.3 Gb/s -> 82.6 Gb/s",
			"finding_added link-width-degraded on 0000:17:03.0,0000:1b:00.0:  -> warning",
		},
		plantNoNIC: {
			"missing bridge 0000:99:03.0: 1000:c030 under 0000:98:00.0 -> ",
			"missing nic 0000:9d:00.0: 15b3:1021 NVIDIA ConnectX-7 under 0000:99:03.0 -> ",
			"finding_added nic-shared on 0000:9a:00.0,0000:9b:00.0,0000:9c:00.0:  -> info",
		},
	}
	if len(got) != len(want) {
		t.Errorf("differences found for %d plants, want %d", len(got), len(want))
	}
	for p, ds := range want {
		if !slices.Equal(got[p], ds) {
			t.Errorf("%s: differences\n%s\nwant\n%s", p, strings.Join(got[p], "\n"), strings.Join(ds, "\n"))
		}
	}

	// The moved GPU and the missing NIC make groups of their own; the text
	// output names the odd nodes, and -o json
	// agrees with the lines.
	code, text, _ := run("fleet", filepath.Join(fleetDir, "node-*"))
	if code != ExitFindings || !strings.Contains(text, "20 sources: 3 groups, 5 unlike the majority, 0 unreadable") {
		t.Errorf("fleet text: exit %d, output:\n%s", code, text)
	}
	var doc struct {
		Differing int
		Groups    []struct {
			Group, Sources, Alike int
			Variants              []struct{ Sources []string }
		}
	}
	_, js, _ := run("fleet", filepath.Join(fleetDir, "node-*"), "-o", "json")
	if err := json.Unmarshal([]byte(js), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Differing != 5 || len(doc.Groups) != 3 || doc.Groups[0].Sources != 18 || doc.Groups[0].Alike != 15 || len(doc.Groups[0].Variants) != 3 {
		t.Errorf("fleet -o json: %s", js[:min(len(js), 2000)])
	}
}

// TestFleetUnreadable: a source that cannot be read is named on its line
// and on standard error, the rest are grouped, and the exit status is 1
// when no readable machine differs.
func TestFleetUnreadable(t *testing.T) {
	good := fx("hgx-h100")
	missing := filepath.Join(t.TempDir(), "gone.tar.gz")
	code, out, errb := run("fleet", good, missing, good, "-o", "jsonl")
	if code != ExitError || !strings.Contains(errb, "gone.tar.gz") {
		t.Fatalf("exit %d, stderr %q; want 1 and the missing source named", code, errb)
	}
	lines := fleetLines(t, out)
	if len(lines) != 3 || !lines[0].Alike || !lines[2].Alike || lines[1].Error == "" || lines[1].Group != 0 {
		t.Errorf("lines %+v", lines)
	}
	if code, _, _ := run("fleet"); code != ExitUsage {
		t.Errorf("fleet without a source: exit %d, want 2", code)
	}
	// One source: its counts in the singular.
	if code, out, _ := run("fleet", good); code != ExitOK || !strings.HasPrefix(out, "1 source: 1 group, 0 unlike the majority, 0 unreadable\n") {
		t.Errorf("fleet of one source: exit %d, output %q", code, out)
	}
}

// TestFleetBond: on a copy of fixtures/roce-lag-bond whose first ConnectX
// netdev left its bond (no master link), fleet names that NIC, and only
// it, as out of the majority's bond, worse, with exit status 3; every
// accelerator's throughput to it falls with the bond's second port.
func TestFleetBond(t *testing.T) {
	t.Parallel()
	dir := fixturetest.TempDir(t)
	var sources []string
	for _, name := range []string{"a", "b", "c"} {
		to := filepath.Join(dir, name)
		if err := fixturetest.ExtractFile(fx("roce-lag-bond"), to); err != nil {
			t.Fatal(err)
		}
		sources = append(sources, to)
	}
	if err := os.Remove(filepath.Join(dir, "c", "sys/devices/pci0000:15/0000:15:03.0/0000:17:00.0/net/enp23s0f0np0/master")); err != nil {
		t.Fatal(err)
	}
	code, out, errb := run(append([]string{"fleet", "-o", "jsonl"}, sources...)...)
	if code != ExitFindings {
		t.Fatalf("fleet: exit %d, want 3; stderr: %s", code, errb)
	}
	var got []string
	for _, n := range fleetLines(t, out) {
		for _, d := range n.Differences {
			got = append(got, fmt.Sprintf("%s: %s %s %s: %q -> %q worse=%v", filepath.Base(n.Source), d.What, d.Kind, d.Device, d.Majority, d.Node, d.Worse))
		}
	}
	want := []string{`c: bond nic 0000:17:00.0: "bond0" -> "" worse=true`,
		`c: throughput  0000:16:00.0: "143.3 Gb/s" -> "71.7 Gb/s" worse=true`, `c: throughput  0000:38:00.0: "143.3 Gb/s" -> "71.7 Gb/s" worse=true`,
		`c: throughput  0000:98:00.0: "92.3 Gb/s" -> "71.7 Gb/s" worse=true`, `c: throughput  0000:b8:00.0: "92.3 Gb/s" -> "71.7 Gb/s" worse=true`}
	if !slices.Equal(got, want) {
		t.Errorf("differences %q, want %q", got, want)
	}
}
