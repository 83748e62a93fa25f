package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gdtopo/gdtopo/fixtures/fixturetest"
	"github.com/gdtopo/gdtopo/internal/report"
)

// referenceOf is check -o json's one report's comparison with the
// reference, each difference as diffLines writes it.
func referenceOf(t *testing.T, out string) (*report.Reference, []string) {
	t.Helper()
	var doc report.Check
	if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Sources) != 1 || doc.Sources[0].Report == nil {
		t.Fatalf("check -o json: %v\n%s", err, out)
	}
	ref := doc.Sources[0].Report.Reference
	if ref == nil {
		t.Fatalf("check -o json --reference: no reference\n%s", out)
	}
	var lines []string
	for _, d := range ref.Differences {
		s := d.What + " " + strings.TrimSpace(d.Alias+" "+d.Device+" "+d.Code)
		if d.NIC != "" {
			s += " - " + d.NICAlias
		}
		if len(d.Devices) > 0 {
			s += " on " + strings.Join(d.Devices, ",")
		}
		s += ": " + d.Majority + " -> " + d.Node
		if d.Worse {
			s += " (worse)"
		}
		lines = append(lines, s)
	}
	return ref, lines
}

// TestCheckReference: check --reference compares one machine with a
// known-good one as fleet --reference does. A copy of fixtures/hgx-h100
// with NIC2 at x8 against the clean fixture (a snapshot, or the clean
// machine's own check -o json report) gives NIC2's link, its eight pairs
// and its finding, each worse, in every output, and exits 3 though the
// fixture has no critical finding (0 with --fail-on never); a copy with
// NIC5 repaired is better, not worse, and exits 0; the clean fixture
// against itself has no difference and exits 0.
func TestCheckReference(t *testing.T) {
	t.Parallel()
	dir := fixturetest.TempDir(t)
	node := func(name string) string {
		to := filepath.Join(dir, name)
		if err := fixturetest.ExtractFile(fx("hgx-h100"), to); err != nil {
			t.Fatal(err)
		}
		return to
	}
	clean := node("clean")
	x8 := node("nic2-x8")
	setLinkWidth(t, filepath.Join(x8, hgxNIC2Port), 8)
	setLinkWidth(t, filepath.Join(x8, hgxNIC2Port, "0000:3d:00.0"), 8)
	fixed := node("nic5-repaired")
	setLinkWidth(t, filepath.Join(fixed, hgxNIC5Port), 16)
	setLinkWidth(t, filepath.Join(fixed, hgxNIC5Port, "0000:a1:00.0"), 16)

	// The clean machine's own report, as a node writes it.
	code, cleanJSON, errb := run("check", clean, "-o", "json")
	if code != ExitOK {
		t.Fatalf("check clean: exit %d: %s", code, errb)
	}
	cleanReport := filepath.Join(dir, "clean.json")
	if err := os.WriteFile(cleanReport, []byte(cleanJSON), 0o644); err != nil {
		t.Fatal(err)
	}

	gpus := []string{"0000:1a:00.0", "0000:1e:00.0", "0000:3c:00.0", "0000:40:00.0", "0000:9c:00.0", "0000:a0:00.0", "0000:bc:00.0", "0000:c0:00.0"}
	from := []string{"143.3", "143.3", "400.0", "400.0", "92.3", "92.3", "92.3", "92.3"}
	to := []string{"82.6", "82.6", "230.5", "230.5", "82.6", "82.6", "82.6", "82.6"}
	want := []string{"link NIC2 0000:3d:00.0: x16 at 32 GT/s -> x8 at 32 GT/s (worse)"}
	for i, g := range gpus {
		want = append(want, "throughput GPU"+string(rune('0'+i))+" "+g+" - NIC2: "+from[i]+" Gb/s -> "+to[i]+" Gb/s (worse)")
	}
	want = append(want, "finding_added link-width-degraded on 0000:3b:01.0,0000:3d:00.0:  -> warning (worse)")

	for _, reference := range []string{clean, cleanReport} {
		code, out, errb := run("check", x8, "--reference", reference, "-o", "json")
		if code != ExitFindings {
			t.Errorf("x8 against %s: exit %d, want 3; stderr %s", reference, code, errb)
		}
		ref, got := referenceOf(t, out)
		if ref.Source != reference || ref.Worse != len(want) || !slices.Equal(got, want) {
			t.Errorf("x8 against %s: reference %q, %d worse, differences\n%s\nwant\n%s", reference, ref.Source, ref.Worse,
				strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}

	// Text: a section after the findings; the exit status says why.
	code, out, errb := run("check", x8, "--reference", clean)
	if code != ExitFindings || !strings.Contains(out, "Unlike the reference "+clean+" (10 differences, 10 worse)\n") ||
		!strings.Contains(out, "  NIC2 0000:3d:00.0 (mlx5_2): link x8 at 32 GT/s, reference x16 at 32 GT/s\n") ||
		!strings.Contains(errb, "10 difference(s) worse than the reference") {
		t.Errorf("check --reference: exit %d, stderr %q, output\n%s", code, errb, out)
	}
	if strings.Index(out, "Unlike the reference") < strings.Index(out, "Findings (") {
		t.Errorf("the reference's section comes before the findings:\n%s", out)
	}
	// --fail-on never: still listed, exit 0.
	if code, out, _ := run("check", x8, "--reference", clean, "--fail-on", "never", "-o", "json"); code != ExitOK {
		t.Errorf("--fail-on never: exit %d", code)
	} else if ref, _ := referenceOf(t, out); ref.Worse != len(want) {
		t.Errorf("--fail-on never: %d worse, want %d", ref.Worse, len(want))
	}

	// Terse: a line per difference, CRITICAL when worse, after the critical
	// findings (none here) and before the warnings.
	code, out, _ = run("check", x8, "--reference", clean, "-o", "terse")
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if code != ExitFindings || len(lines) < 12 ||
		lines[0] != "CRITICAL reference-link 0000:3d:00.0 NIC2 0000:3d:00.0 (mlx5_2): link x8 at 32 GT/s, reference x16 at 32 GT/s" ||
		!strings.HasPrefix(lines[1], "CRITICAL reference-throughput 0000:1a:00.0,0000:3d:00.0 pair GPU0 0000:1a:00.0 - NIC2 0000:3d:00.0 (mlx5_2): throughput 82.6 Gb/s, reference 143.3 Gb/s") ||
		!strings.HasPrefix(lines[9], "CRITICAL reference-finding_added 0000:3b:01.0,0000:3d:00.0 finding link-width-degraded (warning) on ") ||
		!strings.HasPrefix(lines[10], "WARNING link-width-degraded ") {
		t.Errorf("-o terse: exit %d\n%s", code, out)
	}

	// Better than the reference: listed, not worse, exit 0; INFO in -o terse.
	code, out, _ = run("check", fixed, "--reference", clean, "-o", "terse")
	if code != ExitOK || !strings.Contains(out, "\nINFO reference-link 0000:a1:00.0 NIC5 0000:a1:00.0 (mlx5_5): link x16 at 32 GT/s, reference x8 at 32 GT/s\n") ||
		strings.Contains(out, "CRITICAL") {
		t.Errorf("a machine better than the reference: exit %d\n%s", code, out)
	}

	// The clean machine against itself, and against its own report.
	for _, reference := range []string{clean, cleanReport} {
		code, out, errb := run("check", clean, "--reference", reference, "-o", "json")
		ref, got := referenceOf(t, out)
		if code != ExitOK || ref.Worse != 0 || len(got) != 0 {
			t.Errorf("clean against %s: exit %d (%s), differences %q", reference, code, errb, got)
		}
	}
	if code, out, _ := run("check", clean, "--reference", clean); code != ExitOK || !strings.Contains(out, "Like the reference "+clean+": no differences\n") {
		t.Errorf("clean against itself: exit %d\n%s", code, out)
	}
	if code, out, _ := run("check", clean, "--reference", clean, "-o", "terse"); code != ExitOK || strings.Contains(out, "reference-") {
		t.Errorf("clean against itself, -o terse: exit %d\n%s", code, out)
	}
	if code, _, errb := run("check", clean, "--reference", filepath.Join(dir, "absent")); code != ExitError || !strings.Contains(errb, "absent") {
		t.Errorf("an unreadable reference: exit %d, stderr %q", code, errb)
	}
}
