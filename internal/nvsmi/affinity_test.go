package nvsmi

import (
	"strings"
	"testing"

	"github.com/gdtopo/gdtopo/topology"
)

// TestAffinity sets a one-GPU matrix's CPU Affinity and NUMA Affinity
// columns against a literal graph: equal lists agree however they are
// written, a different list or node differs, and N/A or a source that
// lacks the value is not compared.
func TestAffinity(t *testing.T) {
	for _, tt := range []struct {
		name            string
		cpus, node      string // the matrix's columns
		localCPUs       string // the source's
		numaNode        int
		numaFrom        string
		compared, agree int
		differ          string // the differing column, if one
		why             string // a substring of its explanation
	}{
		{"agree", "0-3,8", "0", "0,1,2,3,8", 0, topology.NUMAFromFile, 2, 2, "", ""},
		{"cpus differ", "0-3", "0", "0-7", 0, topology.NUMAFromFile, 2, 1, "CPU Affinity", "local_cpulist"},
		{"node differs", "0-3", "1", "0-3", 0, topology.NUMAFromFile, 2, 1, "NUMA Affinity", "SRAT"},
		{"inferred node differs", "0-3", "1", "0-3", 0, topology.NUMAFromLocalCPUs, 2, 1, "NUMA Affinity", "inferred (numa_node -1: taken from local_cpus)"},
		{"N/A", "N/A", "N/A", "0-3", 0, topology.NUMAFromFile, 0, 0, "", ""},
		{"source lacks them", "0-3", "0", "", -1, "", 0, 0, "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			text := "\tGPU0\tCPU Affinity\tNUMA Affinity\n" + "GPU0\t X \t" + tt.cpus + "\t" + tt.node + "\n"
			m, err := Parse("matrix.txt", []byte(text))
			if err != nil {
				t.Fatal(err)
			}
			addr, _ := topology.ParseBDF("0000:01:00.0")
			gpu := &topology.Device{Addr: addr, Kind: topology.KindAccelerator, VendorID: topology.VendorNVIDIA,
				LocalCPUs: tt.localCPUs, NUMANode: tt.numaNode, RawNUMANode: -1, NUMAFrom: tt.numaFrom}
			r := Compare(&topology.Graph{Devices: []*topology.Device{gpu}}, m)
			if r.Compared != tt.compared || r.Agree != tt.agree {
				t.Errorf("compared %d, agree %d; want %d, %d", r.Compared, r.Agree, tt.compared, tt.agree)
			}
			switch {
			case tt.differ == "" && len(r.Differ) > 0:
				t.Errorf("differ: %+v", r.Differ)
			case tt.differ != "" && (len(r.Differ) != 1 || r.Differ[0].Column != tt.differ || r.Differ[0].Row != "GPU0" ||
				r.Differ[0].A != gpu || r.Differ[0].B != nil || !strings.Contains(r.Differ[0].Why, tt.why)):
				t.Errorf("differ: %+v; want GPU0 %s, why with %q", r.Differ, tt.differ, tt.why)
			}
			if want := "only its affinity columns"; (tt.compared > 0) != strings.Contains(strings.Join(r.Notes, "; "), want) {
				t.Errorf("notes %q: %q only when a column was compared", r.Notes, want)
			}
		})
	}
}
