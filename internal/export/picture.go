package export

import (
	"fmt"
	"sort"

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

// box is one node of the picture: a host bridge, a switch (its upstream
// port with the downstream ports and Broadcom sub-switches folded in), an
// accelerator or a NIC.
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
	depth      int
}

// cluster is one NUMA node's host bridges.
type cluster struct {
	numa, socket int
	label        string
	hosts        []*box
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
	for _, s := range g.TopSwitches() {
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
				b.lines = append(b.lines, "→"+aliases[p.B]+" "+string(p.SMI))
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
			b.lines = []string{shortModel(d), d.Addr.Short(), linkText(d.Link)}
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
	var walk func(b *box, depth int)
	walk = func(b *box, depth int) {
		b.depth = depth
		pic.boxes = append(pic.boxes, b)
		sort.Slice(b.children, func(i, j int) bool { return b.children[i].dev.Addr.Less(b.children[j].dev.Addr) })
		for _, c := range b.children {
			walk(c, depth+1)
		}
	}
	for _, c := range pic.clusters {
		sort.Slice(c.hosts, func(i, j int) bool { return c.hosts[i].id < c.hosts[j].id })
		for _, h := range c.hosts {
			walk(h, 0)
		}
	}
	return pic
}

// Layout constants, in pixels.
const (
	charW    = 6.8 // width of one character at fontSize in a monospace font
	fontSize = 11
	lineH    = 14
	padX     = 6
	gapX     = 10
	rowGap   = 46
	clPad    = 12
	clHead   = 22
)

// textW is the width of s at fontSize.
func textW(s string) float64 { return float64(len([]rune(s))) * charW }

// layoutPicture places the boxes: host bridges on the top row, switches
// below by depth, accelerators and NICs on the bottom row; each subtree
// gets the width of its widest row, parents centred over their children.
func layoutPicture(pic *picture) (width, height float64) {
	maxDepth := 0
	for _, b := range pic.boxes {
		if b.kind != boxGPU && b.kind != boxNIC {
			maxDepth = max(maxDepth, b.depth)
		}
		for _, l := range b.lines {
			b.w = max(b.w, textW(l)+2*padX)
		}
		b.w = max(b.w, 78)
		b.h = float64(len(b.lines))*lineH + 8
	}
	rowH := make([]float64, maxDepth+2)
	for _, b := range pic.boxes {
		r := b.depth
		if b.kind == boxGPU || b.kind == boxNIC {
			r = maxDepth + 1
		}
		b.depth = r
		rowH[r] = max(rowH[r], b.h)
	}
	rowY := make([]float64, len(rowH))
	y := float64(clPad + clHead)
	for r := range rowH {
		rowY[r] = y
		y += rowH[r] + rowGap
	}
	bottom := y - rowGap
	var span func(b *box) float64
	span = func(b *box) float64 {
		s := 0.0
		for i, c := range b.children {
			if i > 0 {
				s += gapX
			}
			s += span(c)
		}
		return max(s, b.w)
	}
	var place func(b *box, left float64)
	place = func(b *box, left float64) {
		total := span(b)
		b.x = left + (total-b.w)/2
		b.y = rowY[b.depth]
		kids := 0.0
		for i, c := range b.children {
			if i > 0 {
				kids += gapX
			}
			kids += span(c)
		}
		x := left + (total-kids)/2
		for _, c := range b.children {
			place(c, x)
			x += span(c) + gapX
		}
	}
	x := float64(clPad)
	for _, c := range pic.clusters {
		c.x, c.y = x, clPad
		inner := x + clPad
		for i, h := range c.hosts {
			if i > 0 {
				inner += gapX
			}
			place(h, inner)
			inner += span(h)
		}
		c.w = max(inner+clPad-x, textW(c.label)+2*clPad)
		c.h = bottom - clPad + clPad
		x += c.w + gapX
	}
	return x + clPad - gapX, bottom + clPad
}
