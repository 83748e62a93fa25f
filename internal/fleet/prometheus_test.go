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

var metricName = regexp.MustCompile(`^[a-z_:][a-z0-9_:]*$`)

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
			if strings.HasPrefix(name, "gdtopo_pair_") {
				for _, l := range []string{"gpu", "gpu_alias", "nic", "nic_alias", "smi", "nccl"} {
					if labels[l] == "" {
						t.Errorf("%s%v: no %s label", name, labels, l)
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
		{"gdtopo_pair_path_info", map[string]string{"source": "hgx-h100", "gpu_alias": "GPU0", "nic_name": "mlx5_0", "smi": "PIX", "nccl": "PIX", "path": "same switch"}, 1},
		{"gdtopo_pair_expected_throughput_bytes_per_second", map[string]string{"source": "hgx-h100", "gpu": "0000:1a:00.0", "nic": "0000:1b:00.0"}, 400e9 / 8},
		{"gdtopo_pair_efficiency_ratio", map[string]string{"source": "hgx-h100", "gpu": "0000:1a:00.0", "nic": "0000:1b:00.0"}, 1},
		{"gdtopo_pair_gdr", map[string]string{"source": "hgx-h100", "gpu": "0000:1a:00.0", "nic_alias": "NIC4"}, 0},
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
