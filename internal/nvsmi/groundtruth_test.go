package nvsmi_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gdtopo/gdtopo/fixtures/fixturetest"
	"github.com/gdtopo/gdtopo/internal/hwloc"
	"github.com/gdtopo/gdtopo/internal/lspcidump"
	"github.com/gdtopo/gdtopo/internal/ncclxml"
	"github.com/gdtopo/gdtopo/internal/nvsmi"
	"github.com/gdtopo/gdtopo/internal/source"
	"github.com/gdtopo/gdtopo/internal/sysfs"
	"github.com/gdtopo/gdtopo/topology"
)

func corpus(t *testing.T) string {
	t.Helper()
	dir := filepath.Join("..", "..", "..", "shared", "corpus")
	if _, err := os.Stat(dir); err != nil {
		if os.Getenv("CI") == "" {
			t.Skipf("corpus %s absent (needed in CI): %v", dir, err)
		}
		t.Fatalf("corpus %s: %v", dir, err)
	}
	return dir
}

// read reads a source as gdtopo's CLI does: a folder or archive as sysfs,
// a text file (or several, concatenated) by its content.
func read(t *testing.T, paths ...string) *topology.Graph {
	t.Helper()
	if st, err := os.Stat(paths[0]); err == nil && (st.IsDir() || strings.Contains(paths[0], ".tar")) {
		src, err := source.Open(paths[0])
		if err != nil {
			t.Fatal(err)
		}
		g, err := sysfs.Read(src.Root)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	var data []byte
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		data = append(append(data, b...), '\n')
	}
	name := filepath.Base(paths[0])
	var g *topology.Graph
	var err error
	switch {
	case ncclxml.Sniff(data):
		g, err = ncclxml.Parse(name, data)
	case hwloc.SniffXML(data):
		g, err = hwloc.ParseXML(name, data)
	case hwloc.SniffConsole(data):
		g, err = hwloc.ParseConsole(name, data)
	case lspcidump.Sniff(data):
		g, err = lspcidump.Parse(name, data)
	default:
		t.Fatalf("%s: no reader recognises it", name)
	}
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func matrix(t *testing.T, path string) *nvsmi.Matrix {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := nvsmi.Parse(path, b)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestNoConfidentLabelContradictsNvidiaSmi sets every tree the corpus holds
// of a host whose own nvidia-smi topo -m it also holds against that matrix:
// a label without "?" must equal the driver's, NV# included (a confident
// PCIe label where the driver prints NV# fails), and every cell must be
// compared, the GPUs' affinity columns too where the source gives local
// CPUs and NUMA nodes. The fixtures modelled on those hosts are checked the
// same way; dgx-a100 has 32 CPUs where the host had 256, so each GPU's CPU
// Affinity differs there.
func TestNoConfidentLabelContradictsNvidiaSmi(t *testing.T) {
	dir := corpus(t)
	puget := filepath.Join(dir, "paired", "puget-wrx90-threadripper-2xrtx6000ada-cx7")
	cases := []struct {
		name   string
		tree   []string
		matrix string
		cells  int // every pair of the matrix's columns, and the affinity columns the source can answer
		cpus   int // CPU Affinity cells that differ
	}{
		{"puget lspci -tv", []string{filepath.Join(puget, "lspci-tv.txt")}, filepath.Join(puget, "nvsmi-topo.txt"), 6, 0},
		{"puget lspci -tv + -vvv", []string{filepath.Join(puget, "lspci-tv.txt"), filepath.Join(puget, "lspci-vvv.md")}, filepath.Join(puget, "nvsmi-topo.txt"), 6, 0},
		{"fixture wrx90-threadripper", []string{filepath.Join("..", "..", "fixtures", "wrx90-threadripper.tar.gz")}, filepath.Join(puget, "nvsmi-topo.txt"), 6 + 4, 0},
		{"fixture dgx-a100", []string{filepath.Join("..", "..", "fixtures", "dgx-a100.tar.gz")}, filepath.Join(dir, "nvsmi", "dgxa100-like-epyc7742-8xa100-10nic.txt"), 153 + 16, 8},
		// Two DGX-2s, not one host: the design fixes the GPU pairs (NV6); the
		// hwloc XML has no NICs, and 4 CPUs where the other host's GPUs
		// print 0-23,48-71. The matrix is cut after GPU4's row.
		{"hwloc DGX-2 vs a DGX-2's nvidia-smi", []string{filepath.Join(dir, "hwloc", "nvidiaDGX2.xml")}, filepath.Join(dir, "nvsmi", "nccl-tests-78-dgx2-16gpu-10nic.partial.txt"), 65 + 4, 4},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g, m := read(t, c.tree...), matrix(t, c.matrix)
			r := nvsmi.Compare(g, m)
			if r.Compared != c.cells {
				t.Errorf("%d cells compared, want %d (notes: %v)", r.Compared, c.cells, r.Notes)
			}
			cpus := 0
			for _, d := range r.Differ {
				switch {
				case d.B == nil && d.Column == "CPU Affinity":
					cpus++
				case d.B == nil:
					t.Errorf("%s %s (%s): the source says %s, nvidia-smi %s", d.Row, d.Column, d.A.BDF(), d.Tree, d.Driver)
				case !strings.HasSuffix(d.Tree, "?"):
					t.Errorf("%s-%s (%s-%s): gdtopo says %s as fact, nvidia-smi %s", d.Row, d.Column, d.A.BDF(), d.B.BDF(), d.Tree, d.Driver)
				}
			}
			if cpus != c.cpus {
				t.Errorf("%d CPU Affinity cells differ, want %d", cpus, c.cpus)
			}
		})
	}
}

// TestVerifyReportsEveryChangedCell changes cells of a real matrix and
// requires Compare to report exactly those: the comparison can fail.
func TestVerifyReportsEveryChangedCell(t *testing.T) {
	dir := corpus(t)
	puget := filepath.Join(dir, "paired", "puget-wrx90-threadripper-2xrtx6000ada-cx7")
	g := read(t, filepath.Join(puget, "lspci-tv.txt"))
	b, err := os.ReadFile(filepath.Join(puget, "nvsmi-topo.txt"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	// GPU1-NIC0 NODE becomes PIX in both rows; GPU0-GPU1 PHB becomes NV4.
	text = strings.Replace(text, "GPU1    PHB      X      NODE    NODE", "GPU1    NV4      X      PIX     NODE", 1)
	text = strings.Replace(text, "GPU0     X      PHB     NODE", "GPU0     X      NV4     NODE", 1)
	text = strings.Replace(text, "NIC0    NODE    NODE     X", "NIC0    NODE    PIX      X", 1)
	m, err := nvsmi.Parse("changed", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	r := nvsmi.Compare(g, m)
	got := map[string]string{}
	for _, d := range r.Differ {
		got[d.Row+"-"+d.Column] = d.Driver + " vs " + d.Tree
	}
	want := map[string]string{"GPU0-GPU1": "NV4 vs PHB", "GPU1-NIC0": "PIX vs NODE?"} // lspci -tv has no NUMA nodes
	if len(got) != len(want) || got["GPU0-GPU1"] != want["GPU0-GPU1"] || got["GPU1-NIC0"] != want["GPU1-NIC0"] {
		t.Errorf("differences %v, want %v", got, want)
	}
	if r.Compared != 6 || r.Agree != 4 {
		t.Errorf("compared %d agree %d, want 6 and 4", r.Compared, r.Agree)
	}
	// A matrix of another host (more GPUs): no GPU is matched, only its two
	// NICs to the two ConnectX-7 functions, by order.
	other := matrix(t, filepath.Join(dir, "nvsmi", "nccl-tests-320-3gpu-2nic.txt"))
	if r := nvsmi.Compare(g, other); r.Compared != 1 || r.GPUsBy != "" || len(r.Notes) == 0 {
		t.Errorf("3-GPU matrix against a 2-GPU tree: compared %d, GPUs by %q, notes %v", r.Compared, r.GPUsBy, r.Notes)
	}
}

// TestApplyTakesNVLinkFromTheMatrix: the driver's NV# replace NV? on the
// pairs its matrix holds, and only those.
func TestApplyTakesNVLinkFromTheMatrix(t *testing.T) {
	dir := corpus(t)
	g := read(t, filepath.Join("..", "..", "fixtures", "dgx-a100.tar.gz"))
	m := matrix(t, filepath.Join(dir, "nvsmi", "dgxa100-like-epyc7742-8xa100-10nic.txt"))
	nvsmi.Apply(g, m, nvsmi.Map(g, m))
	for _, p := range topology.PairsOf(g.Pairs(), topology.KindAccelerator, topology.KindAccelerator) {
		if p.SMI != "NV12" || p.LabelUncertain || p.NCCL != topology.NVL {
			t.Errorf("%s-%s: %s (uncertain %v), want NV12", p.A.BDF(), p.B.BDF(), p.SMI, p.LabelUncertain)
		}
	}
	if !g.NVLinkRecorded || g.NVLinkLack() != "" {
		t.Errorf("recorded %v, lack %q", g.NVLinkRecorded, g.NVLinkLack())
	}

	// A matrix cut after GPU3's row (another 8-GPU host, used for its
	// shape): pairs among GPU4-GPU7 stay NV?.
	g = read(t, filepath.Join("..", "..", "fixtures", "hgx-h100.tar.gz"))
	m = matrix(t, filepath.Join(dir, "nvsmi", "deepep-145-8xh-nv18-18nic.partial.txt"))
	nvsmi.Apply(g, m, nvsmi.Map(g, m))
	gpus := g.OfKind(topology.KindAccelerator)
	for i, a := range gpus {
		for j := i + 1; j < len(gpus); j++ {
			p := g.Classify(a, gpus[j])
			want := topology.Label("NV18")
			if i >= 4 {
				want = topology.NVLinkUnknown
			}
			if p.SMI != want {
				t.Errorf("GPU%d-GPU%d: %s, want %s", i, j, p.SMI, want)
			}
		}
	}
	if g.NVLinkRecorded {
		t.Error("a cut matrix marked every NVLink recorded")
	}
}

// ncclInfo reads NCCL's INFO topology print ("=== System : ..."): each
// GPU's and NIC's bus ID and the PCI node and CPU above it, by indentation.
func ncclInfo(t *testing.T, path string) map[string][]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	node := regexp.MustCompile(`INFO (\s*)(?:\+ \w+\[[0-9.]+\] - )?(CPU|PCI|GPU|NIC|NET|NVS)/([0-9a-f]+)-([0-9a-f]+)`)
	type level struct {
		indent int
		name   string
	}
	var stack []level
	chains := map[string][]string{}
	for _, l := range strings.Split(string(b), "\n") {
		mm := node.FindStringSubmatch(l)
		if mm == nil {
			continue
		}
		indent := len(mm[1])
		if mm[2] == "CPU" && !strings.Contains(l, "+") {
			stack = []level{{indent, "CPU/" + mm[4]}}
			continue
		}
		for len(stack) > 0 && stack[len(stack)-1].indent >= indent && len(stack) > 1 {
			stack = stack[:len(stack)-1]
		}
		name := mm[2] + "/" + mm[4]
		if mm[2] == "GPU" || mm[2] == "NIC" {
			id, err := strconv.ParseUint(mm[4], 16, 64)
			if err != nil {
				t.Fatal(err)
			}
			dom, _ := strconv.ParseUint(mm[3], 16, 32)
			bdf := topology.BDF{Domain: uint32(dom), Bus: uint8(id >> 12), Device: uint8(id>>4) & 0x1f, Function: uint8(id & 0x7)}.String()
			var up []string
			for k := len(stack) - 1; k >= 0; k-- {
				up = append(up, stack[k].name)
			}
			chains[bdf] = up
		}
		stack = append(stack, level{indent, name})
	}
	return chains
}

// TestH200VMAgainstNCCL sets the H200 VM's partial lspci -tv against the
// NCCL INFO topology the same guest printed (nccl-tests#256): NCCL's label
// of every GPU-NIC pair both hold must equal gdtopo's unless gdtopo marked
// it "?", and GPU pairs, joined by NVSwitch there, must never read a PCIe
// label as fact.
func TestH200VMAgainstNCCL(t *testing.T) {
	dir := corpus(t)
	g := read(t, filepath.Join(dir, "lspci", "nccl-tests-256-h200-vm.partial.lspci-tv.txt"))
	chains := ncclInfo(t, filepath.Join(dir, "nccl-xml", "nccl-tests-256-h200-vm.nccl-info-topology.txt"))
	if len(chains) != 16 {
		t.Fatalf("%d GPUs and NICs in NCCL's print, want 16", len(chains))
	}
	ncclLabel := func(a, b []string) topology.Label {
		switch {
		case a[0] == b[0]:
			return topology.PIX // one PCI node (switch) above both
		case a[len(a)-1] == b[len(b)-1]:
			return topology.PHB
		}
		return topology.SYS
	}
	compared := 0
	for _, p := range g.Pairs() {
		ca, cb := chains[p.A.BDF()], chains[p.B.BDF()]
		if ca == nil || cb == nil {
			continue
		}
		compared++
		if p.A.Kind == topology.KindAccelerator && p.B.Kind == topology.KindAccelerator {
			if p.SMI != topology.NVLinkUnknown && p.NCCL != topology.NVL {
				t.Errorf("%s-%s: %s between NVSwitch-joined H200s", p.A.BDF(), p.B.BDF(), p.SMI)
			}
			continue
		}
		if want := ncclLabel(ca, cb); p.NCCL != want && !p.LabelUncertain {
			t.Errorf("%s-%s: gdtopo's NCCL label %s as fact, NCCL printed %s", p.A.BDF(), p.B.BDF(), p.NCCL, want)
		}
	}
	if compared < 100 {
		t.Errorf("only %d pairs compared", compared)
	}
}

// TestNVLinkNeverAPCIeLabel reads every fixture and every corpus file gdtopo
// reads, and requires the accelerator pairs of the machines known to have
// (or to be able to have) NVLink or xGMI to read NV# or NV?, never a PCIe
// label, with "Source lacks" saying so where the source does not record
// NVLink; and those of machines that cannot have it to keep their PCIe
// labels.
func TestNVLinkNeverAPCIeLabel(t *testing.T) {
	dir := corpus(t)
	nvlink := map[string]bool{
		// NVSwitch baseboards, SXM/OAM modules, bridge-capable PCIe boards.
		"hgx-h100": true, "dgx-a100": true, "cloud-vm-flat": true, "genoa-2s-rootports": true,
		"hgx-b200": true, "mi300x-8oam": true, "gb200-tray": true, "grace-cx8-dd": true,
		"gds-storage": true, "roce-lag-bond": true, "socket-direct": true, // H100 PCIe boards
		"nvidiaDGX2.xml": true, "power8gpudistances.xml": true,
		"lenovo-sd665n-v3-4xh100-genoa.lspci-t-vvv.txt": true, "lenovo-sd665n-v3-4xh100-genoa.lspci.txt": true,
		"nccl-tests-256-h200-vm.partial.lspci-tv.txt": true,
		// NCCL topology files: dumps that record NVLink, provider files that leave it out.
		"aws-p4d-24xl-topo.xml": true, "aws-p4de-24xl-topo.xml": true, "aws-p5.48xl-topo.xml": true,
		"azure-ndv2-topo.xml": true, "azure-ndv4-topo.xml": true, "azure-ndv5-topo.xml": true,
		"azure-ncv4-topo.xml": true, "nccl-507-8xv100-skx.fragment.xml": true, "nccl-671-dgx1v-4gpu.fragment.xml": true,
		"rccl-topo_16p1h.xml": true, "rccl-topo_4p2h_2nic.xml": true, "rccl-topo_8p1h_4.xml": true,
		"rccl-topo_8p_940vm.xml": true, "rccl-topo_8p_pcie_2nic.xml": true, "rccl-topo_8p_rome_4n_1.xml": true,
		"rccl-topo_8p_ts1.xml": true,
	}
	pcieOnly := map[string]bool{
		// RTX 6000 Ada, L40S, V100 PCIe, Tesla M20xx and NEC VE cards have no NVLink.
		"wrx90-threadripper": true, "spr-snc2": true, "sys-4029gp-v100": true,
		"24em64t-2n6c2t-pci.xml": true, "32em64t-2n8c2t-pci-wholeio.xml": true,
		"32intel64-2p8co2t+8ve.console": true, "32intel64-2p8co2t+8ve.tar.bz2": true,
	}
	var inputs []string
	fixture := map[string]string{} // archive path -> fixture name
	for _, name := range fixturetest.Names(t) {
		in := filepath.Join("..", "..", "fixtures", name+".tar.gz")
		inputs = append(inputs, in)
		fixture[in] = name
	}
	for _, pat := range []string{"nccl-xml/*.xml", "hwloc/*.xml", "hwloc/*.console", "hwloc/*.tar.bz2", "lspci/*.txt", "ghw/*.tar.gz"} {
		m, _ := filepath.Glob(filepath.Join(dir, pat))
		inputs = append(inputs, m...)
	}
	seen := 0
	for _, in := range inputs {
		name := filepath.Base(in)
		if f, ok := fixture[in]; ok {
			name = f
		}
		if name == "azure-ncv4-graph.xml" || strings.HasSuffix(name, ".numa.txt") || strings.Contains(name, "fragment-") {
			continue // a graph file, a NUMA listing, lspci fragments without a GPU pair
		}
		t.Run(name, func(t *testing.T) {
			g := read(t, in)
			pairs := topology.PairsOf(g.Pairs(), topology.KindAccelerator, topology.KindAccelerator)
			if len(pairs) == 0 {
				if nvlink[name] || pcieOnly[name] {
					t.Fatal("no accelerator pair")
				}
				return
			}
			if !nvlink[name] && !pcieOnly[name] {
				t.Fatalf("%d accelerator pairs: say whether the machine can have NVLink", len(pairs))
			}
			seen++
			for _, p := range pairs {
				nv := strings.HasPrefix(string(p.SMI), "NV") || p.SMI == topology.XGMI // AMD's links read XGMI, as RCCL names them
				switch {
				case nvlink[name] && !nv:
					if g.NVLinkRecorded {
						continue // a dump records this pair's absence of NVLink
					}
					t.Errorf("%s-%s: %s where NVLink is possible and the source does not record it", p.A.BDF(), p.B.BDF(), p.SMI)
				case pcieOnly[name] && nv:
					t.Errorf("%s-%s: %s on cards without NVLink", p.A.BDF(), p.B.BDF(), p.SMI)
				case (p.SMI == topology.NVLinkUnknown || p.SMI == topology.XGMI && p.LabelUncertain) && (p.PCIeSMI == "" || !p.LabelUncertain || len(p.Notes) == 0):
					t.Errorf("%s-%s: NV? without its PCIe label and a note: %+v", p.A.BDF(), p.B.BDF(), p)
				}
			}
			unknown := false
			for _, p := range pairs {
				unknown = unknown || p.SMI == topology.NVLinkUnknown || p.SMI == topology.XGMI && p.LabelUncertain
			}
			// AMD accelerators' links are xGMI: the line names them so.
			if lack := g.NVLinkLack(); unknown != (strings.Contains(lack, "NVLink") || strings.Contains(lack, "xGMI")) {
				t.Errorf("pairs read NV?: %v, yet Source lacks %q", unknown, lack)
			}
		})
	}
	if seen < 25 {
		t.Errorf("only %d inputs with accelerator pairs", seen)
	}
}
