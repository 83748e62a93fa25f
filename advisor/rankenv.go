package advisor

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gdtopo/gdtopo/topology"
)

// The per-rank settings are chosen here, by the accelerator's runtime and
// by what drives each NIC in NCCL or RCCL: the runtime's visible-device
// variables, then the network variables the transport reads.

// deviceVars returns, for each accelerator of gpus (PCI address order), the
// variables that make it its rank's only device and the local rank that
// drives it (-1 where the source cannot tell), with notes saying why.
//
// NVIDIA: CUDA orders devices fastest first unless CUDA_DEVICE_ORDER=
// PCI_BUS_ID; the index counts NVIDIA GPUs only.
//
// AMD: no device variable. ROCR_VISIBLE_DEVICES, AMD's isolation variable
// on Linux, costs RCCL its P2P between the node's ranks when set per rank:
// RCCL asks hipDeviceCanAccessPeer about a peer by its ordinal in the
// asking process, which does not see it (ROCm/rocm-systems#8136); and
// HIP_VISIBLE_DEVICES beside it re-indexes what ROCr left
// (ROCm/ROCR-Runtime#155). Each rank takes HIP device LOCAL_RANK instead.
// HIP's order is ROCr's, the KFD topology's GPU nodes (ROCR-Runtime
// amd_topology.cpp, BuildTopology), which RCCL's topology file records as
// <gpu dev=…> and a sysfs tree does not: it need not be address order
// (RCCL's topo_16p1h has dev 0 at 4e:00.0, dev 4 at 0e:00.0). A GPU in
// DPX, QPX or CPX compute partitioning is one HIP device per partition.
func deviceVars(gpus []*topology.Device) ([][]EnvVar, []int, []string) {
	out := make([][]EnvVar, len(gpus))
	local := make([]int, len(gpus))
	nvidia := 0
	var amd []int
	modes := map[string]bool{}
	for i, d := range gpus {
		local[i] = i
		switch d.VendorID {
		case topology.VendorNVIDIA:
			out[i] = []EnvVar{{"CUDA_DEVICE_ORDER", "PCI_BUS_ID"}, {"CUDA_VISIBLE_DEVICES", strconv.Itoa(nvidia)}}
			nvidia++
		case topology.VendorAMD:
			amd = append(amd, i)
			if m := d.ComputePartition(); m != "" && m != "SPX" {
				modes[m] = true
			}
		}
	}
	var notes []string
	if nvidia > 0 {
		notes = append(notes, "with one accelerator visible, a rank's accelerator is its device 0: a program that picks its device by local rank (torch.cuda.set_device(LOCAL_RANK)) must pick device 0 with these set, or leave them out")
	}
	if len(amd) == 0 {
		return out, local, notes
	}
	notes = append(notes, "no ROCR_VISIBLE_DEVICES: set per rank it costs RCCL its P2P between the node's ranks (it treats a peer the rank cannot see as having no peer access, ROCm/rocm-systems#8136, and goes through host memory)")
	hip, known := hipIndexes(gpus, amd)
	for _, i := range amd {
		local[i] = -1
		if known && len(modes) == 0 {
			local[i] = hip[i]
		}
	}
	const byIndex = "each rank takes HIP device LOCAL_RANK (hipSetDevice, torch.cuda.set_device(LOCAL_RANK)), and its line binds the NIC and CPUs of the GPU at that index"
	switch {
	case len(modes) > 0:
		names := make([]string, 0, len(modes))
		for m := range modes {
			names = append(names, m)
		}
		slices.Sort(names)
		notes = append(notes, fmt.Sprintf("AMD accelerators in %s compute partitioning are one HIP device per partition, and the source does not tell which indexes each accelerator's partitions get: find each rank's HIP device's PCI address (rocm-smi --showbus) and use that accelerator's line", strings.Join(names, "/")))
	case known:
		notes = append(notes, byIndex+"; HIP device indexes are the topology file's <gpu dev> (RCCL's own numbering), not PCI address order")
	default:
		notes = append(notes, byIndex+"; which HIP device index each GPU has is ROCr's enumeration order (rocm-smi --showbus lists it), which the source does not give: the lines name each GPU; give each rank the line of the GPU at its index")
	}
	return out, local, notes
}

// hipIndexes reads the HIP device index of each AMD GPU (gpus[i], i in amd)
// from its NCCL topology <gpu dev>; known is false unless every one has a
// distinct index.
func hipIndexes(gpus []*topology.Device, amd []int) (map[int]int, bool) {
	hip := map[int]int{}
	seen := map[int]bool{}
	for _, i := range amd {
		n, err := strconv.Atoi(gpus[i].NCCLDev())
		if err != nil || n < 0 || seen[n] {
			return nil, false
		}
		hip[i], seen[n] = n, true
	}
	return hip, true
}

// netPlugin says why NCCL's own IB transport does not drive NIC n, which a
// net plugin then does, and "" where it does: an AWS EFA function (Amazon's
// vendor ID with an RDMA device, or the efa driver) runs through the
// aws-ofi-nccl plugin; where the source gives no IDs (a provider's NCCL
// file), RDMA devices all named rdma* are ones whose protocol is none of
// InfiniBand, RoCE, iWARP and OPA (rdma-core kernel-boot/rdma_rename.c),
// and NCCL's IB transport skips a port whose link layer is neither
// InfiniBand nor Ethernet (NCCL src/transport/net_ib/init.cc,
// ncclIbInitDevices), the only reader of NCCL_IB_HCA.
func netPlugin(n *topology.Device) string {
	switch {
	case isEFA(n):
		return "efa"
	case len(n.RDMA) == 0 || n.VendorID != 0:
		return ""
	}
	for _, r := range n.RDMA {
		if !strings.HasPrefix(r, "rdma") {
			return ""
		}
	}
	return "rdma"
}

// isEFA reports an AWS Elastic Fabric Adapter: the efa driver, an EFA
// device ID (Linux drivers/infiniband/hw/efa/efa_main.c, efa_pci_tbl:
// 1d0f:efa0-efa3), or an Amazon function with an RDMA device (ENA, Amazon's
// Ethernet function, has none).
func isEFA(n *topology.Device) bool {
	return n.Driver == "efa" || n.VendorID == topology.VendorAmazon && (topology.EFAID(n.DeviceID) || len(n.RDMA) > 0)
}

// pluginNote is the line that replaces NCCL_IB_HCA where a net plugin
// drives the plan's NICs. aws-ofi-nccl groups the NICs by the GPUs near
// them itself (src/nccl_ofi_topo.cpp, nccl_ofi_topo_group) and picks the
// efa provider on EC2 unless FI_PROVIDER says otherwise (src/platform-aws.cpp,
// PlatformAWS::init); its doc/efa-env-var.md asks for no FI_ variable with
// aws-ofi-nccl >= 1.7 and libfabric >= 1.18 (FI_PROVIDER=efa and
// FI_EFA_USE_DEVICE_RDMA=1 only for older plugins).
func pluginNote(kind string) string {
	const efa = "the aws-ofi-nccl plugin drives them and picks each GPU's NICs by topology itself: no NCCL_IB_HCA (NCCL's IB transport is its only reader), and no FI_ variable with aws-ofi-nccl >= 1.7 and libfabric >= 1.18 (aws-ofi-nccl doc/efa-env-var.md)"
	if kind == "efa" {
		return "EFA NICs: " + efa
	}
	return "NICs named rdma* speak neither InfiniBand nor RoCE, so NCCL's IB transport skips them and NCCL_IB_HCA does nothing; a net plugin drives them (AWS EFA: " + efa + ")"
}

// netVars are rank's network variables for its assignment: NCCL_IB_HCA
// (hca, the node's one list, NVIDIA/nccl#1478) where NCCL's IB transport
// drives the NIC, none where a net plugin does; UCX_NET_DEVICES with the
// rank's NICs, each at its first ACTIVE port (planPort; port 1 where no
// state is known), except where a net plugin drives the NIC (EFA);
// NCCL_SOCKET_IFNAME for a NIC without RDMA.
func netVars(as Assignment, hca string) []EnvVar {
	switch n := as.NIC; {
	case len(n.RDMA) > 0:
		devs := []string{n.RDMA[0] + ":" + planPort(n)}
		for _, m := range as.MoreNICs {
			if len(m.RDMA) > 0 {
				devs = append(devs, m.RDMA[0]+":"+planPort(m))
			}
		}
		var out []EnvVar
		if netPlugin(n) == "" && hca != "" {
			out = append(out, EnvVar{"NCCL_IB_HCA", hca})
		}
		if netPlugin(n) != "" {
			return out // EFA (and any rdma* device) is libfabric's (aws-ofi-nccl, Open MPI's ofi), not UCX's
		}
		return append(out, EnvVar{"UCX_NET_DEVICES", strings.Join(devs, ",")})
	case len(n.Netdevs) > 0:
		return []EnvVar{{"NCCL_SOCKET_IFNAME", "=" + n.Netdevs[0]}, {"UCX_NET_DEVICES", n.Netdevs[0]}}
	}
	return nil
}

// ibHCA is the node's NCCL_IB_HCA: the RDMA devices of used that NCCL's IB
// transport drives, exact names ('='), in address order; "" for none. The
// second result is the note for the NICs a net plugin drives, "" for none.
func ibHCA(nics []*topology.Device, used map[*topology.Device]bool) (string, string) {
	var hcas []string
	plugin := ""
	for _, n := range nics {
		if !used[n] {
			continue
		}
		if k := netPlugin(n); k != "" {
			if plugin == "" || k == "efa" {
				plugin = k
			}
			continue
		}
		if len(n.RDMA) > 0 {
			hcas = append(hcas, n.RDMA[0])
		}
	}
	note := ""
	if plugin != "" {
		note = pluginNote(plugin)
	}
	if len(hcas) == 0 {
		return "", note
	}
	return "=" + strings.Join(hcas, ","), note
}
