package ncclxml

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gdtopo/gdtopo/topology"
)

const corpusDir = "../../../shared/corpus/nccl-xml"

// corpusFiles lists the corpus, skipping when it is absent unless CI=true.
func corpusFiles(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(corpusDir, "*"))
	if err != nil || len(files) == 0 {
		if os.Getenv("CI") == "true" {
			t.Fatalf("corpus %s missing under CI", corpusDir)
		}
		t.Skipf("corpus %s absent", corpusDir)
	}
	return files
}

// pairWant is the expected classification of one pair, by BDF.
type pairWant struct {
	a, b      string
	smi, nccl topology.Label
	uncertain bool // only checked for PCIe labels (NV# pairs inherit the PCIe note)
}

type corpusWant struct {
	err       string // substring of the error; empty when the file must read
	acc, nic  int
	cpus      int
	nvlinks   int
	warnings  []string // substrings, each of which must appear in some warning
	noWarning bool
	pairs     []pairWant
	// partial is the start of Graph.Partial: where the file shows it holds
	// part of a topology; "" where it may hold all.
	partial string
}

// The counts and pairs below were read off each file by hand: PIX where GPU
// and NIC share a <pci> parent, PXB where the path climbs from one <pci> to
// another, PHB where it meets only at the <cpu>, SYS across <cpu>s.
var corpus = map[string]corpusWant{
	"azure-ndv4-topo.xml": {acc: 8, nic: 8, cpus: 4, noWarning: true, pairs: []pairWant{
		{"0003:00:00.0", "0103:00:00.0", "PIX", "PIX", false}, // behind virtual switch ffff:ff:01.0
		{"0001:00:00.0", "0102:00:00.0", "PIX", "PIX", false}, // ffff:ff:02.0
		{"0003:00:00.0", "0004:00:00.0", "PIX", "PIX", false},
		{"0003:00:00.0", "0101:00:00.0", "SYS", "SYS", false}, // cpu 0 vs cpu 1
		{"000e:00:00.0", "0105:00:00.0", "SYS", "SYS", false},
	}},
	"azure-ndv5-topo.xml": {acc: 8, nic: 8, cpus: 2, noWarning: true, pairs: []pairWant{
		{"0001:00:00.0", "0101:00:00.0", "PIX", "PIX", false},
		{"0008:00:00.0", "0104:00:00.0", "PIX", "PIX", false},
		{"0001:00:00.0", "0102:00:00.0", "PHB", "PHB", true}, // two switches, one cpu
		{"0001:00:00.0", "0105:00:00.0", "SYS", "SYS", false},
	}},
	"azure-ndv2-topo.xml": {acc: 8, nic: 1, cpus: 2, noWarning: true, pairs: []pairWant{
		{"0001:00:00.0", "0101:00:00.0", "PHB", "PHB", true}, // both straight under cpu 0
		{"0001:00:00.0", "0002:00:00.0", "PHB", "PHB", true},
		{"0005:00:00.0", "0101:00:00.0", "SYS", "SYS", false},
	}},
	"azure-ncv4-topo.xml": {acc: 4, nic: 0, cpus: 4, warnings: []string{`net "eth0" has no PCI device`, "NVLink to itself"}, pairs: []pairWant{
		{"0001:00:00.0", "0002:00:00.0", "SYS", "SYS", false},
	}},
	"azure-ncv4-graph.xml": {err: "an NCCL graph file (rings/trees), not a topology"},
	"aws-p4d-24xl-topo.xml": {acc: 8, nic: 4, cpus: 2, noWarning: true, pairs: []pairWant{
		{"0000:10:1c.0", "0000:10:1b.0", "PIX", "PIX", false}, // switch 0
		{"0000:10:1c.0", "0000:10:1d.0", "PIX", "PIX", false}, // two A100 SXM4, no <nvlink>: NV?, PIX kept beside it
		{"0000:10:1c.0", "0000:20:1b.0", "PHB", "PHB", true},  // switch 1, same cpu
		{"0000:10:1c.0", "0000:90:1b.0", "SYS", "SYS", false},
	}},
	"aws-p4de-24xl-topo.xml": {acc: 8, nic: 4, cpus: 2, noWarning: true, pairs: []pairWant{
		{"0000:a0:1d.0", "0000:a0:1b.0", "PIX", "PIX", false},
		{"0000:a0:1d.0", "0000:90:1b.0", "PHB", "PHB", true},
		{"0000:a0:1d.0", "0000:10:1b.0", "SYS", "SYS", false},
	}},
	"aws-p5.48xl-topo.xml": {acc: 8, nic: 32, cpus: 1, noWarning: true, pairs: []pairWant{
		{"0000:4f:00.0", "0000:50:00.0", "PIX", "PIX", false},
		{"0000:4f:00.0", "0000:53:00.0", "PIX", "PIX", false},
		{"0000:c0:00.0", "0000:c4:00.0", "PIX", "PIX", false},
		{"0000:4f:00.0", "0000:61:00.0", "PHB", "PHB", true},
		{"0000:4f:00.0", "0000:60:00.0", "PHB", "PHB", true},
	}},
	"aws-g5.48xl-topo.xml": {acc: 0, nic: 0, cpus: 2, warnings: []string{"9 <pci> elements without class"}},
	"nccl-1505-dgxa100.fragment.xml": {acc: 1, nic: 1, cpus: 1, partial: "the text starts inside the tree: ", warnings: []string{
		"<pci> outside any <cpu>", "</pci> with no <pci>", `XML ends inside <pci busid="0000:0a:00.0">`,
	}, pairs: []pairWant{
		{"0000:07:00.0", "0000:0c:00.0", "?", "?", true}, // both hang off cpu?, the part of the tree the text lacks: they may share a switch
	}},
	"nccl-tests-213-h100.fragment.xml": {acc: 1, nic: 2, cpus: 1, partial: "the text starts inside the tree: ", warnings: []string{
		"<pci> outside any <cpu>", `XML ends inside <gpu dev="2">`,
	}, pairs: []pairWant{
		{"0000:48:00.0", "0000:47:00.0", "PIX", "PIX", false}, // same Broadcom switch 45:00.0
		{"0000:48:00.0", "0000:35:00.0", "?", "?", true},      // no bridge in common below cpu?
	}},
	"nccl-671-dgx1v-4gpu.fragment.xml": {acc: 2, nic: 0, cpus: 1, nvlinks: 1, partial: `the file ends inside <gpu dev="1">: `, warnings: []string{
		`XML ends inside <gpu dev="1">`, "NVLinks to 3 devices the file does not hold",
	}, pairs: []pairWant{
		{"0000:06:00.0", "0000:07:00.0", "NV1", "NVL", false},
	}},
	"nccl-507-8xv100-skx.fragment.xml": {acc: 2, nic: 0, cpus: 1, nvlinks: 0, partial: `the file ends inside <gpu dev="1">: `, warnings: []string{
		`XML ends inside <gpu dev="1">`, "NVSwitch link count unknown",
	}, pairs: []pairWant{
		{"0000:39:00.0", "0000:3b:00.0", "PIX", "PIX", false}, // both under 37:00.0; 3b's links are cut
	}},
	"nccl-tests-256-h200-vm.nccl-info-topology.txt": {err: "NCCL INFO log text of the topology print"},
	"rccl-topo_4p2h_2nic.xml": {acc: 8, nic: 2, cpus: 1, nvlinks: 8, noWarning: true, pairs: []pairWant{
		{"0000:1d:00.0", "0000:1a:00.0", "PXB", "PXB", false}, // 1d under 1b under 18; 1a under 18
		{"0000:1d:00.0", "0000:26:00.0", "PXB", "PXB", false},
		{"0000:1d:00.0", "0000:20:00.0", "NV1", "NVL", false}, // xgmi
		{"0000:1d:00.0", "0000:4c:00.0", "PHB", "PHB", true},
	}},
	"rccl-topo_8p_pcie_2nic.xml": {acc: 8, nic: 2, cpus: 1, nvlinks: 0, noWarning: true, pairs: []pairWant{
		{"0000:1d:00.0", "0000:20:00.0", "PXB", "PXB", false},
		{"0000:49:00.0", "0000:4c:00.0", "PXB", "PXB", false},
		{"0000:1d:00.0", "0000:3f:00.0", "PHB", "PHB", true},
	}},
	"rccl-topo_8p_940vm.xml": {acc: 8, nic: 8, cpus: 2, nvlinks: 28, noWarning: true, pairs: []pairWant{
		{"0011:00:00.0", "0081:00:00.0", "XGMI", "NVL", false}, // AMD's xGMI: RCCL's XGMI (src/graph/topo.cc topoPathTypeStr)
		{"0011:00:00.0", "0010:00:00.0", "PHB", "PHB", true},
		{"0011:00:00.0", "0080:00:00.0", "SYS", "SYS", false},
	}},
	"rccl-topo_16p1h.xml":        {acc: 16, nic: 8, cpus: 4, nvlinks: 28, noWarning: true},
	"rccl-topo_8p1h_4.xml":       {acc: 8, nic: 8, cpus: 2, nvlinks: 12, noWarning: true},
	"rccl-topo_8p_rome_4n_1.xml": {acc: 8, nic: 4, cpus: 4, nvlinks: 12, noWarning: true},
	"rccl-topo_8p_ts1.xml":       {acc: 8, nic: 2, cpus: 4, nvlinks: 8, noWarning: true},
}

func TestCorpus(t *testing.T) {
	files := corpusFiles(t)
	seen := map[string]bool{}
	for _, path := range files {
		name := filepath.Base(path)
		seen[name] = true
		t.Run(name, func(t *testing.T) {
			want, ok := corpus[name]
			if !ok {
				t.Fatalf("corpus file %s has no expectations: add it to the table", name)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !Sniff(data) {
				t.Errorf("Sniff = false")
			}
			g, err := Parse(name, data)
			if want.err != "" {
				if err == nil || !strings.Contains(err.Error(), want.err) || !strings.HasPrefix(err.Error(), name+": ") {
					t.Fatalf("err = %v, want %q naming the input", err, want.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			checkGraph(t, g, want)
		})
	}
	for name := range corpus {
		if !seen[name] {
			t.Errorf("expected corpus file %s is missing", name)
		}
	}
}

func checkGraph(t *testing.T, g *topology.Graph, want corpusWant) {
	t.Helper()
	if !g.NCCLView {
		t.Error("NCCLView not set")
	}
	if n := len(g.OfKind(topology.KindAccelerator)); n != want.acc {
		t.Errorf("accelerators = %d, want %d", n, want.acc)
	}
	if n := len(g.OfKind(topology.KindNIC)); n != want.nic {
		t.Errorf("NICs = %d, want %d", n, want.nic)
	}
	if n := len(g.HostBridges); n != want.cpus {
		t.Errorf("cpu nodes = %d, want %d", n, want.cpus)
	}
	if n := len(g.NVLinks); n != want.nvlinks {
		t.Errorf("NVLinks = %d (%v), want %d", n, g.NVLinks, want.nvlinks)
	}
	if want.partial == "" && g.Partial != "" || !strings.HasPrefix(g.Partial, want.partial) {
		t.Errorf("Partial %q, want it to start %q", g.Partial, want.partial)
	}
	if want.noWarning && len(g.Warnings) > 0 {
		t.Errorf("unexpected warnings: %v", g.Warnings)
	}
	for _, w := range want.warnings {
		found := false
		for _, got := range g.Warnings {
			found = found || strings.Contains(got.String(), w)
		}
		if !found {
			t.Errorf("no warning containing %q in %v", w, g.Warnings)
		}
	}
	if !contains(g.Lacks, "host bridges (NCCL's topology has CPU nodes only") || !contains(g.Lacks, "current link state (NCCL records max_link_*)") {
		t.Errorf("Lacks = %v", g.Lacks)
	}
	for _, d := range g.Devices {
		if d.HostBridge == nil || d.RawNUMANode != d.HostBridge.NUMANode {
			t.Errorf("%s: host bridge %v, raw NUMA %d", d.BDF(), d.HostBridge, d.RawNUMANode)
		}
	}
	for _, pw := range want.pairs {
		a, b := dev(t, g, pw.a), dev(t, g, pw.b)
		if a == nil || b == nil {
			continue
		}
		p := g.Classify(a, b)
		if p.SMI == topology.NVLinkUnknown {
			// NVLink the file does not record: NV?, NCCL's NVL, and the
			// PCIe label kept beside them.
			if !p.LabelUncertain || p.NCCL != topology.NVL || p.PCIeSMI != pw.smi {
				t.Errorf("%s-%s: NV? with nccl %s, PCIe %s, uncertain %v; want NVL, %s, true", pw.a, pw.b, p.NCCL, p.PCIeSMI, p.LabelUncertain, pw.smi)
			}
			continue
		}
		if p.SMI != pw.smi || p.NCCL != pw.nccl {
			t.Errorf("%s-%s: smi %s nccl %s, want %s %s", pw.a, pw.b, p.SMI, p.NCCL, pw.smi, pw.nccl)
		}
		if p.NCCL != topology.NVL && p.LabelUncertain != pw.uncertain {
			t.Errorf("%s-%s: uncertain %v, want %v (%v)", pw.a, pw.b, p.LabelUncertain, pw.uncertain, p.Notes)
		}
	}
}

func contains(list []string, prefix string) bool {
	for _, s := range list {
		if strings.HasPrefix(s, prefix) {
			return true
		}
	}
	return false
}

func dev(t *testing.T, g *topology.Graph, s string) *topology.Device {
	t.Helper()
	addr, err := topology.ParseBDF(s)
	if err != nil {
		t.Fatal(err)
	}
	d := g.Device(addr)
	if d == nil {
		t.Errorf("no device %s", s)
	}
	return d
}

// tree exercises what the corpus does not: NVSwitch counts, kinds from
// <gpu>/<nic> children whatever the class, Broadcom Gen4 flattening, BDF
// case, attributes and the lacks for <pcilink> and <c2c>.
const tree = `<system version="1">
  <cpu numaid="0" affinity="0000000f,000000f0" arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="143">
    <pci busid="0000:10:00.0" class="0x060400" vendor="0x1000" device="0xc010" subsystem_vendor="0x1000" subsystem_device="0xa064" link_speed="16.0 GT/s PCIe" link_width="16">
      <pci busid="0000:11:00.0" class="0x060400" vendor="0x1000" device="0xc010" subsystem_vendor="0x1000" subsystem_device="0xa064" link_speed="16.0 GT/s PCIe" link_width="16">
        <pci busid="0000:12:00.0" class="0x048000" vendor="0x10de" device="0x20b0" link_speed="16.0 GT/s PCIe" link_width="16">
          <gpu dev="0" sm="80" gdr="1">
            <nvlink target="0000:c0:00.0" count="6" tclass="0x068000"/>
            <nvlink target="0000:c1:00.0" count="6" tclass="0x068000"/>
          </gpu>
        </pci>
      </pci>
      <pci busid="0000:13:00.0" class="0x060400" vendor="0x1000" device="0xc010" subsystem_vendor="0x1000" subsystem_device="0xa064" link_speed="16.0 GT/s PCIe" link_width="16">
        <pci busid="0000:14:00.0" class="0x000000" link_speed="16.0 GT/s PCIe" link_width="16">
          <nic><net name="mlx5_0" dev="0" speed="200000" port="1" gdr="0"/><net name="mlx5_1" dev="1" speed="400000" port="2" gdr="1"/></nic>
        </pci>
        <pcilink target="0000:10:00.0"/>
      </pci>
    </pci>
  </cpu>
  <cpu numaid="1" affinity="ffff0000,00000000">
    <pci busid="0000:9A:00.0" class="0x030200" vendor="0x10de" link_speed="32.0 GT/s PCIe" link_width="16">
      <gpu dev="1" sm="90" gdr="1">
        <nvlink target="0000:c0:00.0" count="4" tclass="0x068000"/>
        <c2c bw="1000" count="10"/>
      </gpu>
    </pci>
  </cpu>
</system>`

func TestTree(t *testing.T) {
	g, err := Parse("tree.xml", []byte(tree))
	if err != nil {
		t.Fatal(err)
	}
	gpu0, nic, gpu1, sub := dev(t, g, "0000:12:00.0"), dev(t, g, "0000:14:00.0"), dev(t, g, "0000:9a:00.0"), dev(t, g, "0000:11:00.0")
	if t.Failed() {
		t.FailNow()
	}
	// Kinds come from the <gpu>/<nic> children, not the class.
	if gpu0.Kind != topology.KindAccelerator || nic.Kind != topology.KindNIC || sub.Kind != topology.KindBridge || sub.Role != topology.RoleUpstream {
		t.Errorf("kinds: %s %s %s/%s", gpu0.Kind, nic.Kind, sub.Kind, sub.Role)
	}
	if gpu0.Parent != sub || sub.Parent == nil || sub.Parent.Addr.Bus != 0x10 || sub.Parent.Parent != nil {
		t.Errorf("parents wrong: %v %v", gpu0.Parent, sub.Parent)
	}
	if gpu0.Link.MaxGTs != 16 || gpu0.Link.MaxWidth != 16 || gpu0.Link.CurrentGTs != 16 || gpu0.Link.CurrentWidth != 16 {
		t.Errorf("link = %+v", gpu0.Link)
	}
	if strings.Join(nic.RDMA, ",") != "mlx5_0,mlx5_1" || nic.PortRateGbps != 400 {
		t.Errorf("nic RDMA %v rate %v", nic.RDMA, nic.PortRateGbps)
	}
	if gpu1.NUMANode != 1 || gpu1.RawNUMANode != 1 || gpu1.NUMAFrom != topology.NUMAFromFile || gpu1.LocalCPUs != "48-63" {
		t.Errorf("gpu1 NUMA %d/%d %q cpus %q", gpu1.NUMANode, gpu1.RawNUMANode, gpu1.NUMAFrom, gpu1.LocalCPUs)
	}
	s := g.System
	if s.CPUVendor != "GenuineIntel" || s.CPUFamily != 6 || s.CPUModelID != 143 || len(s.NUMANodes) != 2 ||
		s.NUMANodes[0].CPUs != "4-7,32-35" || s.LogicalCPUs != 24 {
		t.Errorf("system = %+v", s)
	}
	// NVSwitch: 12 and 4 links to NVSwitch make NV4 between the two GPUs.
	if n := g.NVLinkCount(gpu0, gpu1); n != 4 {
		t.Errorf("NVLinkCount = %d, want 4", n)
	}
	p := g.Classify(gpu0, gpu1)
	if p.SMI != "NV4" || p.NCCL != topology.NVL {
		t.Errorf("gpu0-gpu1 = %s/%s", p.SMI, p.NCCL)
	}
	// Two sub-switches of one Broadcom Gen4 switch: NCCL flattens them (PIX),
	// nvidia-smi counts both (PXB).
	p = g.Classify(gpu0, nic)
	if p.NCCL != topology.PIX || p.SMI != topology.PXB {
		t.Errorf("gpu0-nic = smi %s nccl %s, want PXB PIX", p.SMI, p.NCCL)
	}
	if p = g.Classify(gpu1, nic); p.NCCL != topology.SYS {
		t.Errorf("gpu1-nic nccl = %s", p.NCCL)
	}
	for _, w := range []string{"pcilink", "c2c"} {
		if !containsSub(g.Lacks, w) {
			t.Errorf("Lacks %v: nothing about %s", g.Lacks, w)
		}
	}
	var ws []string
	for _, w := range g.Warnings {
		ws = append(ws, w.String())
	}
	if !containsSub(ws, `net "mlx5_0" gdr=0`) {
		t.Errorf("warnings %v: nothing about gdr=0", ws)
	}
}

func containsSub(list []string, sub string) bool {
	for _, s := range list {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// cpus is n <cpu> elements of NUMA nodes 0 to n-1, each with a bridge.
func cpus(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `<cpu numaid="%d"><pci busid="%04x:00:00.0" class="0x060400"/></cpu>`, i, i)
	}
	return b.String()
}

// pcis is n bridges, each its own <pci>.
func pcis(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `<pci busid="0000:%02x:%02x.%d" class="0x060400"/>`, i>>8, (i>>3)&31, i&7)
	}
	return b.String()
}

// TestCapsAtTheirValue reads files exactly at the caps TestBadInput refuses
// one past.
func TestCapsAtTheirValue(t *testing.T) {
	for name, in := range map[string]string{
		"cpu nodes": `<system version="1">` + cpus(maxCPUNodes) + `</system>`,
		"elements":  `<system version="1"><cpu numaid="0"><pci busid="0000:01:00.0" class="0x060400"/>` + strings.Repeat("<x/>", MaxElements-3) + `</cpu></system>`,
		"functions": `<system version="1"><cpu numaid="0">` + pcis(topology.MaxFunctions) + `</cpu></system>`,
	} {
		if _, err := Parse("in.xml", []byte(in)); err != nil {
			t.Errorf("%s at the cap: %v", name, err)
		}
	}
}

func TestBadInput(t *testing.T) {
	deep := strings.Repeat("<pci>", MaxDepth+10)
	tests := []struct {
		name, in, err string
	}{
		{"empty", "", "empty input"},
		{"blank", " \n\t", "empty input"},
		{"binary", "\x7fELF\x02\x01\x01\x00\x00\x00<system>", "binary data"},
		{"latin1", "<system>\xff\xfe</system>", "binary data"},
		{"truncated", `<system version="1"><cpu numaid="0"><pci busid="0000:0`, "no <pci> devices"},
		{"html", "<!DOCTYPE html><html><head><title>x</title></head><body><p>hi</body></html>", "not an NCCL topology"},
		{"other xml", `<?xml version="1.0"?><topology><object type="Machine"/></topology>`, "not an NCCL topology"},
		{"plain text", "GPU0 GPU1 NIC0\nGPU0 X NV4 SYS\n", "not an NCCL topology"},
		{"broken xml", "<<<>>>&&&", "not NCCL topology XML"},
		{"deep", `<system><cpu numaid="0">` + deep, "nested deeper than 256"},
		{"graphs", `<graphs version="1"><graph id="0"/></graphs>`, "an NCCL graph file"},
		{"info log", "x:1:2 [0] NCCL INFO === System : maxBw 48.0 totalBw 370.8 ===\n", "NCCL INFO log text"},
		{"no pci", `<system version="1"><cpu numaid="0"/></system>`, "no <pci> devices"},
		{"big", "", "over the 64 MiB limit"},
		// Each a cap at its value and one past it: the first reads.
		{"cpu nodes", `<system version="1">` + cpus(maxCPUNodes+1) + `</system>`, "more than 1024 <cpu> NUMA nodes"},
		{"elements", `<system version="1"><cpu numaid="0">` + strings.Repeat("<x/>", MaxElements) + `</cpu></system>`, "more than 65536 XML elements"},
		{"functions", `<system version="1"><cpu numaid="0">` + pcis(topology.MaxFunctions+1) + `</cpu></system>`, "more than 16384 PCI functions"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := []byte(tt.in)
			if tt.name == "big" {
				in = bytes.Repeat([]byte(" "), MaxInput+1)
			}
			g, err := Parse("in.xml", in)
			if err == nil || !strings.Contains(err.Error(), tt.err) || !strings.HasPrefix(err.Error(), "in.xml: ") {
				t.Fatalf("Parse = %v, %v; want error containing %q naming the input", g, err, tt.err)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error is not one line: %q", err)
			}
		})
	}
}

func TestSniff(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{`<system version="1">`, true},
		{`      <pci busid="0000:07:00.0" class="0x030200">`, true},
		{`<cpu numaid="0" affinity="ff">`, true},
		{`<graphs version="1">`, true},
		{"n:1:2 [5] NCCL INFO === System : maxBw 48.0", true},
		{`<topology><object type="Machine"/>`, false},
		{`<cpu id="0">`, false},
		{"00:00.0 Host bridge", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := Sniff([]byte(tt.in)); got != tt.want {
			t.Errorf("Sniff(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestMaskToList(t *testing.T) {
	tests := []struct {
		in, want string
		n        int
	}{
		{"00000000,00000000,00ffffff", "0-23", 24},
		{"ffffff00,0000ffff,ff000000", "24-47,72-95", 48},
		{"1", "0", 1},
		{"5", "0,2", 2},
		{"", "", 0},
		{"zz", "", 0},
	}
	for _, tt := range tests {
		if got, n := maskToList(tt.in); got != tt.want || n != tt.n {
			t.Errorf("maskToList(%q) = %q, %d; want %q, %d", tt.in, got, n, tt.want, tt.n)
		}
	}
}

func FuzzParse(f *testing.F) {
	if files, _ := filepath.Glob(filepath.Join(corpusDir, "*")); len(files) > 0 {
		for _, path := range files {
			if data, err := os.ReadFile(path); err == nil {
				f.Add(data)
			}
		}
	}
	f.Add([]byte(tree))
	f.Add([]byte(`<system><cpu numaid="-1"><pci busid="ffff:ff:01.0"><pci busid="0000:01:00.0" class="0x0302"><gpu><nvlink target="0000:01:00.0" count="x"/></gpu></pci></pci></cpu></system>`))
	f.Add([]byte(`</pci></cpu><pci busid="0000:01:00.0"><nic><net name="a" speed="-1"/>`))
	f.Add([]byte(`<system><cpu numaid="0" affinity="ffffffff,ffffffff"><pci busid="0000:01:00.0"/><pci busid="0000:01:00.0"/></cpu>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		Sniff(data)
		g, err := Parse("fuzz", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz: ") {
				t.Fatalf("error does not name the input: %v", err)
			}
			return
		}
		if !g.NCCLView || len(g.Devices) == 0 {
			t.Fatalf("graph without NCCLView or devices")
		}
		if g.CheckPairEnds() == nil { // the bound gdtopo itself labels pairs under
			g.Pairs()
		}
	})
}

// TestGPUModel checks that GPUs whose <pci> gives no IDs are named from
// their <gpu>: RCCL's gcn, else the compute capability in sm.
func TestGPUModel(t *testing.T) {
	for file, want := range map[string]string{
		"rccl-topo_8p_ts1.xml": "AMD GPU gcnArch 906",
		"aws-p5.48xl-topo.xml": "GPU, compute capability 9.0",
	} {
		path := filepath.Join(corpusDir, file)
		data, err := os.ReadFile(path)
		if err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatal(err)
			}
			t.Skipf("corpus missing: %v", err)
		}
		g, err := Parse(file, data)
		if err != nil {
			t.Fatal(err)
		}
		accs := g.OfKind(topology.KindAccelerator)
		if len(accs) == 0 {
			t.Fatalf("%s: no accelerators", file)
		}
		for _, d := range accs {
			if d.Name != want {
				t.Errorf("%s: %s named %q, want %q", file, d.BDF(), d.Name, want)
			}
		}
	}
	if got := gpuModel(map[string]string{"gcn": "gfx942"}); got != "AMD GPU gfx942" {
		t.Errorf("gcn gfx942: %q", got)
	}
}

// TestLinkToHost: a <pci> straight under <cpu>, as provider files list
// GPUs and NICs (Azure NDv2), keeps its link_speed on the path: NCCL counts
// that link to the CPU, so the pair's bottleneck is known.
func TestLinkToHost(t *testing.T) {
	in := `<system version="1">
  <cpu numaid="0" affinity="0000ffff" arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="85">
    <pci busid="0001:00:00.0" class="0x030200" link_speed="8.0 GT/s PCIe" link_width="16"/>
    <pci busid="0101:00:00.0" class="0x020700" link_speed="8.0 GT/s PCIe" link_width="8"/>
  </cpu>
</system>`
	g, err := Parse("in.xml", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	gpu, nic := g.Device(topology.BDF{Domain: 1}), g.Device(topology.BDF{Domain: 0x101})
	if gpu == nil || nic == nil || !gpu.LinkToHost || !nic.LinkToHost {
		t.Fatalf("devices %v %v: want both read, linked to the host", gpu, nic)
	}
	p := g.Classify(gpu, nic)
	want := topology.DataGbps(8, 8, topology.DefaultMPSBytes, topology.TLPOverheadBytes) // the NIC's x8 link
	if p.BottleneckGbps != want || len(p.Hops) == 0 {
		t.Errorf("bottleneck %.3f Gb/s over %d hops, want %.3f", p.BottleneckGbps, len(p.Hops), want)
	}
	for _, h := range g.AppendHops(nil, p) {
		if h.Kind != topology.HopPCIe && h.Kind != topology.HopHostBridges {
			t.Errorf("hop %+v: want PCIe links to the host bridge", h)
		}
	}
}
