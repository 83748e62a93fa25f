package advisor

import (
	"slices"
	"strings"
	"testing"

	"github.com/gdtopo/gdtopo/topology"
)

// finding returns r's finding of code, failing the test without one.
func finding(t *testing.T, r *Result, code string) Finding {
	t.Helper()
	for _, f := range r.Findings {
		if f.Code == code {
			return f
		}
	}
	t.Fatalf("no %s finding", code)
	return Finding{}
}

// stepIndex is the index of the first remedy step whose text holds s, -1
// for none.
func stepIndex(f Finding, s string) int {
	return slices.IndexFunc(f.Remedy, func(r RemedyStep) bool { return strings.Contains(r.Text, s) })
}

// TestACSRemedyAfterPassthrough: with ACS redirect on a PIX path and the
// IOMMU translating for its ends, passthrough comes before clearing ACS:
// the IOMMU drivers ask for ACS redirect so that peer requests, addressed
// by I/O virtual address, reach the IOMMU (Linux drivers/pci/pci.c,
// pci_request_acs). Without translation the remedy starts with setpci.
func TestACSRemedyAfterPassthrough(t *testing.T) {
	for _, translating := range []bool{true, false} {
		b, gpus, _ := rails(8, 8)
		gpus[0].Parent.ACSRedirect = true
		b.g.Platform.IOMMUs = []string{"dmar0"}
		b.g.Platform.IOMMUGroupTypes = map[string]string{"3": "identity"}
		if translating {
			b.g.Platform.IOMMUGroupTypes["3"] = "DMA-FQ"
		}
		gpus[0].IOMMUGroup = "3"
		f := finding(t, analyze(t, b.graph(), Options{}), "acs-redirect")
		pt, setpci := stepIndex(f, "intel_iommu=on iommu=pt"), stepIndex(f, "setpci -s")
		switch {
		case setpci < 0:
			t.Errorf("translating %v: no setpci step:%s", translating, remedyText(f))
		case translating && (pt < 0 || pt > setpci || f.Remedy[pt].Kind != RemedyKernelParameter):
			t.Errorf("IOMMU translating: passthrough (step %d) must come before setpci (step %d):%s", pt, setpci, remedyText(f))
		case !translating && pt >= 0:
			t.Errorf("IOMMU in passthrough: remedy still asks for it:%s", remedyText(f))
		}
	}
}

// TestRemediesFitTheMachine: a guest cannot change the host's BIOS or
// IOMMU, and Grace keeps its Arm SMMU on by design (NVIDIA GDS guide), so
// neither is told to "disable VT-d / AMD-Vi" or to update a BIOS; a guest
// is sent to its provider (NCCL troubleshooting: use the provider's
// topology file in a VM).
func TestRemediesFitTheMachine(t *testing.T) {
	x86Only := []string{"VT-d", "AMD-Vi", "BIOS"}
	for _, tt := range []struct {
		name  string
		fault func(b *builder, g, n []*topology.Device)
		code  string
		want  string // a step text that must be there
		bare  bool   // bare metal: the BIOS step stays
	}{
		{name: "IOMMU on bare metal", code: "iommu-translation", bare: true, want: "intel_iommu=on iommu=pt",
			fault: func(b *builder, g, n []*topology.Device) { b.g.Platform.IOMMUs = []string{"dmar0"} }},
		{name: "IOMMU in a VM (hypervisor flag)", code: "iommu-translation", want: "ask the provider",
			fault: func(b *builder, g, n []*topology.Device) {
				b.g.Platform.IOMMUs, b.g.Platform.Hypervisor = []string{"dmar0"}, true
			}},
		{name: "IOMMU in a VM (QEMU root port)", code: "iommu-translation", want: "ask the provider",
			fault: func(b *builder, g, n []*topology.Device) {
				b.g.Platform.IOMMUs = []string{"dmar0"}
				rp := g[0].Parent.Parent.Parent
				rp.VendorID, rp.DeviceID = 0x1b36, 0x000c
			}},
		{name: "Arm SMMU", code: "iommu-translation", want: "leave the IOMMU as it is",
			fault: func(b *builder, g, n []*topology.Device) { b.g.Platform.IOMMUs = []string{"smmu3.0x16000000"} }},
		{name: "numa_node -1 on bare metal", code: "numa-unknown", bare: true, want: "update the BIOS",
			fault: func(b *builder, g, n []*topology.Device) { g[5].RawNUMANode = -1 }},
		{name: "numa_node -1 in a VM", code: "numa-unknown", want: "ask the provider",
			fault: func(b *builder, g, n []*topology.Device) { g[5].RawNUMANode, b.g.Platform.Hypervisor = -1, true }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b, gpus, nics := rails(8, 8)
			tt.fault(b, gpus, nics)
			f := finding(t, analyze(t, b.graph(), Options{}), tt.code)
			if stepIndex(f, tt.want) < 0 {
				t.Errorf("no step %q:%s", tt.want, remedyText(f))
			}
			for _, s := range f.Remedy {
				for _, w := range x86Only {
					if !tt.bare && (s.Kind == RemedyBIOS || strings.Contains(s.Text, w)) {
						t.Errorf("step %q (%s) on a machine whose firmware is not the operator's", s.Text, s.Kind)
					}
				}
			}
			if tt.bare && !slices.ContainsFunc(f.Remedy, func(s RemedyStep) bool { return s.Kind == RemedyBIOS }) {
				t.Errorf("bare metal lost its BIOS step:%s", remedyText(f))
			}
		})
	}
}

// TestGraceConfigACSKernel: pci=config_acs= is Linux 6.11's ("PCI: Extend
// ACS configurability"), and lists of several devices work only with
// "PCI/ACS: Fix 'pci=config_acs=' parameter" (PCI changes for v6.15); the
// setpci fallback carries rdma_topo's warning (rdma-core
// kernel-boot/rdma_topo, cmd_setpci_acs: "not recommended",
// NVreg_GrdmaPciTopoCheckOverride=1, "unprivileged userspace can trigger
// platform RAS failures") before the first setpci.
func TestGraceConfigACSKernel(t *testing.T) {
	for _, tt := range []struct{ cmdline, want string }{
		{"", "needs Linux 6.11 or newer, and for a list of several devices a kernel with the fix \"PCI/ACS: Fix 'pci=config_acs=' parameter\""},
		{"BOOT_IMAGE=/vmlinuz-6.8.0-1013-nvidia-64k ro", "this kernel (6.8) ignores pci=config_acs="},
		{"BOOT_IMAGE=/vmlinuz-6.11.0-1003-nvidia-64k ro", "this kernel (6.11) takes pci=config_acs=, but a list of several devices needs \"PCI/ACS: Fix"},
		{"BOOT_IMAGE=/vmlinuz-6.17.0-9-generic ro", "this kernel (6.17) takes pci=config_acs="},
	} {
		g := fixtureGraph("grace-cx8-dd")()
		g.System.Cmdline = tt.cmdline
		f := finding(t, analyze(t, g, Options{}), "acs-grace")
		if stepIndex(f, tt.want) < 0 {
			t.Errorf("cmdline %q: no step %q:%s", tt.cmdline, tt.want, remedyText(f))
		}
		warn, setpci := stepIndex(f, "platform RAS failures"), stepIndex(f, "setpci -s")
		if warn < 0 || setpci < 0 || warn > setpci || stepIndex(f, "NVreg_GrdmaPciTopoCheckOverride=1") != warn {
			t.Errorf("rdma_topo's setpci warning (step %d) must come before the first setpci (step %d):%s", warn, setpci, remedyText(f))
		}
	}
}

// TestIOMMUFirmwareNamesTheVendor: the BIOS step names the machine's own
// IOMMU (Intel VT-d, AMD-Vi: each vendor's BIOS setting), never the other
// vendor's.
func TestIOMMUFirmwareNamesTheVendor(t *testing.T) {
	for _, tt := range []struct{ vendor, iommu, want, not string }{
		{"GenuineIntel", "dmar0", "VT-d", "AMD-Vi"},
		{"AuthenticAMD", "ivhd0", "AMD-Vi", "VT-d"},
	} {
		b, _, _ := rails(8, 8)
		b.g.System.CPUVendor, b.g.Platform.IOMMUs = tt.vendor, []string{tt.iommu}
		f := finding(t, analyze(t, b.graph(), Options{}), "iommu-translation")
		i := slices.IndexFunc(f.Remedy, func(s RemedyStep) bool { return s.Kind == RemedyBIOS })
		if i < 0 || !strings.Contains(f.Remedy[i].Text, tt.want) || strings.Contains(f.Remedy[i].Text, tt.not) {
			t.Errorf("%s: BIOS step wants %s without %s:%s", tt.iommu, tt.want, tt.not, remedyText(f))
		}
	}
}

// TestCloudRemediesMoveNoCard: in a guest the labels are the hypervisor's
// tree and no card can be moved or added, so no-local-nic sends the
// operator to the provider's topology file (NCCL troubleshooting: a
// virtual PCI topology) and nic-shared to another instance type; on EFA
// NICs, which aws-ofi-nccl drives (src/nccl_ofi_topo.cpp picks each GPU's
// NICs), nic-shared names no NCCL_IB_HCA.
func TestCloudRemediesMoveNoCard(t *testing.T) {
	vm := func(g *topology.Graph) *topology.Graph { g.Platform.Hypervisor = true; return g }
	efa := func(g *topology.Graph) *topology.Graph {
		for _, n := range g.OfKind(topology.KindNIC) {
			n.VendorID, n.DeviceID, n.RDMA = 0x1d0f, 0xefa1, []string{"rdmap0s1"}
		}
		return g
	}
	for _, tt := range []struct {
		name, code, want string
		not              []string
		graph            func() *topology.Graph
	}{
		{"no-local-nic in a VM", "no-local-nic", "NCCL_TOPO_FILE", []string{"move the NIC", "NCCL_NET_GDR_LEVEL"},
			func() *topology.Graph { b, _, _ := phb(); return vm(b.graph()) }},
		{"nic-shared in a VM", "nic-shared", "instance type", []string{"add NICs"},
			func() *topology.Graph { b, _, _ := rails(8, 2); return vm(b.graph()) }},
		{"nic-shared on EFA", "nic-shared", "aws-ofi-nccl", []string{"NCCL_IB_HCA stays", "UCX_NET_DEVICES", "add NICs"},
			func() *topology.Graph { b, _, _ := rails(8, 2); return efa(b.graph()) }},
		{"no-rdma-nic in a VM", "no-rdma-nic", "instance type", []string{"add an InfiniBand"},
			func() *topology.Graph {
				b, _, nic := phb()
				nic.VendorID, nic.DeviceID, nic.RDMA, nic.Netdevs = 0x1af4, 0x1041, nil, []string{"eth0"}
				return vm(b.graph())
			}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			text := ""
			for _, f := range findingsOf(analyze(t, tt.graph(), Options{}), tt.code) {
				text += remedyText(f)
			}
			if !strings.Contains(text, tt.want) {
				t.Errorf("no %q in the remedy:%s", tt.want, text)
			}
			for _, w := range tt.not {
				if strings.Contains(text, w) {
					t.Errorf("%q in the remedy:%s", w, text)
				}
			}
		})
	}
}
