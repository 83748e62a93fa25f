package fleet

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

var (
	metricName = regexp.MustCompile(`^[a-z_:][a-z0-9_:]*$`)
	nvmlBusID  = regexp.MustCompile(`^[0-9A-F]{8}:[0-9A-F]{2}:[0-9A-F]{2}\.[0-7]$`) // nvml.h NVML_DEVICE_PCI_BUS_ID_FMT
)

func TestWritePrometheus(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	lines := []Line{
		{Source: "hgx-h100", Report: fixture(t, "hgx-h100")},
		{Source: "sys-4029gp-v100", Report: fixture(t, "sys-4029gp-v100"), ExitCode: 3},
		{Source: `bad "host"\n.tar.gz`, Error: "no sys/ folder", ExitCode: 1},
		{Source: "recorded-h200", Report: fixture(t, "recorded-h200")}, // a plan whose throughput is unknown
	}
	var buf bytes.Buffer
	if err := WritePrometheus(&buf, lines, now); err != nil {
		t.Fatal(err)
	}
	p := expfmt.NewTextParser(model.LegacyValidation) // the strict, pre-UTF-8 names
	mfs, err := p.TextToMetricFamilies(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, buf.String())
	}
	for _, f := range families {
		mf := mfs[f.name]
		if mf == nil {
			t.Errorf("no family %s", f.name)
			continue
		}
		if !metricName.MatchString(f.name) || !strings.HasPrefix(f.name, "gdtopo_") {
			t.Errorf("bad metric name %q", f.name)
		}
		if got := strings.ToLower(mf.GetType().String()); got != f.typ || mf.GetHelp() == "" {
			t.Errorf("%s: type %s help %q, want %s and a help text", f.name, got, mf.GetHelp(), f.typ)
		}
	}
	if len(mfs) != len(families) {
		t.Errorf("%d families, want %d", len(mfs), len(families))
	}
	// value finds the one sample of name whose labels include want.
	value := func(name string, want map[string]string) (float64, int) {
		n, v := 0, 0.0
		for _, m := range mfs[name].GetMetric() {
			ok := true
			for _, lp := range m.GetLabel() {
				if w, has := want[lp.GetName()]; has && w != lp.GetValue() {
					ok = false
				}
			}
			if ok {
				n++
				v = m.GetGauge().GetValue()
			}
		}
		return v, n
	}
	for name, mf := range mfs {
		for _, m := range mf.GetMetric() {
			labels := map[string]string{}
			for _, lp := range m.GetLabel() {
				labels[lp.GetName()] = lp.GetValue()
			}
			if _, ok := labels["source"]; !ok {
				t.Errorf("%s%v: no source label", name, labels)
			}
			if m.TimestampMs != nil {
				t.Errorf("%s%v has a timestamp: the textfile collector refuses them", name, labels)
			}
			v := m.GetGauge().GetValue()
			switch {
			case name == "gdtopo_pair_efficiency_ratio" && (v <= 0 || v > 1),
				strings.HasSuffix(name, "_bytes_per_second") && (v <= 0 || v > 1e12),
				(strings.HasSuffix(name, "_info") || name == "gdtopo_up" || name == "gdtopo_pair_gdr") && v != 0 && v != 1,
				strings.HasPrefix(name, "gdtopo_findings") && (v < 0 || v != float64(int(v))):
				t.Errorf("%s%v = %g: out of range", name, labels, v)
			}
			// Identity labels on every per-accelerator series, as
			// dcgm-exporter spells them; state only on _info series.
			if strings.HasPrefix(name, "gdtopo_pair_") || strings.HasPrefix(name, "gdtopo_gpu_") {
				for _, l := range []string{"gpu", "pci_bus_id", "Hostname"} {
					if labels[l] == "" {
						t.Errorf("%s%v: no %s label", name, labels, l)
					}
				}
				if !nvmlBusID.MatchString(labels["pci_bus_id"]) {
					t.Errorf("%s%v: pci_bus_id not in NVML's form", name, labels)
				}
			}
			if !strings.HasSuffix(name, "_info") {
				for _, l := range []string{"smi", "nccl", "path", "nic_name", "nic_alias", "gpu_alias", "hostname"} {
					if _, ok := labels[l]; ok {
						t.Errorf("%s%v: state label %s on a value series", name, labels, l)
					}
				}
			}
		}
	}
	checks := []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"gdtopo_up", map[string]string{"source": "hgx-h100"}, 1},
		{"gdtopo_up", map[string]string{"source": `bad "host"\n.tar.gz`}, 0},
		{"gdtopo_exit_code", map[string]string{"source": "sys-4029gp-v100"}, 3},
		{"gdtopo_last_run_timestamp_seconds", map[string]string{"source": "hgx-h100"}, float64(now.Unix())},
		{"gdtopo_findings", map[string]string{"source": "sys-4029gp-v100", "code": "acs-redirect", "severity": "critical"}, 1},
		{"gdtopo_findings", map[string]string{"source": "sys-4029gp-v100", "code": "iommu-translation", "severity": "critical"}, 1},
		{"gdtopo_findings_by_severity", map[string]string{"source": "sys-4029gp-v100", "severity": "critical"}, 2},
		{"gdtopo_findings_by_severity", map[string]string{"source": "hgx-h100", "severity": "critical"}, 0},
		{"gdtopo_pair_path_info", map[string]string{"source": "hgx-h100", "gpu": "0", "gpu_alias": "GPU0", "nic_name": "mlx5_0", "smi": "PIX", "nccl": "PIX", "path": "same switch"}, 1},
		{"gdtopo_pair_expected_throughput_bytes_per_second", map[string]string{"source": "hgx-h100", "gpu": "0", "pci_bus_id": "00000000:1A:00.0", "nic": "0000:1b:00.0"}, 400e9 / 8},
		{"gdtopo_pair_efficiency_ratio", map[string]string{"source": "hgx-h100", "gpu": "0", "nic": "0000:1b:00.0"}, 1},
		{"gdtopo_pair_gdr", map[string]string{"source": "hgx-h100", "pci_bus_id": "00000000:1A:00.0", "nic": "0000:9d:00.0"}, 0},
		{"gdtopo_gpu_plan_info", map[string]string{"source": "hgx-h100", "gpu": "1", "pci_bus_id": "00000000:1E:00.0", "nic": "0000:1f:00.0", "nic_name": "mlx5_1", "smi": "PIX"}, 1},
		{"gdtopo_gpu_planned_throughput_bytes_per_second", map[string]string{"source": "hgx-h100", "gpu": "1", "pci_bus_id": "00000000:1E:00.0"}, 400e9 / 8},
		{"gdtopo_gpu_planned_efficiency_ratio", map[string]string{"source": "hgx-h100", "gpu": "1"}, 1},
		{"gdtopo_gpu_planned_gdr", map[string]string{"source": "hgx-h100", "gpu": "1"}, 1},
	}
	for _, c := range checks {
		if got, n := value(c.name, c.labels); n != 1 || got != c.want {
			t.Errorf("%s%v = %g (%d samples), want %g (1 sample)", c.name, c.labels, got, n, c.want)
		}
	}
	// 8 GPUs x 8 RDMA NICs on hgx-h100; sys-4029gp-v100's two plain
	// Ethernet ports are left out as check's tables leave them out.
	for src, want := range map[string]int{"hgx-h100": 64, "sys-4029gp-v100": 16} {
		if _, n := value("gdtopo_pair_path_info", map[string]string{"source": src}); n != want {
			t.Errorf("%s: %d pairs, want %d", src, n, want)
		}
	}
	// One planned figure per accelerator, the lowest the plan's worst.
	for src, want := range map[string]int{"hgx-h100": 8, "sys-4029gp-v100": 8} {
		low := 0.0
		n := 0
		for _, m := range mfs["gdtopo_gpu_planned_throughput_bytes_per_second"].GetMetric() {
			for _, lp := range m.GetLabel() {
				if lp.GetName() == "source" && lp.GetValue() == src {
					if v := m.GetGauge().GetValue(); n == 0 || v < low {
						low = v
					}
					n++
				}
			}
		}
		worst, _ := value("gdtopo_plan_worst_expected_throughput_bytes_per_second", map[string]string{"source": src})
		if n != want || low != worst {
			t.Errorf("%s: %d planned figures, lowest %g; want %d, the plan's worst %g", src, n, low, want, worst)
		}
	}
	if _, n := value("gdtopo_plan_worst_expected_throughput_bytes_per_second", map[string]string{"source": "recorded-h200"}); n != 0 {
		t.Errorf("recorded-h200: the plan's unknown worst throughput given as %d samples, want none", n)
	}
	if _, n := value("gdtopo_pair_path_info", map[string]string{"source": `bad "host"\n.tar.gz`}); n != 0 {
		t.Errorf("a failed source has %d pair samples", n)
	}
}

func TestWritePrometheusDuplicateSource(t *testing.T) {
	r := fixture(t, "hgx-h100")
	var buf bytes.Buffer
	err := WritePrometheus(&buf, []Line{{Source: "a", Report: r}, {Source: "a", Report: r}}, time.Now())
	if err == nil || buf.Len() != 0 {
		t.Fatalf("err %v, %d bytes written: want an error and nothing written", err, buf.Len())
	}
}

// TestPCIBusID writes addresses as NVML's busId (dcgm-exporter's pci_bus_id).
func TestPCIBusID(t *testing.T) {
	for in, want := range map[string]string{
		"0000:1a:00.0":   "00000000:1A:00.0",
		"10000:e1:1f.7":  "00010000:E1:1F.7", // a VMD domain
		"bridge@line31":  "",
		"0000:1a:00":     "",
		"0000:1g:00.0":   "",
		"0000:1a:20.0":   "", // device numbers stop at 1f
		"0000:1a:00.0.1": "",
	} {
		if got := pciBusID(in); got != want {
			t.Errorf("pciBusID(%q) = %q, want %q", in, got, want)
		}
	}
}
