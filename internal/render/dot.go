package render

import (
	"io"

	"github.com/gdtopo/gdtopo/internal/export"
	"github.com/gdtopo/gdtopo/internal/report"
)

// dot writes the picture svg draws as a Graphviz graph.
func dot(w io.Writer, r *report.Report) error {
	return export.DOT(w, r.Graph, r.Aliases(), r.BestNICs())
}
