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
	{"gdtopo_gpu_plan_info", "gauge", "An accelerator's NIC in the rail plan: its address (nic), alias, RDMA name and the pair's nvidia-smi and NCCL labels; always 1."},
	{"gdtopo_gpu_planned_throughput_bytes_per_second", "gauge", "An accelerator's share of its planned NIC when every accelerator sends at once, as NCCL would run the pair, in bytes per second."},
	{"gdtopo_gpu_planned_efficiency_ratio", "gauge", "Expected direct-RDMA throughput of an accelerator and its planned NIC over what that NIC could do alone on a healthy link, 0..1."},
	{"gdtopo_gpu_planned_gdr", "gauge", "1 when NCCL would use GPUDirect RDMA between an accelerator and its planned NIC, else 0."},
	{"gdtopo_pair_path_info", "gauge", "An accelerator-NIC pair's path: nvidia-smi label (smi), NCCL label (nccl) and plain words (path); always 1."},
	{"gdtopo_pair_expected_throughput_bytes_per_second", "gauge", "Direct-RDMA throughput to expect between an accelerator and a NIC, in bytes per second (Gb/s x 1.25e8)."},
	{"gdtopo_pair_efficiency_ratio", "gauge", "Expected throughput of an accelerator-NIC pair over what the NIC alone could do on a healthy link, 0..1."},
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
//
// Per-accelerator series carry dcgm-exporter's identity labels, so that
// they join with DCGM's metrics: gpu (the index nvidia-smi gives, in PCI
// address order), pci_bus_id (NVML's busId, "%08X:%02X:%02X.%X") and
// Hostname. Value series carry identity labels only; what can change
// with the machine's state (the planned NIC, path labels, names) is on
// the _info series, so a value series keeps its identity when a fault
// appears.
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
		gpuIDs := make(map[string][]string, len(r.Accelerators))
		for _, a := range r.Accelerators {
			gpuIDs[a.BDF] = gpuLabels(src, a.Alias, a.BDF, r.System.Hostname)
		}
		for _, as := range r.Plan.Assignments {
			id, nic, p := gpuIDs[as.Accelerator], r.Device(as.NIC), r.Pair(as.Accelerator, as.NIC)
			if id == nil || nic == nil || p == nil {
				continue
			}
			add("gdtopo_gpu_plan_info", 1, append(id[:len(id):len(id)], "nic", nic.BDF, "nic_alias", nic.Alias,
				"nic_name", nicName(nic), "smi", p.SMI, "nccl", p.NCCL)...)
			if as.ShareGbps > 0 && !as.AtMost { // AtMost: a ceiling, the NIC's port rate unknown
				add("gdtopo_gpu_planned_throughput_bytes_per_second", as.ShareGbps*bytesPerGbit, id...)
			}
			if x := p.Prediction; x != nil {
				if x.Efficiency > 0 { // 0: the NIC's rate is unknown
					add("gdtopo_gpu_planned_efficiency_ratio", x.Efficiency, id...)
				}
				add("gdtopo_gpu_planned_gdr", map[bool]float64{true: 1}[x.GDR], id...)
			}
		}
		for _, p := range accelNICPairs(r) {
			id := gpuIDs[p.GPU.BDF]
			if id == nil {
				continue
			}
			labels := append(id[:len(id):len(id)], "nic", p.NIC.BDF)
			add("gdtopo_pair_path_info", 1, append(labels[:len(labels):len(labels)], "gpu_alias", p.GPU.Alias,
				"nic_alias", p.NIC.Alias, "nic_name", nicName(p.NIC), "smi", p.Pair.SMI, "nccl", p.Pair.NCCL, "path", p.Pair.Path)...)
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
		if len(r.Plan.Assignments) > 0 && r.Plan.WorstGbps > 0 && !r.Plan.WorstAtMost { // 0: unknown (a link speed the source lacks); WorstAtMost: a ceiling (the worst NIC's rate unknown)
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

// gpuLabels are an accelerator's identity labels as dcgm-exporter spells
// them (its documented labels gpu, pci_bus_id, Hostname): gpu is the
// number of the alias (GPU3 -> "3"), pci_bus_id the address in NVML's
// busId form (nvml.h NVML_DEVICE_PCI_BUS_ID_FMT, 8 upper-case hex digits of
// domain). A label gdtopo cannot give is left out: Hostname where the
// source lacks it, pci_bus_id for a stand-in address.
func gpuLabels(src, alias, bdf, hostname string) []string {
	out := []string{"source", src}
	if n, ok := strings.CutPrefix(alias, "GPU"); ok && n != "" {
		out = append(out, "gpu", n)
	}
	if id := pciBusID(bdf); id != "" {
		out = append(out, "pci_bus_id", id)
	} else {
		out = append(out, "bdf", bdf) // a positional stand-in: still one series per accelerator
	}
	if hostname != "" {
		out = append(out, "Hostname", hostname)
	}
	return out
}

// pciBusID writes "0000:1a:00.0" as NVML does, "00000000:1A:00.0"; "" for
// anything that is not an address.
func pciBusID(bdf string) string {
	var dom, bus, dev, fn uint64
	parts := strings.Split(bdf, ":")
	if len(parts) != 3 {
		return ""
	}
	df := strings.Split(parts[2], ".")
	if len(df) != 2 {
		return ""
	}
	var err error
	for _, x := range []struct {
		s    string
		bits int
		v    *uint64
	}{{parts[0], 32, &dom}, {parts[1], 8, &bus}, {df[0], 5, &dev}, {df[1], 3, &fn}} {
		if *x.v, err = strconv.ParseUint(x.s, 16, x.bits); err != nil {
			return ""
		}
	}
	return fmt.Sprintf("%08X:%02X:%02X.%X", dom, bus, dev, fn)
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
