package fleet

import (
	"bytes"
	"maps"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gdtopo/gdtopo/internal/report"
)

// Kubernetes label values, and the name part of label keys.
var labelValueRE = regexp.MustCompile(`^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$`)

// nfd writes r's feature file without an expiry and checks every line's
// form; the map's keys are the names after NFDPrefix.
func nfd(t *testing.T, r *report.Report) map[string]string {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteNFD(&buf, r, time.Time{}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(buf.String(), "\n") {
		t.Error("no newline at the end")
	}
	got := map[string]string{}
	for _, line := range strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n") {
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			t.Errorf("line %q is not key=value", line)
			continue
		}
		name, prefixed := strings.CutPrefix(k, NFDPrefix)
		if !prefixed {
			t.Errorf("%q lacks the %s prefix NFD's guide asks for", k, NFDPrefix)
		}
		if _, dup := got[name]; dup {
			t.Errorf("%s given twice", k)
		}
		got[name] = v
		if name == "" || len(name) > 63 || !labelValueRE.MatchString(name) {
			t.Errorf("%q is not a valid label name", k)
		}
		if len(v) > 63 || !labelValueRE.MatchString(v) {
			t.Errorf("%s=%q is not a valid label value", k, v)
		}
	}
	return got
}

// TestWriteNFDExpiry: the file opens with NFD's expiry directive, in
// RFC3339 as NFD's local source parses it (time.Parse(time.RFC3339, ...)),
// and holds the labels after it; a zero time writes none.
func TestWriteNFDExpiry(t *testing.T) {
	r := fixture(t, "hgx-h100")
	at := time.Date(2026, 3, 1, 15, 4, 5, 0, time.FixedZone("CET", 3600))
	var buf bytes.Buffer
	if err := WriteNFD(&buf, r, at); err != nil {
		t.Fatal(err)
	}
	first, rest, _ := strings.Cut(buf.String(), "\n")
	v, ok := strings.CutPrefix(first, "# +expiry-time=")
	if !ok {
		t.Fatalf("first line %q, want the expiry directive", first)
	}
	if got, err := time.Parse(time.RFC3339, v); err != nil || !got.Equal(at) || v != "2026-03-01T14:04:05Z" {
		t.Errorf("expiry %q (%v, %v), want %s in UTC", v, got, err, at)
	}
	if strings.Contains(rest, "# +") || !strings.HasPrefix(rest, NFDPrefix+"gdtopo.") {
		t.Errorf("after the directive: %.80q, want the labels alone", rest)
	}
	buf.Reset()
	if err := WriteNFD(&buf, r, time.Time{}); err != nil || strings.Contains(buf.String(), "expiry") {
		t.Errorf("a zero time wrote an expiry (%v):\n%.120s", err, buf.String())
	}
}

func TestWriteNFD(t *testing.T) {
	hgx := nfd(t, fixture(t, "hgx-h100"))
	for k, want := range map[string]string{
		"gdtopo.accelerators":       "8",
		"gdtopo.gpu0.best-nic":      "mlx5_0",
		"gdtopo.gpu0.best-path":     "PIX",
		"gdtopo.gpu0.gdr":           "true",
		"gdtopo.gpu0.expected-gbps": "400",
		"gdtopo.gpu7.best-nic":      "mlx5_7",
		"gdtopo.worst-path":         "PIX",
		"gdtopo.gdr":                "true",
		"gdtopo.findings.critical":  "0",
	} {
		if hgx[k] != want {
			t.Errorf("hgx-h100: %s=%q, want %q", k, hgx[k], want)
		}
	}
	v100 := nfd(t, fixture(t, "sys-4029gp-v100"))
	for k, want := range map[string]string{
		"gdtopo.gpu5.best-nic":             "mlx5_1",
		"gdtopo.gdr":                       "false",
		"gdtopo.findings.critical":         "2",
		"gdtopo.finding.acs-redirect":      "critical", // also found at info: the worst is kept
		"gdtopo.finding.iommu-translation": "critical",
		"gdtopo.finding.nic-shared":        "info",
	} {
		if v100[k] != want {
			t.Errorf("sys-4029gp-v100: %s=%q, want %q", k, v100[k], want)
		}
	}
	// The H200 microVM's only NIC is virtio-net: no label names it, or
	// says the accelerator is aligned with it.
	h200 := nfd(t, fixture(t, "recorded-h200"))
	want := map[string]string{
		"gdtopo.accelerators":             "1",
		"gdtopo.gpu0.pcie-root":           "pci0000-00",
		"gdtopo.gpu0.gdr":                 "false",
		"gdtopo.gdr":                      "false",
		"gdtopo.findings.critical":        "0",
		"gdtopo.findings.warning":         "2",
		"gdtopo.findings.info":            "0",
		"gdtopo.finding.no-rdma-nic":      "warning",
		"gdtopo.finding.virtual-topology": "warning",
	}
	if !maps.Equal(h200, want) {
		t.Errorf("recorded-h200: %v, want %v", h200, want)
	}
}

// The best NIC of every accelerator is the report's, not one NFD picks.
func TestWriteNFDBestNICIsTheReports(t *testing.T) {
	r := fixture(t, "hgx-h100")
	got := nfd(t, r)
	for _, a := range r.Accelerators {
		key := "gdtopo." + strings.ToLower(a.Alias) + ".best-nic"
		if a.BestNICName == "" || got[key] != a.BestNICName {
			t.Errorf("%s=%q, want the report's %q", key, got[key], a.BestNICName)
		}
	}
}

func TestLabelValue(t *testing.T) {
	for in, want := range map[string]string{
		"mlx5_0":                       "mlx5_0",
		"0000:1b:00.0":                 "0000-1b-00.0",
		"-_.x.-":                       "x",
		"":                             "",
		"über nic":                     "ber-nic",
		strings.Repeat("a", 70):        strings.Repeat("a", 63),
		strings.Repeat("a", 62) + "-b": strings.Repeat("a", 62),
	} {
		got := LabelValue(in)
		if got != want || !labelValueRE.MatchString(got) || len(got) > 63 {
			t.Errorf("LabelValue(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestNFDUnknownPath checks that an accelerator with a pair whose path the
// source cannot tell (plain lspci) gets no best NIC: it may be that one.
func TestNFDUnknownPath(t *testing.T) {
	r := &report.Report{
		Devices: []report.Device{{BDF: "0000:06:00.0", Alias: "GPU0", Kind: "accelerator"}, {BDF: "0000:03:00.0", Alias: "NIC0", Kind: "nic"}, {BDF: "0000:83:00.0", Alias: "NIC1", Kind: "nic"}},
		Pairs: []report.Pair{
			{A: "0000:06:00.0", B: "0000:03:00.0", Kinds: []string{"accelerator", "nic"}, SMI: "?", NCCL: "?", Path: "unknown", LabelUncertain: true},
			{A: "0000:06:00.0", B: "0000:83:00.0", Kinds: []string{"accelerator", "nic"}, SMI: "SYS", NCCL: "SYS", Path: "across sockets"},
		},
	}
	got := nfd(t, r)
	if v, ok := got["gdtopo.gpu0.best-nic"]; ok {
		t.Errorf("best-nic %q for an accelerator whose nearest NIC may be behind the unknown path", v)
	}
}

// TestNFDUnidentified: a source whose display controllers have no vendor
// IDs (and no accelerator identified) gets no gdtopo.accelerators label:
// 0 would be a guess; nor does a tree fragment, whose rest may hold more.
// A source that identifies none and hides none keeps its 0.
func TestNFDUnidentified(t *testing.T) {
	r := &report.Report{Devices: []report.Device{{BDF: "0004:05:00.0", Kind: "other"}}}
	if got := nfd(t, r); got["gdtopo.accelerators"] != "0" {
		t.Errorf("nothing hidden: accelerators %q, want 0", got["gdtopo.accelerators"])
	}
	r.Summary.UnidentifiedFunctions = 1
	if v, ok := nfd(t, r)["gdtopo.accelerators"]; ok {
		t.Errorf("a display controller without a vendor: accelerators=%q, want the label left out", v)
	}
	r.Summary.UnidentifiedFunctions, r.Summary.Partial = 0, "a tree fragment: give the whole lspci -tv"
	r.Devices = append(r.Devices, report.Device{BDF: "0000:5c:00.0", Kind: "accelerator"})
	if v, ok := nfd(t, r)["gdtopo.accelerators"]; ok {
		t.Errorf("a tree fragment: accelerators=%q, want the label left out", v)
	}
}
