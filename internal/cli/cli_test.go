package cli

import (
	"bytes"
	"encoding/json"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// run executes gdtopo with args and returns its exit code and outputs.
func run(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := Main(args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

// bundled lists the sysfs trees under fixtures/.
func bundled(t *testing.T) []string {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join("..", "..", "fixtures", "*", "sys"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range dirs {
		out = append(out, filepath.Dir(d))
	}
	if len(out) < 7 {
		t.Fatalf("found %d fixtures under fixtures/, want at least 7", len(out))
	}
	return out
}

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
	for _, dir := range bundled(t) {
		name := filepath.Base(dir)
		src := filepath.ToSlash(filepath.Join("..", "..", "fixtures", name))
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

// TestJSONSchema checks the documented fields are present and shaped as
// promised, on every fixture.
func TestJSONSchema(t *testing.T) {
	for _, dir := range bundled(t) {
		code, out, errb := run("check", dir, "-o", "json")
		if code != ExitOK && code != ExitFindings {
			t.Fatalf("%s: exit %d: %s", dir, code, errb)
		}
		var r struct {
			SchemaVersion *int `json:"schema_version"`
			Devices       []map[string]any
			Pairs         []map[string]any
			Warnings      []map[string]any
		}
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		ends := 0
		for _, d := range r.Devices {
			if _, ok := d["alias"]; ok {
				ends++
			}
		}
		if r.SchemaVersion == nil || *r.SchemaVersion != 1 || len(r.Devices) == 0 || len(r.Pairs) != ends*(ends-1)/2 || r.Warnings == nil {
			t.Fatalf("%s: schema_version %v, %d devices, %d pairs", dir, r.SchemaVersion, len(r.Devices), len(r.Pairs))
		}
		for _, d := range r.Devices {
			for _, k := range []string{"bdf", "kind", "class", "vendor_id", "device_id", "parent", "host_bridge", "numa_node", "link", "rdma", "netdev"} {
				if _, ok := d[k]; !ok {
					t.Errorf("%s: device %v lacks %q", dir, d["bdf"], k)
				}
			}
			if id := d["vendor_id"].(string); len(id) != 4 || strings.HasPrefix(id, "0x") {
				t.Errorf("%s: vendor_id %q: want 4 hex digits", dir, id)
			}
		}
		for _, p := range r.Pairs {
			for _, k := range []string{"a", "b", "kinds", "smi", "nccl", "path", "hops", "bottleneck_gbps"} {
				if _, ok := p[k]; !ok {
					t.Errorf("%s: pair %v-%v lacks %q", dir, p["a"], p["b"], k)
				}
			}
		}
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
		{[]string{"check", "--bogus"}, ExitUsage, "unknown flag"},
		{[]string{"path", "GPU0"}, ExitUsage, "accepts between 2 and 3 arg"},
		{[]string{"matrix", "a", "b"}, ExitUsage, "accepts at most 1 arg"},
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
	for _, cmd := range []string{"check", "matrix", "tree", "path", "verify"} {
		if !strings.Contains(out, cmd) {
			t.Errorf("help does not list %s", cmd)
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
	dir := filepath.Join("..", "..", "fixtures", "dgx-a100") // 76 functions, the largest
	if _, err := os.Stat(dir); err != nil {
		b.Skip(err)
	}
	for i := 0; i < b.N; i++ {
		if code := Main([]string{"check", dir}, nil, io.Discard, io.Discard); code != ExitOK {
			b.Fatalf("exit %d", code)
		}
	}
}
