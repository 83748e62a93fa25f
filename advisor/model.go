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
// place. Doc sections are in ../shared/docs/nccl-semantics.md (§) unless
// named otherwise. A --model JSON file may replace any of them by key.
//
//	key                         default unit  confidence source
//	tlp_overhead_bytes          24      B     doc       per-TLP framing+sequence+4DW header+LCRC, no ECRC: 6 DW (Intel AN 708 "TLP Packet Overhead", 5-7 DW)
//	default_mps_bytes           256     B     assumed   Max_Payload_Size when no DevCtl on the path was readable
//	phb_factor_intel            0.8333  ×     code      NCCL INTEL_P2P_OVERHEAD bw*6/5 on PCI links through an Intel root complex (§4.1, §5.3)
//	phb_factor_amd              1       ×     assumed   NCCL applies no root-complex overhead on AMD (§5.3); no public GDR figure
//	phb_factor_other            0.8333  ×     assumed   other or unknown CPUs: Intel's overhead taken
//	sys_gdr_factor              0.48    ×     measured  GPU memory ~11000 vs host ~23000 MB/s at SYS (A30, mlx5; linux-rdma/perftest#241, §5.4)
//	inter_socket_gbps_intel_bdw 48      Gb/s  code      BDW_QPI_BW 6 GB/s ×8 (§4.2): Intel older than Skylake-SP
//	inter_socket_gbps_intel_skl 80      Gb/s  code      SKL_QPI_BW 10 GB/s ×8: family 6, model ≥ 0x55
//	inter_socket_gbps_intel_srp 176     Gb/s  code      SRP_QPI_BW 22 GB/s ×8: model ≥ 0x8F
//	inter_socket_gbps_intel_erp 320     Gb/s  code      ERP_QPI_BW 40 GB/s ×8: model ≥ 0xCF
//	inter_socket_gbps_amd       128     Gb/s  code      AMD_BW 16 GB/s ×8
//	inter_socket_gbps_zhaoxin   48      Gb/s  code      ZPI_BW 6 GB/s ×8 (Yongfeng, family 7 model 0x5B: 9 GB/s, below)
//	inter_socket_gbps_yongfeng  72      Gb/s  code      YONGFENG_ZPI_BW 9 GB/s ×8
//	iommu_factor                0.9     ×     assumed   translated DMA (IOTLB misses); no public figure
//	host_staged_factor          0.76    ×     measured  UCX staging through host 65 vs dma-buf GDR 85 Gb/s (100G bnxt_re; openucx/ucx#11121, §5.4)
//	min_max_read_request_bytes  256     B     doc       fwts flags MaxReadReq below 256 as too low (§5.1)
//	nic_max_read_request_bytes  4096    B     assumed   value Mellanox tuning guides recommend for ConnectX (§5.1, "not re-verified")
//	min_bar_gib                 16      GiB   doc       Tesla-class large BAR1 is ≥ 16 GB (CUDA GPUDirect RDMA §3.5)
//
// PCIe line encoding is not a parameter: 8b/10b at 2.5 and 5 GT/s, 128b/130b
// from 8 GT/s (PCIe base specification).
type Model struct {
	TLPOverheadBytes, DefaultMPSBytes                      Param
	PHBFactorIntel, PHBFactorAMD, PHBFactorOther           Param
	SYSGDRFactor                                           Param
	InterSocketBDW, InterSocketSKL, InterSocketSRP         Param
	InterSocketERP, InterSocketAMD                         Param
	InterSocketZhaoxin, InterSocketYongfeng                Param
	IOMMUFactor, HostStagedFactor                          Param
	MinMaxReadRequestBytes, NICMaxReadRequestBytes, MinBAR Param
}

// DefaultModel returns the model with the numbers of the table above.
func DefaultModel() *Model {
	p := func(key string, v float64, unit, conf, src string, max float64) Param {
		return Param{Key: key, Value: v, Unit: unit, Confidence: conf, Source: src, max: max}
	}
	const sec42 = "nccl-semantics.md §4.2 ncclTopoGetInterCpuBw "
	return &Model{
		TLPOverheadBytes:       p("tlp_overhead_bytes", 24, "B", FromDoc, "Intel AN 708: TLP overhead 6 DW (framing, sequence, 4 DW header, LCRC)", 0),
		DefaultMPSBytes:        p("default_mps_bytes", 256, "B", Assumed, "no readable DevCtl on the path", 4096),
		PHBFactorIntel:         p("phb_factor_intel", 5.0/6, "×", FromCode, "nccl-semantics.md §4.1 INTEL_P2P_OVERHEAD (bw*6/5)", 1),
		PHBFactorAMD:           p("phb_factor_amd", 1, "×", Assumed, "nccl-semantics.md §5.3: NCCL applies no AMD root-complex overhead", 1),
		PHBFactorOther:         p("phb_factor_other", 5.0/6, "×", Assumed, "unknown CPU vendor: Intel's overhead taken", 1),
		SYSGDRFactor:           p("sys_gdr_factor", 0.48, "×", FromMeasured, "nccl-semantics.md §5.4, linux-rdma/perftest#241 (A30 at SYS)", 1),
		InterSocketBDW:         p("inter_socket_gbps_intel_bdw", 48, "Gb/s", FromCode, sec42+"BDW_QPI_BW 6 GB/s", 0),
		InterSocketSKL:         p("inter_socket_gbps_intel_skl", 80, "Gb/s", FromCode, sec42+"SKL_QPI_BW 10 GB/s", 0),
		InterSocketSRP:         p("inter_socket_gbps_intel_srp", 176, "Gb/s", FromCode, sec42+"SRP_QPI_BW 22 GB/s", 0),
		InterSocketERP:         p("inter_socket_gbps_intel_erp", 320, "Gb/s", FromCode, sec42+"ERP_QPI_BW 40 GB/s", 0),
		InterSocketAMD:         p("inter_socket_gbps_amd", 128, "Gb/s", FromCode, sec42+"AMD_BW 16 GB/s", 0),
		InterSocketZhaoxin:     p("inter_socket_gbps_zhaoxin", 48, "Gb/s", FromCode, sec42+"ZPI_BW 6 GB/s", 0),
		InterSocketYongfeng:    p("inter_socket_gbps_yongfeng", 72, "Gb/s", FromCode, sec42+"YONGFENG_ZPI_BW 9 GB/s", 0),
		IOMMUFactor:            p("iommu_factor", 0.9, "×", Assumed, "translated DMA; no public figure", 1),
		HostStagedFactor:       p("host_staged_factor", 0.76, "×", FromMeasured, "nccl-semantics.md §5.4, openucx/ucx#11121 (65 vs 85 Gb/s)", 1),
		MinMaxReadRequestBytes: p("min_max_read_request_bytes", 256, "B", FromDoc, "nccl-semantics.md §5.1 (fwts maxreadreq)", 4096),
		NICMaxReadRequestBytes: p("nic_max_read_request_bytes", 4096, "B", Assumed, "nccl-semantics.md §5.1: Mellanox tuning guides, not re-verified", 4096),
		MinBAR:                 p("min_bar_gib", 16, "GiB", FromDoc, "CUDA GPUDirect RDMA §3.5 (Tesla-class BAR1 ≥ 16 GB)", 0),
	}
}

// Params lists the model's numbers in table order; the pointers let a
// caller (LoadModel) change them.
func (m *Model) Params() []*Param {
	return []*Param{
		&m.TLPOverheadBytes, &m.DefaultMPSBytes,
		&m.PHBFactorIntel, &m.PHBFactorAMD, &m.PHBFactorOther, &m.SYSGDRFactor,
		&m.InterSocketBDW, &m.InterSocketSKL, &m.InterSocketSRP, &m.InterSocketERP,
		&m.InterSocketAMD, &m.InterSocketZhaoxin, &m.InterSocketYongfeng,
		&m.IOMMUFactor, &m.HostStagedFactor,
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
