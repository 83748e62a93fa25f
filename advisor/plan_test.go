package advisor

import (
	"fmt"
	"slices"
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
	// × 0.65 = 130 each, four accelerators on a 200 Gb/s port: 50 each.
	if !near(pl.WorstGbps, 50) {
		t.Errorf("worst %.3f, want 50", pl.WorstGbps)
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
	// All PHB or NODE on one socket, host-staged 130, two per 200 Gb/s
	// NIC: 100; none SYS (staged through the inter-socket link).
	if !near(pl.WorstGbps, 100) {
		t.Errorf("worst %.3f, want 100", pl.WorstGbps)
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
		// Greedy would take 200 and be left with 60; the max-min answer is
		// 150/150, across sockets (rails puts one GPU on each), as 60 is
		// below half of 150.
		{"worst first", [][]float64{{200, 150}, {150, 60}}, []int{1, 0}, 150},
		// 150/150 across sockets, but 100 is over half of 150: each GPU
		// keeps its own socket's NIC, as NCCL does.
		{"own socket within half", [][]float64{{200, 150}, {150, 100}}, []int{0, 1}, 100},
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

// TestPlanUnknownNeverWins: a NIC whose figure rests on a guess (an
// uncertain label leaves the GDR verdict undecided) loses to a known good
// one even when its guessed figure is higher.
func TestPlanUnknownNeverWins(t *testing.T) {
	b, g, n := pix()
	p2 := b.port(g.Parent.Parent, 2)
	fast := b.nic(below(p2, 2), p2, "mlx5_1")
	fast.PortRateGbps = 400
	fast.Link = topology.Link{CurrentGTs: 32, CurrentWidth: 16, MaxGTs: 32, MaxWidth: 16}
	gr := b.graph()
	pairs := gr.Pairs()
	for i := range pairs {
		if pairs[i].B == fast {
			pairs[i].LabelUncertain = true
		}
	}
	r, err := Analyze(gr, pairs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if pf, pn := pred(t, r, g, fast), pred(t, r, g, n); pf.GDRUnknown == "" || pn.GDRUnknown != "" || runGbps(&pf) <= runGbps(&pn) {
		t.Fatalf("setup: uncertain %.0f Gb/s (%q), known %.0f Gb/s (%q)", runGbps(&pf), pf.GDRUnknown, runGbps(&pn), pn.GDRUnknown)
	}
	as := r.Plan.Assignments
	if len(as) != 1 || as[0].NIC != n || !as[0].Known {
		t.Errorf("plan %+v: want the known NIC %s", as, n.BDF())
	}
}

// TestPlanShareAndAMD: two accelerators on one NIC each get half of it in
// the plan's figures; AMD accelerators get no device variable: per rank,
// ROCR_VISIBLE_DEVICES costs RCCL its P2P (ROCm/rocm-systems#8136) and
// HIP_VISIBLE_DEVICES beside it selects nothing (ROCm/ROCR-Runtime#155).
// Each rank takes HIP device LOCAL_RANK, whose order (ROCr's) a sysfs tree
// does not give and RCCL's topology file does (<gpu dev>).
func TestPlanShareAndAMD(t *testing.T) {
	b, g, n := pix()
	p2 := b.port(g.Parent.Parent, 2)
	g2 := b.gpu(below(p2, 2), p2)
	for _, d := range []*topology.Device{g, g2} {
		d.VendorID, d.DeviceID = topology.VendorAMD, 0x74a1 // MI300X
	}
	pl := analyze(t, b.graph(), Options{}).Plan
	if len(pl.Assignments) != 2 {
		t.Fatalf("plan %+v", pl)
	}
	for _, as := range pl.Assignments {
		if as.NIC != n || as.Shared != 2 || !near(as.ShareGbps, as.ExpectedGbps/2) {
			t.Errorf("%s: NIC %s shared %d, %.1f of %.1f Gb/s; want half of %s", as.GPU.BDF(), as.NIC.BDF(), as.Shared, as.ShareGbps, as.ExpectedGbps, n.BDF())
		}
	}
	if want := pl.Assignments[0].ExpectedGbps / 2; !near(pl.WorstGbps, want) || !near(pl.MeanGbps, want) {
		t.Errorf("worst %.1f, mean %.1f; want %.1f (each accelerator's share)", pl.WorstGbps, pl.MeanGbps, want)
	}
	for i, r := range pl.Ranks {
		if r.Get("ROCR_VISIBLE_DEVICES") != "" || r.Get("HIP_VISIBLE_DEVICES") != "" || r.Get("CUDA_VISIBLE_DEVICES") != "" || r.Get("CUDA_DEVICE_ORDER") != "" {
			t.Errorf("rank %d env %v: want no device variable", i, r.Env())
		}
		if r.Get("NCCL_IB_HCA") != "=mlx5_0" || r.Get("UCX_NET_DEVICES") != "mlx5_0:1" {
			t.Errorf("rank %d env %v", i, r.Env())
		}
		if r.LocalRank != -1 || r.GPU != pl.Assignments[i].GPU {
			t.Errorf("rank %d: local rank %d for %s; want unknown (-1) for %s: no source here gives HIP's order", i, r.LocalRank, r.GPU.BDF(), pl.Assignments[i].GPU.BDF())
		}
	}
	if !slices.ContainsFunc(pl.Notes, func(n string) bool {
		return strings.HasPrefix(n, "no ROCR_VISIBLE_DEVICES: set per rank it costs RCCL its P2P")
	}) ||
		!slices.ContainsFunc(pl.Notes, func(n string) bool { return strings.Contains(n, "rocm-smi --showbus") }) {
		t.Errorf("notes %q, want why there is no ROCR_VISIBLE_DEVICES and how to find HIP's order", pl.Notes)
	}
	// RCCL's topology file numbers the GPUs as HIP does (<gpu dev>): the
	// ranks follow it, not the address order.
	g.SetNCCLDev("1")
	g2.SetNCCLDev("0")
	pl = analyze(t, b.graph(), Options{}).Plan
	for _, r := range pl.Ranks {
		if want := map[*topology.Device]int{g: 1, g2: 0}[r.GPU]; r.LocalRank != want {
			t.Errorf("%s (dev %s): local rank %d, want %d", r.GPU.BDF(), r.GPU.NCCLDev(), r.LocalRank, want)
		}
	}
}

// TestPlanWithoutFigures: a dump without link speeds leaves every figure
// unknown; the plan then takes the GDR verdict, then the nearer NCCL path
// (the lenovo -t -vvv dump: a ConnectX-7 at PXB over a ConnectX-6 Lx at
// NODE?).
func TestPlanWithoutFigures(t *testing.T) {
	for _, tt := range []struct {
		name string
		gdr  [][]bool // [gpu][nic]
		want []int
	}{
		{"nearer path", [][]bool{{true, true}, {true, true}}, []int{0, 1}},
		{"GDR on first", [][]bool{{false, true}, {true, false}}, []int{1, 0}},
	} {
		b, gpus, nics := rails(2, 2)
		a := &analysis{g: b.graph(), m: DefaultModel()}
		for i := range gpus {
			for j := range nics {
				a.preds = append(a.preds, Prediction{GPU: gpus[i], NIC: nics[j], GDR: tt.gdr[i][j], GDRRead: tt.gdr[i][j], GDRUnknown: "no link speeds"})
			}
		}
		for i, as := range a.plan().Assignments {
			if as.NIC != nics[tt.want[i]] || as.Known {
				t.Errorf("%s: GPU %d -> %s (known %v), want NIC %d", tt.name, i, as.NIC.BDF(), as.Known, tt.want[i])
			}
		}
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

// TestPlanMeanPartlyUnknown: where one accelerator's figure is unknown the
// plan's mean is unknown too, not the known figures averaged with a zero.
func TestPlanMeanPartlyUnknown(t *testing.T) {
	b, gpus, nics := rails(2, 2)
	a := &analysis{g: b.graph(), m: DefaultModel()}
	for i := range gpus {
		for j := range nics {
			p := Prediction{GPU: gpus[i], NIC: nics[j], GDR: true, GDRRead: true}
			if i == 0 {
				p.ExpectedGbps, p.PathGbps = 200, 200
			}
			a.preds = append(a.preds, p)
		}
	}
	pl := a.plan()
	if len(pl.Assignments) != 2 || pl.WorstGbps != 0 || pl.MeanGbps != 0 {
		t.Errorf("worst %.1f, mean %.1f of %+v: want both unknown (0)", pl.WorstGbps, pl.MeanGbps, pl.Assignments)
	}
}

// multiRailMachine puts each of nGPU accelerators under a switch of its
// own with perGPU NICs of rate Gb/s beside it, as AWS p5 holds four EFA
// NICs under each H100's switch.
func multiRailMachine(nGPU, perGPU int, rate float64) (*builder, []*topology.Device) {
	b := newBuilder()
	var gpus []*topology.Device
	for i := range nGPU {
		_, rp := b.hb(0)
		usp := b.sw(rp)
		p0 := b.port(usp, 0)
		gpus = append(gpus, b.gpu(below(p0, 0), p0))
		for k := 1; k <= perGPU; k++ {
			p := b.port(usp, k)
			b.nic(below(p, k), p, fmt.Sprintf("mlx5_%d", i*perGPU+k-1)).PortRateGbps = rate
		}
	}
	return b, gpus
}

// TestPlanMultiRail: where each accelerator has several NICs as near as
// its best one and no other accelerator does, NCCL spreads its channels
// over them (ncclTopoGetLocalNetType): the plan gives it all of them, sums
// their figures up to the accelerator's own link, and names every one in
// NCCL_IB_HCA and the rank's UCX_NET_DEVICES. Two accelerators and two
// NICs under one switch stay one NIC each.
func TestPlanMultiRail(t *testing.T) {
	for _, tt := range []struct {
		name         string
		rate, expect float64
	}{
		{"four 50 Gb/s NICs each", 50, 200},
		{"capped by the accelerator's Gen4 x16 link", 100, 230.456},
	} {
		b, gpus := multiRailMachine(2, 4, tt.rate)
		pl := analyze(t, b.graph(), Options{}).Plan
		if len(pl.Assignments) != 2 {
			t.Fatalf("%s: %d assignments", tt.name, len(pl.Assignments))
		}
		seen := map[*topology.Device]bool{}
		for i, as := range pl.Assignments {
			if as.GPU != gpus[i] || len(as.MoreNICs) != 3 || !near(as.ExpectedGbps, tt.expect) {
				t.Errorf("%s: %s -> %s + %d more, %.3f Gb/s; want 3 more, %.3f", tt.name, as.GPU.BDF(), as.NIC.BDF(), len(as.MoreNICs), as.ExpectedGbps, tt.expect)
			}
			for _, n := range append([]*topology.Device{as.NIC}, as.MoreNICs...) {
				if seen[n] || n.Parent.Parent != as.GPU.Parent.Parent {
					t.Errorf("%s: %s planned twice, or not under %s's switch", tt.name, n.BDF(), as.GPU.BDF())
				}
				seen[n] = true
			}
			if env := strings.Join(pl.Ranks[i].Env(), " "); !strings.Contains(env, "UCX_NET_DEVICES=") || strings.Count(env, ":1") != 4 {
				t.Errorf("%s: rank %d: %s", tt.name, i, env)
			}
		}
		if want := "=mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7"; pl.NCCLIBHCA != want {
			t.Errorf("%s: NCCL_IB_HCA %s, want %s", tt.name, pl.NCCLIBHCA, want)
		}
	}
	b, _ := multiRailMachine(1, 2, 200)
	usp := b.g.OfKind(topology.KindAccelerator)[0].Parent.Parent
	p := b.port(usp, 3)
	b.gpu(below(p, 3), p)
	for _, as := range analyze(t, b.graph(), Options{}).Plan.Assignments {
		if len(as.MoreNICs) != 0 {
			t.Errorf("two accelerators, two NICs under one switch: %s got %d more NICs", as.GPU.BDF(), len(as.MoreNICs))
		}
	}
}

// TestPlanUndecidedByWorseOutcome: a pair whose GDR verdict rests on a
// guess (an NCCL file's PHB?, same socket) but whose figures with GDR on
// and off are both known competes with known pairs by the worse of the
// two: it beats a known cross-socket pair below both, and loses to one
// above its worse outcome.
func TestPlanUndecidedByWorseOutcome(t *testing.T) {
	for _, tt := range []struct {
		name       string
		knownGbps  float64 // the known pair's staged figure
		wantSocket bool    // the undecided same-socket NIC wins
	}{
		{"a known SYS pair below both outcomes", 71, true},
		{"a known pair above the worse outcome", 150, false},
	} {
		b, gpus, nics := rails(1, 1)
		p1 := b.port(gpus[0].Parent.Parent, 2)
		far := b.nic(below(p1, 2), p1, "mlx5_9")
		nics = append(nics, far)
		a := &analysis{g: b.graph(), m: DefaultModel()}
		a.preds = []Prediction{
			{GPU: gpus[0], NIC: nics[0], PathGbps: 200, ExpectedGbps: 143, HostStagedGbps: 260, stagedGbps: 260, GDRUnknown: "the path's label rests on a guess"},
			{GPU: gpus[0], NIC: far, PathGbps: 200, ExpectedGbps: 90, HostStagedGbps: tt.knownGbps, stagedGbps: tt.knownGbps},
		}
		as := a.plan().Assignments
		if len(as) != 1 || (as[0].NIC == nics[0]) != tt.wantSocket {
			t.Errorf("%s: planned %+v, want the undecided NIC %v", tt.name, as, tt.wantSocket)
		}
	}
}

// TestPlanAMDPartitions: a GPU in CPX compute partitioning is one HIP
// device per partition (ROCR-Runtime amd_topology.cpp, BuildTopology,
// counts KFD GPU nodes; amdgpu adds a node per partition), so no rank's
// index can be told: no rank gets a device variable or a local rank, and
// the notes say why.
func TestPlanAMDPartitions(t *testing.T) {
	b, gpus, _ := rails(4, 4)
	for i, d := range gpus {
		d.VendorID, d.DeviceID = topology.VendorAMD, 0x74a1 // MI300X
		d.SetPartitions("SPX", d.MemoryPartition())
		d.SetNCCLDev(fmt.Sprint(i))
		if i >= 2 {
			d.SetPartitions("CPX", d.MemoryPartition())
		}
	}
	pl := analyze(t, b.graph(), Options{}).Plan
	for i, r := range pl.Ranks {
		if r.Get("ROCR_VISIBLE_DEVICES") != "" || r.Get("HIP_VISIBLE_DEVICES") != "" || r.LocalRank != -1 {
			t.Errorf("rank %d env %v, local rank %d: want no device variable and no local rank", i, r.Env(), r.LocalRank)
		}
	}
	if !slices.ContainsFunc(pl.Notes, func(n string) bool {
		return strings.HasPrefix(n, "AMD accelerators in CPX compute partitioning are one HIP device per partition")
	}) ||
		!slices.ContainsFunc(pl.Notes, func(n string) bool {
			return strings.HasPrefix(n, "an accelerator in compute partitions runs one rank per partition")
		}) {
		t.Errorf("notes %q, want one saying partitions hide the indexes, one that a partitioned accelerator's settings are for all its ranks", pl.Notes)
	}
}

// TestPlanEFA: NCCL's IB transport is the only reader of NCCL_IB_HCA (NCCL
// src/transport/net_ib/init.cc, ncclIbInitDevices) and skips EFA, whose
// link layer is neither InfiniBand nor Ethernet; EFA runs through the
// aws-ofi-nccl plugin, which groups NICs by topology itself
// (src/nccl_ofi_topo.cpp, nccl_ofi_topo_group) and needs no FI_ variable
// with aws-ofi-nccl >= 1.7 and libfabric >= 1.18 (doc/efa-env-var.md). So
// no rank gets NCCL_IB_HCA or an FI_ variable, and a note names the plugin,
// whether the NIC is known by Amazon's vendor ID or, where a provider's
// NCCL file gives no IDs, by rdma-core's rdma* name for a device of no
// known protocol (kernel-boot/rdma_rename.c).
func TestPlanEFA(t *testing.T) {
	for _, tt := range []struct {
		name   string
		vendor uint16
		want   string // the note's start
	}{
		{"amazon", 0x1d0f, "EFA NICs: the aws-ofi-nccl plugin"},
		{"no IDs", 0, "NICs named rdma* speak neither InfiniBand nor RoCE"},
	} {
		b, _, nics := rails(2, 2)
		for i, n := range nics {
			n.VendorID, n.DeviceID = tt.vendor, 0
			if tt.vendor != 0 {
				n.DeviceID = 0xefa1
			}
			n.RDMA, n.Netdevs = []string{fmt.Sprintf("rdmap%ds0", 16+i)}, nil
		}
		pl := analyze(t, b.graph(), Options{}).Plan
		if len(pl.Assignments) != 2 || pl.NCCLIBHCA != "" {
			t.Errorf("%s: %d assignments, NCCL_IB_HCA %q; want 2, none", tt.name, len(pl.Assignments), pl.NCCLIBHCA)
		}
		for i, r := range pl.Ranks {
			env := strings.Join(r.Env(), " ")
			if r.Get("NCCL_IB_HCA") != "" || strings.Contains(env, "FI_") || r.Get("UCX_NET_DEVICES") != "" {
				t.Errorf("%s: rank %d env %q: want no NCCL_IB_HCA, no FI_ variable, no UCX_NET_DEVICES (EFA is libfabric's)", tt.name, i, env)
			}
		}
		if !slices.ContainsFunc(pl.Notes, func(n string) bool {
			return strings.HasPrefix(n, tt.want) && strings.Contains(n, "picks each GPU's NICs by topology itself")
		}) {
			t.Errorf("%s: notes %q, want the plugin line", tt.name, pl.Notes)
		}
	}
}

// TestPlanSharedFastBeatsSlowOwn: two accelerators under one switch with a
// 200 Gb/s NIC, and a 1 Gb/s NIC on the root complex: both share the fast
// NIC (about 100 Gb/s each) rather than one taking the slow NIC alone; the
// plan maximises the worst accelerator's share, not the worst pair before
// sharing. Its worst figure is no ceiling: both port rates are known.
func TestPlanSharedFastBeatsSlowOwn(t *testing.T) {
	b := newBuilder()
	_, rp := b.hb(0)
	usp := b.sw(rp)
	p0, p1, p2 := b.port(usp, 0), b.port(usp, 1), b.port(usp, 2)
	b.gpu(below(p0, 0), p0)
	b.gpu(below(p1, 1), p1)
	fast := b.nic(below(p2, 2), p2, "mlx5_0")
	r := b.rootPort(b.g.HostBridges[0], 3)
	slow := b.nic(endpoint(r), r, "mlx5_1")
	slow.PortRateGbps = 1
	pl := analyze(t, b.graph(), Options{}).Plan
	for _, as := range pl.Assignments {
		if as.NIC != fast || as.Shared != 2 || as.Mode != ModeGDR {
			t.Errorf("%s -> %s shared %d (%s); want %s shared by 2 over GDR", as.GPU.BDF(), as.NIC.BDF(), as.Shared, as.Mode, fast.BDF())
		}
	}
	if pl.WorstGbps < 90 || pl.WorstAtMost {
		t.Errorf("worst %.1f Gb/s (ceiling %v), want about 100, no ceiling", pl.WorstGbps, pl.WorstAtMost)
	}
}

// TestPlanIBHCA: NCCL's IB transport opens only the devices NCCL_IB_HCA
// takes (src/transport/net_ib/init.cc, ncclIbInitDevices), so the plan
// leaves the others out, says so, and every rank keeps the job's list.
func TestPlanIBHCA(t *testing.T) {
	b, _, _ := rails(8, 8)
	r := analyze(t, b.graph(), Options{Env: map[string]string{"NCCL_IB_HCA": "^=mlx5_0"}})
	pl := r.Plan
	for _, as := range pl.Assignments {
		if as.NIC.RDMA[0] == "mlx5_0" {
			t.Errorf("%s planned on mlx5_0, which NCCL_IB_HCA=^=mlx5_0 leaves out", as.GPU.BDF())
		}
	}
	if !slices.ContainsFunc(pl.Notes, func(n string) bool { return strings.Contains(n, "NCCL_IB_HCA=^=mlx5_0 leaves out mlx5_0") }) {
		t.Errorf("notes %q, want one naming mlx5_0", pl.Notes)
	}
	for _, rk := range pl.Ranks {
		if h := rk.Get("NCCL_IB_HCA"); h != "^=mlx5_0" {
			t.Errorf("rank %d NCCL_IB_HCA %q, want the job's ^=mlx5_0", rk.LocalRank, h)
		}
	}
}

// TestPlanFirstOfEqualNICs: four equal NICs under each accelerator's
// switch (AWS p5's EFA layout): each accelerator's planned NIC is the
// first of its four, the others its further NICs, GPU1 as GPU0.
func TestPlanFirstOfEqualNICs(t *testing.T) {
	b := newBuilder()
	var gpus []*topology.Device
	var first []*topology.Device
	for i := range 2 {
		_, rp := b.hb(0)
		usp := b.sw(rp)
		p0 := b.port(usp, 0)
		gpus = append(gpus, b.gpu(below(p0, 0), p0))
		for k := 1; k <= 4; k++ {
			pk := b.port(usp, k)
			n := b.nic(below(pk, k), pk, fmt.Sprintf("mlx5_%d", i*4+k-1))
			if k == 1 {
				first = append(first, n)
			}
		}
	}
	pl := analyze(t, b.graph(), Options{}).Plan
	for i, as := range pl.Assignments {
		if as.GPU != gpus[i] || as.NIC != first[i] || len(as.MoreNICs) != 3 {
			t.Errorf("%s -> %s + %d more, want %s + 3", as.GPU.BDF(), as.NIC.BDF(), len(as.MoreNICs), first[i].BDF())
		}
	}
}
