package cli

import (
	"encoding/json"
	"testing"

	"github.com/gdtopo/gdtopo/internal/report"
)

// TestGB200ThroughHwloc: lstopo's XML, its text and its -v text of the
// gb200-tray fixture (hwloc 2.9, lstopo --input on the unpacked fixture)
// give the fixture's own nvidia-smi labels: hwloc puts each device under
// its Grace's Package, whose NUMA nodes (the Grace's and its GPUs'
// memory) all span the Grace's CPUs, so devices of one Grace share a node
// and devices of two are across sockets. hwloc recording no numa_node is
// no hypervisor's sign, and each accelerator's best NIC is on its Grace.
// NCCL's label is the fixture's or marked uncertain.
func TestGB200ThroughHwloc(t *testing.T) {
	want := checkReport(t, fx("gb200-tray"))
	labels := map[[2]string]report.Pair{}
	for _, p := range want.Pairs {
		labels[[2]string{p.A, p.B}] = p
	}
	for _, form := range []string{"lstopo.xml", "lstopo.txt", "lstopo-v.txt"} {
		r := checkReport(t, "testdata/gb200-tray/"+form)
		n := 0
		for _, p := range r.Pairs {
			w, ok := labels[[2]string{p.A, p.B}]
			if !ok {
				continue
			}
			n++
			if p.SMI != w.SMI || p.LabelUncertain != w.LabelUncertain {
				t.Errorf("%s: %s-%s is %s (uncertain %v), the fixture's %s (uncertain %v)", form, p.A, p.B, p.SMI, p.LabelUncertain, w.SMI, w.LabelUncertain)
			}
			if p.NCCL != w.NCCL && !p.NCCLUncertain {
				t.Errorf("%s: %s-%s NCCL %s for certain, the fixture's %s", form, p.A, p.B, p.NCCL, w.NCCL)
			}
		}
		if n < 16 {
			t.Errorf("%s: %d pairs in common with the fixture, want 16 or more", form, n)
		}
		for _, f := range r.Findings {
			if f.Code == "virtual-topology" {
				t.Errorf("%s: %s: %s", form, f.Code, f.Message)
			}
		}
		for _, a := range r.Accelerators {
			if a.BestPath != "NODE" {
				t.Errorf("%s: %s's best NIC %s is %s, want one on its own Grace (NODE)", form, a.BDF, a.BestNIC, a.BestPath)
			}
		}
	}
}

// checkReport is check -o json's report of src.
func checkReport(t *testing.T, src string) *report.Report {
	t.Helper()
	code, js, errb := run("check", src, "-o", "json")
	if code != ExitOK && code != ExitFindings {
		t.Fatalf("check %s: exit %d: %s", src, code, errb)
	}
	var doc report.Check
	if err := json.Unmarshal([]byte(js), &doc); err != nil || len(doc.Sources) != 1 || doc.Sources[0].Report == nil {
		t.Fatalf("check %s -o json: %v", src, err)
	}
	return doc.Sources[0].Report
}
