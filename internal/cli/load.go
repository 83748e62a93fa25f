package cli

import (
	"fmt"

	"github.com/gdtopo/gdtopo/internal/names"
	"github.com/gdtopo/gdtopo/internal/report"
	"github.com/gdtopo/gdtopo/internal/source"
	"github.com/gdtopo/gdtopo/topology"
)

// analysis is a source read into a graph, with names resolved.
type analysis struct {
	src *source.Source
	g   *topology.Graph
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
		if g, err = topology.ReadSysfs(src.Root); err != nil {
			return nil, fmt.Errorf("%s: %w", src.Name, err)
		}
	}
	for _, w := range src.Warnings {
		g.Warnings = append(g.Warnings, topology.Warning{Subject: src.Name, Message: w})
	}
	res := o.resolver()
	for _, d := range g.Devices {
		if d.Name != "" && d.DeviceID == 0 {
			continue // a dump's own name for a device whose ID it did not give
		}
		switch {
		case allNames, d.Kind == topology.KindAccelerator, d.Kind == topology.KindNIC,
			d.Kind == topology.KindNVSwitch, d.Role == topology.RoleUpstream:
			d.Name = res.Device(d.VendorID, d.DeviceID)
		}
	}
	if err := res.Err(); err != nil && o.PCIIDs != "" {
		return nil, err
	}
	return &analysis{src: src, g: g}, nil
}

// reportOptions say how a report is built.
type reportOptions struct {
	FailOn  string // critical, warning, info or never; "" for critical
	Explain bool   // fill in each prediction's arithmetic (path --explain)
	NoHops  bool   // leave the pairs' hops out (-o jsonl)
}

// buildReport analyses a loaded source: the advisor's predictions,
// findings and plan, then report.Build. Every command's output is this
// report, printed.
func (a *analysis) buildReport(adv *adviceOptions, ro reportOptions) (*report.Report, error) {
	pairs := a.g.Pairs()
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
	}), nil
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
