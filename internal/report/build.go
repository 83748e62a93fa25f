package report

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/gdtopo/gdtopo/advisor"
	"github.com/gdtopo/gdtopo/internal/words"
	"github.com/gdtopo/gdtopo/topology"
)

// Input is what Build reads: a source's graph, its labelled pairs and the
// advisor's result for them.
type Input struct {
	Source Source
	Graph  *topology.Graph
	Pairs  []topology.Pair // every accelerator and NIC pair (Graph.Pairs)
	Advice *advisor.Result
	FailOn string // critical, warning, info or never
	// NoHops leaves every pair's hops out, for an output that shows none
	// (check's plain table, -o jsonl): they are most of a report.
	NoHops bool
	// StorageTally, when set, holds the accelerator-NVMe pairs tallied as
	// the advisor made them (advisor.Options.EachStorage), for an output
	// that shows no more (check's plain table): the report keeps the tally
	// in place of the pairs, and Advice.Storage is not read.
	StorageTally *StorageTally
	// NamedDevicesOnly keeps only the devices with a table name (GPU0,
	// NIC0), and any of the same address, for an output that shows no
	// other (check's plain table).
	NamedDevicesOnly bool
	// NVSMI is the host's nvidia-smi topo -m against the tree (NVSMI
	// builds it); nil when none was given.
	NVSMI *NVSMICheck
	// NCCLEnv are the NCCL variables the advisor was given, each with
	// where it came from (the environment, --nccl-env).
	NCCLEnv []NCCLVar
}

// Build makes the report of one source. It is the one place that decides
// what every format shows: the findings and their exit status, each
// accelerator's best NIC, and which NICs the tables show.
func Build(in Input) *Report {
	g := in.Graph
	r := &Report{Source: in.Source, Graph: g, FailOn: in.FailOn, NVSMI: in.NVSMI, NCCLEnv: in.NCCLEnv,
		HostBridges: make([]HostBridge, 0, len(g.HostBridges)), Accelerators: []Accelerator{},
		NICs: []string{}, HiddenNICs: []string{}, Pairs: make([]Pair, 0, len(in.Pairs)),
		Warnings: make([]Warning, 0, len(g.Warnings)), Lacks: append(append(append([]string{}, g.Lacks...), unidentifiedLacks(g)...), nicNumberingLacks(g)...), Findings: []Finding{},
		Plan: Plan{Assignments: []Assignment{}, Ranks: []Rank{}}}
	r.System = system(g.System)
	if g.Platform.IOMMUClassRead {
		n := len(g.Platform.IOMMUs)
		r.System.IOMMUUnits = &n
	}
	r.Summary = summary(g)
	for _, hb := range g.HostBridges {
		r.HostBridges = append(r.HostBridges, HostBridge{Name: hb.Name, NUMANode: hb.NUMANode, Socket: hb.Socket, Devices: bdfs(hb.Devices)})
	}
	adv := in.Advice
	in.Advice = nil // adv alone holds the advice, so that the copy below lets its storage pairs go
	if adv == nil {
		adv = &advisor.Result{}
	}
	if in.StorageTally != nil {
		r.StoragePairs, r.storage, r.storageTallied = []StoragePair{}, in.StorageTally.rows, true
	} else {
		r.StoragePairs = make([]StoragePair, 0, len(adv.Storage))
		for _, sp := range adv.Storage {
			r.StoragePairs = append(r.StoragePairs, storagePair(sp))
		}
	}
	// The rest needs no storage pair: a copy of the advice without them
	// lets a large machine's go before the devices are made.
	rest := *adv
	rest.Storage = nil
	adv = &rest
	aliases := Aliases(g)
	ids := hexIDs{}
	keep := func(*topology.Device) bool { return true }
	kept := len(g.Devices)
	if in.NamedDevicesOnly {
		named := make(map[string]bool, len(aliases))
		for d := range aliases {
			named[d.BDF()] = true
		}
		keep = func(d *topology.Device) bool { return named[d.BDF()] }
		kept = 0
		for _, d := range g.Devices {
			if keep(d) {
				kept++
			}
		}
		r.functions, r.namedDevicesOnly = len(g.Devices), true
	}
	r.Devices = make([]Device, 0, kept)
	for _, d := range g.Devices {
		if keep(d) {
			r.Devices = append(r.Devices, device(g, d, aliases[d], ids))
		}
	}
	shown, hidden := ShownNICs(g)
	r.NICs, r.HiddenNICs = bdfs(computeOnly(shown, adv.SetAside)), bdfs(hidden)
	r.SetAsideNICs = make([]SetAsideNIC, 0, len(adv.SetAside))
	for _, n := range adv.SetAside {
		r.SetAsideNICs = append(r.SetAsideNICs, SetAsideNIC{NIC: n.NIC.BDF(), Reason: n.Reason})
	}
	// Every pair's kinds and hops are cut from one array each: two
	// allocations instead of two a pair. The pairs may come without their
	// hops (Graph.PairsWithoutHops): each pair's are then worked out into
	// one scratch slice, reused pair after pair, once to count them and
	// once to convert them.
	kinds, nhops := make([]string, 2*len(in.Pairs)), 0
	var scratch []topology.Hop
	if !in.NoHops {
		for _, p := range in.Pairs {
			scratch = g.AppendHops(scratch[:0], p)
			nhops += len(scratch)
		}
	}
	hops := make([]Hop, 0, nhops)
	preds := predictionsOf{all: adv.Predictions}
	predSlab := make([]Prediction, len(adv.Predictions)) // a pair has one at most
	for i, p := range in.Pairs {
		var ph []topology.Hop
		if !in.NoHops {
			scratch = g.AppendHops(scratch[:0], p)
			ph = scratch
		}
		n := len(hops)
		out := pair(p, ph, kinds[2*i:2*i:2*i+2], hops[n:n:cap(hops)], in.NoHops)
		hops = hops[:n+len(out.Hops)]
		if pr := preds.of(p); pr != nil {
			if len(predSlab) == 0 { // a pair given twice
				predSlab = make([]Prediction, 1)
			}
			out.Prediction = &predSlab[0]
			predSlab = predSlab[1:]
			prediction(pr, out.Prediction)
			if pr.PXNVia != nil {
				// NCCL's path to the NIC is PXN: through the peer over NVLink
				// (src/graph/paths.cc, addInterStep); nvidia-smi's label stays.
				out.NCCL, out.NCCLUncertain = "PXN", false
				out.Notes = append(out.Notes, "NCCL reaches this NIC through "+pr.PXNVia.BDF()+" over NVLink (PXN) and judges GPUDirect RDMA by that accelerator's distance to it")
			}
		}
		r.Pairs = append(r.Pairs, out)
	}
	r.NCCLVersion = adv.NCCLVersion
	r.Findings = make([]Finding, 0, len(adv.Findings))
	for _, f := range adv.Findings {
		r.Findings = append(r.Findings, finding(f))
		switch f.Severity {
		case advisor.Critical:
			r.Counts.Critical++
		case advisor.Warning:
			r.Counts.Warning++
		default:
			r.Counts.Info++
		}
	}
	r.index()
	r.Plan = plan(adv.Plan)
	r.Accelerators = accelerators(g, aliases, adv.Plan, r)
	for _, w := range g.Warnings {
		r.Warnings = append(r.Warnings, Warning{Subject: w.Subject, Message: w.Message})
	}
	sortWarnings(r.Warnings)
	if r.Failing() > 0 {
		r.ExitStatus = ExitFindings
	}
	return r
}

// storagePair is the report's row of the advisor's storage prediction.
func storagePair(sp advisor.StoragePrediction) StoragePair {
	return StoragePair{Accelerator: sp.Pair.A.BDF(), NVMe: sp.Pair.B.BDF(), SMI: string(sp.Pair.SMI),
		Path: sp.Pair.Path, Route: sp.Route, BottleneckGbps: Round(sp.ExpectedGbps), Note: sp.Note,
		LabelUncertain: sp.Pair.LabelUncertain || sp.Pair.SMI == topology.Unknown}
}

// sortWarnings puts the reader's warnings in one order whatever the
// reader and however many: by kind (the message with its PCI addresses
// masked, as check groups them), then by the address or file they are
// about, then by message. Alike warnings sit together, in address order.
func sortWarnings(ws []Warning) {
	type keyed struct {
		kind string
		at   topology.BDF
		isAt bool
		w    Warning
	}
	ks := make([]keyed, len(ws))
	for i, w := range ws {
		ks[i] = keyed{kind: pciAddress.ReplaceAllString(w.Message, "…"), w: w}
		head, _, _ := strings.Cut(w.Subject, "/")
		if a, err := topology.ParseBDF(head); err == nil && strings.Count(head, ":") == 2 {
			ks[i].at, ks[i].isAt = a, true
		}
	}
	sort.SliceStable(ks, func(i, j int) bool {
		a, b := &ks[i], &ks[j]
		switch {
		case a.kind != b.kind:
			return a.kind < b.kind
		case a.isAt && b.isAt && a.at != b.at:
			return a.at.Less(b.at)
		case a.isAt != b.isAt:
			return a.isAt // devices before files and folders
		case a.w.Subject != b.w.Subject:
			return a.w.Subject < b.w.Subject
		}
		return a.w.Message < b.w.Message
	})
	for i := range ks {
		ws[i] = ks[i].w
	}
}

// accelerators lists every accelerator with the NIC the rail plan gives it.
func accelerators(g *topology.Graph, aliases map[*topology.Device]string, pl advisor.Plan, r *Report) []Accelerator {
	nicOf := make(map[*topology.Device]advisor.Assignment, len(pl.Assignments))
	for _, a := range pl.Assignments {
		nicOf[a.GPU] = a
	}
	accels := g.OfKind(topology.KindAccelerator)
	out := make([]Accelerator, 0, len(accels))
	for _, d := range accels {
		a := Accelerator{BDF: d.BDF(), Alias: aliases[d], CPUAffinity: d.LocalCPUs, NUMAAffinity: d.NUMANode, NUMAFrom: d.NUMAFrom}
		if as, ok := nicOf[d]; ok && as.NIC != nil {
			a.BestNIC, a.BestNICAlias, a.BestNICName = as.NIC.BDF(), aliases[as.NIC], NICName(as.NIC)
			a.ExpectedGbps, a.ExpectedAtMost, a.ExpectedMode = Round(as.ExpectedGbps), as.AtMost && as.ExpectedGbps > 0, as.Mode
			if p := r.Pair(a.BDF, a.BestNIC); p != nil {
				a.BestPath = Label(p)
				a.GDR = p.Prediction != nil && p.Prediction.GDR
				a.GDRUndecided = p.Prediction != nil && p.Prediction.GDRUndecided
			}
		}
		out = append(out, a)
	}
	return out
}

// Aliases numbers accelerators GPU0.. in address order, as nvidia-smi does
// with CUDA_DEVICE_ORDER=PCI_BUS_ID, and NICs NIC0.. the shown ones first,
// then the hidden (ShownNICs), as nvidia-smi numbers its RDMA devices.
// Virtual functions get none.
func Aliases(g *topology.Graph) map[*topology.Device]string {
	accels := g.OfKind(topology.KindAccelerator)
	shown, hidden := ShownNICs(g)
	out := make(map[*topology.Device]string, len(accels)+len(shown)+len(hidden))
	for i, d := range accels {
		out[d] = "GPU" + strconv.Itoa(i)
	}
	for i, d := range append(shown, hidden...) {
		out[d] = "NIC" + strconv.Itoa(i)
	}
	return out
}

// SplitNICs separates NICs with an RDMA device from the others, each in
// address order.
func SplitNICs(g *topology.Graph) (rdma, plain []*topology.Device) {
	for _, d := range g.OfKind(topology.KindNIC) {
		if len(d.RDMA) > 0 {
			rdma = append(rdma, d)
		} else {
			plain = append(plain, d)
		}
	}
	return rdma, plain
}

// ShownNICs are the NICs the tables show: the RDMA-capable ones when the
// source names any (GPUDirect RDMA needs one; nvidia-smi shows only those);
// where it shows no RDMA devices (lspci), those whose model has an RDMA
// engine, then those it cannot tell (NICsByModel); else every NIC. hidden
// are the rest.
func ShownNICs(g *topology.Graph) (shown, hidden []*topology.Device) {
	rdma, plain := SplitNICs(g)
	if len(rdma) == 0 && !g.System.RDMAListed {
		// As nvidia-smi shows only RDMA devices, NICs whose model has
		// none are left out, unless every NIC is such.
		byModel := NICsByModel(plain)
		i := slices.IndexFunc(byModel, func(n *topology.Device) bool {
			has, _ := topology.RDMAByModel(n)
			return has == topology.RDMAEngineNo
		})
		if i <= 0 {
			return byModel, nil
		}
		return byModel[:i:i], byModel[i:]
	}
	if len(rdma) == 0 {
		return plain, nil
	}
	return rdma, plain
}

// NICsByModel orders NICs as nvidia-smi would number their RDMA devices
// where the source shows none: those whose model has an RDMA engine
// (topology.RDMAByModel), then those whose model does not tell, then
// those without one, each group in address order.
func NICsByModel(nics []*topology.Device) []*topology.Device {
	out := make([]*topology.Device, 0, len(nics))
	for _, want := range []topology.RDMAEngine{topology.RDMAEngineYes, topology.RDMAEngineUnknown, topology.RDMAEngineNo} {
		for _, n := range nics {
			if has, _ := topology.RDMAByModel(n); has == want {
				out = append(out, n)
			}
		}
	}
	return out
}

// nicNumberingLacks is the summary's line where the source shows no RDMA
// devices and a NIC's model does not tell whether it has one: nvidia-smi
// numbers NICs over RDMA devices alone, so the numbering may differ.
func nicNumberingLacks(g *topology.Graph) []string {
	rdma, plain := SplitNICs(g)
	if len(rdma) > 0 || g.System.RDMAListed || len(plain) == 0 || g.TextForm == "" { // a sysfs capture's reader says it lacks the RDMA class
		return nil
	}
	var unsure []string
	for _, n := range plain {
		if has, _ := topology.RDMAByModel(n); has == topology.RDMAEngineUnknown {
			unsure = append(unsure, n.BDF())
		}
	}
	if len(unsure) == 0 {
		return nil
	}
	return []string{fmt.Sprintf("RDMA devices (nvidia-smi numbers NICs over them: NIC0.. here are the NICs whose model has RDMA first; whether %s %s one the source does not tell, so the numbering may differ from nvidia-smi's)",
		strings.Join(unsure, ", "), map[bool]string{true: "has", false: "have"}[len(unsure) == 1])}
}

// NICName is a NIC's RDMA name, else its first network interface, else "".
func NICName(d *topology.Device) string {
	if len(d.RDMA) > 0 {
		return d.RDMA[0]
	}
	if len(d.Netdevs) > 0 {
		return d.Netdevs[0]
	}
	return ""
}

// Round rounds a throughput or ratio for the report: three decimals, so
// 0.43200000000000005 is 0.432 and no measured figure loses a digit.
func Round(v float64) float64 { return math.Round(v*1000) / 1000 }

func system(s topology.System) System {
	out := System{Hostname: s.Hostname, CPUVendor: s.CPUVendor, CPUModel: s.CPUModel, CPUFamily: s.CPUFamily,
		CPUModelID: s.CPUModelID, Sockets: s.Sockets, LogicalCPUs: s.LogicalCPUs, NUMANodes: make([]NUMANode, 0, len(s.NUMANodes))}
	if s.CmdlineRead {
		c := s.Cmdline
		out.Cmdline = &c
	}
	for _, n := range s.NUMANodes {
		out.NUMANodes = append(out.NUMANodes, NUMANode{ID: n.ID, CPUs: n.CPUs, Distances: nonNilInts(n.Distances), Socket: n.Socket, MemoryOnly: n.MemoryOnly})
	}
	return out
}

// hexDigits formats v as fmt's %0Nx does for N = width, without fmt: a
// report formats four or five IDs of each of an 8-GPU server's 72 functions.
func hexDigits(v uint32, width int) string {
	const digits = "0123456789abcdef"
	if width > 8 || width < 8 && v>>(4*width) != 0 {
		return fmt.Sprintf("%0*x", width, v)
	}
	var b [8]byte
	for i := width - 1; i >= 0; i, v = i-1, v>>4 {
		b[i] = digits[v&0xf]
	}
	return string(b[:width])
}

// hexIDs holds the hex spellings of class codes and IDs made so far: a
// machine's functions share a few dozen, so each is made once.
type hexIDs map[uint64]string

// get is hexDigits(v, width), made once per value and width.
func (h hexIDs) get(v uint32, width int) string {
	k := uint64(width)<<32 | uint64(v)
	s, ok := h[k]
	if !ok {
		s = hexDigits(v, width)
		h[k] = s
	}
	return s
}

func device(g *topology.Graph, d *topology.Device, alias string, ids hexIDs) Device {
	out := Device{
		BDF: d.BDF(), Alias: alias, Kind: string(d.Kind), Role: string(d.Role),
		Class: ids.get(d.Class, 6), VendorID: ids.get(uint32(d.VendorID), 4), DeviceID: ids.get(uint32(d.DeviceID), 4),
		Name: d.Name, NUMANode: d.NUMANode, NUMAFrom: d.NUMAFrom, LocalCPUs: d.LocalCPUs,
		Driver: d.Driver, IOMMUGroup: d.IOMMUGroup, PhysFn: d.PhysFn(), PortRateGbps: Round(d.PortRateGbps),
		ConfigBytes: d.ConfigLen, RDMA: nonNil(d.RDMA), Netdev: nonNil(d.Netdevs), Children: bdfs(d.Children),
		Positional: d.Positional(), PlaceUnknown: d.PlaceUnknown,
		Link: Link{MaxGTs: d.Link.MaxGTs, MaxWidth: d.Link.MaxWidth},
	}
	out.Link.CurrentGTs, out.Link.CurrentWidth = knownLink(d.Link)
	out.Bond, out.ComputePartition, out.MemoryPartition = d.Bond, d.ComputePartition(), d.MemoryPartition()
	out.Ports, out.AER = ports(d), aer(d)
	out.Unidentified = d.Unidentified
	if d.Kind == topology.KindBridge {
		out.ACS = ACSState(d)
	}
	if d.IOMMUGroup != "" {
		out.IOMMUType = g.Platform.IOMMUGroupTypes[d.IOMMUGroup]
	}
	for _, p := range g.SocketDirectPeers(d) {
		out.SocketDirectPeers = append(out.SocketDirectPeers, p.BDF())
	}
	if d.SubsystemKnown {
		out.SubsystemVendorID, out.SubsystemDeviceID = ids.get(uint32(d.SubVendorID), 4), ids.get(uint32(d.SubDeviceID), 4)
	}
	if d.Parent != nil {
		out.Parent = d.Parent.BDF()
	}
	if d.HostBridge != nil {
		out.HostBridge = d.HostBridge.Name
	}
	return out
}

func bdfs(ds []*topology.Device) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.BDF()
	}
	return out
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func nonNilInts(s []int) []int {
	if s == nil {
		return []int{}
	}
	return s
}

// pair converts p, whose hops are ph (p.Hops, or those Graph.AppendHops
// gives). kinds and hops are empty slices with room for its two kinds and
// its hops, cut from arrays Build shares among the pairs; nil gives the
// pair its own.
func pair(p topology.Pair, ph []topology.Hop, kinds []string, hops []Hop, noHops bool) Pair {
	out := Pair{A: p.A.BDF(), B: p.B.BDF(), Kinds: append(kinds, string(p.A.Kind), string(p.B.Kind)),
		SMI: string(p.SMI), PCIeSMI: string(p.PCIeSMI), NCCL: string(p.NCCL), Path: p.Path, BottleneckGbps: Round(p.BottleneckGbps),
		Notes: nonNil(p.Notes), Hops: []Hop{}, C2C: p.C2C}
	if p.SMI == topology.XGMI && p.NCCL == topology.NVL {
		out.NCCL = string(topology.XGMI) // RCCL's name for the path type (ROCm/rccl src/graph/topo.cc, topoPathTypeStr)
	}
	// Decided once here, for every renderer: a label the source cannot
	// tell ("?") is uncertain, and NCCL's label shares the path's doubt.
	out.LabelUncertain = p.LabelUncertain || p.SMI == topology.Unknown
	out.PCIeSMIUncertain = p.PCIeSMI != "" && (p.PCIeSMIUncertain || p.PCIeSMI == topology.Unknown)
	out.NCCLUncertain = p.NCCLUncertain || p.LabelUncertain || p.NCCL == topology.Unknown
	if p.DataDirect != nil {
		out.DataDirect = p.DataDirect.BDF()
	}
	if noHops {
		return out
	}
	if hops != nil {
		out.Hops = hops[:0:len(ph)]
	} else {
		out.Hops = make([]Hop, 0, len(ph))
	}
	for _, h := range ph {
		gts, width := knownLink(h.Link)
		out.Hops = append(out.Hops, Hop{From: h.From, To: h.To, Kind: string(h.Kind),
			CurrentGTs: gts, CurrentWidth: width, Gbps: Round(h.Gbps), OffPath: h.OffPath, AtMax: h.Link.MaxOnly})
	}
	return out
}

// knownLink is a link's current generation and width, zeros where the
// source gave its data rate alone (Link.RateOnly): JSON states no
// generation the source did not.
func knownLink(l topology.Link) (gts float64, width int) {
	if l.RateOnly {
		return 0, 0
	}
	return l.CurrentGTs, l.CurrentWidth
}

// predictionsOf finds the advisor's prediction of a pair. Analyze predicts
// the pairs in the order Build is given them, so the next prediction is
// the one a pair has, if any; a map of them all is made only for pairs
// out of that order.
type predictionsOf struct {
	all    []advisor.Prediction
	next   int
	byEnds map[[2]*topology.Device]*advisor.Prediction
}

// of returns p's prediction, nil when it has none.
func (po *predictionsOf) of(p topology.Pair) *advisor.Prediction {
	if po.next < len(po.all) && po.all[po.next].GPU == p.A && po.all[po.next].NIC == p.B {
		po.next++
		return &po.all[po.next-1]
	}
	if po.byEnds == nil {
		po.byEnds = make(map[[2]*topology.Device]*advisor.Prediction, len(po.all))
		for i, pr := range po.all {
			po.byEnds[[2]*topology.Device{pr.GPU, pr.NIC}] = &po.all[i]
		}
	}
	return po.byEnds[[2]*topology.Device{p.A, p.B}]
}

// prediction converts p into out.
func prediction(p *advisor.Prediction, out *Prediction) {
	*out = Prediction{ExpectedGbps: Round(p.ExpectedGbps), NICGbps: Round(p.NICGbps), Efficiency: Round(p.Efficiency),
		ExpectedWriteGbps: Round(p.ExpectedWriteGbps), ExpectedReadGbps: Round(p.ExpectedReadGbps),
		ExpectedWriteMaxGbps: Round(p.ExpectedWriteMaxGbps), ExpectedReadMaxGbps: Round(p.ExpectedReadMaxGbps), PathGbps: Round(p.PathGbps),
		PathNote: p.PathNote, GDR: p.GDR, GDRRead: p.GDRRead, GDRReason: p.GDRReason, GDRUnknown: p.GDRUnknown, GDRUndecided: p.GDRUndecided, GDRSetBy: p.GDRSetBy, GDRMechanism: p.GDRMechanism,
		PXNVia:         bdfOf(p.PXNVia),
		HostStagedGbps: Round(p.HostStagedGbps), AtMost: p.AtMost,
		Assumed: nonNil(p.Uncertain), Steps: make([]Step, 0, len(p.Explain))}
	for _, s := range p.Explain {
		out.Steps = append(out.Steps, Step{What: s.What, Value: math.Round(s.Value*1e4) / 1e4, Unit: s.Unit, Source: s.Source})
	}
}

// bdfOf is d's address, "" for nil.
func bdfOf(d *topology.Device) string {
	if d == nil {
		return ""
	}
	return d.BDF()
}

func finding(f advisor.Finding) Finding {
	out := Finding{Code: f.Code, Severity: string(f.Severity), Devices: nonNil(f.Devices), Message: f.Message,
		Evidence: f.Evidence, Remedy: make([]RemedyStep, 0, len(f.Remedy))}
	for _, s := range f.Remedy {
		out.Remedy = append(out.Remedy, RemedyStep{Kind: string(s.Kind), Text: s.Text, Comment: s.Comment})
	}
	return out
}

func plan(p advisor.Plan) Plan {
	out := Plan{Assignments: make([]Assignment, 0, len(p.Assignments)), WorstGbps: Round(p.WorstGbps), MeanGbps: Round(p.MeanGbps), AtMost: p.AtMost, WorstAtMost: p.WorstAtMost, NCCLIBHCA: p.NCCLIBHCA,
		Ranks: make([]Rank, 0, len(p.Ranks)), Notes: p.Notes}
	for _, a := range p.Assignments {
		out.Assignments = append(out.Assignments, Assignment{Accelerator: a.GPU.BDF(), NIC: a.NIC.BDF(), ExpectedGbps: Round(a.ExpectedGbps), Mode: a.Mode,
			Partitions: a.Partitions, Shared: a.Shared, ShareGbps: Round(a.ShareGbps), LinkShared: a.LinkShared, Known: a.Known, AtMost: a.AtMost, MoreNICs: bdfs(a.MoreNICs)})
	}
	for _, r := range p.Ranks {
		out.Ranks = append(out.Ranks, Rank{LocalRank: r.LocalRank, Accelerator: r.GPU.BDF(), Env: r.Env(), Numactl: r.Numactl})
	}
	return out
}

func summary(g *topology.Graph) Summary {
	accels := g.OfKind(topology.KindAccelerator)
	shown, _ := ShownNICs(g)
	s := Summary{Accelerators: census(accels, false), NICs: census(g.OfKind(topology.KindNIC), false),
		PCIeSwitches: census(g.TopSwitches(), false), SwitchLevels: len(g.Switches()), Functions: len(g.Devices),
		AcceleratorLinks: census(accels, true), RailNICLinks: census(shown, true), Platform: nonNil(g.PlatformFeatures())}
	if display, classless := g.Unidentified(); display+classless > 0 {
		s.UnidentifiedFunctions = display + classless
		unknown := unidentifiedWords(display, classless)
		if len(accels) == 0 {
			s.Accelerators = "none identified (" + unknown + ")"
			s.AcceleratorLinks = s.Accelerators
		} else {
			s.Accelerators += "; not counted: " + unknown
			s.AcceleratorLinks += "; not counted: " + unknown
		}
	}
	if g.Partial != "" || len(g.Skipped) > 0 {
		s.Partial, s.SkippedFunctions = g.Partial, len(g.Skipped)
		names := g.SkippedOfKind(topology.KindAccelerator)
		s.SkippedAccelerators = len(names)
		s.Accelerators, s.AcceleratorLinks = partialCensus(s.Accelerators, names, g.Partial), partialCensus(s.AcceleratorLinks, names, g.Partial)
		names = g.SkippedOfKind(topology.KindNIC)
		s.SkippedNICs = len(names)
		s.NICs, s.RailNICLinks = partialCensus(s.NICs, names, g.Partial), partialCensus(s.RailNICLinks, names, g.Partial)
	}
	if top := len(g.TopSwitches()); s.SwitchLevels == top {
		s.SwitchLevels = 0
	}
	return s
}

// partialCensus words a census of a source that holds part of the
// machine (topology.Graph.Partial) or skipped functions it names
// (topology.Graph.Skipped), given the names of those of the census's
// kind: "none placed; skipped: 6 x ... (bus not in the input)", or "none
// in the input (a tree fragment: give the whole lspci -tv)".
func partialCensus(census string, skipped []string, partial string) string {
	switch {
	case len(skipped) > 0 && census == "none":
		return "none placed; skipped: " + words.CountedNames(skipped) + " (bus not in the input)"
	case len(skipped) > 0:
		return census + "; skipped: " + words.CountedNames(skipped) + " (bus not in the input)"
	case census == "none" && partial != "":
		return "none in the input (" + partial + ")"
	}
	return census
}

// unidentified says in words which functions may be accelerators that the
// source does not identify (topology.Device.Unidentified): "6 display
// controllers of unknown vendor"; "" when there are none.
func unidentified(g *topology.Graph) string { return unidentifiedWords(g.Unidentified()) }

// unidentifiedWords is unidentified's sentence for the counts it takes.
func unidentifiedWords(display, classless int) string {
	var parts []string
	if display > 0 {
		parts = append(parts, words.Count(display, "display controller")+" of unknown vendor")
	}
	if classless > 0 {
		parts = append(parts, words.Count(classless, "function")+" of unknown class and vendor")
	}
	return strings.Join(parts, " and ")
}

// unidentifiedLacks are the summary's lines on what the source lacks to
// tell what the functions unidentified counts are.
func unidentifiedLacks(g *topology.Graph) []string {
	display, classless := g.Unidentified()
	var lines []string
	if display > 0 {
		lines = append(lines, "vendors of "+words.Count(display, "display controller")+" (a GPU or a BMC's graphics: only the vendor tells; none is counted as an accelerator)")
	}
	if classless > 0 {
		lines = append(lines, "class and vendor of "+words.Count(classless, "function")+" (none is counted as an accelerator or a NIC)")
	}
	return lines
}

// census counts devices by model, and by link with withLinks:
// "8 x NVIDIA H100 SXM5 80GB (Gen5 x16)", most common first; "none".
func census(ds []*topology.Device, withLinks bool) string {
	if len(ds) == 0 {
		return "none"
	}
	count := map[string]int{}
	var order []string
	for _, d := range ds {
		n := d.Name
		if l := d.Link; withLinks && (l.Known() || l.MaxGTs > 0) {
			if !l.Known() { // NCCL topologies record the maximum only
				l.CurrentGTs, l.CurrentWidth = l.MaxGTs, l.MaxWidth
			}
			n += " (" + l.String() + ")"
		}
		if d.PortRateGbps > 0 {
			n += fmt.Sprintf(" (%g Gb/s)", d.PortRateGbps)
		}
		if count[n] == 0 {
			order = append(order, n)
		}
		count[n]++
	}
	sort.SliceStable(order, func(i, j int) bool { return count[order[i]] > count[order[j]] })
	parts := make([]string, len(order))
	for i, n := range order {
		parts[i] = fmt.Sprintf("%d x %s", count[n], n)
	}
	return strings.Join(parts, ", ")
}

// computeOnly drops the NICs the advisor set aside from the compute rails.
func computeOnly(nics []*topology.Device, aside []advisor.SetAsideNIC) []*topology.Device {
	var out []*topology.Device
	for _, n := range nics {
		if !slices.ContainsFunc(aside, func(s advisor.SetAsideNIC) bool { return s.NIC == n }) {
			out = append(out, n)
		}
	}
	return out
}

// ACSState is a bridge's ACS Request/Completion Redirect in a report's
// words: "redirect", "off", or "unknown" where config space was not read.
func ACSState(d *topology.Device) string {
	switch {
	case !d.ACSKnown:
		return "unknown"
	case d.ACSRedirect:
		return "redirect"
	default:
		return "off"
	}
}
