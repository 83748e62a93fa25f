package advisor

import (
	"fmt"
	"math"
	"sort"
	"strconv"

	"github.com/gdtopo/gdtopo/topology"
)

// Plan assigns every accelerator a NIC.
type Plan struct {
	Assignments []Assignment // one per accelerator, in address order
	WorstGbps   float64
	MeanGbps    float64
	Ranks       []RankEnv // per local rank, ready to paste
}

// Assignment is one accelerator's NIC.
type Assignment struct {
	GPU, NIC     *topology.Device
	ExpectedGbps float64 // the pair's prediction, before sharing
	Shared       int     // accelerators on this NIC's card, Socket Direct halves together (1: its own)
}

// RankEnv is the environment of local rank LocalRank, which drives the
// LocalRank-th accelerator in address order.
type RankEnv struct {
	LocalRank int
	// CUDAVisibleDevices is the accelerator's index in PCI address order:
	// it holds only with CUDA_DEVICE_ORDER=PCI_BUS_ID (CUDA's default
	// order is fastest first).
	CUDAVisibleDevices string
	NCCLIBHCA          string // "=mlx5_0": '=' asks NCCL for an exact name, not a prefix (NCCL env docs); empty without an RDMA device
	NCCLSocketIfname   string // "=eth0" when the NIC has no RDMA device and NCCL will use sockets
	UCXNetDevices      string // "mlx5_0:1" (port 1 assumed), or the netdev name
	Numactl            string // "numactl --cpunodebind=N --membind=N"; empty when the node is unknown
}

// Env returns the rank's variables as KEY=value words, with
// CUDA_DEVICE_ORDER=PCI_BUS_ID first so that CUDAVisibleDevices holds.
func (r RankEnv) Env() []string {
	out := []string{"CUDA_DEVICE_ORDER=PCI_BUS_ID", "CUDA_VISIBLE_DEVICES=" + r.CUDAVisibleDevices}
	for _, kv := range [][2]string{{"NCCL_IB_HCA", r.NCCLIBHCA}, {"NCCL_SOCKET_IFNAME", r.NCCLSocketIfname}, {"UCX_NET_DEVICES", r.UCXNetDevices}} {
		if kv[1] != "" {
			out = append(out, kv[0]+"="+kv[1])
		}
	}
	return out
}

// railNICs are the NICs worth planning with: the compute NICs (roles.go),
// which leave out bond ports, the default-route NIC and NICs without RDMA.
func (a *analysis) railNICs() []*topology.Device {
	nics, _ := computeNICs(a.g)
	return nics
}

// forbidden is the cost of a pair below the threshold: more than any
// assignment of allowed pairs (|cost| < 1e6 << 28 per row, 64 rows; the
// label term, at most 7 << 18 a row, and Σ i·j < 2^18 never carry into
// the field above them).
const forbidden = int64(1e16)

// plan picks the assignment that maximises the worst pair's ExpectedGbps,
// then the mean, then keeps address order (lower accelerators on lower
// NICs), with no NIC serving more than ceil(G/N) accelerators: a binary
// search on the threshold, each step a Hungarian assignment that forbids
// the pairs below it.
func (a *analysis) plan() Plan {
	gpus, nics := a.g.OfKind(topology.KindAccelerator), a.railNICs()
	var pl Plan
	for i, g := range gpus {
		r := RankEnv{LocalRank: i, CUDAVisibleDevices: strconv.Itoa(i)}
		if g.NUMANode >= 0 {
			r.Numactl = fmt.Sprintf("numactl --cpunodebind=%d --membind=%d", g.NUMANode, g.NUMANode)
		}
		pl.Ranks = append(pl.Ranks, r)
	}
	if len(gpus) == 0 || len(nics) == 0 || len(a.preds) == 0 {
		return pl // no plan without a known path (plain lspci shows none)
	}
	for _, p := range a.pairs {
		if p.SMI == topology.Unknown {
			return pl // the best NIC may be one whose path is unknown
		}
	}
	pred := map[[2]*topology.Device]float64{}
	for _, p := range a.preds {
		pred[[2]*topology.Device{p.GPU, p.NIC}] = p.ExpectedGbps
	}
	// near ranks a pair by its label, 6 (PIX) to 1 (SYS), 7 for NVLink: among pairs
	// expected alike, and where no throughput is known (no link speeds in
	// the source), the nearer NIC wins.
	near := map[[2]*topology.Device]int64{}
	for _, p := range a.pairs {
		near[[2]*topology.Device{p.A, p.B}] = int64(max(0, topology.SYS.Rank()+1-p.SMI.Rank()))
	}
	w := make([][]float64, len(gpus))
	var values []float64
	for i, g := range gpus {
		w[i] = make([]float64, len(nics))
		for j, n := range nics {
			v, ok := pred[[2]*topology.Device{g, n}]
			if !ok {
				v = -1 // not among the pairs given: never chosen
			}
			w[i][j] = v
			values = append(values, v)
		}
	}
	capacity := (len(gpus) + len(nics) - 1) / len(nics)
	// assign returns the best assignment using only pairs ≥ t (as slots of
	// capacity per NIC), and whether it needed none below t.
	assign := func(t float64) ([]int, bool) {
		cost := make([][]int64, len(gpus))
		for i := range gpus {
			cost[i] = make([]int64, len(nics)*capacity)
			for s := range cost[i] {
				if j := s / capacity; w[i][j] < t {
					cost[i][s] = forbidden
				} else { // Gb/s to 1e-2 first; then the nearer label; then lower GPUs on lower NICs (max Σ i·j)
					cost[i][s] = -(int64(math.Round(w[i][j]*100))<<27 + near[[2]*topology.Device{gpus[i], nics[j]}]<<18 + int64(i*j))
				}
			}
		}
		slots := hungarian(cost)
		for i, s := range slots {
			if cost[i][s] == forbidden {
				return slots, false
			}
		}
		return slots, true
	}
	sort.Float64s(values)
	lo, hi := 0, len(values)-1 // the smallest value is always feasible
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if _, ok := assign(values[mid]); ok {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	slots, _ := assign(values[lo])
	load := make([]int, len(nics))
	for i, g := range gpus {
		j := slots[i] / capacity
		load[j]++
		pl.Assignments = append(pl.Assignments, Assignment{GPU: g, NIC: nics[j], ExpectedGbps: w[i][j]})
	}
	sum := 0.0
	for i := range pl.Assignments {
		as := &pl.Assignments[i]
		as.Shared = cardLoad(a.g, nics, load, slots[i]/capacity)
		sum += as.ExpectedGbps
		if i == 0 || as.ExpectedGbps < pl.WorstGbps {
			pl.WorstGbps = as.ExpectedGbps
		}
		r := &pl.Ranks[i]
		switch n := as.NIC; {
		case len(n.RDMA) > 0:
			r.NCCLIBHCA, r.UCXNetDevices = "="+n.RDMA[0], n.RDMA[0]+":1"
		case len(n.Netdevs) > 0:
			r.NCCLSocketIfname, r.UCXNetDevices = "="+n.Netdevs[0], n.Netdevs[0]
		}
	}
	pl.MeanGbps = sum / float64(len(pl.Assignments))
	return pl
}

// hungarian returns, for each row of an n×m cost matrix (n ≤ m), the column
// of a minimum-cost assignment (Kuhn-Munkres with potentials, O(n²m)).
func hungarian(cost [][]int64) []int {
	n, m := len(cost), len(cost[0])
	const inf = math.MaxInt64 / 4
	u, v := make([]int64, n+1), make([]int64, m+1)
	p, way := make([]int, m+1), make([]int, m+1)
	for i := 1; i <= n; i++ {
		p[0] = i
		j0 := 0
		minv, used := make([]int64, m+1), make([]bool, m+1)
		for j := range minv {
			minv[j] = inf
		}
		for {
			used[j0] = true
			i0, delta, j1 := p[j0], int64(inf), 0
			for j := 1; j <= m; j++ {
				if used[j] {
					continue
				}
				if cur := cost[i0-1][j-1] - u[i0] - v[j]; cur < minv[j] {
					minv[j], way[j] = cur, j0
				}
				if minv[j] < delta {
					delta, j1 = minv[j], j
				}
			}
			for j := 0; j <= m; j++ {
				if used[j] {
					u[p[j]] += delta
					v[j] -= delta
				} else {
					minv[j] -= delta
				}
			}
			j0 = j1
			if p[j0] == 0 {
				break
			}
		}
		for j0 != 0 {
			j1 := way[j0]
			p[j0] = p[j1]
			j0 = j1
		}
	}
	out := make([]int, n)
	for j := 1; j <= m; j++ {
		if p[j] != 0 {
			out[p[j]-1] = j - 1
		}
	}
	return out
}
