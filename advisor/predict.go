package advisor

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gdtopo/gdtopo/topology"
)

// linkRef is the PCIe link above dev (dev is its downstream end).
type linkRef struct {
	dev  *topology.Device
	link topology.Link
}

// upLinks lists the links from d up to (not including) stop, or to the host
// bridge when stop is nil. Downstream and root ports add none: the link
// below them is their child's (as in topology's hops); nor does a link
// inside a Broadcom switch. An unknown link borrows the port's view of it.
func upLinks(d, stop *topology.Device) []linkRef {
	out := make([]linkRef, 0, 8) // deeper than most paths: one allocation
	for x := d; x != nil && x != stop; x = x.Parent {
		if x.Parent == nil || x.Role == topology.RoleDownstream || x.Role == topology.RoleRootPort || x.BroadcomSubSwitch() {
			continue
		}
		l := x.Link
		if !l.Known() {
			l = x.Parent.Link
		}
		out = append(out, linkRef{x, l})
	}
	return out
}

// lca returns the lowest bridge above both a and b, nil when they meet only
// at or above a host bridge.
func lca(a, b *topology.Device) *topology.Device {
	on := map[*topology.Device]bool{}
	for x := a.Parent; x != nil; x = x.Parent {
		on[x] = true
	}
	for x := b.Parent; x != nil; x = x.Parent {
		if on[x] {
			return x
		}
	}
	return nil
}

// pathBridges lists the bridges a packet between a and b enters: those above
// each device below their common ancestor (all of them when there is none).
func pathBridges(a, b *topology.Device) []*topology.Device {
	top := lca(a, b)
	var out []*topology.Device
	for _, d := range []*topology.Device{a, b} {
		for x := d.Parent; x != nil && x != top; x = x.Parent {
			out = append(out, x)
		}
	}
	return out
}

// encoding returns the line-code efficiency of a transfer rate: 8b/10b at
// 2.5 and 5 GT/s, 128b/130b from 8 to 32 GT/s (PCIe base specification),
// and none at 64 GT/s, where PCIe 6.0 runs in FLIT mode without 128b/130b
// (the kernel's PCIE_SPEED2MBS_ENC counts 64 GT/s as 64000*1/1 since v6.8).
func encoding(gts float64) (float64, string) {
	switch {
	case gts <= 5:
		return 0.8, "8b/10b"
	case gts >= 64:
		return 1, "FLIT mode, no 128b/130b"
	}
	return 128.0 / 130, "128b/130b"
}

// linkGbps is a link's data rate in Gb/s: GT/s × lanes × encoding ×
// MPS/(MPS + TLP overhead). Gen4 x16 at MPS 256: 16 × 16 × 128/130 ×
// 256/280 = 230.46. It is 0 for an unknown link.
func (m *Model) linkGbps(l topology.Link, mps int) float64 {
	if !l.Known() {
		return 0
	}
	enc, _ := encoding(l.CurrentGTs)
	return l.CurrentGTs * float64(l.CurrentWidth) * enc * float64(mps) / (float64(mps) + m.TLPOverheadBytes.Value)
}

// mpsOf returns the smallest DevCtl Max_Payload_Size at either end of the
// links, or 0 when none was read.
func mpsOf(refs []linkRef) int {
	mps := 0
	for _, r := range refs {
		for _, d := range []*topology.Device{r.dev, r.dev.Parent} {
			if d != nil && d.DevCtlKnown && d.MaxPayload > 0 && (mps == 0 || d.MaxPayload < mps) {
				mps = d.MaxPayload
			}
		}
	}
	return mps
}

// narrowest returns the lowest data rate among refs and the link it is at,
// with the MPS used; 0 and a zero linkRef when no link is known.
func (a *analysis) narrowest(refs []linkRef) (float64, linkRef, int) {
	mps := mpsOf(refs)
	if mps == 0 {
		mps = int(a.m.DefaultMPSBytes.Value)
	}
	best, at := 0.0, linkRef{}
	for _, r := range refs {
		if g := a.m.linkGbps(r.link, mps); g > 0 && (best == 0 || g < best) {
			best, at = g, r
		}
	}
	return best, at, mps
}

// iommuState is what translating says of a device.
type iommuState struct {
	tr, known bool
	evidence  string
}

// translating says whether DMA from d goes through a translating IOMMU:
// by its group's default domain type where read, else platform-wide. known
// is false when the source cannot tell. Each device's answer is worked out
// once: every pair asks it of both ends.
func (a *analysis) translating(d *topology.Device) (tr, known bool, evidence string) {
	s, ok := a.iommu[d]
	if !ok {
		s.tr, s.known, s.evidence = a.findTranslating(d)
		a.iommu[d] = s
	}
	return s.tr, s.known, s.evidence
}

// findTranslating works out translating's answer.
func (a *analysis) findTranslating(d *topology.Device) (tr, known bool, evidence string) {
	p := a.g.Platform
	if t, ok := p.IOMMUGroupTypes[d.IOMMUGroup]; ok && d.IOMMUGroup != "" {
		return t == "DMA" || t == "DMA-FQ", true, fmt.Sprintf("sys/kernel/iommu_groups/%s/type = %s", d.IOMMUGroup, t)
	}
	if len(p.IOMMUGroupTypes) > 0 {
		groups := make([]string, 0, len(p.IOMMUGroupTypes))
		for n := range p.IOMMUGroupTypes {
			groups = append(groups, n)
		}
		sort.Strings(groups)
		for _, n := range groups {
			if t := p.IOMMUGroupTypes[n]; t == "DMA" || t == "DMA-FQ" {
				return true, true, fmt.Sprintf("sys/kernel/iommu_groups/%s/type = %s", n, t)
			}
		}
		return false, true, "sys/kernel/iommu_groups/*/type"
	}
	if len(p.IOMMUs) > 0 {
		if !a.g.System.CmdlineRead {
			return false, false, ""
		}
		pt, off := cmdlineIOMMU(a.g.System.Cmdline)
		ev := fmt.Sprintf("sys/class/iommu/%s present; proc/cmdline %q", p.IOMMUs[0], a.g.System.Cmdline)
		return !pt && !off, true, ev
	}
	return false, p.IOMMUClassRead, "sys/class/iommu is empty"
}

// cmdlineIOMMU reads the kernel command line's IOMMU intent: passthrough
// (iommu=pt, iommu.passthrough=1) or off (iommu=off, intel_iommu=off,
// amd_iommu=off); a later token wins (sysfs-reference.md §4).
func cmdlineIOMMU(cmdline string) (pt, off bool) {
	for _, tok := range strings.Fields(cmdline) {
		k, v, _ := strings.Cut(tok, "=")
		switch k {
		case "iommu":
			switch v {
			case "pt":
				pt = true
			case "nopt":
				pt = false
			case "off":
				off = true
			}
		case "iommu.passthrough":
			pt = v == "1"
		case "intel_iommu", "amd_iommu":
			for _, w := range strings.Split(v, ",") {
				if w == "off" {
					off = true
				} else if w == "on" || w == "force_enable" {
					off = false
				}
			}
		}
	}
	return pt, off
}

// predict models one accelerator–NIC pair; the package comment gives the
// formula.
func (a *analysis) predict(p topology.Pair) Prediction {
	gpu, nic := p.A, p.B
	pr := Prediction{GPU: gpu, NIC: nic, Uncertain: append([]string(nil), p.Notes...)}
	note := func(s string) { pr.Uncertain = append(pr.Uncertain, s) }
	// step adds a line of the arithmetic; its words are built only when
	// the caller wants them.
	step := func(v float64, unit, src string, what func() string) {
		if a.explain {
			pr.Explain = append(pr.Explain, Step{What: what(), Value: v, Unit: unit, Source: src})
		}
	}
	phb, interSocket, cpu := a.cpuKind()
	local := p.SMI == topology.PIX || p.SMI == topology.PXB
	if p.DataDirect != nil { // the NIC's DMA runs through its Data Direct function
		nic = p.DataDirect
		local = p.NCCL == topology.PIX || p.NCCL == topology.PXB
	}
	top := lca(gpu, nic)
	route := append(upLinks(gpu, top), upLinks(nic, top)...)

	// Platform state that sends a switch-local path up to the root complex.
	detour := ""
	trG, knownG, _ := a.translating(gpu)
	trN, knownN, _ := a.translating(nic)
	if local {
		var redir []string
		for _, b := range pathBridges(gpu, nic) {
			if b.ACSKnown && b.ACSRedirect && !a.graceACSAsWanted(b) {
				redir = append(redir, b.BDF())
			}
		}
		switch {
		case len(redir) > 0:
			detour = "ACS redirect on " + strings.Join(redir, ", ")
		case trG || trN:
			detour = "IOMMU translation (GDS best practices §1.1: P2P routed through the root ports)"
		}
		if detour != "" && top != nil {
			route = append(route, upLinks(top, nil)...)
		}
	}
	if !knownG || !knownN {
		note("IOMMU state unknown: taken as passthrough")
	}

	bn, at, mps := a.narrowest(route)
	if mpsOf(route) == 0 {
		note(fmt.Sprintf("Max_Payload_Size unknown on the path (DevCtl not read): %d B assumed", mps))
	}
	if at.dev != nil {
		enc, encName := encoding(at.link.CurrentGTs)
		raw := at.link.CurrentGTs * float64(at.link.CurrentWidth) * enc
		step(raw, "Gb/s", "current_link_speed, current_link_width", func() string {
			return fmt.Sprintf("bottleneck link above %s (%s): %g GT/s × %d lanes × %s", at.dev.BDF(), at.link,
				at.link.CurrentGTs, at.link.CurrentWidth, encName)
		})
		step(bn, "Gb/s", a.m.TLPOverheadBytes.Source, func() string {
			return fmt.Sprintf("× TLP efficiency %d/(%d+%g) at Max_Payload_Size %d B", mps, mps, a.m.TLPOverheadBytes.Value, mps)
		})
	} else {
		note("no link speed known on the path: the NIC's rate taken as the path's")
	}

	if l := gpu.Link; l.CurrentGTs > 0 && l.CurrentGTs < l.MaxGTs {
		note(fmt.Sprintf("%s trained at %g of %g GT/s: idle GPUs slow their link, so under load this may be faster", gpu.BDF(), l.CurrentGTs, l.MaxGTs))
	}
	own, _, _ := a.narrowest(upLinks(nic, nic.Parent))
	pr.NICGbps = own
	if nic.PortRateGbps > 0 && (own == 0 || nic.PortRateGbps < own) {
		pr.NICGbps = nic.PortRateGbps
	}
	if nic.PortRateGbps == 0 {
		note(fmt.Sprintf("port rate of %s unknown: its own PCIe link taken as its limit", nic.BDF()))
	}
	step(pr.NICGbps, "Gb/s", "ports/*/rate or net speed; the NIC's link", func() string {
		return fmt.Sprintf("NIC %s alone: port %g Gb/s, own link %.1f Gb/s", nic.BDF(), nic.PortRateGbps, own)
	})

	x := bn
	if x == 0 {
		x = pr.NICGbps
	}
	if (!local && p.SMI != topology.SYS) || detour != "" {
		why := string(p.SMI)
		if detour != "" {
			why = detour
		}
		x *= phb.Value
		step(x, "Gb/s", phb.Source, func() string { return fmt.Sprintf("× root-complex factor %.3g (%s; %s)", phb.Value, why, cpu) })
	}
	if pr.NICGbps > 0 && x > pr.NICGbps {
		x = pr.NICGbps
		step(x, "Gb/s", "", func() string { return "capped by the NIC" })
	}
	if p.SMI == topology.SYS {
		x *= a.m.SYSGDRFactor.Value
		step(x, "Gb/s", a.m.SYSGDRFactor.Source, func() string { return fmt.Sprintf("× cross-NUMA GDR factor %g", a.m.SYSGDRFactor.Value) })
		if p.Path == topology.PathNUMANodes {
			note("sub-NUMA domains of one socket: the inter-socket cap is NCCL's view, assumed here")
		}
		if interSocket == nil {
			note("CPU vendor unknown: no inter-socket cap applied")
		} else if interSocket.Value < x {
			x = interSocket.Value
			step(x, "Gb/s", interSocket.Source, func() string { return fmt.Sprintf("capped by the inter-socket link (%s)", cpu) })
		}
	}
	if trG || trN {
		x *= a.m.IOMMUFactor.Value
		step(x, "Gb/s", a.m.IOMMUFactor.Source, func() string { return fmt.Sprintf("× IOMMU translation factor %g", a.m.IOMMUFactor.Value) })
		note("a translating IOMMU is incompatible with GPUDirect RDMA on bare metal (CUDA GPUDirect RDMA §3.4): it may not work at all")
	}
	pr.ExpectedGbps = x
	if pr.NICGbps > 0 {
		pr.Efficiency = min(1, x/pr.NICGbps)
	}
	step(x, "Gb/s", "", func() string { return "expected direct-RDMA throughput" })

	a.gdr(p, &pr, note)
	if !pr.GDR || !pr.GDRRead {
		h := pr.NICGbps
		for _, d := range []*topology.Device{gpu, nic} {
			if c, _, _ := a.narrowest(upLinks(d, nil)); c > 0 && (h == 0 || c < h) {
				h = c
			}
		}
		what := "min(NIC, GPU and NIC links to the CPU)"
		if p.SMI == topology.SYS && interSocket != nil && interSocket.Value < h {
			h, what = interSocket.Value, "inter-socket link ("+cpu+")"
		}
		pr.HostStagedGbps = h * a.m.HostStagedFactor.Value
		step(pr.HostStagedGbps, "Gb/s", a.m.HostStagedFactor.Source, func() string {
			return fmt.Sprintf("host-staged: %s %.1f Gb/s × %g", what, h, a.m.HostStagedFactor.Value)
		})
	}
	return pr
}

// gdr applies NCCL's GPUDirect RDMA rules for the chosen version
// (nccl-semantics.md §3.1-§3.2).
func (a *analysis) gdr(p topology.Pair, pr *Prediction, note func(string)) {
	gpu, nic := p.A, p.B
	var why []string
	switch {
	case !a.anyRDMA:
		note("no RDMA devices in the source (sys/class/infiniband): the NIC taken as RDMA-capable")
	case len(nic.RDMA) == 0:
		why = append(why, fmt.Sprintf("%s has no RDMA device: NCCL would use sockets", nic.BDF()))
	}
	if gpu.VendorID == topology.VendorNVIDIA {
		switch {
		case len(a.g.Platform.PeerMemory) > 0:
			if a.v.minor <= 18 && !strings.Contains(strings.Join(a.g.Platform.PeerMemory, " "), "memory_peers") {
				note("NCCL 2.18 and older look only under sys/kernel/mm/memory_peers (§3.1): the module alone may not count")
			}
		case a.g.Platform.ModulesRead:
			why = append(why, "no peer memory (nvidia_peermem, nv_peer_mem, memory_peers/nv_mem)")
			note("dma-buf GPUDirect RDMA (open GPU driver, CUDA ≥ 11.7) leaves no trace in sysfs and may enable GDR")
		default:
			note("peer-memory evidence not captured (sys/module): taken as present")
		}
	} else {
		note("GPUDirect RDMA rules are NCCL's (NVIDIA): for this accelerator only the distance rule is applied")
	}
	level := "PXB"
	if a.v.minor >= 29 {
		level = "P2C"
	}
	// P2C (NVLink-C2C to the CPU, PCIe to the NIC) is within the GDR level
	// since NCCL 2.27 (paths.cc: NCCL_NET_GDR_C2C defaults to 1).
	c2cOK := p.NCCL == topology.P2C && a.v.minor >= 27
	if p.NCCL != topology.PIX && p.NCCL != topology.PXB && !c2cOK {
		why = append(why, fmt.Sprintf("NCCL distance %s > GDR level %s (NCCL %s default; without C2C in sysfs P2C admits only PIX and PXB)",
			p.NCCL, level, a.v))
	}
	if a.v.newer() {
		note(fmt.Sprintf("NCCL %s is newer than %s: its rules taken", a.v, DefaultNCCLVersion))
	}
	pr.GDR, pr.GDRRead = len(why) == 0, len(why) == 0
	if pr.GDR && gpu.VendorID == topology.VendorNVIDIA {
		sm, ok := computeCapability(gpu)
		if !ok && a.v.minor >= 19 {
			note(fmt.Sprintf("compute capability of device %04x unknown: GDR reads taken as on", gpu.DeviceID))
		}
		if (ok && sm < 80) || a.v.minor < 19 {
			nvs := len(a.g.OfKind(topology.KindNVSwitch)) > 0
			if len(a.g.OfKind(topology.KindAccelerator)) > 1 && !nvs {
				pr.GDRRead = false
				why = append(why, "send side: NCCL turns GDR reads off for pre-Ampere GPUs without an NVLink peer (§3.2 step 3)")
				note("NVLink is not visible in sysfs: with NVLink peers NCCL keeps GDR reads on")
			}
		}
	}
	pr.GDRReason = strings.Join(why, "; ")
}

// smRanges maps NVIDIA PCI device-ID ranges (chip families as pci.ids names
// them) to compute capability × 10 (NVIDIA's CUDA GPUs list). First match
// wins; the ranges are approximate.
var smRanges = []struct {
	lo, hi uint16
	sm     int
}{
	{0x15f0, 0x15ff, 60},  // GP100: P100
	{0x1d81, 0x1d81, 70},  // GV100: Titan V
	{0x1db0, 0x1dbf, 70},  // GV100: V100
	{0x1df0, 0x1dff, 70},  // GV100: V100S
	{0x1b00, 0x1dff, 61},  // GP10x
	{0x1e00, 0x1fff, 75},  // TU10x: T4
	{0x2180, 0x21ff, 75},  // TU116
	{0x2000, 0x20ff, 80},  // GA100: A100, A30
	{0x2300, 0x23ff, 90},  // GH100: H100, H200, GH200
	{0x2200, 0x25ff, 86},  // GA10x: A10, A40, A16
	{0x2600, 0x28ff, 89},  // AD10x: L4, L40, L40S
	{0x2900, 0x29ff, 100}, // GB100: B200
}

// computeCapability returns an NVIDIA GPU's compute capability × 10.
func computeCapability(d *topology.Device) (int, bool) {
	if d.VendorID != topology.VendorNVIDIA {
		return 0, false
	}
	for _, r := range smRanges {
		if d.DeviceID >= r.lo && d.DeviceID <= r.hi {
			return r.sm, true
		}
	}
	return 0, false
}
