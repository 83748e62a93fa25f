package render

import (
	"bytes"
	"fmt"
	"io"
	"reflect"
	"strings"
	"sync"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/pkg/twcache"
	"github.com/olekukonko/tablewriter/pkg/twwidth"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/gdtopo/gdtopo/internal/termsafe"
)

// Printer writes tables and headings in one format. It keeps one
// tablewriter table and resets it between tables: each new tablewriter
// table allocates its caches afresh, which costs a short-lived command more
// than the drawing does.
type Printer struct {
	w   io.Writer
	f   Format
	buf bytes.Buffer
	t   *tablewriter.Table
}

// widthCacheOff turns tablewriter's process-wide width cache off once.
var widthCacheOff sync.Once

// NewPrinter returns a Printer writing to w in format f (Table or Markdown).
func NewPrinter(w io.Writer, f Format) *Printer {
	p := &Printer{w: w, f: f}
	// tablewriter memoizes every cell's display width in a process-wide
	// LRU cache behind a mutex; for gdtopo's short ASCII cells the lookup
	// costs more than the width (a table renders in about two thirds of
	// the time without it), and every cell of a fresh process adds an
	// entry. Capacity 0 turns the cache off. The setting is the
	// library's, for the whole process: set once, as tables drawn at the
	// same time (the tests run commands in parallel) would race on it.
	widthCacheOff.Do(func() { twwidth.SetCacheCapacity(0) })
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
			safe[i] = termsafe.Block(v)
		case error:
			safe[i] = termsafe.Block(v.Error())
		case fmt.Stringer:
			safe[i] = termsafe.Block(v.String())
		default:
			safe[i] = v
		}
	}
	fmt.Fprintf(p.w, format, safe...)
}

// safeCells returns row with every cell escaped with termsafe.Text.
func safeCells(row []string) []string {
	out := make([]string, len(row))
	for i, c := range row {
		out[i] = termsafe.Text(c)
	}
	return out
}

// Table writes one table: borderless, left-aligned columns for text, a pipe
// table for markdown. Headers are printed as given.
func (p *Printer) Table(header []string, rows [][]string) error {
	p.buf.Reset()
	p.t.Reset()
	p.t.Header(safeCells(header))
	safe := make([][]string, len(rows))
	for i, r := range rows {
		safe[i] = safeCells(r)
	}
	if err := p.t.Bulk(safe); err != nil {
		return err
	}
	if err := p.t.Render(); err != nil {
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
		if strings.Trim(lines[i], "-") != "" && len(lines[i]) > width {
			width = len(lines[i])
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
		fmt.Fprintf(p.w, "\n## %s\n\n", termsafe.Text(title))
		return
	}
	fmt.Fprintf(p.w, "\n%s\n", termsafe.Text(title))
}
