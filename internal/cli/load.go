package cli

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"

	"github.com/gdtopo/gdtopo/internal/names"
	"github.com/gdtopo/gdtopo/internal/nvsmi"
	"github.com/gdtopo/gdtopo/internal/report"
	"github.com/gdtopo/gdtopo/internal/source"
	"github.com/gdtopo/gdtopo/internal/sysfs"
	"github.com/gdtopo/gdtopo/topology"
)

// analysis is a source read into a graph, with names resolved.
type analysis struct {
	src   *source.Source
	g     *topology.Graph
	nvsmi *driverMatrix // the host's nvidia-smi topo -m, when given
}

// driverMatrix is an nvidia-smi topo -m given with the source, and how the
// source's own labels compared with it before it was applied.
type driverMatrix struct {
	name   string // the file it came from
	matrix *nvsmi.Matrix
	result nvsmi.Result
}

// maxMatrix bounds an nvidia-smi topo -m file read whole: a 64-GPU,
// 64-NIC matrix is under 100 KB.
const maxMatrix = 4 << 20

// readMatrix reads the --nvsmi file, or standard input for "-".
func (o *globalOptions) readMatrix(name string) ([]byte, error) {
	var r io.Reader = o.IO.In
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return nil, fmt.Errorf("--nvsmi: %w", err)
		}
		defer f.Close()
		r = f
	}
	b, err := io.ReadAll(io.LimitReader(r, maxMatrix+1))
	if err != nil {
		return nil, fmt.Errorf("--nvsmi %s: %w", name, err)
	}
	if len(b) > maxMatrix {
		return nil, fmt.Errorf("--nvsmi %s: over %d MiB: not nvidia-smi topo -m output", name, maxMatrix>>20)
	}
	return b, nil
}

// resolver returns the names resolver shared by every source of one run,
// so pci.ids is parsed at most once however many sources there are.
func (o *globalOptions) resolver() *names.Resolver {
	o.namesOnce.Do(func() { o.names = names.New(o.PCIIDs) })
	return o.names
}

// load opens SOURCE ("" for the live machine) and reads its graph. Model
// names are set for accelerators, NICs and switches, from the built-in table
// first so pci.ids is parsed only when needed; allNames names every device.
func (o *globalOptions) load(name string, allNames bool) (*analysis, error) {
	return o.loadWith(nil, name, allNames)
}

// loadWith is load, opening folders and archives through op when it is not
// nil.
func (o *globalOptions) loadWith(op *source.Opener, name string, allNames bool) (*analysis, error) {
	var src *source.Source
	var g *topology.Graph
	var err error
	switch name {
	case "":
		src = source.Live()
	case "-":
		if o.NVSMI == "-" {
			return nil, usagef("standard input given twice: as SOURCE and as --nvsmi; name a file for one of them")
		}
		src, g, err = o.readStdin()
	default:
		src, err = o.IO.open(op, name)
		if isUnrecognized(err) {
			src, g, err = o.readText(name)
		}
	}
	if err != nil {
		return nil, err
	}
	if g == nil {
		// A fleet reads one source per CPU already (op is its worker's).
		workers := runtime.GOMAXPROCS(0)
		if op != nil {
			workers = 1
		}
		if g, err = sysfs.ReadOn(src.Root, workers); err != nil {
			return nil, fmt.Errorf("%s: %w", src.Name, err)
		}
	}
	if err := g.CheckPairEnds(); err != nil {
		return nil, fmt.Errorf("%s: %w", src.Name, err)
	}
	for _, w := range src.Warnings {
		g.Warnings = append(g.Warnings, topology.Warning{Subject: src.Name, Message: w})
	}
	matrixName, matrix := src.Name, src.NVSMI
	if o.NVSMI != "" {
		if matrix != nil {
			g.Warnings = append(g.Warnings, topology.Warning{Subject: src.Name, Message: "its nvidia-smi topo -m left out: --nvsmi " + o.NVSMI + " given"})
		}
		if matrix, err = o.readMatrix(o.NVSMI); err != nil {
			return nil, err
		}
		matrixName = o.NVSMI
		if o.NVSMI == "-" {
			matrixName = stdinName
		}
	}
	res := o.resolver()
	for _, d := range g.Devices {
		nameDevice(res, d, allNames)
	}
	if o.PCIIDs != "" {
		if err := res.Load(); err != nil {
			return nil, err
		}
	}
	a := &analysis{src: src, g: g}
	if matrix != nil {
		m, err := nvsmi.Parse(matrixName, matrix)
		if err != nil {
			return nil, err
		}
		a.nvsmi = &driverMatrix{name: matrixName, matrix: m, result: nvsmi.Compare(g, m)} // before Apply: the tree's own labels
		for _, n := range append(a.nvsmi.result.Notes, nvsmi.Apply(g, m, a.nvsmi.result.Mapping)...) {
			g.Warnings = append(g.Warnings, topology.Warning{Subject: matrixName, Message: n})
		}
		if len(m.Partial) > 0 {
			g.Warnings = append(g.Warnings, topology.Warning{Subject: matrixName, Message: "cut off (" + strings.Join(m.Partial, "; ") + "): the cells it lacks stay as the source gives them"})
		}
	}
	if l := g.NVLinkLack(); l != "" { // after naming: a model name can say SXM
		g.Lacks = append(g.Lacks, l)
	}
	return a, nil
}

// nameDevice sets d's model name: always for accelerators, NICs, NVSwitches
// and switch upstream ports, for every other function when all is set.
func nameDevice(res *names.Resolver, d *topology.Device, all bool) {
	if d.Name != "" && d.DeviceID == 0 {
		return // a dump's own name for a device whose ID it did not give
	}
	if d.VendorID == 0 && d.DeviceID == 0 { // no vendor is 0000: the IDs were not given
		d.Name = names.Unidentified(d.Class, d.Role == topology.RoleUpstream)
		return
	}
	switch {
	case all, d.Kind == topology.KindAccelerator, d.Kind == topology.KindNIC,
		d.Kind == topology.KindNVSwitch, d.Role == topology.RoleUpstream:
		d.Name = res.Device(d.VendorID, d.DeviceID)
	}
}

// nvsmiCheck is the report's part on the host's matrix; nil without one.
func (a *analysis) nvsmiCheck() *report.NVSMICheck {
	if a.nvsmi == nil {
		return nil
	}
	return report.NVSMI(a.nvsmi.name, a.nvsmi.matrix, a.nvsmi.result)
}

// reportOptions say how a report is built.
type reportOptions struct {
	FailOn  string // critical, warning, info or never; "" for critical
	Explain bool   // fill in each prediction's arithmetic (path --explain)
	NoHops  bool   // leave the pairs' hops out (outputs that show none: checkOptions.showsHops)
}

// buildReport analyses a loaded source: the advisor's predictions,
// findings and plan, then report.Build. Every command's output is this
// report, printed.
func (a *analysis) buildReport(adv *adviceOptions, ro reportOptions) (*report.Report, error) {
	pairs := a.g.PairsWithoutHops() // report.Build works out each pair's hops
	res, err := a.advise(adv, pairs, ro.Explain)
	if err != nil {
		return nil, err
	}
	if ro.FailOn == "" {
		ro.FailOn = "critical"
	}
	return report.Build(report.Input{
		Source: report.Source{Name: a.src.Name, Kind: string(a.src.Kind), Format: a.src.Format},
		Graph:  a.g, Pairs: pairs, Advice: res, FailOn: ro.FailOn, NoHops: ro.NoHops,
		NVSMI: a.nvsmiCheck(),
	}), nil
}

// devicesReport is the report of the source's devices alone, without the
// accelerator-NIC pairs, the advisor's findings or its plan: all that a
// view of the devices (gdtopo tree) shows, at a third of the cost.
func (a *analysis) devicesReport() *report.Report {
	return report.Build(report.Input{
		Source: report.Source{Name: a.src.Name, Kind: string(a.src.Kind), Format: a.src.Format},
		Graph:  a.g, FailOn: "critical",
	})
}

// report loads SOURCE and builds its report: what every command but check
// does first.
func (o *globalOptions) report(name string, allNames bool, adv *adviceOptions, ro reportOptions) (*report.Report, error) {
	if err := adv.validate(); err != nil {
		return nil, err
	}
	a, err := o.load(name, allNames)
	if err != nil {
		return nil, err
	}
	return a.buildReport(adv, ro)
}
