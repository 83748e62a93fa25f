package advisor

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/gdtopo/gdtopo/topology"
)

// TestParsePerftest reads an ib_write_bw server's text: the NIC wrote GPU
// memory; 45776 MiB/s of the largest size is 384 Gb/s.
func TestParsePerftest(t *testing.T) {
	f, err := os.Open("testdata/ib_write_bw-server.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := ParsePerftest("server.txt", f)
	if err != nil {
		t.Fatal(err)
	}
	if m.RDMA != "mlx5_4" || m.GPUBus != "9c:00" || m.Direction != "write" || !near(m.Gbps, 45776*8*1048576/1e9) {
		t.Errorf("parsed %+v", m)
	}
	text, _ := os.ReadFile("testdata/ib_write_bw-server.txt")
	for _, tt := range []struct{ name, edit, want string }{
		{"client side reads GPU memory", "* Waiting for client to connect... *", ""},
		{"ib_read_bw server reads it", "RDMA_Write BW Test", ""},
		{"no GPU", "Picking device No. 1", "--use_cuda"},
		{"not perftest", "RDMA_Write BW Test", "not ib_write_bw"},
		{"no table", "BW average[MiB/sec]", "no results table"},
	} {
		s := string(text)
		switch tt.name {
		case "ib_read_bw server reads it":
			s = strings.Replace(s, tt.edit, "RDMA_Read BW Test", 1)
		default:
			s = strings.Replace(s, tt.edit, "", 1)
		}
		m, err := ParsePerftest(tt.name, strings.NewReader(s))
		switch {
		case tt.want != "":
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("%s: error %v, want %q", tt.name, err, tt.want)
			}
		case err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case m.Direction != "read":
			t.Errorf("%s: direction %s, want read", tt.name, m.Direction)
		}
	}
}

// TestCalibrateRoundTrip: measurements made from a model's own predictions
// fit back to that model's numbers, and after fitting every prediction
// equals its measurement.
func TestCalibrateRoundTrip(t *testing.T) {
	b := newBuilder()
	h0, _ := b.hb(0)
	h1, _ := b.hb(1)
	r2, r3, r4 := b.rootPort(h0, 2), b.rootPort(h0, 3), b.rootPort(h1, 2)
	gpu := b.gpu(endpoint(r2), r2)
	near0 := b.nic(endpoint(r3), r3, "mlx5_0") // PHB
	far := b.nic(endpoint(r4), r4, "mlx5_1")   // SYS
	g := b.graph()
	truth := DefaultModel()
	truth.PHBFactorIntel.Value, truth.ReadMin.Value, truth.ReadMax.Value, truth.SYSP2P.Value = 0.7, 0.6, 0.6, 70
	r := analyze(t, g, Options{Model: truth})
	var ms []Measurement
	for _, n := range []*topology.Device{near0, far} {
		p := pred(t, r, gpu, n)
		bus := fmt.Sprintf("%02x:%02x", gpu.Addr.Bus, gpu.Addr.Device)
		ms = append(ms, Measurement{From: n.RDMA[0] + "-w", RDMA: n.RDMA[0], GPUBus: bus, Direction: "write", Gbps: p.ExpectedWriteGbps},
			Measurement{From: n.RDMA[0] + "-r", RDMA: n.RDMA[0], GPUBus: bus, Direction: "read", Gbps: p.ExpectedReadGbps})
	}
	m, fits, err := Calibrate(g, nil, Options{}, ms)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		key       string
		got, want float64
	}{{"phb_factor_intel", m.PHBFactorIntel.Value, 0.7}, {"read_factor_min", m.ReadMin.Value, 0.6},
		{"read_factor_max", m.ReadMax.Value, 0.6}, {"sys_p2p_gbps", m.SYSP2P.Value, 70}} {
		if !near(c.got, c.want) {
			t.Errorf("%s fitted %.4f, want %.4f", c.key, c.got, c.want)
		}
	}
	for _, f := range fits {
		if !near(f.After, f.Gbps) {
			t.Errorf("%s: after fitting %.2f Gb/s, measured %.2f (key %q, before %.2f)", f.From, f.After, f.Gbps, f.Key, f.Before)
		}
	}
	js, err := m.Changed(DefaultModel())
	if err != nil {
		t.Fatal(err)
	}
	back, err := LoadModel(strings.NewReader(string(js)))
	if err != nil {
		t.Fatalf("the written model does not load: %v\n%s", err, js)
	}
	if !near(back.PHBFactorIntel.Value, 0.7) || !near(back.SYSP2P.Value, 70) {
		t.Errorf("written model %s", js)
	}
	if _, _, err := Calibrate(g, nil, Options{}, []Measurement{{From: "x", RDMA: "mlx5_9", GPUBus: "00:00"}}); err == nil || !strings.Contains(err.Error(), "mlx5_9") {
		t.Errorf("unknown RDMA device: %v", err)
	}
}

// TestCalibrateAboveInterSocket: on a Skylake-SP, NCCL's inter-socket
// constant (80 Gb/s) caps the cross-socket prediction below the measured
// cross-socket cap; a measured 95 Gb/s across sockets is fitted (the
// constant and the cap both raised to it), not left at "link arithmetic".
func TestCalibrateAboveInterSocket(t *testing.T) {
	b, gpu, far := sys()
	b.g.System.CPUModelID = 0x55 // Skylake-SP: SKL_QPI_BW 80 Gb/s
	far.PortRateGbps = 200
	g := b.graph()
	bus := fmt.Sprintf("%02x:%02x", gpu.Addr.Bus, gpu.Addr.Device)
	ms := []Measurement{{From: "w", RDMA: far.RDMA[0], GPUBus: bus, Direction: "write", Gbps: 95}}
	m, fits, err := Calibrate(g, nil, Options{}, ms)
	if err != nil {
		t.Fatal(err)
	}
	if len(fits) != 1 || fits[0].Key == "" || !near(fits[0].After, 95) {
		t.Fatalf("fits %+v, want one fitted to 95 Gb/s", fits)
	}
	if !near(m.InterSocketSKL.Value, 95) {
		t.Errorf("inter_socket_gbps_intel_skl %.2f, want 95", m.InterSocketSKL.Value)
	}
}
