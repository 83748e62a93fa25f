package snapshot_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gdtopo/gdtopo/fixtures/fixturetest"
	"github.com/gdtopo/gdtopo/internal/snapshot"
	"github.com/gdtopo/gdtopo/internal/source"
	"github.com/gdtopo/gdtopo/internal/sysfs"
	"github.com/gdtopo/gdtopo/topology"
)

var fixed = func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }

// fixture returns the path of the bundled fixture archive name.
func fixture(name string) string { return filepath.Join("..", "..", "fixtures", name+".tar.gz") }

// corpusCaptures returns the hwloc and ghw captures of ../../../shared/corpus,
// skipping outside CI when the corpus is absent.
func corpusCaptures(t testing.TB) []string {
	t.Helper()
	dir := filepath.Join("..", "..", "..", "shared", "corpus")
	if _, err := os.Stat(dir); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("corpus missing in CI: %v", err)
		}
		t.Skipf("corpus not found at %s (outside CI this test is skipped)", dir)
	}
	hwloc, _ := filepath.Glob(filepath.Join(dir, "hwloc", "*.tar.bz2"))
	ghw, _ := filepath.Glob(filepath.Join(dir, "ghw", "*.tar.gz"))
	if len(hwloc) == 0 || len(ghw) == 0 {
		t.Fatalf("corpus at %s holds %d hwloc and %d ghw captures", dir, len(hwloc), len(ghw))
	}
	return append(hwloc, ghw...)
}

func open(t testing.TB, name string) source.FS {
	t.Helper()
	src, err := source.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	return src.Root
}

// snap writes a snapshot of fsys into a temporary folder and returns its path.
func snap(t testing.TB, fsys fs.FS, opts snapshot.Options) (string, snapshot.Stats) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "snap.tar.gz")
	opts.Now = fixed
	st, err := snapshot.WriteFile(out, fsys, opts)
	if err != nil {
		t.Fatal(err)
	}
	return out, st
}

// view is what a graph says, in comparable form.
type view struct {
	Devices     []devView
	HostBridges []hbView
	System      topology.System
	Platform    topology.Platform
	Pairs       []pairView
	Lacks       []string
	Warnings    []topology.Warning
}

type devView struct {
	BDF, Parent, HostBridge        string
	Kind                           topology.Kind
	Role                           topology.Role
	Class                          uint32
	Vendor, Device, SubVen, SubDev uint16
	SubsystemKnown                 bool
	NUMANode, RawNUMANode          int
	NUMAFrom, LocalCPUs            string
	Link                           topology.Link
	Driver, IOMMUGroup, PhysFn     string
	RDMA, Netdevs                  []string
	PortRateGbps                   float64
	ConfigLen                      int
	BARs                           []topology.BAR
	ACSRedirect, ACSKnown          bool
	MaxReadRequest, MaxPayload     int
	RelaxedOrdering, DevCtlKnown   bool
	Ports                          []topology.IBPort
	AER                            *topology.AERCounts
	NUMANodeUnread                 string
	LocalCPUsNode, HasACS          bool
	ACSCtl                         uint16
	VPDV3, VPDSN                   string
	ComputePartition, MemPartition string
	Bond                           string
	LAG                            *topology.LAG
}

type hbView struct {
	Name             string
	NUMANode, Socket int
	Inferred         bool
	Devices          int
}

type pairView struct {
	A, B           string
	SMI, NCCL      topology.Label
	Path           string
	Uncertain      bool
	BottleneckGbps float64
	Notes          []string
}

func bdf(d *topology.Device) string {
	if d == nil {
		return ""
	}
	return d.BDF()
}

func project(g *topology.Graph) view {
	v := view{System: g.System, Platform: g.Platform, Lacks: g.Lacks, Warnings: g.Warnings}
	for _, d := range g.Devices {
		hb := ""
		if d.HostBridge != nil {
			hb = d.HostBridge.Name
		}
		v.Devices = append(v.Devices, devView{BDF: d.BDF(), Parent: bdf(d.Parent), HostBridge: hb, Kind: d.Kind, Role: d.Role,
			Class: d.Class, Vendor: d.VendorID, Device: d.DeviceID, SubVen: d.SubVendorID, SubDev: d.SubDeviceID,
			SubsystemKnown: d.SubsystemKnown, NUMANode: d.NUMANode, RawNUMANode: d.RawNUMANode, NUMAFrom: d.NUMAFrom,
			LocalCPUs: d.LocalCPUs, Link: d.Link, Driver: d.Driver, IOMMUGroup: d.IOMMUGroup, PhysFn: d.PhysFn(),
			RDMA: d.RDMA, Netdevs: d.Netdevs, PortRateGbps: d.PortRateGbps, ConfigLen: d.ConfigLen, BARs: d.BARs,
			ACSRedirect: d.ACSRedirect, ACSKnown: d.ACSKnown, MaxReadRequest: d.MaxReadRequest, MaxPayload: d.MaxPayload,
			RelaxedOrdering: d.RelaxedOrdering, DevCtlKnown: d.DevCtlKnown, Ports: d.Ports, AER: d.AER,
			NUMANodeUnread: d.NUMANodeUnread(), LocalCPUsNode: d.LocalCPUsNode, HasACS: d.HasACS, ACSCtl: d.ACSCtl,
			VPDV3: d.VPDV3(), VPDSN: d.VPDSN(), ComputePartition: d.ComputePartition(), MemPartition: d.MemoryPartition(),
			Bond: d.Bond, LAG: d.LAG()})
	}
	for _, hb := range g.HostBridges {
		v.HostBridges = append(v.HostBridges, hbView{hb.Name, hb.NUMANode, hb.Socket, hb.Inferred, len(hb.Devices)})
	}
	for _, p := range g.Pairs() {
		v.Pairs = append(v.Pairs, pairView{bdf(p.A), bdf(p.B), p.SMI, p.NCCL, p.Path, p.LabelUncertain, p.BottleneckGbps, p.Notes})
	}
	return v
}

func read(t testing.TB, fsys fs.FS) *topology.Graph {
	t.Helper()
	g, err := sysfs.Read(fsys)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// requireSame snapshots fsys and requires the snapshot to read as fsys does:
// the running machine's tree (opts.Source "/") read as such.
func requireSame(t *testing.T, fsys fs.FS, opts snapshot.Options) (string, snapshot.Stats) {
	t.Helper()
	var src *topology.Graph
	if opts.Source == "/" {
		g, err := sysfs.ReadLiveOn(fsys, 1)
		if err != nil {
			t.Fatal(err)
		}
		src = g
	} else {
		src = read(t, fsys)
	}
	want := project(src)
	out, st := snap(t, fsys, opts)
	got := project(read(t, open(t, out)))
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("snapshot reads differently from its source (-source +snapshot):\n%s", diff)
	}
	if len(want.Devices) == 0 {
		t.Fatal("source has no devices")
	}
	return out, st
}

func size(t testing.TB, name string) int64 {
	t.Helper()
	fi, err := os.Stat(name)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

func TestSnapshotReadsLikeFixture(t *testing.T) {
	for _, name := range fixturetest.Names(t) {
		t.Run(name, func(t *testing.T) {
			fsys := open(t, fixture(name))
			opts := snapshot.Options{Redact: true}
			if vpd, _ := fs.Glob(fsys, "sys/bus/pci/devices/*/vpd"); len(vpd) > 0 {
				// Data Direct pairing rests on the VPD, which a redacted
				// capture leaves out (it holds the serial number).
				opts.Redact = false
			}
			out, st := requireSame(t, fsys, opts)
			t.Logf("%d files, %d links, %d bytes", st.Files, st.Links, size(t, out))
		})
	}
}

func TestSnapshotReadsLikeCorpusCapture(t *testing.T) {
	for _, f := range corpusCaptures(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			out, st := requireSame(t, open(t, f), snapshot.Options{Redact: true})
			t.Logf("%s: %d bytes -> snapshot %d bytes (%d files, %d links)", filepath.Base(f), size(t, f), size(t, out), st.Files, st.Links)
		})
	}
}

func TestSnapshotReadsLikeLiveMachine(t *testing.T) {
	live := source.Live().Root
	if _, err := fs.Stat(live, "sys/bus/pci/devices"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("no live PCI tree: %v (CI runs on a machine with one)", err)
		}
		t.Skipf("no live PCI tree: %v", err)
	}
	out, st := requireSame(t, live, snapshot.Options{Redact: true, Source: "/", Root: os.Geteuid() == 0})
	t.Logf("live: %d files, %d links, %d bytes", st.Files, st.Links, size(t, out))
}

// members reads a snapshot's members: regular files' content, "-> target"
// for links and "/" for folders.
func members(t testing.TB, name string) map[string]string {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	m := map[string]string{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return m
		}
		if err != nil {
			t.Fatal(err)
		}
		switch h.Typeflag {
		case tar.TypeReg:
			b, _ := io.ReadAll(tr)
			m[h.Name] = string(b)
		case tar.TypeSymlink:
			m[h.Name] = "-> " + h.Linkname
		case tar.TypeDir:
			m[strings.TrimSuffix(h.Name, "/")] = "/"
		default:
			t.Fatalf("member %s has type %q", h.Name, h.Typeflag)
		}
	}
}

// unpack extracts a snapshot into a fresh folder and returns it.
func unpack(t testing.TB, name string) string {
	t.Helper()
	dir := t.TempDir()
	for p, v := range members(t, name) {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		var err error
		switch {
		case v == "/":
			err = os.MkdirAll(full, 0o755)
		case strings.HasPrefix(v, "-> "):
			err = os.Symlink(strings.TrimPrefix(v, "-> "), full)
		default:
			err = os.WriteFile(full, []byte(v), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestManifest(t *testing.T) {
	out, st := snap(t, open(t, fixture("hgx-h100")), snapshot.Options{Redact: true, Version: "1.2.3", Source: "fixtures/hgx-h100"})
	m := members(t, out)
	var got snapshot.Manifest
	if err := json.Unmarshal([]byte(m[snapshot.ManifestName]), &got); err != nil {
		t.Fatalf("manifest %q: %v", m[snapshot.ManifestName], err)
	}
	want := snapshot.Manifest{Version: "1.2.3", TakenAt: "2026-01-02T03:04:05Z", Source: "fixtures/hgx-h100", Redacted: true, Files: st.Files}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("manifest (-want +got):\n%s", diff)
	}
	files, links := 0, 0
	for p, v := range m {
		switch {
		case p == snapshot.ManifestName || v == "/":
		case strings.HasPrefix(v, "-> "):
			links++
			target := strings.TrimPrefix(v, "-> ")
			if r := path.Join(path.Dir(p), target); path.IsAbs(target) || r == ".." || strings.HasPrefix(r, "../") {
				t.Errorf("%s %s: absolute or escaping link", p, v)
			}
		default:
			files++
		}
	}
	if files != st.Files || links != st.Links || files == 0 {
		t.Errorf("archive holds %d files and %d links, Stats says %+v", files, links, st)
	}
}

func TestRedaction(t *testing.T) {
	fsys := open(t, fixture("hgx-h100"))
	count := func(m map[string]string, base string) int {
		n := 0
		for p := range m {
			if path.Base(p) == base {
				n++
			}
		}
		return n
	}
	redacted, _ := snap(t, fsys, snapshot.Options{Redact: true})
	plain, _ := snap(t, fsys, snapshot.Options{Redact: false})
	r, p := members(t, redacted), members(t, plain)
	if n := count(r, "node_guid"); n != 0 {
		t.Errorf("redacted snapshot holds %d node_guid files", n)
	}
	if n := count(p, "node_guid"); n == 0 {
		t.Errorf("unredacted snapshot holds no node_guid, though the fixture has them")
	}
	if n := count(p, "address"); n != 0 {
		t.Errorf("unredacted snapshot holds %d MAC address files", n)
	}
	if n := count(r, "rate"); n == 0 {
		t.Errorf("redacted snapshot lost the port rates")
	}
}

func TestLinksStayInside(t *testing.T) {
	fsys := fstest.MapFS{
		"sys/bus/pci/devices/0000:00:01.0":                     {Data: []byte("/sys/devices/pci0000:00/0000:00:01.0"), Mode: fs.ModeSymlink},
		"sys/bus/pci/devices/0000:00:02.0":                     {Data: []byte("../../../../../etc"), Mode: fs.ModeSymlink},
		"sys/bus/pci/devices/junk":                             {Data: []byte("x")},
		"sys/devices/pci0000:00/0000:00:01.0/class":            {Data: []byte("0x020000\n")},
		"sys/devices/pci0000:00/0000:00:01.0/driver":           {Data: []byte("/sys/bus/pci/drivers/e1000"), Mode: fs.ModeSymlink},
		"sys/class/net/eth0":                                   {Data: []byte("../../devices/pci0000:00/0000:00:01.0/net/eth0"), Mode: fs.ModeSymlink},
		"sys/class/net/lo":                                     {Data: []byte("../../devices/virtual/net/lo"), Mode: fs.ModeSymlink},
		"sys/devices/pci0000:00/0000:00:01.0/net/eth0/address": {Data: []byte("52:54:00:12:34:56\n")},
		"sys/devices/pci0000:00/0000:00:01.0/net/eth0/speed":   {Data: []byte("1000\n")},
		"sys/devices/virtual/net/lo/speed":                     {Data: []byte("0\n")},
	}
	out, _ := snap(t, fsys, snapshot.Options{Redact: true})
	m := members(t, out)
	want := map[string]string{
		"sys/bus/pci/devices/0000:00:01.0":                   "-> ../../../devices/pci0000:00/0000:00:01.0",
		"sys/devices/pci0000:00/0000:00:01.0/class":          "0x020000\n",
		"sys/devices/pci0000:00/0000:00:01.0/driver":         "-> ../../../bus/pci/drivers/e1000",
		"sys/bus/pci/drivers/e1000/0000:00:01.0":             "-> ../../../../devices/pci0000:00/0000:00:01.0",
		"sys/class/net/eth0":                                 "-> ../../devices/pci0000:00/0000:00:01.0/net/eth0",
		"sys/devices/pci0000:00/0000:00:01.0/net/eth0/speed": "1000\n",
	}
	for p, v := range want {
		if m[p] != v {
			t.Errorf("%s = %q, want %q", p, m[p], v)
		}
	}
	for _, p := range []string{"sys/bus/pci/devices/0000:00:02.0", "sys/bus/pci/devices/junk", "sys/class/net/lo",
		"sys/devices/virtual", "sys/devices/pci0000:00/0000:00:01.0/net/eth0/address"} {
		if v, ok := m[p]; ok {
			t.Errorf("%s = %q, want it left out", p, v)
		}
	}
}

func TestLspciReadsSnapshot(t *testing.T) {
	lspci, err := exec.LookPath("lspci")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("lspci missing in CI")
		}
		t.Skip("lspci not installed")
	}
	out, _ := snap(t, open(t, fixture("dgx-a100")), snapshot.Options{Redact: true})
	dir := unpack(t, out)
	tree := fixturetest.Unpack(t, "dgx-a100")
	run := func(root string, args ...string) string {
		t.Helper()
		cmd := exec.Command(lspci, append([]string{"-A", "linux-sysfs", "-O", "sysfs.path=" + filepath.Join(root, "sys", "bus", "pci")}, args...)...)
		b, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", cmd, err, b)
		}
		return string(b)
	}
	for _, args := range [][]string{{"-tv"}, {"-vvv"}} {
		want, got := run(tree, args...), run(dir, args...)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("lspci %v on the snapshot differs from the fixture (-fixture +snapshot):\n%s", args, diff)
		}
	}
}

func TestWriteFileErrors(t *testing.T) {
	fsys := open(t, fixture("recorded-vm"))
	dir := t.TempDir()
	file := filepath.Join(dir, "a-file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{
		filepath.Join(dir, "missing", "snap.tar.gz"),
		filepath.Join(file, "snap.tar.gz"),
		dir,
	} {
		_, err := snapshot.WriteFile(name, fsys, snapshot.Options{})
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("WriteFile(%s) = %v, want an error naming it", name, err)
		}
	}
	// A source without PCI data fails the capture after the temp file exists.
	_, err := snapshot.WriteFile(filepath.Join(dir, "empty.tar.gz"), fstest.MapFS{}, snapshot.Options{})
	if !errors.Is(err, topology.ErrNoPCI) {
		t.Errorf("capture of an empty tree: %v, want ErrNoPCI", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != "a-file" {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("folder holds %v after failed writes, want only a-file", names)
	}
}

func TestWriteFileLeavesOneFile(t *testing.T) {
	fsys := open(t, fixture("recorded-vm"))
	dir := t.TempDir()
	name := filepath.Join(dir, "snap.tar.gz")
	for range 2 { // the second write replaces the first
		if _, err := snapshot.WriteFile(name, fsys, snapshot.Options{Now: fixed}); err != nil {
			t.Fatal(err)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != "snap.tar.gz" {
		t.Fatalf("folder holds %v, want only snap.tar.gz", entries)
	}
	var buf bytes.Buffer
	st, err := snapshot.Capture(fsys, &buf, snapshot.Options{Now: fixed})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(name); !bytes.Equal(b, buf.Bytes()) || st.Bytes != int64(buf.Len()) {
		t.Errorf("WriteFile and Capture differ, or Stats.Bytes %d != %d written", st.Bytes, buf.Len())
	}
}

func BenchmarkCapture(b *testing.B) {
	fsys := open(b, fixture("dgx-a100"))
	var st snapshot.Stats
	for b.Loop() {
		var err error
		if st, err = snapshot.Capture(fsys, io.Discard, snapshot.Options{Redact: true, Now: fixed}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(st.Bytes), "archive-bytes")
	b.ReportMetric(float64(st.Files+st.Links), "members")
}

func TestLstopoReadsSnapshot(t *testing.T) {
	lstopo, err := exec.LookPath("lstopo-no-graphics")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("lstopo-no-graphics missing in CI")
		}
		t.Skip("lstopo-no-graphics not installed")
	}
	out, _ := snap(t, open(t, fixture("hgx-h100")), snapshot.Options{Redact: true})
	dir := unpack(t, out)
	tree := fixturetest.Unpack(t, "hgx-h100")
	run := func(root string) string {
		t.Helper()
		// CPU caches are not captured: gdtopo does not read them.
		cmd := exec.Command(lstopo, "--input", root, "--of", "console", "--filter", "cache:none", "--filter", "io:all")
		b, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", cmd, err, b)
		}
		return string(b)
	}
	want, got := run(tree), run(dir)
	if !strings.Contains(want, "OpenFabrics") {
		t.Fatalf("lstopo shows no RDMA device on the fixture:\n%s", want)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("lstopo on the snapshot differs from the fixture (-fixture +snapshot):\n%s", diff)
	}
}
