package export

import (
	"bufio"
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/gdtopo/gdtopo/topology"
)

var (
	boxFill   = map[string]string{boxHost: "#e5e7eb", boxSwitch: "#dbeafe", boxGPU: "#dcfce7", boxNIC: "#ffedd5"}
	boxStroke = map[string]string{boxHost: "#6b7280", boxSwitch: "#2563eb", boxGPU: "#16a34a", boxNIC: "#ea580c"}
	boxName   = map[string]string{boxHost: "host bridge", boxSwitch: "PCIe switch, one box a level", boxGPU: "accelerator", boxNIC: "NIC"}
	// labelFill colours a path label, best (green) to worst (red).
	labelFill = map[topology.Label]string{topology.PIX: "#86efac", topology.PXB: "#d9f99d", topology.PHB: "#fde68a",
		topology.NODE: "#fdba74", topology.SYS: "#fca5a5"}
)

func fillOf(l topology.Label) string {
	if c, ok := labelFill[l]; ok {
		return c
	}
	if strings.HasPrefix(string(l), "NV") || l == topology.XGMI { // NVLink, or AMD's xGMI
		return "#93c5fd"
	}
	return "#ffffff"
}

// strokeW is a link line's width: wider links draw thicker.
func strokeW(l topology.Link) float64 {
	w := l.CurrentWidth
	if w == 0 {
		w = l.MaxWidth
	}
	switch {
	case w >= 16:
		return 5
	case w >= 8:
		return 3
	case w >= 4:
		return 2
	case w > 0:
		return 1.2
	}
	return 1
}

func esc(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s))
	return b.String()
}

// SVG draws the tree itself, with no external program: NUMA nodes as
// frames, host bridges at the top of theirs, switches below, accelerators
// and NICs below those, links as lines (thicker for wider links, red where
// a link trained below its maximum), each accelerator's best NIC with
// nvidia-smi's label, a table of every accelerator-NIC label, and a
// legend. The picture is drawn 1:1 with its text at fontSize: a large
// machine wraps its rows (see layoutPicture) rather than shrinking.
// Containers (the background, NUMA frames) are rects of class "frame";
// every other rect is grouped with the text drawn on it. aliases names
// the devices (GPU0, NIC0); nil uses report.Aliases. best gives each
// accelerator its best NIC, as the report decided it
// (report.Report.BestNICs).
func SVG(w io.Writer, g *topology.Graph, aliases map[*topology.Device]string, best map[*topology.Device]*topology.Device) error {
	return drawSVG(w, g, aliases, best, true)
}

// SVGTree draws the picture SVG draws without its table of labels: for a
// page that shows the labels itself (gdtopo export -o html).
func SVGTree(w io.Writer, g *topology.Graph, aliases map[*topology.Device]string, best map[*topology.Device]*topology.Device) error {
	return drawSVG(w, g, aliases, best, false)
}

// drawSVG draws SVG's picture, its table of labels when withTable.
func drawSVG(w io.Writer, g *topology.Graph, aliases map[*topology.Device]string, best map[*topology.Device]*topology.Device, withTable bool) error {
	pic := buildPicture(g, aliases, best)
	treeW, treeH := layoutPicture(pic)
	bw := bufio.NewWriter(w)
	var body strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&body, format, a...) }

	for _, c := range pic.clusters {
		p(`<rect class="frame" x="%.1f" y="%.1f" width="%.1f" height="%.1f" rx="8" fill="#f9fafb" stroke="#9ca3af" stroke-dasharray="4 3"/>`+"\n", c.x, c.y, c.w, c.h)
		p(`<text x="%.1f" y="%.1f" font-weight="bold">%s</text>`+"\n", c.x+clPad, c.y+16, esc(c.label))
	}
	line := func(x1, y1, x2, y2 float64, col string, width float64) {
		p(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="%.1f"/>`+"\n", x1, y1, x2, y2, col, width)
	}
	for _, b := range pic.boxes {
		if len(b.children) == 0 {
			continue
		}
		bus := len(b.rowTops) > 1
		if bus { // down from the parent, then along each row's bus
			gutter := b.x - busIndent/2
			line(b.x+b.w/2, b.y+b.h, b.x+b.w/2, b.rowTops[0]-rowGap/2, "#6b7280", 1.5)
			line(gutter, b.rowTops[0]-rowGap/2, gutter, b.rowTops[len(b.rowTops)-1]-rowGap/2, "#6b7280", 1.5)
		}
		j := 0
		for r, n := range b.rows {
			row := b.children[j : j+n]
			j += n
			if bus {
				busY := b.rowTops[r] - rowGap/2
				last := row[len(row)-1]
				line(b.x-busIndent/2, busY, max(last.x+last.w/2, b.x+b.w/2), busY, "#6b7280", 1.5)
			}
			for _, c := range row {
				col := "#6b7280"
				if c.link.Degraded() {
					col = "#dc2626"
				}
				if bus {
					line(c.x+c.w/2, c.y-rowGap/2, c.x+c.w/2, c.y, col, strokeW(c.link))
				} else {
					line(b.x+b.w/2, b.y+b.h, c.x+c.w/2, c.y, col, strokeW(c.link))
				}
			}
		}
	}
	for _, b := range pic.boxes {
		p(`<g><rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" rx="4" fill="%s" stroke="%s" stroke-width="1.5"/>`,
			b.x, b.y, b.w, b.h, boxFill[b.kind], boxStroke[b.kind])
		for i, l := range b.lines {
			attrs := ""
			switch {
			case i == 0:
				attrs = ` font-weight="bold"`
			case strings.HasSuffix(l, "▼"):
				attrs = ` fill="#dc2626"`
			}
			if i == 3 && b.best != nil { // the best-NIC line on its label's colour
				p(`<rect x="%.1f" y="%.1f" width="%.1f" height="%d" rx="2" fill="%s"/>`, b.x+3, b.y+float64(i)*lineH+4, b.w-6, lineH, fillOf(b.best.SMI))
			}
			p(`<text x="%.1f" y="%.1f" text-anchor="middle"%s>%s</text>`, b.x+b.w/2, b.y+float64(i+1)*lineH, attrs, esc(l))
		}
		p("</g>\n")
	}

	// Every accelerator-NIC label, as nvidia-smi prints it, in as many
	// blocks of NIC columns as keep it within maxLayoutW.
	y := treeH
	var gpus, nics []*topology.Device
	for _, b := range pic.ends {
		if b.kind == boxGPU {
			gpus = append(gpus, b.dev)
		} else {
			nics = append(nics, b.dev)
		}
	}
	tableW := 0.0
	if withTable && len(gpus) > 0 && len(nics) > 0 {
		const title = "nvidia-smi label, accelerator × NIC (outlined: each accelerator's best NIC)"
		cw, ch := 52.0, 18.0
		for _, d := range nics {
			cw = max(cw, textW(pic.aliases[d])+10)
		}
		for _, pr := range topology.PairsOf(g.Pairs(), topology.KindAccelerator, topology.KindNIC) {
			cw = max(cw, textW(smiText(&pr))+10)
		}
		rowHead := 0.0
		for _, d := range gpus {
			rowHead = max(rowHead, textW(pic.aliases[d]))
		}
		x0 := float64(clPad) + rowHead + 10
		perBlock := max(1, int((maxLayoutW-x0)/cw))
		blocks := (len(nics) + perBlock - 1) / perBlock
		perBlock = (len(nics) + blocks - 1) / blocks // as even as can be
		tableW = max(float64(clPad)+textW(title), x0+cw*float64(min(perBlock, len(nics))))
		p(`<text x="%d" y="%.1f" font-weight="bold">%s</text>`+"\n", clPad, y+12, esc(title))
		y += 20
		pairs := map[[2]*topology.Device]topology.Pair{}
		for _, pr := range topology.PairsOf(g.Pairs(), topology.KindAccelerator, topology.KindNIC) {
			pairs[[2]*topology.Device{pr.A, pr.B}] = pr
		}
		for start := 0; start < len(nics); start += perBlock {
			block := nics[start:min(start+perBlock, len(nics))]
			if start > 0 {
				y += 10
			}
			for j, d := range block {
				p(`<text x="%.1f" y="%.1f" text-anchor="middle" font-weight="bold">%s</text>`, x0+float64(j)*cw+cw/2, y+13, esc(pic.aliases[d]))
			}
			body.WriteString("\n")
			for i, a := range gpus {
				ry := y + ch*float64(i+1)
				p(`<text x="%d" y="%.1f" font-weight="bold">%s</text>`, clPad, ry+13, esc(pic.aliases[a]))
				for j, n := range block {
					pr := pairs[[2]*topology.Device{a, n}]
					stroke := `stroke="#ffffff"`
					if bp := pic.best[a]; bp != nil && bp.B == n {
						stroke = `stroke="#111827" stroke-width="2"`
					}
					p(`<g><rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s" %s/><text x="%.1f" y="%.1f" text-anchor="middle">%s</text></g>`,
						x0+float64(j)*cw, ry, cw, ch, fillOf(pr.SMI), stroke, x0+float64(j)*cw+cw/2, ry+13, esc(smiText(&pr)))
				}
				body.WriteString("\n")
			}
			y += ch * float64(len(gpus)+1)
		}
	}

	// Legend: to the right of the table where both fit, else below it.
	const legendW = 260 + 48 + 36*charW
	lx, ly := tableW+40, treeH
	switch {
	case tableW == 0:
		lx = clPad
	case lx+legendW > maxLayoutW:
		lx, ly = clPad, y+10
	}
	top := ly
	p(`<text x="%.1f" y="%.1f" font-weight="bold">Legend</text>`+"\n", lx, ly+12)
	ly += 22
	for _, k := range []string{boxHost, boxSwitch, boxGPU, boxNIC} {
		p(`<rect x="%.1f" y="%.1f" width="28" height="14" rx="3" fill="%s" stroke="%s"/><text x="%.1f" y="%.1f">%s</text>`+"\n",
			lx, ly, boxFill[k], boxStroke[k], lx+36, ly+11, boxName[k])
		ly += 20
	}
	for _, wd := range []int{16, 8, 4} {
		p(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#6b7280" stroke-width="%.1f"/><text x="%.1f" y="%.1f">x%d link</text>`+"\n",
			lx, ly+7, lx+28, ly+7, strokeW(topology.Link{CurrentWidth: wd}), lx+36, ly+11, wd)
		ly += 20
	}
	p(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#dc2626" stroke-width="3"/><text x="%.1f" y="%.1f">▼ trained below its maximum</text>`+"\n",
		lx, ly+7, lx+28, ly+7, lx+36, ly+11)
	ly += 20
	lx2, ly2 := lx+260, top+22
	p(`<text x="%.1f" y="%.1f">→NICn LABEL: accelerator's best NIC</text>`+"\n", lx2, ly2+11)
	ly2 += 20
	for _, l := range []topology.Label{topology.PIX, topology.PXB, topology.PHB, topology.NODE, topology.SYS} {
		p(`<g><rect x="%.1f" y="%.1f" width="40" height="14" fill="%s"/><text x="%.1f" y="%.1f" text-anchor="middle">%s</text></g><text x="%.1f" y="%.1f">%s</text>`+"\n",
			lx2, ly2, fillOf(l), lx2+20, ly2+11, l, lx2+48, ly2+11, labelMeaning[l])
		ly2 += 20
	}
	width := max(treeW, tableW+clPad, lx+legendW+clPad)
	height := max(y, ly, ly2) + clPad

	fmt.Fprintf(bw, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="DejaVu Sans Mono, Menlo, Consolas, monospace" font-size="%d">`+"\n",
		width, height, width, height, fontSize)
	fmt.Fprintf(bw, `<rect class="frame" width="100%%" height="100%%" fill="#ffffff"/>`+"\n")
	bw.WriteString(body.String())
	bw.WriteString("</svg>\n")
	return bw.Flush()
}

var labelMeaning = map[topology.Label]string{
	topology.PIX:  "at most one PCIe switch",
	topology.PXB:  "several switch levels, no host bridge",
	topology.PHB:  "through a host bridge (CPU)",
	topology.NODE: "across host bridges, one NUMA node",
	topology.SYS:  "across NUMA nodes / sockets",
}
