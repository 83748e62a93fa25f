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
// variables that make it its rank's only device, and notes saying why a
// rank has none.
//
// NVIDIA: CUDA orders devices fastest first unless CUDA_DEVICE_ORDER=
// PCI_BUS_ID; the index counts NVIDIA GPUs only.
//
// AMD: ROCR_VISIBLE_DEVICES alone, the variable AMD recommends on Linux
// (ROCm docs, "ROCm environment variables", GPU isolation: "On Linux, use
// ROCR_VISIBLE_DEVICES"). Never HIP_VISIBLE_DEVICES beside it: HIP indexes
// what ROCr has left (ROCm/ROCR-Runtime#155), so HIP_VISIBLE_DEVICES=i
// after ROCR_VISIBLE_DEVICES=i leaves every rank but 0 no GPU. ROCr counts
// the GPU nodes of the KFD topology (ROCR-Runtime amd_topology.cpp,
// BuildTopology), which amdgpu adds in probe order, PCI address order; a
// GPU in DPX, QPX or CPX compute partitioning adds one node per partition,
// so from the first such GPU on the source cannot tell a rank's index.
func deviceVars(gpus []*topology.Device) ([][]EnvVar, []string) {
	out := make([][]EnvVar, len(gpus))
	nvidia, amd := 0, 0
	var parted []int // ranks left without ROCR_VISIBLE_DEVICES
	modes := map[string]bool{}
	for i, d := range gpus {
		switch d.VendorID {
		case topology.VendorNVIDIA:
			out[i] = []EnvVar{{"CUDA_DEVICE_ORDER", "PCI_BUS_ID"}, {"CUDA_VISIBLE_DEVICES", strconv.Itoa(nvidia)}}
			nvidia++
		case topology.VendorAMD:
			if m := d.ComputePartition; m != "" && m != "SPX" {
				modes[m] = true
				amd = -1 // this GPU's partitions, and every index after them, are unknown
			}
			if amd < 0 {
				parted = append(parted, i)
				continue
			}
			out[i] = []EnvVar{{"ROCR_VISIBLE_DEVICES", strconv.Itoa(amd)}}
			amd++
		}
	}
	var notes []string
	if nvidia > 0 || amd > 0 {
		notes = append(notes, "with one accelerator visible, a rank's accelerator is its device 0: a program that picks its device by local rank (torch.cuda.set_device(LOCAL_RANK)) must pick device 0 with these set, or leave them out")
	}
	if amd > 0 {
		// RCCL asks hipDeviceCanAccessPeer about a peer by its ordinal in
		// the asking process, which does not see it: such pairs have no
		// peer access (ROCm/rocm-systems#8136) and go through host memory.
		notes = append(notes, "ROCR_VISIBLE_DEVICES per rank costs RCCL its P2P between ranks (over xGMI on OAM platforms): it treats a peer the rank cannot see as having no peer access (ROCm/rocm-systems#8136) and goes through host memory; where ranks of one node talk, leave it out and pick the device by local rank")
	}
	if len(parted) == 0 {
		return out, notes
	}
	names := make([]string, 0, len(modes))
	for m := range modes {
		names = append(names, m)
	}
	slices.Sort(names)
	whose := ""
	if len(parted) < len(gpus) { // the rest have theirs; name the ones without
		bdfs := make([]string, len(parted))
		for j, i := range parted {
			bdfs[j] = gpus[i].BDF()
		}
		whose = " for the ranks of " + strings.Join(bdfs, ", ")
	}
	return out, append(notes, fmt.Sprintf("no ROCR_VISIBLE_DEVICES%s: AMD accelerators in %s compute partitioning are one ROCr device per partition, and the source does not tell which index each gets",
		whose, strings.Join(names, "/")))
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
	return n.Driver == "efa" || n.VendorID == 0x1d0f && (n.DeviceID >= 0xefa0 && n.DeviceID <= 0xefa3 || len(n.RDMA) > 0)
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
