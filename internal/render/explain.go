package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/gdtopo/gdtopo/internal/report"
)

// ExplainFormats are gdtopo explain's formats.
var ExplainFormats = []Format{Table, JSON, Markdown}

// Explain writes gdtopo explain: per rank what NCCL did, then each
// difference with its cause and remedy.
func Explain(w io.Writer, f Format, e *report.Explanation, style ...Style) error {
	switch f {
	case Table, Markdown:
		return explainTables(NewPrinter(w, f, style...), e)
	case JSON:
		return writeJSON(w, e)
	}
	return unsupported(f, "explain")
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func explainTables(p *Printer, e *report.Explanation) error {
	verdict := fmt.Sprintf("%d difference(s)", len(e.Differences))
	if n := countCosting(e); n > 0 {
		verdict += fmt.Sprintf(", %d costing bandwidth", n)
	}
	version := strings.Join(e.Log.Versions, ", ")
	if version == "" {
		version = "(version not printed)"
	}
	rows := [][]string{{"Log", fmt.Sprintf("%s: %s %s, %d host(s), %d rank(s)", e.Log.Name, e.Log.Library, version, len(e.Hosts), len(e.Ranks))}}
	if e.Log.Partial != "" {
		rows = append(rows, []string{"Partial", e.Log.Partial})
	}
	if e.Source != nil {
		rows = append(rows, []string{"Source", fmt.Sprintf("%s (%s)", e.Source.Name, e.Source.Format)})
	}
	rows = append(rows, []string{"Verdict", verdict})
	for _, n := range e.Log.Notes {
		rows = append(rows, []string{"Note", n})
	}
	p.Heading("What NCCL did")
	if err := keyValues(p, rows); err != nil {
		return err
	}
	var hosts [][]string
	for _, h := range e.Hosts {
		gdr := "-"
		switch {
		case len(h.GDRDisabled) > 0 && len(h.GDREnabled) > 0:
			gdr = "off: " + strings.Join(h.GDRDisabled, " ") + "; on: " + strings.Join(h.GDREnabled, " ")
		case len(h.GDRDisabled) > 0:
			gdr = "off: " + strings.Join(h.GDRDisabled, " ")
		case len(h.GDREnabled) > 0:
			gdr = "on: " + strings.Join(h.GDREnabled, " ")
		}
		hosts = append(hosts, []string{dash(h.Name), dash(h.Version), dash(h.Network), dash(strings.Join(h.NICs, " ")), gdr})
	}
	p.Heading("Hosts")
	if err := p.Table([]string{"Host", "Version", "Network", "NICs NCCL listed", "GDR per HCA"}, hosts); err != nil {
		return err
	}
	withPlan := e.Source != nil
	var ranks [][]string
	for _, r := range e.Ranks {
		dev := "-"
		if r.Device >= 0 {
			dev = fmt.Sprint(r.Device)
		}
		var nics []string
		for _, n := range r.NICs {
			s := n.Name
			if s == "" {
				s = fmt.Sprintf("%s/%d", n.Net, n.Index)
			}
			if n.ProxyRank >= 0 {
				s += fmt.Sprintf(" via rank %d (PXN)", n.ProxyRank)
			}
			if n.Path != "" {
				s += " " + n.Path
			}
			nics = append(nics, s)
		}
		row := []string{dash(r.Host), dev, dash(intList(r.Ranks)), dash(r.BusID), dash(strings.Join(nics, ", ")), dash(r.GDR), dash(strings.Join(r.Transports, " "))}
		if withPlan {
			plan := "-"
			if r.GPU != "" {
				plan = r.GPU + " → " + dash(r.PlanNIC)
				if r.PlanPath != "" {
					plan += " " + r.PlanPath
				}
				if r.PlanGDR != "" {
					plan += ", GDR " + r.PlanGDR
				}
			}
			row = append(row, plan)
		}
		ranks = append(ranks, row)
	}
	header := []string{"Host", "Dev", "Rank", "GPU bus", "Network NICs", "GDR", "Intra-node"}
	if withPlan {
		header = append(header, "Plan")
	}
	p.Heading("Ranks")
	if len(ranks) == 0 {
		p.Printf("no rank got as far as an Init or Channel line\n")
	} else if err := p.Table(header, ranks); err != nil {
		return err
	}
	if b := e.BusBW; b != nil {
		p.Heading("nccl-tests bus bandwidth")
		kv := [][]string{{"Peak", fmt.Sprintf("%.2f GB/s (%.0f Gb/s) at %d bytes, of %d rows", b.PeakGBps, b.PeakGBps*8, b.PeakBytes, b.Rows)}}
		if b.AverageGBps > 0 {
			kv = append(kv, []string{"Average", fmt.Sprintf("%.2f GB/s", b.AverageGBps)})
		}
		if b.PlanGbps > 0 {
			kv = append(kv, []string{"Plan", fmt.Sprintf("%.0f Gb/s per accelerator at worst", b.PlanGbps)})
		}
		kv = append(kv, []string{"Note", b.Note})
		if err := keyValues(p, kv); err != nil {
			return err
		}
	}
	p.Heading("Differences")
	if len(e.Differences) == 0 {
		p.Printf("none the log shows\n")
		return nil
	}
	for _, d := range e.Differences {
		who := dash(d.Host)
		if len(d.Ranks) > 0 {
			who += " rank " + intList(d.Ranks)
		}
		if p.Format() == Markdown {
			p.Printf("- **%s** %s `%s` %s\n  - cause: %s\n  - remedy: %s\n", strings.ToUpper(d.Severity), who, d.Code, d.Message, d.Cause, d.Remedy)
			continue
		}
		p.SeverityLines(d.Severity, fmt.Sprintf(" %s [%s] %s", who, d.Code, d.Message), "", "    ")
		p.Lines("cause: "+d.Cause, "    ", "      ")
		p.Lines("remedy: "+d.Remedy, "    ", "      ")
	}
	return nil
}

// keyValues writes rows of a name and a value: a two-column table in
// markdown, aligned lines otherwise.
func keyValues(p *Printer, rows [][]string) error {
	if p.Format() == Markdown {
		return p.Table([]string{"Item", "Value"}, rows)
	}
	return p.KeyValues(rows)
}

func countCosting(e *report.Explanation) int {
	n := 0
	for _, d := range e.Differences {
		if d.CostsBandwidth {
			n++
		}
	}
	return n
}

func intList(s []int) string {
	var out []string
	for _, v := range s {
		out = append(out, fmt.Sprint(v))
	}
	return strings.Join(out, ",")
}
