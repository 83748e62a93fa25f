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
		// NVIDIA/nccl#1478: the same NCCL_IB_HCA on every rank; the rank's
		// own NIC goes to UCX_NET_DEVICES and numactl.
		want := fmt.Sprintf("CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES=%d NCCL_IB_HCA==mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7 UCX_NET_DEVICES=mlx5_%d:1", i, i)
		if got := strings.Join(pl.Ranks[i].Env(), " "); got != want {
			t.Errorf("rank %d = %q, want %q", i, got, want)
		}
		if num := fmt.Sprintf("numactl --cpunodebind=%d --membind=%d", i/4, i/4); pl.Ranks[i].Numactl != num {
			t.Errorf("rank %d numactl %q, want %q", i, pl.Ranks[i].Numactl, num)
		}
	}
	// Every pair PIX with a 200G NIC: 200 each.
	if !near(pl.WorstGbps, 200) || !near(pl.MeanGbps, 200) {
		t.Errorf("worst %.2f mean %.2f, want 200, 200", pl.WorstGbps, pl.MeanGbps)
	}
	if pl.NCCLIBHCA != "=mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7" {
		t.Errorf("plan NCCL_IB_HCA %q", pl.NCCLIBHCA)
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
	// PHB or NODE: GDR off (NCCL's level), so host-staged min(200, 230.456)
	// × 0.65 = 130, shared by four accelerators: 32.5 each.
	if !near(pl.WorstGbps, 32.5) {
		t.Errorf("worst %.3f, want 32.5", pl.WorstGbps)
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
	// All PHB or NODE on one socket, host-staged 130, two per NIC: 65;
	// none SYS (staged through the inter-socket link).
	if !near(pl.WorstGbps, 65) {
		t.Errorf("worst %.3f, want 65", pl.WorstGbps)
	}
	if pl.Ranks[2].Numactl != "numactl --cpunodebind=1 --membind=1" || pl.Ranks[2].Get("NCCL_IB_HCA") != pl.NCCLIBHCA || pl.Ranks[2].Get("UCX_NET_DEVICES") != "mlx5_0:1" {
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
		// Worst after sharing: NIC 0 serves two, 100/2 = 50 each.
		{"capacity", [][]float64{{100, 10}, {100, 50}, {100, 90}}, []int{0, 0, 1}, 50},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, gpus, nics := rails(len(tt.w), len(tt.w[0]))
			a := &analysis{g: b.graph(), m: DefaultModel()}
			for i, row := range tt.w {
				for j, v := range row {
					a.preds = append(a.preds, Prediction{GPU: gpus[i], NIC: nics[j], ExpectedGbps: v, GDR: true, GDRRead: true, PathGbps: 1})
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
	if r.Get("NCCL_IB_HCA") != "" || r.Get("NCCL_SOCKET_IFNAME") != "=eth0" || r.Get("UCX_NET_DEVICES") != "eth0" {
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
