package nccllog

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestExpected reads every collected log and compares its brief with the
// hand-written NAME.expected beside it.
func TestExpected(t *testing.T) {
	logs, _ := filepath.Glob("testdata/*.log")
	if len(logs) < 12 {
		t.Fatalf("%d logs in testdata, want at least 12", len(logs))
	}
	for _, name := range logs {
		t.Run(filepath.Base(name), func(t *testing.T) {
			l := parseFile(t, name)
			want, err := os.ReadFile(strings.TrimSuffix(name, ".log") + ".expected")
			if err != nil {
				t.Fatal(err)
			}
			var lines []string
			for _, s := range strings.Split(string(want), "\n") {
				if s != "" && !strings.HasPrefix(s, "#") {
					lines = append(lines, s)
				}
			}
			exp := strings.Join(lines, "\n") + "\n"
			if got := l.Brief(); got != exp {
				t.Errorf("brief differs from %s.expected\n got:\n%s\nwant:\n%s", filepath.Base(name), got, exp)
			}
		})
	}
}

func parseFile(t *testing.T, name string) *Log {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	l, err := Parse(name, f)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestPartial: logs whose last line the thread shows cut are marked
// partial, with the line; whole ones are not.
func TestPartial(t *testing.T) {
	for name, cut := range map[string]bool{
		"nccl-899-ib-no-module.log":       true, // "6a5a91752e39:74352:74370 [0"
		"nccl-1232-socket.log":            true, // "[0] node0:13571:1357"
		"nccl-1053-socket-lo-system.log":  true, // "ax"
		"nccl-1773-p2p-single-node.log":   true, // "... NCCL INFO C"
		"nccl-1453-ibext-gdr.log":         true, // "... proto 0 tim"
		"aks-rdma-30-ib-gdr.log":          true, // "Channel 02/0 : 11"
		"nccl-1814-ibext-no-gdr.log":      true, // "via NET/IBext_v8/"
		"nccl-1412-ib-no-gdr.log":         true, // "via P2P/direct p"
		"aks-rdma-pr36-gdr-level-sys.log": true, // "leader-h2nng"
		"nccl-1866-h100-vm.log":           true, // "cl4-gpu"
		"eks-p4d-efa-ofi.log":             false,
		"nccl-tests-321-vm-roce-pxn.log":  false,
		"nccl-1537-roce-gdr-disabled.log": false,
	} {
		l := parseFile(t, filepath.Join("testdata", name))
		if got := l.Partial != ""; got != cut {
			t.Errorf("%s: partial %q, want cut=%v", name, l.Partial, cut)
		}
	}
}

func TestDetails(t *testing.T) {
	l := parseFile(t, "testdata/nccl-tests-321-vm-roce-pxn.log")
	if l.Library != "NCCL" || len(l.Versions) != 1 || l.Versions[0] != "2.26.5+cuda12.2" {
		t.Errorf("library %s %v", l.Library, l.Versions)
	}
	h := l.Host("vm-host38")
	if h == nil || len(h.IBNICs) != 2 || h.IBNICs[1].Name != "mlx5_bond_7" || h.IBNICs[1].LinkLayer != "RoCE" {
		t.Fatalf("vm-host38 NICs: %+v", h)
	}
	if h.Env["NCCL_NET_GDR_LEVEL"] != "PIX" || h.Plugin != "NCCL RDMA Plugin v6 (v6)" {
		t.Errorf("env %v plugin %q", h.Env, h.Plugin)
	}
	r := l.Ranks[0]
	if r.BusID != "0000:33:00.0" || r.LocalRank != 0 || r.NVMLDev != 1 {
		t.Errorf("rank 0: %+v", r)
	}
	if len(l.BusBW) != 13 || l.BusBW[12].OutOfPlace != 50.25 || l.BusBW[0].Bytes != 1048576 {
		t.Errorf("busbw: %+v", l.BusBW)
	}
	if tr := l.TestRanks; len(tr) != 4 || tr[0] != (TestRank{0, "vm-host40", 0, "0x33", "NVIDIA H20-3e"}) || tr[3].Host != "vm-host38" || tr[3].Bus != "0x23" {
		t.Errorf("nccl-tests device list: %+v", tr)
	}
	rc := parseFile(t, "testdata/rccl-tests-163-socket.log")
	if rc.Library != "RCCL" || rc.Hosts[0].IBAbsent == "" {
		t.Errorf("rccl: %s %+v", rc.Library, rc.Hosts[0])
	}
	if tr := rc.TestRanks; len(tr) != 1 || tr[0] != (TestRank{3, "z292", 3, "0000:c8:00", "AMD Instinct MI50/MI60"}) {
		t.Errorf("rccl-tests device list: %+v", tr)
	}
	vm := parseFile(t, "testdata/nccl-1866-h100-vm.log")
	if tr := vm.TestRanks; len(tr) != 2 || tr[1].Host != "cl4-gpu04-vm" || tr[1].Bus != "0000:11:00" {
		t.Errorf("nccl-1866 device list: %+v", tr)
	}
	old := parseFile(t, "testdata/nccl-899-ib-no-module.log")
	if old.Ranks[0].BusID != "0000:1a:00.0" {
		t.Errorf("busId of the older form: %q", old.Ranks[0].BusID)
	}
}

func TestNotLog(t *testing.T) {
	for _, s := range []string{"", "hello\nworld\n", "00:00.0 Host bridge: Intel\n", "\x00\x01NCCL INFO x"} {
		_, err := Parse("x", strings.NewReader(s))
		if !errors.Is(err, ErrNotLog) {
			t.Errorf("%q: %v", s, err)
		}
	}
}

// TestBounds: a long line is skipped, ranks and channels stop at their
// bounds.
func TestBounds(t *testing.T) {
	var b strings.Builder
	b.WriteString("h:1:1 [0] NCCL INFO " + strings.Repeat("x", MaxLineBytes+10) + "\n")
	for i := 0; i < MaxChannelsPerRank+10; i++ {
		b.WriteString("h:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> " + strconv.Itoa(i+1) + "[0] [send] via NET/IB/0\n")
	}
	l, err := Parse("x", strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Ranks) != 1 || len(l.Ranks[0].Channels) != MaxChannelsPerRank || l.Ranks[0].MoreChannels != 10 {
		t.Errorf("ranks %d channels %d more %d", len(l.Ranks), len(l.Ranks[0].Channels), l.Ranks[0].MoreChannels)
	}
	if len(l.Notes) == 0 || !strings.Contains(l.Notes[0], "skipped") {
		t.Errorf("notes %v", l.Notes)
	}
}

func FuzzParse(f *testing.F) {
	logs, _ := filepath.Glob("testdata/*.log")
	for _, name := range logs {
		b, err := os.ReadFile(name)
		if err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		l, err := Parse("fuzz", strings.NewReader(string(b)))
		if err != nil {
			return
		}
		_ = l.Brief()
		for _, r := range l.Ranks {
			_ = r.Transports()
		}
	})
}

// TestPrefixes: lines as launchers and log collectors wrap them, copied
// from public threads (aws/aws-ofi-nccl#24 Open MPI tags and the older
// "Ring" form; aws/aws-ofi-nccl#889 CloudWatch timestamps;
// NVIDIA/nccl-tests#179 a host whose name has digits and dots).
func TestPrefixes(t *testing.T) {
	text := `[1,26]<stdout>:ip-172-32-36-209:8716:9558 [2] NCCL INFO Ring 00 : 26[2] -> 30[6] via P2P/IPC
[1,7]<stdout>:ip-172-32-38-1:21471:22316 [7] NCCL INFO Ring 00 : 7 -> 8 [send] via NET/AWS Libfabric/0
  | 2025-05-16T16:40:02.222-07:00 | ip-10-36-29-253:82:2548 [0] NCCL INFO Channel 00/0 : 3[3] -> 2[2] via P2P/CUMEM/read
manolinux1:12260:12269 [1] NCCL INFO comm 0x56040477b5f0 rank 3 nranks 4 cudaDev 1 nvmlDev 1 busId 28000 commId 0x540a9c130dcc7f4e - Init START
`
	l, err := Parse("x", strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	want := `net ip-172-32-36-209 -
net ip-172-32-38-1 -
net ip-10-36-29-253 -
net manolinux1 -
rank ip-172-32-36-209 2 ranks=26 nics=- pxn=- gdr=-
rank ip-172-32-38-1 7 ranks=7 nics=0 pxn=- gdr=no
rank ip-10-36-29-253 0 ranks=3 nics=- pxn=- gdr=-
rank manolinux1 1 ranks=3 nics=- pxn=- gdr=-
`
	if got := l.Brief(); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	if l.Ranks[3].BusID != "0000:28:00.0" || l.Ranks[3].NVMLDev != 1 {
		t.Errorf("Init line: %+v", l.Ranks[3])
	}
}

// TestCorpusTopologyPrint: NCCL's "=== System" print, pasted alone, is a
// log whose host printed its topology (and has no rank).
func TestCorpusTopologyPrint(t *testing.T) {
	name := "../../../shared/corpus/nccl-xml/nccl-tests-256-h200-vm.nccl-info-topology.txt"
	f, err := os.Open(name)
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("corpus missing in CI: %v", err)
		}
		t.Skipf("corpus not here: %v", err)
	}
	defer f.Close()
	l, err := Parse(name, f)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Hosts) != 1 || !l.Hosts[0].Topology || len(l.Ranks) != 0 {
		t.Errorf("hosts %d topology %v ranks %d", len(l.Hosts), l.Hosts[0].Topology, len(l.Ranks))
	}
}

// TestPathGDR: NCCL's per-path verdict, as a public guide quotes it
// (a device index, not a busId, and "0<= 0" without a space).
func TestPathGDR(t *testing.T) {
	text := `sz-k8s-master:65286:65341 [0] NCCL INFO GPU Direct RDMA Disabled for GPU 0 / HCA 2 (distance 7 > 0)
sz-k8s-master:65286:65341 [0] NCCL INFO GPU Direct RDMA Enabled for GPU 0 / HCA 2 (distance 0<= 0)
`
	l, err := Parse("x", strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	g := l.Hosts[0].GDRPath
	if len(g) != 2 || g[0].Enabled || g[0].Distance != 7 || g[0].BusID != "" || g[0].GPU != "0" || !g[1].Enabled {
		t.Errorf("%+v", g)
	}
}
