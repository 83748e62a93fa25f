package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gdtopo/gdtopo/internal/render"
)

// TestCheckFitsEighty: with an 80-column terminal (COLUMNS=80), check,
// check -v and matrix draw no line wider than 80 columns on any fixture.
func TestCheckFitsEighty(t *testing.T) {
	dirs, err := filepath.Glob("../../fixtures/*/sys")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, sys := range dirs {
		dir := filepath.Dir(sys)
		for _, args := range [][]string{{"check", dir}, {"check", "-v", dir}, {"matrix", dir}} {
			var out bytes.Buffer
			code := mainStreams(args, &Streams{In: strings.NewReader(""), Out: &out, Err: &bytes.Buffer{}, Style: render.Style{Width: 80}})
			if code != ExitOK && code != ExitFindings {
				t.Fatalf("%v: exit %d", args, code)
			}
			for i, l := range strings.Split(out.String(), "\n") {
				if n := utf8.RuneCountInString(l); n > 80 {
					t.Errorf("%v line %d is %d columns: %q", args, i+1, n, l)
				}
			}
		}
	}
}

// TestCheckOneScreen: the default check of an 8-GPU, 8-NIC server fits one
// screen, and -v holds the pair table it leaves out.
func TestCheckOneScreen(t *testing.T) {
	code, out, _ := run("check", "../../fixtures/hgx-h100")
	if code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	if n := strings.Count(out, "\n"); n > 50 {
		t.Errorf("default check is %d lines, want at most 50:\n%s", n, out)
	}
	if !strings.HasPrefix(out, "WARNING: 1 warning, 1 info;") {
		t.Errorf("check does not open with its verdict:\n%s", out)
	}
	if strings.Contains(out, "Accelerator-NIC pairs") {
		t.Errorf("default check shows the pair table")
	}
	_, verbose, _ := run("check", "-v", "../../fixtures/hgx-h100")
	for _, want := range []string{"Accelerator-NIC pairs", "Settings per local rank", "remedy:", "Legend:"} {
		if !strings.Contains(verbose, want) {
			t.Errorf("check -v lacks %q", want)
		}
	}
}

// TestNotesGrouped: on a dump with little in it, check and check -v say
// each note once, never once a pair.
func TestNotesGrouped(t *testing.T) {
	src := "../../../shared/corpus/lspci/lenovo-sd665n-v3-4xh100-genoa.lspci.txt"
	if _, err := os.Stat(src); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("corpus missing in CI: %v", err)
		}
		t.Skipf("corpus not here (runs in CI): %v", err)
	}
	for _, v := range []string{"", "-v"} {
		args := []string{"check", src}
		if v != "" {
			args = append(args, v)
		}
		_, out, _ := run(args...)
		_, notes, _ := strings.Cut(out, "\nNotes\n")
		notes, _, _ = strings.Cut(notes, "\n\n")
		seen := map[string]bool{}
		for _, l := range strings.Split(notes, "\n") {
			_, note, _ := strings.Cut(l, ": ")
			if note != "" && seen[note] {
				t.Errorf("check %s says a note twice: %q", v, note)
			}
			seen[note] = true
		}
		if strings.Contains(out, "GPU0-NIC0: ") {
			t.Errorf("check %s gives a note to one pair at a time:\n%s", v, out)
		}
	}
}

// TestVersion: gdtopo version names the module version Go recorded and the
// install line.
func TestVersion(t *testing.T) {
	var out bytes.Buffer
	opts := &versionOptions{globalOptions: &globalOptions{IO: &Streams{Out: &out}},
		BuildInfo: func() (*debug.BuildInfo, bool) {
			return &debug.BuildInfo{GoVersion: "go1.25.0", Main: debug.Module{Path: "github.com/gdtopo/gdtopo", Version: "v0.2.0"}}, true
		}}
	if err := versionRun(opts); err != nil {
		t.Fatal(err)
	}
	if want := "gdtopo v0.2.0, go1.25.0\ninstall from a checkout: go install ./cmd/gdtopo\n"; out.String() != want {
		t.Errorf("version:\n%q\nwant\n%q", out.String(), want)
	}
	if code, stdout, _ := run("version"); code != ExitOK || !strings.HasPrefix(stdout, "gdtopo ") {
		t.Errorf("gdtopo version: exit %d %q", code, stdout)
	}
}
