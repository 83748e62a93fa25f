package render

import (
	"io"

	"github.com/gdtopo/gdtopo/internal/fleet"
	"github.com/gdtopo/gdtopo/internal/report"
)

// prometheus writes a check in the Prometheus text exposition format for
// node_exporter's textfile collector (the metrics: internal/fleet).
func prometheus(w io.Writer, c *report.Check) error {
	return fleet.WritePrometheus(w, fleetLines(c), c.Time)
}

// fleetLines are a check's results as internal/fleet reads them.
func fleetLines(c *report.Check) []fleet.Line {
	lines := make([]fleet.Line, len(c.Sources))
	for i, r := range c.Sources {
		lines[i] = fleet.Line{Source: r.Source, Report: r.Report, Error: r.Error, ExitCode: r.ExitStatus}
	}
	return lines
}
