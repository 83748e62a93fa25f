package advisor

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gdtopo/gdtopo/topology"
)

// TestThresholdBoundaries sets each device threshold of findDevices at its
// value and one step short of it: at the value nothing fires, one step
// short the finding does. The values are the cited ones, written out here:
// a threshold moved either way (halved, doubled, < made <=), in the model
// or in the comparison, fails one of the two.
func TestThresholdBoundaries(t *testing.T) {
	// BAR1 of at least 16 GiB: CUDA GPUDirect RDMA §3.5; MaxReadReq of at
	// least 256 B: fwts's pcie maxreadreq test.
	const minBAR, mrrs = 16 << 30, 256
	tests := []struct {
		name  string
		fault func(g, n []*topology.Device)
		code  string
		fires bool
	}{
		{fmt.Sprintf("BAR1 at %d MiB", minBAR>>20), func(g, n []*topology.Device) {
			g[7].BARs = []topology.BAR{{Index: 1, Size: minBAR, Prefetchable: true}}
		}, "bar-small", false},
		{fmt.Sprintf("BAR1 at %d MiB", (minBAR>>20)-1), func(g, n []*topology.Device) {
			g[7].BARs = []topology.BAR{{Index: 1, Size: minBAR - 1<<20, Prefetchable: true}}
		}, "bar-small", true},
		{"a large BAR that is not prefetchable", func(g, n []*topology.Device) {
			g[7].BARs = []topology.BAR{{Index: 1, Size: 2 * minBAR}}
		}, "bar-small", true},
		{fmt.Sprintf("NIC MaxReadReq %d B", mrrs), func(g, n []*topology.Device) { n[0].MaxReadRequest = mrrs }, "max-read-request-low", false},
		{fmt.Sprintf("NIC MaxReadReq %d B", mrrs/2), func(g, n []*topology.Device) { n[0].MaxReadRequest = mrrs / 2 }, "max-read-request-low", true},
		{fmt.Sprintf("GPU MaxReadReq %d B", mrrs), func(g, n []*topology.Device) { g[0].MaxReadRequest = mrrs }, "max-read-request-low", false},
		{fmt.Sprintf("GPU MaxReadReq %d B", mrrs/2), func(g, n []*topology.Device) { g[0].MaxReadRequest = mrrs / 2 }, "max-read-request-low", true},
		{"link at its full width", func(g, n []*topology.Device) {
			g[0].Link.CurrentWidth = g[0].Link.MaxWidth
		}, "link-width-degraded", false},
		{"link one width short", func(g, n []*topology.Device) {
			g[0].Link.CurrentWidth = g[0].Link.MaxWidth / 2
		}, "link-width-degraded", true},
		{"link at its full speed", func(g, n []*topology.Device) {
			g[0].Link.CurrentGTs = g[0].Link.MaxGTs
		}, "link-speed-degraded", false},
		{"link one generation short", func(g, n []*topology.Device) {
			g[0].Link.CurrentGTs = g[0].Link.MaxGTs / 2
		}, "link-speed-degraded", true},
	}
	for _, tt := range tests {
		b, gpus, nics := rails(8, 8)
		tt.fault(gpus, nics)
		fired := false
		for _, f := range analyze(t, b.graph(), Options{}).Findings {
			fired = fired || f.Code == tt.code
		}
		if fired != tt.fires {
			t.Errorf("%s: %s fired %v; want %v", tt.name, tt.code, fired, tt.fires)
		}
	}
}

// boundaryCase is one side of a threshold: the graph and options that put
// a value just short of it or at it, and whether code fires there with
// severity.
type boundaryCase struct {
	name     string
	build    func() (*topology.Graph, Options)
	code     string
	severity Severity
	fires    bool
}

// railsWith is rails(nGPU, nNIC) changed by fault, with default options.
func railsWith(nGPU, nNIC int, fault func(b *builder, g, n []*topology.Device)) func() (*topology.Graph, Options) {
	return func() (*topology.Graph, Options) {
		b, gpus, nics := rails(nGPU, nNIC)
		if fault != nil {
			fault(b, gpus, nics)
		}
		return b.graph(), Options{}
	}
}

// runBoundaries checks each case: code at severity fires exactly where
// the case says.
func runBoundaries(t *testing.T, cases []boundaryCase) {
	t.Helper()
	for _, c := range cases {
		g, opts := c.build()
		fired := false
		for _, f := range analyze(t, g, opts).Findings {
			fired = fired || f.Code == c.code && f.Severity == c.severity
		}
		if fired != c.fires {
			t.Errorf("%s: %s (%s) fired %v; want %v", c.name, c.code, c.severity, fired, c.fires)
		}
	}
}

// TestSharingBoundaries: nic-shared (info) from the second accelerator on
// one NIC, and (warning) where the planned flows through a switch uplink
// want more than the link carries: demand just under the uplink's data
// rate is quiet, just over it fires.
func TestSharingBoundaries(t *testing.T) {
	runBoundaries(t, []boundaryCase{
		{"2 accelerators, 2 NICs: one each", railsWith(2, 2, nil), "nic-shared", Info, false},
		{"2 accelerators, 1 NIC: two share it", railsWith(2, 1, nil), "nic-shared", Info, true},
	})
	// Two accelerators under one switch, each with a NIC on a root port of
	// its own: both flows go up the switch's x16 uplink.
	uplink := func(rate float64) (*topology.Graph, *topology.Device) {
		b := newBuilder()
		h, rp := b.hb(0)
		usp := b.sw(rp)
		for i := 0; i < 2; i++ {
			p := b.port(usp, i)
			b.gpu(below(p, i), p)
			r := b.rootPort(h, 2+i)
			b.nic(endpoint(r), r, fmt.Sprintf("mlx5_%d", i)).PortRateGbps = rate
		}
		return b.graph(), usp
	}
	demand := func(g *topology.Graph) float64 {
		sum := 0.0
		for _, as := range analyze(t, g, Options{}).Plan.Assignments {
			sum += as.ExpectedGbps
		}
		return sum
	}
	g, usp := uplink(100)
	perRate := demand(g) / 100 // planned Gb/s of both flows per Gb/s of NIC rate
	capGbps := DefaultModel().linkGbps(usp.Link, 256)
	if perRate <= 0 || capGbps <= 0 {
		t.Fatalf("no demand (%g per Gb/s) or no uplink rate (%g)", perRate, capGbps)
	}
	for _, side := range []struct {
		delta float64
		fires bool
	}{{-0.5, false}, {+0.5, true}} {
		want := capGbps + side.delta
		g, _ := uplink(want / perRate)
		if d := demand(g); d < want-0.01 || d > want+0.01 {
			t.Fatalf("demand %g Gb/s, want %g: the planned flows are not proportional to the NIC rate", d, want)
		}
		runBoundaries(t, []boundaryCase{{fmt.Sprintf("two flows wanting %.1f Gb/s of a %.1f Gb/s uplink", want, capGbps),
			func() (*topology.Graph, Options) { g, _ := uplink(want / perRate); return g, Options{} }, "nic-shared", Warning, side.fires}})
	}
}

// TestPortAndAERBoundaries: port-rate-low fires for a rail port 1 Gb/s
// below the others of its model, not for one at their rate; aer-fatal and
// aer-nonfatal from the first error; aer-correctable from 100 corrected
// errors (aerCorrectableInfo), written out here so that moving the
// constant fails.
func TestPortAndAERBoundaries(t *testing.T) {
	const corrInfo = 100
	aer := func(c topology.AERCounts) func(b *builder, g, n []*topology.Device) {
		return func(b *builder, g, n []*topology.Device) { g[2].AER = &c }
	}
	runBoundaries(t, []boundaryCase{
		{"every rail port at 400 Gb/s", railsWith(8, 8, func(b *builder, g, n []*topology.Device) { activePorts(n, 400) }), "port-rate-low", Warning, false},
		{"one rail port at 399 Gb/s", railsWith(8, 8, func(b *builder, g, n []*topology.Device) {
			activePorts(n, 400)
			n[3].Ports[0].RateGbps = 399
		}), "port-rate-low", Warning, true},
		{"no fatal AER error", railsWith(8, 8, aer(topology.AERCounts{Fatal: topology.AERClass{Read: true}})), "aer-fatal", Critical, false},
		{"one fatal AER error", railsWith(8, 8, aer(topology.AERCounts{Fatal: topology.AERClass{Read: true, Total: 1}})), "aer-fatal", Critical, true},
		{"no non-fatal AER error", railsWith(8, 8, aer(topology.AERCounts{Nonfatal: topology.AERClass{Read: true}})), "aer-nonfatal", Warning, false},
		{"one non-fatal AER error", railsWith(8, 8, aer(topology.AERCounts{Nonfatal: topology.AERClass{Read: true, Total: 1}})), "aer-nonfatal", Warning, true},
		{fmt.Sprintf("%d corrected AER errors", corrInfo-1), railsWith(8, 8, aer(topology.AERCounts{Correctable: topology.AERClass{Read: true, Total: corrInfo - 1}})), "aer-correctable", Info, false},
		{fmt.Sprintf("%d corrected AER errors", corrInfo), railsWith(8, 8, aer(topology.AERCounts{Correctable: topology.AERClass{Read: true, Total: corrInfo}})), "aer-correctable", Info, true},
	})
}

// TestDMABufBoundaries: without a peer-memory module, peer-memory-missing
// is a warning where dma-buf cannot apply (NCCL before 2.13, a GPU below
// compute capability 7.5, a kernel before 5.12) and info where it may:
// each at its threshold and one step short.
func TestDMABufBoundaries(t *testing.T) {
	noPeer := func(kernel, nccl string, sm int) func() (*topology.Graph, Options) {
		return func() (*topology.Graph, Options) {
			b, gpus, _ := rails(8, 8)
			b.g.Platform.PeerMemory = nil
			b.g.System.Cmdline = "BOOT_IMAGE=/vmlinuz-" + kernel + "-generic ro"
			for _, d := range gpus {
				d.SetComputeCapability(sm)
			}
			return b.graph(), Options{NCCLVersion: nccl}
		}
	}
	runBoundaries(t, []boundaryCase{
		{"NCCL 2.13", noPeer("6.8.0", "2.13", 80), "peer-memory-missing", Info, true},
		{"NCCL 2.12", noPeer("6.8.0", "2.12", 80), "peer-memory-missing", Warning, true},
		{"sm 75", noPeer("6.8.0", "2.30", 75), "peer-memory-missing", Info, true},
		{"sm 74", noPeer("6.8.0", "2.30", 74), "peer-memory-missing", Warning, true},
		{"kernel 5.12", noPeer("5.12.0", "2.30", 80), "peer-memory-missing", Info, true},
		{"kernel 5.11", noPeer("5.11.0", "2.30", 80), "peer-memory-missing", Warning, true},
	})
}

// TestConfigACSKernelBoundaries: pci=config_acs= from Linux 6.11, a list
// of several devices from 6.15; each release and the one before it.
func TestConfigACSKernelBoundaries(t *testing.T) {
	for _, c := range []struct {
		kernel string
		n      int
		want   string
	}{
		{"6.10.0", 1, "ignores pci=config_acs="},
		{"6.11.0", 1, "takes pci=config_acs="},
		{"6.14.0", 2, "but a list of several devices"},
		{"6.15.0", 2, "takes pci=config_acs="},
	} {
		b, _, _ := rails(2, 2)
		b.g.System.Cmdline = "BOOT_IMAGE=/vmlinuz-" + c.kernel + "-generic ro"
		a := &analysis{g: b.graph()}
		step := a.configACSKernel(c.n)
		got := step.Text + " " + step.Comment
		if !strings.Contains(got, c.want) || c.want == "takes pci=config_acs=" && strings.Contains(got, "but") {
			t.Errorf("kernel %s, %d devices: %q; want %q", c.kernel, c.n, got, c.want)
		}
	}
}

// TestLocalityToleranceBoundary: the rail plan takes a NIC on the
// accelerator's own socket while it gives at least half
// (localityTolerance) of what the best NIC, across sockets, would: 0.5
// Gb/s under that it takes the remote NIC, 0.5 Gb/s over it the local one.
func TestLocalityToleranceBoundary(t *testing.T) {
	const tolerance = 0.5
	build := func(localRate float64) (*topology.Graph, *topology.Device, *topology.Device, *topology.Device) {
		b := newBuilder()
		h0, _ := b.hb(0)
		h1, _ := b.hb(1)
		r0, r1, r2 := b.rootPort(h0, 2), b.rootPort(h0, 3), b.rootPort(h1, 2)
		gpu := b.gpu(endpoint(r0), r0)
		local := b.nic(endpoint(r1), r1, "mlx5_0")
		remote := b.nic(endpoint(r2), r2, "mlx5_1")
		local.PortRateGbps, remote.PortRateGbps = localRate, 400
		return b.graph(), gpu, local, remote
	}
	g, gpu, local, remote := build(100)
	r := analyze(t, g, Options{})
	lp, rp := pred(t, r, gpu, local), pred(t, r, gpu, remote)
	perRate, remoteGbps := runGbps(&lp)/100, runGbps(&rp)
	if perRate <= 0 || remoteGbps <= 0 {
		t.Fatalf("no figures: local %g per Gb/s, remote %g Gb/s", perRate, remoteGbps)
	}
	for _, side := range []struct {
		delta float64
		local bool
	}{{-0.5, false}, {+0.5, true}} {
		want := tolerance*remoteGbps + side.delta
		g, gpu, local, remote := build(want / perRate)
		r := analyze(t, g, Options{})
		if lp := pred(t, r, gpu, local); !near(runGbps(&lp), want) {
			t.Fatalf("local pair %g Gb/s, want %g: not proportional to the NIC rate", runGbps(&lp), want)
		}
		if rp := pred(t, r, gpu, remote); !near(runGbps(&rp), remoteGbps) {
			t.Fatalf("remote pair %g Gb/s, want %g", runGbps(&rp), remoteGbps)
		}
		if len(r.Plan.Assignments) != 1 {
			t.Fatalf("%d assignments, want 1", len(r.Plan.Assignments))
		}
		if got := r.Plan.Assignments[0].NIC == local; got != side.local {
			t.Errorf("local NIC at %.1f Gb/s against %.1f across sockets: local chosen %v, want %v", want, remoteGbps, got, side.local)
		}
	}
}

// TestNCCLVersionBoundaries: each NCCL release a GPUDirect RDMA rule
// starts at, and the one before it (paths.cc ncclTopoCheckGdr and
// NCCL_PARAM(NetGdrC2c), topo.cc topoPathTypeStr, net_ib gdr.cc).
func TestNCCLVersionBoundaries(t *testing.T) {
	v := func(minor int) ncclVersion { return ncclVersion{2, minor, 0} }
	// NCCL_NET_GDR_C2C: absent before 2.26, default 0 in 2.26, 1 from 2.27.
	for _, c := range []struct {
		minor   int
		env     map[string]string
		on, set bool
	}{
		{25, map[string]string{"NCCL_NET_GDR_C2C": "1"}, false, false},
		{26, map[string]string{"NCCL_NET_GDR_C2C": "1"}, true, true},
		{26, nil, false, false},
		{27, nil, true, false},
	} {
		a := &analysis{v: v(c.minor), env: c.env}
		if on, from := a.gdrC2C(); on != c.on || (from != "") != c.set {
			t.Errorf("2.%d %v: NCCL_NET_GDR_C2C on %v (set by %q); want %v, set %v", c.minor, c.env, on, from, c.on, c.set)
		}
	}
	// NCCL_NET_GDR_LEVEL's names: C2C from 2.26, P2C from 2.27; the
	// default level P2C (with C2C on) from 2.29.
	for _, c := range []struct {
		minor int
		set   string
		want  topology.Label
	}{
		{25, "C2C", topology.PXB}, {26, "C2C", "C2C"},
		{26, "P2C", topology.PXB}, {27, "P2C", topology.P2C},
		{28, "", topology.PXB}, {29, "", topology.P2C},
	} {
		env := map[string]string{}
		if c.set != "" {
			env["NCCL_NET_GDR_LEVEL"] = c.set
		}
		a := &analysis{v: v(c.minor), env: env}
		if got, why, _ := a.gdrLevel(); got != c.want {
			t.Errorf("2.%d NCCL_NET_GDR_LEVEL=%q: level %s (%s); want %s", c.minor, c.set, got, why, c.want)
		}
	}
	// GDR reads: off for every GPU before 2.19, from 2.19 for compute
	// capability below 8.0 only, without an NVLink peer; the source shows
	// no NVLink, so the rule shows as a doubt. From 2.19 an unknown compute
	// capability is a doubt too. Peer memory: 2.18 and older look only
	// under memory_peers.
	for _, c := range []struct {
		minor, sm int
		doubt     string
		has       bool
	}{
		{18, 80, "NVLink is not visible", true},
		{19, 80, "NVLink is not visible", false},
		{19, 79, "NVLink is not visible", true},
		{19, -1, "compute capability of 0000:", true},
		{18, -1, "compute capability of 0000:", false},
		{18, 80, "memory_peers", true},
		{19, 80, "memory_peers", false},
	} {
		b, gpus, nics := rails(2, 2)
		for _, d := range gpus {
			d.SetComputeCapability(c.sm)
			if c.sm < 0 {
				d.DeviceID = 0xffff // not in the table
				d.SetComputeCapability(0)
			}
		}
		g := b.graph()
		p := pred(t, analyze(t, g, Options{NCCLVersion: fmt.Sprintf("2.%d", c.minor)}), gpus[0], nics[0])
		if got := strings.Contains(fmt.Sprintf("%+v", p), c.doubt); got != c.has {
			t.Errorf("2.%d, sm %d: %q in the prediction %v; want %v (%s)", c.minor, c.sm, c.doubt, got, c.has, p.GDRUnknown)
		}
	}
}

// TestReadFactorBoundaries: the measured Rome-with-Volta read figure
// applies to AMD family 17h models 30h-3Fh (Rome), alone below compute
// capability 8.0 and as the low end from 8.0; a model either side of the
// range takes the generic range.
func TestReadFactorBoundaries(t *testing.T) {
	m := DefaultModel()
	for _, c := range []struct {
		model  int
		sm     int
		lo, hi *Param
	}{
		{0x31, 79, &m.ReadAMDZen2Volta, &m.ReadAMDZen2Volta},
		{0x31, 80, &m.ReadAMDZen2Volta, &m.ReadMax},
		{0x30, 80, &m.ReadAMDZen2Volta, &m.ReadMax},
		{0x3f, 80, &m.ReadAMDZen2Volta, &m.ReadMax},
		{0x2f, 80, &m.ReadMin, &m.ReadMax},
		{0x40, 80, &m.ReadMin, &m.ReadMax},
	} {
		b, gpus, _ := rails(2, 2)
		b.g.System.CPUVendor, b.g.System.CPUFamily, b.g.System.CPUModelID = "AuthenticAMD", 0x17, c.model
		gpus[0].SetComputeCapability(c.sm)
		a := &analysis{g: b.graph(), m: m}
		if lo, hi := a.readFactor(gpus[0]); lo != c.lo || hi != c.hi {
			t.Errorf("family 17h model %#x, sm %d: read factor %s..%s; want %s..%s", c.model, c.sm, lo.Key, hi.Key, c.lo.Key, c.hi.Key)
		}
	}
}

// TestPXNLocalGPUBoundary: from NCCL 2.18, PXN goes only through the NIC's
// local GPU, the nearest one whose own NIC it is (paths.cc
// ncclTopoComputePaths, getLocalGpu); before, through any NVLink peer
// within PXB of it. GPU1 is PXB to NIC2 but has its own NIC1 at PIX, and
// GPU0, across sockets, is NVLinked to GPU1: 2.17 routes GPU0–NIC2
// through GPU1, 2.18 does not.
func TestPXNLocalGPUBoundary(t *testing.T) {
	for _, c := range []struct {
		version string
		pxn     bool
	}{{"2.17", true}, {"2.18", false}} {
		b := newBuilder()
		_, rp := b.hb(0)
		top := b.dev("0000:01:00.0", rp, topology.KindBridge, topology.RoleUpstream)
		t0 := b.dev("0000:02:00.0", top, topology.KindBridge, topology.RoleDownstream)
		t1 := b.dev("0000:02:01.0", top, topology.KindBridge, topology.RoleDownstream)
		s1 := b.dev("0000:03:00.0", t0, topology.KindBridge, topology.RoleUpstream)
		s1a := b.dev("0000:04:00.0", s1, topology.KindBridge, topology.RoleDownstream)
		s1b := b.dev("0000:04:01.0", s1, topology.KindBridge, topology.RoleDownstream)
		gpu1 := b.gpu("0000:05:00.0", s1a)
		nic1 := b.nic("0000:06:00.0", s1b, "mlx5_1")
		s2 := b.dev("0000:07:00.0", t1, topology.KindBridge, topology.RoleUpstream)
		s2a := b.dev("0000:08:00.0", s2, topology.KindBridge, topology.RoleDownstream)
		nic2 := b.nic("0000:09:00.0", s2a, "mlx5_2")
		_, rp1 := b.hb(1)
		gpu0 := b.gpu("0000:12:00.0", rp1)
		b.g.NVLinks = []topology.NVLink{{A: gpu0.Addr, B: gpu1.Addr, Count: 12}}
		g := b.graph()
		if l1, l2 := g.Classify(gpu1, nic1).NCCL, g.Classify(gpu1, nic2).NCCL; l1 != topology.PIX || l2 != topology.PXB {
			t.Fatalf("GPU1–NIC1 %s, GPU1–NIC2 %s; want PIX and PXB", l1, l2)
		}
		p := pred(t, analyze(t, g, Options{NCCLVersion: c.version}), gpu0, nic2)
		if got := p.PXNVia == gpu1; got != c.pxn {
			t.Errorf("NCCL %s: GPU0–NIC2 through GPU1 %v; want %v", c.version, got, c.pxn)
		}
	}
}
