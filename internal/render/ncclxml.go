package render

import (
	"io"

	"github.com/gdtopo/gdtopo/internal/export"
	"github.com/gdtopo/gdtopo/internal/report"
)

// ncclXML writes the source's topology as an NCCL_TOPO_FILE.
func ncclXML(w io.Writer, r *report.Report) error { return export.NCCLXML(w, r.Graph) }
