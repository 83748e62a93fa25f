package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gdtopo/gdtopo/internal/render"
	"github.com/gdtopo/gdtopo/internal/report"
)

// TestEveryCheckReadable: over every fixture and corpus file, check reads
// as an operator needs it to: at 80 columns (COLUMNS=80) check -v has no
// line wider than 80 and splits no word (every word it prints is one the
// unlimited-width output prints, or that word's address without domain
// 0000, or a piece of a word longer than a line); the default check of a
// source with at most eight accelerators fits 50 lines; and piped (no
// width), each finding's line holds its whole message and whom it is
// about. TestUncertainFlagsMatchTables holds the labels' "?" to JSON.
func TestEveryCheckReadable(t *testing.T) {
	for _, src := range consistencySources(t) {
		t.Run(strings.TrimPrefix(src, "../../"), func(t *testing.T) {
			t.Parallel()
			code, js, _ := run("check", src, "-o", "json")
			if code != ExitOK && code != ExitFindings {
				return // unreadable: TestEveryFormatAgrees covers it
			}
			var doc report.Check
			if err := json.Unmarshal([]byte(js), &doc); err != nil || len(doc.Sources) != 1 || doc.Sources[0].Report == nil {
				t.Fatalf("check -o json: %v", err)
			}
			r := doc.Sources[0].Report
			narrowWordsWhole(t, src)
			_, out, _ := run("check", src)
			if n := strings.Count(out, "\n"); len(r.Accelerators) <= 8 && n > 50 {
				t.Errorf("default check of %d accelerators is %d lines, want at most 50:\n%s", len(r.Accelerators), n, out)
			}
			findingsWhole(t, out, r)
		})
	}
}

// narrowWordsWhole checks check -v of src at 80 columns against its
// unlimited-width output.
func narrowWordsWhole(t *testing.T, src string) {
	t.Helper()
	_, wide, _ := run("check", "-v", src)
	var out bytes.Buffer
	mainStreams([]string{"check", "-v", src}, &Streams{In: strings.NewReader(""), Out: &out, Err: &bytes.Buffer{}, Style: render.Style{Width: 80}})
	words := map[string]bool{}
	var long []string // words no line holds whole
	for _, w := range strings.Fields(wide) {
		words[w] = true
		if utf8.RuneCountInString(w) > 60 {
			long = append(long, w)
		}
	}
	leftOut := false // the line naming columns left out, and its wrapped rest
	for i, l := range strings.Split(out.String(), "\n") {
		if n := utf8.RuneCountInString(l); n > 80 {
			t.Errorf("check -v at 80 columns, line %d is %d columns: %q", i+1, n, l)
		}
		if strings.HasPrefix(l, "Left out to fit ") || leftOut && strings.HasPrefix(l, "  ") {
			leftOut = true
			continue
		}
		leftOut = false
		for _, w := range strings.Fields(l) {
			if words[w] || words["0000:"+w] || strings.Trim(w, "-") == "" || pieceOf(w, long) {
				continue
			}
			t.Errorf("check -v at 80 columns, line %d splits a word: %q in %q", i+1, w, l)
		}
	}
}

// pieceOf reports whether w is part of one of long.
func pieceOf(w string, long []string) bool {
	for _, l := range long {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

// findingsWhole checks that check's piped text says each of r's findings
// whole, or counts it under the first of its code.
func findingsWhole(t *testing.T, out string, r *report.Report) {
	t.Helper()
	_, text, _ := strings.Cut(out, "\nFindings (")
	for _, f := range r.Findings {
		if strings.Contains(text, "  "+f.Message+" (on ") {
			continue
		}
		if strings.Contains(text, f.Code+"  and ") && strings.Contains(text, " more like it") {
			continue
		}
		t.Errorf("piped check does not say %s whole: %q\n%s", f.Code, f.Message, text)
	}
	if strings.Contains(text, "...") {
		t.Errorf("piped check cuts a finding:\n%s", text)
	}
}

// TestStorageUnknownOnPlainLspci: plain lspci shows no hierarchy, so the
// GPUDirect Storage view says each path is unknown: no drive counted in a
// switch or behind the root complex, no route stated.
func TestStorageUnknownOnPlainLspci(t *testing.T) {
	src := corpusPath(t, "lspci", "lenovo-sd665n-v3-4xh100-genoa.lspci.txt")
	_, out, _ := run("check", src)
	if !strings.Contains(out, "GPUDirect Storage, nearest NVMe drives: GPU0, GPU1, GPU2, GPU3: path unknown") {
		t.Errorf("check of plain lspci states a storage route:\n%s", out)
	}
	_, out, _ = run("check", "-v", src)
	if strings.Contains(out, "through the root complex") || strings.Contains(out, "GPU0 0000:06:00.0  0") {
		t.Errorf("check -v of plain lspci counts drives by route:\n%s", out)
	}
	for _, p := range checkReport(t, src).StoragePairs {
		if p.Route != "unknown" {
			t.Errorf("storage pair %s-%s: route %q, want unknown", p.Accelerator, p.NVMe, p.Route)
		}
	}
}

// TestExportNCCLFromLspci: an NCCL topology from lspci text holds nothing
// NCCL cannot match: no <cpu numaid="-1"> for a NUMA node the dump does not
// give (refused instead), no device="0x0000" for an ID it does not give, no
// <net> named by an address (NCCL matches nets by device name).
func TestExportNCCLFromLspci(t *testing.T) {
	dir := corpusPath(t, "paired", "puget-wrx90-threadripper-2xrtx6000ada-cx7")
	tv := filepath.Join(dir, "lspci-tv.txt")
	if code, out, errb := run("export", "-o", "nccl-xml", tv); code != ExitError || out != "" || !strings.Contains(errb, "does not give the NUMA node") {
		t.Errorf("export of lspci -tv alone: exit %d, stderr %q:\n%s", code, errb, out)
	}
	var all []byte
	for _, f := range []string{"lspci-tv.txt", "lspci-vvv.md", "numactl.txt"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, b...)
	}
	src := filepath.Join(t.TempDir(), "host.txt")
	if err := os.WriteFile(src, all, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errb := run("export", "-o", "nccl-xml", src)
	if code != ExitOK {
		t.Fatalf("export: exit %d: %s", code, errb)
	}
	for _, bad := range []string{`numaid="-1"`, `device="0x0000"`, `<net name="0000:`} {
		if strings.Contains(out, bad) {
			t.Errorf("export writes %s:\n%s", bad, out)
		}
	}
	if !strings.Contains(out, `<cpu numaid="0"`) || strings.Count(out, "<gpu ") != 2 {
		t.Errorf("export lacks the CPU or the GPUs:\n%s", out)
	}
}

// TestNoBlankFirstLine: compare and calibrate open with their first
// heading, not a blank line.
func TestNoBlankFirstLine(t *testing.T) {
	text, err := os.ReadFile("../../advisor/testdata/ib_write_bw-server.txt")
	if err != nil {
		t.Fatal(err)
	}
	perftest := filepath.Join(t.TempDir(), "write-server.txt")
	if err := os.WriteFile(perftest, text, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"compare", fx("hgx-h100"), fx("dgx-a100")}, {"calibrate", fx("hgx-h100"), perftest}} {
		code, out, errb := run(args...)
		if code != ExitOK || strings.HasPrefix(out, "\n") {
			t.Errorf("%v: exit %d %q, output opens %q", args, code, errb, out[:min(len(out), 40)])
		}
	}
}
