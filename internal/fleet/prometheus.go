package fleet

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/gdtopo/gdtopo/advisor"
	"github.com/gdtopo/gdtopo/internal/termsafe"
)

// bytesPerGbit converts gdtopo's Gb/s to Prometheus's base unit, bytes per second.
const bytesPerGbit = 1e9 / 8

// Metric families, in output order. Names follow the Prometheus naming
// conventions: a gdtopo_ prefix, base units (seconds, bytes) in plural as a
// suffix, _ratio for 0..1, _info for label-only series of value 1.
var families = []struct{ name, typ, help string }{
	{"gdtopo_up", "gauge", "1 when gdtopo analysed the source, 0 when it could not read it."},
	{"gdtopo_exit_code", "gauge", "gdtopo check's exit status for the source: 0 ok, 1 error, 3 findings at or above --fail-on."},
	{"gdtopo_last_run_timestamp_seconds", "gauge", "Unix time at which gdtopo wrote these metrics."},
	{"gdtopo_source_info", "gauge", "The source read and the machine's hostname; always 1."},
	{"gdtopo_pair_path_info", "gauge", "An accelerator-NIC pair's path: nvidia-smi label (smi), NCCL label (nccl) and plain words (path); always 1."},
	{"gdtopo_pair_expected_throughput_bytes_per_second", "gauge", "Direct-RDMA throughput to expect between an accelerator and a NIC, in bytes per second (Gb/s x 1.25e8)."},
	{"gdtopo_pair_efficiency_ratio", "gauge", "Expected throughput of an accelerator-NIC pair over what the NIC alone could do, 0..1."},
	{"gdtopo_pair_gdr", "gauge", "1 when NCCL would use GPUDirect RDMA for the pair, else 0."},
	{"gdtopo_plan_worst_expected_throughput_bytes_per_second", "gauge", "The rail plan's lowest per-accelerator throughput, in bytes per second."},
	{"gdtopo_findings", "gauge", "Findings in this run by code and severity (see the README for the codes)."},
	{"gdtopo_findings_by_severity", "gauge", "Findings in this run by severity, 0 included."},
}

type sample struct {
	labels []string // name, value, name, value, ...
	value  float64
}

// WritePrometheus writes lines in the Prometheus text exposition format
// (version 0.0.4) for node_exporter's textfile collector. Every sample has
// a "source" label (Line.Source, else the report's source name), so one file
// may hold many machines; a source named twice is an error, as the
// collector would reject the duplicate series. Samples carry no timestamps
// (the textfile collector refuses them): gdtopo_last_run_timestamp_seconds
// says when the run was. Write the file to a temporary name and rename it.
func WritePrometheus(w io.Writer, lines []Line, now time.Time) error {
	out := map[string][]sample{}
	add := func(name string, v float64, labels ...string) {
		out[name] = append(out[name], sample{labels, v})
	}
	seen := map[string]bool{}
	for _, l := range lines {
		src := l.Source
		if src == "" && l.Report != nil {
			src = l.Report.Source.Name
		}
		if seen[src] {
			return fmt.Errorf("prometheus: source %q named twice", src)
		}
		seen[src] = true
		up := 0.0
		if l.Report != nil && l.Error == "" {
			up = 1
		}
		add("gdtopo_up", up, "source", src)
		add("gdtopo_exit_code", float64(l.ExitCode), "source", src)
		add("gdtopo_last_run_timestamp_seconds", float64(now.UnixMilli())/1000, "source", src)
		if up == 0 {
			continue
		}
		r := l.Report
		add("gdtopo_source_info", 1, "source", src, "hostname", r.System.Hostname, "kind", r.Source.Kind,
			"format", r.Source.Format, "nccl_version", r.NCCLVersion)
		for _, p := range accelNICPairs(r) {
			pl := []string{"source", src, "gpu", p.GPU.BDF, "gpu_alias", p.GPU.Alias,
				"nic", p.NIC.BDF, "nic_alias", p.NIC.Alias, "nic_name", nicName(p.NIC)}
			labels := append(pl[:len(pl):len(pl)], "smi", p.Pair.SMI, "nccl", p.Pair.NCCL)
			add("gdtopo_pair_path_info", 1, append(labels[:len(labels):len(labels)], "path", p.Pair.Path)...)
			if g := gbpsOf(p.Pair); g > 0 {
				add("gdtopo_pair_expected_throughput_bytes_per_second", g*bytesPerGbit, labels...)
			}
			if x := p.Pair.Prediction; x != nil && x.Efficiency > 0 { // 0: the NIC's rate is unknown
				add("gdtopo_pair_efficiency_ratio", x.Efficiency, labels...)
			}
			if x := p.Pair.Prediction; x != nil {
				add("gdtopo_pair_gdr", map[bool]float64{true: 1}[x.GDR], labels...)
			}
		}
		if len(r.Plan.Assignments) > 0 && r.Plan.WorstGbps > 0 && !r.Plan.AtMost { // 0: unknown (a link speed the source lacks); AtMost: a ceiling (a NIC rate it lacks)
			add("gdtopo_plan_worst_expected_throughput_bytes_per_second", r.Plan.WorstGbps*bytesPerGbit, "source", src)
		}
		count := map[[2]string]int{}
		var keys [][2]string
		bySeverity := map[string]int{}
		for _, f := range r.Findings {
			k := [2]string{f.Code, f.Severity}
			if count[k] == 0 {
				keys = append(keys, k)
			}
			count[k]++
			bySeverity[f.Severity]++
		}
		for _, k := range keys {
			add("gdtopo_findings", float64(count[k]), "source", src, "code", k[0], "severity", k[1])
		}
		for _, s := range []advisor.Severity{advisor.Critical, advisor.Warning, advisor.Info} {
			add("gdtopo_findings_by_severity", float64(bySeverity[string(s)]), "source", src, "severity", string(s))
		}
	}
	bw := bufio.NewWriter(w)
	for _, f := range families {
		if len(out[f.name]) == 0 {
			continue
		}
		fmt.Fprintf(bw, "# HELP %s %s\n# TYPE %s %s\n", f.name, escape(f.help, false), f.name, f.typ)
		for _, s := range out[f.name] {
			bw.WriteString(f.name)
			for i := 0; i < len(s.labels); i += 2 {
				sep := ","
				if i == 0 {
					sep = "{"
				}
				fmt.Fprintf(bw, `%s%s="%s"`, sep, s.labels[i], escape(s.labels[i+1], true))
			}
			if len(s.labels) > 0 {
				bw.WriteByte('}')
			}
			bw.WriteByte(' ')
			bw.WriteString(strconv.FormatFloat(s.value, 'g', -1, 64)) // +Inf, NaN as the format wants
			bw.WriteByte('\n')
		}
	}
	return bw.Flush()
}

// escape escapes a HELP text (backslash, newline) or a label value
// (backslash, newline, double quote) for the text format. A label value
// is first escaped with termsafe.Text: names from inputs must not carry
// control characters into a scraper's files or a terminal showing them.
func escape(s string, quote bool) string {
	if quote {
		s = termsafe.Text(s)
	}
	if !strings.ContainsAny(s, "\\\n\"") {
		return s
	}
	s = strings.ReplaceAll(s, `\`, `\\`)
	s = strings.ReplaceAll(s, "\n", `\n`)
	if quote {
		s = strings.ReplaceAll(s, `"`, `\"`)
	}
	return s
}
