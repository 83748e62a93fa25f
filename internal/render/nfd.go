package render

import (
	"io"

	"github.com/gdtopo/gdtopo/internal/fleet"
	"github.com/gdtopo/gdtopo/internal/report"
)

// nfd writes a Kubernetes Node Feature Discovery feature file of the one
// source of a check (the labels: internal/fleet); nothing when it could not
// be read.
func nfd(w io.Writer, c *report.Check) error {
	if len(c.Sources) != 1 || c.Sources[0].Report == nil {
		return nil
	}
	return fleet.WriteNFD(w, c.Sources[0].Report)
}
