package advisor

import (
	"fmt"
	"math/bits"
	"slices"
	"strings"

	"github.com/gdtopo/gdtopo/internal/words"
	"github.com/gdtopo/gdtopo/topology"
)

// Codes documents every finding code. Codes are stable: alerting may key on them.
var Codes = map[string]string{
	"acs-redirect": "ACS Request/Completion Redirect is on at a switch downstream port or root port on an accelerator–NIC path: " +
		"peer-to-peer goes up to the root complex. Critical on a PIX/PXB path, with a remedy; info, with none, on a path that crosses the root complex anyway. In a VM the remedy is ATS on the NIC.",
	"acs-grace":            "ACS on an NVIDIA Grace system differs from rdma-core rdma_topo's settings: with ConnectX-8 Data Direct (critical) specific bits set per port with pci=config_acs= and the DMA function in its GPU's IOMMU group; otherwise (warning) the kernel's default ACS. Replaces acs-redirect there: clearing ACS is wrong on Grace.",
	"socket-direct":        "Info: NIC functions on different sockets share a VPD serial number: the halves of one Socket Direct card, one port shared by both; each accelerator should use the half on its socket.",
	"gds-no-local-nvme":    "Info: GPUDirect Storage: some accelerators have an NVMe drive under their own PCIe switch and others none, so their reads turn in the root complex or cross sockets.",
	"acs-unknown":          "Info: the ACS state of bridges on accelerator–NIC paths could not be read (config space past 64 bytes needs root).",
	"iommu-translation":    "An IOMMU translates DMA (group type DMA/DMA-FQ, or an IOMMU with no iommu=pt): GPUDirect RDMA needs passthrough. Critical on bare metal, warning in a VM, info on Arm SMMU (Grace).",
	"link-width-degraded":  "Warning: a PCIe link of an accelerator or NIC, or of a switch above it, trained narrower than both ends support.",
	"link-speed-degraded":  "A PCIe link trained slower than both ends support: info on an accelerator's own link at 2.5 GT/s (where idle GPUs park it), warning elsewhere (a Gen4 link on a Gen5 pair trained low).",
	"port-down":            "An RDMA port is not ACTIVE (DOWN, INIT, ARMED; phys_state Disabled, Polling, LinkUp without a subnet manager): critical where a rail NIC has no active port (NCCL uses ACTIVE ports only, and the rail plan leaves it out), warning on a NIC outside the rails, info for a card's other port beside an active one. Only where the source holds the ports' state files.",
	"port-rate-low":        "Warning: an active RDMA port is slower than the fastest active port of the other rail NICs of its model and link layer (a cable or switch port of lower speed, or lanes lost).",
	"aer-fatal":            "Critical: a device on an accelerator or NIC path counted uncorrectable fatal PCIe errors since boot (aer_dev_fatal): the kernel reset the link.",
	"aer-nonfatal":         "Warning: a device on an accelerator or NIC path counted uncorrectable non-fatal PCIe errors since boot (aer_dev_nonfatal): transactions were lost.",
	"aer-correctable":      "Info: a device on an accelerator or NIC path counted 100 or more corrected PCIe errors since boot (aer_dev_correctable): the link retried them; a count that grows means a marginal link.",
	"no-local-nic":         "Warning: an accelerator's best NIC is through the root complex (PHB/NODE) or another NUMA node of its socket; NCCL's default turns GPUDirect RDMA off there.",
	"cross-socket":         "Warning: an accelerator's best NIC is on another socket (SYS): GDR off by default, traffic crosses the inter-socket link.",
	"nic-shared":           "Several ranks (accelerators, or the compute partitions of one) must share one NIC (info) or one switch uplink past its bandwidth (warning): follow the rail plan.",
	"numa-unknown":         "Warning: numa_node is -1 (NCCL sees one CPU node and cannot tell SYS from PHB), or could not be read (the node NCCL sees is unknown), for an accelerator or NIC on a multi-NUMA machine.",
	"peer-memory-missing":  "NVIDIA accelerators and RDMA NICs, but no nvidia_peermem / nv_peer_mem / memory_peers evidence: a warning where dma-buf cannot apply either (NCCL < 2.13, pre-Turing GPU, kernel before 5.12), info where dma-buf may (it needs the open NVIDIA kernel module, which sysfs does not show).",
	"peer-memory-unknown":  "Info: the source holds no sys/module, so peer-memory support could not be checked.",
	"max-read-request-low": "Warning: an accelerator's or NIC's DevCtl MaxReadReq is below min_max_read_request_bytes.",
	"relaxed-ordering-off": "Warning: a NIC has PCIe Relaxed Ordering disabled in DevCtl, so NCCL's relaxed-ordering memory registrations cannot take effect.",
	"bar-small":            "Warning: an NVIDIA accelerator's largest prefetchable BAR (BAR1) is below min_bar_gib: GPUDirect RDMA can map little GPU memory.",
	"no-rdma-nic":          "Warning: accelerators, but no NIC that can do RDMA (none in /sys/class/infiniband, or models without an RDMA engine such as virtio-net): GPUDirect RDMA cannot work; NCCL would use sockets.",
	"virtual-topology":     "Warning: the PCI tree is a hypervisor's (hypervisor flag, QEMU's devices, Hyper-V's virtual PCI, AWS Nitro devices): labels describe the virtual tree; use the provider's NCCL_TOPO_FILE. With numa -1 everywhere on a multi-node sysfs tree as the one sign, a guest or firmware without PCI locality (_PXM): both remedies. Not raised without accelerators, or on a provider's own topology file.",
}

// group gathers one finding: its devices, a message part and a remedy line
// per item, and the evidence of the first.
type group struct {
	devs, parts []string
	fixes       []RemedyStep
	ev          string
}

func (g *group) add(devs []*topology.Device, part string, fix RemedyStep, ev string) {
	for _, d := range devs {
		if !slices.Contains(g.devs, d.BDF()) {
			g.devs = append(g.devs, d.BDF())
		}
	}
	if part != "" {
		g.parts = append(g.parts, part)
	}
	if fix.Text != "" {
		g.fixes = append(g.fixes, fix)
	}
	if g.ev == "" {
		g.ev = ev
	}
}

// emit adds g, when it holds anything, as one finding: msg takes the parts
// where it says %s; the remedy is head, the fixes, then tail.
func (a *analysis) emit(code string, sev Severity, g *group, msg string, head, tail []RemedyStep) {
	if len(g.devs) == 0 && len(g.parts) == 0 {
		return
	}
	if strings.Contains(msg, "%s") {
		msg = fmt.Sprintf(msg, strings.Join(g.parts, "; "))
	}
	remedy := append(append(append([]RemedyStep(nil), head...), g.fixes...), tail...)
	a.findings = append(a.findings, Finding{Code: code, Severity: sev, Devices: g.devs, Message: msg,
		Remedy: remedy, Evidence: g.ev})
}

// Remedy step constructors, one per kind.
func command(text, comment string) RemedyStep { return RemedyStep{RemedyCommand, text, comment} }
func kernelParameter(text, comment string) RemedyStep {
	return RemedyStep{RemedyKernelParameter, text, comment}
}
func bios(text, comment string) RemedyStep   { return RemedyStep{RemedyBIOS, text, comment} }
func manual(text, comment string) RemedyStep { return RemedyStep{RemedyManual, text, comment} }

func bdfs(ds []*topology.Device) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.BDF()
	}
	return out
}

func sysfsFile(d *topology.Device, name string) string {
	return "sys/bus/pci/devices/" + d.BDF() + "/" + name
}

// acsMissing says, in the dump's terms, that it shows no ACS control.
func (a *analysis) acsMissing() string {
	if a.g.TextForm == "lspci" {
		return "no ACSCtl line"
	}
	return "ACS not recorded in " + a.g.TextForm
}

// evidence is what a finding about d rests on: sysfs, the file and value
// read from a captured tree; for a text dump, the place in the dump where
// d was read ("lspci.txt line 120") and what the dump said there (dump).
func (a *analysis) evidence(d *topology.Device, sysfs, dump string) string {
	if a.g.TextForm == "" {
		return sysfs
	}
	where := d.Seen()
	if where == "" {
		where = a.g.TextForm + " output"
	}
	return fmt.Sprintf("%s (%s): %s", where, d.BDF(), dump)
}

// find gathers every finding.
func (a *analysis) find(plan Plan) {
	railNICs := a.railNICs()
	rail := make(map[*topology.Device]bool, len(railNICs))
	for _, n := range railNICs {
		rail[n] = true
	}
	n := 0
	for _, p := range a.pairs {
		if rail[p.B] {
			n++
		}
	}
	pairs := a.pairs // accelerator–rail NIC
	if n < len(a.pairs) {
		pairs = make([]topology.Pair, 0, n)
		for _, p := range a.pairs {
			if rail[p.B] {
				pairs = append(pairs, p)
			}
		}
	}
	machine := append(a.g.OfKind(topology.KindAccelerator), railNICs...) // what the platform findings name
	// A NIC that cannot do RDMA carries no GPUDirect RDMA: where it sits,
	// and the ACS, links and settings on its way, change nothing for it.
	if a.findNoRDMA(railNICs) {
		pairs, railNICs = nil, nil
	}
	ends := append(a.g.OfKind(topology.KindAccelerator), railNICs...)
	if a.g.Grace() {
		a.findGraceACS() // the generic clear-ACS remedy is wrong on Grace
	}
	a.findACS(pairs)
	a.findIOMMU(ends)
	a.findLinks(ends)
	a.findLocality(pairs)
	a.findSharing(plan)
	a.findDevices(ends)
	a.findPlatform(machine)
	a.findStorage()
	a.findSocketDirect(plan)
	a.findPorts(a.railNICs()) // railNICs above is nil where no NIC can do RDMA
	a.findAER()
}

// findNoRDMA reports whether none of the rail NICs can do RDMA, and then
// raises no-rdma-nic (where there are accelerators). railNICs falls back to
// such NICs only when no NIC may do RDMA, so the rails are all of one kind.
func (a *analysis) findNoRDMA(nics []*topology.Device) bool {
	if len(nics) == 0 {
		return false
	}
	var driverless []*topology.Device
	var none group
	for _, n := range nics {
		r, why := a.nicRDMA(n)
		if r != no {
			return false
		}
		if engine, _ := rdmaByModel(n); engine == yes {
			driverless = append(driverless, n)
		}
		ids := fmt.Sprintf("vendor and device IDs %04x:%04x", n.VendorID, n.DeviceID)
		ev := ids
		if a.rdmaListed() {
			ev = "sys/class/infiniband: no RDMA device on " + n.BDF()
		}
		part := n.BDF()
		if n.Name != "" {
			part += " (" + n.Name + ")"
		}
		none.add([]*topology.Device{n}, part+": "+why, RemedyStep{}, a.evidence(n, ev, ids))
	}
	if len(a.g.OfKind(topology.KindAccelerator)) > 0 {
		fix := manual("add an InfiniBand or RoCE NIC (a ConnectX, say) beside the accelerators", "these NICs have no RDMA engine")
		if a.inVM() {
			fix = manual("choose an instance type with RDMA NICs (InfiniBand, RoCE or EFA) passed through", "these NICs have no RDMA engine, and a guest adds no NIC")
		}
		if len(driverless) > 0 {
			fix = manual("load the RDMA driver of "+strings.Join(bdfs(driverless), ", ")+" (mlx5_ib for ConnectX, irdma for E810, bnxt_re for NetXtreme-E)",
				"NCCL's IB transport uses the devices in /sys/class/infiniband")
		}
		a.emit("no-rdma-nic", Warning, &none, "no NIC can do RDMA, so GPUDirect RDMA cannot work and NCCL would use sockets between nodes: %s", []RemedyStep{fix}, nil)
	}
	return true
}

// findACS reports ports with ACS redirect, or unreadable ACS, on the paths.
func (a *analysis) findACS(pairs []topology.Pair) {
	sev := map[*topology.Device]Severity{}
	var redirected, nics []*topology.Device
	var unknown group
	translated := false // an IOMMU translates for an end of a PIX/PXB pair through a redirecting port
	seen := map[*topology.Device]bool{}
	example := map[*topology.Device]string{}
	for _, p := range pairs {
		top := lca(p.A, p.B)
		for _, d := range [2]*topology.Device{p.A, p.B} { // the bridges a packet enters: below top on each side
			for b := d.Parent; b != nil && b != top; b = b.Parent {
				switch {
				case !b.ACSKnown && !seen[b]:
					unknown.add([]*topology.Device{b}, b.BDF(), RemedyStep{}, a.evidence(b, sysfsFile(b, "config")+": 64 bytes readable (the rest needs root)",
						a.acsMissing()))
				case b.ACSKnown && b.ACSRedirect:
					pair := func() string { return fmt.Sprintf("%s–%s (%s)", p.A.BDF(), p.B.BDF(), p.SMI) }
					if sev[b] == "" {
						// On a path that crosses the root complex anyway (PHB and
						// farther), the redirect costs little: info, not warning.
						redirected, example[b], sev[b] = append(redirected, b), pair(), Info
					}
					if (p.SMI == topology.PIX || p.SMI == topology.PXB) && sev[b] != Critical {
						sev[b], example[b] = Critical, pair()
					}
					if p.SMI == topology.PIX || p.SMI == topology.PXB {
						for _, e := range [2]*topology.Device{p.A, p.B} {
							if tr, _, _ := a.translating(e); tr {
								translated = true
							}
						}
					}
					if !seen[p.B] {
						nics = append(nics, p.B)
					}
					seen[p.B] = true
				}
				seen[b] = true
			}
		}
	}
	slices.SortFunc(redirected, func(x, y *topology.Device) int {
		if x.Addr.Less(y.Addr) {
			return -1
		}
		return 1
	})
	for _, s := range []Severity{Critical, Info} {
		if a.g.Grace() {
			break // acs-grace reports these ports with Grace's own remedy
		}
		var g group
		var ports []string
		for _, b := range redirected {
			if sev[b] != s {
				continue
			}
			fix := command("setpci -s "+b.BDF()+" ECAP_ACS+0x6.w=0000", "clear ACS control on each port (lasts until reboot)")
			if s == Info { // clearing it would not change the path: weaken isolation for nothing
				fix = RemedyStep{}
			}
			g.add([]*topology.Device{b}, b.BDF()+" on "+example[b], fix,
				a.evidence(b, sysfsFile(b, "config")+": ACS Control (ECAP_ACS+0x6) has ReqRedir or CmpltRedir set", "ACSCtl: ReqRedir+ or CmpltRedir+"))
			ports = append(ports, b.BDF())
		}
		if s == Info {
			a.emit("acs-redirect", s, &g, "ACS Request/Completion Redirect is on at %s: those paths cross the root complex anyway, so clearing it would gain nothing; leave it on", nil, nil)
			continue
		}
		var head []RemedyStep
		if translated {
			// With the IOMMU translating, devices address peers by I/O virtual
			// address; the IOMMU drivers ask for ACS redirect so that such
			// requests reach the IOMMU (Linux drivers/pci/pci.c,
			// pci_request_acs). Clearing it first would let a switch route
			// them by an untranslated address.
			head = []RemedyStep{kernelParameter(a.iommuParam(),
				"first: put the IOMMU in passthrough and reboot (see iommu-translation); clearing ACS while it translates lets switches route peer requests by untranslated I/O virtual addresses")}
		}
		persist := "or persistently: clears ReqRedir, CmpltRedir and EgressCtrl at boot (NCCL troubleshooting, \"PCI Access Control Services\"; Linux 4.19 or later); quote it in GRUB_CMDLINE_LINUX"
		if major, minor, ok := kernelVersion(a.g.System.Cmdline); ok && (major < 4 || major == 4 && minor < 19) {
			persist = fmt.Sprintf("this kernel (%d.%d) ignores it: pci=disable_acs_redir= came in Linux 4.19, so run the setpci lines at each boot (a systemd unit) or update the kernel", major, minor)
		}
		tail := []RemedyStep{
			kernelParameter("pci=disable_acs_redir="+strings.Join(ports, ";"), persist),
			bios("disable ACS or IO virtualization", "only if nothing (VMs, SR-IOV) needs it"),
		}
		if a.g.Platform.Hypervisor {
			head, tail = []RemedyStep{manual("keep ACS on in the VM and enable ATS on the NICs on the host, then reboot the host",
				"NCCL troubleshooting: in a VM ACS must stay on; the addresses below are the guest's, use the host-side ones")}, nil
			g.fixes = nil
			for _, n := range nics {
				g.fixes = append(g.fixes, command("mlxconfig -d "+n.BDF()+" set ATS_ENABLED=true", "on the host, ConnectX"))
			}
		}
		a.emit("acs-redirect", s, &g, "ACS Request/Completion Redirect is on at %s: accelerator–NIC peer-to-peer goes up to the root complex", head, tail)
	}
	why := "config space was read only to 64 bytes"
	fix := []RemedyStep{manual("run gdtopo as root (sudo), or take the capture as root", "reading config space past 64 bytes needs CAP_SYS_ADMIN"),
		command("sudo lspci -vvv | grep ACSCtl", "or read the ACS control by hand")}
	switch a.g.TextForm {
	case "":
	case "lspci":
		// lspci prints the ACS capability's lines only when it can read
		// the extended config space, which needs root (pciutils ls-ecaps.c).
		why = "the lspci output shows no ACSCtl lines"
		fix = []RemedyStep{command("sudo lspci -vvv", "retake the dump as root: ACSCtl lines need root; lspci -tv has none")}
	default:
		why = fmt.Sprintf("%s does not record ACS", a.g.TextForm)
		fix = []RemedyStep{command("sudo lspci -vvv", "capture the machine itself as root"),
			command("sudo gdtopo snapshot --output-file host.tar.gz", "or take a snapshot as root")}
	}
	if a.inVM() {
		// The switches on these paths are the host's: a guest neither
		// reads nor sets their ACS.
		fix = []RemedyStep{manual("ask the provider whether ACS redirects peer-to-peer on the host's switches", "a VM cannot read or change the host's ACS")}
	}
	a.emit("acs-unknown", Info, &unknown, "ACS state unknown at bridges on accelerator–NIC paths (%s): "+why, fix, nil)
}

// findIOMMU reports accelerators and NICs whose DMA an IOMMU translates.
func (a *analysis) findIOMMU(ends []*topology.Device) {
	var g group
	for _, d := range ends {
		if tr, _, ev := a.translating(d); tr {
			g.add([]*topology.Device{d}, d.BDF(), RemedyStep{}, ev)
		}
	}
	grub := kernelParameter(a.iommuParam(), "add to GRUB_CMDLINE_LINUX in /etc/default/grub, run update-grub or grub2-mkconfig, and reboot")
	msg := "the IOMMU translates DMA for %s: GPUDirect RDMA needs it off or in passthrough (CUDA GPUDirect RDMA §3.4), and P2P goes through the root ports"
	switch {
	case a.armSMMU():
		// Grace keeps its SMMU translating by design: no x86 firmware
		// switch, and NVIDIA's GDS guide asks for it enabled there.
		a.emit("iommu-translation", Info, &g, "the Arm SMMU translates DMA for %s, as NVIDIA Grace platforms keep it",
			[]RemedyStep{manual("leave the IOMMU as it is on Grace-based platforms", "NVIDIA's GDS guide asks for the IOMMU enabled and passthrough disabled there")}, nil)
	case a.inVM():
		// A guest can set its own kernel's IOMMU mode; the host's firmware
		// and IOMMU belong to the provider.
		a.emit("iommu-translation", Warning, &g, msg, []RemedyStep{kernelParameter(a.iommuParam(), "in this guest's kernel command line (GRUB_CMDLINE_LINUX), then reboot the guest")},
			[]RemedyStep{manual("ask the provider whether the instance type supports GPUDirect RDMA and how its IOMMU is set", "the host's IOMMU and firmware are the provider's, not the guest's")})
	default:
		a.emit("iommu-translation", Critical, &g, msg, []RemedyStep{grub},
			[]RemedyStep{bios("disable "+a.iommuFirmwareName(), "instead of the kernel parameter, only when no VM or SR-IOV needs the IOMMU")})
	}
}

// iommuParam is the kernel parameter that puts the machine's IOMMU in
// passthrough: intel_iommu=on iommu=pt (Intel VT-d), iommu=pt (AMD-Vi),
// iommu.passthrough=1 (Arm SMMU and others) (Linux
// Documentation/admin-guide/kernel-parameters.txt).
func (a *analysis) iommuParam() string {
	first := ""
	if p := a.g.Platform; len(p.IOMMUs) > 0 {
		first = p.IOMMUs[0]
	}
	switch s := a.g.System; {
	case s.CPUVendor == "GenuineIntel" || strings.HasPrefix(first, "dmar"):
		return "intel_iommu=on iommu=pt"
	case s.CPUVendor == "AuthenticAMD" || strings.HasPrefix(first, "ivhd"):
		return "iommu=pt"
	}
	return "iommu.passthrough=1"
}

// iommuFirmwareName is the firmware's name for the machine's IOMMU, as
// iommuParam tells the vendor: VT-d (Intel), AMD-Vi (AMD), both when the
// source does not say.
func (a *analysis) iommuFirmwareName() string {
	switch a.iommuParam() {
	case "intel_iommu=on iommu=pt":
		return "VT-d"
	case "iommu=pt":
		return "AMD-Vi (IOMMU)"
	}
	return "the IOMMU (VT-d / AMD-Vi)"
}

// armSMMU reports an Arm SMMU (sys/class/iommu/smmu*) or an NVIDIA Grace
// system, whose IOMMU translates by design.
func (a *analysis) armSMMU() bool {
	p := a.g.Platform
	return len(p.IOMMUs) > 0 && strings.HasPrefix(p.IOMMUs[0], "smmu") || a.g.Grace()
}

// inVM reports a guest, or a cloud instance whose firmware is the
// provider's (vmSign). Its firmware, BIOS and host IOMMU are the
// provider's. Worked out once: findings, the plan and every AMD pair ask.
func (a *analysis) inVM() bool {
	if a.vm == unknown {
		a.vm = no
		if a.vmSign() != "" {
			a.vm = yes
		}
	}
	return a.vm == yes
}

// vmSign names what marks the source as a guest's, "" for nothing: the
// CPU's hypervisor flag, Hyper-V's virtual PCI, or a device only QEMU or
// AWS's Nitro has: QEMU's own (1b36, such as its PCIe root port
// 1b36:000c), QEMU's display (1234:1111), QEMU's emulated XIO3130 switch
// (104c:8232/8233, hw/pci-bridge/xio3130_upstream.c) above an accelerator
// or NIC, where the real part is a Gen1 x1 switch for ExpressCard slots;
// AWS's ENA and EFA (1d0f, or EFA's rdma* names).
func (a *analysis) vmSign() string {
	if a.g.Platform.Hypervisor {
		return "proc/cpuinfo flags: hypervisor"
	}
	if hyperVPCI(a.g) {
		return "Hyper-V virtual PCI: every accelerator and NIC on a PCI domain of its own"
	}
	for _, d := range a.g.Devices {
		switch {
		case d.VendorID == 0x1b36:
			return fmt.Sprintf("%s: QEMU device 1b36:%04x", d.BDF(), d.DeviceID)
		case d.VendorID == 0x1234 && d.DeviceID == 0x1111:
			return d.BDF() + ": QEMU display 1234:1111"
		case d.VendorID == 0x104c && (d.DeviceID == 0x8232 || d.DeviceID == 0x8233) && holdsEnds(d):
			return fmt.Sprintf("%s: XIO3130 switch 104c:%04x above accelerators or NICs, as QEMU emulates it", d.BDF(), d.DeviceID)
		case d.VendorID == topology.VendorAmazon:
			return fmt.Sprintf("%s: AWS Nitro device 1d0f:%04x", d.BDF(), d.DeviceID)
		case d.Kind == topology.KindNIC && netPlugin(d) != "": // EFA by its rdma* names, where IDs are not given
			return d.BDF() + ": AWS EFA (rdma* RDMA device)"
		}
	}
	return ""
}

// holdsEnds reports an accelerator or NIC below bridge b.
func holdsEnds(b *topology.Device) bool {
	for _, c := range b.Children {
		if c.Kind == topology.KindAccelerator || c.Kind == topology.KindNIC || holdsEnds(c) {
			return true
		}
	}
	return false
}

// providerFile reports a cloud provider's NCCL topology file: its places
// are real (a tenant moves no card), its CPU nodes are what NCCL is told
// rather than the instance's NUMA layout. NCCL's own print from a guest is
// the guest's tree, not such a file.
func (a *analysis) providerFile() bool { return a.g.TextForm == "NCCL XML" && a.inVM() }

// hyperVPCI reports Hyper-V's virtual PCI, as Azure's GPU VMs show it:
// every accelerator and NIC is function 00:00.0 of a PCI domain of its own
// (Linux drivers/pci/controller/pci-hyperv.c gives each passed-through
// device its own domain, from its instance GUID).
func hyperVPCI(g *topology.Graph) bool {
	ends := append(g.OfKind(topology.KindAccelerator), g.OfKind(topology.KindNIC)...)
	domains := map[uint32]bool{}
	for _, d := range ends {
		a := d.Addr
		if a.Domain == 0 || a.Domain == 0xffff || a.Bus != 0 || a.Device != 0 || domains[a.Domain] {
			return false
		}
		domains[a.Domain] = true
	}
	return len(ends) > 1
}

// findLinks reports links of accelerators and NICs, and of the switches
// above them, that trained below what both ends support.
func (a *analysis) findLinks(ends []*topology.Device) {
	var width, speed, idle group
	seen := map[*topology.Device]bool{}
	capOf := func(x, y float64) float64 { // the lower known capability
		if x <= 0 || (y > 0 && y < x) {
			return y
		}
		return x
	}
	for _, d := range ends {
		for _, r := range upLinks(d, nil) {
			if seen[r.dev] {
				continue
			}
			seen[r.dev] = true
			dev, port, cur := r.dev, r.dev.Parent, r.link
			if port == nil { // a link to the host bridge (LinkToHost): no port to read or retrain
				continue
			}
			retrain := command("setpci -s "+port.BDF()+" CAP_EXP+0x10.w=0020:0020", "first retrain the link (Link Control bit 5 of the port above "+dev.BDF()+"), with the device idle: its link drops while it retrains")
			if w := capOf(float64(dev.Link.MaxWidth), float64(port.Link.MaxWidth)); cur.CurrentWidth > 0 && float64(cur.CurrentWidth) < w {
				width.add([]*topology.Device{dev, port}, fmt.Sprintf("%s x%d (both ends support x%g)", dev.BDF(), cur.CurrentWidth, w), retrain,
					a.evidence(dev, fmt.Sprintf("%s = %d, max_link_width = %d", sysfsFile(dev, "current_link_width"), cur.CurrentWidth, dev.Link.MaxWidth),
						fmt.Sprintf("LnkSta Width x%d, LnkCap Width x%d", cur.CurrentWidth, dev.Link.MaxWidth)))
			}
			if s := capOf(dev.Link.MaxGTs, port.Link.MaxGTs); cur.CurrentGTs > 0 && cur.CurrentGTs < s {
				g := &speed
				if dev.Kind == topology.KindAccelerator && cur.CurrentGTs == idleGTs {
					g, retrain = &idle, RemedyStep{}
				}
				g.add([]*topology.Device{dev, port}, fmt.Sprintf("%s %g GT/s (both ends support %g GT/s)", dev.BDF(), cur.CurrentGTs, s), retrain,
					a.evidence(dev, fmt.Sprintf("%s = %g GT/s, max_link_speed = %g GT/s", sysfsFile(dev, "current_link_speed"), cur.CurrentGTs, dev.Link.MaxGTs),
						fmt.Sprintf("LnkSta Speed %gGT/s, LnkCap Speed %gGT/s", cur.CurrentGTs, dev.Link.MaxGTs)))
			}
		}
	}
	a.emit("link-width-degraded", Warning, &width, "PCIe links lost lanes: %s", nil,
		[]RemedyStep{bios("check the slot's bifurcation setting", "if it trains narrow again"), manual("reseat the card; check the slot, riser and cable", "")})
	a.emit("link-speed-degraded", Warning, &speed, "PCIe links trained slow: %s", nil,
		[]RemedyStep{bios("set the slot's PCIe speed to Auto, or the generation both ends support", "if it trains slow again"), manual("reseat the card; check the riser, retimer and cable", "")})
	a.emit("link-speed-degraded", Info, &idle, "accelerator links below their speed: %s; idle GPUs drop link speed to save power: check under load",
		[]RemedyStep{command("nvidia-smi --query-gpu=pci.bus_id,pcie.link.gen.current,pcie.link.gen.max --format=csv", "read the link again while a GPU workload runs"),
			command("sudo lspci -vv | grep LnkSta", "or with lspci")}, nil)
}

// smiLabel is the nvidia-smi label of an accelerator and a NIC: their
// pair's among those analysed, else Classify's.
func (a *analysis) smiLabel(gpu, nic *topology.Device) topology.Label {
	for _, p := range a.pairs {
		if p.A == gpu && p.B == nic {
			return p.SMI
		}
	}
	return a.g.ClassifyWithoutHops(gpu, nic).SMI
}

// findLocality reports accelerators whose best NIC is far away.
func (a *analysis) findLocality(pairs []topology.Pair) {
	expected := make(map[[2]*topology.Device]float64, len(a.preds))
	for _, p := range a.preds {
		expected[[2]*topology.Device{p.GPU, p.NIC}] = p.ExpectedGbps
	}
	better := func(p, q topology.Pair) bool { // nearer label, same socket, then faster
		if lp, lq := a.localityLabel(p), a.localityLabel(q); lp != lq {
			return lq.Worse(lp)
		}
		if ps, qs := p.Path == topology.PathSockets, q.Path == topology.PathSockets; ps != qs {
			return qs
		}
		return expected[[2]*topology.Device{p.A, p.B}] > expected[[2]*topology.Device{q.A, q.B}]
	}
	best := map[*topology.Device]topology.Pair{}
	var order []*topology.Device
	unknown := map[*topology.Device]bool{} // the best NIC may be behind an unknown path
	for _, p := range pairs {
		if p.SMI == topology.Unknown {
			unknown[p.A] = true
		}
	}
	for _, p := range pairs {
		if unknown[p.A] {
			continue // no finding rests on an unknown path
		}
		b, ok := best[p.A]
		if !ok {
			order = append(order, p.A)
		}
		if !ok || better(p, b) {
			best[p.A] = p
		}
	}
	var far, cross group
	translates := false   // an accelerator's DMA the IOMMU translates: GDR must wait for passthrough
	oneSocketSYS := false // a best NIC on another NUMA node, of the accelerator's socket or of one not known
	for _, gpu := range order {
		p := best[gpu]
		label := string(p.SMI)
		if p.LabelUncertain {
			label += "?"
		}
		part := fmt.Sprintf("%s: best NIC %s is %s (%s)", gpu.BDF(), p.B.BDF(), label, p.Path)
		if tr, _, _ := a.translating(gpu); tr {
			translates = true
		}
		switch {
		case p.SMI == topology.SYS && p.Path == topology.PathSockets:
			cross.add([]*topology.Device{gpu, p.B}, part, RemedyStep{}, a.evidence(gpu, "numa_node of the devices; sys/devices/system/node (sockets)",
				fmt.Sprintf("NUMA node %d, its best NIC %s on NUMA node %d of another socket", gpu.NUMANode, p.B.BDF(), p.B.NUMANode)))
		case a.localityLabel(p).Worse(topology.PXB) && p.SMI == topology.PHB && a.rcclPathOverride(gpu):
			// RCCL may count the pair PXB; its GDR verdict says so, undecided.
		case a.localityLabel(p).Worse(topology.PXB):
			oneSocketSYS = oneSocketSYS || p.SMI == topology.SYS
			far.add([]*topology.Device{gpu, p.B}, part, RemedyStep{}, "labels of the accelerator–NIC pairs (nvidia-smi semantics)")
		}
	}
	measure := "ib_write_bw --use_cuda=<GPU index>"
	if len(order) > 0 && amdGPU(order[0]) {
		measure = "ib_write_bw --use_rocm=<GPU index>"
	}
	gdrPHB := "or, after measuring with " + measure + ", let NCCL use GDR through the host bridge"
	if translates {
		gdrPHB = "once iommu-translation's remedy is done (GDR through a translating IOMMU may fault), and after measuring with " + measure + ", let NCCL use GDR through the host bridge"
	}
	move := manual("move the NIC or the accelerator under one PCIe switch", "see gdtopo tree")
	if len(a.g.Switches()) == 0 {
		move = manual("no slot gives these cards a PCIe switch in common: only a switch (a riser or baseboard with one) brings them under PXB", "see gdtopo tree")
	}
	if oneSocketSYS {
		// NCCL makes each NUMA node a CPU of its own (src/graph/topo.cc):
		// such pairs are PATH_SYS to it, above the PHB level.
		gdrPHB += "; it leaves the SYS pairs (across NUMA nodes) staged: NCCL sees each NUMA node as a CPU of its own, so only NCCL_NET_GDR_LEVEL=SYS reaches them, and that reaches every cross-socket pair as well"
	}
	farFix := []RemedyStep{move, command("export NCCL_NET_GDR_LEVEL=PHB", gdrPHB)}
	crossFix := []RemedyStep{manual("put a NIC on every socket that holds accelerators, or move cards; bind ranks with the plan's numactl",
		"NCCL stages through host memory here (GDR off at SYS); NCCL_NET_GDR_LEVEL=SYS forces GDR, which the CUDA GPUDirect RDMA guide calls possibly \"extremely performance-limited\"")}
	switch {
	case a.providerFile(): // its places are real, and a tenant moves no card
		farFix = []RemedyStep{manual("choose an instance type whose NICs sit by its accelerators, or ask the provider",
			"a cloud tenant moves no card; this topology file is what NCCL should be given (NCCL_TOPO_FILE)")}
		crossFix = farFix
	case a.inVM():
		// The labels are the hypervisor's tree, not where the cards sit, and
		// a tenant moves no card: NCCL learns the real locality from the
		// provider's topology file (NCCL troubleshooting, virtual machines).
		farFix = []RemedyStep{manual("set NCCL_TOPO_FILE to the topology XML the provider ships for this instance type, or ask the provider",
			"these labels are the virtual tree's; the cards' real places are the provider's to give")}
		crossFix = farFix
	}
	a.emit("no-local-nic", Warning, &far, "%s", farFix, nil)
	a.emit("cross-socket", Warning, &cross, "%s", crossFix, nil)
}

// findSharing reports NICs serving several accelerators, and switch uplinks
// whose planned flows want more than the link carries.
func (a *analysis) findSharing(plan Plan) {
	users := map[*topology.Device][]*topology.Device{}
	ranks := map[*topology.Device]int{} // per NIC, each accelerator's partitions; -1 where a count is unknown
	flows := map[*topology.Device][]Assignment{}
	var nics, uplinks []*topology.Device
	for _, as := range plan.Assignments {
		if len(users[as.NIC]) == 0 {
			nics = append(nics, as.NIC)
		}
		users[as.NIC] = append(users[as.NIC], as.GPU)
		if as.Partitions == 0 || ranks[as.NIC] < 0 {
			ranks[as.NIC] = -1
		} else {
			ranks[as.NIC] += as.Partitions
		}
		top := lca(as.GPU, as.NIC)
		if l := a.smiLabel(as.GPU, as.NIC); l != topology.PIX && l != topology.PXB {
			top = nil
		}
		a.route = appendUpLinks(appendUpLinks(a.route[:0], as.GPU, top), as.NIC, top)
		for _, r := range a.route {
			if r.dev.Kind == topology.KindBridge {
				if len(flows[r.dev]) == 0 {
					uplinks = append(uplinks, r.dev)
				}
				flows[r.dev] = append(flows[r.dev], as)
			}
		}
	}
	for _, n := range nics {
		if gs := users[n]; len(gs) > 1 || ranks[n] != 1 {
			var g group
			parted, partitioned := partitionedOf(gs)
			switch {
			case !partitioned:
				g.add(append([]*topology.Device{n}, gs...), fmt.Sprintf("%d accelerators share NIC %s (%s): each gets about 1/%d of it when all send at once",
					len(gs), n.BDF(), strings.Join(bdfs(gs), ", "), len(gs)), RemedyStep{}, "rail plan: more accelerators than NICs")
			case ranks[n] < 0:
				g.add(append([]*topology.Device{n}, gs...), fmt.Sprintf("ranks share NIC %s (%s), how many the source does not show (the model's XCD count is unknown): each gets a part of it when all send at once",
					n.BDF(), parted), RemedyStep{}, "rail plan; amdgpu current_compute_partition")
			default:
				g.add(append([]*topology.Device{n}, gs...), fmt.Sprintf("%d ranks share NIC %s (%s): each gets about 1/%d of it when all send at once",
					ranks[n], n.BDF(), parted, ranks[n]), RemedyStep{}, "rail plan; amdgpu current_compute_partition: one rank per compute partition")
			}
			// What the plan sets that binds a rank: numactl where it has NUMA
			// nodes (none from a provider's file), UCX_NET_DEVICES where NCCL's
			// own transport drives the NIC (netVars).
			numa := !a.providerFile() && slices.ContainsFunc(gs, func(d *topology.Device) bool { return d.NUMANode >= 0 })
			plugin := netPlugin(n) != "" // EFA among them
			var settings []string
			if !plugin && (len(n.RDMA) > 0 || len(n.Netdevs) > 0) {
				settings = append(settings, "UCX_NET_DEVICES")
			}
			if numa {
				settings = append(settings, "numactl")
			}
			// aws-ofi-nccl groups the NICs by the GPUs near them itself
			// (src/nccl_ofi_topo.cpp, nccl_ofi_topo_group).
			const byPlugin = "a net plugin drives this NIC (AWS EFA: aws-ofi-nccl, which picks each GPU's NICs by topology itself): NCCL_IB_HCA does not apply"
			var bind RemedyStep
			switch {
			case plugin && numa:
				bind = manual("bind each rank with the plan's numactl", byPlugin)
			case plugin:
				bind = manual("leave the NIC choice to the net plugin", byPlugin)
			case len(settings) == 0:
				bind = manual("leave NCCL_IB_HCA the same list on every rank", "NCCL picks the nearest NIC (NVIDIA/nccl#1478); the source gives no NIC name or NUMA node to bind a rank with")
			default:
				bind = manual("bind each rank with the plan's "+strings.Join(settings, " and "),
					"NCCL_IB_HCA stays the same list on every rank: NCCL picks the nearest NIC (NVIDIA/nccl#1478)")
			}
			more := manual("add NICs for one per accelerator", "")
			if a.inVM() { // EFA's instances among them
				more = manual("choose an instance type with one NIC per accelerator", "a cloud tenant adds no NIC")
			}
			steps := []RemedyStep{bind, more}
			if partitioned {
				// All partitions of an accelerator reach the NIC through its one
				// PCI function: no binding or NIC list parts them.
				steps = []RemedyStep{manual("where each rank needs more of the NIC, run fewer compute partitions per accelerator (SPX: one rank each)",
					"a partition's rank goes through its accelerator's one PCI function, so binding parts no rank from the others on that accelerator")}
				if len(gs) > 1 {
					steps = append(steps, bind)
				}
			}
			a.emit("nic-shared", Info, &g, "%s", steps, nil)
		}
	}
	for _, u := range uplinks {
		capGbps, _, _ := a.narrowest(upLinks(u, u.Parent))
		demand, gs := 0.0, []*topology.Device{u}
		for _, f := range flows[u] {
			demand, gs = demand+f.ExpectedGbps, append(gs, f.GPU)
		}
		if len(gs) > 2 && capGbps > 0 && demand > capGbps {
			var g group
			g.add(gs, fmt.Sprintf("the uplink above %s (%s) carries %d planned flows (%s) wanting %s",
				u.BDF(), words.Gbps(capGbps), len(gs)-1, strings.Join(bdfs(gs[1:]), ", "), words.Gbps(demand)), RemedyStep{}, a.evidence(u, sysfsFile(u, "current_link_width"), "link "+u.Link.String()))
			fix := manual("place a NIC under this switch, or move accelerators so each flow stays under its own switch", "follow the rail plan")
			if a.inVM() {
				fix = manual("choose an instance type with one NIC per accelerator, or ask the provider", "this switch is the hypervisor's: a guest moves no card")
			}
			a.emit("nic-shared", Warning, &g, "%s", []RemedyStep{fix}, nil)
		}
	}
}

// partitionedOf names gs with the compute partitions of those that run in
// them ("0000:03:00.0 in 8 CPX partitions, 0000:23:00.0"), and whether any
// does.
func partitionedOf(gs []*topology.Device) (string, bool) {
	out, some := make([]string, len(gs)), false
	for i, d := range gs {
		out[i] = d.BDF()
		switch n := topology.ComputePartitions(d); {
		case n == 0:
			out[i], some = fmt.Sprintf("%s in %s partitions of unknown count", d.BDF(), d.ComputePartition()), true
		case n > 1:
			out[i], some = fmt.Sprintf("%s in %d %s partitions", d.BDF(), n, d.ComputePartition()), true
		}
	}
	return strings.Join(out, ", "), some
}

// findDevices reports per-device settings: NUMA node, read request size,
// relaxed ordering, BAR size.
func (a *analysis) findDevices(ends []*topology.Device) {
	var mrrs, ro, bar group
	var noNUMA []*topology.Device
	minBAR := uint64(a.m.MinBAR.Value * (1 << 30))
	for _, d := range ends {
		one := []*topology.Device{d}
		// A dump's missing NUMA line is not numa_node -1: only sysfs says so.
		if a.g.MultiNUMA() && d.RawNUMANode < 0 && a.g.TextForm == "" {
			noNUMA = append(noNUMA, d)
		}
		nic := d.Kind == topology.KindNIC
		if d.DevCtlKnown && d.MaxReadRequest > 0 && float64(d.MaxReadRequest) < a.m.MinMaxReadRequestBytes.Value {
			target := a.m.MinMaxReadRequestBytes.Value
			if nic {
				target = a.m.NICMaxReadRequestBytes.Value
			}
			n := bits.Len(uint(target/128)) - 1 // MaxReadReq = 128 << n, DevCtl bits 14:12
			mrrs.add(one, fmt.Sprintf("%s %d B", d.BDF(), d.MaxReadRequest),
				command(fmt.Sprintf("setpci -s %s CAP_EXP+0x8.w=%04x:7000", d.BDF(), n<<12), fmt.Sprintf("MaxReadReq %d B now: n = %d, 128 << n = %d B", d.MaxReadRequest, n, 128<<n)),
				a.evidence(d, sysfsFile(d, "config")+": DevCtl (CAP_EXP+0x8) bits 14:12", fmt.Sprintf("DevCtl: MaxReadReq %d bytes", d.MaxReadRequest)))
		}
		if nic && d.DevCtlKnown && !d.RelaxedOrdering {
			ro.add(one, d.BDF(), command("setpci -s "+d.BDF()+" CAP_EXP+0x8.w=0010:0010", "DevCtl bit 4, Relaxed Ordering"),
				a.evidence(d, sysfsFile(d, "config")+": DevCtl (CAP_EXP+0x8) bit 4 clear", "DevCtl: RlxdOrd-"))
		}
		if d.Kind == topology.KindAccelerator && d.VendorID == topology.VendorNVIDIA && d.BARs != nil {
			var largest uint64
			for _, b := range d.BARs {
				if b.Prefetchable && b.Size > largest {
					largest = b.Size
				}
			}
			if largest < minBAR {
				bar.add(one, fmt.Sprintf("%s %d MiB", d.BDF(), largest>>20), RemedyStep{}, a.evidence(d, sysfsFile(d, "resource"), fmt.Sprintf("largest prefetchable Region %d MiB", largest>>20)))
			}
		}
	}
	a.findNUMAUnknown(noNUMA)
	a.emit("max-read-request-low", Warning, &mrrs, fmt.Sprintf("MaxReadReq below %g B: %%s", a.m.MinMaxReadRequestBytes.Value),
		[]RemedyStep{manual("raise MaxReadReq with the commands below", "they last until the device resets; the NIC target is the model's nic_max_read_request_bytes")}, nil)
	a.emit("relaxed-ordering-off", Warning, &ro, "PCIe Relaxed Ordering is off on %s (measured 10 → 40 GB/s with it on, ConnectX-4 Lx on Arm; Linux commit 17347d5430c4)",
		[]RemedyStep{command("sudo dmesg | grep -i 'relaxed ordering'", "check first: the kernel turns it off behind root ports known to mishandle it")}, nil)
	a.emit("bar-small", Warning, &bar, fmt.Sprintf("largest prefetchable BAR below %g GiB: %%s; GPUDirect RDMA maps GPU memory through BAR1", a.m.MinBAR.Value),
		[]RemedyStep{bios("enable \"Above 4G Decoding\" and \"Resizable BAR\" (Re-Size BAR Support)", ""),
			command("nvidia-smi -q | grep -A3 BAR1", "then check BAR1's size")}, nil)
}

// findNUMAUnknown reports devices without a NUMA node from numa_node,
// saying for each what was read: -1 from the kernel (firmware gave no
// locality: the BIOS remedy), or a file that could not be read, where
// what the kernel and NCCL see is unknown and only the host can tell.
func (a *analysis) findNUMAUnknown(devs []*topology.Device) {
	unread := slices.ContainsFunc(devs, func(d *topology.Device) bool { return d.NUMANodeUnread() != "" })
	minusOne := slices.ContainsFunc(devs, func(d *topology.Device) bool { return d.NUMANodeUnread() == "" })
	var numa group
	for _, d := range devs {
		file := sysfsFile(d, "numa_node")
		if d.NUMANodeUnread() != "" {
			inferred := ""
			if d.NUMANode >= 0 {
				inferred = fmt.Sprintf(", node %d taken from %s", d.NUMANode, d.NUMAFrom)
			}
			numa.add([]*topology.Device{d}, fmt.Sprintf("%s: numa_node could not be read (%s)%s", d.BDF(), d.NUMANodeUnread(), inferred),
				command("cat /"+file, "on the host: gdtopo could not read it ("+d.NUMANodeUnread()+"); -1 there means the firmware gives no locality"),
				file+" could not be read ("+d.NUMANodeUnread()+")")
			continue
		}
		var fix RemedyStep
		if d.NUMANode >= 0 {
			fix = command(fmt.Sprintf("echo %d | sudo tee /%s", d.NUMANode, file),
				fmt.Sprintf("until reboot; node inferred from %s; taints the kernel", d.NUMAFrom))
		}
		part := d.BDF()
		if unread {
			part += ": numa_node is -1"
		}
		numa.add([]*topology.Device{d}, part, fix, file+" = -1")
	}
	nodes := len(a.g.System.NUMANodes)
	topoFile := manual("meanwhile give NCCL the locality with NCCL_TOPO_FILE", "gdtopo export -o nccl-xml writes one to edit")
	var head []RemedyStep
	switch {
	case a.inVM():
		// The guest's ACPI tables are the hypervisor's: only the provider
		// can give the devices a proximity domain.
		head = append(head, manual("ask the provider for the instance type's NUMA locality, or set NCCL_TOPO_FILE to the topology XML the provider ships for it",
			"in a VM the hypervisor's ACPI tables set numa_node; the guest cannot change them"))
	case minusOne:
		// Linux sets numa_node from the firmware's proximity domain (ACPI
		// _PXM, drivers/acpi/numa: acpi_get_node); -1 means none was given.
		head = append(head, bios("update the BIOS and turn NUMA on (no node interleaving)", "so firmware reports locality (ACPI _PXM)"), topoFile)
	default:
		head = append(head, topoFile)
	}
	msg := fmt.Sprintf("numa_node is -1 for %%s on a %d-node machine: NCCL puts them on one CPU node and cannot see SYS", nodes)
	switch {
	case unread && minusOne:
		msg = fmt.Sprintf("NUMA node unknown for %%s on a %d-node machine: where numa_node is -1 NCCL puts the devices on one CPU node and cannot see SYS; where it could not be read, gdtopo cannot tell what NCCL sees", nodes)
	case unread:
		msg = fmt.Sprintf("NUMA node unknown for %%s on a %d-node machine: gdtopo cannot tell which node the kernel, and so NCCL, gives them", nodes)
	}
	sev := Warning
	if len(a.g.OfKind(topology.KindAccelerator)) == 0 {
		sev = Info // no accelerator for NCCL to place
	}
	a.emit("numa-unknown", sev, &numa, msg, head, nil)
}

// findPlatform reports host-wide problems: peer memory and a virtual tree.
func (a *analysis) findPlatform(ends []*topology.Device) {
	p := a.g.Platform
	var nvidia, rdma []*topology.Device
	allNoNUMA := len(ends) > 0
	for _, d := range ends {
		if d.Kind == topology.KindAccelerator && d.VendorID == topology.VendorNVIDIA {
			nvidia = append(nvidia, d)
		}
		if d.Kind == topology.KindNIC && len(d.RDMA) > 0 {
			rdma = append(rdma, d)
		}
		allNoNUMA = allNoNUMA && d.RawNUMANode < 0 && d.NUMANodeUnread() == "" // -1 read, not a file unread
	}
	// An NCCL file's <net gdr="1"> is NCCL's own check passed: the NIC's
	// plugin takes CUDA memory (peer memory or dma-buf, net_ib init.cc).
	ncclSaysGDR := len(rdma) > 0 && !slices.ContainsFunc(rdma, func(n *topology.Device) bool { return n.NCCLGDR() != "1" })
	if len(nvidia) > 0 && len(rdma) > 0 && len(p.PeerMemory) == 0 && !ncclSaysGDR {
		var g group
		if p.ModulesRead {
			g.add(append(nvidia, rdma...), "", RemedyStep{}, "absent: sys/module/nvidia_peermem, sys/module/nv_peer_mem, sys/kernel/mm/memory_peers/nv_mem/version; driver flavour from sys/module/nvidia/taint; kernel from proc/cmdline BOOT_IMAGE")
			pm := a.dmaBuf(nvidia[0])
			load := []RemedyStep{command("sudo modprobe nvidia-peermem", "load it now"),
				command("echo nvidia-peermem | sudo tee /etc/modules-load.d/nvidia-peermem.conf", "load it at every boot")}
			switch pm.state {
			case no:
				a.emit("peer-memory-missing", Warning, &g, "NVIDIA accelerators and RDMA NICs, but "+pm.why+": NCCL turns GPUDirect RDMA off", load, nil)
			case yes:
				a.emit("peer-memory-missing", Info, &g, "GPUDirect RDMA rests on dma-buf: "+pm.why, nil, nil)
			default:
				a.emit("peer-memory-missing", Info, &g, "GPUDirect RDMA rests on dma-buf: "+pm.why,
					[]RemedyStep{command("grep -i open /proc/driver/nvidia/version", "check which driver is loaded: the open kernel module supports dma-buf (NCCL_DMABUF_ENABLE=1 is the default); with the proprietary driver, load the peer-memory module instead")}, load)
			}
		} else {
			ev := "sys/module not in the source"
			fix := []RemedyStep{command("lsmod | grep -e nvidia_peermem -e nv_peer_mem", "check on the machine"), manual("or include sys/module in the capture", "gdtopo snapshot does")}
			if a.g.TextForm != "" {
				ev = "the " + a.g.TextForm + " input lists no loaded kernel modules"
				fix = fix[:1]
			}
			g.add(append(nvidia, rdma...), "", RemedyStep{}, ev)
			a.emit("peer-memory-unknown", Info, &g, "the source holds no sys/module: peer-memory support unknown", fix, nil)
		}
	}
	if !slices.ContainsFunc(ends, func(d *topology.Device) bool { return d.Kind == topology.KindAccelerator }) || a.providerFile() {
		return // no accelerator's paths to mislabel; a provider's file is what NCCL should be given
	}
	var g group
	numaOnly := false // the one sign is numa_node: a guest's, or firmware without PCI locality
	switch {
	case p.Hypervisor:
		g.ev = "proc/cpuinfo flags: hypervisor"
	case a.g.MultiNUMA() && allNoNUMA && a.g.TextForm == "": // a sysfs tree: other sources have no numa_node
		g.ev, numaOnly = "numa_node = -1 on every accelerator and NIC of a multi-node machine", true
	default:
		for _, d := range a.g.Devices {
			if d.VendorID == 0x1b36 && d.DeviceID == 0x000c && g.ev == "" {
				g.ev = a.evidence(d, sysfsFile(d, "")+": QEMU PCIe root port 1b36:000c", "QEMU PCIe root port 1b36:000c")
			}
		}
		if g.ev == "" {
			g.ev = a.vmSign()
		}
	}
	if g.ev != "" && numaOnly && !a.inVM() {
		// Bare metal whose ACPI tables give PCI devices no proximity
		// (_PXM) reads numa_node -1 too: say both, assert neither.
		g.devs = bdfs(ends)
		g.parts = []string{"no accelerator or NIC has a NUMA node on this multi-node machine: either the PCI tree is a hypervisor's (labels and predictions then describe the virtual tree) " +
			"or the firmware gives PCI devices no NUMA locality (ACPI _PXM)"}
		a.emit("virtual-topology", Warning, &g, "%s", []RemedyStep{manual("in a VM: set NCCL_TOPO_FILE to the topology XML your cloud provider ships for this instance type",
			"NCCL troubleshooting: a virtual PCI topology in /sys \"can result in sub-optimal performance\""),
			manual("on bare metal: update the BIOS, or enable its NUMA / PCI locality setting (ACPI SRAT and _PXM)", "numa_node comes from the firmware's _PXM")}, nil)
		return
	}
	if g.ev != "" {
		g.devs = bdfs(ends)
		g.parts = []string{"the PCI tree is a hypervisor's: labels and predictions describe the virtual tree, not the physical one"}
		a.emit("virtual-topology", Warning, &g, "%s", []RemedyStep{manual("set NCCL_TOPO_FILE to the topology XML your cloud provider ships for this instance type",
			"NCCL troubleshooting: a virtual PCI topology in /sys \"can result in sub-optimal performance\"")}, nil)
	}
}
