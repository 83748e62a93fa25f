package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// sysfsOrProc matches a sysfs or procfs path, which a text dump holds none of.
var sysfsOrProc = regexp.MustCompile(`(^|[\s(;"])(sys|proc)/`)

// TestTextEvidence checks that findings on a text dump point into the dump
// and say how to retake it: no sysfs file and no "run gdtopo as root" for
// any text source of the corpus, and the paired workstation's tree and
// -vvv listing, concatenated on standard input, cite their own lines.
func TestTextEvidence(t *testing.T) {
	corpus := filepath.Join("..", "..", "..", "shared", "corpus")
	if _, err := os.Stat(corpus); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("corpus missing: %v", err)
		}
		t.Skipf("corpus missing (%v)", err)
	}
	type finding struct {
		Code, Evidence string
		Remedy         []struct{ Kind, Text, Comment string }
	}
	remedy := func(f finding) string {
		var b strings.Builder
		for _, s := range f.Remedy {
			b.WriteString(s.Text + " # " + s.Comment + "\n")
		}
		return b.String()
	}
	check := func(name string, in []byte, args ...string) []finding {
		t.Helper()
		var out, errb bytes.Buffer
		code := Main(append([]string{"check", "-o", "json", "--fail-on", "critical"}, args...), bytes.NewReader(in), &out, &errb)
		if code != ExitOK && code != ExitFindings {
			t.Fatalf("%s: exit %d: %s", name, code, errb.String())
		}
		var c struct {
			Sources []struct{ Report struct{ Findings []finding } }
		}
		if err := json.Unmarshal(out.Bytes(), &c); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(c.Sources) != 1 {
			t.Fatalf("%s: %d sources in the check", name, len(c.Sources))
		}
		r := c.Sources[0].Report
		for _, f := range r.Findings {
			if sysfsOrProc.MatchString(f.Evidence) || strings.Contains(remedy(f), "run gdtopo as root") {
				t.Errorf("%s: %s cites sysfs or gdtopo's privileges for a text dump: evidence %q, remedy %q", name, f.Code, f.Evidence, remedy(f))
			}
		}
		return r.Findings
	}
	var files []string
	for _, g := range []string{"lspci/*", "hwloc/*.console", "hwloc/*.xml", "nccl-xml/*topo*.xml", "nccl-xml/*.fragment.xml", "paired/*/lspci-*"} {
		m, _ := filepath.Glob(filepath.Join(corpus, g))
		files = append(files, m...)
	}
	for _, f := range files {
		if strings.HasSuffix(f, ".numa.txt") {
			continue // NUMA node lines alone are refused (TestNotADump)
		}
		check(f, nil, f)
	}

	var in []byte
	for _, f := range []string{"lspci-tv.txt", "lspci-vvv.md"} {
		m, _ := filepath.Glob(filepath.Join(corpus, "paired", "*", f))
		if len(m) != 1 {
			t.Fatalf("paired %s: %v", f, m)
		}
		b, err := os.ReadFile(m[0])
		if err != nil {
			t.Fatal(err)
		}
		in = append(in, b...)
	}
	seen := map[string]finding{}
	for _, f := range check("paired on stdin", in, "-") {
		seen[f.Code] = f
	}
	acs, link := seen["acs-unknown"], seen["link-speed-degraded"]
	if !strings.HasPrefix(acs.Evidence, "standard input line ") || !strings.Contains(remedy(acs), "sudo lspci -vvv") {
		t.Errorf("acs-unknown: evidence %q, remedy %q; want a line of standard input and sudo lspci -vvv", acs.Evidence, remedy(acs))
	}
	if !strings.HasPrefix(link.Evidence, "standard input line ") || !strings.Contains(link.Evidence, "LnkSta") {
		t.Errorf("link-speed-degraded: evidence %q; want the LnkSta of a line of standard input", link.Evidence)
	}
}
