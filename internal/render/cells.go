package render

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxCell is how many characters of one value (a table cell, a line of
// text) are shown; the rest is cut with a mark saying how much. A value
// from an input (a 60 MB attribute) must not become a 60 MB line, nor a
// table's every row be padded to it. -o json holds values whole.
const maxCell = 2048

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

// markdownCell escapes what markdown would read in a table cell: '|' ends
// the cell, '<' and '>' start HTML, '\' escapes what follows it.
var markdownCell = strings.NewReplacer(`\`, `\\`, "|", `\|`, "<", "&lt;", ">", "&gt;").Replace

// markdownCells is cells escaped with markdownCell; nil stays nil (no
// header).
func markdownCells(cells []string) []string {
	if cells == nil {
		return nil
	}
	out := make([]string, len(cells))
	for i, c := range cells {
		out[i] = markdownCell(c)
	}
	return out
}

// markdownRows is every row escaped with markdownCells.
func markdownRows(rows [][]string) [][]string {
	out := make([][]string, len(rows))
	for i, r := range rows {
		out[i] = markdownCells(r)
	}
	return out
}
