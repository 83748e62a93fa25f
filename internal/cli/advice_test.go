package cli

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gdtopo/gdtopo/advisor"
	"github.com/gdtopo/gdtopo/fixtures"
	"github.com/gdtopo/gdtopo/internal/report"
)

// writeVariant writes a fault variant of the test server to a temporary
// folder.
func writeVariant(t *testing.T, f fixtures.Fault) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "tree")
	if err := fixtures.Write(dir, fixtures.FaultVariant(f)); err != nil {
		t.Fatal(err)
	}
	return dir
}

type checkJSON struct {
	Findings []struct {
		Code, Severity string
		Devices        []string
	}
	Pairs []struct {
		A, B       string
		SMI        string `json:"smi"`
		NCCL       string `json:"nccl"`
		Prediction *struct {
			ExpectedGbps float64 `json:"expected_gbps"`
			Efficiency   float64 `json:"efficiency"`
			GDR          bool    `json:"gdr"`
		} `json:"prediction"`
	}
	Plan *struct {
		Assignments []struct{ Accelerator, NIC string }
		Ranks       []struct{ Env []string }
	}
}

func checkVariant(t *testing.T, dir string, failOn string) (int, checkJSON) {
	t.Helper()
	code, out, errb := run("check", dir, "-o", "json", "--fail-on", failOn)
	return code, onlyReport(t, out, errb)
}

// onlyReport is the report of a check -o json of one source.
func onlyReport(t *testing.T, out, errb string) checkJSON {
	t.Helper()
	var c struct {
		Sources []struct{ Report *checkJSON }
	}
	if err := json.Unmarshal([]byte(out), &c); err != nil || len(c.Sources) != 1 || c.Sources[0].Report == nil {
		t.Fatalf("check -o json: %v, %d sources; stderr %s", err, len(c.Sources), errb)
	}
	return *c.Sources[0].Report
}

// TestFaultsFireAndCleanIsSilent: every finding the fault variants carry
// fires on the variant with the fault, and the clean server has none.
func TestFaultsFireAndCleanIsSilent(t *testing.T) {
	code, clean := checkVariant(t, writeVariant(t, fixtures.FaultNone), "info")
	if code != ExitOK || len(clean.Findings) != 0 {
		t.Fatalf("clean server: exit %d, findings %+v; want 0 and none", code, clean.Findings)
	}
	if clean.Plan == nil || len(clean.Plan.Assignments) != 4 {
		t.Fatalf("clean server: plan %+v, want 4 assignments", clean.Plan)
	}
	for _, a := range clean.Plan.Assignments { // each GPU gets the NIC on its own switch
		if a.NIC == "" || a.Accelerator == "" {
			t.Errorf("plan assignment %+v", a)
		}
	}
	for _, f := range fixtures.Faults {
		t.Run(string(f), func(t *testing.T) {
			t.Parallel()
			_, r := checkVariant(t, writeVariant(t, f), "info")
			var got []string
			for _, x := range r.Findings {
				got = append(got, x.Severity+":"+x.Code)
				if x.Code == string(f) {
					return
				}
			}
			t.Errorf("fault %s raised %v, not %s", f, got, f)
		})
	}
}

// TestFailOn: exit status 3 when a finding reaches --fail-on, 0 below it.
func TestFailOn(t *testing.T) {
	dir := writeVariant(t, fixtures.FaultNICx8) // a warning: link-width-degraded
	for _, tt := range []struct {
		level string
		want  int
	}{{"critical", ExitOK}, {"warning", ExitFindings}, {"info", ExitFindings}} {
		code, _, errb := run("check", dir, "--fail-on", tt.level)
		if code != tt.want {
			t.Errorf("--fail-on %s: exit %d (%s), want %d", tt.level, code, errb, tt.want)
		}
		if code == ExitFindings && !strings.Contains(errb, "at or above "+tt.level) {
			t.Errorf("--fail-on %s: stderr %q", tt.level, errb)
		}
	}
	if code, _, errb := run("check", dir, "--fail-on", "never"); code != ExitOK {
		t.Errorf("--fail-on never: exit %d (%s), want 0", code, errb)
	}
	if code, _, errb := run("check", dir, "--fail-on", "sometimes"); code != ExitUsage {
		t.Errorf("--fail-on sometimes: exit %d (%s), want 2", code, errb)
	}
	if code, _, errb := run("check", dir, "--nccl-version", "1.0"); code != ExitUsage || !strings.Contains(errb, "--nccl-version") {
		t.Errorf("--nccl-version 1.0: exit %d (%s), want 2", code, errb)
	}
}

// TestPredictionsAndModel: predictions reach the JSON, a degraded NIC link
// predicts lower, and --model replaces numbers.
func TestPredictionsAndModel(t *testing.T) {
	_, clean := checkVariant(t, writeVariant(t, fixtures.FaultNone), "critical")
	_, x8 := checkVariant(t, writeVariant(t, fixtures.FaultNICx8), "critical")
	expected := func(r checkJSON, smi string) (best float64) {
		for _, p := range r.Pairs {
			if p.Prediction != nil && p.SMI == smi && p.Prediction.ExpectedGbps > best {
				best = p.Prediction.ExpectedGbps
			}
		}
		return best
	}
	pix, sys := expected(clean, "PIX"), expected(clean, "SYS")
	if pix <= 0 || sys <= 0 || sys >= pix {
		t.Fatalf("clean: PIX pairs predict %v Gb/s, SYS pairs %v: want both, SYS lower", pix, sys)
	}
	min := func(r checkJSON) float64 {
		m := 0.0
		for _, p := range r.Pairs {
			if p.Prediction != nil && p.SMI == "PIX" && (m == 0 || p.Prediction.ExpectedGbps < m) {
				m = p.Prediction.ExpectedGbps
			}
		}
		return m
	}
	if min(x8) >= min(clean) {
		t.Errorf("a NIC at x8 predicts %v Gb/s at worst, clean %v: a degraded link must not predict as fast", min(x8), min(clean))
	}
	model := filepath.Join(t.TempDir(), "model.json")
	if err := os.WriteFile(model, []byte(`{"sys_p2p_gbps": 10}`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errb := run("check", writeVariant(t, fixtures.FaultNone), "-o", "json", "--model", model)
	if code != ExitOK {
		t.Fatalf("--model: exit %d: %s", code, errb)
	}
	r := onlyReport(t, out, errb)
	if got := expected(r, "SYS"); got >= sys {
		t.Errorf("--model sys_p2p_gbps 10: SYS pairs predict %v Gb/s, default %v", got, sys)
	}
	// A fleet run reads the model once and applies it to every source.
	variant := writeVariant(t, fixtures.FaultNone)
	code, out, errb = run("check", variant, variant, "-o", "jsonl", "--model", model)
	if code != ExitOK {
		t.Fatalf("--model over two sources: exit %d: %s", code, errb)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 {
		t.Fatalf("--model over two sources: %d lines", len(lines))
	}
	for i, l := range lines {
		var line struct{ Report checkJSON }
		if err := json.Unmarshal([]byte(l), &line); err != nil {
			t.Fatal(err)
		}
		if got := expected(line.Report, "SYS"); got >= sys {
			t.Errorf("--model over two sources, line %d: SYS pairs predict %v Gb/s, default %v", i+1, got, sys)
		}
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte(`{"no_such_key": 1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errb := run("check", writeVariant(t, fixtures.FaultNone), "--model", bad); code != ExitError || !strings.Contains(errb, "no_such_key") {
		t.Errorf("--model with an unknown key: exit %d, stderr %q", code, errb)
	}
	if code, _, errb := run("check", variant, "--model", t.TempDir()); code != ExitError || !strings.Contains(errb, "a folder, not a JSON file") {
		t.Errorf("--model with a folder: exit %d, stderr %q", code, errb)
	}
	if code, out, errb := run("check", variant, variant, "-o", "jsonl", "--model", bad); code != ExitError || out != "" || strings.Count(errb, "\n") != 1 {
		t.Errorf("--model with an unknown key over two sources: exit %d, stdout %q, stderr %q; want 1, nothing, one line", code, out, errb)
	}
}

// TestEveryCodeDocumented: every code the advisor raises is documented in
// docs/advice.md.
func TestEveryCodeDocumented(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "advice.md"))
	if err != nil {
		t.Fatal(err)
	}
	for code := range advisor.Codes {
		if !strings.Contains(string(doc), "| `"+code+"` |") {
			t.Errorf("finding code %s has no row in docs/advice.md", code)
		}
	}
}

func TestCompare(t *testing.T) {
	a, b := fx("sys-4029gp-v100"), fx("hgx-h100")
	code, out, errb := run("compare", a, b, "-o", "json")
	if code != ExitOK {
		t.Fatalf("compare: exit %d: %s", code, errb)
	}
	var r struct {
		Servers []struct {
			Source string
			Rank   int
		}
		Verdict struct {
			Best, Measure, Sentence string
			Tie                     bool
		}
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Servers) != 2 || r.Servers[1].Rank != 1 || r.Servers[0].Rank != 2 {
		t.Fatalf("servers %+v: want the HGX H100 ranked first", r.Servers)
	}
	if r.Verdict.Best != b || r.Verdict.Tie || !strings.HasPrefix(r.Verdict.Sentence, b+" ranks first: its rail plan gives GPUDirect RDMA to 8 of 8 accelerators against 0 of 8") {
		t.Errorf("verdict %+v: want the HGX named, winning on GPUDirect RDMA for all its accelerators", r.Verdict)
	}
	code, out, _ = run("compare", a, b, "-o", "markdown")
	if code != ExitOK || !strings.Contains(out, "| Plan: worst pair ") || !strings.Contains(out, "## Verdict") {
		t.Errorf("markdown report:\n%s", out)
	}
	if code, _, _ := run("compare", a); code != ExitUsage {
		t.Errorf("compare with one source: exit %d, want 2", code)
	}
}

// TestCompareNoRDMA: the H200 microVM's only NIC is virtio-net, so it
// has no NIC for GPUDirect RDMA: compare must not count it as a rail.
func TestCompareNoRDMA(t *testing.T) {
	h200 := fx("recorded-h200")
	code, out, errb := run("compare", h200, fx("hgx-h100"), "-o", "json")
	if code != ExitOK {
		t.Fatalf("compare: exit %d: %s", code, errb)
	}
	var r struct {
		Servers []struct {
			Source, NICs string
			Measures     struct {
				RailNICs int `json:"rail_nics"`
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil || len(r.Servers) != 2 {
		t.Fatalf("%v: %s", err, out)
	}
	if s := r.Servers[0]; s.Measures.RailNICs != 0 || s.NICs != "none (1 x Virtio network device: no RDMA)" {
		t.Errorf("recorded-h200: %d rail NICs, NICs %q; want none", s.Measures.RailNICs, s.NICs)
	}
	if s := r.Servers[1]; s.Measures.RailNICs != 8 {
		t.Errorf("hgx-h100: %d rail NICs, want 8", s.Measures.RailNICs)
	}
}

// TestTextSources: lspci dumps, NCCL topology XML and standard input are
// recognised by content and analysed like a sysfs tree.
func TestTextSources(t *testing.T) {
	corpus, err := filepath.Abs(filepath.Join("..", "..", "..", "shared", "corpus"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(corpus); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("corpus missing in CI: %v", err)
		}
		t.Skipf("corpus not found at %s (outside CI this test is skipped)", corpus)
	}
	paired := filepath.Join(corpus, "paired", "puget-wrx90-threadripper-2xrtx6000ada-cx7")
	for _, tt := range []struct {
		args   []string
		stdin  string
		format string
		want   string // a substring of the output
	}{
		{[]string{"matrix", filepath.Join(paired, "lspci-tv.txt")}, "", "PHB", "NODE?"}, // -tv alone has no NUMA: NODE or SYS
		{[]string{"check", filepath.Join(corpus, "nccl-xml", "azure-ndv4-topo.xml")}, "", "NCCL topology XML", "PIX"},
		{[]string{"check", "-"}, catFiles(t, filepath.Join(paired, "lspci-tv.txt"), filepath.Join(paired, "lspci-vvv.md")), "lspci output", "NODE"},
	} {
		var out, errb strings.Builder
		code := Main(tt.args, strings.NewReader(tt.stdin), &out, &errb)
		if code != ExitOK && code != ExitFindings {
			t.Errorf("gdtopo %v: exit %d: %s", tt.args, code, errb.String())
			continue
		}
		if !strings.Contains(out.String(), tt.format) || !strings.Contains(out.String(), tt.want) {
			t.Errorf("gdtopo %v: output lacks %q or %q:\n%s", tt.args, tt.format, tt.want, out.String())
		}
	}
	code, _, errb := run("check", filepath.Join(paired, "numactl.txt"))
	if code != ExitError || !strings.Contains(errb, "numactl.txt") {
		t.Errorf("a file that is no topology: exit %d, stderr %q", code, errb)
	}
}

func catFiles(t *testing.T, files ...string) string {
	t.Helper()
	var b strings.Builder
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(data)
		b.WriteString("\n")
	}
	return b.String()
}

// TestExport: the NCCL topology file gdtopo writes reads back to the same
// NCCL labels; files are written whole or not at all.
func TestExport(t *testing.T) {
	src := fx("hgx-h100")
	dir := t.TempDir()
	xmlFile := filepath.Join(dir, "topo.xml")
	if code, _, errb := run("export", "-o", "nccl-xml", src, "--output-file", xmlFile); code != ExitOK {
		t.Fatalf("export nccl-xml: exit %d: %s", code, errb)
	}
	labels := func(name string) map[string]string {
		code, out, errb := run("check", name, "-o", "json")
		if code != ExitOK && code != ExitFindings {
			t.Fatalf("check %s: exit %d: %s", name, code, errb)
		}
		r := onlyReport(t, out, errb)
		m := map[string]string{}
		for _, p := range r.Pairs {
			m[p.A+" "+p.B] = p.NCCL
		}
		return m
	}
	want, got := labels(src), labels(xmlFile)
	if len(got) == 0 {
		t.Fatal("the exported topology has no pairs")
	}
	for k, v := range got {
		if want[k] != v {
			t.Errorf("%s: NCCL label %s from the exported file, %s from the tree", k, v, want[k])
		}
	}
	for _, f := range []string{"svg", "dot"} {
		code, out, errb := run("export", "-o", f, src)
		if code != ExitOK || !strings.Contains(out, "GPU7") {
			t.Errorf("export -o %s: exit %d (%s)", f, code, errb)
		}
	}
	if code, _, errb := run("export", "-o", "png", src); code != ExitUsage || !strings.Contains(errb, "nccl-xml, svg, dot, html") {
		t.Errorf("export -o png: exit %d (%s), want 2 and the valid formats", code, errb)
	}
	bad := filepath.Join(dir, "no-such-folder", "x.svg")
	if code, _, errb := run("export", "-o", "svg", src, bad); code != ExitError || !strings.Contains(errb, bad) {
		t.Errorf("export to %s: exit %d, stderr %q", bad, code, errb)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("the folder holds %d entries after one good and one failed export, want 1 (no temporary files left)", len(entries))
	}
}

// TestFleet: several sources, one failing, in JSON lines; the exit status
// is the highest of them.
func TestFleet(t *testing.T) {
	code, out, errb := run("check", fx("hgx-h100"), fx("no-such-machine"), fx("sys-4029gp-v100"), "-o", "jsonl")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d JSON lines, want 3:\n%s", len(lines), out)
	}
	var l struct {
		Source     string
		Error      string
		ExitStatus int `json:"exit_status"`
		Report     *json.RawMessage
	}
	if err := json.Unmarshal([]byte(lines[1]), &l); err != nil || l.Error == "" || l.Report != nil || l.ExitStatus != ExitError {
		t.Errorf("the failing source's line %s: %+v, %v", lines[1], l, err)
	}
	if !strings.Contains(errb, "no-such-machine") {
		t.Errorf("stderr %q does not name the failing source", errb)
	}
	// A line is the -o json report less every pair's hops.
	var line struct{ Report map[string]any }
	if err := json.Unmarshal([]byte(lines[0]), &line); err != nil {
		t.Fatal(err)
	}
	_, single, _ := run("check", fx("hgx-h100"), "-o", "json")
	var doc struct {
		Sources []struct{ Report map[string]any }
	}
	if err := json.Unmarshal([]byte(single), &doc); err != nil || len(doc.Sources) != 1 {
		t.Fatal(err)
	}
	whole := doc.Sources[0].Report
	for _, p := range whole["pairs"].([]any) {
		p.(map[string]any)["hops"] = []any{}
	}
	if a, b := mustJSON(t, line.Report), mustJSON(t, whole); a != b {
		t.Errorf("a jsonl line's report differs from -o json less hops:\n%.600s\n%.600s", a, b)
	}
	if code != ExitFindings { // sys-4029gp-v100 has critical findings: 3 outranks 1
		t.Errorf("exit %d, want 3", code)
	}
	// The -o json document (written a source at a time) holds the same
	// sources in the same order, and the same exit status after them.
	code, out, _ = run("check", fx("hgx-h100"), fx("no-such-machine"), fx("sys-4029gp-v100"), "-o", "json")
	var several struct {
		Sources []struct {
			Source     string
			Error      string
			ExitStatus int `json:"exit_status"`
		}
		ExitStatus int `json:"exit_status"`
	}
	if err := json.Unmarshal([]byte(out), &several); err != nil || len(several.Sources) != len(lines) {
		t.Fatalf("-o json over three sources: %v, %d sources:\n%.600s", err, len(several.Sources), out)
	}
	for i, s := range several.Sources {
		if err := json.Unmarshal([]byte(lines[i]), &l); err != nil || s.Source != l.Source || s.Error != l.Error || s.ExitStatus != l.ExitStatus {
			t.Errorf("-o json source %d %+v, -o jsonl line %+v (%v)", i, s, l, err)
		}
	}
	if code != ExitFindings || several.ExitStatus != ExitFindings {
		t.Errorf("-o json over three sources: exit %d, exit_status %d, want 3", code, several.ExitStatus)
	}
	if code, _, _ := run("check", fx("hgx-h100"), fx("dgx-a100"), "-o", "nfd"); code != ExitUsage {
		t.Errorf("-o nfd with two sources: exit %d, want 2", code)
	}
	code, out, _ = run("check", filepath.Join("..", "..", "fixtures", "*-vm*.tar.gz"))
	if code != ExitOK || strings.Count(out, "==> ") != 2 {
		t.Errorf("a quoted glob: exit %d, %d sources reported:\n%s", code, strings.Count(out, "==> "), out)
	}
}

// TestSnapshot: a snapshot of a fixture analyses like the fixture.
func TestSnapshot(t *testing.T) {
	src := fx("dgx-a100")
	file := filepath.Join(t.TempDir(), "dgx.tar.gz")
	if code, _, errb := run("snapshot", src, "--output-file", file); code != ExitOK {
		t.Fatalf("snapshot: exit %d: %s", code, errb)
	}
	pairs := func(name string) string {
		_, out, errb := run("check", name, "-o", "json")
		r := onlyReport(t, out, errb)
		b, _ := json.Marshal(r.Pairs)
		return string(b)
	}
	if a, b := pairs(src), pairs(file); a != b || len(a) < 100 {
		t.Errorf("pairs differ between the fixture and its snapshot:\n%s\n%s", a, b)
	}
	if code, _, errb := run("snapshot"); code != ExitUsage || !strings.Contains(errb, "--output-file") {
		t.Errorf("gdtopo snapshot: exit %d (%s), want 2", code, errb)
	}
	if code, _, errb := run("snapshot", "-o", file); code != ExitUsage || !strings.Contains(errb, "valid formats are tar.gz") {
		t.Errorf("gdtopo snapshot -o FILE: exit %d (%s), want 2 and the valid format", code, errb)
	}
	// An archive on standard input analyses like the file.
	var archive bytes.Buffer
	if code := Main([]string{"snapshot", src, "--output-file", "-"}, strings.NewReader(""), &archive, io.Discard); code != ExitOK {
		t.Fatalf("snapshot to standard output: exit %d", code)
	}
	var out, errb bytes.Buffer
	code := Main([]string{"check", "-", "-o", "json"}, bytes.NewReader(archive.Bytes()), &out, &errb)
	if code != ExitOK && code != ExitFindings {
		t.Fatalf("check - of a snapshot: exit %d: %s", code, errb.String())
	}
	got, _ := json.Marshal(onlyReport(t, out.String(), errb.String()).Pairs)
	if want := pairs(src); string(got) != want {
		t.Errorf("pairs differ between the fixture and its snapshot on standard input:\n%s\n%s", want, got)
	}
}

// mustJSON encodes v, with sorted keys for maps.
func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestUnidentifiedNotNone: real sources that give neither vendor IDs nor
// names for some functions (the POWER9 capture's six VGA-class V100s; an
// NCCL topology file that lists bus IDs alone) are never reported as
// having no accelerators: the verdict, the summary, what the source lacks,
// the JSON count and compare's verdict all say what is not identified.
func TestUnidentifiedNotNone(t *testing.T) {
	for _, tt := range []struct {
		source []string
		count  int
		words  string
	}{
		{[]string{"hwloc", "nvidiagpunumanodes.tar.bz2"}, 6, "6 display controllers of unknown vendor"},
		{[]string{"nccl-xml", "aws-g5.48xl-topo.xml"}, 9, "9 functions of unknown class and vendor"},
	} {
		src := corpusPath(t, tt.source...)
		code, out, errb := run("check", src)
		if code != ExitOK {
			t.Fatalf("check %s: exit %d: %s", src, code, errb)
		}
		for _, want := range []string{
			"no accelerators identified among " + tt.words + "\n",
			"Accelerators   none identified (" + tt.words + ")",
			"none is counted as an accelerator",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("check %s lacks %q:\n%s", src, want, out)
			}
		}
		if strings.Contains(out, "no accelerators found") || strings.Contains(out, "Accelerators   none\n") {
			t.Errorf("check %s says there are no accelerators:\n%s", src, out)
		}
		_, out, _ = run("check", "-o", "json", src)
		var doc struct {
			Sources []struct {
				Report struct {
					Summary struct {
						Unidentified int `json:"unidentified_functions"`
					} `json:"summary"`
				} `json:"report"`
			} `json:"sources"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Sources) != 1 {
			t.Fatalf("check -o json %s: %v\n%s", src, err, out)
		}
		if got := doc.Sources[0].Report.Summary.Unidentified; got != tt.count {
			t.Errorf("check -o json %s: unidentified_functions %d, want %d", src, got, tt.count)
		}
	}
	_, out, _ := run("compare", corpusPath(t, "hwloc", "nvidiagpunumanodes.tar.bz2"), fx("recorded-vm"))
	if !strings.Contains(out, "has no accelerator identified (6 functions the source does not identify)") {
		t.Errorf("compare's verdict does not say the accelerators are unidentified:\n%s", out)
	}
}

// TestVerdictPathsUnknown: a plain lspci listing (Lenovo SD665-N V3: four
// H100s, six ConnectX functions shown, the I210 left out, no hierarchy)
// gives no rail plan, and check's first
// line says why, UNKNOWN rather than "OK: no findings".
func TestVerdictPathsUnknown(t *testing.T) {
	src := corpusPath(t, "lspci", "lenovo-sd665n-v3-4xh100-genoa.lspci.txt")
	code, out, errb := run("check", src)
	if code != ExitOK {
		t.Fatalf("check %s: exit %d: %s", src, code, errb)
	}
	if first, _, _ := strings.Cut(out, "\n"); first != "UNKNOWN: no findings; no rail plan: 24 of 24 accelerator–NIC paths unknown" {
		t.Errorf("check %s opens with %q", src, first)
	}
}

// TestFragmentNotNone: the two halves of one lspci -tv pasted in a bug
// report. Neither is said to have no accelerator or no RDMA NIC: fragment
// b's six ConnectX-5 functions are skipped with their unknown bus, and
// fragment a is a piece of a tree whose rest may hold accelerators. check
// says so in its first line and summary, and compare ranks neither below
// a whole capture for lacking RDMA.
func TestFragmentNotNone(t *testing.T) {
	a := corpusPath(t, "lspci", "nccl-246-8xv100pcie-cx5-skx.fragment-a.txt")
	b := corpusPath(t, "lspci", "nccl-246-8xv100pcie-cx5-skx.fragment-b.txt")
	for _, tt := range []struct {
		src, first, row string
	}{
		{b, "UNKNOWN: no findings; no NICs placed: 6 NIC functions skipped, their bus not in the input (a tree fragment: give the whole lspci -tv)",
			"NICs           none placed; skipped: 6 x Mellanox Technologies MT27800 Family [ConnectX-5 Virtual Function] (bus not in the input)"},
		{a, "UNKNOWN: no findings; no accelerators in this partial input (a tree fragment: give the whole lspci -tv)",
			"Accelerators   none in the input (a tree fragment: give the whole lspci -tv)"},
	} {
		code, out, errb := run("check", tt.src)
		if code != ExitOK {
			t.Fatalf("check %s: exit %d: %s", tt.src, code, errb)
		}
		if first, _, _ := strings.Cut(out, "\n"); first != tt.first {
			t.Errorf("check %s opens with %q, want %q", tt.src, first, tt.first)
		}
		if !strings.Contains(out, "\n"+tt.row+"\n") || strings.Contains(out, "nothing for GPUDirect RDMA to use") {
			t.Errorf("check %s: no line %q, or says nothing can use GPUDirect RDMA:\n%s", tt.src, tt.row, out)
		}
	}
	code, out, errb := run("compare", b, fx("hgx-h100"), a)
	if code != ExitOK {
		t.Fatalf("compare: exit %d: %s", code, errb)
	}
	_, verdict, _ := strings.Cut(out, "\nVerdict\n")
	if strings.Contains(verdict, "no NIC that can do RDMA") || strings.Contains(verdict, "has no accelerator") ||
		!strings.Contains(verdict, "cannot be ranked: its source holds part of the machine, with 6 NICs it does not place") {
		t.Errorf("compare's verdict: %s", verdict)
	}
}

// TestFragmentTree: tree of a fragment lists what it skipped and says the
// source is partial; of a whole capture, neither.
func TestFragmentTree(t *testing.T) {
	b := corpusPath(t, "lspci", "nccl-246-8xv100pcie-cx5-skx.fragment-b.txt")
	for _, tt := range []struct {
		src  string
		want bool
	}{{b, true}, {fx("hgx-h100"), false}} {
		code, out, errb := run("tree", tt.src)
		if code != ExitOK {
			t.Fatalf("tree %s: exit %d: %s", tt.src, code, errb)
		}
		skipped := strings.Contains(out, "\nskipped, their bus not in the input: 6 x Mellanox Technologies MT27800 Family [ConnectX-5 Virtual Function]\n")
		partial := strings.Contains(out, "\nthe source holds part of the machine (a tree fragment: give the whole lspci -tv)\n")
		if skipped != tt.want || partial != tt.want {
			t.Errorf("tree %s: skipped line %v, partial line %v, want %v:\n%s", tt.src, skipped, partial, tt.want, out)
		}
	}
}

// TestFragmentPath: path between two functions of an NCCL dump that starts
// inside the tree, which meet only in the part the dump lacks, is unknown
// and says so, with no hops and no PHB.
func TestFragmentPath(t *testing.T) {
	src := corpusPath(t, "nccl-xml", "nccl-1505-dgxa100.fragment.xml")
	code, out, errb := run("path", "GPU0", "NIC0", src)
	if code != ExitOK {
		t.Fatalf("path: exit %d: %s", code, errb)
	}
	want := "nvidia-smi ?, NCCL ?, unknown\nNote: the source holds part of the machine, not where this pair's paths meet (the text starts inside the tree: give the whole NCCL_TOPO_DUMP_FILE output)\n"
	if !strings.HasSuffix(out, want) {
		t.Errorf("path:\n%s\nwant it to end %q", out, want)
	}
}

// TestCeilingNotEstimate: Azure's NDv5 topology file gives no NIC port
// rate, so its NICs' Gen5 x16 links bound the rail plan: check says "≤"
// and why, and compare does not rank it above a capture whose 400 Gb/s
// NICs are known, on a ceiling above their figure.
func TestCeilingNotEstimate(t *testing.T) {
	src := corpusPath(t, "nccl-xml", "azure-ndv5-topo.xml")
	code, out, errb := run("check", src)
	if code != ExitOK {
		t.Fatalf("check %s: exit %d: %s", src, code, errb)
	}
	if first, _, _ := strings.Cut(out, "\n"); !strings.HasSuffix(first, ", worst ≤ 461 Gb/s") {
		t.Errorf("check %s opens with %q", src, first)
	}
	if !strings.Contains(out, "Rail plan (worst ≤ 461 Gb/s, mean ≤ 461 Gb/s)") {
		t.Errorf("check %s: the rail plan does not say its figures are ceilings:\n%s", src, out)
	}
	if _, out, _ = run("check", "-v", src); !strings.Contains(out, "\n≤: a ceiling, not an estimate") {
		t.Errorf("check -v %s: the rail plan does not say what ≤ means:\n%s", src, out)
	}
	b200 := fx("hgx-b200")
	code, out, errb = run("compare", "-o", "json", src, b200)
	if code != ExitOK {
		t.Fatalf("compare: exit %d: %s", code, errb)
	}
	var c report.Comparison
	if err := json.Unmarshal([]byte(out), &c); err != nil {
		t.Fatal(err)
	}
	// Their plans use eight NICs each: the ceiling decides nothing, so
	// the file does not rank first.
	if c.Verdict.Best == src || !c.Servers[0].Measures.AtMost || !strings.Contains(c.Verdict.Sentence, "ceilings that do not decide") {
		t.Errorf("compare: %+v", c.Verdict)
	}
}

// TestNCCLTopologyWording: an NCCL topology file records each link's
// maximum, so path --explain calls its bottleneck the narrowest link at its
// max, never "current" or "now", and JSON says so; a capture keeps
// "current". It lists only the NUMA nodes holding devices, with their CPU
// masks: AWS's p5 file gives one node of 48 CPUs on a 192-vCPU instance,
// so check counts the file's masks, not the machine's CPUs.
func TestNCCLTopologyWording(t *testing.T) {
	_, out, _ := run("check", corpusPath(t, "nccl-xml", "aws-p5.48xl-topo.xml"))
	for _, want := range []string{"48 logical CPUs in the file's CPU masks\n", "NUMA nodes     1 holding devices (0: socket ?); NCCL's topology lists no others\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("check aws-p5.48xl-topo.xml lacks %q:\n%s", want, out)
		}
	}

	src := corpusPath(t, "nccl-xml", "azure-ndv5-topo.xml")
	code, out, errb := run("path", "GPU0", "NIC0", src, "--explain")
	if code != ExitOK {
		t.Fatalf("path %s: exit %d: %s", src, code, errb)
	}
	if !strings.Contains(out, "narrowest PCIe link at its max") || strings.Contains(out, "current PCIe link") || strings.Contains(out, " now") {
		t.Errorf("path --explain %s speaks of links now:\n%s", src, out)
	}
	var v report.PathView
	if _, out, _ = run("path", "GPU0", "NIC0", src, "-o", "json"); json.Unmarshal([]byte(out), &v) != nil || !v.LinksAtMax {
		t.Errorf("path -o json %s: links_at_max not true:\n%s", src, out)
	}
	if _, out, _ = run("path", "GPU0", "NIC0", fx("hgx-h100"), "--explain"); !strings.Contains(out, "narrowest current PCIe link") {
		t.Errorf("path --explain hgx-h100 lost its current link:\n%s", out)
	}
}

// TestElidedTreePartial: an lspci -tv pasted with its root bus cut at
// "..." (nccl-tests#256) is partial: check says so in its first line, and
// compare does not rank it above a whole capture.
func TestElidedTreePartial(t *testing.T) {
	src := corpusPath(t, "lspci", "nccl-tests-256-h200-vm.partial.lspci-tv.txt")
	code, out, errb := run("check", src)
	if code != ExitOK {
		t.Fatalf("check %s: exit %d: %s", src, code, errb)
	}
	if first, _, _ := strings.Cut(out, "\n"); !strings.HasSuffix(first, "; partial input (lines left out at "+src+" line 19: give the whole lspci output)") {
		t.Errorf("check %s opens with %q", src, first)
	}
	h100 := fx("hgx-h100")
	code, out, errb = run("compare", src, h100)
	if code != ExitOK {
		t.Fatalf("compare: exit %d: %s", code, errb)
	}
	_, verdict, _ := strings.Cut(out, "\nVerdict\n")
	if !strings.HasPrefix(verdict, h100+" ranks first") || !strings.Contains(verdict, "cannot be ranked: its source holds part of the machine") {
		t.Errorf("compare's verdict: %s", verdict)
	}
}

// TestMultiRailP5: AWS p5.48xlarge's topology puts four 100 Gb/s EFA NICs
// under each H100's switch; NCCL spreads each GPU's channels over all four
// (ncclTopoGetLocalNetType), so the plan gives each accelerator four NICs
// and 400 Gb/s. EFA runs through aws-ofi-nccl, which picks NICs itself
// (src/nccl_ofi_topo.cpp, nccl_ofi_topo_group), and NCCL's IB transport,
// the only reader of NCCL_IB_HCA (src/transport/net_ib/init.cc,
// ncclIbInitDevices), skips it: no rank gets NCCL_IB_HCA, a note says so.
func TestMultiRailP5(t *testing.T) {
	src := corpusPath(t, "nccl-xml", "aws-p5.48xl-topo.xml")
	code, out, errb := run("check", "-o", "json", src)
	if code != ExitOK {
		t.Fatalf("check %s: exit %d: %s", src, code, errb)
	}
	var doc struct {
		Sources []struct{ Report report.Report } `json:"sources"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Sources) != 1 {
		t.Fatalf("check -o json: %v", err)
	}
	pl := doc.Sources[0].Report.Plan
	if pl.WorstGbps != 400 || len(pl.Assignments) != 8 {
		t.Errorf("plan worst %.1f Gb/s, %d assignments; want 400, 8", pl.WorstGbps, len(pl.Assignments))
	}
	for _, as := range pl.Assignments {
		if len(as.MoreNICs) != 3 {
			t.Errorf("%s: %s + %v, want 3 more NICs", as.Accelerator, as.NIC, as.MoreNICs)
		}
	}
	if pl.NCCLIBHCA != "" || !slices.ContainsFunc(pl.Notes, func(n string) bool { return strings.Contains(n, "aws-ofi-nccl") }) {
		t.Errorf("NCCL_IB_HCA %q, notes %q: want none, and the plugin line", pl.NCCLIBHCA, pl.Notes)
	}
	// AWS's file gives one CPU node of 48 CPUs where the instance has two
	// sockets: no rank is bound by it.
	for i, rk := range pl.Ranks {
		if rk.Numactl != "" {
			t.Errorf("rank %d: %s from a provider's file", i, rk.Numactl)
		}
	}
	for i, rk := range pl.Ranks {
		for _, e := range rk.Env {
			if strings.HasPrefix(e, "NCCL_IB_HCA=") {
				t.Errorf("rank %d: %s", i, e)
			}
		}
	}
}

// TestProviderFilesPlan: provider NCCL files list GPUs and NICs straight
// under <cpu> (Azure NDv2, an MI300X VM's file): their links count on the
// path, as NCCL counts them, and where that makes a cross-socket pair's
// figure known, the rail plan still keeps each accelerator on a NIC of its
// own socket (PHB?, GDR off either way) rather than cross sockets.
func TestProviderFilesPlan(t *testing.T) {
	for _, tt := range []struct {
		file string
		sys  bool // a planned pair may cross sockets
	}{
		{"azure-ndv2-topo.xml", true}, // one NIC for eight GPUs on two sockets
		{"rccl-topo_8p_940vm.xml", false},
	} {
		r := checkReport(t, corpusPath(t, "nccl-xml", tt.file))
		for _, p := range r.Pairs {
			if p.Prediction != nil && p.BottleneckGbps <= 0 {
				t.Errorf("%s: %s–%s: no bottleneck, though the file gives every link", tt.file, p.A, p.B)
			}
		}
		if len(r.Plan.Assignments) == 0 || r.Plan.WorstGbps <= 0 {
			t.Fatalf("%s: plan %+v", tt.file, r.Plan)
		}
		for _, as := range r.Plan.Assignments {
			if p := r.Pair(as.Accelerator, as.NIC); p == nil || !tt.sys && p.SMI == "SYS" {
				t.Errorf("%s: %s planned on %s across sockets", tt.file, as.Accelerator, as.NIC)
			}
		}
	}
}

// TestRateOnlyLinksPlan: lstopo's console text gives each link's GB/s,
// which 15.75 fits as Gen3 x16, Gen4 x8 and Gen5 x4 alike: the rate is
// known, so the plan takes the ConnectX-4 under each switch (as the same
// machine's sysfs archive does) and not the X722 at 2.5 GT/s x1.
func TestRateOnlyLinksPlan(t *testing.T) {
	for _, file := range []string{"32intel64-2p8co2t+8ve.console", "32intel64-2p8co2t+8ve.tar.bz2"} {
		r := checkReport(t, corpusPath(t, "hwloc", file))
		want := map[string]string{"0000:1b:00.0": "0000:1a:00.0", "0000:41:00.0": "0000:3e:00.0"}
		for _, as := range r.Plan.Assignments {
			if nic, ok := want[as.Accelerator]; ok && as.NIC != nic {
				t.Errorf("%s: %s planned on %s, want %s", file, as.Accelerator, as.NIC, nic)
			}
		}
		if p := r.Pair("0000:1b:00.0", "0000:1a:00.0"); p == nil || p.BottleneckGbps < 100 {
			t.Errorf("%s: the PIX pair has no bottleneck from the link rates: %+v", file, p)
		}
	}
}

// TestForeignAcceleratorUndecided: NCCL and RCCL decide GPUDirect RDMA
// for NVIDIA and AMD GPUs only; NEC's Vector Engines are neither, so the
// verdict line counts them undecided instead of "8 of 8".
func TestForeignAcceleratorUndecided(t *testing.T) {
	src := corpusPath(t, "hwloc", "32intel64-2p8co2t+8ve.tar.bz2")
	r := checkReport(t, src)
	for _, a := range r.Accelerators {
		if !a.GDRUndecided {
			t.Errorf("%s: GDR decided for an NEC Vector Engine", a.BDF)
		}
	}
	_, out, _ := run("check", src)
	if first, _, _ := strings.Cut(out, "\n"); !strings.Contains(first, "GPUDirect RDMA for 0 of 8 accelerators (undecided for 8)") {
		t.Errorf("check %s opens with %q", src, first)
	}
	// An NVIDIA capture stays decided.
	for _, a := range checkReport(t, fx("hgx-h100")).Accelerators {
		if a.GDRUndecided || !a.GDR {
			t.Errorf("hgx-h100 %s: gdr %v, undecided %v", a.BDF, a.GDR, a.GDRUndecided)
		}
	}
}

// TestCloudRemedies: Azure's own topology files are Hyper-V guests (each
// device on a PCI domain of its own): no remedy asks a tenant to move a
// card or read the host's ACS, and NCCL's virtual switches (vendor ffff)
// are not named "Illegal Vendor ID".
func TestCloudRemedies(t *testing.T) {
	for _, file := range []string{"azure-ndv2-topo.xml", "azure-ndv5-topo.xml", "rccl-topo_8p_940vm.xml"} {
		r := checkReport(t, corpusPath(t, "nccl-xml", file))
		for _, f := range r.Findings {
			for _, st := range f.Remedy {
				if strings.Contains(st.Text, "move the NIC") || strings.Contains(st.Text, "sudo lspci") {
					t.Errorf("%s: %s remedy %q is not a tenant's to do", file, f.Code, st.Text)
				}
			}
		}
	}
	r := checkReport(t, corpusPath(t, "nccl-xml", "aws-p4d-24xl-topo.xml"))
	if r.Summary.PCIeSwitches != "4 x PCIe switch, IDs not given" {
		t.Errorf("aws-p4d switches: %q", r.Summary.PCIeSwitches)
	}
	// EFA's RDMA is known; the file shows no peer memory or dma-buf,
	// which NCCL's GPUDirect RDMA rests on, so the verdict is undecided
	// for that alone.
	for _, a := range r.Accelerators {
		p := r.Pair(a.BDF, a.BestNIC)
		if !a.GDR || p == nil || p.Prediction == nil || strings.Contains(p.Prediction.GDRUnknown, "RDMA support") {
			t.Errorf("aws-p4d %s on EFA: gdr %v, pair %+v (EFA is an RDMA device)", a.BDF, a.GDR, p)
		}
	}
}

// TestCompareStagedWorst: compare's worst-pair row says when the figure
// is a host-staged one.
func TestCompareStagedWorst(t *testing.T) {
	_, out, errb := run("compare", fx("hgx-h100"), fx("genoa-2s-rootports"))
	var row string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "Plan: worst pair") {
			row = l
		}
	}
	// genoa-2s-rootports, second, stages every pair; hgx-h100 none.
	if i := strings.Index(row, "host-staged"); i < 0 || strings.Count(row, "host-staged") != 1 || !strings.HasSuffix(strings.TrimSpace(row), "host-staged") {
		t.Errorf("compare worst-pair row %q (stderr %s)", row, errb)
	}
}

// TestOlderAndGuestMachines: hwloc's 24em64t has Fermi Teslas (no
// GPUDirect RDMA before Kepler) and a ConnectX-2 of the serial-bus
// InfiniBand class, which is its NIC; the H200 VM's lspci -tv names its
// GPUs "NVIDIA Corporation Device 2335" and QEMU's display "Device
// 1234:1111", so the GPUs are H200s and the remedies a guest's; RCCL's
// files give AMD's family as NCCL encodes it (143 = 17h).
func TestOlderAndGuestMachines(t *testing.T) {
	r := checkReport(t, corpusPath(t, "hwloc", "24em64t-2n6c2t-pci.xml"))
	for _, a := range r.Accelerators {
		p := r.Pair(a.BDF, a.BestNIC)
		if p == nil || p.Prediction == nil || p.Prediction.GDR || !strings.Contains(p.Prediction.GDRReason, "Fermi") {
			t.Errorf("24em64t %s: GDR verdict %+v, want off for a Fermi GPU", a.BDF, p)
		}
		if a.BestNICName != "mlx4_0" {
			t.Errorf("24em64t %s planned on %q, want the ConnectX-2 mlx4_0", a.BDF, a.BestNICName)
		}
	}
	r = checkReport(t, corpusPath(t, "lspci", "nccl-tests-256-h200-vm.partial.lspci-tv.txt"))
	if !strings.Contains(r.Summary.Accelerators, "H200") {
		t.Errorf("H200 VM accelerators: %q", r.Summary.Accelerators)
	}
	for _, f := range r.Findings {
		for _, st := range f.Remedy {
			if strings.Contains(st.Text, "sudo lspci") {
				t.Errorf("H200 VM: %s remedy %q is not a guest's to do", f.Code, st.Text)
			}
		}
	}
	if r = checkReport(t, corpusPath(t, "nccl-xml", "rccl-topo_16p1h.xml")); r.System.CPUFamily != 0x17 {
		t.Errorf("rccl-topo_16p1h CPU family %d, want 23 (NCCL's familyid 143)", r.System.CPUFamily)
	}
}

// TestHTMLUnknownSteps: the HTML page, like path --explain, writes a
// throughput the source does not give as unknown, never as 0 Gb/s
// (recorded-h200's virtio NIC has no port rate or link speed).
func TestHTMLUnknownSteps(t *testing.T) {
	code, out, errb := run("export", "-o", "html", fx("recorded-h200"))
	if code != ExitOK {
		t.Fatalf("export -o html: exit %d: %s", code, errb)
	}
	if strings.Contains(out, "<td>0 Gb/s</td>") || !strings.Contains(out, "<td>unknown</td>") {
		t.Errorf("export -o html of recorded-h200 writes an unknown step as 0 Gb/s, or none as unknown")
	}
}

// TestEFAProviderFiles: AWS's topology files name their EFA functions by
// IDs (1d0f:efa0) without RDMA device names; aws-ofi-nccl drives them, so
// no rank gets NCCL_IB_HCA, the plan says why, and no remedy tells the
// user to keep an NCCL_IB_HCA list (NCCL's IB transport is its only
// reader: src/transport/net_ib/init.cc, ncclIbInitDevices).
func TestEFAProviderFiles(t *testing.T) {
	for _, file := range []string{"aws-p4d-24xl-topo.xml", "aws-p4de-24xl-topo.xml", "aws-p5.48xl-topo.xml"} {
		_, out, errb := run("check", "-v", corpusPath(t, "nccl-xml", file))
		if !strings.Contains(out, "aws-ofi-nccl") || strings.Contains(out, "NCCL_IB_HCA=") || strings.Contains(out, "leave NCCL_IB_HCA") {
			t.Errorf("check -v %s: EFA advice wrong (%s):\n%s", file, errb, out)
		}
	}
}

// TestVirtualTreeSigns: a guest's tree is said to be a hypervisor's by
// whatever marks it: QEMU's XIO3130 switch above the GPUs in NCCL's own
// print, QEMU's display in an lspci dump. No warning where there is no
// accelerator (a VM with virtio alone), where a provider's file is itself
// the remedy (Azure, AWS), or where the one sign would be numa_node, which
// hwloc's XML does not carry (its PCI locality is a group of NUMA nodes).
func TestVirtualTreeSigns(t *testing.T) {
	for _, c := range []struct {
		src  string
		want bool
	}{
		{corpusPath(t, "nccl-xml", "nccl-tests-256-h200-vm.nccl-info-topology.txt"), true},
		{corpusPath(t, "lspci", "nccl-tests-256-h200-vm.partial.lspci-tv.txt"), true},
		{fx("recorded-vm"), false},
		{corpusPath(t, "nccl-xml", "azure-ndv5-topo.xml"), false},
		{corpusPath(t, "nccl-xml", "aws-p5.48xl-topo.xml"), false},
		{corpusPath(t, "hwloc", "40intel64-2g2n4c+pcilocality.xml"), false},
	} {
		_, out, errb := run("check", c.src)
		if got := strings.Contains(out, "virtual-topology"); got != c.want {
			t.Errorf("check %s: virtual-topology %v, want %v (%s):\n%s", c.src, got, c.want, errb, out)
		}
	}
}

// TestProviderFileTopoNote: a provider's topology file is NCCL's view only
// when NCCL is given it: Azure's jobs set NCCL_TOPO_FILE (its HPC images in
// /etc/nccl.conf), aws-ofi-nccl sets it itself on the instance types it
// knows (src/platform-aws.cpp); check -v says which.
func TestProviderFileTopoNote(t *testing.T) {
	for file, want := range map[string]string{
		"azure-ndv4-topo.xml":   "this plan is NCCL's only with NCCL_TOPO_FILE set to this file on every rank",
		"azure-ndv5-topo.xml":   "this plan is NCCL's only with NCCL_TOPO_FILE set to this file on every rank",
		"aws-p4d-24xl-topo.xml": "which aws-ofi-nccl gives NCCL itself",
		"aws-p5.48xl-topo.xml":  "which aws-ofi-nccl gives NCCL itself",
	} {
		if _, out, errb := run("check", "-v", corpusPath(t, "nccl-xml", file)); !strings.Contains(out, want) {
			t.Errorf("check -v %s lacks %q (%s):\n%s", file, want, errb, out)
		}
	}
	if _, out, _ := run("check", "-v", fx("hgx-h100")); strings.Contains(out, "provider's topology file") {
		t.Errorf("check -v hgx-h100 speaks of a provider's file:\n%s", out)
	}
}

// TestSocketsUnknown: an RCCL topology's CPU nodes are NUMA nodes whose
// sockets it does not give (rccl-topo_8p_ts1: a Rome box of four nodes),
// so a pair across them is SYS, as nvidia-smi says across NUMA nodes, but
// never "another socket"; its remedy does not offer NCCL_NET_GDR_LEVEL=PHB
// as reaching it.
func TestSocketsUnknown(t *testing.T) {
	_, out, errb := run("check", "-v", corpusPath(t, "nccl-xml", "rccl-topo_8p_ts1.xml"))
	if strings.Contains(out, "another socket") || strings.Contains(out, "across sockets") || !strings.Contains(out, "SYS (across NUMA nodes, sockets unknown)") ||
		!strings.Contains(out, "only NCCL_NET_GDR_LEVEL=SYS reaches them") {
		t.Errorf("check -v rccl-topo_8p_ts1.xml (%s):\n%s", errb, out)
	}
}

// TestRCCLPathOverrideNoWarning: RCCL's model of an Azure MI300X VM
// (rccl-topo_8p_940vm: Hyper-V domains, an Intel CPU) pairs each GPU with
// a NIC that RCCL's rcclPathOverride counts as PXB (ROCm/rccl
// src/graph/paths.cc): no no-local-nic warning tells the tenant to change
// instance type, and the verdict leaves GDR undecided.
func TestRCCLPathOverrideNoWarning(t *testing.T) {
	_, out, errb := run("check", corpusPath(t, "nccl-xml", "rccl-topo_8p_940vm.xml"))
	if strings.Contains(out, "no-local-nic") || !strings.Contains(out, "(undecided for 8)") {
		t.Errorf("check rccl-topo_8p_940vm.xml (%s):\n%s", errb, out)
	}
}

// TestUnplannedNICsNamed: the plan's NCCL_IB_HCA lists the NICs it gives
// accelerators; where it leaves rails out (dgx-a100's mlx5_8 and mlx5_9,
// the storage pair), a note names them, so the list does not drop NICs
// without a word.
func TestUnplannedNICsNamed(t *testing.T) {
	_, out, errb := run("check", "-v", fx("dgx-a100"))
	if !strings.Contains(out, "NCCL_IB_HCA leaves out mlx5_8, mlx5_9: the plan gives them no accelerator") {
		t.Errorf("check -v dgx-a100 (%s):\n%s", errb, out)
	}
}

// TestVerdictGDRUndecided: where the source leaves every accelerator's
// GPUDirect RDMA undecided (the Lenovo lspci -t -vvv: no peer-memory,
// IOMMU or link state), check opens UNKNOWN, not OK; and compare ranks
// nothing on the share of GDR, whose undecided part could turn it.
func TestVerdictGDRUndecided(t *testing.T) {
	src := corpusPath(t, "lspci", "lenovo-sd665n-v3-4xh100-genoa.lspci-t-vvv.txt")
	if _, out, _ := run("check", src); !strings.HasPrefix(out, "UNKNOWN: 1 info; rail plan: GPUDirect RDMA for 0 of 4 accelerators (undecided for 4)") {
		t.Errorf("check %s opens:\n%s", src, out)
	}
	_, out, errb := run("compare", "-o", "json", src, fx("hgx-h100"))
	var c report.Comparison
	if err := json.Unmarshal([]byte(out), &c); err != nil {
		t.Fatalf("compare: %v (%s)", err, errb)
	}
	if c.Verdict.Measure != "accelerators" || !strings.Contains(c.Verdict.Sentence, "so not compared: share of accelerators the plan gives GPUDirect RDMA") {
		t.Errorf("compare verdict %+v: want it decided on accelerators, the GDR share not compared", c.Verdict)
	}
}

// TestNCCLSaysGDR: an NCCL dump whose <net gdr="1"> records NCCL's own
// check passed (nccl-tests#213) raises no peer-memory-unknown finding.
func TestNCCLSaysGDR(t *testing.T) {
	if _, out, _ := run("check", corpusPath(t, "nccl-xml", "nccl-tests-213-h100.fragment.xml")); strings.Contains(out, "peer-memory") {
		t.Errorf("check nccl-tests-213-h100.fragment.xml:\n%s", out)
	}
}
