package render

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/gdtopo/gdtopo/internal/report"
)

// Verify writes gdtopo verify: the host's matrix against the
// source's tree, and every cell where they differ, laid out as style says
// (the first given).
func Verify(w io.Writer, f Format, v *report.Verification, style ...Style) error {
	switch f {
	case Table, Markdown:
		return verifyTables(NewPrinter(w, f, style...), v)
	case JSON:
		return writeJSON(w, v)
	}
	return unsupported(f, "verify")
}

func verifyTables(p *Printer, v *report.Verification) error {
	c := v.NVSMI
	if c == nil {
		return fmt.Errorf("verify of %s: no host matrix (nvidia-smi topo -m or rocm-smi --showtopo)", v.Source.Name)
	}
	matchedBy := func(s string) string {
		if s == "" {
			return "not matched"
		}
		return "by " + s
	}
	nics := matchedBy(c.NICsBy)
	if c.ROCm() {
		nics = "none in rocm-smi's matrix (GPUs only)"
	}
	rows := [][]string{
		{"Source", fmt.Sprintf("%s (%s)", v.Source.Name, v.Source.Format)},
		{c.ToolName(), c.File + ": " + c.Matrix},
		{"GPUs", matchedBy(c.GPUsBy)},
		{"NICs", nics},
		{"Cells", c.VerifyCounts()},
	}
	for _, n := range c.Notes {
		rows = append(rows, []string{"Note", n})
	}
	if p.Format() == Markdown {
		p.Heading(c.Tool + " against the source")
		if err := p.Table([]string{"Item", "Value"}, rows); err != nil {
			return err
		}
	} else if err := p.KeyValues(rows); err != nil {
		return err
	}
	if len(c.Differ) == 0 {
		p.Printf("\nno compared cell disagrees\n")
		return nil
	}
	p.Heading("Cells that differ")
	var t [][]string
	var whys []string // each reason once, numbered in the table
	for _, d := range c.Differ {
		i := slices.Index(whys, d.Why)
		if i < 0 {
			whys, i = append(whys, d.Why), len(whys)
		}
		t = append(t, []string{d.Row + " " + d.A, strings.TrimSpace(d.Column + " " + d.B), d.Driver, d.Source, "(" + strconv.Itoa(i+1) + ")"})
	}
	if err := p.Table([]string{"Row", "Column", c.ToolName(), "Source", "Why"}, t); err != nil {
		return err
	}
	p.Heading("Why they may differ")
	for i, w := range whys {
		p.Lines(w, fmt.Sprintf("  (%d) ", i+1), "      ")
	}
	return nil
}
