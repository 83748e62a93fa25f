// Package load reads a SOURCE argument into a graph: the live machine, a
// folder or archive (opened by internal/source, read by internal/sysfs),
// or a text dump recognised by its content (internal/ncclxml,
// internal/hwloc, internal/lspcidump); then names its devices
// (internal/names) and applies the host's nvidia-smi topo -m, pasted with
// the dump or given on its own (internal/nvsmi). The commands read their
// SOURCE through Source; snapshot, which copies a tree, opens it with
// internal/source alone.
package load

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/gdtopo/gdtopo/internal/names"
	"github.com/gdtopo/gdtopo/internal/nvsmi"
	"github.com/gdtopo/gdtopo/internal/rocmsmi"
	"github.com/gdtopo/gdtopo/internal/source"
	"github.com/gdtopo/gdtopo/internal/sysfs"
	"github.com/gdtopo/gdtopo/topology"
)

// ErrStdinTwice is Source's error for the SOURCE "-" with NVSMI "-": a
// mistake on the command line.
var ErrStdinTwice = errors.New("standard input given twice: as SOURCE and as --nvsmi; name a file for one of them")

// Options say how Source reads a SOURCE.
type Options struct {
	// Stdin is read for the SOURCE "-" and for NVSMI "-".
	Stdin io.Reader
	// NVSMI names the host's nvidia-smi topo -m or rocm-smi --showtopo
	// (--nvsmi), told apart by content: a file, "-"
	// for Stdin, or "" for none but one pasted with a text dump.
	NVSMI string
	// Names names the devices; one resolver serves every source of a
	// run, so pci.ids is parsed at most once.
	Names *names.Resolver
	// RequireNames is set when pci.ids was named (--pci-ids): one that
	// cannot be read is then an error, not a name left out.
	RequireNames bool
	// AllNames names every function, not only accelerators, NICs,
	// NVSwitches and switch upstream ports.
	AllNames bool
	// Open opens a SOURCE that is a folder or archive; nil is
	// source.Open. A fleet passes its worker's source.Opener, which keeps
	// buffers from one archive to the next; tests make sources vanish.
	Open func(name string) (*source.Source, error)
	// Workers is how many goroutines a sysfs tree is read on
	// (sysfs.ReadOn); 0 or 1 reads it on the calling one.
	Workers int
}

// Loaded is a source read into a graph, with names resolved.
type Loaded struct {
	Source *source.Source
	Graph  *topology.Graph
	NVSMI  *DriverMatrix // the host's nvidia-smi topo -m, when given
}

// DriverMatrix is the host's own matrix given with the source, nvidia-smi
// topo -m or rocm-smi --showtopo, and how the source's own labels compared
// with it before it was applied.
type DriverMatrix struct {
	Name   string          // the file it came from
	Tool   string          // nvsmi.Tool or rocmsmi.Tool
	Matrix *nvsmi.Matrix   // nvidia-smi's; nil for rocm-smi's
	ROCm   *rocmsmi.Matrix // rocm-smi's; nil for nvidia-smi's
	Result nvsmi.Result
}

// Summary describes the matrix in a few words.
func (d *DriverMatrix) Summary() string {
	if d.ROCm != nil {
		return d.ROCm.Summary()
	}
	return d.Matrix.Summary()
}

// Devices is how many devices the matrix has columns for.
func (d *DriverMatrix) Devices() int {
	if d.ROCm != nil {
		return len(d.ROCm.GPUs)
	}
	return len(d.Matrix.Columns)
}

// Source opens SOURCE name ("" for the live machine, "-" for Stdin, a pipe
// or character device read as Stdin is) and reads its graph. Model names are set for accelerators, NICs and
// switches, from the built-in table first so pci.ids is parsed only when
// needed; Options.AllNames names every device.
func Source(name string, o Options) (*Loaded, error) {
	var src *source.Source
	var g *topology.Graph
	var err error
	switch name {
	case "":
		src = source.Live()
	case "-":
		if o.NVSMI == "-" {
			return nil, ErrStdinTwice
		}
		src, g, err = readStdin(o.Stdin)
	default:
		f, stream, serr := source.OpenStream(name)
		switch {
		case serr != nil:
			err = serr
		case stream: // a pipe is read once: whole, then recognised, as stdin is
			src, g, err = readStream(name, f)
			_ = f.Close()
		default:
			src, err = o.open(name)
			if isUnrecognized(err) {
				src, g, err = readText(name)
			}
		}
	}
	if err != nil {
		return nil, err
	}
	if g == nil {
		read := sysfs.ReadOn
		if src.Kind == source.KindLive {
			read = sysfs.ReadLiveOn
		}
		if g, err = read(src.Root, o.Workers); err != nil {
			return nil, fmt.Errorf("%s: %w", src.Name, err)
		}
	}
	if err := g.CheckFunctions(); err != nil {
		return nil, fmt.Errorf("%s: %w", src.Name, err)
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
		if matrix, err = readMatrix(o.Stdin, o.NVSMI); err != nil {
			return nil, err
		}
		matrixName = o.NVSMI
		if o.NVSMI == "-" {
			matrixName = stdinName
		}
	}
	for _, d := range g.Devices {
		NameDevice(o.Names, d, o.AllNames)
	}
	if o.RequireNames {
		if err := o.Names.Load(); err != nil {
			return nil, err
		}
	}
	l := &Loaded{Source: src, Graph: g}
	if matrix != nil && o.NVSMI != "" && rocmsmi.Sniff(matrix) { // its title is never nvidia-smi's
		m, err := rocmsmi.Parse(matrixName, matrix)
		if err != nil {
			return nil, err
		}
		// Compared, not applied: --showtopo gives no xGMI link count, and
		// the tree's labels stay the source's own.
		l.NVSMI = &DriverMatrix{Name: matrixName, Tool: rocmsmi.Tool, ROCm: m, Result: rocmsmi.Compare(g, m)}
		for _, n := range l.NVSMI.Result.Notes {
			g.Warnings = append(g.Warnings, topology.Warning{Subject: matrixName, Message: n})
		}
		if len(m.Partial) > 0 {
			g.Warnings = append(g.Warnings, topology.Warning{Subject: matrixName, Message: "cut off (" + strings.Join(m.Partial, "; ") + "): only the cells it holds are compared"})
		}
		matrix = nil
	}
	if matrix != nil {
		if o.NVSMI != "" && !nvsmi.Sniff(matrix) {
			return nil, fmt.Errorf("%s: neither nvidia-smi topo -m (a header line GPU0 GPU1 ... and a GPU0 row) nor rocm-smi --showtopo (a %q table)", matrixName, rocmsmi.LinkTitle)
		}
		m, err := nvsmi.Parse(matrixName, matrix)
		if err != nil {
			return nil, err
		}
		l.NVSMI = &DriverMatrix{Name: matrixName, Tool: nvsmi.Tool, Matrix: m, Result: nvsmi.Compare(g, m)} // before Apply: the tree's own labels
		for _, n := range append(l.NVSMI.Result.Notes, nvsmi.Apply(g, m, l.NVSMI.Result.Mapping)...) {
			g.Warnings = append(g.Warnings, topology.Warning{Subject: matrixName, Message: n})
		}
		if len(m.Partial) > 0 {
			g.Warnings = append(g.Warnings, topology.Warning{Subject: matrixName, Message: "cut off (" + strings.Join(m.Partial, "; ") + "): the cells it lacks stay as the source gives them"})
		}
	}
	if lack := g.NVLinkLack(); lack != "" { // after naming: a model name can say SXM
		g.Lacks = append(g.Lacks, lack)
	}
	return l, nil
}

// open opens a SOURCE that is a folder or archive.
func (o *Options) open(name string) (*source.Source, error) {
	if o.Open != nil {
		return o.Open(name)
	}
	return source.Open(name)
}

// maxMatrix bounds an nvidia-smi topo -m file read whole: a 64-GPU,
// 64-NIC matrix is under 100 KB.
const maxMatrix = 4 << 20

// readMatrix reads the --nvsmi file name, or stdin for "-".
func readMatrix(stdin io.Reader, name string) ([]byte, error) {
	r := stdin
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

// NameDevice sets d's model name: always for accelerators, NICs, NVSwitches
// and switch upstream ports, for every other function when all is set.
func NameDevice(res *names.Resolver, d *topology.Device, all bool) {
	if d.Name != "" && d.DeviceID == 0 {
		return // a dump's own name for a device whose ID it did not give
	}
	// No vendor is 0000 or ffff (what a read of an absent function returns,
	// and what NCCL's own topology files put on their virtual switches):
	// the IDs were not given.
	if d.VendorID == 0 && d.DeviceID == 0 || d.VendorID == 0xffff {
		d.Name = names.Unidentified(d.Class, d.Role == topology.RoleUpstream)
		return
	}
	switch {
	case all, d.Kind == topology.KindAccelerator, d.Kind == topology.KindNIC,
		d.Kind == topology.KindNVSwitch, d.Role == topology.RoleUpstream:
		d.Name = res.Device(d.VendorID, d.DeviceID)
	}
}
