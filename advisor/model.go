package advisor

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
)

// Confidence of a model number.
const (
	FromCode     = "code"     // read from NCCL or kernel source
	FromDoc      = "doc"      // vendor or standard documentation
	FromMeasured = "measured" // a published measurement, or a site's own (--model)
	Assumed      = "assumed"  // gdtopo's estimate: replace it with a measurement
)

// Param is one number of the prediction model.
type Param struct {
	Key        string  `json:"key"` // the --model JSON key
	Value      float64 `json:"value"`
	Unit       string  `json:"unit"`
	Source     string  `json:"source"`
	Confidence string  `json:"confidence"`
	max        float64 // largest accepted override; 0 for none
}

// Model holds every number the predictions and thresholds use, in one
// place, each with its source. A --model JSON file may replace any of them
// by key (docs/advice.md; `gdtopo calibrate` writes one).
//
// Direction: "write" is the NIC writing GPU memory (the receive side of
// RDMA, ib_write_bw's server), "read" the NIC reading it (the send side).
//
//	key                            default unit  confidence source
//	tlp_overhead_bytes             24      B     doc       per-TLP framing+sequence+4DW header+LCRC, no ECRC: 6 DW (Intel AN 708 "TLP Packet Overhead", 5-7 DW)
//	default_mps_bytes              256     B     assumed   Max_Payload_Size when no DevCtl on the path was readable
//	phb_factor_intel               0.8333  ×     code      NCCL INTEL_P2P_OVERHEAD (bw*6/5) on PCI links through an Intel root complex (NCCL src/graph/topo.h, search.cc followPath)
//	phb_factor_amd                 1       ×     measured  NIC→GPU writes through an EPYC 7452 root complex at the Gen3 path's rate, 14.3 GB/s (stackoverflow.com/q/59277346)
//	phb_factor_other               0.8333  ×     assumed   other or unknown CPUs: Intel's overhead taken
//	phb_factor_grace               0.98    ×     measured  NVIDIA Grace: ~49 GB/s (392 Gb/s) NIC-GPU P2P on a 400 Gb/s NDR NIC through Grace to an H100 on NVLink-C2C (NVIDIA's MLPerf Inference v3.1 disclosure, mlcommons/inference_results_v3.1 closed/NVIDIA/documentation/start_from_device/gh200-grace-hopper.md)
//	read_factor_intel_client       0.01    ×     measured  Intel client CPUs support PCIe P2P writes only: GPU-memory reads fail (NVIDIA/open-gpu-kernel-modules#1253, maintainer)
//	read_factor_intel_snb          0.1     ×     measured  P2P reads through a Sandy Bridge root complex (NVIDIA, "Benchmarking GPUDirect RDMA on Modern Server Platforms", 2014); the low end of Ivy Bridge-EP's range, whose own figure was not read
//	read_factor_grace              1       ×     measured  reads through Grace: the GH200 figure above is for P2P transfers either way; NCCL's maintainers found GDR on GH200 as fast as staging through the CPU, and a site's all-reduce faster with it (NVIDIA/nccl#1579)
//	read_factor_amd_zen2_volta     0.43    ×     measured  NIC reads V100 memory at 6.1 of 14.3 GB/s through an EPYC 7452 (Rome) root complex (stackoverflow.com/q/59277346)
//	read_factor_min                0.43    ×     assumed   other CPUs at PHB/NODE/SYS: the lowest read seen on a server CPU (stackoverflow.com/q/59277346) as the range's low end
//	read_factor_max                1       ×     measured  the range's high end: reads at the write figure; a one-way GDR stream, bound by the sender's reads, ran at 85 Gb/s on 100 Gb/s across sockets (openucx/ucx#11121), 180 of 200 Gb/s on a Threadripper PRO (NVIDIA/open-gpu-kernel-modules#1253)
//	sys_p2p_gbps                   92.27   Gb/s  measured  GPU memory over RDMA across sockets, 11000 MB/s (perftest's MB is 2^20 B: format_factor 0x100000) on an A30 and mlx5 200 Gb/s (linux-rdma/perftest#241); 85 Gb/s on 100 Gb/s RoCE (openucx/ucx#11121): the range's low end, its high end the CPU's inter-socket figure below
//	sys_p2p_gbps_intel_pre_skl     8       Gb/s  assumed   Intel before Skylake-SP: cross-socket P2P collapses to a few Gb/s (NVIDIA 2014 benchmarking post); no figure read
//	inter_socket_gbps_intel_bdw    48      Gb/s  code      BDW_QPI_BW 6 GB/s ×8 (NCCL topo.h, ncclTopoGetInterCpuBw): Intel older than Skylake-SP
//	inter_socket_gbps_intel_skl    80      Gb/s  code      SKL_QPI_BW 10 GB/s ×8: family 6, model ≥ 0x55
//	inter_socket_gbps_intel_srp    176     Gb/s  code      SRP_QPI_BW 22 GB/s ×8: model ≥ 0x8F
//	inter_socket_gbps_intel_erp    320     Gb/s  code      ERP_QPI_BW 40 GB/s ×8: model ≥ 0xCF
//	inter_socket_gbps_amd          128     Gb/s  code      AMD_BW 16 GB/s ×8
//	inter_socket_gbps_zhaoxin      48      Gb/s  code      ZPI_BW 6 GB/s ×8 (Yongfeng, family 7 model 0x5B: 9 GB/s, below)
//	inter_socket_gbps_yongfeng     72      Gb/s  code      YONGFENG_ZPI_BW 9 GB/s ×8
//	inter_socket_gbps_arm          48      Gb/s  code      ARM_BW 6 GB/s ×8 (arch arm64)
//	inter_socket_gbps_power        256     Gb/s  code      P9_BW 32 GB/s ×8 (arch ppc64)
//	iommu_factor                   0.9     ×     assumed   translated DMA (IOTLB misses); no public figure
//	host_staged_factor             0.65    ×     measured  UCX staging through host memory, 65 Gb/s on a 100 Gb/s RoCE NIC where GDR gave 85 (openucx/ucx#11121)
//	sys_staged_per_gdr             0.765   ×     measured  across sockets staging is at most this share of GDR's write figure: 65 of 85 Gb/s (openucx/ucx#11121)
//	min_max_read_request_bytes     256     B     doc       fwts flags MaxReadReq below 256 as too low (fwts pcie maxreadreq test)
//	nic_max_read_request_bytes     4096    B     assumed   value Mellanox tuning guides recommend for ConnectX, not re-verified
//	min_bar_gib                    16      GiB   doc       Tesla-class large BAR1 is ≥ 16 GB (CUDA GPUDirect RDMA §3.5)
//
// read_factor_intel_client is 0.01, not 0: reads fail outright, and the
// figure only keeps the pair below every working one.
//
// PCIe line encoding is not a parameter: 8b/10b at 2.5 and 5 GT/s, 128b/130b
// from 8 GT/s (PCIe base specification).
type Model struct {
	TLPOverheadBytes, DefaultMPSBytes                      Param
	PHBFactorIntel, PHBFactorAMD, PHBFactorOther           Param
	PHBFactorGrace, ReadGrace                              Param
	ReadIntelClient, ReadIntelSNB, ReadAMDZen2Volta        Param
	ReadMin, ReadMax                                       Param
	SYSP2P, SYSP2PIntelPreSKL                              Param
	InterSocketBDW, InterSocketSKL, InterSocketSRP         Param
	InterSocketERP, InterSocketAMD                         Param
	InterSocketZhaoxin, InterSocketYongfeng                Param
	InterSocketARM, InterSocketPower                       Param
	IOMMUFactor, HostStagedFactor, SYSStagedPerGDR         Param
	MinMaxReadRequestBytes, NICMaxReadRequestBytes, MinBAR Param
}

// DefaultModel returns the model with the numbers of the table above.
func DefaultModel() *Model {
	p := func(key string, v float64, unit, conf, src string, max float64) Param {
		return Param{Key: key, Value: v, Unit: unit, Confidence: conf, Source: src, max: max}
	}
	const nccl = "NCCL src/graph/topo.cc ncclTopoGetInterCpuBw, "
	const so = "stackoverflow.com/q/59277346 (EPYC 7452, V100, ConnectX-6)"
	const gh200 = "mlcommons/inference_results_v3.1 closed/NVIDIA/documentation/start_from_device/gh200-grace-hopper.md: ~49 GB/s NIC-GPU P2P on GH200 with 400 Gb/s NDR"
	return &Model{
		TLPOverheadBytes:       p("tlp_overhead_bytes", 24, "B", FromDoc, "Intel AN 708: TLP overhead 6 DW (framing, sequence, 4 DW header, LCRC)", 0),
		DefaultMPSBytes:        p("default_mps_bytes", 256, "B", Assumed, "no readable DevCtl on the path", 4096),
		PHBFactorIntel:         p("phb_factor_intel", 5.0/6, "×", FromCode, "NCCL src/graph/topo.h INTEL_P2P_OVERHEAD (bw*6/5)", 1),
		PHBFactorAMD:           p("phb_factor_amd", 1, "×", FromMeasured, so+": NIC writes GPU memory at the path's rate", 1),
		PHBFactorOther:         p("phb_factor_other", 5.0/6, "×", Assumed, "no measurement for this CPU (Arm other than Grace, POWER, Zhaoxin, unknown): Intel's overhead taken", 1),
		PHBFactorGrace:         p("phb_factor_grace", 49*8.0/400, "×", FromMeasured, gh200, 1),
		ReadGrace:              p("read_factor_grace", 1, "×", FromMeasured, gh200+"; NVIDIA/nccl#1579: GDR on GH200 as fast as staging", 1),
		ReadIntelClient:        p("read_factor_intel_client", 0.01, "×", FromMeasured, "NVIDIA/open-gpu-kernel-modules#1253: Intel client CPUs support PCIe P2P writes only", 1),
		ReadIntelSNB:           p("read_factor_intel_snb", 0.1, "×", FromMeasured, "NVIDIA, Benchmarking GPUDirect RDMA on Modern Server Platforms (2014): Sandy Bridge P2P reads", 1),
		ReadAMDZen2Volta:       p("read_factor_amd_zen2_volta", 0.43, "×", FromMeasured, so+": reads 6.1 of 14.3 GB/s", 1),
		ReadMin:                p("read_factor_min", 0.43, "×", Assumed, "no figure for this CPU: the lowest server-CPU read seen (stackoverflow.com/q/59277346) as the low end", 1),
		ReadMax:                p("read_factor_max", 1, "×", FromMeasured, "openucx/ucx#11121: a GDR stream (sender reads GPU memory) at 85 Gb/s on 100 Gb/s across sockets; NVIDIA/open-gpu-kernel-modules#1253: 180 of 200 Gb/s", 1),
		SYSP2P:                 p("sys_p2p_gbps", 11000*1048576*8/1e9, "Gb/s", FromMeasured, "linux-rdma/perftest#241 (A30 at SYS, 11000 MB/s, perftest's MB being 2^20 B); openucx/ucx#11121 (85 Gb/s on 100G RoCE)", 0),
		SYSP2PIntelPreSKL:      p("sys_p2p_gbps_intel_pre_skl", 8, "Gb/s", Assumed, "Intel before Skylake-SP: cross-socket P2P collapses to a few Gb/s; no figure read", 0),
		InterSocketBDW:         p("inter_socket_gbps_intel_bdw", 48, "Gb/s", FromCode, nccl+"BDW_QPI_BW 6 GB/s", 0),
		InterSocketSKL:         p("inter_socket_gbps_intel_skl", 80, "Gb/s", FromCode, nccl+"SKL_QPI_BW 10 GB/s", 0),
		InterSocketSRP:         p("inter_socket_gbps_intel_srp", 176, "Gb/s", FromCode, nccl+"SRP_QPI_BW 22 GB/s", 0),
		InterSocketERP:         p("inter_socket_gbps_intel_erp", 320, "Gb/s", FromCode, nccl+"ERP_QPI_BW 40 GB/s", 0),
		InterSocketAMD:         p("inter_socket_gbps_amd", 128, "Gb/s", FromCode, nccl+"AMD_BW 16 GB/s", 0),
		InterSocketZhaoxin:     p("inter_socket_gbps_zhaoxin", 48, "Gb/s", FromCode, nccl+"ZPI_BW 6 GB/s", 0),
		InterSocketYongfeng:    p("inter_socket_gbps_yongfeng", 72, "Gb/s", FromCode, nccl+"YONGFENG_ZPI_BW 9 GB/s", 0),
		InterSocketARM:         p("inter_socket_gbps_arm", 48, "Gb/s", FromCode, nccl+"ARM_BW 6 GB/s", 0),
		InterSocketPower:       p("inter_socket_gbps_power", 256, "Gb/s", FromCode, nccl+"P9_BW 32 GB/s", 0),
		IOMMUFactor:            p("iommu_factor", 0.9, "×", Assumed, "translated DMA; no public figure", 1),
		HostStagedFactor:       p("host_staged_factor", 0.65, "×", FromMeasured, "openucx/ucx#11121: UCX host staging 65 Gb/s on a 100 Gb/s NIC", 1),
		SYSStagedPerGDR:        p("sys_staged_per_gdr", 65.0/85, "×", FromMeasured, "openucx/ucx#11121: across NUMA nodes staging 65 Gb/s where GDR gave 85", 1),
		MinMaxReadRequestBytes: p("min_max_read_request_bytes", 256, "B", FromDoc, "fwts pcie maxreadreq test", 4096),
		NICMaxReadRequestBytes: p("nic_max_read_request_bytes", 4096, "B", Assumed, "Mellanox tuning guides, not re-verified", 4096),
		MinBAR:                 p("min_bar_gib", 16, "GiB", FromDoc, "CUDA GPUDirect RDMA §3.5 (Tesla-class BAR1 ≥ 16 GB)", 0),
	}
}

// Params lists the model's numbers in table order; the pointers let a
// caller (LoadModel, calibrate) replace values.
func (m *Model) Params() []*Param {
	return []*Param{
		&m.TLPOverheadBytes, &m.DefaultMPSBytes,
		&m.PHBFactorIntel, &m.PHBFactorAMD, &m.PHBFactorOther, &m.PHBFactorGrace, &m.ReadGrace,
		&m.ReadIntelClient, &m.ReadIntelSNB, &m.ReadAMDZen2Volta, &m.ReadMin, &m.ReadMax,
		&m.SYSP2P, &m.SYSP2PIntelPreSKL,
		&m.InterSocketBDW, &m.InterSocketSKL, &m.InterSocketSRP, &m.InterSocketERP,
		&m.InterSocketAMD, &m.InterSocketZhaoxin, &m.InterSocketYongfeng,
		&m.InterSocketARM, &m.InterSocketPower,
		&m.IOMMUFactor, &m.HostStagedFactor, &m.SYSStagedPerGDR,
		&m.MinMaxReadRequestBytes, &m.NICMaxReadRequestBytes, &m.MinBAR,
	}
}

// LoadModel reads a JSON object of key → number (for example
// {"phb_factor_intel": 0.8}) over DefaultModel. An unknown key, a value that
// is not a number, or one out of range is an error naming the key.
// Overridden numbers get confidence "measured" and source "--model".
func LoadModel(r io.Reader) (*Model, error) {
	var in map[string]json.RawMessage
	dec := json.NewDecoder(r)
	if err := dec.Decode(&in); err != nil {
		return nil, fmt.Errorf("read model: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("read model: more after the JSON object")
	}
	m := DefaultModel()
	byKey := map[string]*Param{}
	var known []string
	for _, p := range m.Params() {
		byKey[p.Key] = p
		known = append(known, p.Key)
	}
	keys := make([]string, 0, len(in))
	for k := range in {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		p, ok := byKey[k]
		if !ok {
			return nil, fmt.Errorf("model: unknown key %q (known: %s)", k, strings.Join(known, ", "))
		}
		var v float64
		if err := json.Unmarshal(in[k], &v); err != nil {
			return nil, fmt.Errorf("model: %s: want a number, got %s", k, in[k])
		}
		if v <= 0 || (p.max > 0 && v > p.max) {
			limit := "above 0"
			if p.max > 0 {
				limit = fmt.Sprintf("in (0, %g]", p.max)
			}
			return nil, fmt.Errorf("model: %s = %g: want a value %s", k, v, limit)
		}
		p.Value, p.Source, p.Confidence = v, "--model", FromMeasured
	}
	return m, nil
}
