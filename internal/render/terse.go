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
// order, the worst first; no finding, no line.
func terse(w io.Writer, c *report.Check) error {
	if len(c.Sources) != 1 || c.Sources[0].Report == nil {
		return nil
	}
	bw := bufio.NewWriter(w)
	for _, f := range c.Sources[0].Report.Findings {
		devices := "-"
		if len(f.Devices) > 0 {
			devices = field(strings.Join(f.Devices, ","))
		}
		bw.WriteString(field(strings.ToUpper(f.Severity)) + " " + field(f.Code) + " " + devices + " " + termsafe.Text(f.Message) + "\n")
	}
	return bw.Flush()
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
