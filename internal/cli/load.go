package cli

import (
	"errors"
	"runtime"

	"github.com/gdtopo/gdtopo/internal/load"
	"github.com/gdtopo/gdtopo/internal/names"
	"github.com/gdtopo/gdtopo/internal/report"
	"github.com/gdtopo/gdtopo/internal/source"
	"github.com/gdtopo/gdtopo/topology"
)

// analysis is a source read into a graph, with names resolved. It keeps
// what the report says of the source, not the source: an archive's tree in
// memory is let go once read.
type analysis struct {
	src   report.Source
	g     *topology.Graph
	nvsmi *load.DriverMatrix // the host's nvidia-smi topo -m or rocm-smi --showtopo, when given
}

// resolver returns the names resolver shared by every source of one run,
// so pci.ids is parsed at most once however many sources there are.
func (o *globalOptions) resolver() *names.Resolver {
	o.namesOnce.Do(func() { o.names = names.New(o.PCIIDs) })
	return o.names
}

// load opens SOURCE ("" for the live machine) and reads its graph
// (load.Source); allNames names every device.
func (o *globalOptions) load(name string, allNames bool) (*analysis, error) {
	return o.loadWith(nil, name, allNames)
}

// loadWith is load, opening folders and archives through op when it is not
// nil.
func (o *globalOptions) loadWith(op *source.Opener, name string, allNames bool) (*analysis, error) {
	// A fleet reads one source per CPU already (op is its worker's).
	workers := runtime.GOMAXPROCS(0)
	if op != nil {
		workers = 1
	}
	l, err := load.Source(name, load.Options{
		Stdin: o.IO.In, NVSMI: o.NVSMI, Names: o.resolver(), RequireNames: o.PCIIDs != "", AllNames: allNames,
		Open:    func(name string) (*source.Source, error) { return o.IO.open(op, name) },
		Workers: workers,
	})
	if errors.Is(err, load.ErrStdinTwice) {
		return nil, &usageError{err}
	}
	if err != nil {
		return nil, err
	}
	a := &analysis{src: report.Source{Name: l.Source.Name, Kind: string(l.Source.Kind), Format: l.Source.Format}, g: l.Graph, nvsmi: l.NVSMI}
	if op == nil && o.IO.gc != nil {
		collectAfterReading() // a fleet's sources are small, and its workers share the heap
	}
	return a, nil
}

// nvsmiCheck is the report's part on the host's matrix; nil without one.
func (a *analysis) nvsmiCheck() *report.NVSMICheck {
	if a.nvsmi == nil {
		return nil
	}
	return report.NVSMI(a.nvsmi.Name, a.nvsmi.Tool, a.nvsmi.Summary(), a.nvsmi.Result)
}

// reportOptions say how a report is built.
type reportOptions struct {
	FailOn  string // critical, warning, info or never; "" for critical
	Explain bool   // fill in each prediction's arithmetic (path --explain)
	NoHops  bool   // leave the pairs' hops out (outputs that show none: checkOptions.showsHops)
	// PlainTable builds the report for check's plain table alone
	// (checkOptions.plainTable): the storage pairs tallied, and only the
	// devices it names.
	PlainTable bool
}

// buildReport analyses a loaded source: the advisor's predictions,
// findings and plan, then report.Build. Every command's output is this
// report, printed.
func (a *analysis) buildReport(adv *adviceOptions, ro reportOptions) (*report.Report, error) {
	pairs := a.g.PairsWithoutHops() // report.Build works out each pair's hops
	var tally *report.StorageTally
	if ro.PlainTable {
		tally = &report.StorageTally{}
	}
	res, err := a.adviseTallying(adv, pairs, ro.Explain, tally)
	if err != nil {
		return nil, err
	}
	if ro.FailOn == "" {
		ro.FailOn = "critical"
	}
	return report.Build(report.Input{
		Source: a.src,
		Graph:  a.g, Pairs: pairs, Advice: res, FailOn: ro.FailOn, NoHops: ro.NoHops, StorageTally: tally, NamedDevicesOnly: ro.PlainTable,
		NVSMI: a.nvsmiCheck(), NCCLEnv: adv.vars,
	}), nil
}

// devicesReport is the report of the source's devices alone, without the
// accelerator-NIC pairs, the advisor's findings or its plan: all that a
// view of the devices (gdtopo tree) shows, at a third of the cost.
func (a *analysis) devicesReport() *report.Report {
	return report.Build(report.Input{
		Source: a.src,
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
