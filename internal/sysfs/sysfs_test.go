package sysfs

import (
	"errors"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/gdtopo/gdtopo/topology"
)

// memTree builds an in-memory sysfs: files by path, and links by path to
// target.
type memTree fstest.MapFS

func (m memTree) file(p, data string) { m[p] = &fstest.MapFile{Data: []byte(data), Mode: 0o444} }
func (m memTree) link(p, target string) {
	m[p] = &fstest.MapFile{Data: []byte(target), Mode: fs.ModeSymlink | 0o777}
}

// pcieConfig returns a 256-byte config space with a PCIe capability of the
// given port type and link (speed code, width) at 0x40.
func pcieConfig(vendor, device uint16, class uint32, headerType byte, portType byte, speed, width int) string {
	b := make([]byte, 256)
	b[0], b[1], b[2], b[3] = byte(vendor), byte(vendor>>8), byte(device), byte(device>>8)
	b[6] = 0x10 // capability list
	b[9], b[10], b[11] = byte(class), byte(class>>8), byte(class>>16)
	b[0x0e] = headerType
	b[0x34] = 0x40
	b[0x40], b[0x42] = 0x10, 0x02|portType<<4
	lnk := uint32(speed) | uint32(width)<<4
	b[0x4c], b[0x4d] = byte(lnk), byte(lnk>>8)
	b[0x52], b[0x53] = byte(lnk), byte(lnk>>8)
	return string(b)
}

// device writes one function's folder under dir and its bus/pci link.
func (m memTree) device(dir, vendor, device, class, numa string, extra map[string]string) {
	bdf := dir[strings.LastIndex(dir, "/")+1:]
	m.link("sys/bus/pci/devices/"+bdf, "../../../"+strings.TrimPrefix(dir, "sys/"))
	for k, v := range map[string]string{"vendor": vendor, "device": device, "class": class, "numa_node": numa} {
		m.file(dir+"/"+k, v+"\n")
	}
	for k, v := range extra {
		m.file(dir+"/"+k, v)
	}
}

func smallTree() memTree {
	m := memTree{}
	rp := "sys/devices/pci0000:00/0000:00:01.0"
	usp := rp + "/0000:01:00.0"
	dsp1, dsp2 := usp+"/0000:02:00.0", usp+"/0000:02:01.0"
	gpu, nic := dsp1+"/0000:03:00.0", dsp2+"/0000:04:00.0"
	m.device(rp, "0x8086", "0x2030", "0x060400", "1", map[string]string{"config": pcieConfig(0x8086, 0x2030, 0x060400, 1, 4, 4, 16)})
	m.device(usp, "0x1000", "0xc030", "0x060400", "1", map[string]string{"config": pcieConfig(0x1000, 0xc030, 0x060400, 1, 5, 5, 16),
		"current_link_speed": "32.0 GT/s PCIe\n", "current_link_width": "16\n", "max_link_speed": "32.0 GT/s PCIe\n", "max_link_width": "16\n"})
	m.device(dsp1, "0x1000", "0xc030", "0x060400", "1", map[string]string{"config": pcieConfig(0x1000, 0xc030, 0x060400, 1, 6, 5, 16)})
	m.device(dsp2, "0x1000", "0xc030", "0x060400", "1", map[string]string{"config": pcieConfig(0x1000, 0xc030, 0x060400, 1, 6, 5, 16)})
	m.device(gpu, "0x10de", "0x2330", "0x030200", "-1", map[string]string{
		"current_link_speed": "16.0 GT/s PCIe\n", "current_link_width": "16\n", "max_link_speed": "32.0 GT/s PCIe\n", "max_link_width": "16\n",
		"config": pcieConfig(0x10de, 0x2330, 0x030200, 0, 0, 4, 16)[:64], // unprivileged read
	})
	m.device(nic, "0x15b3", "0x1021", "0x020700", "1", map[string]string{
		"current_link_speed": "32.0 GT/s PCIe\n", "current_link_width": "16\n", "max_link_speed": "32.0 GT/s PCIe\n", "max_link_width": "16\n",
	})
	m.link(gpu+"/driver", "../../../../../../bus/pci/drivers/nvidia")
	m.link("sys/class/infiniband/mlx5_0", "../../devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:01.0/0000:04:00.0/infiniband/mlx5_0")
	m.file(nic+"/infiniband/mlx5_0/ports/1/rate", "400 Gb/sec (4X NDR)\n")
	m.link("sys/class/net/ibp4s0", "../../devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:01.0/0000:04:00.0/net/ibp4s0")
	m.link("sys/class/net/lo", "../../devices/virtual/net/lo")
	m.file("sys/devices/system/node/node0/cpulist", "0-3\n")
	m.file("sys/devices/system/node/node0/distance", "10 21\n")
	m.file("sys/devices/system/node/node1/cpulist", "4-7\n")
	m.file("sys/devices/system/node/node1/distance", "21 10\n")
	m.file("sys/devices/system/cpu/cpu0/topology/physical_package_id", "0\n")
	m.file("sys/devices/system/cpu/cpu4/topology/physical_package_id", "1\n")
	m.file("proc/cpuinfo", "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 143\nmodel name\t: Xeon\nphysical id\t: 0\n\n")
	m.file("proc/cmdline", "BOOT_IMAGE=/vmlinuz iommu=pt\n")
	return m
}

func TestReadSysfs(t *testing.T) {
	g, err := Read(fstest.MapFS(smallTree()))
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Devices) != 6 || len(g.HostBridges) != 1 {
		t.Fatalf("%d devices, %d host bridges; want 6 and 1", len(g.Devices), len(g.HostBridges))
	}
	byBDF := func(s string) *topology.Device {
		a, _ := topology.ParseBDF(s)
		return g.Device(a)
	}
	gpu, nic, usp := byBDF("0000:03:00.0"), byBDF("0000:04:00.0"), byBDF("0000:01:00.0")
	checks := []struct {
		what      string
		got, want any
	}{
		{"rp role", byBDF("0000:00:01.0").Role, topology.RoleRootPort},
		{"usp role", usp.Role, topology.RoleUpstream},
		{"usp role source", usp.RoleFrom, "config"},
		{"dsp role", byBDF("0000:02:01.0").Role, topology.RoleDownstream},
		{"gpu parent", gpu.Parent.BDF(), "0000:02:00.0"},
		{"gpu kind", gpu.Kind, topology.KindAccelerator},
		{"gpu driver", gpu.Driver, "nvidia"},
		{"gpu numa from host bridge", gpu.NUMANode, 1},
		{"gpu numa source", gpu.NUMAFrom, topology.NUMAFromHostBridge},
		{"gpu raw numa", gpu.RawNUMANode, -1},
		{"gpu link", gpu.Link, topology.Link{CurrentGTs: 16, CurrentWidth: 16, MaxGTs: 32, MaxWidth: 16}},
		{"gpu config bytes", gpu.ConfigLen, 64},
		{"nic kind", nic.Kind, topology.KindNIC},
		{"nic rdma", strings.Join(nic.RDMA, ","), "mlx5_0"},
		{"nic netdev", strings.Join(nic.Netdevs, ","), "ibp4s0"},
		{"nic port rate", nic.PortRateGbps, 400.0},
		{"rp link from config", byBDF("0000:00:01.0").Link.CurrentGTs, 16.0},
		{"host bridge numa", g.HostBridges[0].NUMANode, 1},
		{"host bridge socket", g.HostBridges[0].Socket, 1},
		{"sockets", g.System.Sockets, 2},
		{"cpu model id", g.System.CPUModelID, 143},
		{"cmdline", g.System.Cmdline, "BOOT_IMAGE=/vmlinuz iommu=pt"},
		{"node 1 distances", len(g.System.NUMANodes[1].Distances), 2},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.what, c.got, c.want)
		}
	}
	if !strings.Contains(strings.Join(g.Lacks, ";"), "past 64 bytes on 1 of 6") {
		t.Errorf("lacks %q: want the unprivileged config read named", g.Lacks)
	}
	p := g.Classify(gpu, nic)
	// Gen4 x16 at the link's MPS of 128 B: 16 × 16 × 128/130 × 128/152.
	if want := 16 * 16 * 128.0 / 130 * 128 / 152; p.SMI != topology.PIX || p.NCCL != topology.PIX || p.BottleneckGbps-want > 1e-9 || want-p.BottleneckGbps > 1e-9 {
		t.Errorf("gpu-nic: %s %s %v, want PIX PIX %v", p.SMI, p.NCCL, p.BottleneckGbps, want)
	}
}

func TestReadSysfsBadInput(t *testing.T) {
	huge := strings.Repeat("7", 1<<20)
	tests := []struct {
		name    string
		mutate  func(m memTree)
		wantErr error  // nil: must read, with a warning containing warn
		warn    string // substring of some warning
	}{
		{"no PCI folder", func(m memTree) {
			for k := range m {
				if strings.HasPrefix(k, "sys/bus/pci") {
					delete(m, k)
				}
			}
		}, topology.ErrNoPCI, ""},
		{"garbage numa_node", func(m memTree) {
			m.file("sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:01.0/0000:04:00.0/numa_node", "\x00\xffbanana\n")
		}, nil, "0000:04:00.0/numa_node: invalid value"},
		{"huge attribute", func(m memTree) {
			m.file("sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:01.0/0000:04:00.0/class", huge)
		}, nil, "0000:04:00.0/class: over 4096 bytes"},
		{"garbage link speed", func(m memTree) {
			m.file("sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:01.0/0000:04:00.0/current_link_speed", "fast\n")
		}, nil, "current_link_speed: invalid value"},
		{"link escaping the tree", func(m memTree) {
			m.link("sys/bus/pci/devices/0000:09:00.0", "../../../../../../etc")
		}, nil, "points outside the tree"},
		{"symlink loop in a class folder", func(m memTree) {
			m.link("sys/class/infiniband/loop", "../infiniband/loop")
		}, nil, ""},
		{"bad entry name", func(m memTree) { m.link("sys/bus/pci/devices/zz", "../../../devices/pci0000:00/zz") }, nil, "not a PCI address"},
		{"missing bridge in a partial capture", func(m memTree) {
			delete(m, "sys/bus/pci/devices/0000:02:01.0")
		}, nil, "bridge 0000:02:01.0 above it is not in"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := smallTree()
			tt.mutate(m)
			g, err := Read(fstest.MapFS(m))
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var all []string
			for _, w := range g.Warnings {
				all = append(all, w.String())
			}
			if tt.warn != "" && !strings.Contains(strings.Join(all, "\n"), tt.warn) {
				t.Errorf("warnings %q: want one containing %q", all, tt.warn)
			}
			g.Pairs()
		})
	}
}

func TestMaskToList(t *testing.T) {
	for in, want := range map[string]string{
		"0000ffff":                   "0-15",
		"000000ff,ff000000,00000000": "56-71",
		"3":                          "0-1",
		"80000001":                   "0,31",
		"zz":                         "",
		"00000000":                   "",
	} {
		if got := maskToList(in); got != want {
			t.Errorf("maskToList(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestNVIDIATaint: the nvidia module's taint flags are kept as read (P: the
// proprietary driver; without P the open kernel module), and their absence
// is recorded as not read rather than as either flavour.
func TestNVIDIATaint(t *testing.T) {
	m := smallTree()
	g, err := Read(fstest.MapFS(m))
	if err != nil {
		t.Fatal(err)
	}
	if g.Platform.NVIDIATaintRead || g.Platform.NVIDIATaint != "" {
		t.Errorf("no sys/module/nvidia: taint %q read %v", g.Platform.NVIDIATaint, g.Platform.NVIDIATaintRead)
	}
	m.file("sys/module/nvidia/taint", "PO\n")
	if g, err = Read(fstest.MapFS(m)); err != nil {
		t.Fatal(err)
	}
	if !g.Platform.NVIDIATaintRead || g.Platform.NVIDIATaint != "PO" {
		t.Errorf("taint %q read %v, want PO", g.Platform.NVIDIATaint, g.Platform.NVIDIATaintRead)
	}
}

// TestReadSysfsLoopedCapabilities gives the root port a config space whose
// capability list loops before the PCIe capability (lspci prints "<chain
// looped>"): the port's role, DevCtl and ACS are unknown with a warning and a
// "Source lacks" entry, never "a plain PCI bridge without ACS".
func TestReadSysfsLoopedCapabilities(t *testing.T) {
	m := smallTree()
	rp := "sys/devices/pci0000:00/0000:00:01.0"
	b := []byte(pcieConfig(0x8086, 0x2030, 0x060400, 1, 4, 4, 16))
	b[0x34] = 0x50
	b[0x50], b[0x51] = 0x01, 0x50 // a power-management capability pointing at itself
	m.file(rp+"/config", string(b))
	g, err := Read(fstest.MapFS(m))
	if err != nil {
		t.Fatal(err)
	}
	a, _ := topology.ParseBDF("0000:00:01.0")
	d := g.Device(a)
	if d.RoleFrom == topology.RoleFromConfig || d.Role == topology.RolePCIBridge || d.ACSKnown || d.DevCtlKnown {
		t.Errorf("role %v from %q, ACS known %v, DevCtl known %v; want none taken from a looped list", d.Role, d.RoleFrom, d.ACSKnown, d.DevCtlKnown)
	}
	var warned bool
	for _, w := range g.Warnings {
		warned = warned || w.Subject == "0000:00:01.0/config" && strings.Contains(w.Message, "<chain looped>")
	}
	if !warned {
		t.Errorf("warnings %v: want the looped list named", g.Warnings)
	}
	if !strings.Contains(strings.Join(g.Lacks, ";"), "loops on 1 of 6") {
		t.Errorf("lacks %q: want the looped list counted", g.Lacks)
	}
}

// TestReadSysfsBridgeSSVID: a Broadcom switch port whose config carries the
// Subsystem ID capability (0x0d) takes its subsystem IDs from there, as the
// kernel fills the files from it, and never reads the files (they hold other
// values here, so reading them would show); a port without the capability,
// or with only the unprivileged 64 bytes of config, falls back to the files.
func TestReadSysfsBridgeSSVID(t *testing.T) {
	m := smallTree()
	usp := "sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0"
	withSSVID := []byte(pcieConfig(0x1000, 0xc030, 0x060400, 1, 5, 5, 16))
	withSSVID[0x41] = 0x80 // PCIe capability -> SSVID
	withSSVID[0x80], withSSVID[0x84], withSSVID[0x85], withSSVID[0x86], withSSVID[0x87] = 0x0d, 0x00, 0x10, 0xa1, 0x00
	m.file(usp+"/config", string(withSSVID))
	dsp1, dsp2 := usp+"/0000:02:00.0", usp+"/0000:02:01.0"
	m.file(dsp2+"/config", string(withSSVID[:64])) // unprivileged read: no capability list
	for _, dir := range []string{usp, dsp1, dsp2} {
		m.file(dir+"/subsystem_vendor", "0x1000\n")
		m.file(dir+"/subsystem_device", "0x10a1\n")
	}
	g, err := Read(fstest.MapFS(m))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		bdf  string
		want uint16
	}{{"0000:01:00.0", 0x00a1}, {"0000:02:00.0", 0x10a1}, {"0000:02:01.0", 0x10a1}} {
		a, _ := topology.ParseBDF(c.bdf)
		d := g.Device(a)
		if !d.SubsystemKnown || d.SubVendorID != 0x1000 || d.SubDeviceID != c.want {
			t.Errorf("%s: subsystem %04x:%04x known %v, want 1000:%04x", c.bdf, d.SubVendorID, d.SubDeviceID, d.SubsystemKnown, c.want)
		}
	}
}

// A capture that holds no IOMMU, RDMA or module folders says so in Lacks:
// the analysis then assumes them. The running machine without them, or a
// gdtopo snapshot of it (which keeps every one that is there), has none.
func TestLacksUncapturedEvidence(t *testing.T) {
	foreign := smallTree()
	for p := range foreign {
		if strings.HasPrefix(p, "sys/class/infiniband/") {
			delete(foreign, p)
		}
	}
	snapshotOf := func(source string) memTree {
		m := memTree{}
		for p, f := range foreign {
			m[p] = f
		}
		m.file(ManifestName, `{"gdtopo_version": "test", "source": "`+source+`", "files": 1}`+"\n")
		return m
	}
	complete := []string{}
	uncaptured := []string{"IOMMU state (no sys/class/iommu", "RDMA devices (no sys/class/infiniband", "peer-memory modules (no sys/module"}
	cases := []struct {
		name string
		tree memTree
		read func(fs.FS, int) (*topology.Graph, error)
		want []string
	}{
		{"capture", foreign, ReadOn, uncaptured},
		{"snapshot of a capture folder", snapshotOf("/tmp/capture"), ReadOn, uncaptured},
		{"snapshot of the running machine", snapshotOf("/"), ReadOn, complete},
		{"running machine", foreign, ReadLiveOn, complete},
	}
	for _, c := range cases {
		g, err := c.read(fstest.MapFS(c.tree), 1)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var got []string
		for _, l := range g.Lacks {
			for _, w := range uncaptured {
				if strings.HasPrefix(l, w) {
					got = append(got, w)
				}
			}
		}
		if strings.Join(got, "; ") != strings.Join(c.want, "; ") {
			t.Errorf("%s: Lacks %q, want those starting %q", c.name, g.Lacks, c.want)
		}
	}

	// Where the capture holds the evidence, nothing is lacking.
	held := snapshotOf("/tmp/capture")
	held.file("sys/class/iommu/dmar0/name", "dmar0\n")
	held.file("sys/module/nvidia/version", "570\n")
	held.link("sys/class/infiniband/mlx5_0", "../../devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:01.0/0000:04:00.0/infiniband/mlx5_0")
	g, err := Read(fstest.MapFS(held))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range g.Lacks {
		for _, w := range uncaptured {
			if strings.HasPrefix(l, w) {
				t.Errorf("evidence held, yet Lacks %q", l)
			}
		}
	}
}
