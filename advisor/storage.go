package advisor

import "github.com/gdtopo/gdtopo/topology"

// GPUDirect Storage routes.
const (
	RouteSwitch      = "in the switch"
	RouteRootComplex = "through the root complex"
	RouteNUMA        = "across NUMA nodes of one socket"
	RouteSockets     = "across sockets"
	// RouteNodesSocketUnknown: across NUMA nodes whose sockets the source
	// does not give (an NCCL topology's CPU nodes): one socket's fabric or
	// the CPU interconnect.
	RouteNodesSocketUnknown = "across NUMA nodes, sockets unknown"
	RouteUnknown            = "unknown" // the source does not show where the path turns (plain lspci, NUMA nodes unknown)
)

// StoragePrediction is one accelerator-NVMe pair for GPUDirect Storage.
type StoragePrediction struct {
	// Pair is what the prediction keeps of the pair's classification
	// (topology.Graph.StoragePairs): a large machine has tens of thousands
	// of these pairs, and each whole topology.Pair is 160 bytes.
	Pair StoragePair
	// Route says where the peer-to-peer reads turn: RouteSwitch (PIX,
	// PXB), RouteRootComplex (PHB, NODE), RouteNUMA, RouteSockets or
	// RouteNodesSocketUnknown (SYS), RouteUnknown where the source cannot
	// tell.
	Route string
	// ExpectedGbps is the slowest current PCIe link on the path
	// (topology.DataGbps): the drive's own link, usually. 0 when unknown.
	ExpectedGbps float64
	Note         string
}

// StoragePair is an accelerator-NVMe pair's ends and nvidia-smi label, as
// topology.Pair gives them.
type StoragePair struct {
	A, B *topology.Device // the accelerator, the NVMe drive
	SMI  topology.Label
	Path string
	// LabelUncertain is topology.Pair.LabelUncertain: SMI is a guess,
	// printed with "?" as the matrix prints it.
	LabelUncertain bool
}

// predictStorage labels every accelerator-NVMe pair. NVIDIA's GPUDirect
// Storage design guide and best-practices guide ask for the GPU and its
// drives under one PCIe switch; P2P through the CPU's root complex is
// bounded by the root complex, and across sockets by the CPU interconnect.
func (a *analysis) predictStorage() {
	if a.eachStorage == nil {
		n := len(a.g.OfKind(topology.KindAccelerator)) * len(a.g.OfKind(topology.KindNVMe))
		a.storage = make([]StoragePrediction, 0, n)
	}
	a.storageNear, a.storageKnown = map[*topology.Device]bool{}, map[*topology.Device]bool{}
	for p := range a.g.EachStoragePair() {
		sp := StoragePrediction{Pair: StoragePair{A: p.A, B: p.B, SMI: p.SMI, Path: p.Path, LabelUncertain: p.LabelUncertain}, ExpectedGbps: p.BottleneckGbps}
		tr, known, _ := a.translating(p.A)
		iommu := tr && known
		switch {
		case p.SMI == topology.Unknown:
			sp.Route, sp.Note = RouteUnknown, noteUnknown
		case p.LabelUncertain && p.SMI == topology.NODE:
			// A guessed NODE is SYS where the ends' NUMA nodes differ
			// (topology's smiLabel); a guessed PHB (PHB or NODE) turns in
			// the root complex either way.
			sp.Route, sp.Note = RouteUnknown, noteGuessed
		case p.SMI == topology.PIX || p.SMI == topology.PXB:
			sp.Route, sp.Note = RouteSwitch, pick(iommu, noteSwitch+noteIOMMU, noteSwitch)
		case p.SMI == topology.SYS && p.Path == topology.PathNUMANodes:
			sp.Route, sp.Note = RouteNUMA, pick(iommu, noteNUMA+noteIOMMU, noteNUMA)
		case p.SMI == topology.SYS && p.Path == topology.PathNodesSocketUnknown:
			sp.Route, sp.Note = RouteNodesSocketUnknown, pick(iommu, noteNodes+noteIOMMU, noteNodes)
		case p.SMI == topology.SYS:
			sp.Route, sp.Note = RouteSockets, pick(iommu, noteSockets+noteIOMMU, noteSockets)
		default:
			sp.Route, sp.Note = RouteRootComplex, pick(iommu, noteRootComplex+noteIOMMU, noteRootComplex)
		}
		if sp.Route == RouteSwitch {
			a.storageNear[p.A] = true
		}
		if p.SMI != topology.Unknown { // a guessed NODE is still outside the switch
			a.storageKnown[p.A] = true
		}
		if a.eachStorage != nil {
			a.eachStorage(sp)
		} else {
			a.storage = append(a.storage, sp)
		}
	}
}

// The notes of predictStorage, spelled out whole so that tens of
// thousands of pairs share them.
const (
	noteSwitch      = "peer-to-peer stays below the PCIe switch, as the GDS design guide recommends"
	noteNUMA        = "peer-to-peer crosses the socket's fabric between NUMA nodes: use a drive of the GPU's NUMA node"
	noteSockets     = "peer-to-peer crosses the CPU interconnect: use a drive on the GPU's socket"
	noteNodes       = "peer-to-peer crosses NUMA nodes, over one socket's fabric or the CPU interconnect (the source does not say which): use a drive of the GPU's NUMA node"
	noteRootComplex = "peer-to-peer turns in the CPU's root complex, which bounds its bandwidth"
	noteUnknown     = "the source shows no PCI hierarchy for this pair: where its reads turn is not known"
	noteGuessed     = "the label is a guess (the source does not give both ends' NUMA nodes): its reads turn in the root complex if they share one, else cross NUMA nodes or sockets"
	noteIOMMU       = "; the IOMMU translates the GPU's DMA: on x86, GDS wants it off or in passthrough (GDS best practices)"
)

// pick returns yes when cond holds, else no.
func pick(cond bool, yes, no string) string {
	if cond {
		return yes
	}
	return no
}

// findStorage reports accelerators with no drive under their own switch
// on a machine where other accelerators have one: GDS works unevenly there.
func (a *analysis) findStorage() {
	near, known := a.storageNear, a.storageKnown
	if len(near) == 0 {
		return
	}
	var g group
	for _, d := range a.g.OfKind(topology.KindAccelerator) {
		if !near[d] && known[d] {
			g.add([]*topology.Device{d}, d.BDF(), RemedyStep{}, "labels of the accelerator–NVMe pairs (nvidia-smi semantics)")
		}
	}
	a.emit("gds-no-local-nvme", Info, &g,
		"GPUDirect Storage: %s have no NVMe drive under their own PCIe switch while other accelerators do: their reads go through the root complex or across sockets",
		[]RemedyStep{manual("place the data these accelerators read on drives under their switch, or pin their jobs to the accelerators that have one",
			"GDS design guide; gdscheck -p shows the same pairs")}, nil)
}
