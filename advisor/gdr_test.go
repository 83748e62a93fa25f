package advisor

import (
	"strings"
	"testing"

	"github.com/gdtopo/gdtopo/internal/ncclxml"
	"github.com/gdtopo/gdtopo/topology"
)

// TestCheckGdrBranches walks every branch of ncclTopoCheckGdr (NCCL
// src/graph/paths.cc) as read at v2.18.6, v2.21.5, v2.26.2, v2.27.7, v2.28.9
// and v2.30.7, on hand-built graphs.
func TestCheckGdrBranches(t *testing.T) {
	type shape func() (*builder, *topology.Device, *topology.Device)
	tests := []struct {
		name    string
		version string
		env     map[string]string
		build   shape
		setup   func(b *builder, g, n *topology.Device)
		label   topology.Label // overrides the pair's NCCL label
		gdr     bool
		read    bool
		reason  string
		unknown string
	}{
		// 1. gdrSupport of the NET and of the GPU.
		{name: "net gdr=0 in an NCCL XML", build: pix, setup: func(b *builder, g, n *topology.Device) { n.SetNCCLGDR("0") }, reason: `<net gdr="0">`},
		{name: "gpu gdr=0 in an NCCL XML", build: pix, setup: func(b *builder, g, n *topology.Device) { g.SetNCCLGDR("0") }, reason: `<gpu gdr="0">`},
		{name: "GeForce: no cudaDevAttrGPUDirectRDMASupported", build: pix,
			setup: func(b *builder, g, n *topology.Device) { g.Name = "GA102 [GeForce RTX 3090]" }, reason: "GeForce"},
		{name: "Intel X710 in an lspci dump: no RDMA", build: pix, setup: func(b *builder, g, n *topology.Device) {
			n.RDMA, n.VendorID, n.DeviceID = nil, topology.VendorIntel, 0x1572
		}, reason: "has no RDMA"},
		{name: "unknown NIC in an lspci dump: undecided", build: pix, setup: func(b *builder, g, n *topology.Device) {
			n.RDMA, n.VendorID, n.DeviceID = nil, 0x1234, 0x0001
		}, gdr: true, read: true, unknown: "RDMA support of"},
		{name: "NCCL 2.12: no dma-buf without peer memory", version: "2.12", build: pix, setup: func(b *builder, g, n *topology.Device) {
			b.g.Platform.PeerMemory, b.g.System.Cmdline = nil, "BOOT_IMAGE=/vmlinuz-6.8.0-45-generic"
		}, reason: "before 2.13"},
		{name: "no peer memory, kernel 6.8, open kernel module: dma-buf", build: pix, setup: func(b *builder, g, n *topology.Device) {
			b.g.Platform.PeerMemory, b.g.System.Cmdline = nil, "BOOT_IMAGE=/vmlinuz-6.8.0-45-generic"
			b.g.Platform.NVIDIATaint, b.g.Platform.NVIDIATaintRead = "O", true
		}, gdr: true, read: true},
		{name: "no peer memory, kernel 6.8, proprietary driver: off", build: pix, setup: func(b *builder, g, n *topology.Device) {
			b.g.Platform.PeerMemory, b.g.System.Cmdline = nil, "BOOT_IMAGE=/vmlinuz-6.8.0-45-generic"
			b.g.Platform.NVIDIATaint, b.g.Platform.NVIDIATaintRead = "PO", true
		}, reason: "proprietary NVIDIA driver"},
		{name: "no peer memory, kernel 6.8, driver unseen: undecided", build: pix, setup: func(b *builder, g, n *topology.Device) {
			b.g.Platform.PeerMemory, b.g.System.Cmdline = nil, "BOOT_IMAGE=/vmlinuz-6.8.0-45-generic"
		}, gdr: true, read: true, unknown: "sys/module/nvidia/taint"},
		// 3. Reads.
		{name: "NCCL_NET_GDR_READ=0", env: map[string]string{"NCCL_NET_GDR_READ": "0"}, build: pix, gdr: true, reason: "NCCL_NET_GDR_READ=0"},
		{name: "NCCL_NET_GDR_READ=1 keeps V100 reads on", env: map[string]string{"NCCL_NET_GDR_READ": "1"}, build: pixTwo,
			setup: func(b *builder, g, n *topology.Device) { b.g.NCCLView = true; g.SetComputeCapability(70) }, gdr: true, read: true},
		{name: "sm from the NCCL XML decides (2.21)", version: "2.21.5", build: pixTwo,
			setup: func(b *builder, g, n *topology.Device) { b.g.NCCLView = true; g.SetComputeCapability(70) }, gdr: true, reason: "pre-Ampere"},
		// 4-5. The level.
		{name: "PHB at 2.28: PXB", version: "2.28.9", build: phb, reason: "PHB > GDR level PXB"},
		{name: "NCCL_NET_GDR_LEVEL=PHB", env: map[string]string{"NCCL_NET_GDR_LEVEL": "PHB"}, build: phb, gdr: true, read: true},
		{name: "NCCL_NET_GDR_LEVEL=3 (old numbering: PHB)", env: map[string]string{"NCCL_NET_GDR_LEVEL": "3"}, build: phb, gdr: true, read: true},
		{name: "NCCL_NET_GDR_LEVEL=9 (old numbering past the end: SYS)", env: map[string]string{"NCCL_NET_GDR_LEVEL": "9"}, build: sys, gdr: true, read: true},
		// ncclGetLevel reads a leading digit with strtol(str, NULL, 0): hex and
		// a trailing word count as C does.
		{name: "NCCL_NET_GDR_LEVEL=0x3 (strtol base 0: PHB)", env: map[string]string{"NCCL_NET_GDR_LEVEL": "0x3"}, build: phb, gdr: true, read: true},
		{name: "NCCL_NET_GDR_LEVEL=3abc (strtol stops at the word: PHB)", env: map[string]string{"NCCL_NET_GDR_LEVEL": "3abc"}, build: phb, gdr: true, read: true},
		{name: "NCCL_NET_GDR_LEVEL=SYS turns SYS on", env: map[string]string{"NCCL_NET_GDR_LEVEL": "SYS"}, build: sys, gdr: true, read: true},
		{name: "SYS off at the default", build: sys, reason: "SYS > GDR level P2C"},
		{name: "NCCL_NET_GDR_LEVEL=sys: names are case-sensitive (strcmp)", env: map[string]string{"NCCL_NET_GDR_LEVEL": "sys"}, build: sys, reason: "not understood"},
		{name: "NCCL_NET_GDR_READ=0x0 (strtoll base 0)", env: map[string]string{"NCCL_NET_GDR_READ": "0x0"}, build: pix, gdr: true, reason: "NCCL_NET_GDR_READ=0x0"},
		{name: "NCCL_NET_GDR_LEVEL=LOC turns PIX off", env: map[string]string{"NCCL_NET_GDR_LEVEL": "LOC"}, build: pix, reason: "PIX > GDR level LOC"},
		{name: "NCCL_NET_GDR_LEVEL=P2C unknown to 2.21: default", version: "2.21", env: map[string]string{"NCCL_NET_GDR_LEVEL": "P2C"}, build: phb, reason: "not understood"},
		{name: "NODE is NCCL's PHB", build: func() (*builder, *topology.Device, *topology.Device) {
			b := newBuilder()
			h0, _ := b.hb(0)
			h1 := &topology.HostBridge{Name: "pci0000:80", Bus: 0x80, NUMANode: 0, Socket: 0}
			b.g.HostBridges = append(b.g.HostBridges, h1)
			r0 := b.rootPort(h0, 2)
			r1 := b.dev("0000:80:02.0", h1, topology.KindBridge, topology.RoleRootPort)
			return b, b.gpu(endpoint(r0), r0), b.nic("0000:81:00.0", r1, "mlx5_0")
		}, env: map[string]string{"NCCL_NET_GDR_LEVEL": "PHB"}, gdr: true, read: true},
		// C2C: P2C counts as C2C in 2.26-2.28 with NCCL_NET_GDR_C2C (default 0
		// in 2.26, 1 from 2.27); from 2.29 the default level is P2C.
		{name: "NCCL_NET_GDR_LEVEL=P2C unknown to 2.26: default", version: "2.26.2", env: map[string]string{"NCCL_NET_GDR_LEVEL": "P2C"}, build: phb, reason: "not understood"},
		{name: "NCCL_NET_GDR_LEVEL=C2C known to 2.26", version: "2.26.2", env: map[string]string{"NCCL_NET_GDR_LEVEL": "C2C"}, build: pix, reason: "PIX > GDR level C2C"},
		{name: "P2C at 2.25: off", version: "2.25.1", build: phb, label: topology.P2C, reason: "P2C > GDR level PXB"},
		{name: "P2C at 2.26: off by default", version: "2.26.2", build: phb, label: topology.P2C, reason: "P2C > GDR level PXB"},
		{name: "P2C at 2.26 with NCCL_NET_GDR_C2C=1", version: "2.26.2", env: map[string]string{"NCCL_NET_GDR_C2C": "1"}, build: phb, label: topology.P2C, gdr: true, read: true},
		{name: "P2C at 2.27: on", version: "2.27.7", build: phb, label: topology.P2C, gdr: true, read: true},
		{name: "P2C at 2.27 with NCCL_NET_GDR_C2C=0", version: "2.27.7", env: map[string]string{"NCCL_NET_GDR_C2C": "0"}, build: phb, label: topology.P2C, reason: "P2C > GDR level PXB"},
		{name: "P2C at 2.30: level P2C", build: phb, label: topology.P2C, gdr: true, read: true},
		{name: "P2C at 2.30 with NCCL_NET_GDR_C2C=0: level PXB", env: map[string]string{"NCCL_NET_GDR_C2C": "0"}, build: phb, label: topology.P2C, reason: "P2C > GDR level PXB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, g, n := tt.build()
			if tt.setup != nil {
				tt.setup(b, g, n)
			}
			graph := b.graph()
			pairs := graph.Pairs()
			for i := range pairs {
				if tt.label != "" && pairs[i].A == g && pairs[i].B == n {
					pairs[i].NCCL = tt.label
				}
			}
			r, err := Analyze(graph, pairs, Options{NCCLVersion: tt.version, Env: tt.env})
			if err != nil {
				t.Fatal(err)
			}
			p := pred(t, r, g, n)
			if p.GDR != tt.gdr || p.GDRRead != tt.read || !strings.Contains(p.GDRReason, tt.reason) {
				t.Errorf("GDR %v read %v reason %q; want %v %v containing %q", p.GDR, p.GDRRead, p.GDRReason, tt.gdr, tt.read, tt.reason)
			}
			if !strings.Contains(p.GDRUnknown, tt.unknown) || (tt.unknown == "") != (p.GDRUnknown == "") {
				t.Errorf("GDRUnknown %q, want %q", p.GDRUnknown, tt.unknown)
			}
			// A variable that decided the verdict is named in GDRSetBy;
			// none is named where the defaults did.
			decided := strings.Join(p.GDRSetBy, "; ")
			for k, v := range tt.env {
				if strings.Contains(tt.reason, "not understood") {
					continue
				}
				if !strings.Contains(decided, k+"="+v) {
					t.Errorf("GDRSetBy %q does not name %s=%s", decided, k, v)
				}
			}
			if len(tt.env) == 0 && decided != "" {
				t.Errorf("GDRSetBy %q without NCCL variables", decided)
			}
		})
	}
}

// TestStrtoll holds strtoll to C's strtoll(s, NULL, 0), which NCCL_PARAM
// (src/misc/param.cc, ncclLoadParam) and ncclGetLevel use.
func TestStrtoll(t *testing.T) {
	for _, tt := range []struct {
		s  string
		n  int64
		ok bool
	}{
		{"0", 0, true}, {"1", 1, true}, {" 2", 2, true}, {"-2", -2, true}, {"+7", 7, true},
		{"0x10", 16, true}, {"0X1f", 31, true}, {"010", 8, true}, {"09", 0, true}, {"0x", 0, true},
		{"3abc", 3, true}, {"abc", 0, true}, {"", 0, true},
		{"9223372036854775807", 9223372036854775807, true}, {"9223372036854775808", 0, false},
		{"-9223372036854775808", -9223372036854775808, true}, {"99999999999999999999", 0, false},
	} {
		if n, ok := strtoll(tt.s); n != tt.n || ok != tt.ok {
			t.Errorf("strtoll(%q) = %d, %v; want %d, %v", tt.s, n, ok, tt.n, tt.ok)
		}
	}
}

// TestIBHCAFilter holds NCCL_IB_HCA to ncclIbInitDevices (NCCL
// src/transport/net_ib/init.cc: "searchNot = userIbEnv[0] == '^'", then
// "searchExact = userIbEnv[0] == '='", then matchIfList(...) ^ searchNot)
// and src/misc/utils.cc matchIf (a prefix unless exact).
func TestIBHCAFilter(t *testing.T) {
	for _, tt := range []struct {
		value string
		takes map[string]bool
	}{
		{"mlx5", map[string]bool{"mlx5_0": true, "mlx5_10": true, "ibp1s0": false}},
		{"mlx5_1", map[string]bool{"mlx5_1": true, "mlx5_10": true, "mlx5_0": false}},
		{"=mlx5_1", map[string]bool{"mlx5_1": true, "mlx5_10": false}},
		{"=mlx5_0:1,mlx5_3:1", map[string]bool{"mlx5_0": true, "mlx5_3": true, "mlx5_1": false}},
		{"^mlx5_0", map[string]bool{"mlx5_0": false, "mlx5_01": false, "mlx5_1": true}},
		{"^=mlx5_0", map[string]bool{"mlx5_0": false, "mlx5_01": true}},
		{"=^mlx5_0", map[string]bool{"mlx5_0": false, "^mlx5_0": true}}, // '=' first: '^' is part of the name
		{"", map[string]bool{"mlx5_0": true}},
		{"^", map[string]bool{"mlx5_0": false}}, // an empty list matches every device, negated: none
	} {
		a := &analysis{env: map[string]string{"NCCL_IB_HCA": tt.value}}
		f := a.ibHCAFilter()
		for dev, want := range tt.takes {
			if got := f.takes(dev); got != want {
				t.Errorf("NCCL_IB_HCA=%q takes %s = %v, want %v", tt.value, dev, got, want)
			}
		}
	}
	if f := (&analysis{}).ibHCAFilter(); f.set || !f.takes("anything") {
		t.Errorf("unset NCCL_IB_HCA: %+v, want every device", f)
	}
}

func TestKernelVersion(t *testing.T) {
	for _, tt := range []struct {
		cmdline      string
		major, minor int
		ok           bool
	}{
		{"BOOT_IMAGE=/vmlinuz-5.15.0-91-generic root=UUID=x ro", 5, 15, true},
		{"BOOT_IMAGE=(hd0,gpt2)/vmlinuz-6.8.0-45-generic ro", 6, 8, true},
		{"BOOT_IMAGE=/boot/vmlinuz-4.18.0-513.el8.x86_64 ro", 4, 18, true},
		{"ro quiet", 0, 0, false},
		{"BOOT_IMAGE=/vmlinu", 0, 0, false},
		{"BOOT_IMAGE=/vmlinuz-", 0, 0, false},
		{"BOOT_IMAGE=/vmlinuz-6", 0, 0, false},
		{"BOOT_IMAGE=/vmlinuz-6.", 0, 0, false},
		{"vmlinuz-x vmlinux-5.4-rc", 5, 4, true},
		{"vmlinuy-1.2 vmlinuz-3.10.0", 3, 10, true},
		{"BOOT_IMAGE=/vmlinux-6.1.0 vmlinuz-5.4.0", 6, 1, true},
	} {
		if ma, mi, ok := kernelVersion(tt.cmdline); ma != tt.major || mi != tt.minor || ok != tt.ok {
			t.Errorf("kernelVersion(%q) = %d.%d %v", tt.cmdline, ma, mi, ok)
		}
	}
}

// v100XML is an NCCL topology file: two V100s (sm 70) and a ConnectX NIC
// under one PCIe switch, the GPUs joined by NVLINK when nvlink is set.
func v100XML(nvlink bool) string {
	link := func(target string) string {
		if !nvlink {
			return ""
		}
		return `<nvlink target="` + target + `" count="2" tclass="0x030200"/>`
	}
	return `<system version="1">
  <cpu numaid="0" affinity="0000ffff" arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="85">
    <pci busid="0000:02:00.0" class="0x060400" vendor="0x10b5" device="0x8764" link_speed="8.0 GT/s PCIe" link_width="16">
      <pci busid="0000:03:00.0" class="0x030200" vendor="0x10de" device="0x1db1" link_speed="8.0 GT/s PCIe" link_width="16">
        <gpu dev="0" sm="70" rank="0" gdr="1">` + link("0000:04:00.0") + `</gpu>
      </pci>
      <pci busid="0000:04:00.0" class="0x030200" vendor="0x10de" device="0x1db1" link_speed="8.0 GT/s PCIe" link_width="16">
        <gpu dev="1" sm="70" rank="1" gdr="1">` + link("0000:03:00.0") + `</gpu>
      </pci>
      <pci busid="0000:05:00.0" class="0x020700" vendor="0x15b3" device="0x1017" link_speed="8.0 GT/s PCIe" link_width="16">
        <nic><net name="mlx5_0" dev="0" speed="100000" port="1" gdr="1"/></nic>
      </pci>
    </pci>
  </cpu>
</system>`
}

// TestCheckGdrNCCLXML: reads follow NVLink as the NCCL file shows it
// (paths.cc: PATH_NVL peer or a single GPU keeps pre-Ampere reads on).
func TestCheckGdrNCCLXML(t *testing.T) {
	for _, tt := range []struct {
		nvlink  bool
		version string
		read    bool
	}{{true, "", true}, {false, "", false}, {true, "2.18.6", true}, {false, "2.18.6", false}} {
		g, err := ncclxml.Parse("v100.xml", []byte(v100XML(tt.nvlink)))
		if err != nil {
			t.Fatal(err)
		}
		r := analyze(t, g, Options{NCCLVersion: tt.version})
		for _, p := range r.Predictions {
			if !p.GDR || p.GDRRead != tt.read || p.GDRUnknown != "" {
				t.Errorf("NVLink %v, NCCL %q: %s–%s GDR %v read %v (%s; unknown %q), want on, read %v",
					tt.nvlink, tt.version, p.GPU.BDF(), p.NIC.BDF(), p.GDR, p.GDRRead, p.GDRReason, p.GDRUnknown, tt.read)
			}
		}
		if len(r.Predictions) != 2 {
			t.Errorf("%d predictions, want 2", len(r.Predictions))
		}
	}
}

// TestRCCLGDRUndecided: NCCL's rule turns GDR off for a PHB pair, but
// RCCL's may turn it on for an AMD GPU (ROCm/rccl src/graph/paths.cc):
// ncclTopoCheckGdr's level PHB on what topo.cc calls ROME (Zen 2 from model
// 0x31, Zen 3/4) for a GPU and NIC on one CPU whose bus numbers share their
// high digit, and rcclPathOverride on Intel Hyper-V VMs with MI300-class
// GPUs. Where one may apply the verdict is off and undecided; where none
// can (an Intel host, buses apart, NVIDIA, NCCL_NET_GDR_LEVEL set, which
// RCCL honours first) it stays decided.
func TestRCCLGDRUndecided(t *testing.T) {
	zen3 := func(b *builder) {
		b.g.System.CPUVendor, b.g.System.CPUFamily, b.g.System.CPUModelID = "AuthenticAMD", 25, 1
	}
	for _, tt := range []struct {
		name    string
		vendor  uint16
		device  uint16
		setup   func(b *builder, nic *topology.Device)
		env     map[string]string
		undecid bool
	}{
		{"AMD GPU on Zen 3", topology.VendorAMD, 0x74a1, func(b *builder, _ *topology.Device) { zen3(b) }, nil, true},
		{"AMD GPU on Zen 3, buses apart", topology.VendorAMD, 0x74a1, func(b *builder, nic *topology.Device) { zen3(b); nic.Addr.Bus = 0x2c }, nil, false},
		{"AMD GPU on Intel bare metal", topology.VendorAMD, 0x74a1, func(*builder, *topology.Device) {}, nil, false},
		{"MI300X VF in an Intel VM", topology.VendorAMD, 0x74b5, func(b *builder, _ *topology.Device) { b.g.Platform.Hypervisor = true }, nil, true},
		{"NVIDIA GPU on Zen 3", topology.VendorNVIDIA, 0x2330, func(b *builder, _ *topology.Device) { zen3(b) }, nil, false},
		{"AMD GPU on Zen 3 with NCCL_NET_GDR_LEVEL", topology.VendorAMD, 0x74a1, func(b *builder, _ *topology.Device) { zen3(b) },
			map[string]string{"NCCL_NET_GDR_LEVEL": "PXB"}, false},
	} {
		b, gpu, nic := phb()
		gpu.VendorID, gpu.DeviceID = tt.vendor, tt.device
		tt.setup(b, nic)
		r := analyze(t, b.graph(), Options{Env: tt.env})
		if len(r.Predictions) != 1 {
			t.Fatalf("%s: %d predictions", tt.name, len(r.Predictions))
		}
		p := r.Predictions[0]
		if got := strings.Contains(p.GDRUnknown, "RCCL"); p.GDR || got != tt.undecid {
			t.Errorf("%s: GDR %v, undecided %q, want off and RCCL's doubt %v", tt.name, p.GDR, p.GDRUnknown, tt.undecid)
		}
	}
}
