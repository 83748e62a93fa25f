package render

import (
	"io"
	"time"

	"github.com/gdtopo/gdtopo/internal/fleet"
	"github.com/gdtopo/gdtopo/internal/report"
)

// nfd writes a Kubernetes Node Feature Discovery feature file of the one
// source of a check (the labels: internal/fleet); nothing when it could not
// be read. Its labels expire lifetime after the check (never for 0).
func nfd(w io.Writer, c *report.Check, lifetime time.Duration) error {
	if len(c.Sources) != 1 || c.Sources[0].Report == nil {
		return nil
	}
	var expires time.Time
	if lifetime > 0 {
		expires = c.Time.Add(lifetime)
	}
	return fleet.WriteNFD(w, c.Sources[0].Report, expires)
}
