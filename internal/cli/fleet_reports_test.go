package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFleetReadsReports: a machine's own `check -o json` report stands for
// the machine: for every fixture, fleet over the fixture and its report
// finds them alike (the Topo read from the report is the one read from
// the tree), and -o json's topologies agree field for field. A file of
// check -o jsonl lines is one machine a line, and a line with an error is
// an unreadable machine.
func TestFleetReadsReports(t *testing.T) {
	dir := t.TempDir()
	var jsonl strings.Builder
	for _, src := range bundled(t) {
		name := strings.TrimSuffix(filepath.Base(src), ".tar.gz")
		code, out, errb := run("check", src, "-o", "json", "--fail-on", "never")
		if code != ExitOK {
			t.Fatalf("check %s: exit %d: %s", name, code, errb)
		}
		rep := filepath.Join(dir, name+".json")
		if err := os.WriteFile(rep, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, errb = run("fleet", src, rep, "-o", "json")
		var doc struct {
			Differing int
			Groups    []struct{ Topology json.RawMessage }
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("%s: %v: %s", name, err, errb)
		}
		if code != ExitOK || doc.Differing != 0 || len(doc.Groups) != 1 {
			_, text, _ := run("fleet", src, rep)
			t.Errorf("%s: the tree and its report differ (exit %d):\n%s", name, code, text)
		}
		_, line, _ := run("check", src, "-o", "jsonl", "--fail-on", "never")
		jsonl.WriteString(line)
	}
	// One file of lines, then a line whose machine could not be read.
	jsonl.WriteString(`{"schema_version":2,"source":"/broken","exit_status":1,"error":"/broken: no sys/ folder","report":null}` + "\n")
	lines := filepath.Join(dir, "all.jsonl")
	if err := os.WriteFile(lines, []byte(jsonl.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errb := run("fleet", lines, "-o", "jsonl")
	nodes := fleetLines(t, out)
	if n := len(bundled(t)) + 1; len(nodes) != n {
		t.Fatalf("fleet of a file of %d lines: %d machines (exit %d, %s)", n, len(nodes), code, errb)
	}
	last := nodes[len(nodes)-1]
	if last.Error == "" || !strings.Contains(last.Error, "no sys/ folder") || !strings.HasPrefix(last.Source, lines+":") ||
		!strings.Contains(errb, "no sys/ folder") {
		t.Errorf("the broken line: %+v; stderr %q", last, errb)
	}
	if first := nodes[0]; !strings.HasPrefix(first.Source, lines+":1 ") || first.Error != "" {
		t.Errorf("the first line: %+v", first)
	}
	// Not a report: JSON that is no gdtopo document is unreadable, named.
	bad := filepath.Join(dir, "other.json")
	if err := os.WriteFile(bad, []byte(`{"kind": "something else"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errb := run("fleet", bad); code != ExitError || !strings.Contains(errb, "other.json") || !strings.Contains(errb, "not a gdtopo report") {
		t.Errorf("other JSON: exit %d, stderr %q", code, errb)
	}
}
