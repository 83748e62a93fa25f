package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// hostileNIC is an InfiniBand device name that holds markup, a terminal
// escape, a bell and a markdown cell's end.
const hostileNIC = "mlx5_<img src=x onerror=alert(1)>\x1b[31m\x07|"

// TestHostileNameEveryFormat renames a capture's first InfiniBand device to
// hostileNIC and runs every output format over it: no control character
// reaches any output, markup reaches none that a browser or a markdown
// renderer reads as markup, and a markdown table's cells stay whole.
func TestHostileNameEveryFormat(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cap")
	captureWithNIC(t, dir, hostileNIC)
	runs := [][]string{
		{"check", dir}, {"check", "-v", dir}, {"check", dir, "-o", "markdown"}, {"check", dir, "-o", "json"},
		{"check", dir, "-o", "jsonl"}, {"check", dir, "-o", "prometheus"}, {"check", dir, "-o", "nfd"},
		{"matrix", dir}, {"matrix", dir, "-o", "markdown"}, {"tree", dir}, {"tree", dir, "-o", "markdown"},
		{"fleet", dir, fx("hgx-h100")}, {"fleet", dir, fx("hgx-h100"), "-o", "prometheus"},
		{"export", "-o", "dot", dir}, {"export", "-o", "svg", dir}, {"export", "-o", "html", dir},
	}
	for _, args := range runs {
		name := strings.Join(args, " ")
		code, out, errb := run(args...)
		if code != ExitOK && code != ExitFindings {
			t.Errorf("%s: exit %d: %s", name, code, errb)
			continue
		}
		for _, s := range []string{out, errb} {
			if i := strings.IndexFunc(s, func(r rune) bool { return r < ' ' && r != '\n' && r != '\t' || r == 0x7f }); i >= 0 {
				t.Errorf("%s: a control character reaches the output: %q", name, s[max(0, i-60):min(len(s), i+20)])
			}
		}
		// Markdown and the pages (SVG, HTML) are rendered: no tag may
		// reach them. Elsewhere the name is text (a terminal's, a JSON or
		// DOT string, a label value).
		markup := strings.Contains(name, "markdown") || strings.Contains(name, "svg") || strings.Contains(name, "html")
		if i := strings.Index(out, "<img"); markup && i >= 0 {
			t.Errorf("%s: raw markup in the output: %q", name, out[max(0, i-60):min(len(out), i+60)])
		}
		if strings.Contains(name, "markdown") {
			for _, l := range strings.Split(out, "\n") {
				if strings.HasPrefix(l, "|") && strings.Contains(l, "x07|") {
					t.Errorf("%s: the name's '|' ends its cell: %q", name, l)
				}
			}
		}
	}
}
