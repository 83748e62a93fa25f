package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/gdtopo/gdtopo/internal/fleet"
	"github.com/gdtopo/gdtopo/internal/words"
)

// How much of a fleet the text lists: sources per variant, differences
// per group or variant; -o json lists them all.
const (
	fleetListMax = 20
	fleetDiffMax = 30
)

// Fleet writes a fleet's result for people: the groups, how each differs
// from the first and its variants from its majority, and the sources that
// could not be read, lines wrapped to style's width.
func Fleet(w io.Writer, r *fleet.Result, style Style) error {
	p := NewPrinter(w, Table, style)
	against := "majority"
	if r.Reference != "" {
		against = "reference"
	}
	p.Lines(fmt.Sprintf("%s: %s, %d unlike the %s, %d unreadable",
		words.Count(r.Sources, "source"), words.Count(len(r.Groups), "group"), r.Differing, against, r.Unreadable), "", "  ")
	if r.Reference != "" {
		p.Lines("compared with the reference "+r.Reference+", not each group's majority", "", "  ")
	}
	for _, g := range r.Groups {
		p.Printf("\n")
		accelerators := words.Count(g.Accelerators, "accelerator")
		if g.Accelerators == 0 && g.Unidentified > 0 {
			accelerators = "no accelerator identified among " + words.Count(g.Unidentified, "unidentified function")
		}
		shown := accelerators + ", " + words.Count(g.NICs, "NIC")
		if g.Topology.Partial != "" {
			shown += " in a partial source: " + g.Topology.Partial
		}
		p.Lines(fmt.Sprintf("group %d: %s (%s), %d alike, like %s",
			g.Group, words.Count(g.Sources, "source"), shown, g.Alike, g.Reference), "", "  ")
		switch {
		case r.Reference != "" && len(g.Differences) > 0 && 2*g.SharedDevices < len(g.Topology.Devices):
			p.Lines(fmt.Sprintf("other hardware than the reference: %d of its %d devices are at the same place with the same model there (-o json lists the differences)",
				g.SharedDevices, len(g.Topology.Devices)), "  ", "    ")
		case r.Reference == "" && g.OtherHardware(&r.Groups[0]):
			p.Lines(fmt.Sprintf("other hardware than group %d: %d of its %d devices are at the same place with the same model there, of %d in group %d (-o json lists the differences)",
				g.ComparedWith, g.SharedDevices, len(g.Topology.Devices), len(r.Groups[0].Topology.Devices), g.ComparedWith), "  ", "    ")
		case len(g.Differences) > 0 && r.Reference != "":
			p.Lines("the majority state unlike the reference:", "  ", "    ")
			writeDiffs(p, "    ", g.Differences, against)
		case len(g.Differences) > 0:
			p.Lines(fmt.Sprintf("unlike group %d:", g.ComparedWith), "  ", "    ")
			writeDiffs(p, "    ", g.Differences, against)
		}
		for _, v := range g.Variants {
			p.Lines(listSources(v.Sources)+":", "  ", "    ")
			writeDiffs(p, "    ", v.Differences, against)
		}
	}
	if len(r.Errors) > 0 {
		p.Printf("\nunreadable:\n")
		for _, e := range r.Errors {
			p.Lines(e.Error, "  ", "    ")
		}
	}
	return nil
}

// writeDiffs prints up to fleetDiffMax differences: machines of other
// hardware differ in every device, which -o json lists.
func writeDiffs(p *Printer, indent string, ds []fleet.Difference, against string) {
	for i, d := range ds {
		if i == fleetDiffMax && len(ds) > fleetDiffMax+1 {
			p.Lines(fmt.Sprintf("... and %d more differences (-o json lists them all)", len(ds)-i), indent, indent+"  ")
			return
		}
		p.Lines(d.Text(against), indent, indent+"  ")
	}
}

// listSources names up to fleetListMax sources, and how many more.
func listSources(s []string) string {
	if len(s) <= fleetListMax {
		return strings.Join(s, " ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(s[:fleetListMax], " "), len(s)-fleetListMax)
}
