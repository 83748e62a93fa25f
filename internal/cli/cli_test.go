package cli

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/gdtopo/gdtopo/fixtures/fixturetest"
	"github.com/gdtopo/gdtopo/internal/render"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// run executes gdtopo with args and returns its exit code and outputs.
// Every JSON document it returns is kept for TestMain to validate against
// the schema.
func run(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := Main(args, strings.NewReader(""), &out, &errb)
	keepJSON(args, code, out.String())
	return code, out.String(), errb.String()
}

// bundled lists the fixture archives, fixtures/NAME.tar.gz, as relative
// paths.
func bundled(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, name := range fixturetest.Names(t) {
		out = append(out, fx(name))
	}
	return out
}

// fx is the relative path of the fixture archive fixtures/NAME.tar.gz.
func fx(name string) string { return filepath.Join("..", "..", "fixtures", name+".tar.gz") }

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	file := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/cli -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file (go test ./internal/cli -update rewrites it):\n--- got\n%s\n--- want\n%s", file, got, want)
	}
}

// TestGolden pins every reporting command's output on every fixture. Names
// come from a pinned pci.ids extract so the host's copy does not matter.
func TestGolden(t *testing.T) {
	ids := filepath.Join("testdata", "pci.ids")
	for _, name := range fixturetest.Names(t) {
		src := filepath.ToSlash(fx(name))
		t.Run(name, func(t *testing.T) {
			for _, c := range []struct {
				file string
				args []string
			}{
				{"check.txt", []string{"check", src, "--pci-ids", ids}},
				{"check.json", []string{"check", src, "-o", "json", "--pci-ids", ids}},
				{"check.md", []string{"check", src, "-o", "markdown", "--pci-ids", ids}},
				{"matrix.txt", []string{"matrix", src, "--pci-ids", ids}},
				{"tree.txt", []string{"tree", src, "--pci-ids", ids}},
			} {
				code, out, errb := run(c.args...)
				if code != ExitOK && !(code == ExitFindings && c.args[0] == "check") {
					t.Fatalf("gdtopo %s: exit %d, stderr %s", strings.Join(c.args, " "), code, errb)
				}
				golden(t, filepath.Join(name, c.file), out)
			}
		})
	}
}

func TestExitCodesAndErrors(t *testing.T) {
	tmp := t.TempDir()
	notSysfs := filepath.Join(tmp, "empty")
	if err := os.Mkdir(notSysfs, 0o755); err != nil {
		t.Fatal(err)
	}
	junk := filepath.Join(tmp, "junk.bin")
	if err := os.WriteFile(junk, []byte("\x00\x01\x02 not an archive at all"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args    []string
		code    int
		errPart string // substring of stderr
	}{
		{[]string{"check", filepath.Join(tmp, "nope")}, ExitError, filepath.Join(tmp, "nope")},
		{[]string{"check", notSysfs}, ExitError, "not a sysfs tree"},
		{[]string{"check", junk}, ExitError, junk},
		{[]string{"check", "-o", "yaml", "x"}, ExitUsage, `invalid output format "yaml"`},
		{[]string{"check", "a", "b"}, ExitError, "gdtopo: b: no such file"},
		{[]string{"frobnicate"}, ExitUsage, "unknown command"},
		// cobra's suggestion on lines of its own, not as escaped "\n"
		{[]string{"chek"}, ExitUsage, "gdtopo: unknown command \"chek\" for \"gdtopo\"\n\nDid you mean this?\n\tcheck\nRun 'gdtopo --help' for usage.\n"},
		{[]string{"chek\x1b[31m"}, ExitUsage, `unknown command "chek\x1b[31m"`},
		{[]string{"check", "--bogus"}, ExitUsage, "unknown flag"},
		{[]string{"path", "GPU0"}, ExitUsage, "accepts between 2 and 3 arg"},
		{[]string{"path", "../../fixtures/hgx-h100.tar.gz", "GPU0", "NIC0"}, ExitUsage, "SOURCE comes after the two devices: gdtopo path GPU0 NIC0 ../../fixtures/hgx-h100.tar.gz"},
		{[]string{"path", "GPU0", "../../fixtures/hgx-h100.tar.gz"}, ExitUsage, "path needs two devices before SOURCE, and ../../fixtures/hgx-h100.tar.gz is a source"},
		{[]string{"matrix", "a", "b"}, ExitUsage, "accepts at most 1 arg"},
		// A wrong -o lists every format that command offers.
		{[]string{"check", "-o", "svg"}, ExitUsage, "valid formats are table, json, markdown, jsonl, prometheus, nfd, terse"},
		{[]string{"matrix", "-o", "nfd"}, ExitUsage, "valid formats are table, json, markdown"},
		{[]string{"tree", "-o", "x"}, ExitUsage, "valid formats are table, json, markdown"},
		{[]string{"path", "a", "b", "-o", "x"}, ExitUsage, "valid formats are table, json, markdown"},
		{[]string{"compare", "a", "b", "-o", "x"}, ExitUsage, "valid formats are table, json, markdown"},
		{[]string{"export", "-o", "json"}, ExitUsage, "valid formats are nccl-xml, svg, dot, html"},
		{[]string{"snapshot", "-o", "out.tar.gz"}, ExitUsage, "valid formats are tar.gz"},
		{[]string{"check", "--fail-on", "sometimes"}, ExitUsage, "or never"},
	}
	for _, tt := range tests {
		code, _, errb := run(tt.args...)
		if code != tt.code || !strings.Contains(errb, tt.errPart) {
			t.Errorf("gdtopo %s: exit %d, stderr %q; want exit %d and %q", strings.Join(tt.args, " "), code, errb, tt.code, tt.errPart)
		}
		if lines := strings.Count(strings.TrimSpace(errb), "\n"); tt.code == ExitError && lines != 0 && tt.args[0] != "check" {
			t.Errorf("gdtopo %s: error took %d lines, want one: %q", strings.Join(tt.args, " "), lines+1, errb)
		}
	}
}

func TestPathCommand(t *testing.T) {
	src := bundled(t)[0]
	// --explain of two accelerators fails before printing anything.
	if code, out, errb := run("path", "GPU0", "GPU1", src, "--explain"); code != ExitUsage || out != "" || !strings.Contains(errb, "needs an accelerator and a NIC") {
		t.Errorf("path GPU0 GPU1 --explain: exit %d, stdout %q, stderr %q; want 2, nothing, the reason", code, out, errb)
	}
	code, out, errb := run("path", "GPU0", "NIC0", src)
	if code != ExitOK || !strings.Contains(out, "nvidia-smi") || !strings.Contains(out, "Hops") {
		t.Fatalf("path GPU0 NIC0: exit %d, out %q, err %q", code, out, errb)
	}
	code, _, errb = run("path", "GPU0", "mlx5_99", src)
	if code != ExitError || !strings.Contains(errb, `no device "mlx5_99"`) {
		t.Errorf("unknown device: exit %d, stderr %q", code, errb)
	}
	code, _, errb = run("path", "GPU0", "gpu0", src)
	if code != ExitError || !strings.Contains(errb, "same device") {
		t.Errorf("same device: exit %d, stderr %q", code, errb)
	}
}

func TestNoAccelerators(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(dir, "sys", "bus", "pci", "devices")
	dev := filepath.Join(dir, "sys", "devices", "pci0000:00", "0000:00:03.0")
	if err := os.MkdirAll(link, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dev, 0o755); err != nil {
		t.Fatal(err)
	}
	for f, v := range map[string]string{"vendor": "0x1af4\n", "device": "0x1041\n", "class": "0x020000\n"} {
		if err := os.WriteFile(filepath.Join(dev, f), []byte(v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("../../../devices/pci0000:00/0000:00:03.0", filepath.Join(link, "0000:00:03.0")); err != nil {
		t.Fatal(err)
	}
	code, out, errb := run("check", dir)
	if code != ExitOK || !strings.Contains(out, "no accelerators found among 1 PCI functions") {
		t.Errorf("exit %d, out %q, err %q", code, out, errb)
	}
}

func TestHelpIsComplete(t *testing.T) {
	code, out, _ := run("help")
	if code != ExitOK {
		t.Fatalf("help: exit %d", code)
	}
	for _, cmd := range []string{"check", "matrix", "tree", "path", "compare", "export", "snapshot", "verify", "completion"} {
		if !strings.Contains(out, "  "+cmd+" ") {
			t.Errorf("help does not list %s", cmd)
		}
		if cmd == "completion" {
			continue
		}
		code, out, _ := run(cmd, "--help")
		if code != ExitOK || !strings.Contains(out, "Examples:") || !strings.Contains(out, "--output") {
			t.Errorf("%s --help lacks examples or global flags: %q", cmd, out)
		}
	}
}

// BenchmarkCheck measures a whole gdtopo check (open, read, classify, name,
// render) on the largest bundled fixture.
func BenchmarkCheck(b *testing.B) {
	dir := fx("dgx-a100") // 76 functions, the largest
	if _, err := os.Stat(dir); err != nil {
		b.Skip(err)
	}
	for i := 0; i < b.N; i++ {
		if code := Main([]string{"check", dir}, nil, io.Discard, io.Discard); code != ExitOK {
			b.Fatalf("exit %d", code)
		}
	}
}

// BenchmarkTree measures a whole gdtopo tree (open, read, name every
// function from pci.ids, render) on the largest bundled fixture.
func BenchmarkTree(b *testing.B) {
	dir := fx("dgx-a100")
	if _, err := os.Stat(dir); err != nil {
		b.Skip(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if code := Main([]string{"tree", dir}, nil, io.Discard, io.Discard); code != ExitOK {
			b.Fatalf("exit %d", code)
		}
	}
}

// TestStoragePairsShown checks that GPUDirect Storage pairs reach check's
// text and JSON on the GDS fixture (NVIDIA GDS design guide layout: four
// drives in each GPU's switch).
func TestStoragePairsShown(t *testing.T) {
	src := fx("gds-storage")
	code, out, errb := run("check", src, "-v")
	if code != ExitOK && code != ExitFindings {
		t.Fatalf("exit %d: %s", code, errb)
	}
	if !strings.Contains(out, "Accelerator x NVMe (GPUDirect Storage)") || !strings.Contains(out, "PIX in the switch: 0000:1a:00.0") {
		t.Errorf("check -v text lacks the storage table:\n%s", out)
	}
	if _, out, _ = run("check", src); !strings.Contains(out, "\nGPUDirect Storage, nearest NVMe drives: GPU0, GPU1, GPU2, GPU3: PIX in the switch\n") {
		t.Errorf("check text lacks the storage line:\n%s", out)
	}
	code, out, errb = run("check", src, "-o", "json")
	if code != ExitOK && code != ExitFindings {
		t.Fatalf("exit %d: %s", code, errb)
	}
	var doc struct {
		Sources []struct {
			Report struct {
				StoragePairs []struct{ Accelerator, NVMe, SMI, Route string } `json:"storage_pairs"`
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Sources) != 1 {
		t.Fatalf("%v, %d sources", err, len(doc.Sources))
	}
	r := doc.Sources[0].Report
	if len(r.StoragePairs) != 4*24 {
		t.Fatalf("%d storage pairs, want 96 (4 GPUs x 24 drives)", len(r.StoragePairs))
	}
	if p := r.StoragePairs[0]; p.Accelerator != "0000:18:00.0" || p.NVMe != "0000:1a:00.0" || p.SMI != "PIX" || p.Route != "in the switch" {
		t.Errorf("first storage pair %+v", p)
	}
}

// TestOneCommandRoot checks that a root built for one command (what
// mainStreams builds) runs it as the whole tree does: the same output,
// error and command, for help, flag mistakes and missing arguments, on a
// terminal width and without, and that it holds that command alone.
func TestOneCommandRoot(t *testing.T) {
	execute := func(root *cobra.Command, out, errb *bytes.Buffer, args []string) string {
		root.SetArgs(args)
		cmd, err := root.ExecuteC()
		return fmt.Sprintf("%s: %v\nout:\n%s\nerr:\n%s", cmd.CommandPath(), err, out, errb)
	}
	for _, c := range commands() {
		for _, args := range [][]string{
			{c.name, "--help"}, {c.name, "-h", "--pci-ids", "x"}, {c.name, "--no-such-flag"},
			{c.name, "-o", "no-such-format", "no-such-source"}, {c.name, "a", "b", "c", "d", "e"},
		} {
			for _, width := range []int{0, 80} {
				var out, errb, wholeOut, wholeErr bytes.Buffer
				root := newRootCmdFor(&Streams{In: strings.NewReader(""), Out: &out, Err: &errb, Style: render.Style{Width: width}}, args)
				if n := len(root.Commands()); n != 1 {
					t.Errorf("%v: the root holds %d commands; want %s alone", args, n, c.name)
				}
				got := execute(root, &out, &errb, args)
				whole := NewRootCmd(&Streams{In: strings.NewReader(""), Out: &wholeOut, Err: &wholeErr, Style: render.Style{Width: width}})
				if want := execute(whole, &wholeOut, &wholeErr, args); got != want {
					t.Errorf("%v, width %d: the one-command root gives\n%s\nthe whole tree\n%s", args, width, got, want)
				}
			}
		}
		if got := c.new(&globalOptions{IO: &Streams{}}).Name(); got != c.name {
			t.Errorf("command %q is named %q by its constructor", c.name, got)
		}
	}
	for _, args := range [][]string{nil, {"help"}, {"--pci-ids", "x", "check"}, {"chek"}, {"completion", "bash"}} {
		if n := len(newRootCmdFor(&Streams{}, args).Commands()); n < len(commands()) {
			t.Errorf("%v: the root holds %d commands; want the whole tree", args, n)
		}
	}
}
