package fleet

import (
	"bufio"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/gdtopo/gdtopo/advisor"
	"github.com/gdtopo/gdtopo/internal/report"
	"github.com/gdtopo/gdtopo/topology"
)

// NFDPrefix is the namespace of every label gdtopo writes: NFD's own
// default, which it allows without -extra-label-ns. NFD's customization
// guide (Local feature source, Input format) asks for prefixed names: it
// prefixes bare ones only until its DisableAutoPrefix gate turns on.
const NFDPrefix = "feature.node.kubernetes.io/"

// DefaultNFDLifetime is how long a feature file's labels stand after the
// run that wrote it (check --nfd-expiry): three runs of the DaemonSet's
// hourly loop, so a node whose gdtopo stopped loses labels that no longer
// say what the node is.
const DefaultNFDLifetime = 3 * time.Hour

// WriteNFD writes a Node Feature Discovery feature file for one machine:
// a "# +expiry-time=" directive (RFC3339, as NFD's local source reads it;
// left out for a zero expires), then "name=value" lines, one per label, for
// the local source's features.d folder. Names are NFDPrefix and a valid
// label name (63 characters at most), values valid label values: anything
// else is replaced with '-', then trimmed. After the prefix:
//
//	gdtopo.accelerators=8
//	gdtopo.gpu<N>.best-nic=mlx5_0        the rail plan's NIC (RDMA name, else netdev)
//	gdtopo.gpu<N>.best-path=PIX          its nvidia-smi label
//	gdtopo.gpu<N>.gdr=true               NCCL would use GPUDirect RDMA on it
//	gdtopo.gpu<N>.expected-gbps=400      its expected throughput, whole Gb/s (left out where the NIC's port rate is unknown)
//	gdtopo.gpu<N>.pcie-root=pci0000-15   its PCIe root (DRA's resource.kubernetes.io/pcieRoot, ':' as '-')
//	gdtopo.gpu<N>.nic-same-pcie-root=true  its NIC has the same PCIe root
//	gdtopo.pcie-root-aligned=true        every accelerator's NIC has its PCIe root
//	gdtopo.worst-path=PXB                the worst best-path of all accelerators
//	gdtopo.worst-gbps=230                the rail plan's worst throughput, whole Gb/s (likewise)
//	gdtopo.gdr=true                      every accelerator's NIC has GDR
//	gdtopo.findings.critical=0           and .warning, .info
//	gdtopo.finding.<code>=critical       each code found, at its worst severity
//
// Where no NIC can do RDMA (no-rdma-nic), no label names a NIC or a path
// to one: only pcie-root and gdr=false per accelerator, and gdr=false.
//
// Integer values let node affinity use the Gt and Lt operators.
func WriteNFD(w io.Writer, r *report.Report, expires time.Time) error {
	bw := bufio.NewWriter(w)
	if !expires.IsZero() {
		bw.WriteString("# +expiry-time=" + expires.UTC().Format(time.RFC3339) + "\n")
	}
	put := func(name, value string) {
		bw.WriteString(NFDPrefix)
		bw.WriteString(labelName(name))
		bw.WriteByte('=')
		bw.WriteString(LabelValue(value))
		bw.WriteByte('\n')
	}
	accels := 0
	for _, d := range r.Devices {
		if d.Kind == string(topology.KindAccelerator) {
			accels++
		}
	}
	if (accels > 0 || r.Summary.UnidentifiedFunctions == 0) && r.Summary.Partial == "" {
		// else unknown: functions the source does not identify, or the part
		// of the machine a partial source lacks, may hold accelerators
		put("gdtopo.accelerators", strconv.Itoa(accels))
	}
	best := bestNICs(r)
	// A machine whose NICs cannot do RDMA (no-rdma-nic) has no NIC to
	// place a GPUDirect workload by: only the accelerators' own labels,
	// and gdr=false, are given.
	noRDMA := r.NoRDMANIC()
	worst, worstGbps, gdr := "", math.Inf(1), true
	aligned, rootsKnown := true, !noRDMA
	for _, b := range best {
		n := strings.ToLower(b.GPU.Alias)
		if n == "" {
			n = b.GPU.BDF
		}
		if noRDMA {
			if b.GPU.HostBridge != "" {
				put("gdtopo."+n+".pcie-root", b.GPU.HostBridge)
			}
			put("gdtopo."+n+".gdr", "false")
			gdr = false
			continue
		}
		name := nicName(b.NIC)
		if name == "" {
			name = b.NIC.BDF
		}
		put("gdtopo."+n+".best-nic", name)
		put("gdtopo."+n+".best-path", b.Pair.SMI)
		// A DRA claim with matchAttribute resource.kubernetes.io/pcieRoot
		// pairs an accelerator only with a NIC of the same root: the
		// host bridge, pci<domain>:<bus>. Left out where either is unknown.
		if b.GPU.HostBridge != "" && b.NIC.HostBridge != "" {
			put("gdtopo."+n+".pcie-root", b.GPU.HostBridge)
			put("gdtopo."+n+".nic-same-pcie-root", strconv.FormatBool(b.GPU.HostBridge == b.NIC.HostBridge))
			aligned = aligned && b.GPU.HostBridge == b.NIC.HostBridge
		} else {
			rootsKnown = false
		}
		if x := b.Pair.Prediction; x != nil {
			put("gdtopo."+n+".gdr", strconv.FormatBool(x.GDR))
		}
		gdr = gdr && b.Pair.Prediction != nil && b.Pair.Prediction.GDR
		if g := gbpsOf(b.Pair); g > 0 {
			put("gdtopo."+n+".expected-gbps", strconv.Itoa(int(g)))
			worstGbps = math.Min(worstGbps, g)
		}
		if worst == "" || labelRank(b.Pair.SMI) > labelRank(worst) {
			worst = b.Pair.SMI
		}
	}
	if len(best) > 0 && worst != "" {
		put("gdtopo.worst-path", worst)
		switch {
		case r.Plan.WorstAtMost: // a ceiling, the worst NIC's port rate unknown: no figure to place by
			worstGbps = math.Inf(1)
		case r.Plan.WorstGbps > 0:
			worstGbps = r.Plan.WorstGbps
		}
		if !math.IsInf(worstGbps, 1) {
			put("gdtopo.worst-gbps", strconv.Itoa(int(worstGbps)))
		}
	}
	if len(best) > 0 {
		put("gdtopo.gdr", strconv.FormatBool(gdr))
		if rootsKnown {
			put("gdtopo.pcie-root-aligned", strconv.FormatBool(aligned))
		}
	}
	count := map[string]int{}
	worstOf := map[string]advisor.Severity{}
	var codes []string
	for _, f := range r.Findings {
		s := advisor.Severity(f.Severity)
		count[f.Severity]++
		if prev, ok := worstOf[f.Code]; !ok {
			codes = append(codes, f.Code)
			worstOf[f.Code] = s
		} else if s.AtLeast(prev) {
			worstOf[f.Code] = s
		}
	}
	for _, s := range []advisor.Severity{advisor.Critical, advisor.Warning, advisor.Info} {
		put("gdtopo.findings."+string(s), strconv.Itoa(count[string(s)]))
	}
	for _, c := range codes {
		put("gdtopo.finding."+c, string(worstOf[c]))
	}
	return bw.Flush()
}

// LabelValue makes s a valid Kubernetes label value: at most 63 characters
// of [A-Za-z0-9._-], beginning and ending with a letter or digit ("" stays "").
func LabelValue(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			b[i] = '-'
		}
	}
	if len(b) > 63 {
		b = b[:63]
	}
	alnum := func(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' }
	for len(b) > 0 && !alnum(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && !alnum(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return string(b)
}

// labelName is a label name's part after the prefix: the same rules as a
// value, and never empty.
func labelName(s string) string {
	if v := LabelValue(s); v != "" {
		return v
	}
	return "gdtopo"
}
