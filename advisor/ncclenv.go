package advisor

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/gdtopo/gdtopo/topology"
)

// NCCLEnvKeys are the NCCL variables the advisor follows, in name order,
// as NCCL reads them: the GDR level, reads and C2C of ncclTopoCheckGdr
// and PXN of ncclTopoComputePaths (src/graph/paths.cc), and the IB
// transport's device list (src/transport/net_ib/init.cc,
// ncclIbInitDevices).
func NCCLEnvKeys() []string {
	return []string{"NCCL_IB_HCA", "NCCL_NET_GDR_C2C", "NCCL_NET_GDR_LEVEL", "NCCL_NET_GDR_READ", "NCCL_PXN_C2C", "NCCL_PXN_DISABLE"}
}

// IsNCCLEnvKey reports whether the advisor follows variable k.
func IsNCCLEnvKey(k string) bool { return slices.Contains(NCCLEnvKeys(), k) }

// envParam reads an integer NCCL parameter as NCCL_PARAM does
// (src/misc/param.cc, ncclLoadParam): unset or empty takes def; else
// strtoll(str, NULL, 0), whose leading number counts and whose overflow
// (ERANGE) takes def. set says the variable decided the value.
func (a *analysis) envParam(name string, def int64) (v int64, set bool) {
	s, ok := a.env[name]
	if !ok || s == "" {
		return def, false
	}
	n, ok := strtoll(s)
	if !ok {
		return def, false
	}
	return n, true
}

// strtoll is C's strtoll(s, NULL, 0): leading white space, a sign, then a
// 0x (hexadecimal) or 0 (octal) prefix or decimal digits, as many as fit;
// no digits is 0. ok is false on overflow, where C sets ERANGE.
func strtoll(s string) (int64, bool) {
	s = strings.TrimLeft(s, " \t\n\v\f\r")
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	base := uint64(10)
	switch {
	case len(s) > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && hexDigit(s[2]) >= 0:
		base, s = 16, s[2:]
	case len(s) > 1 && s[0] == '0':
		base = 8
	}
	var n uint64
	for i := 0; i < len(s); i++ {
		d := hexDigit(s[i])
		if d < 0 || uint64(d) >= base {
			break
		}
		if n > (math.MaxUint64-uint64(d))/base {
			return 0, false
		}
		n = n*base + uint64(d)
	}
	switch {
	case !neg && n > math.MaxInt64, neg && n > 1<<63:
		return 0, false
	case neg:
		return -int64(n), true
	}
	return int64(n), true
}

// hexDigit is c's value as a hexadecimal digit, -1 for none.
func hexDigit(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// hcaFilter is NCCL_IB_HCA as ncclIbInitDevices reads it: a leading '^'
// excludes the listed devices instead of selecting them, then a leading '='
// asks for exact names instead of prefixes; entries are comma-separated
// device[:port] (src/misc/utils.cc, parseStringList; a device whose port
// does not match is skipped port by port, so gdtopo, which plans port 1,
// matches any port).
type hcaFilter struct {
	set, not, exact bool
	names           []string
	value           string // as given
}

// ibHCAFilter is the filter of NCCL_IB_HCA in a.env; set is false where
// the variable is unset (NCCL then takes every device).
func (a *analysis) ibHCAFilter() hcaFilter {
	s, ok := a.env["NCCL_IB_HCA"]
	if !ok {
		return hcaFilter{}
	}
	f := hcaFilter{set: true, value: s}
	if strings.HasPrefix(s, "^") {
		f.not, s = true, s[1:]
	}
	if strings.HasPrefix(s, "=") {
		f.exact, s = true, s[1:]
	}
	for _, e := range strings.Split(s, ",") {
		name, _, _ := strings.Cut(e, ":")
		if name != "" {
			f.names = append(f.names, name)
		}
	}
	return f
}

// takes reports whether NCCL's IB transport opens RDMA device dev under
// the filter: matchIfList(...) ^ searchNot, where an empty list matches
// every device (so "^" alone takes none).
func (f hcaFilter) takes(dev string) bool {
	if !f.set {
		return true
	}
	match := len(f.names) == 0
	for _, n := range f.names {
		if f.exact && dev == n || !f.exact && strings.HasPrefix(dev, n) {
			match = true
			break
		}
	}
	return match != f.not
}

// ibExcluded says why NCCL_IB_HCA keeps NCCL's IB transport off NIC n, ""
// where it does not: only NICs that transport drives (not a net plugin's),
// by their first RDMA device as the plan names them.
func (a *analysis) ibExcluded(n *topology.Device, f hcaFilter) string {
	if !f.set || len(n.RDMA) == 0 || netPlugin(n) != "" || f.takes(n.RDMA[0]) {
		return ""
	}
	return fmt.Sprintf("NCCL_IB_HCA=%s leaves out %s", f.value, n.RDMA[0])
}
