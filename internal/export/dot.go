package export

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/gdtopo/gdtopo/internal/termsafe"
	"github.com/gdtopo/gdtopo/topology"
)

// dotQuote quotes s as a DOT string; newlines become DOT's centred line
// breaks, and other control characters are escaped with termsafe.Block:
// Graphviz would copy them into SVG, which XML readers then refuse.
func dotQuote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\r", "")
	return `"` + r.Replace(termsafe.Block(strings.ReplaceAll(s, "\t", " "))) + `"`
}

// DOT writes a Graphviz picture of the tree: a cluster per NUMA node
// ("NUMA n / socket s"), host bridges, one box per switch level (upstream
// port with its downstream ports folded in, labelled with the model and,
// in a multi-level chip, "level 2/2"), accelerators and NICs; tree edges carry the link
// ("Gen5 x16", thicker for wider links, red where it trained lower), and
// each accelerator has a dashed edge to its best NIC labelled with
// nvidia-smi's label. A legend cluster explains the colours. aliases names
// the devices (GPU0, NIC0); nil uses report.Aliases. best gives each
// accelerator its best NIC, as the report decided it (report.Report.BestNICs).
func DOT(w io.Writer, g *topology.Graph, aliases map[*topology.Device]string, best map[*topology.Device]*topology.Device) error {
	pic := buildPicture(g, aliases, best)
	bw := bufio.NewWriter(w)
	p := func(format string, a ...any) { fmt.Fprintf(bw, format, a...) }
	p("digraph gdtopo {\n")
	p("  graph [rankdir=TB, fontname=\"Helvetica\", fontsize=11, nodesep=0.15, ranksep=0.5];\n")
	p("  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", fontsize=10, margin=\"0.08,0.04\"];\n")
	p("  edge [arrowhead=none, color=\"#6b7280\", fontname=\"Helvetica\"];\n")
	for i, c := range pic.clusters {
		p("  subgraph cluster_numa%d {\n    label=%s; style=\"rounded,dashed\"; color=\"#9ca3af\";\n", i, dotQuote(c.label))
		var nodes func(b *box)
		nodes = func(b *box) {
			p("    %s [label=%s, fillcolor=%s, color=%s];\n", dotQuote(b.id), dotQuote(strings.Join(b.lines, "\n")),
				dotQuote(boxFill[b.kind]), dotQuote(boxStroke[b.kind]))
			for _, k := range b.children {
				nodes(k)
			}
		}
		for _, h := range c.hosts {
			nodes(h)
		}
		p("  }\n")
	}
	for _, b := range pic.boxes {
		for _, c := range b.children {
			col := "#6b7280"
			if c.link.Degraded() {
				col = "#dc2626"
			}
			p("  %s -> %s [label=%s, penwidth=%.1f, color=%s, fontsize=9];\n", dotQuote(b.id), dotQuote(c.id),
				dotQuote(linkText(c.link)), strokeW(c.link), dotQuote(col))
		}
	}
	for _, b := range pic.ends {
		if b.best == nil {
			continue
		}
		p("  %s -> %s [style=dashed, constraint=false, arrowhead=normal, color=%s, fontcolor=\"#111827\", penwidth=2, xlabel=%s];\n",
			dotQuote(b.id), dotQuote("dev:"+b.best.B.BDF()), dotQuote(darker(fillOf(b.best.SMI))), dotQuote(string(b.best.SMI)))
	}
	p("  subgraph cluster_legend {\n    label=\"Legend\"; style=rounded; color=\"#9ca3af\";\n")
	for _, k := range []string{boxHost, boxSwitch, boxGPU, boxNIC} {
		p("    %s [label=%s, fillcolor=%s, color=%s];\n", dotQuote("legend:"+k), dotQuote(boxName[k]), dotQuote(boxFill[k]), dotQuote(boxStroke[k]))
	}
	var lines []string
	for _, l := range []topology.Label{topology.PIX, topology.PXB, topology.PHB, topology.NODE, topology.SYS} {
		lines = append(lines, string(l)+": "+labelMeaning[l])
	}
	p("    %s [shape=note, fillcolor=\"#ffffff\", label=%s];\n", dotQuote("legend:labels"),
		dotQuote("dashed arrow: accelerator's best NIC, with nvidia-smi's label\nedge width: link width; red: trained below its maximum\n"+strings.Join(lines, "\n")))
	p("  }\n}\n")
	return bw.Flush()
}

// darker turns a label's fill into an edge colour that shows on white.
func darker(fill string) string {
	switch fill {
	case "#86efac":
		return "#16a34a"
	case "#d9f99d":
		return "#65a30d"
	case "#fde68a":
		return "#ca8a04"
	case "#fdba74":
		return "#ea580c"
	case "#fca5a5":
		return "#dc2626"
	}
	return "#2563eb"
}
