package advisor

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gdtopo/gdtopo/topology"
)

// faultCase is a clean 8-accelerator/8-NIC machine with one fault.
type faultCase struct {
	name     string
	fault    func(b *builder, gpus, nics []*topology.Device)
	build    func() *topology.Graph // instead of rails(8, 8) + fault
	code     string
	severity Severity
	device   string // a BDF that Devices must hold, "" to skip
	remedy   string // substring of the remedy, "" to skip
	noRemedy bool   // the finding must offer none: it would not change the path's outcome
}

var faultCases = []faultCase{
	{name: "ACS redirect on a switch port of a PIX path", code: "acs-redirect", severity: Critical,
		fault:  func(b *builder, g, n []*topology.Device) { g[0].Parent.ACSRedirect = true },
		device: "0000:02:00.0", remedy: "setpci -s 0000:02:00.0 ECAP_ACS+0x6.w=0000\n"},
	{name: "ACS redirect: kernel parameter", code: "acs-redirect", severity: Critical,
		fault: func(b *builder, g, n []*topology.Device) {
			g[0].Parent.ACSRedirect, n[1].Parent.ACSRedirect = true, true
		},
		remedy: "pci=disable_acs_redir=0000:02:00.0;0000:12:01.0"},
	{name: "ACS redirect on a root port, only on PHB+ paths", code: "acs-redirect", severity: Info,
		fault: func(b *builder, g, n []*topology.Device) { g[0].Parent.Parent.Parent.ACSRedirect = true }, device: "0000:00:01.0", noRemedy: true},
	{name: "ACS redirect in a VM: ATS", code: "acs-redirect", severity: Critical,
		fault: func(b *builder, g, n []*topology.Device) {
			g[0].Parent.ACSRedirect, b.g.Platform.Hypervisor = true, true
		},
		remedy: "mlxconfig -d 0000:05:00.0 set ATS_ENABLED=true"},
	{name: "ACS unreadable", code: "acs-unknown", severity: Info,
		fault:  func(b *builder, g, n []*topology.Device) { g[3].Parent.ACSKnown = false },
		device: "0000:32:00.0", remedy: "root"},
	{name: "IOMMU group in DMA mode", code: "iommu-translation", severity: Critical,
		fault: func(b *builder, g, n []*topology.Device) {
			b.g.Platform.IOMMUs, b.g.Platform.IOMMUGroupTypes = []string{"dmar0"}, map[string]string{"3": "DMA-FQ"}
			n[2].IOMMUGroup = "3"
		},
		device: "0000:25:00.0", remedy: "intel_iommu=on iommu=pt"},
	{name: "IOMMU present, no iommu=pt, AMD", code: "iommu-translation", severity: Critical,
		fault: func(b *builder, g, n []*topology.Device) {
			b.g.System.CPUVendor, b.g.Platform.IOMMUs = "AuthenticAMD", []string{"ivhd0"}
		},
		remedy: "\niommu=pt\n"},
	{name: "IOMMU translating in a VM", code: "iommu-translation", severity: Warning,
		fault: func(b *builder, g, n []*topology.Device) {
			b.g.Platform.IOMMUs, b.g.Platform.Hypervisor = []string{"dmar0"}, true
		}},
	{name: "Arm SMMU (Grace)", code: "iommu-translation", severity: Info,
		fault:  func(b *builder, g, n []*topology.Device) { b.g.Platform.IOMMUs = []string{"smmu3.0x16000000"} },
		remedy: "Grace"},
	{name: "GPU link at x8", code: "link-width-degraded", severity: Warning,
		fault:  func(b *builder, g, n []*topology.Device) { g[1].Link.CurrentWidth = 8 },
		device: "0000:14:00.0", remedy: "setpci -s 0000:12:00.0 CAP_EXP+0x10.w=0020:0020"},
	{name: "switch uplink at x8", code: "link-width-degraded", severity: Warning,
		fault: func(b *builder, g, n []*topology.Device) { g[1].Parent.Parent.Link.CurrentWidth = 8 }, device: "0000:11:00.0"},
	{name: "idle GPU at 2.5 GT/s", code: "link-speed-degraded", severity: Info,
		fault:  func(b *builder, g, n []*topology.Device) { g[4].Link.CurrentGTs = 2.5 },
		device: "0000:44:00.0", remedy: "load"},
	{name: "NIC at 8 GT/s", code: "link-speed-degraded", severity: Warning,
		fault: func(b *builder, g, n []*topology.Device) { n[4].Link.CurrentGTs = 8 }, device: "0000:45:00.0"},
	{name: "NICs only through the host bridge", code: "no-local-nic", severity: Warning,
		build: func() *topology.Graph {
			b, _, _ := phb()
			return b.graph()
		},
		remedy: "NCCL_NET_GDR_LEVEL=PHB"},
	{name: "only a virtio NIC", code: "no-rdma-nic", severity: Warning,
		build: func() *topology.Graph {
			b, _, nic := phb()
			nic.VendorID, nic.DeviceID, nic.RDMA, nic.Netdevs = 0x1af4, 0x1041, nil, []string{"eth0"}
			return b.graph()
		},
		device: "0000:0c:00.0", remedy: "add an InfiniBand or RoCE NIC"},
	{name: "ConnectX without an RDMA device, sys/class/infiniband read", code: "no-rdma-nic", severity: Warning,
		fault: func(b *builder, g, n []*topology.Device) {
			b.g.System.RDMAListed = true
			for _, nic := range n {
				nic.RDMA = nil
			}
		},
		device: "0000:05:00.0", remedy: "load the RDMA driver of 0000:05:00.0, 0000:15:00.0"},
	{name: "NICs only on the other socket", code: "cross-socket", severity: Warning,
		build: func() *topology.Graph {
			b, _, _ := sys()
			return b.graph()
		},
		device: "0000:0b:00.0"},
	{name: "8 GPUs on 2 NICs", code: "nic-shared", severity: Info,
		build: func() *topology.Graph {
			b, _, _ := rails(8, 2)
			return b.graph()
		},
		device: "0000:05:00.0"},
	{name: "two flows through one x16 uplink", code: "nic-shared", severity: Warning,
		build: func() *topology.Graph {
			b := newBuilder()
			h, rp := b.hb(0)
			usp := b.sw(rp)
			for i := 0; i < 2; i++ {
				p := b.port(usp, i)
				b.gpu(below(p, i), p)
				r := b.rootPort(h, 2+i)
				b.nic(endpoint(r), r, "mlx5_"+string(rune('0'+i)))
			}
			return b.graph()
		},
		device: "0000:01:00.0"},
	{name: "two flows through a sub-switch uplink", code: "nic-shared", severity: Warning,
		build: func() *topology.Graph { return subSwitch(false) }, device: "0000:03:00.0"},
	{name: "numa_node -1", code: "numa-unknown", severity: Warning,
		fault:  func(b *builder, g, n []*topology.Device) { g[5].RawNUMANode = -1 },
		device: "0000:54:00.0", remedy: "echo 1 | sudo tee /sys/bus/pci/devices/0000:54:00.0/numa_node\n"},
	{name: "no nvidia_peermem, kernel 5.4: dma-buf cannot apply", code: "peer-memory-missing", severity: Warning,
		fault: func(b *builder, g, n []*topology.Device) {
			b.g.Platform.PeerMemory, b.g.System.Cmdline = nil, "BOOT_IMAGE=/vmlinuz-5.4.0-42-generic ro"
		},
		remedy: "modprobe nvidia-peermem"},
	{name: "no nvidia_peermem, kernel 6.8: dma-buf may apply", code: "peer-memory-missing", severity: Info,
		fault: func(b *builder, g, n []*topology.Device) {
			b.g.Platform.PeerMemory, b.g.System.Cmdline = nil, "BOOT_IMAGE=/vmlinuz-6.8.0-45-generic ro"
		},
		remedy: "/proc/driver/nvidia/version"},
	{name: "no nvidia_peermem, kernel 6.8, proprietary driver: no dma-buf", code: "peer-memory-missing", severity: Warning,
		fault: func(b *builder, g, n []*topology.Device) {
			b.g.Platform.PeerMemory, b.g.System.Cmdline = nil, "BOOT_IMAGE=/vmlinuz-6.8.0-45-generic ro"
			b.g.Platform.NVIDIATaint, b.g.Platform.NVIDIATaintRead = "PO", true
		},
		remedy: "modprobe nvidia-peermem"},
	{name: "no nvidia_peermem, kernel 6.8, open kernel module: dma-buf", code: "peer-memory-missing", severity: Info, noRemedy: true,
		fault: func(b *builder, g, n []*topology.Device) {
			b.g.Platform.PeerMemory, b.g.System.Cmdline = nil, "BOOT_IMAGE=/vmlinuz-6.8.0-45-generic ro"
			b.g.Platform.NVIDIATaint, b.g.Platform.NVIDIATaintRead = "O", true
		}},
	{name: "no nvidia_peermem, V100: dma-buf cannot apply", code: "peer-memory-missing", severity: Warning,
		fault: func(b *builder, g, n []*topology.Device) {
			b.g.Platform.PeerMemory, b.g.System.Cmdline = nil, "BOOT_IMAGE=/vmlinuz-6.8.0-45-generic ro"
			for _, d := range g {
				d.DeviceID = 0x1db1
			}
		},
		remedy: "modprobe nvidia-peermem"},
	{name: "no sys/module in the capture", code: "peer-memory-unknown", severity: Info,
		fault: func(b *builder, g, n []*topology.Device) {
			b.g.Platform.PeerMemory, b.g.Platform.ModulesRead = nil, false
		}},
	{name: "NIC MaxReadReq 128", code: "max-read-request-low", severity: Warning,
		fault:  func(b *builder, g, n []*topology.Device) { n[6].MaxReadRequest = 128 },
		device: "0000:65:00.0", remedy: "setpci -s 0000:65:00.0 CAP_EXP+0x8.w=5000:7000"},
	{name: "GPU MaxReadReq 128", code: "max-read-request-low", severity: Warning,
		fault:  func(b *builder, g, n []*topology.Device) { g[6].MaxReadRequest = 128 },
		remedy: "setpci -s 0000:64:00.0 CAP_EXP+0x8.w=1000:7000"},
	{name: "NIC relaxed ordering off", code: "relaxed-ordering-off", severity: Warning,
		fault:  func(b *builder, g, n []*topology.Device) { n[7].RelaxedOrdering = false },
		device: "0000:75:00.0", remedy: "CAP_EXP+0x8.w=0010:0010"},
	{name: "256 MiB BAR1", code: "bar-small", severity: Warning,
		fault: func(b *builder, g, n []*topology.Device) {
			g[7].BARs = []topology.BAR{{Index: 1, Size: 256 << 20, Prefetchable: true}}
		},
		device: "0000:74:00.0", remedy: "Above 4G Decoding"},
	{name: "hypervisor flag", code: "virtual-topology", severity: Warning,
		fault:  func(b *builder, g, n []*topology.Device) { b.g.Platform.Hypervisor = true },
		remedy: "NCCL_TOPO_FILE"},
	{name: "QEMU root port", code: "virtual-topology", severity: Warning,
		fault: func(b *builder, g, n []*topology.Device) {
			rp := g[0].Parent.Parent.Parent
			rp.VendorID, rp.DeviceID = 0x1b36, 0x000c
		}},
	{name: "numa -1 everywhere", code: "virtual-topology", severity: Warning,
		fault: func(b *builder, g, n []*topology.Device) {
			for _, d := range b.g.Devices {
				d.RawNUMANode = -1
			}
		},
		remedy: "_PXM"}, // bare metal without PCI locality reads -1 too: both remedies
}

// subSwitch is a switch whose first port leads to a second switch holding
// two accelerators, with two NICs on the first switch: both planned flows
// cross the second switch's x16 uplink. With bcm, both are one Broadcom
// PEX88000 (Gen4), whose inner level is no physical link.
func subSwitch(bcm bool) *topology.Graph {
	b := newBuilder()
	_, rp := b.hb(0)
	top := b.sw(rp)
	p0 := b.port(top, 0)
	sub := b.dev("0000:03:00.0", p0, topology.KindBridge, topology.RoleUpstream)
	for i := 0; i < 2; i++ {
		d := b.dev(fmt.Sprintf("0000:04:%02x.0", i), sub, topology.KindBridge, topology.RoleDownstream)
		b.gpu(fmt.Sprintf("0000:%02x:00.0", 5+i), d)
		p := b.port(top, 1+i)
		b.nic(fmt.Sprintf("0000:%02x:00.0", 7+i), p, fmt.Sprintf("mlx5_%d", i))
	}
	for _, d := range b.g.Devices {
		if d.Kind == topology.KindBridge && d.Role != topology.RoleRootPort {
			d.VendorID, d.DeviceID, d.SubVendorID, d.SubDeviceID, d.SubsystemKnown = 0x10b5, 0x8796, 0x10b5, 0x8796, true
			if bcm {
				d.VendorID, d.DeviceID, d.SubVendorID, d.SubDeviceID = 0x1000, 0xc010, 0x1000, 0xa096
			}
		}
	}
	return b.graph()
}

func (c faultCase) graph() *topology.Graph {
	if c.build != nil {
		return c.build()
	}
	b, gpus, nics := rails(8, 8)
	c.fault(b, gpus, nics)
	return b.graph()
}

func TestCleanMachineHasNoFindings(t *testing.T) {
	b, _, _ := rails(8, 8)
	r := analyze(t, b.graph(), Options{})
	for _, f := range r.Findings {
		t.Errorf("clean machine: %s %s: %s", f.Severity, f.Code, f.Message)
	}
}

func TestFindingsFire(t *testing.T) {
	emitted := map[string]bool{}
	for _, c := range append(slices.Clone(faultCases), portFaultCases...) {
		t.Run(c.name, func(t *testing.T) {
			r := analyze(t, c.graph(), Options{})
			var got []Finding
			for _, f := range r.Findings {
				emitted[f.Code] = true
				if f.Code == c.code && f.Severity == c.severity {
					got = append(got, f)
					if f.Message == "" || (len(f.Remedy) == 0) != c.noRemedy || f.Evidence == "" {
						t.Errorf("incomplete finding (remedy wanted: %v) %+v", !c.noRemedy, f)
					}
					checkRemedy(t, f)
				}
			}
			if len(got) == 0 {
				t.Fatalf("no %s %s finding; got %+v", c.severity, c.code, r.Findings)
			}
			devOK, remedyOK := c.device == "", c.remedy == ""
			for _, f := range got {
				devOK = devOK || strings.Contains(strings.Join(f.Devices, " "), c.device)
				remedyOK = remedyOK || strings.Contains(remedyText(f), c.remedy)
			}
			if !devOK || !remedyOK {
				t.Errorf("no %s finding with device %q and remedy %q: %+v", c.code, c.device, c.remedy, got)
			}
			for i := 1; i < len(r.Findings); i++ {
				if r.Findings[i].Severity.AtLeast(r.Findings[i-1].Severity) && r.Findings[i].Severity != r.Findings[i-1].Severity {
					t.Errorf("findings not sorted by severity: %s before %s", r.Findings[i-1].Severity, r.Findings[i].Severity)
				}
			}
		})
	}
	for code := range Codes {
		if !emitted[code] {
			t.Errorf("documented code %q is never emitted by a test case", code)
		}
	}
}

// TestFindingsSilent checks near-misses that must not fire.
func TestFindingsSilent(t *testing.T) {
	tests := []struct {
		name  string
		fault func(b *builder, g, n []*topology.Device)
		code  string
	}{
		{"slot narrower than the card: not degraded", func(b *builder, g, n []*topology.Device) {
			g[0].Link.CurrentWidth, g[0].Parent.Link.MaxWidth, g[0].Parent.Link.CurrentWidth = 8, 8, 8
		}, "link-width-degraded"},
		{"IOMMU in passthrough by cmdline", func(b *builder, g, n []*topology.Device) {
			b.g.Platform.IOMMUs, b.g.System.Cmdline = []string{"dmar0"}, "intel_iommu=on iommu=pt"
		}, "iommu-translation"},
		{"IOMMU identity groups", func(b *builder, g, n []*topology.Device) {
			b.g.Platform.IOMMUs, b.g.Platform.IOMMUGroupTypes = []string{"dmar0"}, map[string]string{"1": "identity"}
		}, "iommu-translation"},
		{"ACS redirect off the accelerator–NIC paths", func(b *builder, g, n []*topology.Device) {
			p := b.port(g[0].Parent.Parent, 5)
			p.ACSRedirect = true
			b.dev(below(p, 5), p, topology.KindNVMe, topology.RoleNone)
		}, "acs-redirect"},
		{"MaxReadReq 256", func(b *builder, g, n []*topology.Device) { n[0].MaxReadRequest = 256 }, "max-read-request-low"},
		{"GPU relaxed ordering off is not a NIC's", func(b *builder, g, n []*topology.Device) { g[0].RelaxedOrdering = false }, "relaxed-ordering-off"},
		{"numa -1 on a one-node machine", func(b *builder, g, n []*topology.Device) {
			b.g.System.NUMANodes = b.g.System.NUMANodes[:1]
			g[0].RawNUMANode = -1
		}, "numa-unknown"},
		{"ConnectX with no sys/class/infiniband in the source (an lspci dump)", func(b *builder, g, n []*topology.Device) {
			for _, nic := range n {
				nic.RDMA = nil
			}
		}, "no-rdma-nic"},
		{"management NIC without RDMA is no rail", func(b *builder, g, n []*topology.Device) {
			h := b.g.HostBridges[0]
			r := b.rootPort(h, 6)
			m := b.nic(endpoint(r), r, "x")
			m.RDMA, m.Netdevs, m.PortRateGbps, m.RelaxedOrdering = nil, []string{"eno1"}, 1, false
		}, "relaxed-ordering-off"},
	}
	for _, f := range analyze(t, subSwitch(true), Options{}).Findings {
		if f.Code == "nic-shared" {
			t.Errorf("Broadcom inner link taken for an uplink: %s", f.Message)
		}
	}
	for _, tt := range tests {
		b, gpus, nics := rails(8, 8)
		tt.fault(b, gpus, nics)
		for _, f := range analyze(t, b.graph(), Options{}).Findings {
			if f.Code == tt.code {
				t.Errorf("%s: unexpected %s %s: %s", tt.name, f.Severity, f.Code, f.Message)
			}
		}
	}
}

func TestSeverity(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want Severity
		err  bool
	}{{"critical", Critical, false}, {" Warning", Warning, false}, {"INFO", Info, false}, {"error", "", true}, {"", "", true}} {
		got, err := ParseSeverity(tt.in)
		if got != tt.want || (err != nil) != tt.err {
			t.Errorf("ParseSeverity(%q) = %q, %v", tt.in, got, err)
		}
	}
	if !Critical.AtLeast(Warning) || !Warning.AtLeast(Warning) || Info.AtLeast(Warning) || Warning.AtLeast(Critical) {
		t.Error("AtLeast ordering wrong")
	}
}

// TestUnknownPathsRaiseNothing checks that pairs whose path the source
// cannot tell get no prediction, no locality finding and no rail plan.
func TestUnknownPathsRaiseNothing(t *testing.T) {
	gpu := &topology.Device{Addr: topology.BDF{Bus: 0x06}, Kind: topology.KindAccelerator, VendorID: topology.VendorNVIDIA, NUMANode: -1, RawNUMANode: -1, PlaceUnknown: true}
	nic := &topology.Device{Addr: topology.BDF{Bus: 0x03}, Kind: topology.KindNIC, VendorID: topology.VendorMellanox, NUMANode: -1, RawNUMANode: -1, PlaceUnknown: true, RDMA: []string{"mlx5_0"}}
	// A second NIC on another NUMA node: SYS is known, yet the best NIC may
	// be the one whose path is unknown, so still no finding and no plan.
	far := &topology.Device{Addr: topology.BDF{Bus: 0x83}, Kind: topology.KindNIC, VendorID: topology.VendorMellanox, NUMANode: 1, RawNUMANode: 1, PlaceUnknown: true, RDMA: []string{"mlx5_1"}}
	gpu.NUMANode, gpu.RawNUMANode = 0, 0
	g := &topology.Graph{Devices: []*topology.Device{nic, gpu, far}, System: topology.System{NUMANodes: []topology.NUMANode{{ID: 0, Socket: 0}, {ID: 1, Socket: 1}}}}
	g.Finish()
	if l := g.Classify(gpu, far).SMI; l != topology.SYS {
		t.Errorf("different known NUMA nodes: %s, want SYS", l)
	}
	res, err := Analyze(g, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Predictions) != 1 || len(res.Plan.Assignments) != 0 {
		t.Errorf("%d predictions (want the SYS pair's only), %d assignments with an unknown path", len(res.Predictions), len(res.Plan.Assignments))
	}
	for _, f := range res.Findings {
		if f.Code == "no-local-nic" || f.Code == "cross-socket" {
			t.Errorf("finding %s on an unknown path: %s", f.Code, f.Message)
		}
	}
}

// remedyText is a finding's remedy steps, one text and comment per line.
func remedyText(f Finding) string {
	var b strings.Builder
	for _, s := range f.Remedy {
		b.WriteString(s.Text + "\n" + s.Comment + "\n")
	}
	return "\n" + b.String()
}

// checkRemedy: every step has a known kind and a text; a command names no
// placeholder (it must paste as it is) and no step ends on a colon that
// promises a step not there.
func checkRemedy(t *testing.T, f Finding) {
	t.Helper()
	for _, s := range f.Remedy {
		switch s.Kind {
		case RemedyCommand, RemedyKernelParameter, RemedyBIOS, RemedyManual:
		default:
			t.Errorf("%s: step %q has kind %q", f.Code, s.Text, s.Kind)
		}
		if s.Text == "" || strings.HasSuffix(s.Text, ":") || strings.HasSuffix(s.Comment, ":") {
			t.Errorf("%s: step %+v is empty or cut short", f.Code, s)
		}
		if s.Kind == RemedyCommand && strings.ContainsAny(s.Text, "<>") && !strings.Contains(s.Text, " | ") {
			t.Errorf("%s: command %q holds a placeholder or redirection", f.Code, s.Text)
		}
	}
}

// TestNoRDMANICGetsNoPathAdvice: a virtio NIC, the only one, is far from
// the accelerator, but moving it would not bring GPUDirect RDMA: the pair
// is GDR off for want of RDMA, and no locality finding suggests a move.
func TestNoRDMANICGetsNoPathAdvice(t *testing.T) {
	b, gpu, nic := phb()
	nic.VendorID, nic.DeviceID, nic.RDMA, nic.Netdevs = 0x1af4, 0x1041, nil, []string{"eth0"}
	r := analyze(t, b.graph(), Options{})
	for _, f := range r.Findings {
		if f.Code == "no-local-nic" || f.Code == "cross-socket" {
			t.Errorf("%s for a NIC without RDMA: %s", f.Code, f.Message)
		}
	}
	p := pred(t, r, gpu, nic)
	if p.GDR || p.GDRUnknown != "" || !strings.Contains(p.GDRReason, "virtio network devices have no RDMA engine") {
		t.Errorf("GDR %v, reason %q, unknown %q; want off for want of RDMA, for certain", p.GDR, p.GDRReason, p.GDRUnknown)
	}
}

// TestSharedUplinkRounding: the nic-shared message rounds throughputs as
// the tables do (tenths below 10 Gb/s), not to whole Gb/s.
func TestSharedUplinkRounding(t *testing.T) {
	g := subSwitch(false)
	addr, err := topology.ParseBDF("0000:03:00.0")
	if err != nil {
		t.Fatal(err)
	}
	up := g.Device(addr)
	up.Link.CurrentGTs, up.Link.CurrentWidth = 8, 1 // under 8 Gb/s
	tenths := regexp.MustCompile(`uplink above 0000:03:00.0 \([1-9]\.[0-9] Gb/s\)`)
	for _, f := range analyze(t, g, Options{}).Findings {
		if f.Code == "nic-shared" {
			if !tenths.MatchString(f.Message) {
				t.Errorf("the Gen3 x1 uplink not shown in tenths of Gb/s: %s", f.Message)
			}
			return
		}
	}
	t.Error("no nic-shared finding for two flows through a Gen3 x1 uplink")
}
