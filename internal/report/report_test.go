package report

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gdtopo/gdtopo/topology"
)

// TestHexDigits: hexDigits writes what fmt's %0Nx writes, for values wider than N too.
func TestHexDigits(t *testing.T) {
	for _, v := range []uint32{0, 1, 0xf, 0x10de, 0xffff, 0x10000, 0x030200, 0xffffff, 0x1000000, 0xffffffff, 0x12345678} {
		for _, w := range []int{4, 6, 8} {
			if got, want := hexDigits(v, w), fmt.Sprintf("%0*x", w, v); got != want {
				t.Errorf("hexDigits(%#x, %d) = %q; want %q", v, w, got, want)
			}
		}
	}
}

// TestFailing: the exit status's count of findings at or above --fail-on.
func TestFailing(t *testing.T) {
	findings := []Finding{{Code: "a", Severity: "warning"}, {Code: "b", Severity: "info"}}
	for level, want := range map[string]int{"critical": 0, "warning": 1, "info": 2, FailOnNever: 0} {
		r := &Report{Findings: findings, FailOn: level}
		if got := r.Failing(); got != want {
			t.Errorf("--fail-on %s: %d failing, want %d", level, got, want)
		}
	}
}

// TestLabelMarks: a guessed label gets one "?", NCCL's also when only its
// flattening or Data Direct is unknown, and an unknown path is "?" alone;
// each JSON flag is set exactly where its label is printed with "?".
func TestLabelMarks(t *testing.T) {
	a, b := &topology.Device{}, &topology.Device{}
	for _, tt := range []struct {
		p         topology.Pair
		smi, nccl string
	}{
		{topology.Pair{SMI: "PXB", NCCL: "PXB"}, "PXB", "PXB"},
		{topology.Pair{SMI: "NODE", NCCL: "PHB", LabelUncertain: true}, "NODE?", "PHB?"},
		{topology.Pair{SMI: "PXB", NCCL: "PXB", NCCLUncertain: true}, "PXB", "PXB?"},
		{topology.Pair{SMI: "?", NCCL: "?", LabelUncertain: true}, "?", "?"},
		{topology.Pair{SMI: "?", NCCL: "?"}, "?", "?"},
	} {
		tt.p.A, tt.p.B = a, b
		p := pair(tt.p, nil, nil, nil, true)
		s, n := Label(&p), NCCLLabel(&p)
		if s != tt.smi || n != tt.nccl {
			t.Errorf("%+v: %s/%s, want %s/%s", tt.p, s, n, tt.smi, tt.nccl)
		}
		if p.LabelUncertain != strings.Contains(s, "?") || p.NCCLUncertain != strings.Contains(n, "?") {
			t.Errorf("%+v: %s/%s printed, flags label_uncertain %v nccl_uncertain %v", tt.p, s, n, p.LabelUncertain, p.NCCLUncertain)
		}
	}
	nv := pair(topology.Pair{A: a, B: b, SMI: "NV", NCCL: "NVL", LabelUncertain: true, PCIeSMI: "NODE", PCIeSMIUncertain: true}, nil, nil, nil, true)
	if !nv.PCIeSMIUncertain || !nv.NCCLUncertain {
		t.Errorf("NV? over a guessed NODE: pcie_smi_uncertain %v, nccl_uncertain %v; want both", nv.PCIeSMIUncertain, nv.NCCLUncertain)
	}
	if other := pair(topology.Pair{A: a, B: b, SMI: "PIX", NCCL: "PIX"}, nil, nil, nil, true); other.PCIeSMIUncertain {
		t.Error("pcie_smi_uncertain set on a pair without pcie_smi")
	}
}

// TestLookupIndex: Device and Pair answer the same with Build's index, with
// none (a report decoded from JSON), and after the slices changed under a
// built index.
func TestLookupIndex(t *testing.T) {
	r := &Report{
		Devices: []Device{{BDF: "0000:01:00.0"}, {BDF: "0000:02:00.0"}, {BDF: "0000:03:00.0"}},
		Pairs:   []Pair{{A: "0000:01:00.0", B: "0000:02:00.0", SMI: "PIX"}, {A: "0000:01:00.0", B: "0000:03:00.0", SMI: "SYS"}},
	}
	check := func(when string) {
		t.Helper()
		for _, d := range r.Devices {
			if got := r.Device(d.BDF); got == nil || got.BDF != d.BDF {
				t.Errorf("%s: Device(%s) = %v", when, d.BDF, got)
			}
		}
		if r.Device("0000:09:00.0") != nil {
			t.Errorf("%s: an absent device found", when)
		}
		for _, p := range r.Pairs {
			for _, ab := range [][2]string{{p.A, p.B}, {p.B, p.A}} {
				if got := r.Pair(ab[0], ab[1]); got == nil || got.SMI != p.SMI {
					t.Errorf("%s: Pair(%s, %s) = %v, want %s", when, ab[0], ab[1], got, p.SMI)
				}
			}
		}
		if r.Pair("0000:02:00.0", "0000:03:00.0") != nil {
			t.Errorf("%s: an absent pair found", when)
		}
	}
	check("no index")
	r.index()
	check("indexed")
	r.Pairs = r.Pairs[1:]
	r.Devices = append([]Device{{BDF: "0000:00:00.0"}}, r.Devices...)
	check("changed after indexing")
	if p := r.Pair("0000:01:00.0", "0000:02:00.0"); p != nil {
		t.Errorf("a removed pair found: %v", p)
	}
}

// TestPairLookupByEnds: a report whose pairs are every pair of a list of
// ends (as Graph.Pairs gives them) finds each by arithmetic, in either
// order; other lists of pairs, and a report changed after Build, are found
// by the map or a scan, alike.
func TestPairLookupByEnds(t *testing.T) {
	ends := []string{"a", "b", "c", "d"}
	var all []Pair
	for i := range ends {
		for j := i + 1; j < len(ends); j++ {
			all = append(all, Pair{A: ends[i], B: ends[j]})
		}
	}
	for name, pairs := range map[string][]Pair{
		"every pair":   all,
		"one missing":  append(append([]Pair{}, all[:2]...), all[3:]...),
		"out of order": append(append([]Pair{}, all[1:]...), all[0]),
		"one end":      {},
		"repeated end": {{A: "a", B: "b"}, {A: "a", B: "b"}, {A: "b", B: "b"}},
	} {
		r := &Report{Pairs: pairs}
		r.index()
		if (r.endAt != nil) != (name == "every pair") {
			t.Errorf("%s: indexed by ends: %v", name, r.endAt != nil)
		}
		for _, a := range ends {
			for _, b := range ends {
				var want *Pair
				for i := range pairs {
					if p := &pairs[i]; p.A == a && p.B == b || p.A == b && p.B == a {
						want = p
						break
					}
				}
				if got := r.Pair(a, b); got != want {
					t.Errorf("%s: Pair(%s, %s) = %v, want %v", name, a, b, got, want)
				}
			}
		}
	}
	r := &Report{Pairs: append([]Pair{}, all...)}
	r.index()
	r.Pairs[0], r.Pairs[1] = r.Pairs[1], r.Pairs[0]
	if p := r.Pair("b", "a"); p == nil || p.A != "a" || p.B != "b" {
		t.Errorf("after a change: Pair(b, a) = %v", p)
	}
}

// TestWarningsSorted: the reader's warnings come out by kind, then by
// address, whatever order the reader gave them in, so that many alike
// warnings (180 unreadable folders) read in address order, together.
func TestWarningsSorted(t *testing.T) {
	denied := func(bdf string) topology.Warning {
		return topology.Warning{Subject: bdf + "/numa_node", Message: "open sys/bus/pci/devices/" + bdf + "/numa_node: permission denied"}
	}
	want := []topology.Warning{
		{Subject: "0000:3b:00.0/current_link_speed", Message: `invalid value "fast"`},
		denied("0000:02:00.0"), denied("0000:1a:00.0"), denied("0000:b1:00.0"), denied("10000:01:00.0"),
		{Subject: "sys/devices/system/node", Message: "open sys/devices/system/node: permission denied"},
	}
	orders := [][]int{{0, 1, 2, 3, 4, 5}, {5, 4, 3, 2, 1, 0}, {3, 5, 1, 0, 4, 2}, {4, 0, 2, 5, 3, 1}}
	for _, order := range orders {
		g := &topology.Graph{}
		for _, i := range order {
			g.Warnings = append(g.Warnings, want[i])
		}
		r := Build(Input{Graph: g, FailOn: "critical"})
		var got []string
		for _, w := range r.Warnings {
			got = append(got, w.Subject)
		}
		for i, w := range want {
			if i >= len(got) || got[i] != w.Subject {
				t.Errorf("read in order %v: warnings %v; want %s at %d", order, got, w.Subject, i)
				break
			}
		}
	}
}

// TestShownNICsByModel: a source that lists no RDMA devices (lspci) shows
// the NICs whose model has an RDMA engine first, then those it cannot
// tell, and leaves out those without one, as nvidia-smi shows RDMA devices
// alone; only a model it cannot tell makes the numbering unsure.
func TestShownNICsByModel(t *testing.T) {
	nic := func(bdf string, vendor, device uint16, name string) *topology.Device {
		a, err := topology.ParseBDF(bdf)
		if err != nil {
			t.Fatal(err)
		}
		return &topology.Device{Addr: a, Kind: topology.KindNIC, Class: 0x020000, VendorID: vendor, DeviceID: device, Name: name}
	}
	i210 := nic("0000:01:00.0", topology.VendorIntel, 0, "Intel Corporation I210 Gigabit Network Connection")
	other := nic("0000:02:00.0", 0x1077, 0, "QLogic Corp. FastLinQ QL41000")
	cx7 := nic("0000:03:00.0", topology.VendorMellanox, 0, "Mellanox Technologies MT2910 Family [ConnectX-7]")
	g := &topology.Graph{Devices: []*topology.Device{i210, other, cx7}, TextForm: "lspci"}
	shown, hidden := ShownNICs(g)
	if !slices.Equal(shown, []*topology.Device{cx7, other}) || !slices.Equal(hidden, []*topology.Device{i210}) {
		t.Errorf("shown %v, hidden %v; want the ConnectX-7 then the QLogic shown, the I210 hidden", bdfs(shown), bdfs(hidden))
	}
	if l := nicNumberingLacks(g); len(l) != 1 || !strings.Contains(l[0], "whether 0000:02:00.0 has one") {
		t.Errorf("lacks %q, want the QLogic named as unsure", l)
	}
	g.Devices = []*topology.Device{i210, cx7}
	if l := nicNumberingLacks(g); len(l) != 0 {
		t.Errorf("lacks %q with every model known", l)
	}
	if shown, hidden = ShownNICs(&topology.Graph{Devices: []*topology.Device{i210}}); len(shown) != 1 || len(hidden) != 0 {
		t.Errorf("an I210 alone: shown %v, hidden %v; want it shown (the source's only NIC)", bdfs(shown), bdfs(hidden))
	}
}
