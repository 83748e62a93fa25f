package cli

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/gdtopo/gdtopo/internal/hwloc"
	"github.com/gdtopo/gdtopo/internal/names"
	"github.com/gdtopo/gdtopo/internal/ncclxml"
	"github.com/gdtopo/gdtopo/internal/source"
	"github.com/gdtopo/gdtopo/topology"
)

// spaced writes n as docs/reliability.md does: groups of three digits
// apart by a space past four digits (16 384, 500 000; 8128 stays).
func spaced(n int) string {
	s := strconv.Itoa(n)
	if len(s) <= 4 {
		return s
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(' ')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// sized writes a byte count as the page does: "16 MiB", "64 KiB".
func sized(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + " MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + " KiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// TestReliabilityLimits checks each limit docs/reliability.md states
// against the constant the code holds it with: a limit changed in one
// place and not the other fails here.
func TestReliabilityLimits(t *testing.T) {
	data, err := os.ReadFile("../../docs/reliability.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := strings.Join(strings.Fields(string(data)), " ") // lines joined as a reader reads them
	lim := source.DefaultLimits()
	for _, want := range []string{
		"| `--pci-ids` | " + sized(names.MaxPCIIDsBytes) + " (after gunzip)",
		"| `--model` | " + sized(maxModelBytes) + ",",
		"`hwloc.MaxXMLSize` = " + sized(hwloc.MaxXMLSize),
		"`hwloc.MaxXMLTags` = " + spaced(hwloc.MaxXMLTags),
		"`topology.MaxPairEnds` = " + spaced(topology.MaxPairEnds) + " (" + spaced(topology.MaxPairEnds*(topology.MaxPairEnds-1)/2) + " pairs)",
		"`topology.MaxFunctions` = " + spaced(topology.MaxFunctions),
		"`ncclxml.MaxElements` = " + spaced(ncclxml.MaxElements),
		"| archive | " + sized(lim.MaxExpanded) + " decompressed, " + sized(lim.MaxMember) + " per member, " + sized(lim.MaxKept) + " kept in memory",
		spaced(lim.MaxEntries) + " members;",
		"1 MiB (`hostileAlloc`)",
		sized(hostileTextAlloc) + " for the hwloc XML case (`hostileTextAlloc`",
		sized(hostileKeptAlloc) + " for the archive of members at the member limit (`hostileKeptAlloc`",
		"under " + sized(hostileOutputRSS) + " (`hostileOutputRSS`)",
		"under " + sized(fleetFlatRSS) + " (`fleetFlatRSS`",
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("docs/reliability.md does not say %q", want)
		}
	}
	if hostileAlloc != 1<<20 {
		t.Errorf("hostileAlloc is %s; the page says 1 MiB", sized(hostileAlloc))
	}
}
