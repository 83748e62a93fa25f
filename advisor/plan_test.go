package advisor

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gdtopo/gdtopo/topology"
)

func TestPlanOneToOne(t *testing.T) {
	b, gpus, nics := rails(8, 8)
	r := analyze(t, b.graph(), Options{})
	pl := r.Plan
	if len(pl.Assignments) != 8 || len(pl.Ranks) != 8 {
		t.Fatalf("%d assignments, %d ranks; want 8, 8", len(pl.Assignments), len(pl.Ranks))
	}
	for i, as := range pl.Assignments {
		if as.GPU != gpus[i] || as.NIC != nics[i] || as.Shared != 1 {
			t.Errorf("assignment %d: %s -> %s shared %d; want %s -> %s, 1", i, as.GPU.BDF(), as.NIC.BDF(), as.Shared, gpus[i].BDF(), nics[i].BDF())
		}
		want := RankEnv{LocalRank: i, CUDAVisibleDevices: fmt.Sprint(i), NCCLIBHCA: fmt.Sprintf("=mlx5_%d", i),
			UCXNetDevices: fmt.Sprintf("mlx5_%d:1", i), Numactl: fmt.Sprintf("numactl --cpunodebind=%d --membind=%d", i/4, i/4)}
		if pl.Ranks[i] != want {
			t.Errorf("rank %d = %+v, want %+v", i, pl.Ranks[i], want)
		}
	}
	// Every pair PIX with a 200G NIC: 200 each.
	if !near(pl.WorstGbps, 200) || !near(pl.MeanGbps, 200) {
		t.Errorf("worst %.2f mean %.2f, want 200, 200", pl.WorstGbps, pl.MeanGbps)
	}
	if env := strings.Join(pl.Ranks[3].Env(), " "); env != "CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES=3 NCCL_IB_HCA==mlx5_3 UCX_NET_DEVICES=mlx5_3:1" {
		t.Errorf("Env() = %q", env)
	}
}

func TestPlanBalanced(t *testing.T) {
	b, gpus, _ := rails(8, 0)
	var nics []*topology.Device
	for i, h := range []*topology.HostBridge{b.g.HostBridges[0], b.g.HostBridges[4]} { // one per socket
		r := b.rootPort(h, 2)
		nics = append(nics, b.nic(endpoint(r), r, fmt.Sprintf("mlx5_%d", i)))
	}
	pl := analyze(t, b.graph(), Options{}).Plan
	for i, as := range pl.Assignments {
		if want := nics[i/4]; as.GPU != gpus[i] || as.NIC != want || as.Shared != 4 {
			t.Errorf("%s -> %s shared %d; want %s, 4", as.GPU.BDF(), as.NIC.BDF(), as.Shared, want.BDF())
		}
	}
	// PHB or NODE on Intel: 230.456 × 5/6 = 192.047, every one.
	if !near(pl.WorstGbps, 192.047) {
		t.Errorf("worst %.3f, want 192.047", pl.WorstGbps)
	}
}

// TestPlanCrossSocket puts the lower-addressed NIC on the other socket from
// the first accelerators: address order alone would cross sockets.
func TestPlanCrossSocket(t *testing.T) {
	b := newBuilder()
	hX, _ := b.hb(1)
	hY, _ := b.hb(0)
	hZ, _ := b.hb(1)
	rx := b.rootPort(hX, 2)
	nicX := b.nic(endpoint(rx), rx, "mlx5_0")
	var gpus []*topology.Device
	for _, h := range []*topology.HostBridge{hY, hZ} {
		for dev := 2; dev <= 3; dev++ {
			r := b.rootPort(h, dev)
			gpus = append(gpus, b.gpu(endpoint(r), r))
		}
	}
	ry := b.rootPort(hY, 4)
	nicY := b.nic(endpoint(ry), ry, "mlx5_1")
	pl := analyze(t, b.graph(), Options{}).Plan
	want := []*topology.Device{nicY, nicY, nicX, nicX}
	for i, as := range pl.Assignments {
		if as.GPU != gpus[i] || as.NIC != want[i] {
			t.Errorf("%s -> %s, want %s", as.GPU.BDF(), as.NIC.BDF(), want[i].BDF())
		}
	}
	// All PHB or NODE on one socket: 192.047; none SYS (96).
	if !near(pl.WorstGbps, 192.047) {
		t.Errorf("worst %.3f, want 192.047", pl.WorstGbps)
	}
	if pl.Ranks[2].Numactl != "numactl --cpunodebind=1 --membind=1" || pl.Ranks[2].NCCLIBHCA != "=mlx5_0" {
		t.Errorf("rank 2 = %+v", pl.Ranks[2])
	}
}

// TestPlanOptimizer drives the assignment with chosen pair figures.
func TestPlanOptimizer(t *testing.T) {
	tests := []struct {
		name  string
		w     [][]float64 // [gpu][nic]
		want  []int       // NIC index per GPU
		worst float64
	}{
		// Greedy would take 200 and be left with 100; the max-min answer is 120/120.
		{"worst first", [][]float64{{200, 120}, {120, 100}}, []int{1, 0}, 120},
		// Worst tied at 96: the larger mean (200+96 > 192+96) wins.
		{"then mean", [][]float64{{200, 96}, {192, 96}}, []int{0, 1}, 96},
		// All equal: address order.
		{"then address order", [][]float64{{50, 50}, {50, 50}}, []int{0, 1}, 50},
		// Three on two NICs, at most two each: the GPU least hurt moves.
		{"capacity", [][]float64{{100, 10}, {100, 50}, {100, 90}}, []int{0, 0, 1}, 90},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, gpus, nics := rails(len(tt.w), len(tt.w[0]))
			a := &analysis{g: b.graph(), m: DefaultModel()}
			for i, row := range tt.w {
				for j, v := range row {
					a.preds = append(a.preds, Prediction{GPU: gpus[i], NIC: nics[j], ExpectedGbps: v})
				}
			}
			pl := a.plan()
			for i, as := range pl.Assignments {
				if as.NIC != nics[tt.want[i]] {
					t.Errorf("GPU %d -> %s, want NIC %d", i, as.NIC.BDF(), tt.want[i])
				}
			}
			if pl.WorstGbps != tt.worst {
				t.Errorf("worst %g, want %g", pl.WorstGbps, tt.worst)
			}
		})
	}
}

func TestPlanSocketsAndNoNIC(t *testing.T) {
	b, _, n := pix()
	n.RDMA, n.Netdevs = nil, []string{"eth0"}
	r := analyze(t, b.graph(), Options{}).Plan.Ranks[0]
	if r.NCCLIBHCA != "" || r.NCCLSocketIfname != "=eth0" || r.UCXNetDevices != "eth0" {
		t.Errorf("Ethernet NIC rank = %+v", r)
	}
	b, g, _ := pix()
	b.g.Devices = []*topology.Device{g} // no NIC at all
	g.NUMANode = -1
	pl := analyze(t, b.g, Options{}).Plan
	if len(pl.Assignments) != 0 || len(pl.Ranks) != 1 || pl.Ranks[0].Numactl != "" {
		t.Errorf("no NIC: %+v", pl)
	}
}

// TestPlanWithoutLinks plans a source with no link speeds and no port
// rates (lstopo without -v): every expected throughput is unknown, so the
// nearer label decides, never address order alone. Address order would
// put GPU0 on the NIC of the other socket.
func TestPlanWithoutLinks(t *testing.T) {
	b := newBuilder()
	h0, _ := b.hb(0)
	h1, _ := b.hb(1)
	r0, r1 := b.rootPort(h0, 2), b.rootPort(h1, 2)
	usp0, usp1 := b.sw(r0), b.sw(r1)
	p00, p01, p10, p11 := b.port(usp0, 0), b.port(usp0, 1), b.port(usp1, 0), b.port(usp1, 1)
	gpu0, nic0 := b.gpu(below(p00, 0), p00), b.nic(below(p01, 1), p01, "mlx5_0")
	gpu1, nic1 := b.gpu(below(p10, 0), p10), b.nic(below(p11, 1), p11, "mlx5_1")
	for _, d := range b.g.Devices {
		d.Link = topology.Link{}
	}
	nic0.PortRateGbps, nic1.PortRateGbps = 0, 0
	// Swap the NICs' addresses so that the far NIC comes first for GPU0.
	nic0.Addr, nic1.Addr = nic1.Addr, nic0.Addr
	pl := analyze(t, b.graph(), Options{}).Plan
	want := map[*topology.Device]*topology.Device{gpu0: nic0, gpu1: nic1}
	if len(pl.Assignments) != 2 {
		t.Fatalf("%d assignments", len(pl.Assignments))
	}
	for _, as := range pl.Assignments {
		if as.NIC != want[as.GPU] {
			t.Errorf("%s -> %s, want %s (PIX, not SYS)", as.GPU.BDF(), as.NIC.BDF(), want[as.GPU].BDF())
		}
	}
}
