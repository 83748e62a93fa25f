package advisor

import (
	"slices"
	"strings"
	"testing"

	"github.com/gdtopo/gdtopo/topology"
)

// activePorts gives every NIC one ACTIVE InfiniBand port at rate, as a
// capture with the ports' state files shows them.
func activePorts(nics []*topology.Device, rate float64) {
	for _, n := range nics {
		n.Ports = []topology.IBPort{{Device: n.RDMA[0], Port: "1", State: "ACTIVE", PhysState: "LinkUp", RateGbps: rate, Rate: "400 Gb/sec (4X NDR)", LinkLayer: "InfiniBand"}}
		n.PortRateGbps = rate
	}
}

// portFaultCases are TestFindingsFire's cases for port and AER findings.
var portFaultCases = []faultCase{
	{name: "rail port down", code: "port-down", severity: Critical,
		fault: func(b *builder, g, n []*topology.Device) {
			activePorts(n, 400)
			n[4].Ports[0].State, n[4].Ports[0].PhysState = "INIT", "LinkUp"
		},
		device: "0000:45:00.0", remedy: "sminfo"},
	{name: "rail port slow", code: "port-rate-low", severity: Warning,
		fault: func(b *builder, g, n []*topology.Device) {
			activePorts(n, 400)
			n[6].Ports[0].RateGbps = 100
		},
		remedy: "ibstat mlx5_6 1"},
	{name: "AER fatal on a NIC", code: "aer-fatal", severity: Critical,
		fault: func(b *builder, g, n []*topology.Device) {
			n[0].AER = &topology.AERCounts{Fatal: topology.AERClass{Read: true, Total: 3}}
		},
		remedy: "dmesg"},
	{name: "AER non-fatal at a switch port", code: "aer-nonfatal", severity: Warning,
		fault: func(b *builder, g, n []*topology.Device) {
			g[1].Parent.AER = &topology.AERCounts{Nonfatal: topology.AERClass{Read: true, Total: 1}}
		}},
	{name: "AER corrected errors", code: "aer-correctable", severity: Info,
		fault: func(b *builder, g, n []*topology.Device) {
			g[2].AER = &topology.AERCounts{Correctable: topology.AERClass{Read: true, Total: 5000}}
		}},
}

// findingsOf returns the findings of code.
func findingsOf(r *Result, code string) []Finding {
	var out []Finding
	for _, f := range r.Findings {
		if f.Code == code {
			out = append(out, f)
		}
	}
	return out
}

func TestPortDownIsNoRail(t *testing.T) {
	b, gpus, nics := rails(8, 8)
	activePorts(nics, 400)
	nics[2].Ports[0].State, nics[2].Ports[0].PhysState = "DOWN", "Disabled"
	nics[2].PortRateGbps = 0
	r := analyze(t, b.graph(), Options{})
	fs := findingsOf(r, "port-down")
	if len(fs) != 1 || fs[0].Severity != Critical || !slices.Equal(fs[0].Devices, []string{nics[2].BDF()}) {
		t.Fatalf("port-down findings = %+v; want one critical on %s", fs, nics[2].BDF())
	}
	if rem := remedyText(fs[0]); !strings.Contains(rem, "mlxlink -d "+nics[2].BDF()+" --port_state UP") {
		t.Errorf("a Disabled ConnectX port: remedy %q lacks mlxlink --port_state UP", rem)
	}
	for _, as := range r.Plan.Assignments {
		if as.NIC == nics[2] || slices.Contains(as.MoreNICs, nics[2]) {
			t.Errorf("plan sends %s to %s, whose port is down", as.GPU.BDF(), nics[2].BDF())
		}
	}
	if len(r.Plan.Assignments) != len(gpus) {
		t.Errorf("%d assignments, want %d", len(r.Plan.Assignments), len(gpus))
	}
}

func TestPortStateUnknownSaysNothing(t *testing.T) {
	b, _, nics := rails(8, 8)
	for _, n := range nics { // rate only, as a capture without state files
		n.Ports = []topology.IBPort{{Device: n.RDMA[0], Port: "1", RateGbps: 200, Rate: "200 Gb/sec (4X HDR)"}}
	}
	r := analyze(t, b.graph(), Options{})
	for _, code := range []string{"port-down", "port-rate-low"} {
		if fs := findingsOf(r, code); len(fs) != 0 {
			t.Errorf("%s without state files: %+v", code, fs)
		}
	}
	used := map[*topology.Device]bool{}
	for _, as := range r.Plan.Assignments {
		used[as.NIC] = true
	}
	if len(used) != len(nics) {
		t.Errorf("plan uses %d of %d NICs of unknown port state", len(used), len(nics))
	}
}

func TestSecondPortDownUsesActivePort(t *testing.T) {
	b, _, nics := rails(8, 8)
	activePorts(nics, 400)
	// port 1 uncabled, port 2 up: the rank's UCX_NET_DEVICES names port 2.
	nics[0].Ports = []topology.IBPort{
		{Device: nics[0].RDMA[0], Port: "1", State: "DOWN", PhysState: "Polling", LinkLayer: "InfiniBand"},
		{Device: nics[0].RDMA[0], Port: "2", State: "ACTIVE", PhysState: "LinkUp", RateGbps: 400, Rate: "400 Gb/sec (4X NDR)", LinkLayer: "InfiniBand"},
	}
	r := analyze(t, b.graph(), Options{})
	fs := findingsOf(r, "port-down")
	if len(fs) != 1 || fs[0].Severity != Info {
		t.Fatalf("port-down = %+v; want one info", fs)
	}
	if got := r.Plan.Ranks[0].Get("UCX_NET_DEVICES"); got != "mlx5_0:2" {
		t.Errorf("rank 0 UCX_NET_DEVICES = %q, want mlx5_0:2", got)
	}
	if got := r.Plan.Ranks[1].Get("UCX_NET_DEVICES"); got != "mlx5_1:1" {
		t.Errorf("rank 1 UCX_NET_DEVICES = %q, want mlx5_1:1", got)
	}
}

func TestPortRateLow(t *testing.T) {
	b, _, nics := rails(8, 8)
	activePorts(nics, 400)
	nics[5].Ports[0].RateGbps, nics[5].Ports[0].Rate, nics[5].PortRateGbps = 200, "200 Gb/sec (2X NDR)", 200
	r := analyze(t, b.graph(), Options{})
	fs := findingsOf(r, "port-rate-low")
	if len(fs) != 1 || fs[0].Severity != Warning || !slices.Equal(fs[0].Devices, []string{nics[5].BDF()}) {
		t.Fatalf("port-rate-low = %+v; want one warning on %s", fs, nics[5].BDF())
	}
	if !strings.Contains(fs[0].Message, "200 Gb/sec (2X NDR)") || !strings.Contains(fs[0].Message, "400 Gb/s") {
		t.Errorf("message %q should give the port's rate and its peers'", fs[0].Message)
	}
	// An Ethernet (RoCE) port is not compared with InfiniBand ones.
	nics[5].Ports[0].LinkLayer = "Ethernet"
	if fs := findingsOf(analyze(t, b.graph(), Options{}), "port-rate-low"); len(fs) != 0 {
		t.Errorf("RoCE port compared with InfiniBand ports: %+v", fs)
	}
}

func TestAERFindings(t *testing.T) {
	b, gpus, nics := rails(8, 8)
	nics[1].AER = &topology.AERCounts{Correctable: topology.AERClass{Read: true}, Nonfatal: topology.AERClass{Read: true},
		Fatal: topology.AERClass{Read: true, Total: 1, Errors: []topology.AERError{{Name: "SurpriseDn", Count: 1}}}}
	gpus[0].Parent.AER = &topology.AERCounts{Nonfatal: topology.AERClass{Read: true, Total: 2, Errors: []topology.AERError{{Name: "CmpltTO", Count: 2}}}}
	gpus[3].AER = &topology.AERCounts{Correctable: topology.AERClass{Read: true, Total: aerCorrectableInfo - 1}}
	gpus[4].AER = &topology.AERCounts{Correctable: topology.AERClass{Read: true, Total: aerCorrectableInfo}}
	r := analyze(t, b.graph(), Options{})
	want := map[string]struct {
		sev Severity
		dev string
		msg string
	}{
		"aer-fatal":       {Critical, nics[1].BDF(), "SurpriseDn 1"},
		"aer-nonfatal":    {Warning, gpus[0].Parent.BDF(), "CmpltTO 2"},
		"aer-correctable": {Info, gpus[4].BDF(), "100"},
	}
	for code, w := range want {
		fs := findingsOf(r, code)
		if len(fs) != 1 || fs[0].Severity != w.sev || !slices.Equal(fs[0].Devices, []string{w.dev}) || !strings.Contains(fs[0].Message, w.msg) {
			t.Errorf("%s = %+v; want one %s on %s saying %q", code, fs, w.sev, w.dev, w.msg)
		}
	}
}
