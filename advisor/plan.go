package advisor

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/gdtopo/gdtopo/topology"
)

// Plan assigns every accelerator a NIC.
type Plan struct {
	Assignments []Assignment // one per accelerator, in address order
	WorstGbps   float64      // the lowest ShareGbps
	MeanGbps    float64      // the mean ShareGbps; 0 (unknown) where one is unknown
	// AtMost says MeanGbps is a ceiling: an assignment's NIC has no known
	// port rate (Assignment.AtMost). WorstAtMost says the same of
	// WorstGbps: the assignment it is is a ceiling; a worst pair with a
	// known port rate is an estimate, whatever the others are.
	AtMost, WorstAtMost bool
	// NCCLIBHCA is the one NCCL_IB_HCA value for every rank of the node:
	// the plan's RDMA devices, exact names ('='). NCCL's maintainers: all
	// ranks on a node must get the same list, and NCCL picks the nearest
	// NIC of it for each GPU (NVIDIA/nccl#1478). Empty without RDMA NICs
	// that NCCL's IB transport drives (EFA runs through a plugin: netPlugin).
	NCCLIBHCA string
	Ranks     []RankEnv // per local rank, ready to paste
	// Notes are lines about the rank settings: why a rank lacks a
	// variable, which plugin chooses the NICs (rankenv.go).
	Notes []string
}

// Assignment is one accelerator's NIC.
type Assignment struct {
	GPU, NIC     *topology.Device
	ExpectedGbps float64 // the pair's throughput as NCCL would run it (Mode), before sharing
	// Mode is how NCCL runs the pair, what ExpectedGbps is the figure of:
	// ModeGDR, ModeGDRWrite or ModeHostStaged.
	Mode string
	// Partitions is how many ranks the accelerator runs as: its compute
	// partitions (topology.ComputePartitions), 1 unpartitioned, 0 unknown.
	// All of them go through its one PCI function to NIC.
	Partitions int
	// Shared is the ranks on this NIC's card, Socket Direct halves
	// together: each accelerator's Partitions (1: its own); 0 where an
	// accelerator's partition count is unknown.
	Shared    int
	ShareGbps float64 // what each of its ranks gets when all send at once; 0 unknown
	// LinkShared is the number of ranks on the NIC functions of one card
	// (ports of a dual-port card) whose one PCIe link bounds ShareGbps
	// below the port's share; 0 where the link does not bind or no other
	// function of the card is planned.
	LinkShared int
	Known      bool // the figure rests on a known label, link and GDR verdict
	AtMost     bool // the figure is a ceiling: the NIC's port rate is unknown (Prediction.AtMost)
	// MoreNICs are the further NICs NCCL spreads this accelerator's
	// channels over, each as near as NIC and planned for no other
	// accelerator (multiRail); ExpectedGbps is then the sum over all of
	// them, capped by the accelerator's own link.
	MoreNICs []*topology.Device
}

// How NCCL runs a planned pair (Assignment.Mode).
const (
	ModeGDR        = "gdr"         // GPUDirect RDMA both ways
	ModeGDRWrite   = "gdr_write"   // the NIC writes GPU memory directly; sends are staged (NCCL_NET_GDR_READ off)
	ModeHostStaged = "host_staged" // staged through host memory both ways
)

// mode is how NCCL runs pair p (runGbps's cases).
func mode(p *Prediction) string {
	switch {
	case !p.GDR:
		return ModeHostStaged
	case !p.GDRRead:
		return ModeGDRWrite
	}
	return ModeGDR
}

// EnvVar is one environment variable of a rank.
type EnvVar struct{ Name, Value string }

// RankEnv is the environment of the local rank that drives GPU, the plan's
// accelerators' in address order.
type RankEnv struct {
	LocalRank int // -1 where the source does not tell which local rank drives GPU (deviceVars)
	GPU       *topology.Device
	// Vars in order: the visible-device variables for the accelerator's
	// runtime (CUDA for NVIDIA, ROCr for AMD: deviceVars), then
	// NCCL_IB_HCA (the same on every rank; none where a net plugin drives
	// the NIC) and UCX_NET_DEVICES (this rank's NIC at its active port), or
	// NCCL_SOCKET_IFNAME where the NIC has no RDMA device (netVars).
	Vars    []EnvVar
	Numactl string // "numactl --cpunodebind=N --membind=N"; empty when the node is unknown
}

// Env returns the rank's variables as KEY=value words.
func (r RankEnv) Env() []string {
	out := make([]string, 0, len(r.Vars))
	for _, v := range r.Vars {
		out = append(out, v.Name+"="+v.Value)
	}
	return out
}

// Get returns the value of variable name, "" when the rank has none.
func (r RankEnv) Get(name string) string {
	for _, v := range r.Vars {
		if v.Name == name {
			return v.Value
		}
	}
	return ""
}

// railNICs are the NICs worth planning with: the compute NICs (roles.go:
// no bond ports, no default-route NIC, no NIC without RDMA where the source
// shows RDMA devices), and of those the ones with RDMA, else the ones that
// may have it: a NIC whose model has no RDMA engine (an X710 in an lspci
// dump) is never a rail. Only when no NIC may have RDMA does the plan use
// them all, for NCCL's socket transport.
func (a *analysis) railNICs() []*topology.Device {
	nics, _ := computeNICs(a.g)
	var sure, maybe []*topology.Device
	for _, n := range nics {
		switch r, _ := a.nicRDMA(n); r {
		case yes:
			sure = append(sure, n)
		case unknown:
			maybe = append(maybe, n)
		}
	}
	switch {
	case len(sure) > 0:
		return sure
	case len(maybe) > 0:
		return maybe
	}
	return nics
}

// forbidden is the cost of a pair below the threshold: more than any
// assignment of allowed pairs (|cost| < 1e6 << 28 per row, 64 rows; the
// label term, at most 7 << 18 a row, and Σ i·j < 2^18 never carry into
// the field above them).
const forbidden = int64(1e16)

// localityTolerance is the part of the best worst share a plan keeps when
// it gives the rest up for NICs on each accelerator's own socket.
const localityTolerance = 0.5

// runGbps is what a pair gives as NCCL would run it: direct RDMA where GDR
// is on (the lower direction, reads included only where NCCL reads
// directly), host staging where it is off.
func runGbps(p *Prediction) float64 {
	switch {
	case !p.GDR:
		return p.HostStagedGbps
	case !p.GDRRead:
		return min(p.ExpectedWriteGbps, p.HostStagedGbps)
	}
	return p.ExpectedGbps
}

// bothOutcomes is the lower of a pair's figures with GDR on and off, where
// its link is known and only the GDR verdict is undecided (GDRUnknown);
// 0 otherwise. The direct figure of a pair NCCL would stage is what
// forcing GDR gives.
func bothOutcomes(p *Prediction) float64 {
	if p.PathGbps <= 0 || p.GDRUnknown == "" || p.stagedGbps <= 0 || p.ExpectedGbps <= 0 {
		return 0
	}
	return min(p.ExpectedGbps, p.stagedGbps)
}

// predictionKnown reports a figure that rests on a known link and a decided
// GDR verdict (an uncertain label leaves the verdict undecided).
func predictionKnown(p *Prediction) bool {
	return p.PathGbps > 0 && p.GDRUnknown == ""
}

// plan picks the assignment that maximises the worst accelerator's share
// (its pair's figure over the accelerators on its NIC), then the mean,
// then keeps address order (lower accelerators on lower NICs): a binary
// search on the threshold, each step a Hungarian assignment over NIC
// slots (the k-th accelerator on a NIC worth figure/k) that forbids the
// slots below it and checks every real share against it.
func (a *analysis) plan() Plan {
	gpus, nics := a.g.OfKind(topology.KindAccelerator), liveRails(a.railNICs())
	var pl Plan
	vars, local, notes := deviceVars(gpus)
	pl.Notes = notes
	hca := a.ibHCAFilter()
	if hca.set {
		// NCCL's IB transport opens only the devices NCCL_IB_HCA takes.
		kept := nics[:0:0]
		var out []string
		for _, n := range nics {
			if a.ibExcluded(n, hca) != "" {
				out = append(out, n.RDMA[0])
				continue
			}
			kept = append(kept, n)
		}
		if len(out) > 0 {
			pl.Notes = append(pl.Notes, fmt.Sprintf("NCCL_IB_HCA=%s leaves out %s: not planned", hca.value, strings.Join(out, ", ")))
		}
		nics = kept
	}
	// AWS p5's file has one CPU node of 48 CPUs for an instance of two sockets.
	providerFile := a.providerFile()
	if providerFile {
		pl.Notes = append(pl.Notes, topoFileNote(a.g))
	}
	if providerFile && slices.ContainsFunc(gpus, func(d *topology.Device) bool { return d.NUMANode >= 0 }) {
		matrix := "nvidia-smi topo -m"
		if slices.ContainsFunc(gpus, amdGPU) {
			matrix = "rocm-smi --showtoponuma"
		}
		pl.Notes = append(pl.Notes, "no numactl: a provider's topology file gives the CPU nodes NCCL is told of, not the instance's NUMA layout; take it from lscpu or "+matrix+" on the instance")
	}
	for i, g := range gpus {
		r := RankEnv{LocalRank: local[i], GPU: g, Vars: vars[i]}
		if g.NUMANode >= 0 && !providerFile {
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
	// The matrices below are indexed [GPU][NIC] by gpus' and nics' order,
	// each row cut from one array.
	gpuAt, nicAt := indexOf(gpus), indexOf(nics)
	cell := func(g, n *topology.Device) (int, bool) {
		i, okG := gpuAt[g]
		j, okN := nicAt[n]
		return i*len(nics) + j, okG && okN
	}
	pred := make([]*Prediction, len(gpus)*len(nics))
	for i, p := range a.preds {
		if k, ok := cell(p.GPU, p.NIC); ok {
			pred[k] = &a.preds[i]
		}
	}
	// w ranks pairs: a known figure above any unknown one (an unknown
	// prediction never wins over a known good one), then Gb/s as NCCL
	// would run the pair.
	const tier = 5000 // above any NIC's Gb/s; w stays below 1e4, as cost's field needs
	// near ranks a pair by its label, 6 (PIX) to 1 (SYS), 7 for NVLink: among pairs
	// expected alike, and where no throughput is known (no link speeds in
	// the source), the nearer NIC wins.
	near := make([]int64, len(gpus)*len(nics))
	path := make([]int, len(gpus)*len(nics)) // NCCL's path type, ncclRank; -1 unknown
	for k := range path {
		path[k] = -1
	}
	ownSocket := make([]int64, len(gpus)*len(nics)) // 1 where the pair does not cross sockets (NUMA nodes of one socket do not)
	for _, p := range a.pairs {
		if k, ok := cell(p.A, p.B); ok {
			near[k] = int64(max(0, topology.SYS.Rank()+1-p.SMI.Rank()))
			if !p.CrossSocket() {
				ownSocket[k] = 1
			}
			if r, ok := ncclRank(p.NCCL); ok {
				path[k] = r
			}
		}
	}
	// w is a pair's rank before sharing: lift (tier for a known figure,
	// 0 otherwise) plus base, the part a shared NIC divides.
	w, lift, gbps, known := rows(make([]float64, len(pred)), len(nics)), rows(make([]float64, len(pred)), len(nics)), rows(make([]float64, len(pred)), len(nics)), rows(make([]bool, len(pred)), len(nics))
	atMost := rows(make([]bool, len(pred)), len(nics))
	for i, g := range gpus {
		for j, n := range nics {
			v := -1.0 // not among the pairs given: never chosen
			if p := pred[i*len(nics)+j]; p != nil {
				gbps[i][j], known[i][j], atMost[i][j] = runGbps(p), predictionKnown(p), p.AtMost
				v = gbps[i][j]
				switch low := bothOutcomes(p); {
				case known[i][j]:
					lift[i][j] = tier
				case low > 0:
					// An undecided verdict with both outcomes figured: its
					// worse one competes with known figures, so a same-socket
					// pair whose label is a guess still beats a known SYS one.
					v, lift[i][j] = low, tier
				case v <= 0:
					// No figure at all (a dump without link speeds): rank by
					// what is known, GDR on first, then the nearer NCCL path.
					r, _ := ncclRank(a.g.ClassifyWithoutHops(g, n).NCCL)
					v = float64(20-r) / 100
					if p.GDR {
						v++
					}
				}
			}
			w[i][j] = v
		}
	}
	// A NIC may serve any number of accelerators, each getting its share:
	// slot s of NIC j is the (s+1)-th accelerator on it, worth
	// lift + min(base, NIC/(s+1)) where the NIC's capacity is known (an
	// accelerator held by its own link loses nothing until the NIC is
	// full), else base/(s+1); so a fast NIC shared beats a slow one alone
	// and equal NICs are filled evenly (worst first, then the mean).
	capacity := len(gpus)
	nicCap := rows(make([]float64, len(pred)), len(nics)) // Gb/s the NIC's sharers divide; 0 unknown
	for k, p := range pred {
		if p != nil {
			nicCap[k/len(nics)][k%len(nics)] = minKnown(p.portGbps, p.nicLinkGbps)
		}
	}
	share := func(i, j, s int) float64 {
		if w[i][j] < 0 {
			return -1
		}
		if c := nicCap[i][j]; c > 0 && lift[i][j] == tier {
			return lift[i][j] + min(w[i][j], c/float64(s+1))
		}
		return lift[i][j] + w[i][j]/float64(s+1)
	}
	values := make([]float64, 0, len(pred)*capacity)
	for i := range gpus {
		for j := range nics {
			for s := 0; s < capacity; s++ {
				values = append(values, share(i, j, s))
			}
		}
	}
	// assign returns the best assignment using only slots worth ≥ t, and
	// whether it needed none below t and every accelerator's real share
	// (its pair's rank over its NIC's load) is ≥ t. Every assign fills in
	// all of cost: one matrix serves them all.
	cost := rows(make([]int64, len(gpus)*len(nics)*capacity), len(nics)*capacity)
	// spread prefers a NIC's first slots: where sharing costs nothing (flows
	// below the NIC's capacity), each accelerator still gets a NIC of its
	// own when there are enough, as NCCL spreads its rings.
	spread := func(slot int) int64 { return int64(max(0, 63-slot)) }
	var work hungarianWork
	load := make([]int, len(nics))
	assign := func(t float64, nearFirst bool) ([]int, bool) {
		for i := range gpus {
			for sl := range cost[i] {
				j, k := sl/capacity, sl%capacity
				v := share(i, j, k)
				switch {
				case v < t:
					cost[i][sl] = forbidden
				case nearFirst: // the socket's own NICs first; then the share to 1e-2; then a NIC to each; then lower GPUs on lower NICs (max Σ i·j)
					cost[i][sl] = -(ownSocket[i*len(nics)+j]<<45 + int64(math.Round(v*100))<<24 + spread(k)<<18 + int64(i*j))
				default: // share to 1e-2 first; then a NIC to each; then the nearer label; then lower GPUs on lower NICs (max Σ i·j)
					cost[i][sl] = -(int64(math.Round(v*100))<<27 + spread(k)<<21 + near[i*len(nics)+j]<<18 + int64(i*j))
				}
			}
		}
		slots := work.solve(cost)
		clear(load)
		for i, sl := range slots {
			if cost[i][sl] == forbidden {
				return slots, false
			}
			load[sl/capacity]++
		}
		for i, sl := range slots {
			if j := sl / capacity; share(i, j, load[j]-1) < t {
				return slots, false
			}
		}
		return slots, true
	}
	sort.Float64s(values)
	lo, hi := 0, len(values)-1 // the smallest value is always feasible
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if _, ok := assign(values[mid], false); ok {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	slots, _ := assign(values[lo], false)
	// Within half of the best worst share, NICs on the accelerator's own
	// socket win: NCCL keeps each GPU on its local NICs
	// (src/graph/topo.cc ncclTopoGetLocal), and NCCL_IB_HCA, the same on
	// every rank, cannot send it elsewhere; a NIC across sockets also loads
	// the inter-socket link, which the model does not share out, and the
	// model's figures are not finer than that (its read ranges span more).
	if best := values[lo]; best > 0 {
		floor := 0.0
		if best >= tier {
			floor = tier
		}
		if near, ok := assign(floor+(best-floor)*localityTolerance, true); ok {
			slots = near
		}
	}
	lowestEqualNICs(slots, capacity, len(nics), func(i, j, k int) bool {
		return w[i][j] == w[i][k] && lift[i][j] == lift[i][k] && near[i*len(nics)+j] == near[i*len(nics)+k] &&
			known[i][j] == known[i][k] && atMost[i][j] == atMost[i][k] && ownSocket[i*len(nics)+j] == ownSocket[i*len(nics)+k]
	})
	clear(load)
	for i, g := range gpus {
		j := slots[i] / capacity
		load[j]++
		as := Assignment{GPU: g, NIC: nics[j], ExpectedGbps: gbps[i][j], Known: known[i][j], AtMost: atMost[i][j], Mode: ModeHostStaged}
		if p := pred[i*len(nics)+j]; p != nil {
			as.Mode = mode(p)
		}
		pl.Assignments = append(pl.Assignments, as)
	}
	a.multiRail(pl.Assignments, nics, nicAt, path, gbps, known, atMost)
	for _, as := range pl.Assignments {
		pl.AtMost = pl.AtMost || as.AtMost && as.ExpectedGbps > 0
	}
	used := map[*topology.Device]bool{}
	for _, as := range pl.Assignments {
		used[as.NIC] = true
		for _, n := range as.MoreNICs {
			used[n] = true
		}
	}
	var plugin string
	if pl.NCCLIBHCA, plugin = ibHCA(nics, used); plugin != "" {
		pl.Notes = append(pl.Notes, plugin)
	}
	if hca.set && pl.NCCLIBHCA != "" {
		pl.NCCLIBHCA = hca.value // the job's own list, which NCCL reads on every rank
	} else if left := unplanned(nics, used); pl.NCCLIBHCA != "" && len(left) > 0 {
		pl.Notes = append(pl.Notes, fmt.Sprintf("NCCL_IB_HCA leaves out %s: the plan gives them no accelerator (a storage or second-fabric NIC, say); add them to the list for NCCL to use them too", strings.Join(left, ", ")))
	}
	// The plan places accelerators, the PCI functions with a path; what a
	// NIC's capacity is divided by is their ranks, one per compute partition.
	ranks := make([]int, len(nics)) // per NIC; -1 where a partition count is unknown
	for i := range pl.Assignments {
		as, j := &pl.Assignments[i], slots[i]/capacity
		as.Partitions = topology.ComputePartitions(as.GPU)
		switch {
		case as.Partitions == 0 || ranks[j] < 0:
			ranks[j] = -1
		default:
			ranks[j] += as.Partitions
		}
	}
	sum, unknown := 0.0, false
	for i := range pl.Assignments {
		as := &pl.Assignments[i]
		j := slots[i] / capacity
		as.Shared = max(cardLoad(a.g, nics, ranks, j), 0)
		onLink := max(linkLoad(nics, ranks, j), 0)
		if as.ShareGbps = shareOf(*as, pred[i*len(nics)+j], onLink); onLink > ranks[j] && linkBinds(*as, pred[i*len(nics)+j], onLink) {
			as.LinkShared = onLink
		}
		sum += as.ShareGbps
		unknown = unknown || as.ShareGbps <= 0
		if i == 0 || as.ShareGbps < pl.WorstGbps || as.ShareGbps == pl.WorstGbps && as.AtMost {
			pl.WorstGbps, pl.WorstAtMost = as.ShareGbps, as.AtMost && as.ExpectedGbps > 0
		}
		pl.Ranks[i].Vars = append(pl.Ranks[i].Vars, netVars(*as, pl.NCCLIBHCA)...)
	}
	if slices.ContainsFunc(pl.Assignments, func(as Assignment) bool { return as.Partitions != 1 }) {
		pl.Notes = append(pl.Notes, "an accelerator in compute partitions runs one rank per partition, all through its one PCI function and NIC: its settings are for every one of those ranks, and which local ranks they are the source does not tell")
	}
	pl.MeanGbps = sum / float64(len(pl.Assignments))
	if unknown { // a figure the source cannot give is not a zero to average
		pl.MeanGbps = 0
	}
	return pl
}

// shareOf is the figure of each of an assignment's ranks when every rank
// on its NIC sends at once: at most the accelerator's own figure over its
// partitions, the card's port rate over the ranks on the card (Shared: both
// halves of a Socket Direct card share one port) and the function's PCIe
// link over the ranks on the functions behind it (onLink: both ports of a
// dual-port card); where neither is known, its figure over Shared. An
// accelerator spread over several NICs (MoreNICs) has them to itself. 0
// where a partition count is unknown.
func shareOf(as Assignment, p *Prediction, onLink int) float64 {
	if as.Partitions == 0 || as.Shared == 0 || onLink == 0 {
		return 0 // how many ranks divide the NIC is unknown
	}
	x := max(as.ExpectedGbps, 0) / float64(as.Partitions)
	switch {
	case p == nil || len(as.MoreNICs) > 0 || x == 0:
	case p.portGbps > 0:
		x = min(x, p.portGbps/float64(as.Shared))
		if p.nicLinkGbps > 0 {
			x = min(x, p.nicLinkGbps/float64(onLink))
		}
		return x
	case p.nicLinkGbps > 0 && as.Shared == onLink:
		return min(x, p.nicLinkGbps/float64(onLink))
	}
	return max(as.ExpectedGbps, 0) / float64(as.Shared)
}

// linkBinds reports whether the NIC's PCIe link over the onLink ranks
// behind it is what bounds the assignment's share, below both its ranks'
// own figure and its port's share.
func linkBinds(as Assignment, p *Prediction, onLink int) bool {
	if p == nil || len(as.MoreNICs) > 0 || p.nicLinkGbps <= 0 || as.ExpectedGbps <= 0 || as.Partitions == 0 || as.Shared == 0 {
		return false
	}
	link := p.nicLinkGbps / float64(onLink)
	return link < as.ExpectedGbps/float64(as.Partitions) && (p.portGbps <= 0 || link < p.portGbps/float64(as.Shared))
}

// lowestEqualNICs moves each accelerator that has its NIC alone to the
// lowest unused NIC that is equal for it in every respect (equal(i, j, k):
// NIC k is as NIC j for accelerator i), in accelerator order: the
// assignment's order term (max Σ i·j) sends an accelerator with several
// equal NICs (AWS p5's four EFA NICs under each GPU's switch) to the last,
// where the first reads as NCCL's and the operator's choice. slots are
// plan's (NIC j's k-th accelerator is slot j·capacity+k).
func lowestEqualNICs(slots []int, capacity, nics int, equal func(i, j, k int) bool) {
	load := make([]int, nics)
	for _, sl := range slots {
		load[sl/capacity]++
	}
	for i, sl := range slots {
		j := sl / capacity
		if load[j] != 1 {
			continue
		}
		for k := 0; k < j; k++ {
			if load[k] == 0 && equal(i, j, k) {
				load[j], load[k] = 0, 1
				slots[i] = k * capacity
				break
			}
		}
	}
}

// multiRail gives each planned accelerator the further NICs NCCL spreads
// its channels over (src/graph/topo.cc, ncclTopoGetLocalNetType under the
// default NCCL_NETDEVS_POLICY=AUTO): its local NICs are those of its
// nearest NCCL path type with the highest throughput (known: where no
// figure is, nothing says the NICs are alike), and it uses
// ceil(local NICs / accelerators local to the first of them), as on AWS
// p5 (four 100 Gb/s EFA NICs under each H100's switch). Only NICs no other
// accelerator is planned on are added, in address order. The figure
// becomes the sum over its NICs, capped by the accelerator's own link, as
// ncclTopoGetLocalNetCountByBw stops adding NICs at the GPU's bandwidth.
//
// path is NCCL's path type of each [accelerator][NIC] cell (ncclRank, -1
// unknown), the matrices are plan's.
func (a *analysis) multiRail(as []Assignment, nics []*topology.Device, nicAt map[*topology.Device]int, path []int, gbps [][]float64, known, atMost [][]bool) {
	if len(nics) <= len(as) {
		return
	}
	n := len(nics)
	local := make([][]int, len(as)) // [accelerator] the indices of its local NICs
	for i := range as {
		rank := path[i*n : (i+1)*n]
		best, top := -1, 0.0
		for j, r := range rank {
			if r >= 0 && (best < 0 || r < best || r == best && gbps[i][j] > top) {
				best, top = r, gbps[i][j]
			}
		}
		for j := range nics {
			if top > 0 && rank[j] == best && gbps[i][j] == top { // equal unknown figures are not equal throughput
				local[i] = append(local[i], j)
			}
		}
	}
	taken := make([]bool, n)
	for _, x := range as {
		taken[nicAt[x.NIC]] = true
	}
	for i := range as {
		if len(local[i]) < 2 || !slices.Contains(local[i], nicAt[as[i].NIC]) {
			continue // one local NIC, or the plan put it elsewhere: not where NCCL spreads
		}
		sharers := 0 // accelerators the first local NIC is local to
		for k := range as {
			if slices.Contains(local[k], local[i][0]) {
				sharers++
			}
		}
		per := (len(local[i]) + sharers - 1) / sharers
		for _, j := range local[i] {
			if len(as[i].MoreNICs)+1 >= per {
				break
			}
			if !taken[j] {
				taken[j] = true
				as[i].MoreNICs = append(as[i].MoreNICs, nics[j])
				as[i].ExpectedGbps += gbps[i][j]
				as[i].Known = as[i].Known && known[i][j]
				as[i].AtMost = as[i].AtMost || atMost[i][j]
			}
		}
		if len(as[i].MoreNICs) > 0 {
			if own, _, _ := a.narrowest(upLinks(as[i].GPU, as[i].GPU.Parent)); own > 0 && as[i].ExpectedGbps > own {
				as[i].ExpectedGbps = own
			}
		}
	}
}

// indexOf maps each of ds to its index.
func indexOf(ds []*topology.Device) map[*topology.Device]int {
	out := make(map[*topology.Device]int, len(ds))
	for i, d := range ds {
		out[d] = i
	}
	return out
}

// rows cuts flat into rows of n.
func rows[T any](flat []T, n int) [][]T {
	out := make([][]T, 0, len(flat)/max(n, 1))
	for len(flat) >= n && len(flat) > 0 {
		out, flat = append(out, flat[:n:n]), flat[n:]
	}
	return out
}

// hungarianWork holds the Hungarian method's working arrays, for solving
// several matrices of one size without making them again.
type hungarianWork struct {
	u, v, minv []int64
	p, way     []int
	used       []bool
}

// solve returns, for each row of an n×m cost matrix (n ≤ m), the column
// of a minimum-cost assignment (Kuhn-Munkres with potentials, O(n²m)); the
// result is a slice of its own.
func (w *hungarianWork) solve(cost [][]int64) []int {
	n, m := len(cost), len(cost[0])
	const inf = math.MaxInt64 / 4
	if len(w.v) != m+1 || len(w.u) != n+1 {
		w.u, w.v, w.minv = make([]int64, n+1), make([]int64, m+1), make([]int64, m+1)
		w.p, w.way, w.used = make([]int, m+1), make([]int, m+1), make([]bool, m+1)
	} else {
		clear(w.u)
		clear(w.v)
		clear(w.p)
		clear(w.way)
	}
	u, v, p, way, minv, used := w.u, w.v, w.p, w.way, w.minv, w.used
	for i := 1; i <= n; i++ {
		p[0] = i
		j0 := 0
		clear(used)
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

// topoFileNote says how NCCL gets a provider's topology file, without
// which the plan is not NCCL's: aws-ofi-nccl sets NCCL_TOPO_FILE to its own
// file on the instance types it knows (src/platform-aws.cpp: "Running on
// %s platform, Setting NCCL_TOPO_FILE environment variable to %s");
// elsewhere the job sets it (Azure's HPC images in /etc/nccl.conf).
func topoFileNote(g *topology.Graph) string {
	if slices.ContainsFunc(g.Devices, func(d *topology.Device) bool { return netPlugin(d) != "" }) { // EFA, by IDs or rdma* names
		return "a provider's topology file: this plan is NCCL's as the file tells it, which aws-ofi-nccl gives NCCL itself on the instance types it knows (an NCCL_DEBUG=INFO log says \"Setting NCCL_TOPO_FILE environment variable to ...\")"
	}
	return "a provider's topology file: this plan is NCCL's only with NCCL_TOPO_FILE set to this file on every rank (Azure's HPC images set it in /etc/nccl.conf); without it NCCL reads the VM's own PCI tree, not the places this file gives"
}

// unplanned names the RDMA devices of the rails no assignment uses, which
// the plan's NCCL_IB_HCA therefore leaves out.
func unplanned(nics []*topology.Device, used map[*topology.Device]bool) []string {
	var out []string
	for _, n := range nics {
		if !used[n] && len(n.RDMA) > 0 && netPlugin(n) == "" {
			out = append(out, n.RDMA[0])
		}
	}
	return out
}
