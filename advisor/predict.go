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
// inside a Broadcom switch. An unknown link borrows the port's view of it
// (topology.HopLink).
func upLinks(d, stop *topology.Device) []linkRef {
	return appendUpLinks(make([]linkRef, 0, 8), d, stop) // deeper than most paths: one allocation
}

// appendUpLinks is upLinks appending to buf.
func appendUpLinks(buf []linkRef, d, stop *topology.Device) []linkRef {
	for x := d; x != nil && x != stop; x = x.Parent {
		if x.Parent == nil && !x.LinkToHost || x.Role == topology.RoleDownstream || x.Role == topology.RoleRootPort || x.BroadcomSubSwitch() {
			continue
		}
		buf = append(buf, linkRef{x, topology.HopLink(x)})
	}
	return buf
}

// lca returns the lowest bridge above both a and b, nil when they meet only
// at or above a host bridge. It walks parent links and allocates nothing.
func lca(a, b *topology.Device) *topology.Device {
	da, db := depth(a), depth(b)
	x, y := a.Parent, b.Parent
	for ; da > db; da-- {
		x = x.Parent
	}
	for ; db > da; db-- {
		y = y.Parent
	}
	for x != y {
		x, y = x.Parent, y.Parent
	}
	return x
}

// depth counts the bridges above d.
func depth(d *topology.Device) int {
	n := 0
	for p := d.Parent; p != nil; p = p.Parent {
		n++
	}
	return n
}

// encoding returns the line-code efficiency of a transfer rate and its
// name (topology.LineCode: the one link arithmetic).
func encoding(gts float64) (float64, string) { return topology.LineCode(gts) }

// linkGbps is a link's data rate in Gb/s: GT/s × lanes × encoding ×
// MPS/(MPS + TLP overhead). Gen4 x16 at MPS 256: 16 × 16 × 128/130 ×
// 256/280 = 230.46. It is 0 for an unknown link.
func (m *Model) linkGbps(l topology.Link, mps int) float64 {
	if !l.Known() {
		return 0
	}
	return topology.DataGbps(l.CurrentGTs, l.CurrentWidth, mps, m.TLPOverheadBytes.Value)
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

// narrowestAt is narrowest's lowest data rate at a given Max_Payload_Size:
// a link outside a pair's path (the NIC's own, on a healthy link) takes the
// path's, so one link has one value throughout an explanation.
func (a *analysis) narrowestAt(refs []linkRef, mps int) float64 {
	best := 0.0
	for _, r := range refs {
		if g := a.m.linkGbps(r.link, mps); g > 0 && (best == 0 || g < best) {
			best = g
		}
	}
	return best
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
// amd_iommu=off); a later token wins (the kernel's
// Documentation/admin-guide/kernel-parameters.txt).
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

// idleGTs is where GPUs park their links when idle: an accelerator link
// below its speed there is saving power, at any other speed trained low.
const idleGTs = 2.5

// idleLink returns the link to predict l (the link above accelerator d)
// on: an accelerator at idleGTs, at full width, with both ends' maximum
// speed known, saves power and runs at that speed under load
// (link-speed-degraded, info). A speed between (Gen4 on a Gen5 pair) is a
// link that trained low, and a width loss stays as read.
func idleLink(d *topology.Device, l topology.Link) (topology.Link, bool) {
	if d.Kind != topology.KindAccelerator || d.Parent == nil || l.CurrentGTs != idleGTs {
		return l, false
	}
	top := d.Link.MaxGTs
	if pm := d.Parent.Link.MaxGTs; pm > 0 && pm < top {
		top = pm
	}
	full := l.MaxWidth > 0 && l.CurrentWidth >= l.MaxWidth
	if l.CurrentGTs <= 0 || top <= l.CurrentGTs || !full {
		return l, false
	}
	l.CurrentGTs = top
	return l, true
}

// healthyLink is l as it would train with both ends at their maximum speed
// and width; unknown maxima keep the current values.
func healthyLink(d *topology.Device, l topology.Link) topology.Link {
	h := l
	h.CurrentGTs, h.CurrentWidth = max(h.CurrentGTs, h.MaxGTs), max(h.CurrentWidth, h.MaxWidth)
	if d.Parent != nil {
		if pm := d.Parent.Link.MaxGTs; pm > 0 && pm < h.CurrentGTs {
			h.CurrentGTs = pm
		}
		if pw := d.Parent.Link.MaxWidth; pw > 0 && pw < h.CurrentWidth {
			h.CurrentWidth = pw
		}
	}
	// never below what the link trained at: a port's max may be misread
	h.CurrentGTs, h.CurrentWidth = max(h.CurrentGTs, l.CurrentGTs), max(h.CurrentWidth, l.CurrentWidth)
	return h
}

// readFactor is the share of the write rate a NIC gets reading GPU memory
// through the root complex of this CPU: lo and hi are equal where one
// measurement applies, a range where the evidence is thin.
func (a *analysis) readFactor(gpu *topology.Device) (lo, hi *Param) {
	s, m := a.g.System, a.m
	sm, smKnown := computeCapability(gpu)
	switch {
	case a.grace:
		return &m.ReadGrace, &m.ReadGrace
	case s.CPUVendor == "GenuineIntel" && intelClient(s):
		return &m.ReadIntelClient, &m.ReadIntelClient
	case s.CPUVendor == "GenuineIntel" && s.CPUFamily == 6 && (s.CPUModelID == 0x2a || s.CPUModelID == 0x2d):
		return &m.ReadIntelSNB, &m.ReadIntelSNB
	case s.CPUVendor == "GenuineIntel" && s.CPUFamily == 6 && s.CPUModelID == 0x3e:
		// Ivy Bridge-EP: P2P reads through its root complex are limited as on
		// Sandy Bridge (NVIDIA's GPUDirect RDMA guide: P2P read bandwidth
		// "severely limited on some processor architectures"); no figure of
		// its own was read, so Sandy Bridge's is the low end.
		return &m.ReadIntelSNB, &m.ReadMin
	case s.CPUVendor == "AuthenticAMD" && s.CPUFamily == 0x17 && s.CPUModelID >= 0x30 && s.CPUModelID <= 0x3f:
		if smKnown && sm < 80 { // the measurement's own shape: Rome and Volta
			return &m.ReadAMDZen2Volta, &m.ReadAMDZen2Volta
		}
		return &m.ReadAMDZen2Volta, &m.ReadMax
	}
	return &m.ReadMin, &m.ReadMax
}

// intelClient reports an Intel desktop or laptop CPU (Core, Core Ultra,
// Pentium, Celeron) rather than a Xeon, by its model name.
func intelClient(s topology.System) bool {
	n := s.CPUModel
	if n == "" || strings.Contains(n, "Xeon") {
		return false
	}
	for _, w := range []string{"Core(TM)", "Core Ultra", "Pentium", "Celeron"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// sysP2P is the cap on GPU-memory RDMA across sockets for this CPU.
func (a *analysis) sysP2P() *Param {
	s := a.g.System
	if s.CPUVendor == "GenuineIntel" && s.CPUFamily == 6 && s.CPUModelID >= 0 && s.CPUModelID < 0x55 && !intelClient(s) {
		return &a.m.SYSP2PIntelPreSKL
	}
	return &a.m.SYSP2P
}

// predict models one accelerator–NIC pair in both directions; the package
// comment gives the formula.
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
	cpu := a.cpuKind()
	local := p.SMI == topology.PIX || p.SMI == topology.PXB
	if p.DataDirect != nil { // the NIC's DMA runs through its Data Direct function
		nic = p.DataDirect
		local = p.NCCL == topology.PIX || p.NCCL == topology.PXB
	}
	top := lca(gpu, nic)
	// A GPU on NVLink-C2C sends what leaves its PCIe tree over C2C to its
	// Grace (NCCL P2C, paths.cc): its own PCIe link is not on the path.
	c2c := p.C2C && !local
	route := a.route[:0]
	if !c2c {
		route = appendUpLinks(route, gpu, top)
	}
	route = appendUpLinks(route, nic, top)
	defer func() { a.route = route[:0] }() // the next pair's buffer: nothing keeps route

	// Platform state that sends a switch-local path up to the root complex.
	detour := ""
	trG, knownG, _ := a.translating(gpu)
	trN, knownN, _ := a.translating(nic)
	if local {
		var redir []string
		for _, d := range [2]*topology.Device{gpu, nic} { // the bridges below top on each side
			for b := d.Parent; b != nil && b != top; b = b.Parent {
				if b.ACSKnown && b.ACSRedirect && !a.graceACSAsWanted(b) {
					redir = append(redir, b.BDF())
				}
			}
		}
		switch {
		case len(redir) > 0:
			detour = "ACS redirect on " + strings.Join(redir, ", ")
		case (trG || trN) && !a.dataDirectAsWanted(p, gpu, top):
			detour = "IOMMU translation (GDS best practices §1.1: P2P routed through the root ports)"
		}
		if detour != "" && top != nil {
			route = appendUpLinks(route, top, nil)
			pr.PathNote = "via the root complex (" + detour + ")"
		}
	}
	if !knownG || !knownN {
		note("IOMMU state unknown: taken as passthrough")
	}
	for i, r := range route {
		if l, idle := idleLink(r.dev, r.link); idle {
			route[i].link = l
			if pr.PathNote == "" {
				pr.PathNote = "loaded"
			}
			note(fmt.Sprintf("%s trained at %g of %g GT/s at full width: an idle GPU slows its link to save power, so it is predicted at %g GT/s",
				r.dev.BDF(), r.link.CurrentGTs, r.dev.Link.MaxGTs, l.CurrentGTs))
		}
	}

	bn, at, mps := a.narrowest(route)
	pr.PathGbps = bn
	if c2c {
		pr.PathNote = "over NVLink-C2C"
		step(3600, "Gb/s", "NVIDIA Grace Hopper Superchip architecture whitepaper: NVLink-C2C 450 GB/s per direction", func() string {
			return fmt.Sprintf("accelerator %s reaches its Grace over NVLink-C2C (3600 Gb/s each way): its PCIe link is off the data path", gpu.BDF())
		})
	}
	if mpsOf(route) == 0 {
		note(fmt.Sprintf("Max_Payload_Size unknown on the path (DevCtl not read): %d B assumed", mps))
	}
	if at.dev != nil {
		if a.explain { // the step's source is spelled out for --explain alone
			linkFiles := "current_link_speed, current_link_width"
			if at.link.MaxOnly {
				linkFiles = "max_link_speed, max_link_width of both ends (the link's state now unknown)"
			}
			if a.g.NCCLView {
				linkFiles = "link_speed, link_width of the NCCL topology (NCCL records the maximum)"
			}
			step(bn, "Gb/s", linkFiles+"; "+a.m.TLPOverheadBytes.Source, func() string {
				_, encName := encoding(at.link.CurrentGTs)
				now := "" // an idle accelerator's link is taken at its loaded speed: say so beside the hops' figure
				if _, idle := idleLink(at.dev, at.dev.Link); idle && at.link.CurrentGTs != at.dev.Link.CurrentGTs {
					now = fmt.Sprintf(" as under load; idle now at %g GT/s", at.dev.Link.CurrentGTs)
				}
				return fmt.Sprintf("bottleneck link above %s (%s%s): %g GT/s × %d lanes × %s × %d/(%d+%g) at Max_Payload_Size %d B",
					at.dev.BDF(), at.link, now, at.link.CurrentGTs, at.link.CurrentWidth, encName, mps, mps, topology.TLPOverhead(at.link.CurrentGTs, a.m.TLPOverheadBytes.Value), mps)
			})
		}
	} else {
		note("no link speed known on the path: the NIC's rate taken as the path's")
	}

	// The NIC alone, now and on a healthy link: efficiency is against what
	// it could do, so a NIC that lost lanes does not look efficient.
	var own, healthy float64
	ownAtMax := false
	if refs := upLinks(nic, nic.Parent); len(refs) > 0 {
		ownAtMax = refs[0].link.MaxOnly
		// at the path's Max_Payload_Size: one value per link in the arithmetic
		own = a.narrowestAt(refs, mps)
		refs[0].link = healthyLink(nic, refs[0].link)
		healthy = a.narrowestAt(refs, mps)
	}
	nicNow := own
	pr.NICGbps = healthy
	port := p.B // the NIC function with the port; nic is its Data Direct function where it has one
	rateGbps, rateWords, rateSource := port.PortRateGbps, "", "ports/*/rate or net speed; the NIC's link at its max"
	if port.PortRateGbps > 0 {
		rateWords = fmt.Sprintf("port %.4g Gb/s", port.PortRateGbps)
	}
	if lag := port.LAG(); lag != nil {
		rateGbps, rateWords, rateSource = a.lagRate(lag, port, rateGbps, rateWords, note)
	}
	pr.nicLinkGbps, pr.portGbps = own, rateGbps
	if rateGbps > 0 {
		nicNow = minKnown(rateGbps, own)
		pr.NICGbps = minKnown(rateGbps, healthy)
	} else {
		pr.AtMost = true
		note(fmt.Sprintf("port rate of %s unknown: its own PCIe link taken as its limit, so the figures are ceilings", port.BDF()))
	}
	step(pr.NICGbps, "Gb/s", rateSource, func() string {
		rate := "port rate unknown"
		if rateWords != "" {
			rate = rateWords
		}
		if own <= 0 { // an unknown link is no 0 Gb/s one
			return fmt.Sprintf("NIC %s on a healthy link: %s, own link speed unknown", nic.BDF(), rate)
		}
		if a.g.NCCLView { // NCCL's file records each link's maximum, never its state now
			return fmt.Sprintf("NIC %s: %s, own link at its max %.1f Gb/s (Max_Payload_Size %d B)", nic.BDF(), rate, healthy, mps)
		}
		if ownAtMax {
			return fmt.Sprintf("NIC %s on a healthy link: %s, own link at its max %.1f Gb/s, its state now unknown (Max_Payload_Size %d B)", nic.BDF(), rate, healthy, mps)
		}
		return fmt.Sprintf("NIC %s on a healthy link: %s, own link now %.1f Gb/s, at its max %.1f Gb/s (Max_Payload_Size %d B)", nic.BDF(), rate, own, healthy, mps)
	})

	x := minKnown(bn, nicNow)
	step(x, "Gb/s", "", func() string {
		if a.g.NCCLView {
			return "min(path, NIC)"
		}
		return "min(path, NIC now)"
	})
	crosses := (!local && p.SMI != topology.SYS) || detour != "" || p.SMI == topology.SYS
	write, read := x, x
	readHi := x
	if crosses {
		why := string(p.SMI)
		if detour != "" {
			why = detour
		}
		write = x * cpu.phb.Value
		step(write, "Gb/s", cpu.phb.Source, func() string {
			return fmt.Sprintf("write (NIC writes GPU memory) × root-complex factor %.3g (%s; %s)", cpu.phb.Value, why, cpu.name)
		})
		lo, hi := a.readFactor(gpu)
		read, readHi = write*lo.Value, write*hi.Value
		step(read, "Gb/s", lo.Source, func() string {
			if lo == hi {
				return fmt.Sprintf("read (NIC reads GPU memory) × %.3g (%s)", lo.Value, lo.Key)
			}
			return fmt.Sprintf("read (NIC reads GPU memory) × %.3g to %.3g (%s to %s): no measurement for this CPU and GPU", lo.Value, hi.Value, lo.Key, hi.Key)
		})
		if lo == &a.m.ReadIntelClient {
			note("Intel client CPUs support PCIe peer-to-peer writes only: a NIC reading GPU memory through the root complex fails (NVIDIA/open-gpu-kernel-modules#1253)")
		}
	}
	writeHi := write
	if p.Path == topology.PathNUMANodes {
		note("NUMA nodes of one socket (Intel SNC, AMD NPS): the path stays on the socket's own fabric, so the same-socket figures are taken, with no inter-socket cap; no measurement across such nodes")
	}
	if p.Path == topology.PathNodesSocketUnknown {
		note("NUMA nodes whose sockets the source does not give: taken as across sockets, the lower figures; on one socket (SNC, NPS) the same-socket figures would apply")
	}
	if p.CrossSocket() {
		c := a.sysP2P()
		limit, src, what := c.Value, c.Source, c.Key
		if cpu.inter != nil && cpu.inter.Value < limit {
			limit, src, what = cpu.inter.Value, cpu.inter.Source, cpu.inter.Key
		}
		if cpu.inter != nil && cpu.inter.Confidence == FromCode {
			// It caps the figure, bounds its range or sets the staged figure.
			note(fmt.Sprintf("the inter-socket link figure is NCCL's model constant for %s (%s), not a measurement of it", cpu.name, cpu.inter.Source))
		}
		if cpu.inter == nil {
			note("CPU unknown: no inter-socket cap from NCCL's table applied")
		}
		// The measured cap comes from few platforms: the range's high end
		// is the inter-socket link NCCL assumes for this CPU.
		hiLimit := limit
		if cpu.inter != nil {
			hiLimit = max(limit, cpu.inter.Value)
		}
		write, read, writeHi, readHi = min(write, limit), min(read, limit), min(writeHi, hiLimit), min(readHi, hiLimit)
		step(write, "Gb/s", src, func() string {
			if hiLimit > limit {
				return fmt.Sprintf("%s, capped at %.4g Gb/s (%s; %s), up to %.4g Gb/s (%s) as the range's high end", across(p), limit, what, cpu.name, hiLimit, cpu.inter.Key)
			}
			return fmt.Sprintf("%s, capped at %.4g Gb/s (%s; %s)", across(p), limit, what, cpu.name)
		})
	}
	switch {
	case (trG || trN) && a.grace:
		// Grace keeps its SMMU translating by design; the Grace figure
		// above was measured so (NVIDIA's GDS guide: IOMMU enabled there).
		step(write, "Gb/s", "NVIDIA GPUDirect Storage guide: on Grace keep the IOMMU enabled", func() string {
			return "Grace's Arm SMMU translates DMA by design: no IOMMU factor (the Grace figures were measured so)"
		})
	case trG || trN:
		f := a.m.IOMMUFactor.Value
		write, read, writeHi, readHi = write*f, read*f, writeHi*f, readHi*f
		step(write, "Gb/s", a.m.IOMMUFactor.Source, func() string { return fmt.Sprintf("× IOMMU translation factor %.3g", f) })
		note("a translating IOMMU is incompatible with GPUDirect RDMA on bare metal (CUDA GPUDirect RDMA §3.4): it may not work at all")
	}
	pr.ExpectedWriteGbps, pr.ExpectedWriteMaxGbps = write, writeHi
	pr.ExpectedReadGbps, pr.ExpectedReadMaxGbps = read, readHi
	pr.ExpectedGbps = min(write, read)
	if pr.NICGbps > 0 {
		pr.Efficiency = min(1, pr.ExpectedGbps/pr.NICGbps)
	}
	step(pr.ExpectedGbps, "Gb/s", "", func() string {
		if pr.ExpectedGbps <= 0 {
			return "expected direct-RDMA throughput: unknown (no link speed or port rate in the source)"
		}
		return fmt.Sprintf("expected direct-RDMA throughput, the lower direction: write %.1f, read %.1f Gb/s", write, read)
	})

	a.gdr(p, &pr, note)
	// The host-staged figure: reported where NCCL stages, and kept for the
	// planner where the verdict is undecided (stagedGbps).
	if reported := !pr.GDR || !pr.GDRRead; reported || pr.GDRUnknown != "" {
		if !reported {
			step = func(float64, string, string, func() string) {}
		}
		h := nicNow
		for _, d := range []*topology.Device{gpu, nic} {
			refs := upLinks(d, nil)
			for i, r := range refs {
				refs[i].link, _ = idleLink(r.dev, r.link)
			}
			if c, _, _ := a.narrowest(refs); c > 0 {
				h = minKnown(h, c)
			}
		}
		inter := false // the inter-socket link, not the links to the CPU, bounds it
		if p.CrossSocket() && cpu.inter != nil && cpu.inter.Value < h {
			h, inter = cpu.inter.Value, true
		}
		staged := h * a.m.HostStagedFactor.Value
		step(staged, "Gb/s", a.m.HostStagedFactor.Source, func() string {
			what := "min(NIC, GPU and NIC links to the CPU)"
			if inter {
				what = "inter-socket link (" + cpu.name + ")"
			}
			if h <= 0 {
				return "host-staged: unknown (no link speed or port rate in the source)"
			}
			return fmt.Sprintf("host-staged: %s %.1f Gb/s × %.3g", what, h, a.m.HostStagedFactor.Value)
		})
		// Across sockets staging crosses the same inter-socket link and
		// was measured below GDR (ucx#11121): never rank it above.
		if c := pr.ExpectedWriteGbps * a.m.SYSStagedPerGDR.Value; p.CrossSocket() && c > 0 && c < staged {
			staged = c
			step(c, "Gb/s", a.m.SYSStagedPerGDR.Source, func() string {
				return fmt.Sprintf("host-staged across sockets: at most %.3g × the direct write figure", a.m.SYSStagedPerGDR.Value)
			})
		}
		pr.stagedGbps = staged
		if reported {
			pr.HostStagedGbps = staged
		}
	}
	return pr
}

// lagRate is the rate of a RoCE LAG's RDMA device (MLNX_OFED user manual,
// "RoCE LAG": one device over both ports of the card): the sum of its
// ports' speeds where the bond's mode sends over both, else one port's
// rate, with the words and source of the --explain step; it notes that
// one QP uses one port, and why a sum was not taken.
func (a *analysis) lagRate(lag *topology.LAG, port *topology.Device, rate float64, words string, note func(string)) (float64, string, string) {
	source := "net/<bond>/lower_*, bonding/mode, each port's net/<if>/speed (RoCE LAG); the NIC's link at its max"
	var each []string
	for _, m := range lag.Members {
		if m.Gbps > 0 {
			each = append(each, fmt.Sprintf("%s %.4g", m.Netdev, m.Gbps))
		} else {
			each = append(each, m.Netdev+" unknown")
		}
	}
	ports := strings.Join(each, " + ")
	mode := lag.Mode
	if mode == "" {
		mode = "mode unread"
	}
	sum := lag.Gbps()
	switch {
	case sum > 0:
		note(fmt.Sprintf("RoCE LAG %s: the driver sends each QP out of one port (mlx5: a QP's tx port affinity, or its flow's hash), so one flow gets at most one port's rate; the figure takes NCCL's connections (a QP each) spread over its %d ports", lag.Bond, len(lag.Members)))
		return sum, fmt.Sprintf("RoCE LAG %s (%s) over %d ports: %s = %.4g Gb/s", lag.Bond, mode, len(lag.Members), ports, sum), source
	case lag.Spreads():
		note(fmt.Sprintf("RoCE LAG %s (%s): a port's speed unknown (%s), so one port's rate is taken", lag.Bond, mode, ports))
	case lag.Mode == "":
		note(fmt.Sprintf("RoCE LAG %s: bonding/mode unread, so whether traffic spreads over its ports is unknown: one port's rate is taken", lag.Bond))
	default:
		note(fmt.Sprintf("RoCE LAG %s in %s mode: one port carries the traffic, the other stands by", lag.Bond, lag.Mode))
	}
	if words != "" {
		words += fmt.Sprintf(" (one port of RoCE LAG %s, %s)", lag.Bond, mode)
	}
	return rate, words, source
}

// minKnown is the lower of two figures where 0 means unknown.
func minKnown(x, y float64) float64 {
	switch {
	case x <= 0:
		return y
	case y <= 0:
		return x
	}
	return min(x, y)
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
	{0x06c0, 0x06ff, 20},  // GF100: Tesla C2050, M2070
	{0x1080, 0x10ff, 20},  // GF110: Tesla M2090
	{0x0dc0, 0x0eff, 21},  // GF104-GF108
	{0x1040, 0x107f, 21},  // GF119
	{0x1200, 0x124f, 21},  // GF114, GF116
	{0x0fc0, 0x0fff, 30},  // GK107
	{0x1180, 0x11ff, 30},  // GK104: Tesla K10, GRID K2
	{0x1000, 0x103f, 35},  // GK110, GK210: Tesla K20, K40, K80
	{0x1280, 0x12bf, 35},  // GK208
}

// computeCapability returns an NVIDIA GPU's compute capability × 10: the
// NCCL topology file's sm where given, else by device ID.
func computeCapability(d *topology.Device) (int, bool) {
	if d.VendorID != topology.VendorNVIDIA {
		return 0, false
	}
	if d.ComputeCapability() > 0 {
		return d.ComputeCapability(), true
	}
	for _, r := range smRanges {
		if d.DeviceID >= r.lo && d.DeviceID <= r.hi {
			return r.sm, true
		}
	}
	return 0, false
}

// across names a cross-socket pair's path in the arithmetic: sockets
// unknown are taken as two.
func across(p topology.Pair) string {
	if p.Path == topology.PathNodesSocketUnknown {
		return "across NUMA nodes (sockets unknown, taken as two)"
	}
	return "across sockets"
}
