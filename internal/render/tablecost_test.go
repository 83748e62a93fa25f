package render

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strconv"
	"testing"
)

// tableBudget is what making and drawing a first small table, or
// tablewriter's package initialisation, may allocate. Upstream v1.1.5
// sizes its LRU caches up front (427 KB for a new table's stringer cache,
// 663 KB for the width cache at init); third_party/tablewriter does not.
const tableBudget = 64 << 10

// TestFirstTableCost checks that a fresh Printer's first table, which
// makes the tablewriter table, allocates what a small table needs rather
// than caches sized for thousands of rows.
func TestFirstTableCost(t *testing.T) {
	header, rows := []string{"GPU", "NIC"}, [][]string{{"GPU0", "NIC0 mlx5_0"}, {"GPU1", "NIC1 mlx5_1"}}
	if err := NewPrinter(io.Discard, Table).Table(header, rows); err != nil { // the width cache off, once
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	err := NewPrinter(io.Discard, Table).Table(header, rows)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > tableBudget {
		t.Errorf("a first two-row table allocated %d bytes; want at most %d (is go.mod's replace of tablewriter by third_party/tablewriter gone?)", grew, tableBudget)
	}
}

// droppedInits are packages upstream tablewriter links, with package
// initialisation run at every start, that third_party/tablewriter does
// without (see its GDTOPO.md).
var droppedInits = []string{
	"github.com/mattn/go-runewidth", // twwidth's deprecated runewidth API
	"github.com/olekukonko/errors",  // for the standard errors
	"github.com/fatih/color",        // the colour renderers
	"github.com/olekukonko/ll",      // for pkg/twlog
	"database/sql",                  // convertToString's sql.Null* cases
}

// TestTablewriterInitCost checks what tablewriter's packages cost when the
// process starts, as GODEBUG=inittrace=1 reports it for this test binary
// run again: what twwidth's init allocates, and that the packages
// third_party/tablewriter dropped are not initialised.
func TestTablewriterInitCost(t *testing.T) {
	if os.Getenv("GDTOPO_INITTRACE_CHILD") != "" {
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestTablewriterInitCost$")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1", "GDTOPO_INITTRACE_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", os.Args[0], err, out)
	}
	m := regexp.MustCompile(`init github.com/olekukonko/tablewriter/pkg/twwidth @\S+ ms, \S+ ms clock, (\d+) bytes`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("no inittrace line for twwidth in:\n%s", out)
	}
	if n, _ := strconv.Atoi(string(m[1])); n > tableBudget {
		t.Errorf("twwidth's init allocated %d bytes; want at most %d (is go.mod's replace of tablewriter by third_party/tablewriter gone?)", n, tableBudget)
	}
	for _, pkg := range droppedInits {
		if bytes.Contains(out, []byte("init "+pkg+" @")) {
			t.Errorf("%s is initialised at start again; third_party/tablewriter dropped it (is go.mod's replace gone, or did an update bring it back?)", pkg)
		}
	}
}
