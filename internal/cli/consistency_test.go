package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/gdtopo/gdtopo/internal/render"
	"github.com/gdtopo/gdtopo/internal/report"
	"github.com/gdtopo/gdtopo/internal/words"
	"github.com/gdtopo/gdtopo/schema"
)

// consistencySources are every fixture and every corpus file: the corpus
// may be missing outside CI only (the test says so), never in CI.
func consistencySources(t *testing.T) []string {
	t.Helper()
	out := bundled(t)
	corpus := filepath.Join("..", "..", "..", "shared", "corpus")
	if _, err := os.Stat(corpus); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("corpus missing in CI: %v", err)
		}
		t.Logf("corpus not found at %s: checking the fixtures only (outside CI the corpus may be skipped)", corpus)
		return out
	}
	err := filepath.WalkDir(corpus, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && filepath.Dir(path) != corpus { // README.md and SOURCES.tsv describe the corpus
			out = append(out, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

var (
	schemaOnce sync.Once
	schemas    map[string]*jsonschema.Schema
	schemaErr  error

	// The JSON documents the tests' gdtopo runs wrote, for TestMain.
	jsonMu   sync.Mutex
	jsonDocs []jsonDoc
)

// jsonDoc is one JSON document a test run wrote, with the schema
// definition it must match.
type jsonDoc struct{ def, args, doc string }

// keepJSON keeps the JSON a run of gdtopo with args wrote, when it wrote
// JSON (-o json or -o jsonl, exit status 0 or 3), for TestMain.
func keepJSON(args []string, code int, out string) {
	if code != ExitOK && code != ExitFindings || out == "" || len(args) == 0 {
		return
	}
	format := ""
	for i, a := range args {
		if (a == "-o" || a == "--output") && i+1 < len(args) {
			format = args[i+1]
		}
	}
	def := map[string]string{"check": "check", "matrix": "matrix", "tree": "tree", "path": "path", "compare": "comparison", "verify": "verification", "fleet": "fleet", "explain": "explanation"}[args[0]]
	jsonMu.Lock()
	defer jsonMu.Unlock()
	switch {
	case def == "":
	case format == "json":
		jsonDocs = append(jsonDocs, jsonDoc{def, strings.Join(args, " "), out})
	case format == "jsonl":
		line := "result"
		if def == "fleet" {
			line = "fleet_node"
		}
		for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
			jsonDocs = append(jsonDocs, jsonDoc{line, strings.Join(args, " "), l})
		}
	}
}

// TestMain runs the tests, then validates every JSON document their runs
// of gdtopo wrote against schema/gdtopo.schema.json.
func TestMain(m *testing.M) {
	code := m.Run()
	if err := compileSchemas(); err != nil {
		fmt.Fprintf(os.Stderr, "schema/gdtopo.schema.json: %v\n", err)
		os.Exit(1)
	}
	bad := 0
	for _, d := range jsonDocs {
		v, err := jsonschema.UnmarshalJSON(strings.NewReader(d.doc))
		if err == nil {
			err = schemas[d.def].Validate(v)
		}
		if err != nil {
			bad++
			fmt.Fprintf(os.Stderr, "gdtopo %s: output does not match schema/gdtopo.schema.json#/$defs/%s: %v\n", d.args, d.def, err)
		}
	}
	if bad > 0 && code == 0 {
		code = 1
	}
	if code == 0 && testing.Verbose() {
		fmt.Printf("validated %d JSON documents against schema/gdtopo.schema.json\n", len(jsonDocs))
	}
	os.Exit(code)
}

// compileSchemas compiles each document's definition once.
func compileSchemas() error {
	schemaOnce.Do(func() {
		c := jsonschema.NewCompiler()
		var s any
		if schemaErr = json.Unmarshal(schema.JSON, &s); schemaErr != nil {
			return
		}
		const url = "https://github.com/gdtopo/gdtopo/schema/gdtopo.schema.json"
		if schemaErr = c.AddResource(url, s); schemaErr != nil {
			return
		}
		schemas = map[string]*jsonschema.Schema{}
		for _, d := range []string{"check", "result", "matrix", "tree", "path", "comparison", "verification", "fleet", "fleet_node", "explanation"} {
			if schemas[d], schemaErr = c.Compile(url + "#/$defs/" + d); schemaErr != nil {
				return
			}
		}
	})
	return schemaErr
}

// validate checks doc, a JSON document gdtopo wrote, against the
// definition def of schema/gdtopo.schema.json.
func validate(t *testing.T, def, doc string) {
	t.Helper()
	if err := compileSchemas(); err != nil {
		t.Fatalf("schema/gdtopo.schema.json: %v", err)
	}
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(doc))
	if err != nil {
		t.Fatalf("%s: not JSON: %v", def, err)
	}
	if err := schemas[def].Validate(v); err != nil {
		t.Errorf("%s output does not match schema/gdtopo.schema.json: %v\n%.400s", def, err, doc)
	}
}

// finding is a finding as a format shows it: severity and code.
type finding struct{ severity, code string }

var (
	tableFinding    = regexp.MustCompile(`(?m)^(CRITICAL|WARNING|INFO) +(\S+)  (?:and (\d+) more like it)?`)
	markdownFinding = regexp.MustCompile("(?m)^- \\*\\*(CRITICAL|WARNING|INFO)\\*\\* `([^`]+)`")
	promFinding     = regexp.MustCompile(`(?m)^gdtopo_findings\{source="[^"]*",code="([^"]+)",severity="([^"]+)"\} (\d+)$`)
	terseFinding    = regexp.MustCompile(`(?m)^(CRITICAL|WARNING|INFO) (\S+) \S+ .+$`)
	nfdFinding      = regexp.MustCompile(`(?m)^feature\.node\.kubernetes\.io/gdtopo\.findings\.(critical|warning|info)=(\d+)$`)
)

func sortedFindings(fs []finding) string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.severity + ":" + f.code
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

// TestEveryFormatAgrees runs every command in every format over every
// fixture and corpus file: the exit status is the same in every format,
// and so are the findings and each accelerator's best NIC; every JSON and
// JSON Lines output matches the schema.
func TestEveryFormatAgrees(t *testing.T) {
	sources := consistencySources(t)
	for _, src := range sources {
		t.Run(strings.TrimPrefix(src, "../../"), func(t *testing.T) {
			t.Parallel()
			checkAgrees(t, src)
		})
	}
	t.Run("verify", func(t *testing.T) {
		t.Parallel()
		verifyAgrees(t)
	})
	t.Run("compare", func(t *testing.T) {
		t.Parallel()
		args := append([]string{"compare"}, bundled(t)...)
		for _, f := range render.ViewFormats {
			code, out, errb := run(append(args, "-o", string(f))...)
			if code != ExitOK {
				t.Fatalf("compare -o %s: exit %d: %s", f, code, errb)
			}
			if f == render.JSON {
				validate(t, "comparison", out)
			}
		}
	})
}

func checkAgrees(t *testing.T, src string) {
	outs := map[render.Format]string{}
	codes := map[render.Format]int{}
	for _, f := range render.CheckFormats {
		code, out, _ := run("check", src, "--fail-on", "warning", "-o", string(f))
		outs[f], codes[f] = out, code
	}
	want := codes[render.JSON]
	for f, c := range codes {
		if c != want {
			t.Errorf("check --fail-on warning -o %s: exit %d; -o json: exit %d", f, c, want)
		}
	}
	if want == ExitError || want == ExitUsage {
		for _, cmd := range [][]string{{"matrix"}, {"tree"}, {"export", "-o", "dot"}} {
			if code, _, _ := run(append(cmd, src)...); code != want {
				t.Errorf("%s: exit %d, check exit %d", cmd[0], code, want)
			}
		}
		return // the source cannot be read: nothing else to compare
	}
	validate(t, "check", outs[render.JSON])
	var doc report.Check
	if err := json.Unmarshal([]byte(outs[render.JSON]), &doc); err != nil || len(doc.Sources) != 1 || doc.Sources[0].Report == nil {
		t.Fatalf("check -o json: %v", err)
	}
	r := doc.Sources[0].Report
	if doc.ExitStatus != want || r.ExitStatus != want {
		t.Errorf("the JSON says exit status %d (report %d), the command exited %d", doc.ExitStatus, r.ExitStatus, want)
	}
	var fs []finding
	for _, f := range r.Findings {
		fs = append(fs, finding{f.Severity, f.Code})
	}
	wantFindings := sortedFindings(fs)

	for _, line := range strings.Split(strings.TrimSpace(outs[render.JSONL]), "\n") {
		validate(t, "result", line)
		var res report.Result
		if err := json.Unmarshal([]byte(line), &res); err != nil || res.Report == nil {
			t.Fatalf("check -o jsonl: %v", err)
		}
		var got []finding
		for _, f := range res.Report.Findings {
			got = append(got, finding{f.Severity, f.Code})
		}
		if g := sortedFindings(got); g != wantFindings {
			t.Errorf("-o jsonl findings %s; -o json %s", g, wantFindings)
		}
	}
	for f, re := range map[render.Format]*regexp.Regexp{render.Table: tableFinding, render.Markdown: markdownFinding, render.Terse: terseFinding} {
		var got []finding
		for _, m := range re.FindAllStringSubmatch(outs[f], -1) {
			n := 1
			if len(m) > 3 && m[3] != "" { // the findings of a code past its first, counted
				n, _ = strconv.Atoi(m[3])
			}
			for range n {
				got = append(got, finding{strings.ToLower(m[1]), m[2]})
			}
		}
		if g := sortedFindings(got); g != wantFindings {
			t.Errorf("-o %s findings %s; -o json %s", f, g, wantFindings)
		}
	}
	var prom []finding
	for _, m := range promFinding.FindAllStringSubmatch(outs[render.Prometheus], -1) {
		var n int
		fmt.Sscan(m[3], &n)
		for range n {
			prom = append(prom, finding{m[2], m[1]})
		}
	}
	if g := sortedFindings(prom); g != wantFindings {
		t.Errorf("-o prometheus findings %s; -o json %s", g, wantFindings)
	}
	if !strings.Contains(outs[render.Prometheus], fmt.Sprintf("gdtopo_exit_code{source=%q} %d\n", src, want)) {
		t.Errorf("-o prometheus does not give exit code %d", want)
	}
	nfdCounts := map[string]string{}
	for _, m := range nfdFinding.FindAllStringSubmatch(outs[render.NFD], -1) {
		nfdCounts[m[1]] = m[2]
	}
	for sev, n := range map[string]int{"critical": r.Counts.Critical, "warning": r.Counts.Warning, "info": r.Counts.Info} {
		if nfdCounts[sev] != fmt.Sprint(n) {
			t.Errorf("-o nfd: %d %s findings; -o json %d", len(nfdCounts[sev]), sev, n)
		}
	}

	// Each accelerator's best NIC, in every format that shows one; NFD
	// names none where no NIC can do RDMA.
	_, dot, _ := run("export", src, "-o", "dot")
	noRDMA := r.NoRDMANIC()
	if noRDMA && strings.Contains(outs[render.NFD], ".best-nic=") {
		t.Errorf("-o nfd names a best NIC where no NIC can do RDMA:\n%s", outs[render.NFD])
	}
	for _, a := range r.Accelerators {
		if a.BestNIC == "" {
			continue
		}
		nic := a.BestNICAlias
		if a.BestNICName != "" {
			nic += " " + a.BestNICName
		}
		gpu := regexp.QuoteMeta(a.Alias + " " + a.BDF)
		// A NIC, or a NIC + the further NICs NCCL spreads over.
		if !regexp.MustCompile(`\n` + gpu + ` +` + regexp.QuoteMeta(nic) + `( |\n)`).MatchString(outs[render.Table]) {
			t.Errorf("-o table: no rail plan row of %s with %s", a.Alias, nic)
		}
		if !regexp.MustCompile(`\| ` + gpu + ` +\| ` + regexp.QuoteMeta(nic) + `( \+ [^|]+)? +\|`).MatchString(outs[render.Markdown]) {
			t.Errorf("-o markdown: no rail plan row of %s with %s", a.Alias, nic)
		}
		name := a.BestNICName
		if name == "" {
			name = a.BestNIC
		}
		if key := "feature.node.kubernetes.io/gdtopo." + strings.ToLower(a.Alias) + ".best-nic=" + labelValue(name) + "\n"; !noRDMA && !strings.Contains(outs[render.NFD], key) {
			t.Errorf("-o nfd: no %q", key)
		}
		if edge := fmt.Sprintf("%q -> %q [style=dashed", "dev:"+a.BDF, "dev:"+a.BestNIC); !strings.Contains(dot, edge) {
			t.Errorf("export -o dot: no best-NIC edge %s", edge)
		}
	}

	// The views: same exit status, JSON to the schema, the matrix's labels
	// the report's.
	for _, view := range []struct {
		def  string
		args []string
	}{{"matrix", []string{"matrix", src}}, {"tree", []string{"tree", src}}} {
		for _, f := range render.ViewFormats {
			code, out, errb := run(append(view.args, "-o", string(f))...)
			if code != ExitOK {
				t.Errorf("%s -o %s: exit %d: %s", view.def, f, code, errb)
				continue
			}
			if f == render.JSON {
				validate(t, view.def, out)
				if view.def == "matrix" {
					matrixAgrees(t, r, out)
				}
			}
		}
	}
	// An NCCL topology names every PCI node by its bus ID and is a tree of
	// the whole machine: a source with positional bridges or no hierarchy,
	// or a partial one, cannot make one.
	noBusTree := r.Summary.Partial != ""
	for _, d := range r.Devices {
		noBusTree = noBusTree || d.Positional != "" || d.PlaceUnknown
	}
	numaUnknown := false // a text dump that does not give an end's NUMA node
	for _, d := range r.Devices {
		numaUnknown = numaUnknown || (d.Kind == "accelerator" || d.Kind == "nic") && d.NUMANode < 0
	}
	for _, f := range render.ExportFormats {
		code, _, errb := run("export", src, "-o", string(f))
		if f == render.NCCLXML && numaUnknown && code == ExitError && strings.Contains(errb, "does not give the NUMA node") {
			continue // refused rather than written under <cpu numaid="-1">
		}
		if f == render.NCCLXML && noBusTree {
			if code != ExitError || !strings.Contains(errb, "bus ID") && !strings.Contains(errb, "no PCI hierarchy") && !strings.Contains(errb, "part of the machine") {
				t.Errorf("export -o %s of a partial source or one without bus IDs or hierarchy: exit %d: %s; want exit 1 saying why", f, code, errb)
			}
			continue
		}
		if code != ExitOK {
			t.Errorf("export -o %s: exit %d: %s", f, code, errb)
		}
	}
	if len(r.Accelerators) > 0 && r.Accelerators[0].BestNIC != "" {
		a := r.Accelerators[0]
		want := r.Pair(a.BDF, a.BestNIC).Prediction
		for _, f := range render.ViewFormats {
			code, out, errb := run("path", a.Alias, a.BestNICAlias, src, "--explain", "-o", string(f))
			if code != ExitOK {
				t.Errorf("path --explain -o %s: exit %d: %s", f, code, errb)
				continue
			}
			switch f {
			case render.JSON:
				validate(t, "path", out)
				var v report.PathView
				if err := json.Unmarshal([]byte(out), &v); err != nil || v.Pair.Prediction == nil || len(v.Pair.Prediction.Steps) == 0 {
					t.Errorf("path --explain -o json: no prediction with its steps: %v", err)
				} else if got := v.Pair.Prediction.ExpectedGbps; got != want.ExpectedGbps {
					t.Errorf("path --explain: %v Gb/s; check: %v", got, want.ExpectedGbps)
				}
			default:
				if s := words.Gbps(want.ExpectedGbps); want.ExpectedGbps > 0 && !strings.Contains(out, s) {
					t.Errorf("path --explain -o %s does not say %s", f, s)
				}
			}
		}
	}
}

// verifyAgrees runs gdtopo verify in every format on the sources that come
// with their host's nvidia-smi topo -m (and on one of them with a changed
// cell): the exit status is the same in every format, -o json matches the
// schema and holds the comparison check --nvsmi -o json holds, and the
// tables give its counts and every differing cell.
func verifyAgrees(t *testing.T) {
	paired := corpusPath(t, "paired", "puget-wrx90-threadripper-2xrtx6000ada-cx7")
	tv, nv := filepath.Join(paired, "lspci-tv.txt"), filepath.Join(paired, "nvsmi-topo.txt")
	changed := filepath.Join(t.TempDir(), "changed.txt")
	text := strings.Replace(catFiles(t, nv), "GPU0     X      PHB     NODE    NODE", "GPU0     X      PHB     SYS     NODE", 1)
	if err := os.WriteFile(changed, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range [][2]string{
		{tv, nv}, {tv, changed},
		{fx("dgx-a100"), corpusPath(t, "nvsmi", "dgxa100-like-epyc7742-8xa100-10nic.txt")},
	} {
		src, matrix := c[0], c[1]
		_, out, _ := run("check", src, "--nvsmi", matrix, "-o", "json")
		var doc report.Check
		if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Sources) != 1 || doc.Sources[0].Report == nil || doc.Sources[0].Report.NVSMI == nil {
			t.Fatalf("check %s --nvsmi %s -o json: no nvidia_smi: %v", src, matrix, err)
		}
		want := doc.Sources[0].Report.NVSMI
		wantCode := ExitOK
		if len(want.Differ) > 0 {
			wantCode = ExitFindings
		}
		counts := fmt.Sprintf("%d compared: %d agree, %d differ", want.Compared, want.Agree, len(want.Differ))
		if _, table, _ := run("check", src, "--nvsmi", matrix); !strings.Contains(table, counts) {
			t.Errorf("check %s --nvsmi %s: the summary does not say %q", src, matrix, counts)
		}
		for _, f := range render.ViewFormats {
			code, out, errb := run("verify", src, matrix, "-o", string(f))
			if code != wantCode {
				t.Errorf("verify %s %s -o %s: exit %d, want %d: %s", src, matrix, f, code, wantCode, errb)
				continue
			}
			if f == render.JSON {
				validate(t, "verification", out)
				var v report.Verification
				if err := json.Unmarshal([]byte(out), &v); err != nil || !reflect.DeepEqual(v.NVSMI, want) || v.ExitStatus != code {
					t.Errorf("verify %s %s -o json: %v, exit_status %d; check --nvsmi -o json has %+v", src, matrix, err, v.ExitStatus, want)
				}
				continue
			}
			if !strings.Contains(out, counts) {
				t.Errorf("verify %s %s -o %s does not say %q", src, matrix, f, counts)
			}
			for _, d := range want.Differ {
				if !strings.Contains(out, d.Row+" "+d.A) || !strings.Contains(out, d.Column+" "+d.B) {
					t.Errorf("verify %s %s -o %s does not list the cell %s-%s", src, matrix, f, d.Row, d.Column)
				}
			}
		}
	}
}

// matrixAgrees: matrix -o json's labels are the report's pairs'.
func matrixAgrees(t *testing.T, r *report.Report, out string) {
	t.Helper()
	var m report.Matrix
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatal(err)
	}
	for i, a := range m.Devices {
		for j, b := range m.Devices {
			p := r.Pair(a.BDF, b.BDF)
			switch {
			case i == j:
			case p == nil:
				t.Errorf("matrix: %s-%s is no pair of the report", a.BDF, b.BDF)
			case m.Labels[i][j] != report.Label(p):
				t.Errorf("matrix: %s-%s %s; check %s", a.BDF, b.BDF, m.Labels[i][j], report.Label(p))
			}
		}
	}
}

// labelValue is the NFD label value of s (internal/fleet's rule).
func labelValue(s string) string {
	var b bytes.Buffer
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	return strings.Trim(b.String(), "-_.")
}
