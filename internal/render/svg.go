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
