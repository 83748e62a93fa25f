package topology

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// NVLinkUnknown is the nvidia-smi label of an accelerator pair that NVLink
// (or AMD's xGMI) may join although the source cannot show it: tables print
// it as "NV?" (the "?" of LabelUncertain). nvidia-smi itself prints NV# for
// a bonded set of # NVLinks (nvidia-smi topo -m legend), and NCCL's path is
// then PATH_NVL (src/graph/paths.cc, ncclTopoComputePaths); sysfs has no
// NVLink at all: NCCL asks NVML for every link (src/graph/xml.cc,
// ncclTopoGetXmlFromGpu).
const NVLinkUnknown Label = "NV"

// XGMI is the label of two AMD accelerators joined by xGMI (Infinity
// Fabric), known or, with LabelUncertain, possible: RCCL names the path
// type XGMI where NCCL has NVL (ROCm/rccl src/graph/topo.cc,
// topoPathTypeStr), and rocm-smi --showtopo gives the link type XGMI. The
// link count is in the pair's Path.
const XGMI Label = "XGMI"

// sxmParts are accelerators built as SXM or OAM modules: they sit on a
// baseboard whose NVLink (NVIDIA) or xGMI (AMD) fabric joins them, so two of
// them are rarely joined by PCIe alone. Device IDs as pci.ids and NVIDIA's
// and AMD's product pages name them.
var sxmParts = map[uint32]string{
	uint32(VendorNVIDIA)<<16 | 0x15f9: "Tesla P100 SXM2",
	uint32(VendorNVIDIA)<<16 | 0x1db1: "Tesla V100 SXM2",
	uint32(VendorNVIDIA)<<16 | 0x1db5: "Tesla V100 SXM2",
	uint32(VendorNVIDIA)<<16 | 0x1df5: "Tesla V100 SXM2",
	uint32(VendorNVIDIA)<<16 | 0x1db8: "Tesla V100 SXM3",
	uint32(VendorNVIDIA)<<16 | 0x20b0: "A100 SXM4",
	uint32(VendorNVIDIA)<<16 | 0x20b2: "A100 SXM4",
	uint32(VendorNVIDIA)<<16 | 0x20b3: "A100 SXM",
	uint32(VendorNVIDIA)<<16 | 0x20f3: "A800 SXM4",
	uint32(VendorNVIDIA)<<16 | 0x2324: "H800 SXM5",
	uint32(VendorNVIDIA)<<16 | 0x2330: "H100 SXM5",
	uint32(VendorNVIDIA)<<16 | 0x2335: "H200 SXM",
	uint32(VendorNVIDIA)<<16 | 0x2901: "B200",
	// Superchip GPUs (c2cGPUs): modules whose NVLink joins them to each
	// other (GH200 NVL2/NVL32, GB200 and GB300 trays) besides their Grace.
	uint32(VendorNVIDIA)<<16 | 0x2342: "GH200",
	uint32(VendorNVIDIA)<<16 | 0x2348: "GH200",
	uint32(VendorNVIDIA)<<16 | 0x2941: "GB200",
	uint32(VendorNVIDIA)<<16 | 0x3182: "B300",
	uint32(VendorAMD)<<16 | 0x7408:    "Instinct MI250X OAM",
	uint32(VendorAMD)<<16 | 0x740c:    "Instinct MI250X/MI250 OAM",
	uint32(VendorAMD)<<16 | 0x74a1:    "Instinct MI300X OAM",
}

// bridgeBoards are PCIe boards with NVLink bridge connectors (NVIDIA's
// product briefs: "NVLink bridge" in each board's specifications): two of
// them may be bridged, which no PCI data shows.
var bridgeBoards = map[uint32]string{
	uint32(VendorNVIDIA)<<16 | 0x20b5: "A100 PCIe",
	uint32(VendorNVIDIA)<<16 | 0x20f1: "A100 PCIe",
	uint32(VendorNVIDIA)<<16 | 0x20f5: "A800 PCIe",
	uint32(VendorNVIDIA)<<16 | 0x20b7: "A30",
	uint32(VendorNVIDIA)<<16 | 0x2235: "A40",
	uint32(VendorNVIDIA)<<16 | 0x2230: "RTX A6000",
	uint32(VendorNVIDIA)<<16 | 0x2231: "RTX A5000",
	uint32(VendorNVIDIA)<<16 | 0x2204: "GeForce RTX 3090",
	uint32(VendorNVIDIA)<<16 | 0x2331: "H100 PCIe",
	uint32(VendorNVIDIA)<<16 | 0x2321: "H100 NVL",
	uint32(VendorNVIDIA)<<16 | 0x2322: "H800 PCIe",
}

// sxmWords are the words in a model name that mark an SXM or OAM module,
// for devices whose ID the table above does not hold.
var sxmWords = []string{"SXM", "OAM", "HGX", "MI300X", "MI250"}

// nvlinkKnown returns the NVLinks joining a and b and whether the source
// said so either way: a recorded bond (Count > 0), a recorded absence
// (Count 0), or a source that records every bond (NVLinkRecorded).
func (g *Graph) nvlinkKnown(a, b *Device) (count int, known bool) {
	for _, l := range g.NVLinks {
		if l.A == a.Addr && l.B == b.Addr || l.A == b.Addr && l.B == a.Addr {
			return l.Count, true
		}
	}
	return 0, g.NVLinkRecorded
}

// NVLinkHint says why the accelerators of g may be joined by NVLink or
// xGMI that the source cannot show (NVSwitch functions, SXM or OAM
// modules, PCIe boards that take NVLink bridges, an NCCL topology without
// NVLink elements), or "" when nothing suggests it, there are fewer than
// two accelerators, or the source records every NVLink itself.
func (g *Graph) NVLinkHint() string {
	if g.NVLinkRecorded {
		return ""
	}
	accels, nvswitches, unidentified := 0, 0, 0
	var module, board string
	for _, d := range g.Devices {
		switch {
		case d.IsVirtualFunction():
		case d.Kind == KindNVSwitch:
			nvswitches++
		case d.Kind == KindAccelerator:
			accels++
			if d.VendorID == 0 && d.DeviceID == 0 && g.TextForm != "" {
				unidentified++
			}
			if module == "" {
				module = sxmModule(d)
			}
			if board == "" {
				board = bridgeBoards[partID(d)]
			}
			if board == "" && d.DeviceID == 0 {
				board = boardByName(d.Name)
			}
		}
	}
	switch {
	case accels < 2:
		return ""
	case g.TextForm == "NCCL topology print":
		// NCCL's INFO print gives a GPU's NVLink or xGMI bandwidth, not its link count.
		return "NCCL's topology print shows which accelerators NVLink or xGMI joins, not how many links"
	case g.NCCLView:
		// Provider topology files (Azure, AWS) leave NVLink out, as NCCL
		// asks NVML for it at run time, and fragments are cut short.
		return "an NCCL topology that does not record every NVLink (provider files leave it to NVML; fragments are cut)"
	case nvswitches > 0:
		return fmt.Sprintf("%d NVSwitch functions suggest it", nvswitches)
	case module != "":
		return module + " modules suggest it"
	case board != "":
		return board + " boards take NVLink bridges"
	case unidentified > 0:
		// lstopo without -v: the IDs that tell SXM/OAM modules and NVLink
		// bridge boards are not given.
		return "the source gives no accelerator device IDs, which tell SXM/OAM modules and NVLink bridge boards"
	}
	return ""
}

// unnamedDevice matches how pciutils names a device ID its pci.ids lacks
// ("NVIDIA Corporation Device 2335", lib/names.c), which is all an
// lspci -tv paste may say of a new GPU. It is compiled on first use, not at
// every start of gdtopo.
var unnamedDevice = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(NVIDIA Corporation|Advanced Micro Devices, Inc\. \[AMD/ATI\]) Device ([0-9a-f]{4})\b`)
})

// boardByName finds an NVLink bridge board in the model name a dump gives
// without the device ID (lspci without -nn: "GA102GL [RTX A6000]"); "" when
// none.
func boardByName(name string) string { return bracketedModel(name, bridgeBoards) }

// bracketedModel finds one of models' names at the start of the bracketed
// model in a dump's device name ("GB100 [B200]", as pciutils prints it
// from a pci.ids or udev hwdb that knows the ID): the longest such name,
// or "" when none.
func bracketedModel(name string, models map[uint32]string) string {
	best := ""
	for _, m := range models {
		if len(m) > len(best) && strings.Contains(name, "["+m) {
			best = m
		}
	}
	return best
}

// partID is d's vendor and device ID, read from a dump's name for it when
// the dump gave no IDs.
func partID(d *Device) uint32 {
	if d.DeviceID != 0 {
		return uint32(d.VendorID)<<16 | uint32(d.DeviceID)
	}
	m := unnamedDevice().FindStringSubmatch(d.Name)
	if m == nil {
		return 0
	}
	id, _ := strconv.ParseUint(m[2], 16, 16)
	vendor := uint32(VendorNVIDIA)
	if !strings.HasPrefix(m[1], "NVIDIA") {
		vendor = VendorAMD
	}
	return vendor<<16 | uint32(id)
}

// sxmModule names d's model when it is an SXM or OAM module, else "".
func sxmModule(d *Device) string {
	if m, ok := sxmParts[partID(d)]; ok {
		return m
	}
	up := strings.ToUpper(d.Name)
	for _, w := range sxmWords {
		if strings.Contains(up, w) {
			return d.Name
		}
	}
	if d.DeviceID == 0 {
		// A dump without IDs whose names come from a newer database than
		// the ID table's words: "GB100 [B200]" names no SXM.
		return bracketedModel(d.Name, sxmParts)
	}
	return ""
}

// VerifyPointer ends NVLinkLack's line: where gdtopo runs, its verify
// command compares the host's matrix; a page sent around replaces it.
const VerifyPointer = ": gdtopo verify)"

// NVLinkLack is the "Source lacks" line for NVLink: what the source cannot
// tell about the accelerator pairs and what would supply it, or "" when it
// records NVLink or nothing suggests any.
func (g *Graph) NVLinkLack() string {
	hint := g.NVLinkHint()
	if hint == "" {
		return ""
	}
	accels := g.OfKind(KindAccelerator)
	unknown, all := 0, 0
	for i, a := range accels {
		for _, b := range accels[i+1:] {
			all++
			if _, known := g.nvlinkKnown(a, b); !known {
				unknown++
			}
		}
	}
	fabric, label, supply := "NVLink", NVLinkUnknown, "; the host's nvidia-smi topo -m supplies it"+VerifyPointer
	if allAMD(accels) {
		// AMD's fabric is xGMI, and the host's matrix of it is rocm-smi's
		// (ROCm/rocm_smi_lib python_smi_tools/rocm_smi.py, --showtopo).
		fabric, label, supply = "xGMI", XGMI, "; the host's rocm-smi --showtopo shows it"+VerifyPointer
	}
	switch unknown {
	case 0:
		return ""
	case all:
		return fabric + " (" + hint + "; accelerator pairs read " + string(label) + "?" + supply
	}
	return fmt.Sprintf("%s of %d of %d accelerator pairs (%s; they read %s?%s", fabric, unknown, all, hint, label, supply)
}

// allAMD reports accelerators that are all AMD's, by ID or by a dump's name.
func allAMD(accels []*Device) bool {
	for _, d := range accels {
		if partID(d)>>16 != VendorAMD && (d.DeviceID != 0 || d.VendorID != VendorAMD) {
			return false
		}
	}
	return len(accels) > 0
}

// nvlinkPair applies what is known about NVLink to an accelerator pair p
// whose PCIe labels are set: a recorded bond gives NV# and NCCL's NVL; a
// pair NVLink may join, by hint, reads NVLinkUnknown with a note naming its
// PCIe label; a pair the source says has none keeps its PCIe label.
func (g *Graph) nvlinkPair(p *Pair, hint string) {
	count, known := g.nvlinkKnown(p.A, p.B)
	amd := p.A.Kind == KindAccelerator && p.B.Kind == KindAccelerator && allAMD([]*Device{p.A, p.B})
	switch {
	case count > 0 && amd:
		// RCCL's path type is XGMI (its name for NVL); the count stays in the path.
		p.PCIeSMI, p.PCIeSMIUncertain = p.SMI, p.LabelUncertain || p.SMI == Unknown
		n := strconv.Itoa(count)
		p.SMI, p.NCCL, p.Path = XGMI, NVL, "xGMI ("+n+" links)"
		p.LabelUncertain, p.NCCLUncertain, p.Notes = false, false, nil
	case count > 0:
		// nvidia-smi prints NV# for a direct NVLink bond; NCCL's path is NVL.
		p.PCIeSMI, p.PCIeSMIUncertain = p.SMI, p.LabelUncertain || p.SMI == Unknown
		n := strconv.Itoa(count)
		p.SMI, p.NCCL, p.Path = Label("NV"+n), NVL, "NVLink ("+n+" links)"
		p.LabelUncertain, p.NCCLUncertain, p.Notes = false, false, nil // the PCIe path's doubts do not touch the NVLink label
	case known || hint == "" || p.A.Kind != KindAccelerator || p.B.Kind != KindAccelerator:
	default:
		p.PCIeSMI, p.PCIeSMIUncertain = p.SMI, p.LabelUncertain || p.SMI == Unknown
		pcie := string(p.SMI)
		if p.PCIeSMIUncertain && p.SMI != Unknown {
			pcie += "?"
		}
		if amd {
			p.Notes = append([]string{"xGMI not in the source (" + hint +
				"): rocm-smi --showtopo gives link type XGMI if xGMI joins this pair, else its PCIe path " + pcie + " (" + p.Path + ")"}, p.Notes...)
			p.SMI, p.NCCL, p.Path = XGMI, NVL, "xGMI unknown ("+p.Path+" over PCIe)"
		} else {
			p.Notes = append([]string{"NVLink not in the source (" + hint +
				"): nvidia-smi prints NV# if NVLink joins this pair, else its PCIe label " + pcie + " (" + p.Path + ")"}, p.Notes...)
			p.SMI, p.NCCL, p.Path = NVLinkUnknown, NVL, "NVLink unknown ("+p.Path+" over PCIe)"
		}
		p.LabelUncertain = true
	}
}
