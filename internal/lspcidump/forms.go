package lspcidump

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gdtopo/gdtopo/topology"
)

// detail reads one indented line of lspci -vvv for the current device
// (the strings of pciutils' ls-caps.c and ls-ecaps.c).
func (p *parser) detail(t string) {
	r := p.cur
	p.sawVerbose = true
	if r.verboseAt == "" {
		r.verboseAt = p.curAt
	}
	if k, _, ok := strings.Cut(t, ":"); ok && k != "" && !strings.ContainsAny(k, " \t") {
		p.key = k
	}
	val := func(prefix string) (string, bool) {
		v, ok := strings.CutPrefix(t, prefix)
		return strings.TrimSpace(v), ok
	}
	if v, ok := val("NUMA node:"); ok {
		if n, err := strconv.Atoi(v); err == nil && n >= 0 && n < 1<<16 {
			r.numa, r.numaKnown = n, true
		} else {
			p.warn("numa", fmt.Sprintf("NUMA node %q not understood", v))
		}
		return
	}
	if v, ok := val("Kernel driver in use:"); ok {
		r.driver = v
		return
	}
	if v, ok := val("IOMMU group:"); ok {
		r.iommu = v
		return
	}
	if v, ok := val("Subsystem:"); ok {
		if i := strings.LastIndex(v, " ["); i >= 0 && strings.HasSuffix(v, "]") {
			if sv, sd, ok := parseIDPair(v[i+2 : len(v)-1]); ok {
				r.subVendor, r.subDevice, r.subKnown = uint16(sv), uint16(sd), true
			}
		}
		return
	}
	if v, ok := val("Bus:"); ok {
		var pri, sec, sub int
		if _, err := fmt.Sscanf(v, "primary=%x, secondary=%x, subordinate=%x", &pri, &sec, &sub); err != nil || sec > 255 || sub > 255 {
			p.warn("bus", fmt.Sprintf("Bus line not understood: %q", clip(t)))
			return
		}
		r.bridge, r.sec, r.sub = true, sec, sub
		return
	}
	if v, ok := val("Capabilities:"); ok {
		p.capability(r, v)
		return
	}
	if v, ok := val("Status:"); ok && strings.HasPrefix(v, "Cap-") {
		r.noCaps = true // no capability list at all: no ACS, known
		return
	}
	if v, ok := val("Region "); ok {
		if b, ok := parseRegion(v); ok && len(r.bars) < 7 {
			r.bars = append(r.bars, b)
		}
		return
	}
	if v, ok := val("Expansion ROM at "); ok {
		if size, ok := sizeOf(v); ok && len(r.bars) < 7 {
			r.bars = append(r.bars, topology.BAR{Index: 6, Size: size})
		}
		return
	}
	if v, ok := val("LnkCap:"); ok {
		if gts, w, ok := parseSpeedWidth(v); ok {
			r.link.MaxGTs, r.link.MaxWidth = gts, w
		} else {
			p.warn("lnk", fmt.Sprintf("LnkCap not understood: %q", clip(t)))
		}
		return
	}
	if v, ok := val("LnkSta:"); ok {
		if gts, w, ok := parseSpeedWidth(v); ok {
			r.link.CurrentGTs, r.link.CurrentWidth = gts, w
			p.sawLnkSta = true
		} else {
			p.warn("lnk", fmt.Sprintf("LnkSta not understood: %q", clip(t)))
		}
		return
	}
	if v, ok := val("LnkCap2: Supported Link Speeds:"); ok {
		// max_link_speed comes from LnkCap2 when set: "2.5-16GT/s, Crosslink- ..."
		s, _, _ := strings.Cut(v, ",")
		if i := strings.LastIndex(s, "-"); i >= 0 {
			s = s[i+1:]
		}
		if gts := speedGTs(s); gts > 0 {
			r.link.MaxGTs = gts
		}
		return
	}
	if v, ok := val("IOVCtl:"); ok { // the SR-IOV capability of a physical function (ls-ecaps.c, cap_sriov)
		r.sriov.enabled, r.sriov.ctlKnown = strings.Contains(v, "Enable+"), true
		return
	}
	if _, ok := val("Initial VFs:"); ok {
		if i := strings.Index(t, "Number of VFs: "); i >= 0 {
			if _, err := fmt.Sscanf(t[i:], "Number of VFs: %d", &r.sriov.numVFs); err == nil && r.sriov.numVFs >= 0 && r.sriov.numVFs <= 0xffff {
				r.sriov.numKnown = true
			}
		}
		return
	}
	if v, ok := val("VF offset:"); ok {
		var off, stride int
		var id uint16
		if _, err := fmt.Sscanf(v, "%d, stride: %d, Device ID: %x", &off, &stride, &id); err == nil && off > 0 && off <= 0xffff && stride >= 0 && stride <= 0xffff {
			r.sriov.offset, r.sriov.stride, r.sriov.device, r.sriov.layoutKnown = off, stride, id, true
		}
		return
	}
	if v, ok := val("ACSCtl:"); ok {
		r.acsKnown = true
		r.acsRedirect = strings.Contains(v, "ReqRedir+") || strings.Contains(v, "CmpltRedir+")
		return
	}
	if p.key == "DevCtl" {
		if strings.Contains(t, "RlxdOrd+") {
			r.relaxedOrdering = true
		}
		if strings.Contains(t, "RlxdOrd-") {
			r.relaxedOrdering = false
		}
		var mps, mrrs int
		if i := strings.Index(t, "MaxPayload "); i >= 0 {
			if _, err := fmt.Sscanf(t[i:], "MaxPayload %d bytes, MaxReadReq %d bytes", &mps, &mrrs); err == nil && mps > 0 && mps <= 4096 && mrrs > 0 && mrrs <= 4096 {
				r.maxPayload, r.maxReadReq, r.devCtlKnown = mps, mrrs, true
			}
		}
	}
}

// capability reads "Capabilities: [78] Express (v2) Legacy Endpoint, MSI 00",
// "[100 v1] Access Control Services" or "<access denied>".
func (p *parser) capability(r *rec, v string) {
	if strings.HasPrefix(v, "<access denied>") {
		r.denied, p.sawDenied = true, true
		return
	}
	_, rest, ok := strings.Cut(strings.TrimPrefix(v, "["), "]")
	if !ok {
		return
	}
	if strings.HasPrefix(strings.TrimSpace(rest), "<chain looped>") {
		// pciutils (ls-caps.c, ls-ecaps.c) stops walking a list that
		// revisits an entry: what lies past the loop, ACS among it, was
		// never read.
		r.looped = true
		p.warn("loop", fmt.Sprintf("%s: capability list loops (lspci: <chain looped>): ACS and the registers past the loop unknown", r.addr.Short()))
		return
	}
	// lspci lists capabilities only when it could read the capability list;
	// it then reads the extended space too, so an ACS capability it does
	// not list is absent, not unknown.
	r.capsSeen = true
	rest = strings.TrimSpace(rest)
	if !strings.HasPrefix(rest, "Express") {
		return
	}
	ports := []struct {
		words string
		role  topology.Role
	}{
		{"Root Port", topology.RoleRootPort}, {"Upstream Port", topology.RoleUpstream},
		{"Downstream Port", topology.RoleDownstream}, {"PCI-Express to PCI/PCI-X Bridge", topology.RolePCIBridge},
		{"PCI/PCI-X to PCI-Express Bridge", topology.RolePCIBridge}, {"Endpoint", topology.RoleNone},
		{"Root Complex", topology.RoleNone},
	}
	for _, pt := range ports {
		if strings.Contains(rest, pt.words) {
			r.role, r.roleKnown = pt.role, true
			return
		}
	}
}

// parseSpeedWidth reads "Port #0, Speed 16GT/s, Width x16, ..." or
// "Speed 2.5GT/s (downgraded), Width x16 (ok)".
func parseSpeedWidth(v string) (float64, int, bool) {
	i := strings.Index(v, "Speed ")
	j := strings.Index(v, "Width x")
	if i < 0 || j < 0 {
		return 0, 0, false
	}
	s, _, _ := strings.Cut(v[i+6:], ",")
	s, _, _ = strings.Cut(s, " ")
	gts := speedGTs(s) // 0 for "unknown"
	w := v[j+7:]
	k := 0
	for k < len(w) && k < 3 && w[k] >= '0' && w[k] <= '9' {
		k++
	}
	width, err := strconv.Atoi(w[:k])
	if err != nil || width > 32 {
		return 0, 0, false
	}
	return gts, width, true
}

// speedGTs maps "16GT/s" to 16 by generation, 0 if unknown.
func speedGTs(s string) float64 {
	s = strings.TrimSuffix(strings.TrimSpace(s), "GT/s")
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0
	}
	for _, g := range []float64{2.5, 5, 8, 16, 32, 64} {
		if f > g*0.9 && f < g*1.1 {
			return g
		}
	}
	return 0
}

// parseRegion reads "0: Memory at b4000000 (32-bit, non-prefetchable) [size=16M]".
func parseRegion(v string) (topology.BAR, bool) {
	idx, rest, ok := strings.Cut(v, ": ")
	n, err := strconv.Atoi(idx)
	if !ok || err != nil || n < 0 || n > 5 || !strings.HasPrefix(rest, "Memory at ") {
		return topology.BAR{}, false
	}
	size, ok := sizeOf(rest)
	if !ok {
		return topology.BAR{}, false
	}
	return topology.BAR{Index: n, Size: size, Prefetchable: strings.Contains(rest, " prefetchable"),
		Is64: strings.Contains(rest, "64-bit")}, true
}

// sizeOf reads "[size=64G]".
func sizeOf(v string) (uint64, bool) {
	i := strings.Index(v, "[size=")
	if i < 0 {
		return 0, false
	}
	s, _, ok := strings.Cut(v[i+6:], "]")
	if !ok || s == "" {
		return 0, false
	}
	mul := uint64(1)
	switch s[len(s)-1] {
	case 'K':
		mul = 1 << 10
	case 'M':
		mul = 1 << 20
	case 'G':
		mul = 1 << 30
	case 'T':
		mul = 1 << 40
	}
	if mul > 1 {
		s = s[:len(s)-1]
	}
	n, err := strconv.ParseUint(s, 10, 32)
	if err != nil {
		return 0, false
	}
	return n * mul, true
}

// vmmLine reads one line of an lspci -vmm record ("Key:\tValue").
func (p *parser) vmmLine(s string) {
	k, v, ok := strings.Cut(s, ":")
	v = strings.TrimSpace(v)
	if !ok || strings.ContainsAny(k, " \t") {
		p.vmm = nil
		return
	}
	if k == "Slot" {
		p.endBlock()
		a, err := parseBDF(v)
		if err != nil {
			p.warn("vmm", fmt.Sprintf("Slot %q not understood", clip(v)))
			return
		}
		p.vmm, p.vmmIDs = p.get(a, len(v) == 7), false
		p.cur = p.vmm // -vmm -x puts hex rows after the record
		return
	}
	r := p.vmm
	// Values are names, "Name [10de]" with -nn, or bare hex with -n. A
	// model in brackets can look like an ID ("GB100 [B200]"), so a bracket
	// is an ID only when the record's Class line had one too: lspci -nn
	// brackets every field, and prints Class first.
	bracketed := func() (string, bool) {
		i := strings.LastIndex(v, " [")
		if i < 0 || !strings.HasSuffix(v, "]") || len(v)-i-3 != 4 || !isHexStr(v[i+2:len(v)-1]) {
			return "", false
		}
		return v[i+2 : len(v)-1], true
	}
	id := func(bits int) (uint64, bool) {
		x := v
		if b, ok := bracketed(); ok && (p.vmmIDs || k == "Class") {
			x = b
		} else if len(v) != bits/4 {
			return 0, false
		}
		n, err := strconv.ParseUint(x, 16, bits)
		return n, err == nil && len(x) == bits/4
	}
	name := func() string { // "GA100 [A100 SXM4 40GB]" keeps its model; " [10de]" is an ID
		if b, ok := bracketed(); ok && p.vmmIDs {
			return v[:len(v)-len(b)-3]
		}
		return v
	}
	switch k {
	case "Class":
		_, p.vmmIDs = bracketed()
		if c, ok := id(16); ok {
			r.class = uint32(c)<<8 | r.class&0xff
			r.classKnown, r.classGuessed = true, false
		} else if c, ok := classNames[v]; ok {
			r.class, r.classKnown, r.classGuessed = c<<8|r.class&0xff, true, false
		}
	case "Vendor":
		if c, ok := id(16); ok {
			r.vendor, r.vendorKnown = uint16(c), true
		}
		r.name = name()
	case "Device":
		if c, ok := id(16); ok {
			r.device, r.devKnown = uint16(c), true
		}
		r.name += " " + name()
	case "SVendor":
		if c, ok := id(16); ok {
			r.subVendor, r.subKnown = uint16(c), true
		}
	case "SDevice":
		if c, ok := id(16); ok {
			r.subDevice = uint16(c)
		}
	case "ProgIf":
		if c, err := strconv.ParseUint(v, 16, 8); err == nil {
			r.class, r.progKnown = r.class&^0xff|uint32(c), true
		}
	case "Driver":
		r.driver = v
	case "NUMANode":
		if n, err := strconv.Atoi(v); err == nil && n >= 0 && n < 1<<16 {
			r.numa, r.numaKnown = n, true
		}
	case "IOMMUGroup":
		r.iommu = v
	}
}

// tctx is what a tree column's children hang from.
type tctx struct {
	top       bool // the list of root buses
	unknown   bool // a branch whose bus the input does not hold (a fragment)
	frag      bool // below such a branch: domain and host bridge unknown
	dom       uint32
	bus       uint8 // bus the children sit on
	hbBus     uint8
	parent    topology.BDF
	hasParent bool
}

// isElision matches a line that stands for lines left out, as people write
// it when they paste part of a long output: "...", "…", "[...]", "<snip>",
// "-- snip --", "(truncated)".
func isElision(s string) bool {
	dots := strings.Count(s, ".") >= 3 || strings.Contains(s, "…")
	rest := strings.ToLower(strings.Trim(s, " .…[]()<>-"))
	switch rest {
	case "":
		return dots
	case "snip", "snipped", "truncated", "cut", "omitted", "output truncated", "output omitted":
		return true
	}
	return false
}

// isTreeLine matches lines of lspci -t: "-+-[0000:00]-+-00.0 ...",
// " |           +-01.0-[01-04]----00.0 ...", " \-[0000:80]-...".
func isTreeLine(s string) bool {
	t := strings.TrimLeft(s, " |")
	return strings.HasPrefix(t, "+-") || strings.HasPrefix(t, `\-`) || strings.HasPrefix(t, "-[") ||
		strings.HasPrefix(t, "-+-") || strings.HasPrefix(t, `-\-`)
}

// treeLine reads one line of lspci -t. Columns tie a line to its branch:
// the "+-" of a bridge's first child marks the column where its later
// children's "+-" and "\-" stand.
func (p *parser) treeLine(s string) {
	p.sawTree = true
	var ctx *tctx
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] == '|') {
		i++
	}
	for i < len(s) {
		c := s[i]
		switch {
		case c == '-':
			i++
		case (c == '+' || c == '\\') && i+1 < len(s) && s[i+1] == '-':
			if ctx != nil {
				p.tree[i] = *ctx
			} else if x, ok := p.tree[i]; ok {
				ctx = &x
			} else {
				ctx = &tctx{top: true, unknown: true}
				p.tree[i] = *ctx
			}
			i += 2
		case c == '[':
			end := strings.IndexByte(s[i:], ']')
			if end < 0 {
				p.warn("tree", "tree line cut short: "+clip(s))
				return
			}
			dom, bus, ok := parseRootBus(s[i+1 : i+end])
			if !ok {
				p.warn("tree", "tree root bus not understood: "+clip(s))
				return
			}
			ctx = &tctx{dom: dom, bus: bus, hbBus: bus}
			i += end + 1
		case i+4 <= len(s) && isHexStr(s[i:i+2]) && s[i+2] == '.' && s[i+3] >= '0' && s[i+3] <= '7':
			dev, _ := strconv.ParseUint(s[i:i+2], 16, 8)
			if dev > 31 {
				p.warn("tree", "tree slot not understood: "+clip(s))
				return
			}
			r := &rec{} // a function whose bus is unknown: only its bus range counts
			if ctx == nil || ctx.unknown {
				p.skipFragment(r)
			} else {
				a := topology.BDF{Domain: ctx.dom, Bus: ctx.bus, Device: uint8(dev), Function: s[i+3] - '0'}
				r = p.get(a, ctx.frag)
				if !ctx.frag {
					r.placed, r.parent, r.hasParent, r.hbDom, r.hbBus = true, ctx.parent, ctx.hasParent, ctx.dom, ctx.hbBus
				}
			}
			a := r.addr
			i += 4
			if strings.HasPrefix(s[i:], "-[") {
				end := strings.IndexByte(s[i:], ']')
				if end < 0 {
					p.warn("tree", "tree line cut short: "+clip(s))
					return
				}
				lo, hi, _ := strings.Cut(s[i+2:i+end], "-")
				sec, err1 := strconv.ParseUint(lo, 16, 8)
				sub, err2 := sec, error(nil)
				if hi != "" {
					sub, err2 = strconv.ParseUint(hi, 16, 8)
				}
				if err1 != nil || err2 != nil {
					p.warn("tree", "tree bus range not understood: "+clip(s))
					return
				}
				r.bridge, r.sec, r.sub = true, int(sec), int(sub)
				if ctx == nil || ctx.unknown || ctx.frag {
					ctx = &tctx{bus: uint8(sec), frag: true}
				} else {
					ctx = &tctx{dom: ctx.dom, bus: uint8(sec), hbBus: ctx.hbBus, parent: a, hasParent: true}
				}
				i += end + 1
				continue
			}
			name := strings.TrimSpace(s[i:])
			if j := strings.Index(name, "  |"); j >= 0 {
				p.warn("joined", "tree line looks cut and joined to the next: read up to the cut")
				name = strings.TrimSpace(name[:j])
			}
			if k := strings.LastIndex(name, " ["); k >= 0 && strings.HasSuffix(name, "]") {
				if v, d, ok := parseIDPair(name[k+2 : len(name)-1]); ok {
					r.vendor, r.device, r.vendorKnown, r.devKnown = uint16(v), uint16(d), true, true
					name = strings.TrimSpace(name[:k])
				}
			}
			if name != "" && r.name == "" {
				r.name = name
			}
			return
		default:
			p.warn("tree", "tree line not understood: "+clip(s))
			return
		}
	}
}

// parseRootBus reads "0000:00" (or "00").
func parseRootBus(s string) (uint32, uint8, bool) {
	d, b, ok := strings.Cut(s, ":")
	if !ok {
		d, b = "0", s
	}
	dom, err1 := strconv.ParseUint(d, 16, 32)
	bus, err2 := strconv.ParseUint(b, 16, 8)
	return uint32(dom), uint8(bus), err1 == nil && err2 == nil && len(b) == 2
}
