package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gdtopo/gdtopo/fixtures/fixturetest"
)

// TestNotADump points check at files that are no topology dump (this
// repository's Go source and prose, some of which quote a device line or a
// tree line): each is exit 1 with one line that names the file and the
// forms gdtopo reads. The corpus's text dumps all still read.
func TestNotADump(t *testing.T) {
	root := filepath.Join("..", "..")
	var files []string
	for _, g := range []string{"fixtures/*.go", "internal/*/*.go", "topology/*.go", "advisor/*.go", "*.md", "docs/*.md"} {
		m, err := filepath.Glob(filepath.Join(root, g))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	// Each fixture's README.md, which its archive holds.
	readmes := t.TempDir()
	for _, name := range fixturetest.Names(t) {
		for _, b := range fixturetest.Files(t, name, func(m string) bool { return m == "README.md" }) {
			f := filepath.Join(readmes, name+"-README.md")
			if err := os.WriteFile(f, b, 0o644); err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
	}
	if len(files) < 50 {
		t.Fatalf("only %d files found", len(files))
	}
	for _, f := range files {
		code, _, errb := run("check", f)
		lines := strings.Split(strings.TrimSpace(errb), "\n")
		if code != ExitError || len(lines) != 1 || !strings.Contains(errb, f) || !strings.Contains(errb, "lspci output") {
			t.Errorf("check %s: exit %d, stderr %q; want exit 1 and one line naming the file and the forms read", f, code, errb)
		}
	}

	corpus := filepath.Join(root, "..", "shared", "corpus")
	if _, err := os.Stat(corpus); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("corpus missing: %v", err)
		}
		t.Skipf("corpus missing (%v): its dumps not checked", err)
	}
	var dumps []string
	for _, g := range []string{"lspci/*", "hwloc/*.console", "hwloc/*.xml", "nccl-xml/*topo*.xml", "nccl-xml/*.fragment.xml", "nccl-xml/rccl-*.xml", "paired/*/lspci-*"} {
		m, _ := filepath.Glob(filepath.Join(corpus, g))
		dumps = append(dumps, m...)
	}
	if len(dumps) < 30 {
		t.Fatalf("only %d corpus dumps found", len(dumps))
	}
	for _, f := range dumps {
		if strings.HasSuffix(f, ".numa.txt") { // NUMA node lines alone: refused, not a dump
			if code, _, errb := run("check", f); code != ExitError || !strings.Contains(errb, "only NUMA node lines") {
				t.Errorf("check %s: exit %d: %s; want it refused", f, code, errb)
			}
			continue
		}
		if code, _, errb := run("check", f, "--fail-on", "critical"); code != ExitOK && code != ExitFindings {
			t.Errorf("check %s: exit %d: %s", f, code, errb)
		}
	}
}
