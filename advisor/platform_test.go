package advisor

import (
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gdtopo/gdtopo/internal/source"
	"github.com/gdtopo/gdtopo/internal/sysfs"
	"github.com/gdtopo/gdtopo/topology"
)

// fixtureGraph reads a bundled fixture for a fault case.
func fixtureGraph(name string) func() *topology.Graph {
	return func() *topology.Graph {
		src, err := source.Open(filepath.Join("..", "fixtures", name+".tar.gz"))
		if err != nil {
			panic(err)
		}
		g, err := sysfs.Read(src.Root)
		if err != nil {
			panic(err)
		}
		return g
	}
}

func init() {
	faultCases = append(faultCases,
		faultCase{name: "Grace + ConnectX-8 at the kernel's ACS", build: fixtureGraph("grace-cx8-dd"), code: "acs-grace", severity: Critical,
			device: "0008:02:00.0", remedy: "setpci -s 0008:02:00.0 ECAP_ACS+0x6.w=0019\n"},
		faultCase{name: "Socket Direct card", build: fixtureGraph("socket-direct"), code: "socket-direct", severity: Info,
			device: "0000:a1:00.0", remedy: "half of the card on its own socket"},
		faultCase{name: "GPUs without a drive in their switch", build: fixtureGraph("hgx-b200"), code: "gds-no-local-nvme", severity: Info,
			device: "0000:3c:00.0"})
}

func analyzeFixture(t *testing.T, name, nccl string) (*topology.Graph, *Result) {
	t.Helper()
	src, err := source.Open(filepath.Join("..", "fixtures", name+".tar.gz"))
	if err != nil {
		t.Fatal(err)
	}
	g, err := sysfs.Read(src.Root)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Analyze(g, nil, Options{NCCLVersion: nccl})
	if err != nil {
		t.Fatal(err)
	}
	return g, res
}

// genericACS are the words of the generic clear-ACS remedy.
var genericACS = []string{"ECAP_ACS+0x6.w=0000", "disable_acs_redir", "clear ACS control"}

// TestGraceCX8ACSRemedy checks the Grace + ConnectX-8 Data Direct tray
// against rdma-core's kernel-boot/rdma_topo and NVIDIA's GB300 /
// ConnectX-8 GPUDirect RDMA guide: ACS is set per port with
// pci=config_acs= (xx110x1 towards the DMA function, xx101x1 towards the
// GPU, xx111x0 on the root port), the DMA function and GPU must share an
// IOMMU group, and the generic clear-ACS remedy never appears.
func TestGraceCX8ACSRemedy(t *testing.T) {
	_, res := analyzeFixture(t, "grace-cx8-dd", "")
	var grace *Finding
	for i, f := range res.Findings {
		if f.Code == "acs-redirect" {
			t.Errorf("acs-redirect raised on Grace: %s", f.Message)
		}
		for _, w := range genericACS {
			if strings.Contains(remedyText(f), w) {
				t.Errorf("%s remedy holds the generic %q", f.Code, w)
			}
		}
		if f.Code == "acs-grace" {
			grace = &res.Findings[i]
		}
	}
	if grace == nil {
		t.Fatal("no acs-grace finding on a tray at the kernel's default ACS")
	}
	if grace.Severity != Critical {
		t.Errorf("acs-grace %s, want critical with Data Direct", grace.Severity)
	}
	for _, want := range []string{
		`pci=config_acs="xx111x0@0008:00:00.0;xx110x1@0008:02:00.0;xx101x1@0008:02:01.0;`,
		"setpci -s 0008:02:00.0 ECAP_ACS+0x6.w=0019", // 0x1d (SV RR CR UF) without RR
		"setpci -s 0008:02:01.0 ECAP_ACS+0x6.w=0015", // without CR
		"setpci -s 0008:00:00.0 ECAP_ACS+0x6.w=001c", // without SV
	} {
		if !strings.Contains(remedyText(*grace), want) {
			t.Errorf("acs-grace remedy lacks %q:\n%s", want, remedyText(*grace))
		}
	}
	if !strings.Contains(grace.Message, "Data Direct 0008:03:00.0 is in IOMMU group") {
		t.Errorf("acs-grace does not report the split IOMMU groups: %s", grace.Message)
	}
	// The Data Direct function is not in its GPU's IOMMU group at the
	// kernel's ACS, so the NVIDIA driver refuses the mapping (rdma_topo
	// check): GDR off until the remedy, which TestGraceDataDirectAfterACS
	// applies.
	for _, p := range res.Predictions {
		if p.GPU.BDF() == "0008:06:00.0" && p.NIC.BDF() == "0000:01:00.0" && (p.GDR || !strings.Contains(p.GDRReason, "IOMMU group 8 and 0008:06:00.0 in 11")) {
			t.Errorf("GPU0-mlx5_0 over Data Direct in split IOMMU groups: GDR %v (%s), want off for the groups", p.GDR, p.GDRReason)
		}
	}
}

// TestGB200ACSAndGDR checks the GB200 tray: no Data Direct, Grace root
// ports at the kernel's ACS, so no ACS finding of either kind (rdma_topo's
// NUMA-based complex keeps the kernel default); GDR on the P2C pairs with
// NCCL 2.27 and later (NCCL_NET_GDR_C2C=1 by default), off with 2.26.
func TestGB200ACSAndGDR(t *testing.T) {
	for _, c := range []struct {
		nccl string
		gdr  bool
	}{{"", true}, {"2.27.3", true}, {"2.26.2", false}} {
		_, res := analyzeFixture(t, "gb200-tray", c.nccl)
		for _, f := range res.Findings {
			if strings.HasPrefix(f.Code, "acs-") {
				t.Errorf("NCCL %q: %s raised: %s", c.nccl, f.Code, f.Message)
			}
			// With GDR on over P2C the NICs of a GPU's own Grace are local.
			if f.Code == "no-local-nic" && c.gdr {
				t.Errorf("NCCL %q: no-local-nic raised: %s", c.nccl, f.Message)
			}
		}
		for _, p := range res.Predictions {
			if p.GPU.BDF() == "0008:01:00.0" && p.NIC.BDF() == "0000:01:00.0" && p.GDR != c.gdr {
				t.Errorf("NCCL %q: GPU0-mlx5_0 (P2C) GDR %v, want %v (%s)", c.nccl, p.GDR, c.gdr, p.GDRReason)
			}
		}
	}
}

// TestGraceACSChangesOnlyWhatRdmaTopoSays applies rdma_topo's masks as its
// combine_acs does.
func TestGraceACSMasks(t *testing.T) {
	const kernel = 0x1d // SV RR CR UF
	for _, c := range []struct {
		m    acsMask
		want uint16
	}{{acsKernelIsolated, 0x1d}, {acsTowardDMA, 0x19}, {acsTowardGPU, 0x15}, {acsDMARootPort, 0x1c}} {
		if got := c.m.apply(kernel); got != c.want {
			t.Errorf("%s on %#x = %#x, want %#x", c.m, kernel, got, c.want)
		}
	}
	if got := acsTowardDMA.apply(0x7f); got != 0x7b {
		t.Errorf("x bits changed: %#x", got)
	}
}

// TestNICRoles checks the compute rails: the RoCE LAG box keeps the two
// bonds and sets aside the bonds' second ports and the default-route E810;
// the HGX B200 sets aside the BlueField-3 card carrying the default route.
func TestNICRoles(t *testing.T) {
	for _, c := range []struct {
		fixture string
		compute []string
		aside   map[string]string // BDF: substring of the reason
	}{
		{"roce-lag-bond", []string{"0000:17:00.0", "0000:99:00.0"}, map[string]string{
			"0000:17:00.1": "port of bond bond0", "0000:99:00.1": "port of bond bond1",
			"0000:27:00.0": "default route", "0000:27:00.1": "default route"}},
		// The second BlueField-3 (a7:00.x) is a storage card on a DGX, but
		// nothing in sysfs says so: it stays a compute candidate.
		{"hgx-b200", []string{"0000:1b:00.0", "0000:1f:00.0", "0000:3d:00.0", "0000:41:00.0", "0000:9d:00.0", "0000:a1:00.0", "0000:a7:00.0", "0000:a7:00.1", "0000:bd:00.0", "0000:c1:00.0"},
			map[string]string{"0000:27:00.0": "default route", "0000:27:00.1": "default route"}},
	} {
		g, res := analyzeFixture(t, c.fixture, "")
		compute, _ := computeNICs(g)
		var got []string
		for _, n := range compute {
			got = append(got, n.BDF())
		}
		if !slices.Equal(got, c.compute) {
			t.Errorf("%s: compute NICs %v, want %v", c.fixture, got, c.compute)
		}
		for _, s := range res.SetAside {
			if want, ok := c.aside[s.NIC.BDF()]; !ok || !strings.Contains(s.Reason, want) {
				t.Errorf("%s: %s set aside for %q, want %q", c.fixture, s.NIC.BDF(), s.Reason, want)
			}
		}
		if len(res.SetAside) != len(c.aside) {
			t.Errorf("%s: %d NICs set aside, want %d", c.fixture, len(res.SetAside), len(c.aside))
		}
		for _, a := range res.Plan.Assignments {
			if !slices.Contains(c.compute, a.NIC.BDF()) {
				t.Errorf("%s: plan uses %s, not a compute NIC", c.fixture, a.NIC.BDF())
			}
		}
	}
}

// TestStorageRoutes checks the GPUDirect Storage predictions and finding:
// the GDS server has a drive in every GPU's switch (no finding); the HGX
// B200 has drives only in the first switch complex (info for the others).
func TestStorageRoutes(t *testing.T) {
	_, res := analyzeFixture(t, "gds-storage", "")
	routes := map[string]int{}
	for _, s := range res.Storage {
		if s.Pair.A.BDF() == "0000:18:00.0" {
			routes[s.Route]++
		}
	}
	if routes[RouteSwitch] != 4 || routes[RouteRootComplex] != 8 || routes[RouteSockets] != 12 {
		t.Errorf("GPU0 routes %v", routes)
	}
	for _, f := range res.Findings {
		if f.Code == "gds-no-local-nvme" {
			t.Errorf("gds-no-local-nvme on the GDS server: %s", f.Message)
		}
	}
	_, res = analyzeFixture(t, "hgx-b200", "")
	found := false
	for _, f := range res.Findings {
		if f.Code == "gds-no-local-nvme" {
			found = true
			if slices.Contains(f.Devices, "0000:1a:00.0") || !slices.Contains(f.Devices, "0000:3c:00.0") {
				t.Errorf("gds-no-local-nvme devices %v", f.Devices)
			}
		}
	}
	if !found {
		t.Error("no gds-no-local-nvme on the HGX B200")
	}
}

// TestStorageGuessedLabel: with the NUMA nodes gone from the GDS server,
// the drives across host bridges read NODE? (SYS where the nodes differ):
// their route is unknown and their label marked a guess, while the drives
// in each GPU's switch keep their certain route.
func TestStorageGuessedLabel(t *testing.T) {
	g, _ := analyzeFixture(t, "gds-storage", "")
	g.System.NUMANodes = nil
	for _, d := range g.Devices {
		d.NUMANode, d.RawNUMANode, d.LocalCPUsNode = -1, -1, false
	}
	routes := gpu0Routes(t, g, func(s StoragePrediction) {
		if guessed := s.Route == RouteUnknown; s.Pair.LabelUncertain != guessed || guessed && s.Pair.SMI != topology.NODE {
			t.Errorf("%s: %s route %q, label uncertain %v", s.Pair.B.BDF(), s.Pair.SMI, s.Route, s.Pair.LabelUncertain)
		}
	})
	if routes[RouteSwitch] != 4 || routes[RouteUnknown] != 20 || len(routes) != 2 {
		t.Errorf("GPU0 routes %v, want 4 in the switch and 20 unknown", routes)
	}
}

// gpu0Routes analyses the GDS server's graph g and counts the routes of
// GPU0's (0000:18:00.0) drives, handing each of its predictions to check.
func gpu0Routes(t *testing.T, g *topology.Graph, check func(StoragePrediction)) map[string]int {
	t.Helper()
	res, err := Analyze(g, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	routes := map[string]int{}
	for _, s := range res.Storage {
		if s.Pair.A.BDF() == "0000:18:00.0" {
			routes[s.Route]++
			check(s)
		}
	}
	return routes
}

// TestGen6Encoding: PCIe 6.0 at 64 GT/s runs in FLIT mode: no 128b/130b,
// 236 TLP bytes in each 256-byte flit, and a TLP costs its 16-byte header
// alone (framing, sequence number and LCRC are the flit's). Gen6 x16 at
// MPS 256 is 64 × 16 × 236/256 × 256/272 = 888.5 Gb/s, not 936.
func TestGen6Encoding(t *testing.T) {
	if e, _ := encoding(64); e != 236.0/256 {
		t.Errorf("64 GT/s encoding %v, want 236/256", e)
	}
	if e, _ := encoding(32); e != 128.0/130 {
		t.Errorf("32 GT/s encoding %v, want 128/130", e)
	}
	m := DefaultModel()
	got := m.linkGbps(topology.Link{CurrentGTs: 64, CurrentWidth: 16}, 256)
	if got < 888.4 || got > 888.5 {
		t.Errorf("Gen6 x16 at MPS 256: %.2f Gb/s, want 888.47", got)
	}
}

// TestSocketDirectPlan checks that the rail plan counts a Socket Direct
// card's halves as one port (NVIDIA ConnectX-7 user manual, "Socket
// Direct": both PCIe links feed one network port): each accelerator uses
// the half on its socket, and each is shared by the two.
func TestSocketDirectPlan(t *testing.T) {
	_, res := analyzeFixture(t, "socket-direct", "")
	want := map[string]string{"0000:01:00.0": "0000:21:00.0", "0000:81:00.0": "0000:a1:00.0"}
	if len(res.Plan.Assignments) != len(want) {
		t.Fatalf("%d assignments, want %d", len(res.Plan.Assignments), len(want))
	}
	for _, a := range res.Plan.Assignments {
		if want[a.GPU.BDF()] != a.NIC.BDF() || a.Shared != 2 {
			t.Errorf("%s -> %s shared %d; want %s, shared 2", a.GPU.BDF(), a.NIC.BDF(), a.Shared, want[a.GPU.BDF()])
		}
	}
}

// TestDataDirectPortRate: a pair whose DMA runs through a ConnectX-8 Data
// Direct function takes the NIC function's port rate (800 Gb/s in the
// fixture), not the DMA function's, which has no port: its figures are
// estimates, not ceilings, and the NIC's healthy figure is its port's.
func TestDataDirectPortRate(t *testing.T) {
	_, res := analyzeFixture(t, "grace-cx8-dd", "")
	if len(res.Predictions) == 0 {
		t.Fatal("no predictions")
	}
	for _, p := range res.Predictions {
		if p.AtMost || p.NICGbps != 800 {
			t.Errorf("%s–%s: AtMost %v, NIC %.3f Gb/s; want an estimate against the 800 Gb/s port", p.GPU.BDF(), p.NIC.BDF(), p.AtMost, p.NICGbps)
		}
	}
	if res.Plan.AtMost {
		t.Error("the rail plan is a ceiling")
	}
}

// TestGraceC2CPrediction: a GB200's GPU sends over NVLink-C2C to its Grace,
// so its PCIe link is off the path, the Grace figures (measured with the
// SMMU translating, as Grace ships) apply, and no x86 IOMMU warning is
// given: GPU0-NIC0 of gb200-tray is the 400 Gb/s port × 0.98 = 392 Gb/s.
func TestGraceC2CPrediction(t *testing.T) {
	_, res := analyzeFixture(t, "gb200-tray", "")
	found := false
	for _, p := range res.Predictions {
		if p.GPU.BDF() != "0008:01:00.0" || p.NIC.BDF() != "0000:01:00.0" {
			continue
		}
		found = true
		if p.ExpectedGbps < 391 || p.ExpectedGbps > 393 || p.PathNote != "over NVLink-C2C" {
			t.Errorf("GPU0-NIC0: %.1f Gb/s (path %q), want 392 over NVLink-C2C", p.ExpectedGbps, p.PathNote)
		}
		for _, u := range p.Uncertain {
			if strings.Contains(u, "may not work at all") {
				t.Errorf("GPU0-NIC0 warns of an x86 IOMMU on Grace: %s", u)
			}
		}
	}
	if !found {
		t.Fatal("no GPU0-NIC0 prediction")
	}
}

// TestGraceDataDirectPlan: on grace-cx8-dd each GPU is planned on the NIC
// whose Data Direct function shares its CX-8 switch (GDR), not on another
// CX-8 host-staged.
func TestGraceDataDirectPlan(t *testing.T) {
	g, res := analyzeFixture(t, "grace-cx8-dd", "")
	for _, as := range res.Plan.Assignments {
		dd := g.DataDirectOf(as.NIC)
		if dd == nil || lca(as.GPU, dd) == nil {
			t.Errorf("%s planned on %s, whose Data Direct function %v is not under its switch", as.GPU.BDF(), as.NIC.BDF(), dd)
		}
	}
	if len(res.Plan.Assignments) != 4 {
		t.Fatalf("%d assignments, want 4", len(res.Plan.Assignments))
	}
}

// TestGraceDataDirectAfterACS: once the Data Direct complex's ports hold
// rdma_topo's ACS setting, the DMA function reaches its GPU below the CX-8
// switch although the SMMU translates (Grace keeps it on), so the pair is
// predicted on its own Gen6 links, not via the root complex; with the
// tray's kernel-default ACS it still goes up.
func TestGraceDataDirectAfterACS(t *testing.T) {
	pair := func(res *Result) Prediction {
		for _, p := range res.Predictions {
			if p.GPU.BDF() == "0008:06:00.0" && p.NIC.BDF() == "0000:01:00.0" {
				return p
			}
		}
		t.Fatal("no GPU0-mlx5_0 prediction")
		return Prediction{}
	}
	g, res := analyzeFixture(t, "grace-cx8-dd", "")
	if before := pair(res); !strings.Contains(before.PathNote, "via the root complex (ACS redirect") {
		t.Fatalf("at the kernel's ACS: path note %q, want via the root complex", before.PathNote)
	}
	plan, complexes := graceACSPlan(g)
	for _, p := range plan {
		p.port.ACSCtl = p.want.apply(p.port.ACSCtl)
		p.port.ACSRedirect = p.port.ACSCtl&0x0c != 0 // RR or CR
	}
	for _, c := range complexes {
		c.dma.IOMMUGroup = c.gpu.IOMMUGroup
	}
	addr, err := topology.ParseBDF("0008:06:00.0")
	if err != nil {
		t.Fatal(err)
	}
	if tr, known, _ := (&analysis{g: g}).findTranslating(g.Device(addr)); !tr || !known {
		t.Fatal("the fixture's SMMU does not translate for GPU0: the test proves nothing")
	}
	res, err = Analyze(g, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range res.Findings {
		if f.Code == "acs-grace" {
			t.Errorf("acs-grace after applying its own setting: %s", f.Message)
		}
	}
	after := pair(res)
	if strings.Contains(after.PathNote, "root complex") {
		t.Errorf("after rdma_topo's ACS: path note %q, want below the switch", after.PathNote)
	}
	if after.PathGbps < 800 { // Gen6 x16 with FLIT overhead
		t.Errorf("after rdma_topo's ACS: path %.1f Gb/s, want the Gen6 x16 links", after.PathGbps)
	}
	if !after.GDR {
		t.Errorf("after rdma_topo's ACS: GDR off (%s)", after.GDRReason)
	}
}

// TestRoCELAGRate checks a RoCE LAG's RDMA device at the sum of its ports
// where the bond spreads traffic (802.3ad: 2 × 200 Gb/s, under its Gen5
// x16 link), with the one-port-per-QP note; and at one port's rate where
// the bond is active-backup or a port's speed is unknown.
func TestRoCELAGRate(t *testing.T) {
	g, res := analyzeFixture(t, "roce-lag-bond", "")
	check := func(what string, res *Result, nic, share float64, noteHas string) {
		t.Helper()
		for _, p := range res.Predictions {
			if p.GPU.BDF() != "0000:16:00.0" || p.NIC.BDF() != "0000:17:00.0" {
				continue
			}
			if p.NICGbps != nic {
				t.Errorf("%s: NIC %g Gb/s, want %g", what, p.NICGbps, nic)
			}
			if !slices.ContainsFunc(p.Uncertain, func(s string) bool { return strings.Contains(s, noteHas) }) {
				t.Errorf("%s: notes %q lack %q", what, p.Uncertain, noteHas)
			}
		}
		for _, as := range res.Plan.Assignments {
			if as.ShareGbps != share {
				t.Errorf("%s: %s on %s gets %g Gb/s, want %g", what, as.GPU.BDF(), as.NIC.BDF(), as.ShareGbps, share)
			}
		}
	}
	check("802.3ad", res, 400, 200, "one flow gets at most one port's rate")
	lags := []*topology.LAG{}
	for _, d := range g.Devices {
		if d.LAG() != nil {
			lags = append(lags, d.LAG())
		}
	}
	if len(lags) != 2 {
		t.Fatalf("%d LAGs, want 2", len(lags))
	}
	for _, l := range lags {
		l.Mode = "active-backup"
	}
	res, err := Analyze(g, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	check("active-backup", res, 200, 100, "one port carries the traffic")
	for _, l := range lags {
		l.Mode, l.Members[1].Gbps = "802.3ad", 0
	}
	if res, err = Analyze(g, nil, Options{}); err != nil {
		t.Fatal(err)
	}
	check("a port's speed unknown", res, 200, 100, "a port's speed unknown")
}

// TestDualPortCardLink checks that the two ports of the WRX90's dual-port
// ConnectX-7 (0000:21:00.0 and .1), planned for the two accelerators,
// divide the card's one PCIe link: on its Gen5 x16 link (461 Gb/s) the
// link does not bind and each has its own port; trained at Gen3 x16 (about
// 115 Gb/s) each gets half the link, and the plan says the link is shared.
func TestDualPortCardLink(t *testing.T) {
	g, res := analyzeFixture(t, "wrx90-threadripper", "")
	nicOf := map[string]string{}
	for _, as := range res.Plan.Assignments {
		nicOf[as.GPU.BDF()] = as.NIC.BDF()
		if as.LinkShared != 0 {
			t.Errorf("Gen5 x16: %s on %s: link shared by %d, want the link not binding", as.GPU.BDF(), as.NIC.BDF(), as.LinkShared)
		}
	}
	if nicOf["0000:c1:00.0"] != "0000:21:00.0" || nicOf["0000:c2:00.0"] != "0000:21:00.1" {
		t.Fatalf("plan %v, want one port of the card each", nicOf)
	}
	for _, bdf := range []string{"0000:21:00.0", "0000:21:00.1"} {
		for _, d := range g.Devices {
			if d.BDF() == bdf {
				d.Link.CurrentGTs, d.Link.MaxGTs = 8, 8
			}
		}
	}
	res, err := Analyze(g, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, as := range res.Plan.Assignments {
		var link float64
		for _, p := range res.Predictions {
			if p.GPU == as.GPU && p.NIC == as.NIC {
				link = p.nicLinkGbps
			}
		}
		if link <= 0 || link > 120 {
			t.Fatalf("%s: NIC link %g Gb/s, want Gen3 x16's", as.NIC.BDF(), link)
		}
		if as.Shared != 1 || as.LinkShared != 2 || math.Abs(as.ShareGbps-link/2) > 1e-9 {
			t.Errorf("Gen3 x16: %s on %s: shared %d, link shared %d, %g Gb/s, want own port, link shared by 2, %g Gb/s",
				as.GPU.BDF(), as.NIC.BDF(), as.Shared, as.LinkShared, as.ShareGbps, link/2)
		}
	}
}

// TestGraceCrossSocketCapUnmeasured: between a GB200 tray's two Graces the
// cap is NCCL's ARM_BW constant (src/graph/topo.cc), no measurement of
// Grace: the prediction says so.
func TestGraceCrossSocketCapUnmeasured(t *testing.T) {
	_, res := analyzeFixture(t, "gb200-tray", "")
	found := false
	for _, p := range res.Predictions {
		if p.GPU.BDF() == "0008:01:00.0" && p.NIC.BDF() == "0010:01:00.0" {
			found = true
			if !slices.ContainsFunc(p.Uncertain, func(s string) bool {
				return strings.Contains(s, "inter-socket link figure is NCCL's model constant for NVIDIA Grace")
			}) {
				t.Errorf("GPU0-NIC4 across the Graces: notes %q, want the cap named NCCL's constant", p.Uncertain)
			}
		}
	}
	if !found {
		t.Fatal("no GPU0-NIC4 prediction")
	}
}

// TestGraceACSKernelFirst: the acs-grace remedy checks the kernel before
// the reboot with pci=config_acs=: a kernel that cannot parse the list
// (before "PCI/ACS: Fix 'pci=config_acs=' parameter") would leave the
// Data Direct functions in groups of their own after the reboot.
func TestGraceACSKernelFirst(t *testing.T) {
	_, res := analyzeFixture(t, "grace-cx8-dd", "")
	for _, f := range res.Findings {
		if f.Code != "acs-grace" {
			continue
		}
		if len(f.Remedy) < 2 || !strings.Contains(f.Remedy[0].Text, "kernel") || f.Remedy[1].Kind != RemedyKernelParameter {
			t.Errorf("acs-grace remedy %+v: want the kernel check, then the parameter", f.Remedy)
		}
		return
	}
	t.Fatal("no acs-grace finding")
}

// TestStorageSocketsUnknown: with the GDS server's NUMA nodes kept but
// their sockets unknown (as an NCCL topology gives them), the drives on
// the other node are routed across NUMA nodes with the sockets unknown,
// not said to cross the CPU interconnect.
func TestStorageSocketsUnknown(t *testing.T) {
	g, _ := analyzeFixture(t, "gds-storage", "")
	for i := range g.System.NUMANodes {
		g.System.NUMANodes[i].Socket = -1
	}
	routes := gpu0Routes(t, g, func(s StoragePrediction) {
		if s.Route == RouteNodesSocketUnknown && (s.Note != noteNodes || s.Pair.Path != topology.PathNodesSocketUnknown) {
			t.Errorf("%s: path %q, note %q", s.Pair.B.BDF(), s.Pair.Path, s.Note)
		}
	})
	if routes[RouteSwitch] != 4 || routes[RouteRootComplex] != 8 || routes[RouteNodesSocketUnknown] != 12 || len(routes) != 3 {
		t.Errorf("GPU0 routes %v, want 4 in the switch, 8 through the root complex and 12 across NUMA nodes with sockets unknown", routes)
	}
}

// TestEachStorage checks that Options.EachStorage is given the storage
// predictions Result.Storage would hold, in its order, keeps none, and
// leaves the findings as they were (gds-no-local-nvme among them on
// hgx-b200).
func TestEachStorage(t *testing.T) {
	for _, name := range []string{"gds-storage", "hgx-b200"} {
		g, kept := analyzeFixture(t, name, "")
		var given []StoragePrediction
		res, err := Analyze(g, nil, Options{EachStorage: func(sp StoragePrediction) { given = append(given, sp) }})
		if err != nil {
			t.Fatal(err)
		}
		if len(kept.Storage) == 0 || !slices.Equal(given, kept.Storage) {
			t.Errorf("%s: given %d predictions, Result.Storage holds %d, or they differ", name, len(given), len(kept.Storage))
		}
		if res.Storage != nil {
			t.Errorf("%s: Result.Storage holds %d predictions with EachStorage set", name, len(res.Storage))
		}
		codes := func(r *Result) (out []string) {
			for _, f := range r.Findings {
				out = append(out, f.Code+" "+strings.Join(f.Devices, ","))
			}
			return out
		}
		if a, b := codes(res), codes(kept); !slices.Equal(a, b) {
			t.Errorf("%s: findings %v with EachStorage, %v without", name, a, b)
		}
	}
}
