package render

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxCell is how many characters of one value (a table cell, a line of
// text) are shown; the rest is cut with a mark saying how much. A value
// from an input (a 60 MB attribute) must not become a 60 MB line, and a
// table's every row must not be padded to it. -o json holds values whole.
const maxCell = 2048

// padCap is the widest cell a column is padded to: a cell wider than this
// is written as it is and widens nothing, so one outlier never pads every
// row of its table.
const padCap = 512

// cutLong is s cut to maxCell characters, with a mark saying how many more
// there were.
func cutLong(s string) string {
	if len(s) <= maxCell || utf8.RuneCountInString(s) <= maxCell {
		return s
	}
	i, n := 0, 0
	for n < maxCell {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		n++
	}
	return s[:i] + " [cut: " + strconv.Itoa(utf8.RuneCountInString(s[i:])) + " more characters; -o json holds them]"
}

// gridWidths are the columns' widths: each the widest cell line of its
// column up to padCap (wider ones do not count).
func gridWidths(header []string, rows [][]string) []int {
	var widths []int
	measure := func(r []string) {
		for i, c := range r {
			if i >= len(widths) {
				widths = append(widths, 0)
			}
			for _, l := range strings.Split(c, "\n") {
				if w := textWidth(l); w <= padCap {
					widths[i] = max(widths[i], w)
				}
			}
		}
	}
	measure(header)
	for _, r := range rows {
		measure(r)
	}
	return widths
}

// plainGrid writes -o table's tables: left-aligned columns columnGap apart,
// a rule of dashes under the header as wide as the widest line (up to the
// columns' padded widths), trailing spaces trimmed. A cell of several lines
// takes as many lines of its row.
func plainGrid(b *bytes.Buffer, header []string, rows [][]string) {
	widths := gridWidths(header, rows)
	for i := range header {
		header[i] = strings.TrimSpace(header[i])
	}
	var lines []string
	row := func(r []string) {
		cells := make([][]string, len(widths))
		height := 1
		for i := range widths {
			if i < len(r) {
				cells[i] = strings.Split(strings.TrimSpace(r[i]), "\n")
				height = max(height, len(cells[i]))
			}
		}
		for l := range height {
			var line strings.Builder
			for i, w := range widths {
				part := ""
				if l < len(cells[i]) {
					part = cells[i][l]
				}
				line.WriteString(part)
				if i < len(widths)-1 {
					line.WriteString(strings.Repeat(" ", max(0, w-textWidth(part))+columnGap))
				}
			}
			lines = append(lines, strings.TrimRight(line.String(), " "))
		}
	}
	rule := -1
	if header != nil {
		row(header)
		rule = len(lines)
		lines = append(lines, "")
	}
	for _, r := range rows {
		row(r)
	}
	if rule >= 0 {
		most := columnGap * max(0, len(widths)-1)
		for _, w := range widths {
			most += w
		}
		width := 0
		for _, l := range lines {
			width = max(width, textWidth(l))
		}
		lines[rule] = strings.Repeat("-", min(width, most))
	}
	for _, l := range lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
}

// markdownGrid writes a pipe table: cells padded to their column's width
// (up to padCap), '|' escaped so that it cannot end a cell, and '<' and '>'
// as entities so that no text from an input becomes HTML in a renderer.
// Without a header, the rows alone.
func markdownGrid(b *bytes.Buffer, header []string, rows [][]string) {
	esc := func(r []string) []string {
		out := make([]string, len(r))
		for i, c := range r {
			out[i] = markdownCell(strings.TrimSpace(c))
		}
		return out
	}
	if header != nil {
		header = esc(header)
	}
	safe := make([][]string, len(rows))
	for i, r := range rows {
		safe[i] = esc(r)
	}
	widths := gridWidths(header, safe)
	row := func(r []string) {
		b.WriteByte('|')
		for i, w := range widths {
			c := ""
			if i < len(r) {
				c = r[i]
			}
			b.WriteByte(' ')
			b.WriteString(c)
			b.WriteString(strings.Repeat(" ", max(0, w-textWidth(c))))
			b.WriteString(" |")
		}
		b.WriteByte('\n')
	}
	if header != nil {
		row(header)
		b.WriteByte('|')
		for _, w := range widths {
			b.WriteByte(':')
			b.WriteString(strings.Repeat("-", w+1))
			b.WriteByte('|')
		}
		b.WriteByte('\n')
	}
	for _, r := range safe {
		row(r)
	}
}

// markdownCell escapes what markdown would read in a table cell: '|' ends
// the cell, '<' and '>' start HTML, '\' escapes what follows it.
var markdownCell = strings.NewReplacer(`\`, `\\`, "|", `\|`, "<", "&lt;", ">", "&gt;").Replace
