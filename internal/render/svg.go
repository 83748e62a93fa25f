package render

import (
	"io"

	"github.com/gdtopo/gdtopo/internal/export"
	"github.com/gdtopo/gdtopo/internal/report"
)

// svg draws the source's topology with each accelerator's best NIC (the
// report's) as an SVG picture.
func svg(w io.Writer, r *report.Report) error {
	return export.SVG(w, r.Graph, r.Aliases(), r.BestNICs())
}

// svgTree draws svg's picture without its table of labels, which the HTML
// page shows as its own matrix.
func svgTree(w io.Writer, r *report.Report) error {
	return export.SVGTree(w, r.Graph, r.Aliases(), r.BestNICs())
}
