package render

import (
	"bytes"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/pkg/twcache"
	"github.com/olekukonko/tablewriter/pkg/twwidth"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/gdtopo/gdtopo/internal/termsafe"
)

// Printer writes tables and headings in one format. It makes one
// tablewriter table, when it draws its first, and resets it between
// tables: a new tablewriter table sets up its caches and configuration
// afresh, which a short-lived command pays for each table, and a printer
// that draws no table (gdtopo tree) makes none.
type Printer struct {
	w     *countingWriter
	f     Format
	style Style
	buf   bytes.Buffer
	t     *tablewriter.Table // nil until the first table
}

// widthCacheOff turns tablewriter's process-wide width cache off once.
var widthCacheOff sync.Once

// NewPrinter returns a Printer writing to w in format f (Table or Markdown),
// laid out as style says (the first given; none: no width limit, no colour).
func NewPrinter(w io.Writer, f Format, style ...Style) *Printer {
	p := &Printer{w: &countingWriter{w: w}, f: f}
	if len(style) > 0 {
		p.style = style[0]
	}
	if f == Markdown {
		// a document, reflowed by whoever shows it, with everything in it
		p.style = Style{Verbose: true}
	}
	return p
}

// table returns the printer's tablewriter table, made on first use.
func (p *Printer) table() *tablewriter.Table {
	if p.t != nil {
		p.t.Reset()
		return p.t
	}
	// tablewriter memoizes every cell's display width in a process-wide
	// LRU cache behind a mutex; for gdtopo's short ASCII cells the lookup
	// costs more than the width (a table renders in about two thirds of
	// the time without it), and every cell of a fresh process adds an
	// entry. Capacity 0 turns the cache off. The setting is the
	// library's, for the whole process: set once, as tables drawn at the
	// same time (the tests run commands in parallel) would race on it.
	widthCacheOff.Do(func() { twwidth.SetCacheCapacity(0) })
	var r tw.Renderer
	if p.f == Markdown {
		r = renderer.NewMarkdown()
	} else {
		r = &plainLines{Blueprint: renderer.NewBlueprint(tw.Rendition{
			Borders: tw.BorderNone,
			Symbols: tw.NewSymbols(tw.StyleASCII),
			Settings: tw.Settings{
				Separators: tw.Separators{BetweenColumns: tw.Off, BetweenRows: tw.Off},
				Lines:      tw.Lines{ShowHeaderLine: tw.On},
			},
		})}
	}
	p.t = tablewriter.NewTable(&p.buf,
		tablewriter.WithRenderer(r),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAlignment(tw.AlignLeft),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
		tablewriter.WithHeaderAutoWrap(tw.WrapNone),
		tablewriter.WithTrimSpace(tw.On),
		// Reset purges the stringer cache by allocating it anew at its
		// default size; gdtopo passes strings only, so a tiny one will do.
		tablewriter.WithStringerCacheCustom(twcache.NewLRU[reflect.Type, reflect.Value](1)),
	)
	return p.t
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
// table for markdown. Headers are printed as given. A table too wide for
// the printer's width wraps its cells at spaces, never inside a word (see
// FitTable).
func (p *Printer) Table(header []string, rows [][]string) error {
	return p.FitTable(header, rows, nil)
}

// FitTable writes a table as Table does; where it does not fit the
// printer's width with no word split, it shortens PCI addresses of
// domain 0000 as lspci does (0000:1a:00.0 to 1a:00.0), then leaves out
// the columns named in optional, in that order (a line under the table
// names them), and as a last resort stacks each row as lines of header
// and value.
func (p *Printer) FitTable(header []string, rows [][]string, optional []string) error {
	safe := make([][]string, len(rows))
	for i, r := range rows {
		safe[i] = safeCells(r)
	}
	header = safeCells(header)
	width := p.style.Width
	if p.f == Markdown || width <= 0 || wordsFit(header, safe, width) {
		header, safe = fitColumns(header, safe, width)
		return p.draw(header, safe)
	}
	header, safe = shortAddresses(header), shortAddressRows(safe)
	var left []string
	for _, name := range optional {
		if wordsFit(header, safe, width) {
			break
		}
		if i := slices.Index(header, name); i >= 0 {
			header, safe = dropColumn(header, safe, i)
			left = append(left, name)
		}
	}
	if !wordsFit(header, safe, width) {
		return p.stacked(header, safe)
	}
	header, safe = fitColumns(header, safe, width)
	if err := p.draw(header, safe); err != nil {
		return err
	}
	if len(left) > 0 {
		p.Lines(fmt.Sprintf("Left out to fit %d columns: %s (a wider terminal, or -o json, shows them)", width, strings.Join(left, ", ")), "", "  ")
	}
	return nil
}

// stacked writes each row as lines of its header and value, a blank line
// between rows: the layout of a table whose words do not fit side by side.
func (p *Printer) stacked(header []string, rows [][]string) error {
	for i, r := range rows {
		if i > 0 {
			fmt.Fprintln(p.w)
		}
		kv := make([][]string, 0, len(r))
		for j, cell := range r {
			name := ""
			if j < len(header) {
				name = header[j]
			}
			kv = append(kv, []string{name, strings.Join(strings.Fields(cell), " ")})
		}
		if err := p.KeyValues(kv); err != nil {
			return err
		}
	}
	return nil
}

// draw writes one table of cells already escaped and laid out; no header
// when header is nil.
func (p *Printer) draw(header []string, rows [][]string) error {
	p.buf.Reset()
	t := p.table()
	if p.f == Markdown {
		header, rows = markdownCells(header), markdownRows(rows)
	}
	if header != nil {
		t.Header(header)
	}
	if err := t.Bulk(rows); err != nil {
		return err
	}
	if err := t.Render(); err != nil {
		return err
	}
	if p.f == Markdown {
		_, err := p.w.Write(p.buf.Bytes())
		return err
	}
	// The borderless preset pads every line with a space on both sides and
	// draws the header rule across the padding: trim both.
	lines := strings.Split(strings.TrimRight(p.buf.String(), "\n"), "\n")
	width := 0
	for i, l := range lines {
		lines[i] = strings.TrimRight(strings.TrimPrefix(l, " "), " ")
		if strings.Trim(lines[i], "-") != "" && textWidth(lines[i]) > width {
			width = textWidth(lines[i])
		}
	}
	for i, l := range lines {
		if l != "" && strings.Trim(l, "-") == "" {
			lines[i] = strings.Repeat("-", width)
		}
	}
	_, err := io.WriteString(p.w, strings.Join(lines, "\n")+"\n")
	return err
}

// Heading writes a section title: "## title" in markdown, the plain title
// otherwise.
func (p *Printer) Heading(title string) {
	if p.f == Markdown {
		fmt.Fprintf(p.w, "\n## %s\n\n", p.safe(title, false))
		return
	}
	if p.w.n > 0 { // a blank line between sections, none before the first
		fmt.Fprintln(p.w)
	}
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
// tabs (a cell may hold a tab of its own), the first row the header. "X"
// is written " X ". With raw the tabs are written as nvidia-smi writes
// them (cut -f splits both alike) and nothing is folded; else they are
// shown as a terminal shows them, at tab stops every eight columns, and a
// table wider than the printer's width is folded: the first column, then
// as many of the others as fit, in blocks one under another.
func (p *Printer) tabStops(header []string, rows [][]string, raw bool) {
	const stop = 8
	all := append([][]string{header}, rows...)
	if raw {
		for _, r := range all {
			cells := make([]string, len(r))
			for i, c := range r {
				if c == "X" {
					c = " X "
				}
				parts := strings.Split(c, "\t") // a tab of the layout's own
				for j := range parts {
					parts[j] = termsafe.Text(parts[j])
				}
				cells[i] = strings.Join(parts, "\t")
			}
			fmt.Fprintln(p.w, strings.TrimRight(strings.Join(cells, "\t"), " "))
		}
		return
	}
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

// plainLines draws -o table's tables: tablewriter's Blueprint renderer,
// configured as the table asks, with the lines of header and rows written
// here. The Blueprint formats a line cell by cell through builders, logging
// calls and width look-ups (about half of a table's time and allocations
// in BenchmarkTable); a line of left-aligned cells without merges, as
// gdtopo's are, is each cell's padding, its text and spaces to the column's
// width. A line with anything else (another alignment, a merge, a cell
// wider than its column) is left to the Blueprint.
type plainLines struct {
	*renderer.Blueprint
	w    io.Writer
	line []byte
}

// Start keeps the writer the lines go to.
func (r *plainLines) Start(w io.Writer) error {
	r.w = w
	return r.Blueprint.Start(w)
}

// Header writes a header line.
func (r *plainLines) Header(headers [][]string, ctx tw.Formatting) {
	if !r.write(ctx) {
		r.Blueprint.Header(headers, ctx)
	}
}

// Row writes a row's line.
func (r *plainLines) Row(row []string, ctx tw.Formatting) {
	if !r.write(ctx) {
		r.Blueprint.Row(row, ctx)
	}
}

// write writes the line ctx holds as the Blueprint would, and reports
// whether it could.
func (r *plainLines) write(ctx tw.Formatting) bool {
	keys := ctx.Row.Widths.SortedKeys()
	if len(keys) == 0 {
		return false
	}
	b := r.line[:0]
	for col := 0; col <= keys[len(keys)-1]; col++ {
		width := ctx.Row.Widths.Get(col)
		cell, ok := ctx.Row.Current[col]
		switch {
		case ok && (cell.Merge.Horizontal.Present || cell.Merge.Vertical.Present || cell.Merge.Hierarchical.Present):
			return false
		case width <= 0:
			continue
		case !ok:
			b = appendSpaces(b, width)
			continue
		case cell.Align != tw.AlignLeft:
			return false
		}
		left, right := twwidth.Width(cell.Padding.Left), twwidth.Width(cell.Padding.Right)
		text := twwidth.Width(cell.Data)
		if text > max(width-left-right, 0) {
			return false // the Blueprint truncates
		}
		b = append(b, cell.Padding.Left...)
		b = append(b, cell.Data...)
		if fill := max(width-text, 0) - left; fill > 0 {
			if pad := cell.Padding.Right; pad != "" && pad != " " {
				b = append(b, tw.PadRight("", pad, fill)...)
			} else {
				b = appendSpaces(b, fill)
			}
		}
	}
	b = append(b, '\n')
	r.line = b
	_, _ = r.w.Write(b) // the printer's buffer
	return true
}

// appendSpaces appends n spaces to b.
func appendSpaces(b []byte, n int) []byte {
	for range n {
		b = append(b, ' ')
	}
	return b
}

// countingWriter counts the bytes written through it: a printer's first
// heading opens its output, with no blank line above it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n += int64(n)
	return n, err
}
