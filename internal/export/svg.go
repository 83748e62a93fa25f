package export

import (
	"bufio"
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/gdtopo/gdtopo/topology"
)

// maxSVGWidth is the widest the picture is shown; wider layouts are scaled
// down through the viewBox.
const maxSVGWidth = 1780

var (
	boxFill   = map[string]string{boxHost: "#e5e7eb", boxSwitch: "#dbeafe", boxGPU: "#dcfce7", boxNIC: "#ffedd5"}
	boxStroke = map[string]string{boxHost: "#6b7280", boxSwitch: "#2563eb", boxGPU: "#16a34a", boxNIC: "#ea580c"}
	boxName   = map[string]string{boxHost: "host bridge", boxSwitch: "PCIe switch", boxGPU: "accelerator", boxNIC: "NIC"}
	// labelFill colours a path label, best (green) to worst (red).
	labelFill = map[topology.Label]string{topology.PIX: "#86efac", topology.PXB: "#d9f99d", topology.PHB: "#fde68a",
		topology.NODE: "#fdba74", topology.SYS: "#fca5a5"}
)

func fillOf(l topology.Label) string {
	if c, ok := labelFill[l]; ok {
		return c
	}
	if strings.HasPrefix(string(l), "NV") {
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
// frames left to right, host bridges on the top row, switches below,
// accelerators and NICs on the bottom row, links as lines (thicker for
// wider links, red where a link trained below its maximum), each
// accelerator's best NIC with nvidia-smi's label, a table of every
// accelerator-NIC label, and a legend. aliases names the devices (GPU0,
// NIC0); nil uses report.Aliases. best gives each accelerator its best
// NIC, as the report decided it (report.Report.BestNICs).
func SVG(w io.Writer, g *topology.Graph, aliases map[*topology.Device]string, best map[*topology.Device]*topology.Device) error {
	pic := buildPicture(g, aliases, best)
	treeW, treeH := layoutPicture(pic)
	bw := bufio.NewWriter(w)
	var body strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&body, format, a...) }

	for _, c := range pic.clusters {
		p(`<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" rx="8" fill="#f9fafb" stroke="#9ca3af" stroke-dasharray="4 3"/>`+"\n", c.x, c.y, c.w, c.h)
		p(`<text x="%.1f" y="%.1f" font-weight="bold">%s</text>`+"\n", c.x+clPad, c.y+16, esc(c.label))
	}
	for _, b := range pic.boxes {
		for _, c := range b.children {
			col := "#6b7280"
			if c.link.Degraded() {
				col = "#dc2626"
			}
			p(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="%.1f"/>`+"\n",
				b.x+b.w/2, b.y+b.h, c.x+c.w/2, c.y, col, strokeW(c.link))
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

	// Every accelerator-NIC label, as nvidia-smi prints it.
	y := treeH + 10
	var gpus, nics []*topology.Device
	for _, b := range pic.ends {
		if b.kind == boxGPU {
			gpus = append(gpus, b.dev)
		} else {
			nics = append(nics, b.dev)
		}
	}
	tableW := 0.0
	if len(gpus) > 0 && len(nics) > 0 {
		cw, ch := 52.0, 18.0
		for _, d := range nics {
			cw = max(cw, textW(pic.aliases[d])+10)
		}
		x0 := float64(clPad) + 60
		p(`<text x="%d" y="%.1f" font-weight="bold">nvidia-smi label, accelerator × NIC (outlined: each accelerator's best NIC)</text>`+"\n", clPad, y+12)
		y += 20
		for j, d := range nics {
			p(`<text x="%.1f" y="%.1f" text-anchor="middle" font-weight="bold">%s</text>`, x0+float64(j)*cw+cw/2, y+13, esc(pic.aliases[d]))
		}
		body.WriteString("\n")
		pairs := map[[2]*topology.Device]topology.Pair{}
		for _, pr := range topology.PairsOf(g.Pairs(), topology.KindAccelerator, topology.KindNIC) {
			pairs[[2]*topology.Device{pr.A, pr.B}] = pr
		}
		best := pic.best
		for i, a := range gpus {
			ry := y + ch*float64(i+1)
			p(`<text x="%d" y="%.1f" font-weight="bold">%s</text>`, clPad, ry+13, esc(pic.aliases[a]))
			for j, n := range nics {
				pr := pairs[[2]*topology.Device{a, n}]
				stroke := `stroke="#ffffff"`
				if bp := best[a]; bp != nil && bp.B == n {
					stroke = `stroke="#111827" stroke-width="2"`
				}
				p(`<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s" %s/>`, x0+float64(j)*cw, ry, cw, ch, fillOf(pr.SMI), stroke)
				p(`<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`, x0+float64(j)*cw+cw/2, ry+13, esc(string(pr.SMI)))
			}
			body.WriteString("\n")
		}
		tableW = x0 + cw*float64(len(nics))
		y += ch * float64(len(gpus)+1)
	}

	// Legend, to the right of the table (or below the tree).
	lx, ly := tableW+40, treeH+10
	if tableW == 0 {
		lx = clPad
	}
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
	lx2, ly2 := lx+260, treeH+32
	p(`<text x="%.1f" y="%.1f">→NICn LABEL: accelerator's best NIC</text>`+"\n", lx2, ly2+11)
	ly2 += 20
	for _, l := range []topology.Label{topology.PIX, topology.PXB, topology.PHB, topology.NODE, topology.SYS} {
		p(`<rect x="%.1f" y="%.1f" width="40" height="14" fill="%s"/><text x="%.1f" y="%.1f" text-anchor="middle">%s</text><text x="%.1f" y="%.1f">%s</text>`+"\n",
			lx2, ly2, fillOf(l), lx2+20, ly2+11, l, lx2+48, ly2+11, labelMeaning[l])
		ly2 += 20
	}
	width := max(treeW, lx2+textW(labelMeaning[topology.PXB])+60)
	height := max(y, ly, ly2) + 10

	shownW, shownH := width, height
	if width > maxSVGWidth {
		shownW, shownH = maxSVGWidth, height*maxSVGWidth/width
	}
	fmt.Fprintf(bw, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="DejaVu Sans Mono, Menlo, Consolas, monospace" font-size="%d">`+"\n",
		shownW, shownH, width, height, fontSize)
	fmt.Fprintf(bw, `<rect width="100%%" height="100%%" fill="#ffffff"/>`+"\n")
	bw.WriteString(body.String())
	bw.WriteString("</svg>\n")
	return bw.Flush()
}

var labelMeaning = map[topology.Label]string{
	topology.PIX:  "at most one PCIe switch",
	topology.PXB:  "several switches, no host bridge",
	topology.PHB:  "through a host bridge (CPU)",
	topology.NODE: "across host bridges, one NUMA node",
	topology.SYS:  "across NUMA nodes / sockets",
}
