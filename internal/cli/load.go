package cli

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/gdtopo/gdtopo/internal/names"
	"github.com/gdtopo/gdtopo/internal/nvsmi"
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
	nvsmi   *driverMatrix   // the host's nvidia-smi topo -m, when given
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

// readMatrix reads the --nvsmi file.
func readMatrix(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("--nvsmi: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxMatrix+1))
	if err != nil {
		return nil, fmt.Errorf("--nvsmi %s: %w", name, err)
	}
	if len(b) > maxMatrix {
		return nil, fmt.Errorf("--nvsmi %s: over %d MiB: not nvidia-smi topo -m output", name, maxMatrix>>20)
	}
	return b, nil
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
	for _, w := range src.Warnings {
		g.Warnings = append(g.Warnings, topology.Warning{Subject: src.Name, Message: w})
	}
	matrixName, matrix := src.Name, src.NVSMI
	if o.NVSMI != "" {
		if matrix != nil {
			g.Warnings = append(g.Warnings, topology.Warning{Subject: src.Name, Message: "its nvidia-smi topo -m left out: --nvsmi " + o.NVSMI + " given"})
		}
		if matrix, err = readMatrix(o.NVSMI); err != nil {
			return nil, err
		}
		matrixName = o.NVSMI
	}
	a := &analysis{src: src, g: g, names: o.resolver()}
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
	if err := a.names.Err(); err != nil && o.PCIIDs != "" {
		return nil, err
	}
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
	a.aliases = report.Aliases(g)     // after Apply: NIC names from the matrix order the NICs
	if l := g.NVLinkLack(); l != "" { // after naming: a model name can say SXM
		g.Lacks = append(g.Lacks, l)
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
