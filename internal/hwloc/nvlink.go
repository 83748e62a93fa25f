package hwloc

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gdtopo/gdtopo/topology"
)

// xmlDistances is a <distances2> or <distances2hetero> element of hwloc 2.x
// XML: a matrix of nbobjs x nbobjs values between the objects its indexes
// name ("OSDev:332" in a heterogeneous one, gp or os indexes of objects of
// one type otherwise).
type xmlDistances struct {
	Name     string
	Type     string
	Indexing string
	NbObjs   int
	Indexes  []string // the text of each <indexes>
	Values   []string // the text of each <u64values>
}

// Per-link NVLink bandwidth in the NVLinkBandwidth matrix hwloc's NVML
// backend records (hwloc/topology-nvml.c, hwloc_nvml_discover): 20000 MB/s
// per link for NVLink 1 (Pascal), 25000 for NVLink 2 to 4.
const (
	nvlink1MBps = 20000
	nvlink2MBps = 25000
)

// nvlinksFromXML turns hwloc's NVLinkBandwidth matrix into g.NVLinks: a
// value between two GPUs is a direct bond of value / per-link bandwidth
// links; values between GPUs and NVSwitches are summed per GPU, and two GPUs
// on NVSwitches get the smaller sum, as nvidia-smi prints NV6 between any
// two V100s of a DGX-2. Links to CPUs (POWER's NVLink) are not modelled. The
// matrix records every bond of the GPUs it holds, so their other pairs get
// an entry with Count 0, and g.NVLinkRecorded is set when it holds every
// accelerator. ids are the objects the matrix may name. Problems are
// warnings.
func nvlinksFromXML(g *topology.Graph, name string, m *xmlDistances, ids []xmlIDs) {
	if m == nil {
		return
	}
	warn := func(msg string) {
		g.Warnings = append(g.Warnings, topology.Warning{Subject: name, Message: "NVLinkBandwidth matrix " + msg + ": NVLink not read"})
	}
	var idx []string
	for _, s := range m.Indexes {
		idx = append(idx, strings.Fields(s)...)
	}
	var vals []uint64
	for _, s := range m.Values {
		for _, f := range strings.Fields(s) {
			v, err := strconv.ParseUint(f, 10, 64)
			if err != nil {
				warn(fmt.Sprintf("value %q unreadable", f))
				return
			}
			vals = append(vals, v)
		}
	}
	n := m.NbObjs
	if n <= 0 || n > 4096 || len(idx) != n || len(vals) != n*n {
		warn(fmt.Sprintf("has %d indexes and %d values for %d objects", len(idx), len(vals), n))
		return
	}
	keys := make([]string, n)
	byGP := make(map[string]string, n) // "OSDev:332" -> BDF of the PCI device it belongs to
	for i, s := range idx {
		keys[i] = s
		if !strings.Contains(s, ":") { // a homogeneous matrix: indexes of objects of its type
			sep := ":"
			if m.Indexing == "os" {
				sep = "#"
			}
			keys[i] = m.Type + sep + s
		}
		byGP[keys[i]] = ""
	}
	// Objects are "type:gp_index" and "type#os_index"; only the keys the
	// matrix names are filled, the last object of a key winning.
	var key []byte
	for _, x := range ids {
		key = append(append(append(key[:0], x.typ...), ':'), x.gpIndex...)
		if _, ok := byGP[string(key)]; ok {
			byGP[string(key)] = x.busID
		}
		if x.osIndex != "" {
			key = append(append(append(key[:0], x.typ...), '#'), x.osIndex...)
			if _, ok := byGP[string(key)]; ok {
				byGP[string(key)] = x.busID
			}
		}
	}
	devs := make([]*topology.Device, n)
	// hwloc's only PCI-device peers are NVSwitches (a POWER CPU's NVLink
	// peer is recorded as a CPU-side object), kept even where the XML
	// filtered the function itself out.
	nvswitch := make([]bool, n)
	for i, key := range keys {
		if a, err := topology.ParseBDF(byGP[key]); err == nil {
			devs[i] = g.Device(a)
		}
		nvswitch[i] = strings.HasPrefix(key, "PCIDev:") || devs[i] != nil && devs[i].Kind == topology.KindNVSwitch
	}
	perLink := uint64(nvlink2MBps)
	var gpus []int
	for i, d := range devs {
		if d != nil && d.Kind == topology.KindAccelerator {
			gpus = append(gpus, i)
			if d.VendorID == topology.VendorNVIDIA && d.DeviceID>>8 == 0x15 { // Pascal: NVLink 1
				perLink = nvlink1MBps
			}
		}
	}
	links := func(v uint64) (int, bool) { return int(v / perLink), v%perLink == 0 }
	viaSwitch := map[int]int{}
	for _, i := range gpus {
		for j := range devs {
			if nvswitch[j] && (devs[j] == nil || devs[j].Kind != topology.KindAccelerator) {
				c, ok := links(vals[i*n+j])
				if !ok {
					warn(fmt.Sprintf("value %d is not a whole number of links", vals[i*n+j]))
					return
				}
				viaSwitch[i] += c
			}
		}
	}
	var found []topology.NVLink
	for x, i := range gpus {
		for _, j := range gpus[x+1:] {
			c, ok := links(vals[i*n+j])
			if !ok {
				warn(fmt.Sprintf("value %d is not a whole number of links", vals[i*n+j]))
				return
			}
			if c == 0 && viaSwitch[i] > 0 && viaSwitch[j] > 0 {
				c = min(viaSwitch[i], viaSwitch[j])
			}
			a, b := devs[i].Addr, devs[j].Addr
			if b.Less(a) {
				a, b = b, a
			}
			found = append(found, topology.NVLink{A: a, B: b, Count: c})
		}
	}
	g.NVLinks = append(g.NVLinks, found...)
	g.NVLinkRecorded = len(gpus) == len(g.OfKind(topology.KindAccelerator))
}
