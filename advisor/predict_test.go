package advisor

import (
	"reflect"
	"strings"
	"testing"

	"github.com/gdtopo/gdtopo/topology"
)

func TestLinkGbps(t *testing.T) {
	m := DefaultModel()
	tests := []struct {
		name string
		link topology.Link
		mps  int
		want float64
	}{
		// 16 GT/s × 16 × 128/130 = 252.0615; × 256/(256+24) = 230.4563
		{"Gen4 x16 MPS 256", topology.Link{CurrentGTs: 16, CurrentWidth: 16}, 256, 230.4563},
		// 32 × 16 × 128/130 = 504.1231; × 256/280 = 460.9125
		{"Gen5 x16 MPS 256", topology.Link{CurrentGTs: 32, CurrentWidth: 16}, 256, 460.9125},
		// 8 × 8 × 128/130 = 63.0154; × 128/152 = 53.0656
		{"Gen3 x8 MPS 128", topology.Link{CurrentGTs: 8, CurrentWidth: 8}, 128, 53.0656},
		// 2.5 × 16 × 8/10 = 32; × 256/280 = 29.2571
		{"Gen1 x16 MPS 256", topology.Link{CurrentGTs: 2.5, CurrentWidth: 16}, 256, 29.2571},
		// 5 × 4 × 8/10 = 16; × 512/536 = 15.2836
		{"Gen2 x4 MPS 512", topology.Link{CurrentGTs: 5, CurrentWidth: 4}, 512, 15.2836},
		{"unknown", topology.Link{}, 256, 0},
	}
	for _, tt := range tests {
		if got := m.linkGbps(tt.link, tt.mps); !near(got, tt.want) {
			t.Errorf("%s: linkGbps = %.4f, want %.4f", tt.name, got, tt.want)
		}
	}
}

func TestPredict(t *testing.T) {
	gen5x16 := topology.Link{CurrentGTs: 32, CurrentWidth: 16, MaxGTs: 32, MaxWidth: 16}
	tests := []struct {
		name      string
		build     func() (*builder, *topology.Device, *topology.Device)
		expected  float64
		write     float64 // NIC writes GPU memory; 0: as expected
		nic       float64
		gdr       bool
		staged    float64
		uncertain string // substring of an Uncertain line, "" for none checked
	}{
		{
			// Gen4 x16 everywhere: path 230.456; NIC min(200, 230.456) = 200.
			name: "PIX, NIC-limited", build: pix, expected: 200, nic: 200, gdr: true,
		},
		{
			// GPU Gen4 x16 (230.456) is the bottleneck; NIC min(400, Gen5 x16 460.913) = 400.
			name: "PIX, PCIe-limited 400G NIC",
			build: func() (*builder, *topology.Device, *topology.Device) {
				b, g, n := pix()
				n.Link, n.PortRateGbps = gen5x16, 400
				return b, g, n
			},
			expected: 230.456, nic: 400, gdr: true,
		},
		{
			// Intel root complex: write 230.456 × 5/6 = 192.047; read × 0.43 (the
			// low end of read_factor_min..max) = 82.580. NCCL PHB > P2C: no GDR;
			// staged: min(400, GPU 230.456, NIC 460.913) × 0.65 = 149.797.
			name: "PHB, Intel",
			build: func() (*builder, *topology.Device, *topology.Device) {
				b, g, n := phb()
				n.Link, n.PortRateGbps = gen5x16, 400
				return b, g, n
			},
			expected: 82.580, write: 192.047, nic: 400, gdr: false, staged: 149.797,
		},
		{
			// AMD Zen 3: write at the path's rate (stackoverflow.com/q/59277346): 230.456; read × 0.43
			// = 99.096; staged 230.456 × 0.65 = 149.797.
			name: "PHB, AMD",
			build: func() (*builder, *topology.Device, *topology.Device) {
				b, g, n := phb()
				b.g.System.CPUVendor, b.g.System.CPUFamily, b.g.System.CPUModelID = "AuthenticAMD", 25, 1
				n.Link, n.PortRateGbps = gen5x16, 400
				return b, g, n
			},
			expected: 99.096, write: 230.456, nic: 400, gdr: false, staged: 149.797,
		},
		{
			// Skylake-SP: write min(230.456, 200) × 5/6 = 166.667, capped at NCCL's
			// 10 GB/s × 8 = 80 (below sys_p2p_gbps 92.275); read 166.667 × 0.43 = 71.667.
			// Staged: min(200, 230.456, 230.456, 80) × 0.65 = 52.
			name: "SYS, Intel Skylake",
			build: func() (*builder, *topology.Device, *topology.Device) {
				b, g, n := sys()
				b.g.System.CPUModelID = 0x55
				return b, g, n
			},
			expected: 71.667, write: 80, nic: 200, gdr: false, staged: 52,
		},
		{
			// Sapphire Rapids: write capped at sys_p2p_gbps 92.275 (NCCL's 176 does not
			// bite); read 71.667. Staged: min(200, 230.456, 176) × 0.65 = 114.4,
			// above GDR's 92.275: capped at 92.275 × 65/85 = 70.563 (sys_staged_per_gdr).
			name: "SYS, Intel Sapphire Rapids", build: sys, expected: 71.667, write: 92.275, nic: 200, gdr: false, staged: 70.563,
		},
		{
			// MPS 128 read from DevCtl: 252.0615 × 128/152 = 212.262; NIC Gen5 at
			// MPS 128: 504.123 × 128/152 = 424.524, port 400.
			name: "PIX, MPS 128",
			build: func() (*builder, *topology.Device, *topology.Device) {
				b, g, n := pix()
				for _, d := range b.g.Devices {
					d.MaxPayload = 128
				}
				n.Link, n.PortRateGbps = gen5x16, 400
				return b, g, n
			},
			expected: 212.262, nic: 400, gdr: true,
		},
		{
			// ACS redirect on the GPU's downstream port: up to the root complex
			// through an x8 uplink: 16 × 8 × 128/130 × 256/280 = 115.228, × 5/6 = 96.024.
			name: "PIX, ACS redirect, x8 uplink",
			build: func() (*builder, *topology.Device, *topology.Device) {
				b, g, n := pix()
				g.Parent.ACSRedirect = true
				usp := g.Parent.Parent
				usp.Link.CurrentWidth, usp.Link.MaxWidth = 8, 8
				n.PortRateGbps = 400
				return b, g, n
			},
			expected: 41.290, write: 96.024, nic: 230.456, gdr: true,
		},
		{
			// IOMMU group type DMA: via the root ports, 230.456 × 5/6 = 192.047, × 0.9 = 172.842;
			// read 192.047 × 0.43 × 0.9 = 74.322.
			name: "PIX, IOMMU translating",
			build: func() (*builder, *topology.Device, *topology.Device) {
				b, g, n := pix()
				b.g.Platform.IOMMUGroupTypes = map[string]string{"7": "DMA"}
				g.IOMMUGroup = "7"
				n.Link, n.PortRateGbps = gen5x16, 400
				return b, g, n
			},
			expected: 74.322, write: 172.842, nic: 400, gdr: true, uncertain: "incompatible with GPUDirect RDMA",
		},
		{
			name: "port rate unknown",
			build: func() (*builder, *topology.Device, *topology.Device) {
				b, g, n := pix()
				n.PortRateGbps = 0
				return b, g, n
			},
			expected: 230.456, nic: 230.456, gdr: true, uncertain: "port rate of",
		},
		{
			name: "DevCtl unreadable",
			build: func() (*builder, *topology.Device, *topology.Device) {
				b, g, n := pix()
				for _, d := range b.g.Devices {
					d.DevCtlKnown, d.MaxPayload = false, 0
				}
				return b, g, n
			},
			expected: 200, nic: 200, gdr: true, uncertain: "256 B assumed",
		},
		{
			// No peer memory on kernel 5.4, before RDMA dma-buf: GDR off; staged
			// min(200, 230.456, 230.456) × 0.65 = 130.
			name: "no peer memory, kernel 5.4",
			build: func() (*builder, *topology.Device, *topology.Device) {
				b, g, n := pix()
				b.g.Platform.PeerMemory = nil
				b.g.System.Cmdline = "BOOT_IMAGE=/vmlinuz-5.4.0-42-generic ro"
				return b, g, n
			},
			expected: 200, nic: 200, gdr: false, staged: 130,
		},
		{
			// Kernel 6.8: dma-buf applies if the driver is the open one, which
			// sysfs does not show: GDR on, undecided.
			name: "no peer memory, kernel 6.8",
			build: func() (*builder, *topology.Device, *topology.Device) {
				b, g, n := pix()
				b.g.Platform.PeerMemory = nil
				b.g.System.Cmdline = "BOOT_IMAGE=/boot/vmlinuz-6.8.0-45-generic ro"
				return b, g, n
			},
			expected: 200, nic: 200, gdr: true, uncertain: "open NVIDIA kernel module",
		},
		{
			name: "peer memory not captured",
			build: func() (*builder, *topology.Device, *topology.Device) {
				b, g, n := pix()
				b.g.Platform.PeerMemory, b.g.Platform.ModulesRead = nil, false
				return b, g, n
			},
			expected: 200, nic: 200, gdr: true, uncertain: "peer-memory evidence not captured",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, g, n := tt.build()
			r := analyze(t, b.graph(), Options{})
			p := pred(t, r, g, n)
			// Without the NIC's port rate the figures are ceilings, and so
			// is the rail plan that uses them.
			if ceiling := n.PortRateGbps <= 0; p.AtMost != ceiling || r.Plan.AtMost != ceiling || len(r.Plan.Assignments) != 1 || r.Plan.Assignments[0].AtMost != ceiling {
				t.Errorf("AtMost %v, plan %v %+v; want %v", p.AtMost, r.Plan.AtMost, r.Plan.Assignments, ceiling)
			}
			if !near(p.ExpectedGbps, tt.expected) || !near(p.NICGbps, tt.nic) {
				t.Errorf("expected %.3f, NIC %.3f; want %.3f, %.3f\n%s", p.ExpectedGbps, p.NICGbps, tt.expected, tt.nic, explain(p))
			}
			if w := max(tt.write, tt.expected); !near(p.ExpectedWriteGbps, w) || !near(p.ExpectedGbps, min(p.ExpectedWriteGbps, p.ExpectedReadGbps)) {
				t.Errorf("write %.3f read %.3f, want write %.3f and expected the lower", p.ExpectedWriteGbps, p.ExpectedReadGbps, w)
			}
			if p.PathGbps > 0 && p.ExpectedGbps > p.PathGbps+1e-9 {
				t.Errorf("expected %.3f above the path's %.3f", p.ExpectedGbps, p.PathGbps)
			}
			if p.GDR != tt.gdr || !near(p.HostStagedGbps, tt.staged) {
				t.Errorf("GDR %v (%s), staged %.3f; want %v, %.3f", p.GDR, p.GDRReason, p.HostStagedGbps, tt.gdr, tt.staged)
			}
			if eff := p.ExpectedGbps / p.NICGbps; !near(p.Efficiency, min(1, eff)) {
				t.Errorf("efficiency %.3f, want %.3f", p.Efficiency, eff)
			}
			if tt.uncertain != "" && !strings.Contains(strings.Join(append(p.Uncertain, p.GDRUnknown), "\n"), tt.uncertain) {
				t.Errorf("Uncertain %q lacks %q", p.Uncertain, tt.uncertain)
			}
			if last := p.Explain[len(p.Explain)-1]; !p.GDR && !near(last.Value, p.HostStagedGbps) || p.GDR && !near(last.Value, p.ExpectedGbps) {
				t.Errorf("last explain step %+v does not match the prediction", last)
			}
		})
	}
}

func explain(p Prediction) string {
	var b strings.Builder
	for _, s := range p.Explain {
		b.WriteString("  " + s.What + "\n")
	}
	return b.String()
}

func TestGDRRules(t *testing.T) {
	tests := []struct {
		name     string
		version  string
		build    func() (*builder, *topology.Device, *topology.Device)
		device   uint16 // accelerator device ID; 0 keeps the A100
		nvswitch bool
		nvlink   bool // the two accelerators joined by NVLink
		xml      bool // the source is an NCCL topology file, which shows NVLinks
		gdr      bool
		read     bool
		reason   string
		unknown  string // substring of GDRUnknown; "" wants it empty
	}{
		{name: "PIX, 2.30.7", build: pix, gdr: true, read: true},
		{name: "PHB, 2.30.7: level P2C", build: phb, reason: "distance PHB > GDR level P2C"},
		{name: "PHB, 2.28: level PXB", version: "2.28.3", build: phb, reason: "distance PHB > GDR level PXB"},
		{name: "SYS", build: sys, reason: "distance SYS"},
		// paths.cc ncclTopoCheckGdr, read=1 with NCCL_NET_GDR_READ at -2.
		{name: "V100, NCCL XML without NVLink: reads off", build: pixTwo, device: 0x1db1, xml: true, gdr: true, reason: "pre-Ampere"},
		{name: "V100, NCCL XML with NV2: reads on", build: pixTwo, device: 0x1db1, xml: true, nvlink: true, gdr: true, read: true},
		{name: "V100, sysfs: NVLink unseen, undecided", build: pixTwo, device: 0x1db1, gdr: true, read: true, unknown: "NVLink is not visible"},
		{name: "V100, sysfs with NVSwitch: still undecided", build: pixTwo, device: 0x1db1, nvswitch: true, gdr: true, read: true, unknown: "NVLink is not visible"},
		{name: "V100 alone: reads on", build: pix, device: 0x1db1, gdr: true, read: true},
		{name: "A100 under 2.18: reads off for every GPU", version: "2.18", build: pixTwo, xml: true, gdr: true, reason: "every GPU before NCCL 2.19"},
		{name: "A100 under 2.19", version: "v2.19.3-1", build: pixTwo, gdr: true, read: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, g, n := tt.build()
			if tt.device != 0 {
				for _, d := range b.g.Devices {
					if d.Kind == topology.KindAccelerator {
						d.DeviceID = tt.device
					}
				}
			}
			if tt.nvswitch {
				s := b.dev("0000:f0:00.0", b.g.HostBridges[0], topology.KindNVSwitch, topology.RoleNone)
				s.VendorID = topology.VendorNVIDIA
			}
			b.g.NCCLView = tt.xml
			if tt.nvlink {
				acc := b.g.OfKind(topology.KindAccelerator)
				b.g.NVLinks = []topology.NVLink{{A: acc[0].Addr, B: acc[1].Addr, Count: 2}}
			}
			p := pred(t, analyze(t, b.graph(), Options{NCCLVersion: tt.version}), g, n)
			if p.GDR != tt.gdr || p.GDRRead != tt.read || !strings.Contains(p.GDRReason, tt.reason) {
				t.Errorf("GDR %v read %v reason %q; want %v %v containing %q", p.GDR, p.GDRRead, p.GDRReason, tt.gdr, tt.read, tt.reason)
			}
			if (tt.unknown == "") != (p.GDRUnknown == "") || !strings.Contains(p.GDRUnknown, tt.unknown) {
				t.Errorf("GDRUnknown %q, want %q", p.GDRUnknown, tt.unknown)
			}
			if !p.GDRRead && p.HostStagedGbps == 0 {
				t.Errorf("send side staged but HostStagedGbps is 0")
			}
		})
	}
}

// pixTwo is pix with a second accelerator on the switch.
func pixTwo() (*builder, *topology.Device, *topology.Device) {
	b, g, n := pix()
	p := b.port(g.Parent.Parent, 2)
	b.gpu(below(p, 2), p)
	return b, g, n
}

func TestNICWithoutRDMA(t *testing.T) {
	b, g, n := pix()
	p2 := b.port(g.Parent.Parent, 2)
	eth := b.nic(below(p2, 2), p2, "x")
	eth.RDMA, eth.Netdevs = nil, []string{"eth0"}
	r := analyze(t, b.graph(), Options{})
	if p := pred(t, r, g, eth); p.GDR || !strings.Contains(p.GDRReason, "has no RDMA") {
		t.Errorf("Ethernet-only NIC: GDR %v %q, want off for no RDMA device", p.GDR, p.GDRReason)
	}
	if p := pred(t, r, g, n); !p.GDR {
		t.Errorf("RDMA NIC: GDR off: %s", p.GDRReason)
	}
	if len(r.Plan.Assignments) != 1 || r.Plan.Assignments[0].NIC != n {
		t.Errorf("plan should use only the RDMA NIC: %+v", r.Plan.Assignments)
	}
}

func TestNCCLVersions(t *testing.T) {
	b, _, _ := pix()
	g := b.graph()
	for _, v := range []string{"", "2.30.7", "2.12", "v2.27.5-1", "2.31.0"} {
		r, err := Analyze(g, nil, Options{NCCLVersion: v})
		if err != nil {
			t.Errorf("version %q: %v", v, err)
			continue
		}
		newer := strings.Contains(strings.Join(r.Predictions[0].Uncertain, "\n"), "is newer than")
		if newer != (v == "2.31.0") {
			t.Errorf("version %q: newer-than note %v", v, newer)
		}
	}
	for _, v := range []string{"2", "2.x", "1.9.0", "2.11.4", "3.0", "2.30.7.1"} {
		if _, err := Analyze(g, nil, Options{NCCLVersion: v}); err == nil {
			t.Errorf("version %q: no error", v)
		}
	}
	if got := SupportedNCCLVersions(); got[len(got)-1] != DefaultNCCLVersion || got[0] != "2.12" {
		t.Errorf("SupportedNCCLVersions = %v", got)
	}
}

// TestInvariants checks, on a machine with every kind of path and equal
// links and NICs, for every CPU: (1) a same-switch pair is predicted at
// least as fast as any pair through a host bridge; (2) degrading any link
// never makes a pair faster; (3) efficiency stays in [0, 1].
func TestInvariants(t *testing.T) {
	cpus := []struct {
		vendor        string
		family, model int
	}{{"GenuineIntel", 6, 0x3f}, {"GenuineIntel", 6, 0x55}, {"GenuineIntel", 6, 0xcf}, {"AuthenticAMD", 25, 1}, {"", -1, -1}, {"CentaurHauls", 7, 0x5b}}
	build := func(vendor string, family, model int) *builder {
		b, _, _ := rails(4, 2) // switches 0,1 (socket 0) hold a NIC each; 2,3 (socket 1) do not
		h := b.g.HostBridges[0]
		r := b.rootPort(h, 4)
		b.gpu(endpoint(r), r) // PHB to both NICs
		b.g.System.CPUVendor, b.g.System.CPUFamily, b.g.System.CPUModelID = vendor, family, model
		for _, d := range b.g.OfKind(topology.KindNIC) {
			// 400G on Gen5 x16 (NIC 400) behind Gen4 x16 accelerators: the path decides.
			d.PortRateGbps, d.Link = 400, topology.Link{CurrentGTs: 32, CurrentWidth: 16, MaxGTs: 32, MaxWidth: 16}
		}
		return b
	}
	for _, c := range cpus {
		bg := build(c.vendor, c.family, c.model).graph()
		base := analyze(t, bg, Options{})
		worstLocal, bestFar := 1e9, 0.0
		for _, p := range base.Predictions {
			if p.Efficiency < 0 || p.Efficiency > 1 {
				t.Errorf("%s: efficiency %g out of [0,1]", c.vendor, p.Efficiency)
			}
			l := bg.Classify(p.GPU, p.NIC).SMI == topology.PIX
			if l && p.ExpectedGbps < worstLocal {
				worstLocal = p.ExpectedGbps
			}
			if !l && p.ExpectedGbps > bestFar {
				bestFar = p.ExpectedGbps
			}
		}
		if worstLocal < bestFar {
			t.Errorf("%s: a same-switch pair (%.1f) is predicted slower than a cross-host-bridge pair (%.1f)", c.vendor, worstLocal, bestFar)
		}
		// Degrade each link in turn, in width and in speed.
		n := len(build(c.vendor, c.family, c.model).g.Devices)
		for i := 0; i < n; i++ {
			for _, mode := range []string{"width", "speed"} {
				b := build(c.vendor, c.family, c.model)
				g := b.graph()
				d := g.Devices[i]
				if mode == "width" {
					d.Link.CurrentWidth = 4
				} else {
					d.Link.CurrentGTs = 2.5
				}
				r := analyze(t, g, Options{})
				for j, p := range r.Predictions {
					if was := base.Predictions[j].ExpectedGbps; p.ExpectedGbps > was+1e-9 {
						t.Errorf("%s: degrading %s's %s made %s–%s faster: %.2f > %.2f", c.vendor, d.BDF(), mode, p.GPU.BDF(), p.NIC.BDF(), p.ExpectedGbps, was)
					}
					if p.Efficiency < 0 || p.Efficiency > 1 {
						t.Errorf("efficiency %g out of [0,1]", p.Efficiency)
					}
				}
			}
		}
	}
}

// TestSkipExplain: SkipExplain changes nothing but the missing arithmetic.
func TestSkipExplain(t *testing.T) {
	b, _, _ := rails(4, 2)
	h := b.g.HostBridges[0]
	r := b.rootPort(h, 4)
	b.gpu(endpoint(r), r) // PHB to both NICs
	for _, vendor := range []string{"GenuineIntel", "AuthenticAMD", ""} {
		b.g.System.CPUVendor = vendor
		g := b.graph()
		full := analyze(t, g, Options{})
		terse := analyze(t, g, Options{SkipExplain: true})
		for i := range full.Predictions {
			if len(full.Predictions[i].Explain) == 0 || terse.Predictions[i].Explain != nil {
				t.Fatalf("%s: Explain has %d and %d steps; want some, and none with SkipExplain", vendor,
					len(full.Predictions[i].Explain), len(terse.Predictions[i].Explain))
			}
			full.Predictions[i].Explain = nil
		}
		if !reflect.DeepEqual(full, terse) {
			t.Errorf("%s: results differ with SkipExplain beyond Explain", vendor)
		}
	}
}

// TestIvyBridgeReads: reads through an Ivy Bridge-EP root complex (family
// 6, model 0x3e) are limited as on Sandy Bridge: the read range starts at
// Sandy Bridge's factor, single-digit Gb/s on an FDR path, not at the
// generic server-CPU factor.
func TestIvyBridgeReads(t *testing.T) {
	b, g, n := phb()
	withLinks(b, gen3x16)
	b.g.System.CPUModelID = 0x3e
	n.PortRateGbps = 56
	p := pred(t, analyze(t, b.graph(), Options{}), g, n)
	if p.ExpectedReadGbps >= 10 || p.ExpectedReadMaxGbps <= p.ExpectedReadGbps {
		t.Errorf("read %.1f-%.1f Gb/s, want a range from single digits", p.ExpectedReadGbps, p.ExpectedReadMaxGbps)
	}
}
