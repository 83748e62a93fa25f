package render

import (
	"bufio"
	"io"
	"strings"

	"github.com/gdtopo/gdtopo/internal/report"
	"github.com/gdtopo/gdtopo/internal/termsafe"
)

// terse writes one line per finding of a check's one source, for health
// checks that grep or log it (Slurm NHC, Kubernetes probes): four fields,
// the problem first, never cut to a width:
//
//	SEVERITY CODE DEVICES MESSAGE
//
// SEVERITY is CRITICAL, WARNING or INFO; CODE the finding's code; DEVICES
// its PCI addresses joined by commas ("-" when none); MESSAGE the rest of
// the line, escaped to one line (termsafe.Text). Lines come in the report's
// order, the worst first; no finding, no line. With check --reference each
// difference from the reference is a line too, CODE "reference-" and its
// kind (reference-link, reference-missing): CRITICAL when it is worse (it
// fails the check as a critical finding does), after the critical
// findings, else INFO, last.
func terse(w io.Writer, c *report.Check) error {
	if len(c.Sources) != 1 || c.Sources[0].Report == nil {
		return nil
	}
	r := c.Sources[0].Report
	bw := bufio.NewWriter(w)
	line := func(severity, code string, devices []string, message string) {
		list := "-"
		if len(devices) > 0 {
			list = field(strings.Join(devices, ","))
		}
		bw.WriteString(field(strings.ToUpper(severity)) + " " + field(code) + " " + list + " " + termsafe.Text(message) + "\n")
	}
	differences := func(worse bool) {
		if r.Reference == nil {
			return
		}
		severity := "INFO"
		if worse {
			severity = "CRITICAL"
		}
		for _, d := range r.Reference.Differences {
			if d.Worse == worse {
				line(severity, "reference-"+d.What, differenceDevices(d), d.Text("reference"))
			}
		}
	}
	critical := true
	for _, f := range r.Findings {
		if critical && f.Severity != "critical" {
			differences(true)
			critical = false
		}
		line(f.Severity, f.Code, f.Devices, f.Message)
	}
	if critical {
		differences(true)
	}
	differences(false)
	return bw.Flush()
}

// differenceDevices are the addresses a difference from the reference is
// about: a finding's devices, a pair's two ends, else its device.
func differenceDevices(d report.MachineDifference) []string {
	switch {
	case len(d.Devices) > 0:
		return d.Devices
	case d.NIC != "":
		return []string{d.Device, d.NIC}
	case d.Device != "":
		return []string{d.Device}
	}
	return nil
}

// field is s as one space-free field: escaped to one line, a space as
// "\x20" (an address or code never has one; a stand-in name might).
func field(s string) string {
	s = termsafe.Text(s)
	if s == "" {
		return "-"
	}
	return strings.ReplaceAll(s, " ", `\x20`)
}
