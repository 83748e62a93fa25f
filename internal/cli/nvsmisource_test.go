package cli

import (
	"os"
	"strings"
	"testing"
)

// TestMatrixAloneSaysWhere: a SOURCE that is an nvidia-smi topo -m matrix
// and nothing gdtopo reads gets one line saying so: what the matrix holds,
// what of it is cut off and at which line the paste ends or something
// unreadable follows, never the generic "not a ..." error.
func TestMatrixAloneSaysWhere(t *testing.T) {
	const matrix = "\tGPU0\tGPU1\tNIC0\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n" +
		"GPU0\t X \tNV4\tPIX\t0-7\t0\t\tN/A\n" +
		"GPU1\tNV4\t X \tSYS\t8-15\t1\t\tN/A\n" +
		"NIC0\tPIX\tSYS\t X \n"
	cases := []struct{ in, want string }{
		{matrix, "standard input: an nvidia-smi topo -m matrix alone (2 GPUs, 1 NIC"},
		{matrix + "\nsomething else\n", `(2 GPUs, 1 NIC (no NIC legend)), and at line 6 ("something else") text of none of the forms gdtopo reads (lspci output, NCCL or hwloc topology XML, lstopo text), with no PCIe tree`},
		{matrix[:strings.Index(matrix, "NIC0\tPIX")] + "NI", `cut off: no row for NIC0), the paste ending mid-row at line 4 ("NI"), with no PCIe tree`},
	}
	for _, c := range cases {
		var out, errb strings.Builder
		code := Main([]string{"check", "-"}, strings.NewReader(c.in), &out, &errb)
		if code != ExitError || !strings.Contains(errb.String(), c.want) || strings.Count(errb.String(), "\n") != 1 {
			t.Errorf("check of %q: exit %d, %q; want exit 1 and one line holding %q", c.in, code, errb.String(), c.want)
		}
	}
	const partial = "../../../shared/corpus/nvsmi/nccl-1453-8xh100-9nic.partial.txt"
	if _, err := os.Stat(partial); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("corpus missing in CI: %v", err)
		}
		t.Skipf("corpus not here (runs in CI): %v", err)
	}
	code, _, errb := run("check", partial)
	if want := `no row for NIC6, NIC7, NIC8), the paste ending mid-row at line 16 ("NIC")`; code != ExitError || !strings.Contains(errb, want) {
		t.Errorf("check of the cut-off nccl-1453 matrix: exit %d, %q; want %q", code, errb, want)
	}
}
