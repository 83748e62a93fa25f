package advisor

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gdtopo/gdtopo/topology"
)

// Platform rules for NVIDIA Grace systems. On Grace the generic remedy for
// ACS redirect (clear it) is wrong: rdma-core's kernel-boot/rdma_topo
// (PCITopo.compute_acs, NVCX_DMA_Complex.compute_acs) sets specific ACS
// bits per port, on the kernel command line with pci=config_acs=, so that
// a ConnectX-8 Data Direct DMA function and its GPU share one IOMMU group
// and the DMA function's writes reach the GPU below their common switch.
// NVIDIA's Grace Blackwell / ConnectX-8 GPUDirect RDMA guide gives the same
// settings. On Grace systems without Data Direct (GPU and NIC on Grace root
// ports, rdma_topo's "NUMA-based" complex) every Grace root port and NIC
// switch port keeps the kernel's default ACS.

// acsMask is one of rdma_topo's ACS settings, written as it writes them:
// seven characters for ACS Control bits 6..0, '1' set, '0' clear, 'x' keep.
type acsMask string

// rdma_topo's masks.
const (
	acsKernelIsolated acsMask = "xx111x1" // kernel_acs_isolated: SV RR CR UF, what Linux enables with an IOMMU
	acsTowardDMA      acsMask = "xx110x1" // DSP towards the DMA function: UF CR SV on, RR off
	acsTowardGPU      acsMask = "xx101x1" // DSP towards the GPU: UF RR SV on, CR off
	acsDMARootPort    acsMask = "xx111x0" // root port of a DMA complex: SV off, the whole segment one IOMMU group
)

// apply returns ctl with the mask's set and clear bits applied
// (rdma_topo's combine_acs).
func (m acsMask) apply(ctl uint16) uint16 {
	for i, c := range []byte(m) {
		bit := uint16(1) << (len(m) - 1 - i)
		switch c {
		case '1':
			ctl |= bit
		case '0':
			ctl &^= bit
		}
	}
	return ctl
}

// graceACSPort is one port and the ACS setting it should have.
type graceACSPort struct {
	port *topology.Device
	want acsMask
	why  string
}

// dataDirectComplex is a ConnectX-8 DMA function and the GPU below the
// same Grace root port (rdma_topo NVCX_DMA_Complex).
type dataDirectComplex struct {
	dma, gpu, root *topology.Device
}

// topOf returns the bridge on a root bus above d (its root port).
func topOf(d *topology.Device) *topology.Device {
	x := d
	for x.Parent != nil {
		x = x.Parent
	}
	return x
}

// dataDirectComplexes finds every DMA function with exactly one NVIDIA
// GPU below the same Grace root port, as rdma_topo's __get_nvcx_complex
// requires.
func dataDirectComplexes(g *topology.Graph) []dataDirectComplex {
	var out []dataDirectComplex
	for _, d := range g.Devices {
		if !d.IsDataDirectDMA() {
			continue
		}
		rp := topOf(d)
		if !rp.IsGraceRootPort() {
			continue
		}
		var gpus []*topology.Device
		for _, x := range g.OfKind(topology.KindAccelerator) {
			if x.VendorID == topology.VendorNVIDIA && topOf(x) == rp {
				gpus = append(gpus, x)
			}
		}
		if len(gpus) == 1 {
			out = append(out, dataDirectComplex{dma: d, gpu: gpus[0], root: rp})
		}
	}
	return out
}

// childToward returns the child of anc on the path up from d, or nil.
func childToward(d, anc *topology.Device) *topology.Device {
	for x := d; x != nil; x = x.Parent {
		if x.Parent == anc {
			return x
		}
	}
	return nil
}

// graceACSPlan lists the ACS setting rdma_topo gives each port of a Grace
// system: the Data Direct complexes' three ports, and the kernel default
// on every other Grace root port and ConnectX/BlueField switch port.
func graceACSPlan(g *topology.Graph) ([]graceACSPort, []dataDirectComplex) {
	complexes := dataDirectComplexes(g)
	var plan []graceACSPort
	set := map[*topology.Device]bool{}
	add := func(p *topology.Device, m acsMask, why string) {
		if p != nil && !set[p] {
			set[p] = true
			plan = append(plan, graceACSPort{port: p, want: m, why: why})
		}
	}
	for _, c := range complexes {
		usp := sharedAncestor(c.dma, c.gpu)
		if usp == nil || !usp.IsNICSwitchPort() {
			continue
		}
		add(childToward(c.dma, usp), acsTowardDMA, "downstream port towards Data Direct "+c.dma.BDF())
		add(childToward(c.gpu, usp), acsTowardGPU, "downstream port towards GPU "+c.gpu.BDF())
		add(c.root, acsDMARootPort, "root port of the Data Direct complex of "+c.gpu.BDF())
	}
	for _, d := range g.Devices {
		if (d.IsGraceRootPort() || d.IsNICSwitchPort()) && d.HasACS {
			add(d, acsKernelIsolated, "kernel default")
		}
	}
	slices.SortFunc(plan, func(x, y graceACSPort) int {
		if x.port.Addr.Less(y.port.Addr) {
			return -1
		}
		return 1
	})
	return plan, complexes
}

// sharedAncestor returns the lowest bridge above both a and b, or nil.
func sharedAncestor(a, b *topology.Device) *topology.Device {
	above := map[*topology.Device]bool{}
	for x := a.Parent; x != nil; x = x.Parent {
		above[x] = true
	}
	for x := b.Parent; x != nil; x = x.Parent {
		if above[x] {
			return x
		}
	}
	return nil
}

// graceACSAsWanted reports whether port b of a Grace system holds the ACS
// setting rdma_topo gives it, so that its redirect bits are intended.
func (a *analysis) graceACSAsWanted(b *topology.Device) bool {
	if !a.g.Grace() || !b.HasACS {
		return false
	}
	plan, _ := graceACSPlan(a.g)
	for _, p := range plan {
		if p.port == b {
			return p.want.apply(b.ACSCtl) == b.ACSCtl
		}
	}
	return false
}

// dataDirectAsWanted reports whether pair p runs through a Data Direct
// function whose two downstream ports below the common switch top hold
// rdma_topo's ACS setting: the function's requests and the GPU's
// completions then route by address below the switch whatever the SMMU
// does (rdma_topo compute_acs: RR off towards the DMA function, CR off
// towards the GPU).
func (a *analysis) dataDirectAsWanted(p topology.Pair, gpu, top *topology.Device) bool {
	if p.DataDirect == nil || top == nil || !a.g.Grace() {
		return false
	}
	for _, d := range [2]*topology.Device{gpu, p.DataDirect} {
		port := childToward(d, top)
		if port == nil || !port.ACSKnown || !a.graceACSAsWanted(port) {
			return false
		}
	}
	return true
}

// findGraceACS reports Grace ports whose ACS differs from rdma_topo's
// setting, with its remedy, and Data Direct DMA functions not in their
// GPU's IOMMU group. The generic clear-ACS remedy is never given here.
func (a *analysis) findGraceACS() {
	plan, complexes := graceACSPlan(a.g)
	var g group
	var cmdline []string
	dd := len(complexes) > 0
	for _, p := range plan {
		if p.want != acsKernelIsolated {
			// rdma_topo's write-grub-acs lists only what differs from the kernel default.
			cmdline = append(cmdline, string(p.want)+"@"+p.port.BDF())
		}
		if !p.port.HasACS || p.want.apply(p.port.ACSCtl) == p.port.ACSCtl {
			continue
		}
		next := p.want.apply(p.port.ACSCtl)
		g.add([]*topology.Device{p.port}, fmt.Sprintf("%s ACSCtl %07b, wants %s (%s)", p.port.BDF(), p.port.ACSCtl, p.want, p.why),
			command(fmt.Sprintf("setpci -s %s ECAP_ACS+0x6.w=%04x", p.port.BDF(), next), "for this boot only, as rdma_topo setpci-acs does (read its warning above first)"),
			a.evidence(p.port, sysfsFile(p.port, "config")+fmt.Sprintf(": ACS Control (ECAP_ACS+0x6) = %#04x", p.port.ACSCtl),
				fmt.Sprintf("ACSCtl %#04x", p.port.ACSCtl)))
	}
	for _, c := range complexes {
		if c.dma.IOMMUGroup != "" && c.gpu.IOMMUGroup != "" && c.dma.IOMMUGroup != c.gpu.IOMMUGroup {
			g.add([]*topology.Device{c.dma, c.gpu}, fmt.Sprintf("Data Direct %s is in IOMMU group %s, GPU %s in %s (rdma_topo check wants one group)",
				c.dma.BDF(), c.dma.IOMMUGroup, c.gpu.BDF(), c.gpu.IOMMUGroup), RemedyStep{},
				a.evidence(c.dma, "sys/bus/pci/devices/"+c.dma.BDF()+"/iommu_group", "IOMMU group "+c.dma.IOMMUGroup))
		}
	}
	// rdma-core kernel-boot/rdma_topo, cmd_setpci_acs: changing ACS after
	// boot "is not recommended", needs the GPU driver's
	// NVreg_GrdmaPciTopoCheckOverride=1, and "unprivileged userspace can
	// trigger platform RAS failures".
	setpciWarning := manual("use the setpci lines below only where the kernel cannot boot with the setting: rdma_topo calls this not recommended; it needs the NVIDIA driver's NVreg_GrdmaPciTopoCheckOverride=1, and then unprivileged userspace can trigger platform RAS failures",
		"rdma-core kernel-boot/rdma_topo, setpci-acs")
	sev := Warning
	head := []RemedyStep{manual("keep the kernel's ACS (SV RR CR UF) on Grace root ports and ConnectX/BlueField switch ports; do not clear ACS",
		"Grace: rdma-core kernel-boot/rdma_topo sets the kernel default there; rebooting restores it"), setpciWarning}
	if dd {
		sev = Critical
		// The kernel check comes first: a reboot with a list the kernel
		// cannot parse leaves the groups split.
		head = []RemedyStep{a.configACSKernel(len(cmdline)), kernelParameter(`pci=config_acs="`+strings.Join(cmdline, ";")+`"`,
			"Grace + ConnectX-8 Data Direct: set, do not clear, ACS (rdma-core kernel-boot/rdma_topo write-grub-acs; NVIDIA GB300/ConnectX-8 GPUDirect RDMA guide); "+
				"once the kernel takes it: quote it in GRUB_CMDLINE_LINUX, update-grub and reboot: the DMA function and its GPU then share one IOMMU group"), setpciWarning}
	}
	a.emit("acs-grace", sev, &g, "ACS on this Grace system differs from what GPUDirect RDMA needs: %s", head, nil)
}

// configACSKernel is the step that says which kernels take pci=config_acs=
// with n devices: the parameter is Linux 6.11's (commit "PCI: Extend ACS
// configurability"); a list of several devices works only with "PCI/ACS:
// Fix 'pci=config_acs=' parameter" (mainline 6.15, and the stable kernels
// that took it). The running kernel, where the capture shows it, is named.
func (a *analysis) configACSKernel(n int) RemedyStep {
	need := "needs Linux 6.11 or newer"
	if n > 1 {
		need += ", and for a list of several devices a kernel with the fix \"PCI/ACS: Fix 'pci=config_acs=' parameter\" (6.15, or a stable kernel that took it)"
	}
	text := "check the kernel before relying on pci=config_acs=: it " + need
	if major, minor, ok := kernelVersion(a.g.System.Cmdline); ok {
		switch {
		case major < 6 || major == 6 && minor < 11:
			text = fmt.Sprintf("this kernel (%d.%d) ignores pci=config_acs=, which %s: update the kernel", major, minor, need)
		case n > 1 && major == 6 && minor < 15:
			text = fmt.Sprintf("this kernel (%d.%d) takes pci=config_acs=, but a list of several devices %s: check its changelog for the fix or update it", major, minor,
				"needs \"PCI/ACS: Fix 'pci=config_acs=' parameter\" (6.15, or a stable kernel that took it)")
		default:
			return manual(fmt.Sprintf("this kernel (%d.%d) takes pci=config_acs=", major, minor), "Linux 6.11 added it; 6.15 fixed lists of several devices")
		}
	}
	return manual(text, "Linux kernel-parameters.txt, pci=config_acs=")
}

// localityLabel is the label that says how near a NIC is for GPUDirect
// RDMA: nvidia-smi's, except where the data path is not the one nvidia-smi
// sees. Over a Data Direct function it is NCCL's label of that path; a P2C
// pair (NVLink-C2C, then PCIe from the GPU's own CPU) counts as PXB from
// NCCL 2.27 on, where it is within NCCL's GDR level.
func (a *analysis) localityLabel(p topology.Pair) topology.Label {
	switch {
	case p.DataDirect != nil:
		return p.NCCL
	case p.NCCL == topology.P2C && a.v.minor >= 27:
		return topology.PXB
	}
	return p.SMI
}
