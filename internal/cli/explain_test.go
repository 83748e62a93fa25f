package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gdtopo/gdtopo/internal/report"
)

// TestExplainGolden pins explain's output on every collected NCCL log
// (internal/nccllog/testdata), alone and, for a few, against a fixture
// whose GPU addresses the log's match, in table and JSON.
func TestExplainGolden(t *testing.T) {
	logs, _ := filepath.Glob("../nccllog/testdata/*.log")
	if len(logs) < 12 {
		t.Fatalf("%d logs, want at least 12", len(logs))
	}
	for _, l := range logs {
		name := strings.TrimSuffix(filepath.Base(l), ".log")
		t.Run(name, func(t *testing.T) {
			code, out, errb := run("explain", filepath.ToSlash(l))
			if code != ExitOK && code != ExitFindings {
				t.Fatalf("exit %d: %s", code, errb)
			}
			golden(t, "explain/"+name+".txt", out)
			code, out, _ = run("explain", filepath.ToSlash(l), "-o", "json")
			if code != ExitOK && code != ExitFindings {
				t.Fatalf("json: exit %d", code)
			}
			golden(t, "explain/"+name+".json", out)
		})
	}
	for _, c := range []struct{ log, fixture string }{
		{"nccl-899-ib-no-module", "hgx-h100"},
		{"nccl-1537-roce-gdr-disabled", "hgx-h100"},
		{"nccl-tests-321-vm-roce-pxn", "roce-lag-bond"},
	} {
		args := []string{"explain", "../nccllog/testdata/" + c.log + ".log", filepath.ToSlash(fx(c.fixture))}
		code, out, errb := run(args...)
		if code != ExitOK && code != ExitFindings {
			t.Fatalf("%v: exit %d: %s", args, code, errb)
		}
		golden(t, "explain/"+c.log+"+"+c.fixture+".txt", out)
		run(append(args, "-o", "json")...) // validated against the schema by TestMain
	}
	_, out, _ := run("explain", "../nccllog/testdata/nccl-899-ib-no-module.log", "-o", "markdown")
	golden(t, "explain/nccl-899-ib-no-module.md", out)
}

// TestExplainExit: a difference that costs bandwidth exits 3 unless
// --fail-on is above it; a log without one exits 0; text that is no log
// exits 1 with a line that says so.
func TestExplainExit(t *testing.T) {
	noModule := "../nccllog/testdata/nccl-899-ib-no-module.log"
	if code, _, errb := run("explain", noModule); code != ExitFindings || !strings.Contains(errb, "costing bandwidth") {
		t.Errorf("no module: exit %d, %q", code, errb)
	}
	if code, _, _ := run("explain", noModule, "--fail-on", "never"); code != ExitOK {
		t.Errorf("--fail-on never: exit %d", code)
	}
	if code, _, _ := run("explain", "../nccllog/testdata/nccl-tests-321-vm-roce-pxn.log"); code != ExitOK {
		t.Errorf("GDRDMA everywhere: exit %d", code)
	}
	if code, _, errb := run("explain", "../../README.md"); code != ExitError || !strings.Contains(errb, "not an NCCL_DEBUG=INFO log") {
		t.Errorf("README: exit %d, %q", code, errb)
	}
	if code, _, _ := run("explain", noModule, "--fail-on", "sometimes"); code != ExitUsage {
		t.Errorf("bad --fail-on: exit %d", code)
	}
	if code, _, _ := run("explain"); code != ExitUsage {
		t.Errorf("no LOG: exit %d", code)
	}
}

// TestExplainHelp: gdtopo help lists explain.
func TestExplainHelp(t *testing.T) {
	_, out, _ := run("help")
	if !strings.Contains(out, "explain") {
		t.Errorf("gdtopo help lacks explain:\n%s", out)
	}
}

// TestExplainCodesDocumented: every difference code explain can give is
// described in report.DifferenceCodes and named in docs/inputs.md, and
// every code the goldens hold is one of them.
func TestExplainCodesDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/inputs.md")
	if err != nil {
		t.Fatal(err)
	}
	for code := range report.DifferenceCodes {
		if !strings.Contains(string(doc), "`"+code+"`") {
			t.Errorf("docs/inputs.md does not name %s", code)
		}
	}
	goldens, _ := filepath.Glob("testdata/explain/*.json")
	for _, g := range goldens {
		b, err := os.ReadFile(g)
		if err != nil {
			t.Fatal(err)
		}
		var e report.Explanation
		if err := json.Unmarshal(b, &e); err != nil {
			t.Fatal(err)
		}
		for _, d := range e.Differences {
			if report.DifferenceCodes[d.Code] == "" {
				t.Errorf("%s: code %s not in report.DifferenceCodes", g, d.Code)
			}
		}
	}
}

// TestExplainOwnPrint: without SOURCE, a log holding NCCL's topology print
// is planned on it: the rank's plan NIC, found in the print's tree, is the
// NIC its channels used (nccl-tests#350: NET/IB/1, mlx5_2, on the GPU's
// socket; NCCL's own path line says PHB), and no difference is invented.
func TestExplainOwnPrint(t *testing.T) {
	code, out, errb := run("explain", "../nccllog/testdata/nccl-tests-350-a100-roce-ib-system.log", "-o", "json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errb)
	}
	var e report.Explanation
	if err := json.Unmarshal([]byte(out), &e); err != nil {
		t.Fatal(err)
	}
	if e.Source == nil || e.Source.Format != "NCCL topology print" || len(e.Hosts) != 1 || !e.Hosts[0].Planned {
		t.Fatalf("source %+v hosts %+v", e.Source, e.Hosts)
	}
	r := e.Ranks[0]
	if r.PlanNIC != "mlx5_2" || len(r.NICs) != 1 || r.NICs[0].Name != "mlx5_2" || !strings.HasPrefix(r.PlanPath, "PHB") || len(e.Differences) != 0 {
		t.Errorf("rank %+v, differences %+v", r, e.Differences)
	}
}
