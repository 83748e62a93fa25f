// Package render prints gdtopo's reports (internal/report) in every output
// format, one file per format: table.go (the tables for people: -o table,
// and -o markdown in the same drawing with markdown's style), json.go (-o
// json and -o jsonl), prometheus.go, nfd.go, terse.go, verify.go (gdtopo verify in
// every format it offers), and the exports ncclxml.go, svg.go, dot.go and
// html.go. A renderer takes a report and a
// writer and decides nothing: findings, best NICs, verdicts and exit
// statuses are the report's, and check's tables draw the report's
// CheckView, built once a source.
package render

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/gdtopo/gdtopo/internal/report"
)

// Format is an output format (-o).
type Format string

// Output formats.
const (
	Table      Format = "table"
	Markdown   Format = "markdown"
	JSON       Format = "json"
	JSONL      Format = "jsonl"
	Prometheus Format = "prometheus"
	NFD        Format = "nfd"
	Terse      Format = "terse"
	NCCLXML    Format = "nccl-xml"
	SVG        Format = "svg"
	DOT        Format = "dot"
	HTML       Format = "html"
)

// The formats each kind of report is offered in, the default first.
var (
	CheckFormats  = []Format{Table, JSON, Markdown, JSONL, Prometheus, NFD, Terse}
	ViewFormats   = []Format{Table, JSON, Markdown} // matrix, tree, path, compare
	ExportFormats = []Format{NCCLXML, SVG, DOT, HTML}
)

// ParseFormat checks a -o value against the formats a command offers.
func ParseFormat(s string, offered []Format) (Format, error) {
	for _, f := range offered {
		if s == string(f) {
			return f, nil
		}
	}
	return "", fmt.Errorf("invalid output format %q: valid formats are %s", s, Names(offered))
}

// Names lists formats for help and errors: "table, json, markdown".
func Names(fs []Format) string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = string(f)
	}
	return strings.Join(out, ", ")
}

// Check writes a check of one or more sources, laid out as style says
// (the first given) for -o table and markdown.
func Check(w io.Writer, f Format, c *report.Check, style ...Style) error {
	switch f {
	case Table, Markdown:
		return checkTables(NewPrinter(w, f, style...), c)
	case JSON:
		return writeCheckJSON(w, c)
	case JSONL:
		for _, r := range c.Sources {
			if err := JSONLine(w, r); err != nil {
				return err
			}
		}
		return nil
	case Prometheus:
		return prometheus(w, c)
	case NFD:
		var lifetime time.Duration
		if len(style) > 0 {
			lifetime = style[0].NFDLifetime
		}
		return nfd(w, c, lifetime)
	case Terse:
		return terse(w, c)
	}
	return unsupported(f, "check")
}

// Matrix writes the accelerator and NIC matrix.
func Matrix(w io.Writer, f Format, m *report.Matrix, style ...Style) error {
	switch f {
	case Table, Markdown:
		return matrixTable(NewPrinter(w, f, style...), m)
	case JSON:
		return writeJSON(w, m)
	}
	return unsupported(f, "matrix")
}

// Tree writes the PCIe tree, its lines wrapped to style's width (the
// first style given) for -o table.
func Tree(w io.Writer, f Format, t *report.Tree, style ...Style) error {
	switch f {
	case Table, Markdown:
		return treeText(NewPrinter(w, f, style...), t)
	case JSON:
		return writeJSON(w, t)
	}
	return unsupported(f, "tree")
}

// Path writes the path between two devices.
func Path(w io.Writer, f Format, p *report.PathView, style ...Style) error {
	switch f {
	case Table, Markdown:
		return pathTables(NewPrinter(w, f, style...), p)
	case JSON:
		return writeJSON(w, p)
	}
	return unsupported(f, "path")
}

// Compare writes a comparison of servers.
func Compare(w io.Writer, f Format, c *report.Comparison, style ...Style) error {
	switch f {
	case Table, Markdown:
		width := 0
		if len(style) > 0 {
			width = style[0].Width
		}
		return compareTables(NewPrinter(w, f, style...), c, width)
	case JSON:
		return writeJSON(w, c)
	}
	return unsupported(f, "compare")
}

// Export writes a source's topology for another tool.
func Export(w io.Writer, f Format, r *report.Report) error {
	switch f {
	case NCCLXML:
		return ncclXML(w, r)
	case SVG:
		return svg(w, r)
	case DOT:
		return dot(w, r)
	case HTML:
		return html(w, r)
	}
	return unsupported(f, "export")
}

func unsupported(f Format, what string) error {
	return fmt.Errorf("%s cannot be written as %q", what, f)
}
