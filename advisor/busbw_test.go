package advisor

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/gdtopo/gdtopo/internal/nccllog"
)

// runOf reads an nccl-tests output as calibrate does.
func runOf(t *testing.T, path string) BusBWRun {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	l, err := nccllog.Parse(path, f)
	if err != nil {
		t.Fatal(err)
	}
	run := BusBWRun{From: path, Rows: len(l.BusBW)}
	for _, r := range l.TestRanks {
		run.Ranks = append(run.Ranks, BusBWRank{Host: r.Host, Bus: r.Bus})
	}
	for _, row := range l.BusBW {
		for _, v := range []float64{row.OutOfPlace, row.InPlace} {
			if v > run.PeakGBps {
				run.PeakGBps, run.PeakBytes = v, row.Bytes
			}
		}
	}
	return run
}

// TestCheckBusBW sets the alltoall_perf table of NVIDIA/nccl-tests#321 (two
// VMs, two H20 each, RoCE bonds) against fixtures: never a fitted number,
// a plan figure only where the ranks' GPUs are the source's, and one host's
// run refused as GPU-to-GPU.
func TestCheckBusBW(t *testing.T) {
	real := runOf(t, "../internal/nccllog/testdata/nccl-tests-321-vm-roce-pxn.log")
	if real.PeakGBps != 50.37 || real.PeakBytes != 4<<30 || len(real.Ranks) != 4 {
		t.Fatalf("nccl-tests#321: peak %v GB/s at %d, ranks %v", real.PeakGBps, real.PeakBytes, real.Ranks)
	}
	g, res := analyzeFixture(t, "hgx-h100", "")
	checks, err := CheckBusBW(g, nil, Options{}, []BusBWRun{real})
	if err != nil {
		t.Fatal(err)
	}
	if c := checks[0]; c.Hosts != 2 || c.PlanGbps != 0 || !strings.Contains(c.Says, "(bus 0x33, 0x23) are not the source's planned accelerators") || !strings.Contains(c.Says, "fits nothing") {
		t.Errorf("H20 VMs against hgx-h100: %+v", c)
	}

	// The same table as if its ranks had run on hgx-h100's GPU0 and GPU1 of
	// each host: the plan's figure is their NIC shares summed.
	onH100 := real
	onH100.Ranks = []BusBWRank{{"a", "0000:1a:00"}, {"a", "0x1e"}, {"b", "0000:1a:00"}, {"b", "0000:1e:00"}}
	want := 0.0
	for _, a := range res.Plan.Assignments {
		if b := a.GPU.BDF(); b == "0000:1a:00.0" || b == "0000:1e:00.0" {
			want += a.ShareGbps
		}
	}
	checks, err = CheckBusBW(g, nil, Options{}, []BusBWRun{onH100})
	if err != nil {
		t.Fatal(err)
	}
	c := checks[0]
	pct := fmt.Sprintf("%d%% of the plan's", int(real.PeakGBps*8/want*100+0.5))
	if want == 0 || c.PlanGbps != want || !strings.Contains(c.Says, pct) || strings.Contains(c.Says, "above the plan") || !strings.Contains(c.Says, "fits nothing") {
		t.Errorf("plan %v Gb/s (want %v, %s): %s", c.PlanGbps, want, pct, c.Says)
	}
	above := onH100
	above.PeakGBps = want / 8 * 1.5
	if checks, _ = CheckBusBW(g, nil, Options{}, []BusBWRun{above}); !strings.Contains(checks[0].Says, "above the plan") {
		t.Errorf("1.5 times the plan: %s", checks[0].Says)
	}

	one := real
	one.Ranks = real.Ranks[:2] // vm-host40's two ranks alone
	none := real
	none.Ranks = nil
	checks, err = CheckBusBW(g, nil, Options{}, []BusBWRun{one, none})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(checks[0].Says, "every rank on vm-host40") || !strings.Contains(checks[0].Says, "not the GPU-NIC path") || checks[0].PlanGbps != 0 {
		t.Errorf("one host: %+v", checks[0])
	}
	if !strings.Contains(checks[1].Says, "names no host") || checks[1].Hosts != 0 {
		t.Errorf("no hosts: %+v", checks[1])
	}
}
