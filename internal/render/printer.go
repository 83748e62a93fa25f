package render

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/gdtopo/gdtopo/internal/termsafe"
)

// Printer writes tables and headings in one format.
type Printer struct {
	w     io.Writer
	f     Format
	style Style
}

// NewPrinter returns a Printer writing to w in format f (Table or Markdown),
// laid out as style says (the first given; none: no width limit, no colour).
func NewPrinter(w io.Writer, f Format, style ...Style) *Printer {
	p := &Printer{w: w, f: f}
	if len(style) > 0 {
		p.style = style[0]
	}
	if f == Markdown {
		// a document, reflowed by whoever shows it, with everything in it
		p.style = Style{Verbose: true}
	}
	return p
}

// Format is the printer's format.
func (p *Printer) Format() Format { return p.f }

// Printf writes free text between tables. Text in the arguments (strings,
// errors, Stringers) is escaped with termsafe.Block: it may hold names from
// the input, which must not reach a terminal as control sequences.
func (p *Printer) Printf(format string, a ...any) {
	safe := make([]any, len(a))
	for i, v := range a {
		switch v := v.(type) {
		case string:
			safe[i] = p.safe(v, true)
		case error:
			safe[i] = p.safe(v.Error(), true)
		case fmt.Stringer:
			safe[i] = p.safe(v.String(), true)
		default:
			safe[i] = v
		}
	}
	fmt.Fprintf(p.w, format, safe...)
}

// safe is s cut to maxCell characters and escaped for the printer's
// reader: termsafe.Text (termsafe.Block when block) for a terminal, and in
// markdown '<', '>' and '`' too, so that no name from an input becomes HTML
// or ends a code span in a renderer.
func (p *Printer) safe(s string, block bool) string {
	if block {
		s = termsafe.Block(cutLong(s))
	} else {
		s = termsafe.Text(cutLong(s))
	}
	if p.f == Markdown {
		s = markdownText(s)
	}
	return s
}

// markdownText escapes what markdown reads as HTML or a code span's end in
// running text.
var markdownText = strings.NewReplacer("<", "&lt;", ">", "&gt;", "`", "'").Replace

// safeCells returns row with every cell cut to maxCell characters and
// escaped with termsafe.Text.
func safeCells(row []string) []string {
	out := make([]string, len(row))
	for i, c := range row {
		out[i] = termsafe.Text(cutLong(c))
	}
	return out
}

// Table writes one table: borderless, left-aligned columns for text, a pipe
// table for markdown. Headers are printed as given.
func (p *Printer) Table(header []string, rows [][]string) error {
	safe := make([][]string, len(rows))
	for i, r := range rows {
		safe[i] = safeCells(r)
	}
	header, safe = fitColumns(safeCells(header), safe, p.style.Width)
	return p.draw(header, safe)
}

// draw writes one table of cells already escaped and laid out; no header
// when header is nil.
func (p *Printer) draw(header []string, rows [][]string) error {
	var b bytes.Buffer
	if p.f == Markdown {
		markdownGrid(&b, header, rows)
	} else {
		plainGrid(&b, header, rows)
	}
	_, err := p.w.Write(b.Bytes())
	return err
}

// Heading writes a section title: "## title" in markdown, the plain title
// otherwise.
func (p *Printer) Heading(title string) {
	if p.f == Markdown {
		fmt.Fprintf(p.w, "\n## %s\n\n", p.safe(title, false))
		return
	}
	fmt.Fprintln(p.w)
	for _, l := range wrapText(termsafe.Text(title), p.style.Width, "", "  ") {
		fmt.Fprintln(p.w, l)
	}
}

// Lines writes text wrapped to the printer's width: the first line after
// first, the others after rest.
// The text is escaped with termsafe.Text (it may hold names from the input).
func (p *Printer) Lines(text, first, rest string) {
	p.SeverityLines("", text, first, rest)
}

// Parts writes parts two spaces apart, as many on a line as the printer's
// width holds (a part too long for a line of its own wraps at its spaces),
// the first line after first, the others after rest. Each part is escaped
// with termsafe.Text.
func (p *Printer) Parts(parts []string, first, rest string) {
	line, prefix := "", first
	for _, part := range parts {
		part = p.safe(part, false)
		if line != "" {
			if p.style.Width <= 0 || textWidth(prefix+line)+columnGap+textWidth(part) <= p.style.Width {
				line += strings.Repeat(" ", columnGap) + part
				continue
			}
			fmt.Fprintln(p.w, prefix+line)
			prefix = rest
		}
		wrapped := wrapText(part, p.style.Width, prefix, rest)
		for _, l := range wrapped[:len(wrapped)-1] {
			fmt.Fprintln(p.w, l)
		}
		if len(wrapped) > 1 {
			prefix = rest
		}
		line = strings.TrimPrefix(wrapped[len(wrapped)-1], prefix)
	}
	fmt.Fprintln(p.w, prefix+line)
}

// SeverityLines writes a line that opens with a severity word (critical,
// warning, info) as Lines does, the word upper-cased and, when the style
// has colour, in its colour.
func (p *Printer) SeverityLines(severity, text, first, rest string) {
	word := strings.ToUpper(severity)
	for i, l := range wrapText(word+p.safe(text, false), p.style.Width, first, rest) {
		if c := severityColor(severity); i == 0 && c != "" && p.style.Color {
			l = strings.Replace(l, word, c+word+ansiReset, 1)
		}
		fmt.Fprintln(p.w, l)
	}
}

// tabStops writes rows as nvidia-smi writes its matrix: cells separated by
// tabs (a cell may hold a tab of its own), shown as a terminal shows them,
// at tab stops every eight columns, the first row the header. "X" is
// written " X ". A table wider than the printer's width is folded: the
// first column, then as many of the others as fit, in blocks one under
// another.
func (p *Printer) tabStops(header []string, rows [][]string) {
	const stop = 8
	all := append([][]string{header}, rows...)
	ncol := len(header)
	widths := make([]int, ncol)
	for _, r := range all {
		for i, c := range r {
			if c == "X" {
				r[i] = " X "
			}
			w := tabbedWidth(r[i], stop)
			widths[i] = max(widths[i], w+stop-w%stop) // and the tab after it
		}
	}
	var blocks [][]int // the columns of each block, less the first
	cur, used := []int{}, widths[0]
	for i := 1; i < ncol; i++ {
		if p.style.Width > 0 && len(cur) > 0 && used+widths[i] > p.style.Width+1 {
			blocks = append(blocks, cur)
			cur, used = nil, widths[0]
		}
		cur = append(cur, i)
		used += widths[i]
	}
	blocks = append(blocks, cur)
	for b, cols := range blocks {
		if b > 0 {
			fmt.Fprintln(p.w)
		}
		for _, r := range all {
			if len(r) <= cols[0] && len(r) > 1 && b > 0 {
				continue // nothing of this row in this block (a NIC's affinity)
			}
			cells := make([]string, 1, 1+len(cols))
			cells[0] = termsafe.Text(r[0])
			for _, i := range cols {
				switch {
				case i >= len(r):
				case !strings.Contains(r[i], "\t"):
					cells = append(cells, termsafe.Text(r[i]))
				default:
					parts := strings.Split(r[i], "\t") // a tab of the layout's own
					for j := range parts {
						parts[j] = termsafe.Text(parts[j])
					}
					cells = append(cells, strings.Join(parts, "\t"))
				}
			}
			fmt.Fprintln(p.w, strings.TrimRight(expandTabs(strings.Join(cells, "\t"), 0, stop), " \t"))
		}
	}
}

// tabbedWidth is textWidth(expandTabs(s, 0, stop)), without making the
// string.
func tabbedWidth(s string, stop int) int {
	col := 0
	for _, r := range s {
		if r == '\t' {
			col += stop - col%stop
		} else {
			col++
		}
	}
	return col
}

// expandTabs replaces the tabs in s, which starts at column col, with the
// spaces to the next multiple of stop, as a terminal shows them.
func expandTabs(s string, col, stop int) string {
	const spaces = "                " // one tab's worth, for stops up to 16
	var b strings.Builder
	b.Grow(len(s) + stop*strings.Count(s, "\t"))
	for _, r := range s {
		if r == '\t' {
			n := stop - col%stop
			if n <= len(spaces) {
				b.WriteString(spaces[:n])
			} else {
				b.WriteString(strings.Repeat(" ", n))
			}
			col += n
			continue
		}
		b.WriteRune(r)
		col++
	}
	return b.String()
}

// pad is s followed by spaces to width columns.
func pad(s string, width int) string {
	return s + strings.Repeat(" ", max(0, width-textWidth(s)))
}

// KeyValues writes rows of a name and its value, the names in a column,
// without a header: the values wrap to the printer's width.
func (p *Printer) KeyValues(rows [][]string) error {
	name := 0
	for _, r := range rows {
		name = max(name, textWidth(r[0]))
	}
	for _, r := range rows {
		p.Lines(r[1], pad(r[0], name+columnGap), strings.Repeat(" ", name+columnGap))
	}
	return nil
}
