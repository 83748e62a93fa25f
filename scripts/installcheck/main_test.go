package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/zip"
)

// TestInstallable: a path with ':' under fixtures/, a replace and an exclude
// line are each reported, the paths grouped by folder and relative to the
// module; a clean module has nothing to report.
func TestInstallable(t *testing.T) {
	write := func(dir, name, data string) {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	check := func(dir string) []string {
		t.Helper()
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err != nil {
			t.Fatal(err)
		}
		mf, err := modfile.Parse("go.mod", data, nil)
		if err != nil {
			t.Fatal(err)
		}
		checked, _ := zip.CheckDir(dir)
		relative(dir, checked.Invalid)
		return installable(mf, checked)
	}

	clean := t.TempDir()
	write(clean, "go.mod", "module example.com/m\n\ngo 1.25.0\n")
	write(clean, "fixtures/a.tar.gz", "archive")
	if p := check(clean); len(p) != 0 {
		t.Errorf("clean module: %q", p)
	}

	bad := t.TempDir()
	write(bad, "go.mod", "module example.com/m\n\ngo 1.25.0\n\nreplace example.com/x => ./third_party/x\n\nexclude example.com/y v1.0.0\n")
	write(bad, "fixtures/a/sys/devices/pci0000:00/class", "0x060000")
	write(bad, "fixtures/a/sys/devices/pci0000:00/vendor", "0x8086")
	got := strings.Join(check(bad), "\n")
	for _, want := range []string{
		"2 files cannot be in a module zip",
		"fixtures/a: 2, such as fixtures/a/sys/devices/pci0000:00/class: invalid char ':'",
		"fixtures/NAME.tar.gz",
		"replace example.com/x => ./third_party/x",
		"exclude example.com/y v1.0.0",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("problems lack %q:\n%s", want, got)
		}
	}
}
