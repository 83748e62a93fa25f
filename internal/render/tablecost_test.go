package render

import (
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

// TestTablewriterInitCost checks what tablewriter's width package
// allocates when the process starts, as GODEBUG=inittrace=1 reports it
// for this test binary run again. (The packages third_party/tablewriter
// does without are cmd/gdtopo's TestLeftOutPackages' to hold out.)
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
}
