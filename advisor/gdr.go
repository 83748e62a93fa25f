package advisor

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/gdtopo/gdtopo/topology"
)

// pathRank orders NCCL's path types as src/graph/topo.h numbers them
// (2.30: LOC NVL NVB C2C PIX PXB P2C PXN PHB SYS). Releases before 2.26
// lack C2C and P2C but keep the same order among the rest.
var pathRank = map[topology.Label]int{"LOC": 0, topology.NVL: 1, "NVB": 2, "C2C": 3, topology.PIX: 4,
	topology.PXB: 5, topology.P2C: 6, "PXN": 7, topology.PHB: 8, topology.SYS: 10}

// ncclRank is a label's pathRank; nvidia-smi's NODE is NCCL's PHB.
func ncclRank(l topology.Label) (int, bool) {
	if l == topology.NODE {
		l = topology.PHB
	}
	r, ok := pathRank[l]
	return r, ok
}

// gdrLevel is the NCCL_NET_GDR_LEVEL cutoff for version v (paths.cc
// ncclTopoCheckGdr, ncclGetLevel): PXB, or P2C from 2.29 when
// NCCL_NET_GDR_C2C is on; a set variable wins when NCCL would parse it (a
// path name of that release, or, starting with a digit, strtol(str, NULL,
// 0) of the old numbers 0-5 → LOC PIX PXB PHB SYS SYS of levelsOldToNew,
// larger ones the last). An unparsed value leaves the default, as in NCCL.
// set names the variables that decided the level.
func (a *analysis) gdrLevel() (level topology.Label, why string, set []string) {
	level, why = topology.PXB, "default PXB"
	if a.v.minor >= 29 {
		c2c, from := a.gdrC2C()
		if c2c {
			level, why = topology.P2C, "default P2C (NCCL_NET_GDR_C2C=1)"
			if !a.grace {
				why = "default P2C (NCCL_NET_GDR_C2C=1; without NVLink-C2C no pair is P2C, so PXB in effect)"
			}
		}
		if from != "" {
			set = append(set, from)
		}
	}
	s, ok := a.env["NCCL_NET_GDR_LEVEL"]
	if !ok {
		return level, why, set
	}
	names := []topology.Label{"LOC", topology.NVL, "NVB", topology.PIX, topology.PXB, "PXN", topology.PHB, topology.SYS}
	if a.v.minor >= 26 { // C2C from 2.26, P2C from 2.27 (topo.cc topoPathTypeStr)
		names = append(names, "C2C")
	}
	if a.v.minor >= 27 {
		names = append(names, topology.P2C)
	}
	for _, n := range names {
		if s == string(n) {
			return n, "NCCL_NET_GDR_LEVEL=" + s, []string{"NCCL_NET_GDR_LEVEL=" + s}
		}
	}
	if s != "" && s[0] >= '0' && s[0] <= '9' {
		n, ok := strtoll(s)
		old := []topology.Label{"LOC", topology.PIX, topology.PXB, topology.PHB, topology.SYS, topology.SYS}
		if !ok || n > int64(len(old)-1) {
			n = int64(len(old) - 1) // strtol saturates; NCCL clamps to maxOldLevel
		}
		return old[n], "NCCL_NET_GDR_LEVEL=" + s, []string{"NCCL_NET_GDR_LEVEL=" + s}
	}
	return level, why + " (NCCL_NET_GDR_LEVEL=" + s + " not understood by this release)", set
}

// gdrC2C is NCCL_NET_GDR_C2C: absent before 2.26, default 0 in 2.26 and 1
// from 2.27 (paths.cc NCCL_PARAM(NetGdrC2c)); from is "NAME=value" where
// the variable decided it.
func (a *analysis) gdrC2C() (on bool, from string) {
	if a.v.minor < 26 {
		return false, ""
	}
	def := int64(0)
	if a.v.minor >= 27 {
		def = 1
	}
	n, set := a.envParam("NCCL_NET_GDR_C2C", def)
	if set {
		from = "NCCL_NET_GDR_C2C=" + a.env["NCCL_NET_GDR_C2C"]
	}
	return n != 0, from
}

// gdrRead is NCCL_NET_GDR_READ (default -2: NCCL decides).
func (a *analysis) gdrRead() int64 {
	n, _ := a.envParam("NCCL_NET_GDR_READ", -2)
	return n
}

// tri is a three-way answer.
type tri int

const (
	unknown tri = iota
	yes
	no
)

// gdr applies ncclTopoCheckGdr (NCCL src/graph/paths.cc) of the chosen
// version to the pair, for both directions: recvSetup asks with read=0 (the
// NIC writes GPU memory), sendSetup with read=1 (it reads). Each branch of
// the function is a step here, in its order:
//
//  1. net->net.gdrSupport == 0 or gpu->gpu.gdrSupport == 0: off.
//  2. (2.30.7) an MLOPart GPU with NCCL_NET_GDR_MLOPART=0: off; sysfs
//     cannot show MLOPart, so it is not applied.
//  3. read: NCCL_NET_GDR_READ=0 turns reads off; at its default, reads stay
//     on only with an NVLink (PATH_NVL) peer or a single GPU, for every GPU
//     before 2.19 and for cudaCompCap < 80 from 2.19.
//  4. the level: PXB, P2C from 2.29 with NCCL_NET_GDR_C2C, or
//     NCCL_NET_GDR_LEVEL; in 2.26-2.28 a P2C distance counts as C2C when
//     NCCL_NET_GDR_C2C is on (2.26 has no P2C: it asks for PHB with the
//     GPU's CPU reached over C2C, the same pairs).
//  5. distance > level: off.
func (a *analysis) gdr(p topology.Pair, pr *Prediction, note func(string)) {
	gpu, nic := p.A, p.B
	var why, doubt []string
	// mayBeOff and mayBeOn say a doubt could turn the verdict: the NIC or
	// accelerator may lack support, peer memory and dma-buf may both be
	// missing (gdrSupport 0, net/ib gdr.cc), the distance may be another.
	var mayBeOff, mayBeOn bool

	// 1. NIC side: gdrSupport is ptrSupport & NCCL_PTR_CUDA (a peer-memory
	// module) or dma-buf (net/ib gdr.cc, init.cc dmaBufSupported).
	net := yes
	switch nic.NCCLGDR() {
	case "0":
		net = no
		why = append(why, "NCCL topology file: <net gdr=\"0\">")
	case "1":
	default:
		switch r, ev := a.nicRDMA(nic); r {
		case no:
			net = no
			why = append(why, fmt.Sprintf("%s has no RDMA (%s): NCCL would use sockets", nic.BDF(), ev))
		case unknown:
			net, mayBeOff = unknown, true
			doubt = append(doubt, fmt.Sprintf("RDMA support of %s unknown (%s)", nic.BDF(), ev))
		}
		if net != no && gpu.VendorID == topology.VendorNVIDIA {
			pm := a.peerMemory(gpu)
			pr.GDRMechanism = pm.mechanism
			switch pm.state {
			case no:
				net = no
				why = append(why, pm.why)
			case unknown:
				net, mayBeOff = unknown, true
				doubt = append(doubt, pm.why)
			}
			if pm.note != "" {
				note(pm.note)
			}
		}
	}
	// 1. GPU side: cudaDevAttrGPUDirectRDMASupported (plugin/net.cc
	// ncclGpuGdrSupport), or the file's <gpu gdr>.
	switch {
	case gpu.NCCLGDR() == "0":
		why = append(why, "NCCL topology file: <gpu gdr=\"0\">")
	case gpu.NCCLGDR() == "1":
	case gpu.VendorID != 0 && gpu.VendorID != topology.VendorNVIDIA && !amdGPU(gpu):
		// NCCL and RCCL decide GPUDirect RDMA for NVIDIA and AMD GPUs
		// only; another accelerator's memory is a NIC's DMA target only
		// through its vendor's peer-memory client or dma-buf exporter.
		mayBeOff = true
		doubt = append(doubt, fmt.Sprintf("%s is not an NVIDIA or AMD GPU: whether a NIC can reach its memory directly depends on its vendor's driver (a peer-memory client or dma-buf exporter), which the source does not show", gpu.BDF()))
	case gpu.VendorID != topology.VendorNVIDIA:
		note("GPUDirect RDMA rules are NCCL's (NVIDIA): for this accelerator only the distance rule is applied")
	case preKepler(gpu):
		why = append(why, fmt.Sprintf("%s is a Fermi or older GPU: cudaDevAttrGPUDirectRDMASupported is 0 (GPUDirect RDMA starts with Kepler, CUDA's GPUDirect RDMA guide; no current CUDA or NCCL runs on it)", gpu.BDF()))
	case geForce(gpu):
		why = append(why, fmt.Sprintf("%s is a GeForce part: cudaDevAttrGPUDirectRDMASupported is 0 (GPUDirect RDMA is for data-center and workstation GPUs)", gpu.BDF()))
	case gpu.Name == "":
		note("GPU model name unknown: GPUDirect RDMA support (not on GeForce parts) taken as present")
	}

	// The NVIDIA driver maps GPU memory for a Data Direct function only
	// when the function shares its GPU's IOMMU group, unless
	// NVreg_GrdmaPciTopoCheckOverride=1 (rdma-core kernel-boot/rdma_topo,
	// check: "Correct iommu_groups are required to avoid
	// NVreg_GrdmaPciTopoCheckOverride").
	if dd := p.DataDirect; dd != nil && dd.IOMMUGroup != "" && gpu.IOMMUGroup != "" && dd.IOMMUGroup != gpu.IOMMUGroup {
		why = append(why, fmt.Sprintf("Data Direct %s is in IOMMU group %s and %s in %s: the NVIDIA driver's PCI topology check refuses the mapping until rdma_topo's ACS setting joins them (or NVreg_GrdmaPciTopoCheckOverride=1)",
			dd.BDF(), dd.IOMMUGroup, gpu.BDF(), gpu.IOMMUGroup))
	}

	// 4-5. Distance against the level.
	level, levelWhy, setBy := a.gdrLevel()
	distance := p.NCCL
	if r, ok := a.pxn[pairKey{gpu, nic}]; ok {
		// PXN: "In case of PXN, use the intermediate GPU distance instead".
		distance, pr.PXNVia = r.label, r.peer
	}
	if c2c, from := a.gdrC2C(); a.v.minor >= 26 && a.v.minor <= 28 && distance == topology.P2C {
		if c2c {
			distance = "C2C" // paths.cc: "On C2C platforms we can still use GDRDMA on NICs connected to the CPUs"
		}
		if from != "" {
			setBy = append(setBy, from)
		}
	}
	whyBeforeDistance := len(why)
	dr, okD := ncclRank(distance)
	lr, _ := ncclRank(level)
	switch {
	case !okD:
		mayBeOff, mayBeOn = true, true
		doubt = append(doubt, fmt.Sprintf("NCCL path type %q unknown", distance))
	case dr > lr:
		msg, ok := a.beyondLevel[p.NCCL]
		if pr.PXNVia != nil {
			msg, ok = fmt.Sprintf("PXN through %s: its NCCL distance %s > GDR level %s (NCCL %s, %s)", pr.PXNVia.BDF(), distance, level, a.v, levelWhy), true
		}
		if !ok {
			msg = fmt.Sprintf("NCCL distance %s > GDR level %s (NCCL %s, %s)", p.NCCL, level, a.v, levelWhy)
			if a.beyondLevel == nil {
				a.beyondLevel = map[topology.Label]string{}
			}
			a.beyondLevel[p.NCCL] = msg
		}
		why = append(why, msg)
	}
	if p.LabelUncertain {
		mayBeOff, mayBeOn = true, true
		doubt = append(doubt, "the path's label rests on a guess")
	}
	if amdGPU(gpu) && okD && dr > lr && distance == topology.PHB && len(setBy) == 0 {
		if why := a.rcclMayAllow(gpu, nic); why != "" {
			mayBeOn = true
			doubt = append(doubt, "RCCL, not NCCL, decides GDR for AMD GPUs and may allow it here: "+why+" (ROCm/rccl src/graph/paths.cc); gdtopo applies NCCL's rule")
		}
	}
	if r, ok := a.pxnMaybe[pairKey{gpu, nic}]; ok && okD && dr > lr {
		if rr, ok := ncclRank(r.label); ok && rr <= lr {
			mayBeOn = true
			doubt = append(doubt, fmt.Sprintf("if NVLink joins %s, which the source cannot show, NCCL reaches this NIC through it (PXN) and GDR follows its distance %s", r.peer.BDF(), r.label))
		}
	}
	if a.v.newer() {
		note(fmt.Sprintf("NCCL %s is newer than %s: its rules taken", a.v, DefaultNCCLVersion))
	}
	pr.GDR = len(why) == 0
	pr.GDRRead = pr.GDR
	// Off for a reason besides the distance stays off whatever the
	// distance; the reads' doubts, below, leave the receive side decided.
	pr.GDRUndecided = pr.GDR && mayBeOff || !pr.GDR && mayBeOn && whyBeforeDistance == 0
	if len(setBy) > 0 && okD {
		cmp := "≤"
		if dr > lr {
			cmp = ">"
		}
		pr.GDRSetBy = append(pr.GDRSetBy, fmt.Sprintf("distance %s %s GDR level %s (%s)", distance, cmp, level, strings.Join(setBy, ", ")))
	}

	// 3. Reads.
	if pr.GDR {
		switch rd := a.gdrRead(); {
		case rd == 0:
			pr.GDRRead = false
			why = append(why, "send side: NCCL_NET_GDR_READ="+a.env["NCCL_NET_GDR_READ"])
			pr.GDRSetBy = append(pr.GDRSetBy, "reads off (NCCL_NET_GDR_READ="+a.env["NCCL_NET_GDR_READ"]+")")
		case rd > 0:
			pr.GDRSetBy = append(pr.GDRSetBy, "reads on (NCCL_NET_GDR_READ="+a.env["NCCL_NET_GDR_READ"]+")")
		case rd < 0 && gpu.VendorID == topology.VendorNVIDIA:
			sm, ok := computeCapability(gpu)
			if !ok && a.v.minor >= 19 {
				id := fmt.Sprintf("device %04x", gpu.DeviceID)
				if gpu.DeviceID == 0 {
					id = "its device ID, which the source does not give"
				}
				doubt = append(doubt, fmt.Sprintf("compute capability of %s unknown (%s): GDR reads taken as on", gpu.BDF(), id))
			}
			if (ok && sm < 80) || a.v.minor < 19 {
				switch a.nvlinkPeer(gpu) {
				case no:
					pr.GDRRead = false
					rule := "pre-Ampere GPUs (cudaCompCap < 80)"
					if a.v.minor < 19 {
						rule = "every GPU before NCCL 2.19"
					}
					why = append(why, "send side: NCCL turns GDR reads off for "+rule+" without an NVLink peer")
				case unknown:
					doubt = append(doubt, "NVLink is not visible in this source: NCCL keeps GDR reads on only with an NVLink peer (or one GPU)")
				}
			}
		}
	}
	if net == unknown && pr.GDR {
		doubt = append(doubt, "GDR taken as on")
	}
	pr.GDRReason = strings.Join(why, "; ")
	pr.GDRUnknown = strings.Join(doubt, "; ")
}

// rcclMayAllow says which of RCCL's own GDR rules (ROCm/rccl
// src/graph/paths.cc) may turn GDR on for a PHB pair of an AMD GPU, "" for
// none: ncclTopoCheckGdr's level PHB on CPUs its topo.cc calls ROME (AMD
// family 0x17 model >= 0x31, and family 0x19: its familyid 143 and 175)
// for a GPU and NIC on one CPU whose bus IDs agree in bits 16-19 (the bus
// number's high nibble); ncclTopoComputePaths' rcclPathOverride, which
// counts each MI300-class GPU's paired NIC PXB on Intel Hyper-V VMs, where
// the source cannot rule a VM out (the BIOS string is not in it).
func (a *analysis) rcclMayAllow(gpu, nic *topology.Device) string {
	s := a.g.System
	rome := s.CPUVendor == "AuthenticAMD" && (s.CPUFamily == 0x17 && s.CPUModelID >= 0x31 || s.CPUFamily == 0x19)
	switch {
	case rome && gpu.NUMANode >= 0 && gpu.NUMANode == nic.NUMANode && gpu.Addr.Bus>>4 == nic.Addr.Bus>>4:
		return "on this AMD CPU it sets the GDR level to PHB for a GPU and NIC on one CPU whose bus numbers share their high digit"
	case a.rcclPathOverride(gpu) && hyperVPCI(a.g):
		return "on Hyper-V VMs with Intel CPUs, as this one is (each device on a PCI domain of its own), it counts each MI300-class GPU's paired NIC as PXB (rcclPathOverride)"
	case a.rcclPathOverride(gpu):
		return "on Hyper-V VMs with Intel CPUs it counts each MI300-class GPU's paired NIC as PXB (rcclPathOverride), and this source cannot show whether the host is one"
	}
	return ""
}

// rcclPathOverride reports an MI300-class GPU of a guest on a non-AMD CPU,
// whose paired NIC RCCL may count as PXB (ROCm/rccl src/graph/paths.cc,
// rcclPathOverride, on Hyper-V VMs with Intel CPUs): its PHB is no
// "no local NIC" to RCCL.
func (a *analysis) rcclPathOverride(gpu *topology.Device) bool {
	return a.g.System.CPUVendor != "AuthenticAMD" && mi300Class(gpu) && (a.inVM() || a.g.NCCLView) // inVM takes Hyper-V's PCI
}

// mi300Class reports an AMD Instinct MI300 or MI350-series function
// (gfx942, gfx950: device IDs 0x74a0-0x74bf and 0x75a0-0x75bf), or an RCCL
// file's GPU named by those architectures.
func mi300Class(d *topology.Device) bool {
	id := d.DeviceID
	return d.VendorID == topology.VendorAMD && (id >= 0x74a0 && id <= 0x74bf || id >= 0x75a0 && id <= 0x75bf) ||
		strings.Contains(d.Name, "gfx942") || strings.Contains(d.Name, "gfx950")
}

// amdGPU reports an AMD accelerator: AMD's vendor ID, or an RCCL topology
// file's GPU named by its gcn architecture (ncclxml.gpuModel) without IDs.
func amdGPU(d *topology.Device) bool {
	return d.VendorID == topology.VendorAMD || d.VendorID == 0 && strings.HasPrefix(d.Name, "AMD GPU ")
}

// nvlinkPeer says whether gpu has an NVLink (PATH_NVL) peer among NCCL's
// GPUs, or is the only one (paths.cc: "keep things local if we have a
// single GPU"). NVLinks come from an NCCL topology file or nvidia-smi; a
// sysfs tree cannot show them.
func (a *analysis) nvlinkPeer(gpu *topology.Device) tri {
	var gpus []*topology.Device
	for _, d := range a.g.OfKind(topology.KindAccelerator) {
		if d.VendorID == topology.VendorNVIDIA {
			gpus = append(gpus, d)
		}
	}
	if len(gpus) <= 1 {
		return yes
	}
	for _, d := range gpus {
		if d != gpu && a.g.NVLinkCount(gpu, d) > 0 {
			return yes
		}
	}
	if a.g.NCCLView || len(a.g.NVLinks) > 0 {
		return no
	}
	return unknown
}

// preKepler reports an NVIDIA GPU of compute capability below 3.0.
func preKepler(d *topology.Device) bool {
	sm, ok := computeCapability(d)
	return ok && sm < 30
}

// geForce reports a GeForce or TITAN part by its model name.
func geForce(d *topology.Device) bool {
	return strings.Contains(d.Name, "GeForce") || strings.Contains(d.Name, "TITAN")
}

// nicRDMA says whether NCCL can use the NIC over verbs: an RDMA device in
// the source, or, when the source holds none at all, the model.
func (a *analysis) nicRDMA(n *topology.Device) (tri, string) {
	if len(n.RDMA) > 0 || n.NCCLGDR() != "" {
		return yes, "RDMA device " + strings.Join(n.RDMA, ",")
	}
	if a.rdmaListed() {
		return no, "no sys/class/infiniband device"
	}
	return rdmaByModel(n)
}

// rdmaListed reports whether the source tells every RDMA device: another
// NIC has one, or it holds sys/class/infiniband. A NIC with none then has
// none.
func (a *analysis) rdmaListed() bool { return a.anyRDMA || a.g.System.RDMAListed }

// rdmaByModel is topology.RDMAByModel as a tri.
func rdmaByModel(n *topology.Device) (tri, string) {
	has, why := topology.RDMAByModel(n)
	switch has {
	case topology.RDMAEngineYes:
		return yes, why
	case topology.RDMAEngineNo:
		return no, why
	}
	return unknown, why
}

// peerMemoryState is what peerMemory found.
type peerMemoryState struct {
	state     tri
	mechanism string // "nvidia-peermem", "dma-buf", or "" when none applies
	why       string // why off or unknown
	note      string
}

// kernelRE finds the kernel release in a BOOT_IMAGE path
// (vmlinuz-6.8.0-45-generic); compiled on first use, not at every start.
var kernelRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`vmlinu[xz]-(\d+)\.(\d+)`) })

// kernelVersion reads major.minor of the running kernel from the command
// line's BOOT_IMAGE; ok is false when it is not there.
func kernelVersion(cmdline string) (major, minor int, ok bool) {
	m := kernelRE().FindStringSubmatch(cmdline)
	if m == nil {
		return 0, 0, false
	}
	major, _ = strconv.Atoi(m[1])
	minor, _ = strconv.Atoi(m[2])
	return major, minor, true
}

// peerMemory decides how the NIC can reach GPU memory: a peer-memory module
// (nvidia_peermem, nv_peer_mem, memory_peers: net_ib gdr.cc), else dma-buf,
// which needs NCCL 2.13 or newer, a kernel with RDMA dma-buf (5.12), the
// open NVIDIA kernel module (NCCL troubleshooting, "GPU Direct RDMA") and so
// a Turing or newer GPU, and CUDA 11.7.
func (a *analysis) peerMemory(gpu *topology.Device) peerMemoryState {
	p := a.g.Platform
	if len(p.PeerMemory) > 0 {
		s := peerMemoryState{state: yes, mechanism: "nvidia-peermem"}
		if a.v.minor <= 18 && !strings.Contains(strings.Join(p.PeerMemory, " "), "memory_peers") {
			s.note = "NCCL 2.18 and older look only under sys/kernel/mm/memory_peers: the module alone may not count"
		}
		return s
	}
	if !p.ModulesRead {
		return peerMemoryState{state: unknown, why: "peer-memory evidence not captured (sys/module)"}
	}
	return a.dmaBuf(gpu)
}

// dmaBuf decides dma-buf where no peer-memory module is loaded, from what
// the capture shows: the NCCL release, the GPU generation, the driver's
// flavour (sys/module/nvidia/taint: P is the proprietary driver, which has
// no dma-buf export) and the kernel (RDMA dma-buf from 5.12).
func (a *analysis) dmaBuf(gpu *topology.Device) peerMemoryState {
	off := func(why string) peerMemoryState {
		return peerMemoryState{state: no, why: "no peer-memory module (nvidia_peermem, nv_peer_mem) and " + why}
	}
	if a.v.minor < 13 {
		return off("NCCL before 2.13 has no dma-buf")
	}
	if sm, ok := computeCapability(gpu); ok && sm < 75 {
		return off(fmt.Sprintf("dma-buf needs the open NVIDIA kernel module, which does not drive this pre-Turing GPU (sm %d)", sm))
	}
	p := a.g.Platform
	open := unknown
	if p.NVIDIATaintRead {
		open = yes
		if strings.Contains(p.NVIDIATaint, "P") {
			open = no
		}
	}
	if open == no {
		return off(fmt.Sprintf("the proprietary NVIDIA driver is loaded (sys/module/nvidia/taint = %s): dma-buf needs the open kernel module", p.NVIDIATaint))
	}
	major, minor, ok := kernelVersion(a.g.System.Cmdline)
	switch {
	case ok && (major < 5 || major == 5 && minor < 12):
		return off(fmt.Sprintf("kernel %d.%d predates RDMA dma-buf (5.12)", major, minor))
	case !ok:
		return peerMemoryState{state: unknown, mechanism: "dma-buf",
			why: "no peer-memory module; dma-buf needs kernel 5.12+ and the open NVIDIA kernel module, and the capture does not show the kernel release"}
	case open == yes:
		return peerMemoryState{state: yes, mechanism: "dma-buf",
			why: fmt.Sprintf("no peer-memory module, but the open NVIDIA kernel module (sys/module/nvidia/taint = %q) on kernel %d.%d exports GPU memory as dma-buf (NCCL_DMABUF_ENABLE=1 is the default)", p.NVIDIATaint, major, minor)}
	}
	return peerMemoryState{state: unknown, mechanism: "dma-buf",
		why: fmt.Sprintf("no peer-memory module; kernel %d.%d supports dma-buf, which works with the open NVIDIA kernel module only, and the capture lacks sys/module/nvidia/taint to tell which driver is loaded", major, minor)}
}
