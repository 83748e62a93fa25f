package report_test

import (
	"strings"
	"testing"

	"github.com/gdtopo/gdtopo/internal/nccllog"
	"github.com/gdtopo/gdtopo/internal/report"
	"github.com/gdtopo/gdtopo/internal/reporttest"
)

// TestExplainAgainstPlan sets what a log could say of hgx-h100 (a value,
// not log text) against its report: GPU0's channels on mlx5_4 across the
// sockets, every rank on that one NIC, NCCL_IB_HCA leaving mlx5_7 out.
func TestExplainAgainstPlan(t *testing.T) {
	r := reporttest.Fixture(t, "hgx-h100")
	var nics []nccllog.NIC
	for i := 0; i < 7; i++ { // mlx5_7 left out
		nics = append(nics, nccllog.NIC{Index: i, Name: "mlx5_" + string(rune('0'+i)), Port: 1, LinkLayer: "IB"})
	}
	host := &nccllog.Host{Name: r.System.Hostname, Network: "IB", IBNICs: nics, RingPXN: -1, RingGDR: -1,
		Env: map[string]string{"NCCL_IB_HCA": "mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6"}}
	rank := func(n int, bus string) *nccllog.Rank {
		return &nccllog.Rank{Host: host.Name, PID: 100 + n, Device: 0, Ranks: []int{n}, NVMLDev: -1, LocalRank: n, BusID: bus,
			Channels: []nccllog.Channel{{ID: 0, From: n, To: n + 8, Dir: "send", Transport: "NET", Net: "IB", Dev: 4, Proxy: -1, GDR: true}}}
	}
	l := &nccllog.Log{Library: "NCCL", Hosts: []*nccllog.Host{host},
		Ranks: []*nccllog.Rank{rank(0, "0000:1a:00.0"), rank(7, "0000:c0:00.0")}}
	e := report.Explain(report.ExplainInput{Name: "x", Log: l, Report: r, FailOn: "critical"})
	codes := map[string]report.Difference{}
	for _, d := range e.Differences {
		codes[d.Code] = d
	}
	if d, ok := codes["cross-socket-nic"]; !ok || d.Ranks[0] != 0 || !d.CostsBandwidth {
		t.Errorf("cross-socket-nic: %+v (all: %+v)", d, e.Differences)
	}
	if d, ok := codes["nic-excluded"]; !ok || !strings.Contains(d.Cause, "NCCL_IB_HCA=") || d.Ranks[0] != 7 {
		t.Errorf("nic-excluded: %+v", d)
	}
	if _, ok := codes["nics-bunched"]; !ok {
		t.Errorf("nics-bunched missing: %+v", e.Differences)
	}
	if e.ExitStatus != report.ExitFindings {
		t.Errorf("exit %d", e.ExitStatus)
	}
	if g := e.Ranks[0]; g.GPU != "GPU0" || g.GPUBy != "bus_id" || g.PlanNIC != "mlx5_0" || g.NICs[0].Path != "SYS" {
		t.Errorf("rank 0 against the plan: %+v", g)
	}
	// --fail-on never: the same differences, exit 0.
	if e := report.Explain(report.ExplainInput{Name: "x", Log: l, Report: r, FailOn: "never"}); e.ExitStatus != 0 || len(e.Differences) != len(codes) {
		t.Errorf("never: exit %d, %d differences", e.ExitStatus, len(e.Differences))
	}
}
