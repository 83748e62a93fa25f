package render

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gdtopo/gdtopo/internal/report"
	"github.com/gdtopo/gdtopo/internal/termsafe"
	"github.com/gdtopo/gdtopo/internal/words"
)

// minCompareColumn is the narrowest a server's column is wrapped to before
// compare stacks the servers under each measure instead.
const minCompareColumn = 12

// compareTables writes gdtopo compare: the servers side by side and the
// verdict, in width columns (0: no limit). Side by side when the servers
// fit, their columns headed by the source names, or, when those are too
// long, by short names (the sources' last path elements, or A, B, C) that
// a legend spells out; cells wrap at spaces, never inside a word. When even
// that does not fit (many servers, a narrow terminal), each measure lists
// the servers one under another. Markdown is a document: its cells do not
// wrap, and only its header is shortened to fit.
func compareTables(p *Printer, c *report.Comparison, width int) error {
	if p.Format() == Markdown {
		p.Printf("# gdtopo compare\n")
	}
	names, rows := compareRows(c)
	sources := make([]string, len(c.Servers))
	for i, s := range c.Servers {
		sources[i] = termsafe.Text(s.Source)
	}
	for _, r := range rows {
		copy(r, safeCells(r))
	}
	p.Heading("Servers")
	labels, widths := sideBySide(names, rows, sources, width, p.Format() == Markdown)
	if widths == nil { // stacked: a line per measure and server
		labels = shortLabels(sources, width/4)
		serverLegend(p, labels, sources)
		var body [][]string
		for m, name := range names {
			for i := range sources {
				first := ""
				if i == 0 {
					first = name
				}
				body = append(body, []string{first, labels[i], rows[m][i]})
			}
		}
		_, body = fitColumns([]string{"", "", ""}, body, width)
		if err := p.draw(nil, body); err != nil {
			return err
		}
	} else {
		serverLegend(p, labels, sources)
		body := make([][]string, len(names))
		for m, name := range names {
			body[m] = []string{name}
			for i, cell := range rows[m] {
				if p.Format() != Markdown && textWidth(cell) > widths[i] {
					cell = strings.Join(wrapText(cell, widths[i], "", ""), "\n")
				}
				body[m] = append(body[m], cell)
			}
		}
		if err := p.draw(append([]string{""}, labels...), body); err != nil {
			return err
		}
	}
	p.Heading("Verdict")
	p.Lines(c.Verdict.Sentence, "", "") // one line in markdown
	return nil
}

// compareRows are the measures compare shows and, for each, every
// server's value.
func compareRows(c *report.Comparison) ([]string, [][]string) {
	var names []string
	var rows [][]string
	row := func(name string, cell func(s report.Server) string) {
		var out []string
		for _, s := range c.Servers {
			out = append(out, cell(s))
		}
		names, rows = append(names, name), append(rows, out)
	}
	row("Format", func(s report.Server) string { return s.Format })
	row("CPU", func(s report.Server) string { return s.CPU })
	row("NUMA nodes", func(s report.Server) string {
		if s.NUMANodes == 0 {
			return "unknown" // no source holds a machine without one
		}
		return strconv.Itoa(s.NUMANodes)
	})
	row("Accelerators", func(s report.Server) string { return s.Accelerators })
	row("NICs (RDMA)", func(s report.Server) string { return s.NICs })
	row("PCIe switches", func(s report.Server) string { return s.PCIeSwitches })
	row("Pairs by label", func(s report.Server) string { return labelCounts(s.PairsByLabel) })
	row("Plan: GPUDirect RDMA", func(s report.Server) string {
		text := fmt.Sprintf("%d of %d accelerators", s.Measures.GDRAccelerators, s.Measures.Accelerators)
		if s.Measures.GDRUndecided > 0 {
			text += fmt.Sprintf(" (undecided for %d)", s.Measures.GDRUndecided)
		}
		return text
	})
	row("Plan: worst pair", func(s report.Server) string {
		text := words.GbpsAtMost(s.Measures.WorstGbps, s.Measures.AtMost)
		if s.Measures.WorstStaged && s.Measures.WorstGbps > 0 {
			text += " host-staged"
		}
		return text
	})
	row("Plan: mean", func(s report.Server) string { return words.GbpsAtMost(s.Measures.MeanGbps, s.Measures.AtMost) })
	row("Findings", func(s report.Server) string {
		return fmt.Sprintf("%d critical, %d warning, %d info", s.Measures.Critical, s.Measures.Warning, s.Measures.Info)
	})
	row("Finding codes", func(s report.Server) string { return strings.Join(s.FindingCodes, ", ") })
	row("Not shown", func(s report.Server) string {
		if len(s.Measures.Unseen) == 0 {
			return "nothing" // as check's "Source lacks nothing"
		}
		return strings.Join(s.Measures.Unseen, ", ")
	})
	row("Rank", func(s report.Server) string { return strconv.Itoa(s.Rank) })
	return names, rows
}

// sideBySide chooses the header of the side-by-side table and each
// server column's width: the sources themselves when the table fits as it
// is, else the sources or, failing them, short labels, with which every
// column holds its longest word. nil widths: the servers do not fit side by side. Markdown only
// shortens the header: its cells do not wrap.
func sideBySide(names []string, rows [][]string, sources []string, width int, markdown bool) ([]string, []int) {
	n := len(sources)
	natural := make([]int, n) // widest cell
	longest := make([]int, n) // longest word
	for _, r := range rows {
		for i, cell := range r {
			natural[i] = max(natural[i], textWidth(cell))
			for _, w := range strings.Fields(cell) {
				longest[i] = max(longest[i], textWidth(w))
			}
		}
	}
	first := 0
	for _, name := range names {
		first = max(first, textWidth(name))
	}
	total := func(ws []int) int {
		t := first
		for _, w := range ws {
			t += columnGap + w
		}
		return t
	}
	withHeader := func(labels []string, ws []int) []int {
		out := make([]int, n)
		for i := range ws {
			out[i] = max(ws[i], textWidth(labels[i]))
		}
		return out
	}
	if width <= 0 || total(withHeader(sources, natural)) <= width {
		return sources, withHeader(sources, natural)
	}
	if markdown {
		labels := shortLabels(sources, 0)
		return labels, withHeader(labels, natural)
	}
	room := (width-first)/n - columnGap
	floor := make([]int, n)
	for i := range floor {
		floor[i] = max(longest[i], min(natural[i], minCompareColumn))
	}
	for _, labels := range [][]string{sources, shortLabels(sources, room)} {
		least := withHeader(labels, floor)
		if total(least) > width {
			continue
		}
		// give each column what it needs, the widest giving way first
		ws := withHeader(labels, natural)
		for total(ws) > width {
			widest := -1
			for i, w := range ws {
				if w > least[i] && (widest < 0 || w > ws[widest]) {
					widest = i
				}
			}
			ws[widest]-- // total(least) <= width: some column is above its floor
		}
		return labels, ws
	}
	return shortLabels(sources, room), nil
}

// shortLabels names each source in a table's header: its last path
// element when those are distinct and at most room columns (0: any
// length), else A, B, C, ...
func shortLabels(sources []string, room int) []string {
	labels := make([]string, len(sources))
	seen := map[string]bool{}
	distinct := true
	for i, s := range sources {
		labels[i] = filepath.Base(strings.TrimRight(s, "/"))
		if seen[labels[i]] || labels[i] == "" || labels[i] == "." || room > 0 && textWidth(labels[i]) > room {
			distinct = false
		}
		seen[labels[i]] = true
	}
	if distinct {
		return labels
	}
	for i := range labels {
		labels[i] = letterLabel(i)
	}
	return labels
}

// letterLabel is A for 0, B for 1, ..., Z, then S27, S28, ...
func letterLabel(i int) string {
	if i < 26 {
		return string(rune('A' + i))
	}
	return "S" + strconv.Itoa(i+1)
}

// serverLegend spells out the sources behind shortened labels, one a line:
// nothing when every label is its source.
func serverLegend(p *Printer, labels, sources []string) {
	same := true
	for i := range labels {
		same = same && labels[i] == sources[i]
	}
	if same {
		return
	}
	name := 0
	for _, l := range labels {
		name = max(name, textWidth(l))
	}
	for i, l := range labels {
		if p.Format() == Markdown {
			p.Printf("- **%s**: %s\n", l, sources[i])
			continue
		}
		p.Lines(sources[i], pad(l, name+columnGap), strings.Repeat(" ", name+columnGap))
	}
	p.Printf("\n")
}
