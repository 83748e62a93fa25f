// Package render writes gdtopo's tables in the output formats it offers,
// through tablewriter with fixed presets.
package render

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// Format is an output format.
type Format string

// Output formats.
const (
	Text     Format = "table"
	JSON     Format = "json"
	Markdown Format = "markdown"
)

// Formats lists the formats a reporting command accepts.
var Formats = []string{string(Text), string(JSON), string(Markdown)}

// ParseFormat checks a -o value.
func ParseFormat(s string) (Format, error) {
	for _, f := range Formats {
		if s == f {
			return Format(s), nil
		}
	}
	return "", fmt.Errorf("invalid output format %q: valid formats are %s", s, strings.Join(Formats, ", "))
}

// Table writes one table: borderless, left-aligned columns for text, a pipe
// table for markdown. Headers are printed as given.
func Table(w io.Writer, f Format, header []string, rows [][]string) error {
	var r tw.Renderer
	if f == Markdown {
		r = renderer.NewMarkdown()
	} else {
		r = renderer.NewBlueprint(tw.Rendition{
			Borders: tw.BorderNone,
			Symbols: tw.NewSymbols(tw.StyleASCII),
			Settings: tw.Settings{
				Separators: tw.Separators{BetweenColumns: tw.Off, BetweenRows: tw.Off},
				Lines:      tw.Lines{ShowHeaderLine: tw.On},
			},
		})
	}
	var buf bytes.Buffer
	t := tablewriter.NewTable(&buf,
		tablewriter.WithRenderer(r),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAlignment(tw.AlignLeft),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
		tablewriter.WithHeaderAutoWrap(tw.WrapNone),
		tablewriter.WithTrimSpace(tw.On),
	)
	t.Header(header)
	if err := t.Bulk(rows); err != nil {
		return err
	}
	if err := t.Render(); err != nil {
		return err
	}
	if f == Markdown {
		_, err := w.Write(buf.Bytes())
		return err
	}
	// The borderless preset pads every line with a space on both sides and
	// draws the header rule across the padding: trim both.
	lines := strings.Split(strings.TrimRight(buf.String(), "\n"), "\n")
	width := 0
	for i, l := range lines {
		lines[i] = strings.TrimRight(strings.TrimPrefix(l, " "), " ")
		if strings.Trim(lines[i], "-") != "" && len(lines[i]) > width {
			width = len(lines[i])
		}
	}
	for i, l := range lines {
		if l != "" && strings.Trim(l, "-") == "" {
			lines[i] = strings.Repeat("-", width)
		}
	}
	_, err := io.WriteString(w, strings.Join(lines, "\n")+"\n")
	return err
}

// Heading writes a section title: "## title" in markdown, the plain title
// otherwise.
func Heading(w io.Writer, f Format, title string) {
	if f == Markdown {
		fmt.Fprintf(w, "\n## %s\n\n", title)
		return
	}
	fmt.Fprintf(w, "\n%s\n", title)
}
