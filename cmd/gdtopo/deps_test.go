package main

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// leftOut are packages gdtopo's binary must not link, each with what keeps
// it out: a linked package is initialised at every start.
var leftOut = map[string]string{
	"net":                                 "pflag's IP flags, left out of third_party/pflag",
	"database/sql":                        "tablewriter's error package and sql.Null cases, left out of third_party/tablewriter",
	"github.com/mattn/go-runewidth":       "twwidth's deprecated runewidth API, left out of third_party/tablewriter",
	"github.com/olekukonko/errors":        "standard errors in third_party/tablewriter",
	"github.com/fatih/color":              "tablewriter's colour renderers, left out of third_party/tablewriter",
	"github.com/olekukonko/ll":            "third_party/tablewriter's own pkg/twlog",
	"html/template":                       "the html page, a text/template escaped as html/template would (internal/render/htmlescape.go)",
	"crypto/rand":                         "klauspost's zstd decoder, replaced by third_party/zstd",
	"crypto/sha256":                       "the html page's script hash, a constant (internal/render/html.go)",
	"github.com/klauspost/compress/zstd":  "replaced by third_party/zstd, Go's own decoder",
	"github.com/klauspost/compress/flate": "third_party/flate, klauspost's inflater without its encoder's init",
	"github.com/klauspost/compress/gzip":  "third_party/gzip, klauspost's gzip reader over third_party/flate",
	"archive/tar":                         "internal/tarfmt's reader and writer",
	"os/user":                             "archive/tar's FileInfoHeader; its cgo lookups made the default build dynamic",
	"runtime/cgo":                         "os/user and net, which made the default build dynamically linked",
	"runtime/metrics":                     "the fleet's memory limit, adjusted from runtime.ReadMemStats after each collection",
	"golang.org/x/mod/zip":                "only scripts/installcheck makes module zips; gdtopo never links it",
}

// TestLeftOutPackages fails when a package taken out of the binary comes
// back, say when a replace line in go.mod is dropped or a new import pulls
// it in again.
func TestLeftOutPackages(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("no go command in CI: %v", err)
		}
		t.Skipf("no go command to list the binary's packages with (CI has one): %v", err)
	}
	// With cgo on, as a default build has it where a C compiler is found.
	list := exec.Command(goTool, "list", "-deps", ".")
	list.Env = append(os.Environ(), "CGO_ENABLED=1")
	out, err := list.Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	for pkg, why := range leftOut {
		if slices.Contains(deps, pkg) {
			t.Errorf("gdtopo links %s again; it was taken out (%s)", pkg, why)
		}
	}
}
