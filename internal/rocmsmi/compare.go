package rocmsmi

import (
	"fmt"
	"strconv"

	"github.com/gdtopo/gdtopo/internal/nvsmi"
	"github.com/gdtopo/gdtopo/internal/words"
	"github.com/gdtopo/gdtopo/topology"
)

// GPUsBy says how Compare matches GPUs: rocm_smi_lib numbers its devices
// in BDF order (src/rocm_smi_main.cc, "Sort index based on the BDF").
const GPUsBy = "PCI bus order, as rocm-smi numbers GPUs"

// Compare sets every link-type cell and NUMA affinity line of m whose GPUs
// map to AMD accelerators of g against g's own label for the pair: the
// PCIe tree as the source holds it. rocm-smi tells only XGMI from PCIE, so
// any PCIe label of the tree (PIX to SYS) agrees with PCIE. An XGMI cell
// where the source could only say XGMI? is counted as xGMI the tree lacks
// (Result.NVLink), not as a disagreement. The result has nvsmi's shape, so
// verify and check report either tool's matrix alike.
func Compare(g *topology.Graph, m *Matrix) nvsmi.Result {
	r := nvsmi.Result{Mapping: nvsmi.Mapping{Devices: map[string]*topology.Device{}}, Partial: m.Partial}
	var gpus []*topology.Device
	for _, d := range g.OfKind(topology.KindAccelerator) {
		if d.VendorID == topology.VendorAMD || d.VendorID == 0 {
			gpus = append(gpus, d)
		}
	}
	if len(m.GPUs) != len(gpus) {
		r.Notes = append(r.Notes, fmt.Sprintf("rocm-smi lists %s, the source has %d AMD accelerators: GPUs not matched (not the same host, GPUs hidden from one of them, or a partition mode such as CPX that shows each accelerator as several GPUs)", words.Count(len(m.GPUs), "GPU"), len(gpus)))
		return r
	}
	for i, c := range m.GPUs {
		r.Devices[c] = gpus[i]
	}
	r.GPUsBy = GPUsBy
	r.Notes = append(r.Notes, "rocm_smi_lib numbers GPUs by PCI address since ROCm 6.1 (rocm_smi_lib \"Sort GPU index using BDF\"); an older rocm-smi's order may differ, which only matters where the link types are not all alike")
	notRead := 0
	for i, a := range m.GPUs {
		for _, b := range m.GPUs[i+1:] {
			da, db := r.Devices[a], r.Devices[b]
			drv, ok := m.Cell(a, b)
			if !ok {
				continue
			}
			if drv != LinkXGMI && drv != LinkPCIe {
				notRead++ // XXXX or N/A: rocm-smi could not read the link
				continue
			}
			r.Compared++
			p := g.Classify(da, db)
			tree := string(p.SMI)
			if p.LabelUncertain {
				tree += "?"
			}
			c := nvsmi.Cell{Row: a, Column: b, A: da, B: db, Driver: drv, Tree: tree}
			treeXGMI := p.SMI == topology.XGMI
			switch {
			case drv == LinkXGMI && treeXGMI && p.LabelUncertain:
				r.NVLink++ // xGMI the source could not show
				continue
			case drv == LinkXGMI && treeXGMI, drv == LinkPCIe && !treeXGMI:
				c.Agrees = true
			case drv == LinkPCIe && p.LabelUncertain:
				c.Agrees = true // no xGMI; the tree could only say it might be there
			}
			if c.Agrees {
				r.Agree++
				continue
			}
			c.Why = why(drv, treeXGMI)
			r.Differ = append(r.Differ, c)
		}
	}
	if notRead > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("%d pairs read XXXX or N/A: rocm-smi could not read their link (rsmi_topo_get_link_type failed)", notRead))
	}
	for k, gpu := range m.GPUs {
		if v, ok := m.NUMAAffinity[k]; ok {
			compareNUMA(&r, gpu, r.Devices[gpu], v)
		}
	}
	return r
}

// why suggests what makes rocm-smi's link type differ from the tree's.
func why(drv string, treeXGMI bool) string {
	if drv == LinkPCIe && treeXGMI {
		return "the source records xGMI that KFD does not report: links down, or the source is not this host"
	}
	return "xGMI the source cannot show (sysfs and lspci have none) and nothing in it suggested: a bridge on PCIe cards, or the source is not this host"
}

// compareNUMA sets a GPU's Numa Affinity (its PCI device's numa_node) against
// the source's node for it, where both give one.
func compareNUMA(r *nvsmi.Result, gpu string, d *topology.Device, drv int) {
	if d == nil || drv < 0 || d.NUMANode < 0 {
		return
	}
	r.Compared++
	if drv == d.NUMANode {
		r.Agree++
		return
	}
	why := "the source places the device on another NUMA node: the source is not this host, or the firmware's tables (SRAT) changed since"
	if d.NUMAFrom != topology.NUMAFromFile {
		why = "the source's node was inferred (numa_node -1: taken from " + d.NUMAFrom + "), and rocm-smi's differs"
	}
	r.Differ = append(r.Differ, nvsmi.Cell{Row: gpu, Column: "NUMA Affinity", A: d, Driver: strconv.Itoa(drv), Tree: strconv.Itoa(d.NUMANode), Why: why})
}
