package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gdtopo/gdtopo/fixtures/fixturetest"
	"github.com/gdtopo/gdtopo/internal/report"
)

func corpusPath(t *testing.T, parts ...string) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "..", "shared", "corpus"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("corpus missing in CI: %v", err)
		}
		t.Skipf("corpus not found at %s (outside CI this test is skipped)", dir)
	}
	return filepath.Join(append([]string{dir}, parts...)...)
}

// TestVerify runs gdtopo verify the three ways an operator gives the
// matrix (a second argument, --nvsmi, pasted with the dump) on the
// Threadripper's own lspci and nvidia-smi, and on a changed matrix.
func TestVerify(t *testing.T) {
	paired := corpusPath(t, "paired", "puget-wrx90-threadripper-2xrtx6000ada-cx7")
	tv, nv := filepath.Join(paired, "lspci-tv.txt"), filepath.Join(paired, "nvsmi-topo.txt")
	for _, args := range [][]string{
		{"verify", tv, nv},
		{"verify", tv, "--nvsmi", nv},
		{"verify", "-"},
	} {
		var out, errb strings.Builder
		code := Main(args, strings.NewReader(catFiles(t, nv, tv)), &out, &errb)
		if code != ExitOK || !strings.Contains(out.String(), "6 compared: 6 agree, 0 differ") || !strings.Contains(out.String(), "no compared cell disagrees") {
			t.Errorf("gdtopo %v: exit %d, stderr %q:\n%s", args, code, errb.String(), out.String())
		}
	}

	// The dump pasted after the matrix, or before it: the same tree.
	for _, stdin := range []string{catFiles(t, nv, tv), catFiles(t, tv, nv)} {
		var out, errb strings.Builder
		if code := Main([]string{"matrix", "-"}, strings.NewReader(stdin), &out, &errb); code != ExitOK ||
			!strings.Contains(out.String(), "GPU0\t X \tPHB\tNODE?") || !strings.Contains(out.String(), "NIC0: mlx5_0 (0000:21:00.0)") {
			t.Errorf("matrix - of a matrix and a dump: exit %d %q:\n%s", code, errb.String(), out.String())
		}
	}

	changed := filepath.Join(t.TempDir(), "changed.txt")
	text := strings.Replace(catFiles(t, nv), "GPU0     X      PHB     NODE    NODE", "GPU0     X      PHB     SYS     NODE", 1)
	if err := os.WriteFile(changed, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errb := run("verify", tv, changed, "-o", "json")
	var doc struct {
		NVSMI struct {
			Compared int `json:"compared"`
			Differ   []struct {
				Row, Column, A, B string
				Driver            string `json:"nvidia_smi"`
				Source            string `json:"source"`
			} `json:"differ"`
		} `json:"nvidia_smi"`
	}
	err := json.Unmarshal([]byte(out), &doc)
	rep := doc.NVSMI
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if code != ExitFindings || !strings.Contains(errb, "1 of 6 cells differ") || len(rep.Differ) != 1 ||
		rep.Differ[0].Row != "GPU0" || rep.Differ[0].Column != "NIC0" || rep.Differ[0].Driver != "SYS" || rep.Differ[0].Source != "NODE?" ||
		rep.Differ[0].A != "0000:c1:00.0" || rep.Differ[0].B != "0000:21:00.0" {
		t.Errorf("a changed cell: exit %d, stderr %q, %+v", code, errb, rep)
	}
}

// TestNVSMIGivesNVLink: with the host's matrix, GPU pairs read NV# and
// "Source lacks" no longer names NVLink; without it they read NV?.
func TestNVSMIGivesNVLink(t *testing.T) {
	nv := corpusPath(t, "nvsmi", "dgxa100-like-epyc7742-8xa100-10nic.txt")
	fixture := fx("dgx-a100")
	code, out, errb := run("check", fixture)
	if code != ExitOK || !strings.Contains(out, "Source lacks   NVLink (") {
		t.Errorf("check without the matrix: exit %d %q, no NVLink in Source lacks", code, errb)
	}
	code, out, errb = run("matrix", fixture, "--nvsmi", nv)
	if code != ExitOK || !strings.Contains(out, "GPU0\t X \tNV12\tNV12") || strings.Contains(out, "NV?") {
		t.Errorf("matrix --nvsmi: exit %d %q:\n%s", code, errb, out)
	}
	code, out, _ = run("check", fixture, "--nvsmi", nv)
	// The fixture is DGX A100-like, not that host: 32 CPUs where it had
	// 256, so every GPU's CPU Affinity differs; NUMA Affinity agrees.
	if code != ExitOK || strings.Contains(out, "Source lacks   NVLink") || !strings.Contains(out, "169 compared: 133 agree, 8 differ (gdtopo verify lists them); 28 NV# the source cannot show") {
		t.Errorf("check --nvsmi: exit %d:\n%s", code, out)
	}
	code, out, _ = run("check", fixture, "--nvsmi", nv, "-o", "json")
	var doc report.Check
	err := json.Unmarshal([]byte(out), &doc)
	if err != nil || code != ExitOK || len(doc.Sources) != 1 || doc.Sources[0].Report == nil || doc.Sources[0].Report.NVSMI == nil {
		t.Fatalf("check --nvsmi -o json: exit %d, %v, no nvidia_smi:\n%.400s", code, err, out)
	}
	c := doc.Sources[0].Report.NVSMI
	if c.Compared != 169 || c.Agree != 133 || c.NVLink != 28 || len(c.Differ) != 8 {
		t.Errorf("check --nvsmi -o json: %+v", c)
	}
	for _, d := range c.Differ {
		if d.Column != "CPU Affinity" || d.B != "" || d.Row == "" || d.A == "" {
			t.Errorf("check --nvsmi -o json: a differing cell that is not a GPU's CPU Affinity: %+v", d)
		}
	}
	if len(c.Differ) > 0 && (c.Differ[0].Driver != "48-63,176-191" || c.Differ[0].Source != "6-7,22-23") {
		t.Errorf("GPU0's CPU Affinity: %+v", c.Differ[0])
	}
}

func TestVerifyErrors(t *testing.T) {
	nv := corpusPath(t, "paired", "puget-wrx90-threadripper-2xrtx6000ada-cx7", "nvsmi-topo.txt")
	fixture := fx("wrx90-threadripper")
	// The fixture's README.md: text that is no matrix.
	text := fixturetest.Files(t, "wrx90-threadripper", func(m string) bool { return m == "README.md" })["README.md"]
	readme := filepath.Join(t.TempDir(), "README.md")
	if err := os.WriteFile(readme, text, 0o644); err != nil || len(text) == 0 {
		t.Fatalf("README.md of %s (%d bytes): %v", fixture, len(text), err)
	}
	for _, c := range []struct {
		args  []string
		stdin string
		code  int
		says  string
	}{
		{[]string{"verify", fixture}, "", ExitUsage, "verify needs the host's nvidia-smi topo -m"},
		{[]string{"verify", fixture, nv, "--nvsmi", nv}, "", ExitUsage, "given twice"},
		{[]string{"verify", fixture, readme}, "", ExitError, "README.md: neither nvidia-smi topo -m"},
		{[]string{"verify", fixture, "/nonexistent/nvsmi.txt"}, "", ExitError, "nvsmi.txt"},
		{[]string{"matrix", "-"}, catFiles(t, nv), ExitError, "standard input: an nvidia-smi topo -m matrix alone"},
		{[]string{"check", fixture, fixture, "--nvsmi", nv}, "", ExitUsage, "--nvsmi describes one host"},
		{[]string{"verify", fixture, corpusPath(t, "nvsmi", "nccl-tests-320-3gpu-2nic.txt")}, "", ExitError, "the matrix has 3 GPUs, the source 2 NVIDIA accelerators"},
		{[]string{"verify"}, "", ExitUsage, "nvidia-smi topo -m | gdtopo verify --nvsmi -"},
		{[]string{"verify", "-", "--nvsmi", "-"}, catFiles(t, nv), ExitUsage, "standard input given twice"},
	} {
		var out, errb strings.Builder
		code := Main(c.args, strings.NewReader(c.stdin), &out, &errb)
		if code != c.code || !strings.Contains(errb.String(), c.says) || strings.Count(strings.TrimSpace(errb.String()), "\n") > 1 {
			t.Errorf("gdtopo %v: exit %d, stderr %q; want %d saying %q", c.args, code, errb.String(), c.code, c.says)
		}
	}
}

// TestVerifyROCmSMI sets published rocm-smi --showtopo captures against the
// mi300x-8oam fixture: the 8-GPU all-XGMI one matches it (every XGMI cell
// is xGMI the sysfs tree cannot show, the NUMA affinities agree); a 4-GPU
// one, one cut before its first row and a text that is neither tool's
// output are errors on one line naming the input.
func TestVerifyROCmSMI(t *testing.T) {
	fixture := fx("mi300x-8oam")
	testdata := filepath.Join("..", "rocmsmi", "testdata")
	whole := filepath.Join(testdata, "ms-swift-mi308x-8xgmi.txt")
	code, out, _ := run("verify", fixture, whole)
	if code != ExitOK || !strings.Contains(out, "\nrocm-smi  "+whole+": 8 GPUs: 28 XGMI and 0 PCIE pairs") ||
		!strings.Contains(out, "36 compared: 8 agree, 0 differ; 28 XGMI the source cannot show") {
		t.Errorf("verify %s %s: exit %d:\n%s", fixture, whole, code, out)
	}
	code, out, _ = run("verify", fixture, "--nvsmi", whole, "-o", "json")
	var v report.Verification
	if err := json.Unmarshal([]byte(out), &v); err != nil || code != ExitOK || v.NVSMI == nil || v.NVSMI.Tool != "rocm-smi --showtopo" || v.NVSMI.NVLink != 28 {
		t.Errorf("verify -o json: exit %d, %v:\n%.600s", code, err, out)
	}
	code, out, _ = run("check", fixture, "--nvsmi", whole)
	if code != ExitOK || !strings.Contains(out, "28 XGMI the source cannot show") {
		t.Errorf("check --nvsmi rocm-smi: exit %d:\n%s", code, out)
	}

	raw, err := os.ReadFile(whole)
	if err != nil {
		t.Fatal(err)
	}
	title := strings.Index(string(raw), "Link Type between two GPUs")
	cut := filepath.Join(t.TempDir(), "cut-showtopo.txt")
	if err := os.WriteFile(cut, raw[:title+120], 0o644); err != nil { // inside the header line
		t.Fatal(err)
	}
	garbage := filepath.Join(t.TempDir(), "garbage.txt")
	if err := os.WriteFile(garbage, []byte("Link Type between two GPUs\n\x00\x01 not a table\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		matrix, says string
	}{
		{filepath.Join(testdata, "rocm-smi-lib-108-pcie-4gpu-cut.txt"), "rocm-smi lists 4 GPUs, the source has 8 AMD accelerators"},
		{cut, "cut-showtopo.txt: rocm-smi --showtopo's \"Link Type between two GPUs\" table has no whole header and row"},
		{garbage, "garbage.txt: no rocm-smi --showtopo link-type table"},
	} {
		var o, e strings.Builder
		code := Main([]string{"verify", fixture, c.matrix}, strings.NewReader(""), &o, &e)
		if code != ExitError || !strings.Contains(e.String(), c.says) || strings.Count(strings.TrimSpace(e.String()), "\n") > 0 {
			t.Errorf("verify %s: exit %d, stderr %q; want %d saying %q", c.matrix, code, e.String(), ExitError, c.says)
		}
	}
}

// TestVerifyRecordedH200 sets the recorded H200 machine's own nvidia-smi
// topo -m, as nvidia-smi wrote it to a file (its header underlined with
// terminal escapes), against the tree recorded with it: one GPU and no
// RDMA NIC leave no pair to compare, which is said, and is no error.
func TestVerifyRecordedH200(t *testing.T) {
	fixture := fx("recorded-h200")
	nv := filepath.Join("..", "..", "fixtures", "recorded-h200.nvidia-smi-topo-m.txt")
	raw, err := os.ReadFile(nv)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), "\x1b[4mGPU0") {
		t.Fatalf("%s lost nvidia-smi's escapes", nv)
	}
	for _, c := range []struct {
		args  []string
		stdin string
	}{
		{[]string{"verify", fixture, nv}, ""},
		{[]string{"verify", fixture, "--nvsmi", "-"}, string(raw)},
	} {
		var out, errb strings.Builder
		code := Main(c.args, strings.NewReader(c.stdin), &out, &errb)
		if code != ExitOK || !strings.Contains(out.String(), "1 GPU, 0 NICs") || !strings.Contains(out.String(), "no pair to set against the source") {
			t.Errorf("gdtopo %v: exit %d, stderr %q, out:\n%s", c.args, code, errb.String(), out.String())
		}
	}
}

// TestEmptyRDMAClass reads the recorded H200 machine as gdtopo snapshot
// took it there (its empty sys/class/infiniband and sys/class/iommu kept),
// and the recorded tree, which lacks them, unpacked with the empty
// sys/class/infiniband put back. The virtio NIC's missing RDMA device is
// then read from the class folder, not from its model.
func TestEmptyRDMAClass(t *testing.T) {
	fixture := fx("recorded-h200")
	tree := filepath.Join(t.TempDir(), "h200")
	unpackTo(t, fixture, tree)
	if err := os.MkdirAll(filepath.Join(tree, "sys", "class", "infiniband"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, src := range []string{filepath.Join("..", "..", "fixtures", "recorded-h200.snapshot.tar.gz"), tree} {
		code, out, errb := run("check", src, "-o", "json")
		if code != ExitOK {
			t.Fatalf("check %s: exit %d: %s", src, code, errb)
		}
		var doc report.Check
		if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Sources) != 1 || doc.Sources[0].Report == nil {
			t.Fatalf("check %s -o json: %v:\n%.400s", src, err, out)
		}
		found := false
		for _, f := range doc.Sources[0].Report.Findings {
			if f.Code == "no-rdma-nic" {
				found = true
				if f.Evidence != "sys/class/infiniband: no RDMA device on 0000:00:03.0" || !strings.Contains(f.Message, "no sys/class/infiniband device") {
					t.Errorf("%s: no-rdma-nic: evidence %q, message %q", src, f.Evidence, f.Message)
				}
			}
		}
		if !found {
			t.Errorf("%s: no no-rdma-nic finding: %+v", src, doc.Sources[0].Report.Findings)
		}
	}
}

// TestVerifyReads: verify takes a matrix pasted as comments ("# " before
// each line), as the same matrix bare; counts a cell whose path the source
// cannot tell (plain lspci, label "?") as not compared, never as differing
// (exit 0); gives every listed reason once, below the table, never empty;
// and opens with its first item, not a blank line.
func TestVerifyReads(t *testing.T) {
	nv := corpusPath(t, "nvsmi", "dgxa100-like-epyc7742-8xa100-10nic.txt")
	text, err := os.ReadFile(nv)
	if err != nil {
		t.Fatal(err)
	}
	hashed := filepath.Join(t.TempDir(), "hashed.txt")
	if err := os.WriteFile(hashed, []byte("# "+strings.ReplaceAll(strings.TrimSuffix(string(text), "\n"), "\n", "\n# ")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bareCode, bare, _ := run("verify", fx("dgx-a100"), nv)
	code, out, errb := run("verify", fx("dgx-a100"), hashed)
	if code != bareCode || strings.ReplaceAll(out, hashed, nv) != bare {
		t.Errorf("verify of the matrix as comments: exit %d %q, bare %d:\n%s\nbare:\n%s", code, errb, bareCode, out, bare)
	}
	if strings.HasPrefix(out, "\n") || strings.Contains(out, "Item ") || strings.Contains(out, "gdtopo verify lists them") {
		t.Errorf("verify opens with a blank line or a header, or sends the reader to itself:\n%s", out)
	}
	_, whys, _ := strings.Cut(out, "\nWhy they may differ\n")
	if n := strings.Count(out, "renumbered"); n != 1 || !strings.Contains(whys, "renumbered") {
		t.Errorf("verify says the reason %d times, want once below the table:\n%s", n, out)
	}

	plain := filepath.Join(t.TempDir(), "lspci.txt")
	dump := "21:00.0 Infiniband controller: Mellanox Technologies MT2910 Family [ConnectX-7]\n" +
		"21:00.1 Infiniband controller: Mellanox Technologies MT2910 Family [ConnectX-7]\n" +
		"c1:00.0 3D controller: NVIDIA Corporation AD102GL [RTX 6000 Ada Generation] (rev a1)\n" +
		"c2:00.0 3D controller: NVIDIA Corporation AD102GL [RTX 6000 Ada Generation] (rev a1)\n"
	if err := os.WriteFile(plain, []byte(dump), 0o644); err != nil {
		t.Fatal(err)
	}
	paired := corpusPath(t, "paired", "puget-wrx90-threadripper-2xrtx6000ada-cx7", "nvsmi-topo.txt")
	code, out, errb = run("verify", plain, paired)
	if code != ExitOK || !strings.Contains(out, "1 compared: 1 agree, 0 differ; 5 the source cannot tell (not compared)") {
		t.Errorf("verify of plain lspci: exit %d %q:\n%s", code, errb, out)
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.HasSuffix(strings.TrimSpace(l), ":") {
			t.Errorf("verify gives an empty reason: %q", l)
		}
	}
}

// TestLspciNICNumbering: an lspci dump shows no RDMA devices, so NICs are
// numbered as nvidia-smi numbers its RDMA devices as far as the models
// tell: on the Threadripper, nvidia-smi's NIC0 and NIC1 (mlx5_0, mlx5_1)
// are the ConnectX-7's two functions, not the X710 ahead of them in
// address order; on the SD665-N the I210 comes after the six ConnectX
// functions. The X710 and I210, known by their pci.ids names to have no
// RDMA engine, are left out of the tables, as nvidia-smi leaves them out,
// and nothing says the numbering may differ.
func TestLspciNICNumbering(t *testing.T) {
	paired := corpusPath(t, "paired", "puget-wrx90-threadripper-2xrtx6000ada-cx7")
	nvsmiNICs := strings.Count(catFiles(t, filepath.Join(paired, "nvsmi-topo.txt")), ": mlx5_")
	for _, c := range []struct {
		dump   string
		want   []string // NIC0.. in order
		hidden []string
	}{
		{filepath.Join(paired, "lspci-tv.txt"), []string{"0000:21:00.0", "0000:21:00.1", "0000:14:00.0", "0000:14:00.1"}, []string{"0000:14:00.0", "0000:14:00.1"}},
		{corpusPath(t, "lspci", "lenovo-sd665n-v3-4xh100-genoa.lspci-t-vvv.txt"),
			[]string{"0000:03:00.0", "0000:23:00.0", "0000:42:00.0", "0000:42:00.1", "0000:a3:00.0", "0000:c3:00.0", "0000:07:00.0"}, []string{"0000:07:00.0"}},
	} {
		code, out, errb := run("check", c.dump, "-o", "json")
		var doc report.Check
		if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Sources) != 1 || doc.Sources[0].Report == nil {
			t.Fatalf("check %s -o json: exit %d, %v: %s", c.dump, code, err, errb)
		}
		r := doc.Sources[0].Report
		got := make([]string, len(c.want))
		for _, d := range r.Devices {
			var i int
			if _, err := fmt.Sscanf(d.Alias, "NIC%d", &i); err == nil && i < len(got) {
				got[i] = d.BDF
			}
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: NIC0.. %v, want %v", filepath.Base(c.dump), got, c.want)
		}
		if !slices.Equal(r.HiddenNICs, c.hidden) {
			t.Errorf("%s: hidden NICs %v, want %v", filepath.Base(c.dump), r.HiddenNICs, c.hidden)
		}
		if slices.ContainsFunc(r.Lacks, func(s string) bool { return strings.Contains(s, "may differ from nvidia-smi's") }) {
			t.Errorf("%s: lacks %q: the models are known", filepath.Base(c.dump), r.Lacks)
		}
	}
	if nvsmiNICs != 2 {
		t.Errorf("the paired nvidia-smi legend names %d mlx5 NICs, want 2", nvsmiNICs)
	}
}
