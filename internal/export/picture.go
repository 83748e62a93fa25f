package export

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gdtopo/gdtopo/internal/report"
	"github.com/gdtopo/gdtopo/topology"
)

// Kinds of boxes in a picture.
const (
	boxHost   = "host"
	boxSwitch = "switch"
	boxGPU    = "gpu"
	boxNIC    = "nic"
)

// box is one node of the picture: a host bridge, a switch level (its
// upstream port with its downstream ports folded in: a two-level chip such
// as Broadcom's PEX89000 draws as one box per level, so a PXB path visibly
// crosses several), an accelerator or a NIC.
type box struct {
	id       string
	kind     string
	dev      *topology.Device // nil for a host bridge
	lines    []string         // text, first line bold
	link     topology.Link    // the link up to the parent box
	best     *topology.Pair   // accelerators: the pair with their best NIC
	children []*box
	// layout, filled by layoutPicture
	x, y, w, h float64
	sw, sh     float64   // the subtree's width and height
	rows       []int     // children per row; several rows hang off a bus
	rowTops    []float64 // the top of each row, when there are several
}

// cluster is one NUMA node's host bridges.
type cluster struct {
	numa, socket int
	label        string
	hosts        []*box
	rows         []int // host bridges per row
	x, y, w, h   float64
}

type picture struct {
	clusters []*cluster
	boxes    []*box // every box, parents before children
	ends     []*box // accelerators and NICs in address order
	aliases  map[*topology.Device]string
	best     map[*topology.Device]*topology.Pair // each accelerator's best NIC, labelled
}

// linkText is "Gen5 x16"; a link that trained lower is marked with ▼.
func linkText(l topology.Link) string {
	if l.RateOnly {
		return l.String()
	}
	gts, w := l.CurrentGTs, l.CurrentWidth
	if !l.Known() {
		gts, w = l.MaxGTs, l.MaxWidth
	}
	if gts == 0 && w == 0 {
		return "link ?"
	}
	s := fmt.Sprintf("Gen%d x%d", topology.Generation(gts), w)
	if l.Degraded() {
		s += " ▼"
	}
	return s
}

// bestPairs labels each accelerator's best NIC, as best gives them.
func bestPairs(g *topology.Graph, best map[*topology.Device]*topology.Device) map[*topology.Device]*topology.Pair {
	out := map[*topology.Device]*topology.Pair{}
	for gpu, nic := range best {
		p := g.Classify(gpu, nic)
		out[gpu] = &p
	}
	return out
}

// buildPicture gathers the boxes: host bridges grouped by NUMA node, the
// switches that lead to an accelerator or NIC, and those endpoints.
// best gives each accelerator its best NIC (report.Report.BestNICs); nil
// draws none.
func buildPicture(g *topology.Graph, aliases map[*topology.Device]string, best map[*topology.Device]*topology.Device) *picture {
	if aliases == nil {
		aliases = report.Aliases(g)
	}
	pic := &picture{aliases: aliases, best: bestPairs(g, best)}
	top := map[*topology.Device]bool{}
	for _, s := range g.Switches() { // every level: PXB is counted in levels
		top[s] = true
	}
	if g.NCCLView { // every PCI node with children is a switch there
		for _, d := range g.Devices {
			if len(d.Children) > 0 {
				top[d] = true
			}
		}
	}
	hosts := map[*topology.HostBridge]*box{}
	devs := map[*topology.Device]*box{}
	unknownHost := &topology.HostBridge{Name: "host bridge ?", NUMANode: -1, Socket: -1}
	var boxFor func(d *topology.Device) *box
	// parentBox returns the box above d: the nearest switch, else its host bridge.
	parentBox := func(d *topology.Device) *box {
		for p := d.Parent; p != nil; p = p.Parent {
			if top[p] {
				return boxFor(p)
			}
		}
		hb := d.HostBridge
		if hb == nil {
			hb = unknownHost
		}
		if b := hosts[hb]; b != nil {
			return b
		}
		name := hb.Name
		b := &box{id: "hb:" + name, kind: boxHost, lines: []string{name, "host bridge"}}
		if g.NCCLView {
			b.lines[1] = "NCCL CPU node"
		}
		hosts[hb] = b
		numa, socket := hb.NUMANode, hb.Socket
		if socket < 0 && numa >= 0 {
			socket = g.System.NodeSocket(numa)
		}
		var c *cluster
		for _, x := range pic.clusters {
			if x.numa == numa {
				c = x
			}
		}
		if c == nil {
			c = &cluster{numa: numa, socket: socket, label: fmt.Sprintf("NUMA %d / socket %d", numa, socket)}
			switch {
			case numa < 0:
				c.label = "NUMA node unknown"
			case socket < 0:
				c.label = fmt.Sprintf("NUMA %d / socket ?", numa)
			}
			pic.clusters = append(pic.clusters, c)
		}
		c.hosts = append(c.hosts, b)
		return b
	}
	boxFor = func(d *topology.Device) *box {
		if b := devs[d]; b != nil {
			return b
		}
		b := &box{id: "dev:" + d.BDF(), dev: d, link: d.Link}
		devs[d] = b
		switch d.Kind {
		case topology.KindAccelerator:
			b.kind = boxGPU
			b.best = pic.best[d]
			b.lines = []string{aliases[d] + " " + shortModel(d), d.Addr.Short(), linkText(d.Link)}
			if p := b.best; p != nil {
				b.lines = append(b.lines, "→"+aliases[p.B]+" "+smiText(p))
			}
		case topology.KindNIC:
			b.kind = boxNIC
			name := shortModel(d)
			if len(d.RDMA) > 0 {
				name = d.RDMA[0]
			} else if len(d.Netdevs) > 0 {
				name = d.Netdevs[0]
			}
			rate := "rate ?"
			if d.PortRateGbps > 0 {
				rate = fmt.Sprintf("%g Gb/s", d.PortRateGbps)
			}
			b.lines = []string{aliases[d] + " " + name, d.Addr.Short(), linkText(d.Link), rate}
		default:
			b.kind = boxSwitch
			name := shortModel(d)
			if level, levels := switchLevel(d); levels > 1 {
				name += fmt.Sprintf(" level %d/%d", level, levels)
			}
			b.lines = []string{name, d.Addr.Short(), linkText(d.Link)}
		}
		par := parentBox(d)
		par.children = append(par.children, b)
		return b
	}
	for _, k := range []topology.Kind{topology.KindAccelerator, topology.KindNIC} {
		for _, d := range g.OfKind(k) {
			pic.ends = append(pic.ends, boxFor(d))
		}
	}
	sort.Slice(pic.ends, func(i, j int) bool { return pic.ends[i].dev.Addr.Less(pic.ends[j].dev.Addr) })
	sort.Slice(pic.clusters, func(i, j int) bool {
		a, b := pic.clusters[i].numa, pic.clusters[j].numa
		if (a < 0) != (b < 0) {
			return b < 0
		}
		return a < b
	})
	var walk func(b *box)
	walk = func(b *box) {
		pic.boxes = append(pic.boxes, b)
		sort.Slice(b.children, func(i, j int) bool { return b.children[i].dev.Addr.Less(b.children[j].dev.Addr) })
		for _, c := range b.children {
			walk(c)
		}
	}
	for _, c := range pic.clusters {
		sort.Slice(c.hosts, func(i, j int) bool { return c.hosts[i].id < c.hosts[j].id })
		for _, h := range c.hosts {
			walk(h)
		}
	}
	return pic
}

// sameChip reports whether upstream port u sits below a downstream port of
// its own model: a level of a multi-level chip (topology.Graph.TopSwitches).
func sameChip(u *topology.Device) bool {
	p := u.Parent
	return p != nil && p.Role == topology.RoleDownstream && p.VendorID == u.VendorID && p.DeviceID == u.DeviceID
}

// switchLevel is upstream port u's level in its chip (1 at the top) and
// how many levels the chip has at its deepest, counting upstream ports of
// the same model nested below downstream ports of that model.
func switchLevel(u *topology.Device) (level, levels int) {
	top := u
	level = 1
	for sameChip(top) && top.Parent.Parent != nil {
		top = top.Parent.Parent
		level++
	}
	var deepest func(d *topology.Device, n int) int
	deepest = func(d *topology.Device, n int) int {
		most := n
		for _, down := range d.Children {
			if down.Role != topology.RoleDownstream || down.VendorID != d.VendorID || down.DeviceID != d.DeviceID {
				continue
			}
			for _, c := range down.Children {
				if c.Role == topology.RoleUpstream && sameChip(c) {
					most = max(most, deepest(c, n+1))
				}
			}
		}
		return most
	}
	return level, deepest(top, 1)
}

// Layout constants, in pixels (user units: the picture is shown 1:1).
const (
	charW    = 6.8 // width of one character at fontSize in a monospace font
	fontSize = 11
	lineH    = 14
	padX     = 6
	gapX     = 10
	rowGap   = 46
	clPad    = 12
	clHead   = 22
	// maxLayoutW is the width the layout wraps to: wider rows of devices,
	// host bridges and NUMA nodes continue on a row below, so that text
	// keeps its size however large the machine.
	maxLayoutW = 1600
	// busIndent is the gutter left of wrapped rows, where the line from
	// their parent runs down.
	busIndent = 16
)

// textW is the width of s at fontSize.
func textW(s string) float64 { return float64(len([]rune(s))) * charW }

// layoutPicture places the boxes: each box above its children, which sit
// in one row centred below it, or, where one row would be wider than
// maxLayoutW, in several rows joined to their parent by a bus down the
// left gutter; host bridges side by side in their NUMA node's frame and
// NUMA frames side by side, both wrapping the same way.
func layoutPicture(pic *picture) (width, height float64) {
	for _, b := range pic.boxes {
		for _, l := range b.lines {
			b.w = max(b.w, textW(l)+2*padX)
		}
		b.w = max(b.w, 78)
		b.h = float64(len(b.lines))*lineH + 8
	}
	inner := float64(maxLayoutW - 2*clPad)
	for _, c := range pic.clusters {
		for _, h := range c.hosts {
			measure(h, inner)
		}
		var sizes []rowItem
		for _, h := range c.hosts {
			sizes = append(sizes, rowItem{h.sw, h.sh})
		}
		rows, rw, rh := packRows(sizes, inner)
		c.w = max(rw, textW(c.label)) + 2*clPad
		c.h = clHead + rh + clPad
		c.rows = rows
	}
	var frames []rowItem
	for _, c := range pic.clusters {
		frames = append(frames, rowItem{c.w, c.h})
	}
	rows, rw, rh := packRows(frames, maxLayoutW)
	y := float64(clPad)
	k := 0
	for _, n := range rows {
		x, tall := float64(clPad), 0.0
		for _, c := range pic.clusters[k : k+n] {
			tall = max(tall, c.h)
		}
		for _, c := range pic.clusters[k : k+n] {
			c.x, c.y, c.h = x, y, tall
			hy, j := y+clHead, 0
			for _, m := range c.rows {
				hx, rowTall := x+clPad, 0.0
				for _, h := range c.hosts[j : j+m] {
					place(h, hx, hy)
					hx += h.sw + gapX
					rowTall = max(rowTall, h.sh)
				}
				hy += rowTall + rowGap
				j += m
			}
			x += c.w + gapX
		}
		y += tall + gapX
		k += n
	}
	return rw + 2*clPad, rh + 2*clPad
}

// rowItem is the size of something packRows lays out.
type rowItem struct{ w, h float64 }

// packRows lays items out in as few rows as fit within limit, the same
// number in each row but the last: it returns how many go in each row and
// the total width and height, rows rowGap apart (gapX between items).
func packRows(items []rowItem, limit float64) (rows []int, width, height float64) {
	if len(items) == 0 {
		return nil, 0, 0
	}
	for per := len(items); per >= 1; per-- {
		rows, width, height = rows[:0], 0, 0
		fits := true
		for i := 0; i < len(items); i += per {
			end := min(i+per, len(items))
			w, h := 0.0, 0.0
			for j, it := range items[i:end] {
				if j > 0 {
					w += gapX
				}
				w += it.w
				h = max(h, it.h)
			}
			fits = fits && (w <= limit || end-i == 1)
			rows = append(rows, end-i)
			width = max(width, w)
			if i > 0 {
				height += rowGap
			}
			height += h
		}
		if fits {
			break
		}
	}
	return rows, width, height
}

// measure sizes b's subtree (sw, sh) and decides how its children are
// arranged: in one row when it fits within limit, else in rows behind a
// busIndent gutter.
func measure(b *box, limit float64) {
	if len(b.children) == 0 {
		b.sw, b.sh, b.rows = b.w, b.h, nil
		return
	}
	items := make([]rowItem, len(b.children))
	for i, c := range b.children {
		measure(c, limit-busIndent)
		items[i] = rowItem{c.sw, c.sh}
	}
	rows, w, h := packRows(items, limit-busIndent)
	if len(rows) > 1 {
		w += busIndent
	}
	b.rows = rows
	b.sw = max(b.w, w)
	if len(rows) > 1 {
		b.sw = max(b.w+busIndent, w)
	}
	b.sh = b.h + rowGap + h
}

// place puts b's subtree, measured, with its top left corner at (left, top).
func place(b *box, left, top float64) {
	b.y = top
	b.rowTops = b.rowTops[:0]
	if len(b.rows) <= 1 {
		b.x = left + (b.sw-b.w)/2
		kids := -float64(gapX)
		for _, c := range b.children {
			kids += c.sw + gapX
		}
		x := left + (b.sw-kids)/2
		for _, c := range b.children {
			place(c, x, top+b.h+rowGap)
			x += c.sw + gapX
		}
		return
	}
	b.x = left + busIndent
	y, j := top+b.h+rowGap, 0
	for _, n := range b.rows {
		b.rowTops = append(b.rowTops, y)
		x, tall := left+busIndent, 0.0
		for _, c := range b.children[j : j+n] {
			place(c, x, y)
			x += c.sw + gapX
			tall = max(tall, c.sh)
		}
		y += tall + rowGap
		j += n
	}
}

// smiText is a pair's nvidia-smi label, with "?" when it rests on a guess.
func smiText(p *topology.Pair) string {
	if l := string(p.SMI); p.LabelUncertain && !strings.HasSuffix(l, "?") {
		return l + "?"
	}
	return string(p.SMI)
}
