package advisor

import (
	"os"
	"strings"
	"testing"
)

func TestLoadModel(t *testing.T) {
	m, err := LoadModel(strings.NewReader(`{"phb_factor_intel": 0.8, "inter_socket_gbps_amd": 200}`))
	if err != nil {
		t.Fatal(err)
	}
	if m.PHBFactorIntel.Value != 0.8 || m.PHBFactorIntel.Confidence != FromMeasured || m.PHBFactorIntel.Source != "--model" {
		t.Errorf("phb_factor_intel = %+v", m.PHBFactorIntel)
	}
	if m.InterSocketAMD.Value != 200 || m.PHBFactorAMD != DefaultModel().PHBFactorAMD {
		t.Errorf("override leaked or missed: %+v %+v", m.InterSocketAMD, m.PHBFactorAMD)
	}
	// The override reaches the prediction: PHB on Intel, write 230.456 × 0.8 = 184.365.
	b, g, n := phb()
	n.PortRateGbps = 400
	if p := pred(t, analyze(t, b.graph(), Options{Model: m}), g, n); !near(p.ExpectedWriteGbps, 184.365) {
		t.Errorf("write %.3f with phb_factor_intel 0.8, want 184.365", p.ExpectedWriteGbps)
	}

	for _, tt := range []struct{ in, want string }{
		{`{"phb_factor": 1}`, `unknown key "phb_factor"`},
		{`{"iommu_factor": "x"}`, "iommu_factor: want a number"},
		{`{"iommu_factor": 1.5}`, "iommu_factor = 1.5"},
		{`{"inter_socket_gbps_amd": -1}`, "inter_socket_gbps_amd = -1"},
		{`{"default_mps_bytes": 0}`, "default_mps_bytes = 0"},
		{`[1]`, "read model"},
		{`{`, "read model"},
	} {
		if _, err := LoadModel(strings.NewReader(tt.in)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("LoadModel(%s) error %v, want one containing %q", tt.in, err, tt.want)
		}
	}
}

// TestModelDocumented checks that every number has a unique key, a source,
// a known confidence, and a row in the Model doc comment table.
func TestModelDocumented(t *testing.T) {
	src, err := os.ReadFile("model.go")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, p := range DefaultModel().Params() {
		if seen[p.Key] {
			t.Errorf("duplicate key %s", p.Key)
		}
		seen[p.Key] = true
		if p.Source == "" || p.Unit == "" || p.Value <= 0 {
			t.Errorf("%s: incomplete %+v", p.Key, *p)
		}
		switch p.Confidence {
		case FromCode, FromDoc, FromMeasured, Assumed:
		default:
			t.Errorf("%s: confidence %q", p.Key, p.Confidence)
		}
		if !strings.Contains(string(src), "//\t"+p.Key+" ") {
			t.Errorf("%s has no row in the Model doc table", p.Key)
		}
	}
}
