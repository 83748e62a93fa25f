package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestVersionSame: the program says the same to gdtopo version and gdtopo
// --version.
func TestVersionSame(t *testing.T) {
	v, flag := gdtopo(t, "", nil, "version"), gdtopo(t, "", nil, "--version")
	if v.code != 0 || flag.code != 0 || v.stdout != flag.stdout || !strings.HasPrefix(v.stdout, "gdtopo ") {
		t.Errorf("gdtopo version: exit %d %q\ngdtopo --version: exit %d %q", v.code, v.stdout, flag.code, flag.stdout)
	}
}

// TestVersionStamped: a binary built as a release is, with -ldflags
// "-X main.version=...", says that version to gdtopo version and gdtopo
// --version alike.
func TestVersionStamped(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("no go command in CI: %v", err)
		}
		t.Skipf("no go command to build gdtopo with (CI has one): %v", err)
	}
	const stamped = "v9.8.7-stamped"
	bin := filepath.Join(t.TempDir(), "gdtopo")
	build := exec.Command(goTool, "build", "-buildvcs=false", "-ldflags", "-X main.version="+stamped, "-o", bin, ".")
	// offline: the run as an unprivileged user has no module cache
	build.Env = append(os.Environ(), "GOPROXY=off")
	if out, err := build.CombinedOutput(); err != nil {
		if bytes.Contains(out, []byte("GOPROXY=off")) {
			t.Skipf("gdtopo's dependencies are not in this user's module cache (the run as root builds it): %s", out)
		}
		t.Fatalf("go build: %v\n%s", err, out)
	}
	var outs []string
	for _, arg := range []string{"version", "--version"} {
		out, err := exec.Command(bin, arg).Output()
		if err != nil {
			t.Fatalf("gdtopo %s: %v", arg, err)
		}
		outs = append(outs, string(out))
	}
	want := "gdtopo " + stamped + ", go"
	if outs[0] != outs[1] || !strings.HasPrefix(outs[0], want) || !strings.Contains(outs[0], "@"+stamped+"\n") {
		t.Errorf("gdtopo version says\n%q\ngdtopo --version says\n%q\nwant both to start %q and install %s", outs[0], outs[1], want, stamped)
	}
}
