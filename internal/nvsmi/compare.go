package nvsmi

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gdtopo/gdtopo/internal/words"
	"github.com/gdtopo/gdtopo/topology"
)

// Mapping ties the matrix's columns to the devices of a graph.
type Mapping struct {
	Devices map[string]*topology.Device // column -> device
	// GPUsBy and NICsBy say how each side was matched: "PCI bus order",
	// "RDMA name", "order of the Mellanox functions", or "" when it was not.
	GPUsBy, NICsBy string
	Notes          []string // why columns were left unmatched
}

// Map matches the matrix's columns to g's devices. GPUs are matched by
// index: nvidia-smi numbers GPUs as NVML does, in PCI bus order (the order
// CUDA_DEVICE_ORDER=PCI_BUS_ID gives CUDA; CUDA C Programming Guide,
// "CUDA Environment Variables"), so GPUi is the i-th NVIDIA accelerator by
// address, when the counts agree. NICs are matched by RDMA name where the
// graph has names (sysfs), else, when the counts agree, in order: nvidia-smi
// lists RDMA devices (mlx5_0, mlx5_1, ...), which the mlx5 driver names in
// probe order, that is bus order; Mapping.NICsBy says so.
func Map(g *topology.Graph, m *Matrix) Mapping {
	mp := Mapping{Devices: map[string]*topology.Device{}}
	var gpus []*topology.Device
	for _, d := range g.OfKind(topology.KindAccelerator) {
		if d.VendorID == topology.VendorNVIDIA || d.VendorID == 0 {
			gpus = append(gpus, d)
		}
	}
	if cols := m.GPUs(); len(cols) == len(gpus) {
		for i, c := range cols {
			mp.Devices[c] = gpus[i]
		}
		mp.GPUsBy = "PCI bus order"
	} else {
		mp.Notes = append(mp.Notes, fmt.Sprintf("the matrix has %s, the source %d NVIDIA accelerators: GPUs not matched (not the same host, or GPUs hidden from one of them)", words.Count(len(cols), "GPU"), len(gpus)))
	}
	cols := m.NICs()
	if len(cols) == 0 {
		return mp
	}
	byName := map[string]*topology.Device{}
	for _, d := range g.OfKind(topology.KindNIC) {
		for _, n := range d.RDMA {
			byName[n] = d
		}
	}
	named := 0
	for _, c := range cols {
		if m.NICNames[c] != "" {
			named++
		}
	}
	if len(byName) > 0 && named == 0 {
		mp.Notes = append(mp.Notes, "no NIC legend in the matrix (NIC0: mlx5_0 ...): its NICs are not matched to the source's")
		return mp
	}
	if len(byName) > 0 {
		var missing []string
		for _, c := range cols {
			if d := byName[m.NICNames[c]]; d != nil {
				mp.Devices[c] = d
			} else {
				missing = append(missing, c)
			}
		}
		mp.NICsBy = "RDMA name"
		if len(missing) > 0 {
			mp.Notes = append(mp.Notes, fmt.Sprintf("%s: no NIC of that RDMA name in the source, or none in the NIC legend", strings.Join(missing, ", ")))
		}
		return mp
	}
	var nics []*topology.Device
	for _, d := range g.OfKind(topology.KindNIC) {
		if d.VendorID == topology.VendorMellanox {
			nics = append(nics, d)
		}
	}
	if len(nics) != len(cols) {
		mp.Notes = append(mp.Notes, fmt.Sprintf("the matrix has %d NICs, the source %d Mellanox functions and no RDMA names: NICs not matched", len(cols), len(nics)))
		return mp
	}
	for i, c := range cols {
		mp.Devices[c] = nics[i]
	}
	mp.NICsBy = "order of the Mellanox functions (the source names no RDMA devices)"
	return mp
}

// Cell is one pair of the matrix set against the source's PCIe tree, or
// one affinity column of a device's row (Column "CPU Affinity" or "NUMA
// Affinity", B nil).
type Cell struct {
	Row, Column string
	A, B        *topology.Device
	Driver      string // the matrix's label
	Tree        string // gdtopo's label from the source, "?" marking a guess
	Agrees      bool
	Why         string // for a disagreement, what may explain it
}

// Result is the comparison of a matrix with a graph.
type Result struct {
	Mapping
	Compared int    // cells with both ends matched
	Agree    int    // of which the source's label equals the driver's
	NVLink   int    // NV# cells where the source could only say NV? or nothing
	Unknown  int    // cells whose path the source cannot tell (label "?"): neither agree nor differ
	Differ   []Cell // every cell where they disagree
	Partial  []string
}

// Compare sets every cell of the matrix whose two ends map to devices of g
// against g's own label for the pair: the PCIe tree as the source holds it,
// so g should not have had the matrix applied. A driver's NV# against a
// source that cannot show NVLink (NV?, or a PCIe label where nothing hinted
// at NVLink) is counted as NVLink the tree lacks, not as a disagreement,
// unless the source records NVLink itself (an NCCL topology dump).
func Compare(g *topology.Graph, m *Matrix) Result {
	r := Result{Mapping: Map(g, m), Partial: m.Partial}
	for i, a := range m.Columns {
		for _, b := range m.Columns[i+1:] {
			da, db := r.Devices[a], r.Devices[b]
			drv, ok := m.Cell(a, b)
			if da == nil || db == nil || !ok {
				continue
			}
			if da == db {
				continue // two ports of one function
			}
			p := g.Classify(da, db)
			if p.SMI == topology.Unknown {
				r.Unknown++ // no answer to set against the driver's
				continue
			}
			r.Compared++
			tree := string(p.SMI)
			if p.LabelUncertain {
				tree += "?"
			}
			c := Cell{Row: a, Column: b, A: da, B: db, Driver: drv, Tree: tree}
			driverNV := strings.HasPrefix(drv, "NV")
			switch {
			case drv == string(p.SMI):
				c.Agrees = true
			case driverNV && p.SMI == topology.NVLinkUnknown:
				r.NVLink++
				continue
			case !driverNV && p.SMI == topology.NVLinkUnknown && drv == string(p.PCIeSMI):
				c.Agrees = true // no NVLink, and the PCIe label the tree kept beside NV? is right
			}
			if c.Agrees {
				r.Agree++
				continue
			}
			c.Why = why(g, p, drv)
			r.Differ = append(r.Differ, c)
		}
	}
	affinities := 0
	for _, row := range m.Rows {
		if d := r.Devices[row.Name]; d != nil {
			affinities += r.compareAffinity(row, d)
		}
	}
	if len(m.Columns) == 1 && r.GPUsBy != "" && affinities == 0 {
		r.Notes = append(r.Notes, "the matrix holds one GPU and no NIC: no pair to set against the source, only the GPU count agrees")
	} else if len(m.Columns) == 1 && r.GPUsBy != "" {
		r.Notes = append(r.Notes, "the matrix holds one GPU and no NIC: no pair to set against the source, only its affinity columns and the GPU count")
	}
	return r
}

// compareAffinity sets a matched row's CPU Affinity and NUMA Affinity
// against the source's for the same device: its local CPUs (local_cpulist)
// and its NUMA node as gdtopo's matrix prints them. A column counts only
// where both sides give a value: nvidia-smi prints N/A, and a source may
// lack local CPUs or NUMA nodes. It returns how many columns it compared.
func (r *Result) compareAffinity(row Row, d *topology.Device) int {
	compared := 0
	if drv, err := topology.ParseCPUList(row.CPUAffinity); err == nil && len(drv) > 0 && d.LocalCPUs != "" {
		if tree, err := topology.ParseCPUList(d.LocalCPUs); err == nil && len(tree) > 0 {
			compared++
			r.affinityCell(row.Name, "CPU Affinity", d, row.CPUAffinity, d.LocalCPUs, slices.Equal(drv, tree),
				"the source's local CPUs (local_cpulist) are not the driver's: the source is not this host, or its CPUs were renumbered (SNC, BIOS) since")
		}
	}
	if drv, err := strconv.Atoi(row.NUMAAffinity); err == nil && drv >= 0 && d.NUMANode >= 0 {
		compared++
		why := "the source places the device on another NUMA node: the source is not this host, or the firmware's tables (SRAT) changed since"
		if d.NUMAFrom != topology.NUMAFromFile {
			why = "the source's node was inferred (numa_node -1: taken from " + d.NUMAFrom + "), and the driver's differs"
		}
		r.affinityCell(row.Name, "NUMA Affinity", d, row.NUMAAffinity, strconv.Itoa(d.NUMANode), drv == d.NUMANode, why)
	}
	return compared
}

// affinityCell counts one affinity column of a row, and lists it when the
// two sides differ.
func (r *Result) affinityCell(row, column string, d *topology.Device, driver, tree string, agrees bool, why string) {
	r.Compared++
	if agrees {
		r.Agree++
		return
	}
	r.Differ = append(r.Differ, Cell{Row: row, Column: column, A: d, Driver: driver, Tree: tree, Why: why})
}

// why suggests what makes the driver's label differ from the tree's.
func why(g *topology.Graph, p topology.Pair, drv string) string {
	tree := p.SMI
	if tree == topology.NVLinkUnknown {
		tree = p.PCIeSMI
	}
	switch {
	case strings.HasPrefix(drv, "NV") && strings.HasPrefix(string(p.SMI), "NV"):
		return "NVLink counts differ: links down, or the topology file is not this host's"
	case strings.HasPrefix(string(p.SMI), "NV"):
		return "the source records NVLink the driver does not see: links down, or the file is not this host's"
	case strings.HasPrefix(drv, "NV"):
		return "NVLink the source cannot show (sysfs and lspci have none) and nothing in it suggested: an NVLink bridge on PCIe cards?"
	case p.LabelUncertain && len(p.Notes) > 0:
		return "the source's label was a guess: " + strings.Join(p.Notes, "; ")
	case p.LabelUncertain:
		return "the source's label was a guess: it does not hold all that decides this pair (see Source lacks in gdtopo check)"
	case g.Platform.Hypervisor || g.NCCLView:
		return "the source's tree is virtual or NCCL's collapsed one: the driver sees the tree its own PCI enumeration gives"
	case topology.Label(drv).Worse(tree):
		return "the driver sees a longer path than the tree: the tree may not be this host's, or firmware or a hypervisor placed the devices differently"
	}
	return "the driver sees a shorter path than the tree: the tree may not be this host's"
}

// Apply gives g what the matrix knows and its source could not show:
// NVLink between matched GPUs (NV# a bond, any other label none), marking
// every bond recorded when every GPU pair was in the matrix, and the NIC
// legend's RDMA names for matched NICs that have none. It returns notes on
// what it took on trust.
func Apply(g *topology.Graph, m *Matrix, mp Mapping) []string {
	var notes []string
	gpus := m.GPUs()
	all := mp.GPUsBy != ""
	for i, a := range gpus {
		for _, b := range gpus[i+1:] {
			da, db := mp.Devices[a], mp.Devices[b]
			drv, ok := m.Cell(a, b)
			if da == nil || db == nil || !ok {
				all = false
				continue
			}
			n := 0
			if strings.HasPrefix(drv, "NV") {
				n, _ = strconv.Atoi(drv[2:])
			}
			g.NVLinks = append(g.NVLinks, topology.NVLink{A: da.Addr, B: db.Addr, Count: n})
		}
	}
	if all && len(gpus) > 1 {
		g.NVLinkRecorded = true
	}
	named := 0
	for _, c := range m.NICs() {
		d, name := mp.Devices[c], m.NICNames[c]
		if d != nil && name != "" && len(d.RDMA) == 0 {
			d.RDMA = []string{name}
			named++
		}
	}
	if named > 0 {
		notes = append(notes, fmt.Sprintf("RDMA names of %d NICs from nvidia-smi's NIC legend, matched by %s", named, mp.NICsBy))
	}
	return notes
}
