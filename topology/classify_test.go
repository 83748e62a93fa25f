package topology

import (
	"fmt"
	"strings"
	"testing"
)

// builder makes graphs by hand for label tests.
type builder struct{ g *Graph }

func newBuilder(nodes ...NUMANode) *builder {
	return &builder{g: &Graph{System: System{NUMANodes: nodes}}}
}

func (b *builder) hostBridge(name string, numa int) *HostBridge {
	var dom uint32
	var bus uint8
	_, _ = fmt.Sscanf(name, "pci%x:%x", &dom, &bus) // a name of another form: domain and bus 0
	hb := &HostBridge{Name: name, Domain: dom, Bus: bus, NUMANode: numa, Socket: b.g.System.NodeSocket(numa)}
	b.g.HostBridges = append(b.g.HostBridges, hb)
	return hb
}

// dev adds a function under parent (a *Device) or directly on a host bridge
// (a *HostBridge).
func (b *builder) dev(bdf string, above any, kind Kind, role Role) *Device {
	addr, err := ParseBDF(bdf)
	if err != nil {
		panic(err)
	}
	d := &Device{Addr: addr, Kind: kind, Role: role, NUMANode: -1, RawNUMANode: -1,
		Link: Link{CurrentGTs: 16, CurrentWidth: 16, MaxGTs: 16, MaxWidth: 16}}
	switch p := above.(type) {
	case *Device:
		d.Parent, d.HostBridge = p, p.HostBridge
		p.Children = append(p.Children, d)
	case *HostBridge:
		d.HostBridge = p
		p.Devices = append(p.Devices, d)
	}
	if d.HostBridge != nil {
		d.NUMANode, d.RawNUMANode = d.HostBridge.NUMANode, d.HostBridge.NUMANode
	}
	b.g.Devices = append(b.g.Devices, d)
	return d
}

func (b *builder) rp(bdf string, hb *HostBridge) *Device {
	return b.dev(bdf, hb, KindBridge, RoleRootPort)
}

// sw adds a switch's upstream port under parent and returns it.
func (b *builder) usp(bdf string, parent *Device, vendor, device, subVendor, subDevice uint16) *Device {
	u := b.dev(bdf, parent, KindBridge, RoleUpstream)
	u.VendorID, u.DeviceID, u.SubVendorID, u.SubDeviceID, u.SubsystemKnown = vendor, device, subVendor, subDevice, true
	return u
}

func (b *builder) dsp(bdf string, usp *Device) *Device {
	d := b.dev(bdf, usp, KindBridge, RoleDownstream)
	d.VendorID, d.DeviceID, d.SubVendorID, d.SubDeviceID, d.SubsystemKnown = usp.VendorID, usp.DeviceID, usp.SubVendorID, usp.SubDeviceID, true
	return d
}

func (b *builder) gpu(bdf string, above any) *Device {
	return b.dev(bdf, above, KindAccelerator, RoleNone)
}
func (b *builder) nic(bdf string, above any) *Device { return b.dev(bdf, above, KindNIC, RoleNone) }

func twoSockets() []NUMANode {
	return []NUMANode{{ID: 0, Socket: 0}, {ID: 1, Socket: 1}}
}

func TestLabels(t *testing.T) {
	type want struct {
		smi, nccl Label
		path      string
		note      string // substring of a note, "" for none
	}
	tests := []struct {
		name  string
		build func() (*Graph, *Device, *Device)
		want  want
	}{
		{"two functions of one device", func() (*Graph, *Device, *Device) {
			b := newBuilder(twoSockets()...)
			rp := b.rp("0000:20:01.1", b.hostBridge("pci0000:20", 0))
			return b.g, b.nic("0000:21:00.0", rp), b.nic("0000:21:00.1", rp)
		}, want{PIX, PIX, PathSameDevice, ""}},
		{"same switch", func() (*Graph, *Device, *Device) {
			b := newBuilder(twoSockets()...)
			u := b.usp("0000:01:00.0", b.rp("0000:00:01.0", b.hostBridge("pci0000:00", 0)), 0x10b5, 0x9797, 0x10b5, 0x9797)
			return b.g, b.gpu("0000:03:00.0", b.dsp("0000:02:04.0", u)), b.nic("0000:04:00.0", b.dsp("0000:02:08.0", u))
		}, want{PIX, PIX, PathSameSwitch, ""}},
		{"cascaded switches", func() (*Graph, *Device, *Device) {
			b := newBuilder(twoSockets()...)
			u1 := b.usp("0000:01:00.0", b.rp("0000:00:01.0", b.hostBridge("pci0000:00", 0)), 0x10b5, 0x9797, 0x10b5, 0x9797)
			u2 := b.usp("0000:03:00.0", b.dsp("0000:02:04.0", u1), 0x10b5, 0x9797, 0x10b5, 0x9797)
			return b.g, b.gpu("0000:05:00.0", b.dsp("0000:04:00.0", u2)), b.nic("0000:06:00.0", b.dsp("0000:02:08.0", u1))
		}, want{PXB, PXB, PathAcrossSwitches, ""}},
		{"Broadcom Gen4 sub-switches flattened by NCCL", func() (*Graph, *Device, *Device) {
			b := newBuilder(twoSockets()...)
			top := b.usp("0000:01:00.0", b.rp("0000:00:01.0", b.hostBridge("pci0000:00", 0)), 0x1000, 0xc010, 0x1000, 0xa064)
			subA := b.usp("0000:03:00.0", b.dsp("0000:02:00.0", top), 0x1000, 0xc010, 0x1000, 0xa064)
			subB := b.usp("0000:08:00.0", b.dsp("0000:02:01.0", top), 0x1000, 0xc010, 0x1000, 0xa064)
			return b.g, b.gpu("0000:05:00.0", b.dsp("0000:04:00.0", subA)), b.nic("0000:0a:00.0", b.dsp("0000:09:00.0", subB))
		}, want{PXB, PIX, PathAcrossSwitches, ""}},
		{"Broadcom Gen5 parent and child levels flattened", func() (*Graph, *Device, *Device) {
			b := newBuilder(twoSockets()...)
			top := b.usp("0000:01:00.0", b.rp("0000:00:01.0", b.hostBridge("pci0000:00", 0)), 0x1000, 0xc030, 0x1000, 0x0100)
			subA := b.usp("0000:03:00.0", b.dsp("0000:02:00.0", top), 0x1000, 0xc030, 0x1000, 0x1100)
			return b.g, b.gpu("0000:05:00.0", b.dsp("0000:04:00.0", subA)), b.nic("0000:06:00.0", b.dsp("0000:02:01.0", top))
		}, want{PXB, PIX, PathAcrossSwitches, ""}},
		{"Broadcom Gen5 with two parent-level switches is not flattened", func() (*Graph, *Device, *Device) {
			b := newBuilder(twoSockets()...)
			top := b.usp("0000:01:00.0", b.rp("0000:00:01.0", b.hostBridge("pci0000:00", 0)), 0x1000, 0xc030, 0x1000, 0x0100)
			subA := b.usp("0000:03:00.0", b.dsp("0000:02:00.0", top), 0x1000, 0xc030, 0x1000, 0x0100)
			return b.g, b.gpu("0000:05:00.0", b.dsp("0000:04:00.0", subA)), b.nic("0000:06:00.0", b.dsp("0000:02:01.0", top))
		}, want{PXB, PXB, PathAcrossSwitches, ""}},
		{"PLX cascade is not flattened", func() (*Graph, *Device, *Device) {
			b := newBuilder(twoSockets()...)
			top := b.usp("0000:01:00.0", b.rp("0000:00:01.0", b.hostBridge("pci0000:00", 0)), 0x10b5, 0x9797, 0x10b5, 0xa064)
			subA := b.usp("0000:03:00.0", b.dsp("0000:02:00.0", top), 0x10b5, 0x9797, 0x10b5, 0xa064)
			return b.g, b.gpu("0000:05:00.0", b.dsp("0000:04:00.0", subA)), b.nic("0000:06:00.0", b.dsp("0000:02:01.0", top))
		}, want{PXB, PXB, PathAcrossSwitches, ""}},
		{"different root ports of one host bridge", func() (*Graph, *Device, *Device) {
			b := newBuilder(twoSockets()...)
			hb := b.hostBridge("pci0000:c0", 0)
			return b.g, b.gpu("0000:c1:00.0", b.rp("0000:c0:01.1", hb)), b.gpu("0000:c2:00.0", b.rp("0000:c0:03.1", hb))
		}, want{PHB, PHB, PathRootComplex, ""}},
		{"AMD: host bridges of one NUMA node are NODE, PHB in NCCL", func() (*Graph, *Device, *Device) {
			b := newBuilder(NUMANode{ID: 0, Socket: 0})
			return b.g, b.gpu("0000:c1:00.0", b.rp("0000:c0:01.1", b.hostBridge("pci0000:c0", 0))),
				b.nic("0000:21:00.0", b.rp("0000:20:01.1", b.hostBridge("pci0000:20", 0)))
		}, want{NODE, PHB, PathHostBridges, ""}},
		{"across sockets", func() (*Graph, *Device, *Device) {
			b := newBuilder(twoSockets()...)
			return b.g, b.gpu("0000:17:00.0", b.rp("0000:16:00.0", b.hostBridge("pci0000:16", 0))),
				b.nic("0000:b1:00.0", b.rp("0000:b0:00.0", b.hostBridge("pci0000:b0", 1)))
		}, want{SYS, SYS, PathSockets, ""}},
		{"sub-NUMA domains of one socket", func() (*Graph, *Device, *Device) {
			b := newBuilder(NUMANode{ID: 0, Socket: 0}, NUMANode{ID: 1, Socket: 0}, NUMANode{ID: 2, Socket: 1}, NUMANode{ID: 3, Socket: 1})
			return b.g, b.gpu("0000:17:00.0", b.rp("0000:16:00.0", b.hostBridge("pci0000:16", 0))),
				b.nic("0000:38:00.0", b.rp("0000:37:00.0", b.hostBridge("pci0000:37", 1)))
		}, want{SYS, SYS, PathNUMANodes, ""}},
		{"numa_node -1 on a two-node machine", func() (*Graph, *Device, *Device) {
			b := newBuilder(twoSockets()...)
			return b.g, b.gpu("0001:00:00.0", b.hostBridge("pci0001:00", -1)), b.nic("0101:00:00.0", b.hostBridge("pci0101:00", -1))
		}, want{NODE, PHB, PathHostBridges, "may be SYS"}},
		{"numa_node -1 on a one-node machine", func() (*Graph, *Device, *Device) {
			b := newBuilder(NUMANode{ID: 0, Socket: 0})
			return b.g, b.gpu("0001:00:00.0", b.hostBridge("pci0001:00", -1)), b.nic("0101:00:00.0", b.hostBridge("pci0101:00", -1))
		}, want{NODE, PHB, PathHostBridges, ""}},
		{"devices directly on one root bus", func() (*Graph, *Device, *Device) {
			b := newBuilder(twoSockets()...)
			hb := b.hostBridge("pci0000:00", 0)
			return b.g, b.gpu("0000:00:04.0", hb), b.nic("0000:00:05.0", hb)
		}, want{PHB, PHB, PathRootComplex, ""}},
		{"endpoint behind a lone bridge meets a NIC at the CPU", func() (*Graph, *Device, *Device) {
			b := newBuilder(twoSockets()...)
			hb := b.hostBridge("pci0000:00", 0)
			br := b.dev("0000:01:00.0", b.rp("0000:00:01.0", hb), KindBridge, RolePCIBridge)
			return b.g, b.gpu("0000:02:00.0", br), b.nic("0000:03:00.0", b.rp("0000:00:02.0", hb))
		}, want{PHB, PHB, PathRootComplex, ""}},
		{"GPU and NIC on one root port's switch, NCCL sees the RP-less collapse", func() (*Graph, *Device, *Device) {
			b := newBuilder(twoSockets()...)
			hb := b.hostBridge("pci0000:00", 0)
			u := b.usp("0000:01:00.0", b.rp("0000:00:01.0", hb), 0x10b5, 0x8747, 0x10b5, 0x8747)
			return b.g, b.gpu("0000:03:00.0", b.dsp("0000:02:08.0", u)), b.gpu("0000:04:00.0", b.dsp("0000:02:10.0", u))
		}, want{PIX, PIX, PathSameSwitch, ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, a, b := tt.build()
			for _, order := range [][2]*Device{{a, b}, {b, a}} {
				p := g.Classify(order[0], order[1])
				got := want{p.SMI, p.NCCL, p.Path, ""}
				if tt.want.note != "" && strings.Contains(strings.Join(p.Notes, "; "), tt.want.note) {
					got.note = tt.want.note
				}
				if got != tt.want {
					t.Errorf("Classify(%s, %s) = %+v (notes %q), want %+v", order[0].BDF(), order[1].BDF(), got, p.Notes, tt.want)
				}
			}
		})
	}
}

func TestHopsAndBottleneck(t *testing.T) {
	b := newBuilder(twoSockets()...)
	hb := b.hostBridge("pci0000:00", 0)
	u := b.usp("0000:01:00.0", b.rp("0000:00:01.0", hb), 0x1000, 0xc030, 0x1000, 0x0100)
	u.Link = Link{CurrentGTs: 32, CurrentWidth: 16, MaxGTs: 32, MaxWidth: 16}
	gpu := b.gpu("0000:03:00.0", b.dsp("0000:02:00.0", u))
	gpu.Link = Link{CurrentGTs: 32, CurrentWidth: 16, MaxGTs: 32, MaxWidth: 16}
	nic := b.nic("0000:04:00.0", b.dsp("0000:02:01.0", u))
	nic.Link = Link{CurrentGTs: 32, CurrentWidth: 8, MaxGTs: 32, MaxWidth: 16}
	p := b.g.Classify(gpu, nic)
	var steps []string
	for _, h := range p.Hops {
		steps = append(steps, h.From+">"+h.To+":"+string(h.Kind))
	}
	wantSteps := "0000:03:00.0>0000:02:00.0:pcie 0000:02:00.0>0000:01:00.0:switch_internal " +
		"0000:01:00.0>0000:02:01.0:switch_internal 0000:02:01.0>0000:04:00.0:pcie"
	if got := strings.Join(steps, " "); got != wantSteps {
		t.Errorf("hops:\n got %s\nwant %s", got, wantSteps)
	}
	if want := DataGbps(32, 8, 256, 24); p.BottleneckGbps != want { // Gen5 x8: 32 × 8 × 128/130 × 256/280 = 230.46 Gb/s
		t.Errorf("bottleneck = %v Gb/s, want %v", p.BottleneckGbps, want)
	}

	// Across sockets the path climbs to both host bridges and crosses between them.
	b2 := newBuilder(twoSockets()...)
	g0 := b2.gpu("0000:17:00.0", b2.rp("0000:16:00.0", b2.hostBridge("pci0000:16", 0)))
	n1 := b2.nic("0000:b1:00.0", b2.rp("0000:b0:00.0", b2.hostBridge("pci0000:b0", 1)))
	p = b2.g.Classify(g0, n1)
	steps = steps[:0]
	for _, h := range p.Hops {
		steps = append(steps, h.From+">"+h.To+":"+string(h.Kind))
	}
	wantSteps = "0000:17:00.0>0000:16:00.0:pcie 0000:16:00.0>pci0000:16:root_complex pci0000:16>pci0000:b0:numa_interconnect " +
		"pci0000:b0>0000:b0:00.0:root_complex 0000:b0:00.0>0000:b1:00.0:pcie"
	if got := strings.Join(steps, " "); got != wantSteps {
		t.Errorf("cross-socket hops:\n got %s\nwant %s", got, wantSteps)
	}
}

func TestLinkBandwidth(t *testing.T) {
	tests := []struct {
		l    Link
		want float64
		str  string
	}{
		// GT/s × lanes × encoding × 256/280 (MPS 256, 24 B TLP overhead)
		{Link{CurrentGTs: 8, CurrentWidth: 16}, 8 * 16 * 128.0 / 130 * 256 / 280, "Gen3 x16"},
		{Link{CurrentGTs: 16, CurrentWidth: 16, MaxGTs: 16, MaxWidth: 16}, 230.45626, "Gen4 x16"},
		{Link{CurrentGTs: 32, CurrentWidth: 16}, 460.91253, "Gen5 x16"},
		{Link{CurrentGTs: 2.5, CurrentWidth: 1}, 2.5 * 0.8 * 256 / 280, "Gen1 x1"},
		{Link{CurrentGTs: 2.5, CurrentWidth: 16, MaxGTs: 32, MaxWidth: 16}, 2.5 * 16 * 0.8 * 256 / 280, "Gen1 x16 (max Gen5 x16)"},
		{Link{CurrentGTs: 16, CurrentWidth: 8, MaxGTs: 16, MaxWidth: 16}, 230.45626 / 2, "Gen4 x8 (max Gen4 x16)"},
		{Link{}, 0, "Gen? x?"},
		{Link{CurrentGTs: 7, CurrentWidth: 16}, 0, "Gen? x16"},
	}
	for _, tt := range tests {
		if got := tt.l.CurrentGbps(); got-tt.want > 1e-4 || tt.want-got > 1e-4 {
			t.Errorf("%+v.CurrentGbps() = %v, want %v", tt.l, got, tt.want)
		}
		if got := tt.l.String(); got != tt.str {
			t.Errorf("%+v.String() = %q, want %q", tt.l, got, tt.str)
		}
	}
}

func TestParseBDF(t *testing.T) {
	good := map[string]string{
		"0000:01:00.0": "0000:01:00.0", "01:00.0": "0000:01:00.0", "0000:C1:1F.7": "0000:c1:1f.7", "10000:e1:00.0": "10000:e1:00.0",
	}
	for in, want := range good {
		b, err := ParseBDF(in)
		if err != nil || b.String() != want {
			t.Errorf("ParseBDF(%q) = %v, %v; want %s", in, b, err, want)
		}
	}
	for _, in := range []string{"", "01:00", "0000:01:00:0", "zz:00.0", "0000:01:20.0", "0000:01:00.8", "pci0000:00", "1:0.0", "0000:001:00.0"} {
		if _, err := ParseBDF(in); err == nil {
			t.Errorf("ParseBDF(%q) accepted", in)
		}
	}
}

func TestParseCPUList(t *testing.T) {
	got, err := ParseCPUList("0-3,8,10-11\n")
	if err != nil || len(got) != 7 || got[0] != 0 || got[4] != 8 || got[6] != 11 {
		t.Errorf("ParseCPUList = %v, %v", got, err)
	}
	for _, bad := range []string{"3-1", "a", "0-99999999", "-1", "1,,2"} {
		if _, err := ParseCPUList(bad); err == nil {
			t.Errorf("ParseCPUList(%q) accepted", bad)
		}
	}
}

func TestNCCLViewAndNVLink(t *testing.T) {
	// An NCCL topology file's tree: CPU 0 > PCI switch P1 > GPU0 and
	// PCI switch P2 > NIC; GPU1 directly under CPU 0.
	b := newBuilder(twoSockets()...)
	b.g.NCCLView = true
	cpu := b.hostBridge("pci0000:00", 0)
	p1 := b.dev("0000:01:00.0", cpu, KindBridge, RoleUpstream)
	p1.VendorID, p1.DeviceID, p1.SubVendorID, p1.SubDeviceID, p1.SubsystemKnown = 0x1000, 0xc030, 0x1000, 0x0100, true
	gpu0 := b.gpu("0000:03:00.0", p1)
	p2 := b.usp("0000:04:00.0", p1, 0x10b5, 0x9797, 0x10b5, 0x9797)
	nic := b.nic("0000:05:00.0", p2)
	gpu1 := b.gpu("0000:07:00.0", cpu)
	b.g.NVLinks = []NVLink{{A: gpu0.Addr, B: gpu1.Addr, Count: 12}}
	for _, tt := range []struct {
		a, b      *Device
		smi, nccl Label
	}{
		{gpu0, nic, PXB, PXB},     // PCI node to PCI node
		{gpu1, nic, PHB, PHB},     // through the CPU
		{gpu0, gpu1, "NV12", NVL}, // NVLink wins
	} {
		p := b.g.Classify(tt.a, tt.b)
		if p.SMI != tt.smi || p.NCCL != tt.nccl {
			t.Errorf("%s-%s: smi %s nccl %s, want %s %s", tt.a.BDF(), tt.b.BDF(), p.SMI, p.NCCL, tt.smi, tt.nccl)
		}
	}
	if p := b.g.Classify(gpu1, nic); !p.LabelUncertain {
		t.Error("PHB in an NCCL view must be marked uncertain (no host bridges)")
	}
	// A Broadcom level-1 switch under its level-0 parent is flattened.
	p2.VendorID, p2.DeviceID, p2.SubVendorID, p2.SubDeviceID = 0x1000, 0xc030, 0x1000, 0x1100
	if p := b.g.Classify(gpu0, nic); p.NCCL != PIX || p.SMI != PXB {
		t.Errorf("flattened Gen5 in NCCL view: smi %s nccl %s, want PXB PIX", p.SMI, p.NCCL)
	}
}

// TestNVLinkHintByModelName: a dump without device IDs names its GPUs from
// whatever database lspci read (pci.ids or udev's hwdb). "Device 2901" and
// "GB100 [B200]" are the same SXM module; either must suggest NVLink, so
// the GPU pair reads NV? and never a confident PCIe label.
func TestNVLinkHintByModelName(t *testing.T) {
	for _, tt := range []struct{ name, want string }{
		{"NVIDIA Corporation Device 2901", "B200 modules suggest it"},
		{"NVIDIA Corporation GB100 [B200] (rev a1)", "B200 modules suggest it"},
		{"NVIDIA Corporation GB100 [GB200] (rev a1)", "GB200 modules suggest it"},
		{"NVIDIA Corporation GH100 [H100 SXM5 80GB]", "NVIDIA Corporation GH100 [H100 SXM5 80GB] modules suggest it"},
		{"NVIDIA Corporation GA102GL [RTX A6000]", "RTX A6000 boards take NVLink bridges"},
		{"NVIDIA Corporation AD102GL [L40S]", "the source gives no accelerator device IDs, which tell SXM/OAM modules and NVLink bridge boards"},
	} {
		b := newBuilder(twoSockets()...)
		b.g.TextForm = "lspci -tv"
		cpu := b.hostBridge("pci0000:00", 0)
		rp := b.rp("0000:00:01.0", cpu)
		sw := b.usp("0000:01:00.0", rp, 0x10b5, 0x9797, 0x10b5, 0x9797)
		g0, g1 := b.gpu("0000:03:00.0", b.dsp("0000:02:00.0", sw)), b.gpu("0000:04:00.0", b.dsp("0000:02:01.0", sw))
		for _, g := range []*Device{g0, g1} {
			g.VendorID, g.DeviceID, g.Name = 0, 0, tt.name
		}
		if got := b.g.NVLinkHint(); got != tt.want {
			t.Errorf("%q: hint %q, want %q", tt.name, got, tt.want)
		}
		if p := b.g.Classify(g0, g1); tt.want != "" && (p.SMI != NVLinkUnknown || !p.LabelUncertain) {
			t.Errorf("%q: GPU pair %s (uncertain %v), want NV?", tt.name, p.SMI, p.LabelUncertain)
		}
	}
}

// TestUnnamedDevice: pciutils' "Device XXXX" names give the part's IDs
// (four lower-case hex digits ending the word), and nothing else does.
func TestUnnamedDevice(t *testing.T) {
	nv, amd := uint32(VendorNVIDIA)<<16, uint32(VendorAMD)<<16
	for _, tt := range []struct {
		name string
		want uint32
	}{
		{"NVIDIA Corporation Device 2335", nv | 0x2335},
		{"NVIDIA Corporation Device 2335 (rev a1)", nv | 0x2335},
		{"NVIDIA Corporation Device 2335-x", nv | 0x2335},
		{"Advanced Micro Devices, Inc. [AMD/ATI] Device 74a1", amd | 0x74a1},
		{"NVIDIA Corporation Device 23350", 0},
		{"NVIDIA Corporation Device 233", 0},
		{"NVIDIA Corporation Device 23A5", 0},
		{"NVIDIA Corporation Device 2335_", 0},
		{"NVIDIA Corporation GH100 [H100 SXM5 80GB]", 0},
		{"Intel Corporation Device 1234", 0},
		{"", 0},
		{" NVIDIA Corporation Device 2335", 0},
		{"Advanced Micro Devices, Inc. [AMD] Device 74a1", 0},
	} {
		if got := partID(&Device{Name: tt.name}); got != tt.want {
			t.Errorf("%q: part %08x, want %08x", tt.name, got, tt.want)
		}
	}
}

// TestPlaceUnknownHostBridge: under a host bridge that stands for the part
// of the tree a partial source lacks (an NCCL dump whose text starts inside
// the tree), functions that share a switch keep their label, and the path
// between any others is unknown, not PHB: they may meet anywhere.
func TestPlaceUnknownHostBridge(t *testing.T) {
	b := newBuilder(twoSockets()...)
	b.g.NCCLView = true
	unplaced := b.hostBridge("cpu?", -1)
	unplaced.PlaceUnknown = true
	sw := b.dev("0000:45:00.0", unplaced, KindBridge, RoleUpstream)
	sw.VendorID, sw.DeviceID, sw.SubVendorID, sw.SubDeviceID, sw.SubsystemKnown = 0x1000, 0xc030, 0x1000, 0x0100, true
	gpu := b.gpu("0000:48:00.0", sw)
	near := b.nic("0000:47:00.0", sw)
	far := b.nic("0000:35:00.0", unplaced)
	cpu := b.hostBridge("pci0000:00", 0)
	placed := b.nic("0000:91:00.0", cpu)
	for _, tt := range []struct {
		a, b *Device
		smi  Label
	}{
		{gpu, near, PIX},
		{gpu, far, Unknown},
		{gpu, placed, Unknown},
	} {
		p := b.g.Classify(tt.a, tt.b)
		if p.SMI != tt.smi || (tt.smi == Unknown) != (p.NCCL == Unknown) {
			t.Errorf("%s-%s: smi %s nccl %s, want smi %s", tt.a.BDF(), tt.b.BDF(), p.SMI, p.NCCL, tt.smi)
		}
		if hops := b.g.AppendHops(nil, p); (tt.smi == Unknown) != (len(hops) == 0) {
			t.Errorf("%s-%s: %d hops", tt.a.BDF(), tt.b.BDF(), len(hops))
		}
	}
}

// TestXGMILabels: two AMD accelerators are joined by xGMI, which RCCL
// names XGMI where NCCL has NVL (ROCm/rccl src/graph/topo.cc,
// topoPathTypeStr) and rocm-smi --showtopo gives as link type XGMI: an OAM
// pair the source cannot show reads XGMI? with a note naming rocm-smi, a
// recorded bond XGMI with its count in the path, and Source lacks names
// xGMI and rocm-smi, never NVLink or nvidia-smi.
func TestXGMILabels(t *testing.T) {
	b := newBuilder(twoSockets()...)
	cpu := b.hostBridge("pci0000:00", 0)
	g0, g1 := b.gpu("0000:03:00.0", b.rp("0000:00:01.0", cpu)), b.gpu("0000:23:00.0", b.rp("0000:00:02.0", cpu))
	for _, g := range []*Device{g0, g1} {
		g.VendorID, g.DeviceID, g.Name = VendorAMD, 0x74a1, "Instinct MI300X"
	}
	p := b.g.Classify(g0, g1)
	if p.SMI != XGMI || !p.LabelUncertain || p.NCCL != NVL || len(p.Notes) == 0 || !strings.Contains(p.Notes[0], "rocm-smi --showtopo") || strings.Contains(p.Notes[0], "nvidia-smi") {
		t.Errorf("unrecorded xGMI: smi %s uncertain %v nccl %s notes %q; want XGMI? naming rocm-smi", p.SMI, p.LabelUncertain, p.NCCL, p.Notes)
	}
	if lack := b.g.NVLinkLack(); !strings.Contains(lack, "xGMI") || !strings.Contains(lack, "read XGMI?") || !strings.Contains(lack, "rocm-smi --showtopo") || strings.Contains(lack, "NV") {
		t.Errorf("Source lacks %q, want xGMI, XGMI? and rocm-smi only", lack)
	}
	if XGMI.Rank() != NVL.Rank() {
		t.Errorf("XGMI ranks %d, NVL %d", XGMI.Rank(), NVL.Rank())
	}
	b.g.NVLinks = []NVLink{{A: g0.Addr, B: g1.Addr, Count: 4}}
	b.g.NVLinkRecorded = true
	if p := b.g.Classify(g0, g1); p.SMI != XGMI || p.LabelUncertain || p.Path != "xGMI (4 links)" {
		t.Errorf("recorded xGMI: smi %s uncertain %v path %q; want XGMI, xGMI (4 links)", p.SMI, p.LabelUncertain, p.Path)
	}
}

// A function whose state now is unknown (a VF) borrows the port's side of
// its link, but never a link faster or wider than its own max: a virtual
// machine's emulated root port that claims x32 gives only the max.
func TestHopLinkOfUnknownLink(t *testing.T) {
	b := newBuilder(twoSockets()...)
	hb := b.hostBridge("pci0000:00", 0)
	rp := b.rp("0000:00:01.2", hb)
	rp.Link = Link{CurrentGTs: 16, CurrentWidth: 32, MaxGTs: 16, MaxWidth: 32}
	vf := b.nic("0000:03:00.0", rp)
	vf.Link = Link{MaxGTs: 16, MaxWidth: 16}
	want := Link{CurrentGTs: 16, CurrentWidth: 16, MaxGTs: 16, MaxWidth: 16, MaxOnly: true}
	if got := HopLink(vf); got != want {
		t.Errorf("below a port claiming x32: HopLink = %+v, want %+v", got, want)
	}
	if got, want := HopLink(vf).String(), "Gen4 x16 max, now unknown"; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
	p := b.g.Classify(b.gpu("0000:00:02.0", hb), vf)
	if want := DataGbps(16, 16, 256, 24); p.BottleneckGbps != want {
		t.Errorf("bottleneck = %v Gb/s, want %v (the VF's max)", p.BottleneckGbps, want)
	}

	// A port within the function's max is the link's other end: taken as read.
	rp.Link = Link{CurrentGTs: 8, CurrentWidth: 16, MaxGTs: 16, MaxWidth: 16}
	if got := HopLink(vf); got != rp.Link {
		t.Errorf("below a port at Gen3 x16: HopLink = %+v, want the port's %+v", got, rp.Link)
	}
}
