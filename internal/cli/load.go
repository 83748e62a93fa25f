package cli

import (
	"fmt"

	"github.com/gdtopo/gdtopo/internal/names"
	"github.com/gdtopo/gdtopo/internal/render"
	"github.com/gdtopo/gdtopo/internal/report"
	"github.com/gdtopo/gdtopo/internal/source"
	"github.com/gdtopo/gdtopo/topology"
)

// analysis is a source read into a graph, with names resolved.
type analysis struct {
	src     *source.Source
	g       *topology.Graph
	names   *names.Resolver
	aliases map[*topology.Device]string
	pairs   []topology.Pair // every accelerator and NIC pair, once asked for
}

// allPairs labels every pair of accelerators and NICs once per analysis:
// the advisor, the report and the tables share them.
func (a *analysis) allPairs() []topology.Pair {
	if a.pairs == nil {
		a.pairs = a.g.Pairs()
	}
	return a.pairs
}

// resolver returns the names resolver shared by every source of one run,
// so pci.ids is parsed at most once however many sources there are.
func (o *globalOptions) resolver() *names.Resolver {
	o.namesOnce.Do(func() { o.names = names.New(o.PCIIDs) })
	return o.names
}

// start checks -o and loads SOURCE: what every reporting command does first.
func (o *globalOptions) start(name string, allNames bool) (render.Format, *analysis, error) {
	f, err := o.format()
	if err != nil {
		return "", nil, err
	}
	a, err := o.load(name, allNames)
	return f, a, err
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
	switch {
	case name == "":
		src = source.Live()
	case name == "-":
		src, g, err = o.readText(name)
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
	if err := g.CheckPairEnds(); err != nil {
		return nil, fmt.Errorf("%s: %w", src.Name, err)
	}
	for _, w := range src.Warnings {
		g.Warnings = append(g.Warnings, topology.Warning{Subject: src.Name, Message: w})
	}
	a := &analysis{src: src, g: g, names: o.resolver(), aliases: report.Aliases(g)}
	for _, d := range g.Devices {
		if d.Name != "" && d.DeviceID == 0 {
			continue // a dump's own name for a device whose ID it did not give
		}
		switch {
		case allNames, d.Kind == topology.KindAccelerator, d.Kind == topology.KindNIC,
			d.Kind == topology.KindNVSwitch, d.Role == topology.RoleUpstream:
			d.Name = a.names.Device(d.VendorID, d.DeviceID)
		}
	}
	if o.PCIIDs != "" {
		if err := a.names.Load(); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// sourceInfo describes the source for reports.
func (a *analysis) sourceInfo() report.Source {
	return report.Source{Name: a.src.Name, Kind: string(a.src.Kind), Format: a.src.Format}
}

// label names a device in tables: "GPU0", "NIC0 mlx5_0", or its BDF.
func (a *analysis) label(d *topology.Device) string {
	s := a.aliases[d]
	if s == "" {
		return d.BDF()
	}
	if d.Kind == topology.KindNIC {
		if n := nicName(d); n != "" {
			s += " " + n
		}
	}
	return s
}

// nicName is a NIC's RDMA name, else its first network interface.
func nicName(d *topology.Device) string {
	if len(d.RDMA) > 0 {
		return d.RDMA[0]
	}
	if len(d.Netdevs) > 0 {
		return d.Netdevs[0]
	}
	return ""
}

// shownNICs are the NICs the tables show: the RDMA-capable ones when the
// source names any (GPUDirect RDMA needs one; nvidia-smi shows only those),
// else every NIC. hidden are the rest.
func (a *analysis) shownNICs() (shown, hidden []*topology.Device) {
	rdma, plain := report.SplitNICs(a.g)
	if len(rdma) == 0 {
		return plain, nil
	}
	return rdma, plain
}
