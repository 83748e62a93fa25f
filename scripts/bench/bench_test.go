package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gdtopo/gdtopo/internal/cli"
)

// asGdtopo, set in the environment, makes the test binary run as gdtopo, so
// the test times gdtopo without building it (the unprivileged CI run has no
// module cache to build from).
const asGdtopo = "GDTOPO_BENCH_TEST_AS_GDTOPO"

func TestMain(m *testing.M) {
	if os.Getenv(asGdtopo) == "1" {
		os.Exit(cli.MainTerminal(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv, ""))
	}
	os.Exit(m.Run())
}

// TestQuickTable runs the quick mode on one fixture, a small generated tree
// and a small fleet, and checks that both tables parse and hold every
// workload. It asserts no speed: the ratios are whatever this machine gives.
func TestQuickTable(t *testing.T) {
	for _, tool := range []string{"lspci", "lstopo-no-graphics"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is needed in CI: %v", tool, err)
			}
			t.Skipf("%s not installed (pciutils, hwloc); this test runs in CI: %v", tool, err)
		}
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(asGdtopo, "1")
	const fixture = "fixtures/hgx-h100"
	o := options{
		Only:      regexp.MustCompile("^" + regexp.QuoteMeta(fixture) + "$"),
		Functions: 200, Fleet: 20, Reports: 20, Warmup: -1,
		Gdtopo: self, Root: "../..",
	}
	o.setDefaults(true)
	var out bytes.Buffer
	if err := run(o, &out); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	if strings.Contains(text, "Failed:") {
		t.Errorf("a comparison failed:\n%s", text)
	}

	all := []string{fleetRow, fleetRSSRow, reportsRow, reportsRSSRow, checkRSSRow}
	for w := checkLspci; w <= bigLstopo; w++ {
		all = append(all, w.String())
	}
	for _, tc := range []struct {
		marker string
		detail bool
	}{{summaryMarker, false}, {detailMarker, true}} {
		rows := parseTable(t, text, tc.marker, header(tc.detail))
		var got []string
		for _, r := range rows {
			got = append(got, r[0])
			if ratio := r[4]; ratio != "-" && !regexp.MustCompile(`^≥? ?\d+\.\d\d( \(\d+\.\d\d-\d+\.\d\d\))?$`).MatchString(ratio) {
				t.Errorf("%s: row %q: ratio cell %q", tc.marker, r[0], ratio)
			}
			if met := r[6]; met != "-" && met != "yes" && !strings.HasPrefix(met, "no") {
				t.Errorf("%s: row %q: met? cell %q", tc.marker, r[0], met)
			}
			if slices.Contains(r, "failed") {
				t.Errorf("%s: row %q failed: %q", tc.marker, r[0], r)
			}
		}
		for _, w := range all {
			if !slices.Contains(got, w) {
				t.Errorf("%s: no %q row; rows: %q", tc.marker, w, got)
			}
		}
		if tc.detail {
			for _, r := range rows {
				if r[0] == checkLspci.String() && r[1] != fixture {
					t.Errorf("detail row for input %q, want only %s", r[1], fixture)
				}
			}
		}
	}
}

// parseTable returns the cells of the Markdown table in the marked block,
// after checking its header and separator lines.
func parseTable(t *testing.T, text, marker string, header []string) [][]string {
	t.Helper()
	begin, end := "<!-- "+marker+" begin -->", "<!-- "+marker+" end -->"
	i, j := strings.Index(text, begin), strings.Index(text, end)
	if i < 0 || j < i {
		t.Fatalf("no %s block in:\n%s", marker, text)
	}
	var rows [][]string
	for line := range strings.SplitSeq(text[i+len(begin):j], "\n") {
		if !strings.HasPrefix(line, "|") {
			continue
		}
		if !strings.HasSuffix(line, " |") {
			t.Fatalf("%s: unterminated row %q", marker, line)
		}
		cells := strings.Split(strings.TrimSuffix(strings.TrimPrefix(line, "| "), " |"), " | ")
		if len(cells) != len(header) {
			t.Fatalf("%s: %d cells, want %d: %q", marker, len(cells), len(header), line)
		}
		rows = append(rows, cells)
	}
	if len(rows) < 2 || !slices.Equal(rows[0], header) || strings.Trim(strings.Join(rows[1], ""), "-") != "" {
		t.Fatalf("%s: header %q, want %q and a separator line", marker, rows, header)
	}
	return rows[2:]
}

// TestLspciCannotRead: an input lspci cannot read (a function with
// neither a vendor nor a config file, as in the corpus POWER capture) gets
// a note with lspci's words and no rows against it; one it can read gets
// both.
func TestLspciCannotRead(t *testing.T) {
	lspci, err := exec.LookPath("lspci")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("lspci missing in CI: %v", err)
		}
		t.Skipf("lspci (pciutils) not installed here; CI installs it: %v", err)
	}
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "capture")
	fn := filepath.Join(dir, "sys", "bus", "pci", "devices", "0000:00:01.0")
	if err := os.MkdirAll(fn, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(fn, "class"), []byte("0x030000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tl := tools{lspci: lspci}
	var notes []string
	if tl.lspciReads(input{"corpus x", dir}, &notes) || len(notes) != 1 {
		t.Errorf("notes %q", notes)
	}
	// The note as printed, its paths relative to the bench's folder.
	if doc := render(machine{}, results{notes: notes, tmp: tmp}); !strings.Contains(doc.summary,
		"\n\nNote: corpus x: no rows against lspci -tv, which cannot read it: lspci: exit status 1: pcilib: Cannot open capture/sys/bus/pci/devices/0000:00:01.0/") {
		t.Errorf("printed notes:\n%s", doc.summary)
	}
	for _, f := range []string{"vendor", "device"} {
		if err := os.WriteFile(filepath.Join(fn, f), []byte("0x8086\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	notes = nil
	if !tl.lspciReads(input{"corpus x", dir}, &notes) || len(notes) != 0 {
		t.Errorf("with vendor and device files: notes %q", notes)
	}
}
