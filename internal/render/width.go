package render

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Style is how text output is laid out for its reader.
type Style struct {
	// Width is the number of columns to fit lines in; 0 is no limit (not
	// a terminal, and no COLUMNS).
	Width int
	// Color marks severities with ANSI colours: only on a terminal, and
	// never with NO_COLOR set (the command line decides).
	Color bool
	// Verbose shows everything: check's full pair table, every note, each
	// finding's evidence and remedy, each rank's settings, the legend.
	Verbose bool
}

// textWidth is how many columns s takes: one a rune (gdtopo's text is
// ASCII but for a few dashes and box-drawing characters).
func textWidth(s string) int { return utf8.RuneCountInString(s) }

// wrapText breaks s into lines of at most width columns at spaces (a word
// longer than a line is cut), the first line prefixed with first and the
// rest with rest; within a line, words keep the spaces between them (two
// that align columns stay two). width 0 is no limit.
func wrapText(s string, width int, first, rest string) []string {
	if width <= 0 {
		return []string{first + s}
	}
	var out []string
	line, prefix := "", first
	flush := func() {
		out = append(out, prefix+line)
		line, prefix = "", rest
	}
	for _, w := range spacedWords(s) {
		word := w.word
		room := max(1, width-textWidth(prefix))
		for textWidth(word) > room {
			if line != "" {
				flush()
				room = max(1, width-textWidth(prefix))
			}
			r := []rune(word)
			line, word = string(r[:room]), string(r[room:])
			flush()
			room = max(1, width-textWidth(prefix))
		}
		switch {
		case line == "":
			line = word
		case textWidth(line)+textWidth(w.space)+textWidth(word) <= room:
			line += w.space + word
		default:
			flush()
			line = word
		}
	}
	if line != "" || len(out) == 0 {
		flush()
	}
	return out
}

// spacedWord is a word and the spaces before it ("" for the first).
type spacedWord struct{ space, word string }

// spacedWords splits s at whitespace as strings.Fields does, keeping the
// run of spaces before each word; a run holding other whitespace is one
// space.
func spacedWords(s string) []spacedWord {
	var out []spacedWord
	space := ""
	for len(s) > 0 {
		i := strings.IndexFunc(s, unicode.IsSpace)
		if i < 0 {
			i = len(s)
		}
		if i > 0 {
			if len(out) == 0 {
				space = ""
			}
			out = append(out, spacedWord{space, s[:i]})
		}
		s = s[i:]
		j := strings.IndexFunc(s, func(r rune) bool { return !unicode.IsSpace(r) })
		if j < 0 {
			break
		}
		space = s[:j]
		if strings.Trim(space, " ") != "" {
			space = " "
		}
		s = s[j:]
	}
	return out
}

// WrapLines wraps each line of text longer than width columns at its
// spaces, the continuation lines indented as the line was plus two
// columns; width 0 is no limit.
func WrapLines(text string, width int) string {
	if width <= 0 {
		return text
	}
	lines := strings.Split(text, "\n")
	var out []string
	for _, l := range lines {
		if textWidth(l) <= width {
			out = append(out, l)
			continue
		}
		body := strings.TrimLeft(l, " ")
		indent := l[:len(l)-len(body)]
		out = append(out, wrapText(body, width, indent, indent+"  ")...)
	}
	return strings.Join(out, "\n")
}

// columnGap is the space between a table's columns.
const columnGap = 2

// fitColumns wraps the cells of a table so that it is at most width
// columns wide: the widest column gives way first, down to its longest
// word, and only when that is not enough further, down to minColumn (or
// its header's longest word); headers wrap too. Cells keep their line
// breaks.
func fitColumns(header []string, rows [][]string, width int) ([]string, [][]string) {
	const minColumn = 4
	n := len(header)
	if width <= 0 || n == 0 {
		return header, rows
	}
	natural := make([]int, n)
	floor := make([]int, n)
	word := make([]int, n) // the longest word, header or cell
	for i, h := range header {
		natural[i], floor[i] = textWidth(h), minColumn
		for _, w := range strings.Fields(h) {
			floor[i] = max(floor[i], textWidth(w))
		}
		word[i] = floor[i]
	}
	for _, r := range rows {
		for i := 0; i < n && i < len(r); i++ {
			for _, l := range strings.Split(r[i], "\n") {
				natural[i] = max(natural[i], textWidth(l))
			}
			for _, w := range strings.Fields(r[i]) {
				word[i] = max(word[i], textWidth(w))
			}
		}
	}
	for i := range floor {
		floor[i] = min(floor[i], natural[i])
		word[i] = min(word[i], natural[i])
	}
	widths := append([]int{}, natural...)
	total := func() int {
		t := columnGap * (n - 1)
		for _, w := range widths {
			t += w
		}
		return t
	}
	for _, least := range [][]int{word, floor} {
		for total() > width {
			widest := -1
			for i, w := range widths {
				if w > least[i] && (widest < 0 || w > widths[widest]) {
					widest = i
				}
			}
			if widest < 0 {
				break // as narrow as it goes
			}
			widths[widest]--
		}
	}
	fit := func(cell string, i int) string {
		if widths[i] >= natural[i] {
			return cell
		}
		var lines []string
		for _, l := range strings.Split(cell, "\n") {
			lines = append(lines, wrapText(l, widths[i], "", "")...)
		}
		return strings.Join(lines, "\n")
	}
	head := make([]string, n)
	for i, h := range header {
		head[i] = fit(h, i)
	}
	out := make([][]string, len(rows))
	for ri, r := range rows {
		out[ri] = make([]string, len(r))
		for i, cell := range r {
			if i >= n {
				out[ri][i] = cell
				continue
			}
			out[ri][i] = fit(cell, i)
		}
	}
	return head, out
}

// ANSI colours for severities.
const (
	ansiRed    = "\x1b[31m"
	ansiYellow = "\x1b[33m"
	ansiReset  = "\x1b[0m"
)

// severityColor is the colour of a severity word, "" for none.
func severityColor(word string) string {
	switch strings.ToLower(word) {
	case "critical":
		return ansiRed
	case "warning":
		return ansiYellow
	}
	return ""
}
