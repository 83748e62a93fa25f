package rocmsmi_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gdtopo/gdtopo/fixtures/fixturetest"
	"github.com/gdtopo/gdtopo/internal/rocmsmi"
	"github.com/gdtopo/gdtopo/internal/source"
	"github.com/gdtopo/gdtopo/internal/sysfs"
	"github.com/gdtopo/gdtopo/topology"
)

func capture(t *testing.T, name string) (*rocmsmi.Matrix, []byte) {
	t.Helper()
	p := filepath.Join("testdata", name)
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !rocmsmi.Sniff(data) {
		t.Fatalf("%s: not recognised as rocm-smi --showtopo", name)
	}
	m, err := rocmsmi.Parse(p, data)
	if err != nil {
		t.Fatal(err)
	}
	return m, data
}

// TestParseCaptures reads each published capture and checks what a reader
// of it sees: its GPUs, its link types, its NUMA lines and what is cut off.
func TestParseCaptures(t *testing.T) {
	for _, tt := range []struct {
		file            string
		gpus            int
		xgmi, pcie      int
		weight01, hop01 string // GPU0-GPU1 in the weight and hops tables, "" if absent
		affinity        map[int]int
		partial         string // a word of Partial, "" for whole
	}{
		{"ms-swift-mi308x-8xgmi.txt", 8, 28, 0, "15", "1", map[int]int{0: 0, 3: 0, 4: 1, 7: 1}, ""},
		{"rocm-smi-lib-108-pcie-4gpu-cut.txt", 4, 0, 6, "52", "3", map[int]int{}, "affinity of 0 of 4"},
		{"rocm-1503-mi100-pcie.txt", 2, 0, 1, "", "", map[int]int{}, ""},
	} {
		t.Run(tt.file, func(t *testing.T) {
			m, _ := capture(t, tt.file)
			if len(m.GPUs) != tt.gpus {
				t.Fatalf("GPUs %v, want %d", m.GPUs, tt.gpus)
			}
			counts := map[string]int{}
			for i, a := range m.GPUs {
				for _, b := range m.GPUs[i+1:] {
					c, ok := m.Cell(a, b)
					if !ok {
						t.Errorf("%s-%s: no cell", a, b)
					}
					counts[c]++
				}
			}
			if counts[rocmsmi.LinkXGMI] != tt.xgmi || counts[rocmsmi.LinkPCIe] != tt.pcie {
				t.Errorf("link types %v, want %d XGMI and %d PCIE", counts, tt.xgmi, tt.pcie)
			}
			if got := m.Weight["GPU0"]["GPU1"]; got != tt.weight01 {
				t.Errorf("weight GPU0-GPU1 %q, want %q", got, tt.weight01)
			}
			if got := m.Hops["GPU0"]["GPU1"]; got != tt.hop01 {
				t.Errorf("hops GPU0-GPU1 %q, want %q", got, tt.hop01)
			}
			for gpu, want := range tt.affinity {
				if got, ok := m.NUMAAffinity[gpu]; !ok || got != want {
					t.Errorf("GPU[%d] Numa Affinity %d (%v), want %d", gpu, got, ok, want)
				}
			}
			if p := strings.Join(m.Partial, "; "); tt.partial == "" && p != "" || !strings.Contains(p, tt.partial) {
				t.Errorf("Partial %q, want %q", p, tt.partial)
			}
		})
	}
}

// TestParseCutAndGarbage: an output cut inside its link-type table keeps
// the whole rows and says which are missing; one cut before the table, or
// a text that is not rocm-smi's, is an error naming the input.
func TestParseCutAndGarbage(t *testing.T) {
	_, data := capture(t, "ms-swift-mi308x-8xgmi.txt")
	text := string(data)
	at := strings.Index(text, "GPU3   XGMI         XGMI         XGMI         0")
	if at < 0 {
		t.Fatal("capture changed: no GPU3 link-type row")
	}
	m, err := rocmsmi.Parse("cut.txt", []byte(text[:at+22])) // "GPU3   XGMI         XG"
	if err != nil {
		t.Fatal(err)
	}
	if p := strings.Join(m.Partial, "; "); len(m.Link) != 4 || !strings.Contains(p, "no link-type row for GPU4, GPU5, GPU6, GPU7") || !strings.Contains(p, "row GPU3 cut off after 1 of 8 cells") {
		t.Errorf("cut in row GPU3: %d rows, Partial %q", len(m.Link), m.Partial)
	}
	if c, ok := m.Cell("GPU3", "GPU1"); !ok || c != rocmsmi.LinkXGMI {
		t.Errorf("GPU3-GPU1 from GPU1's row: %q %v", c, ok)
	}
	if _, ok := m.Cell("GPU4", "GPU5"); ok {
		t.Error("GPU4-GPU5 read from rows that were cut off")
	}
	title := strings.Index(text, rocmsmi.LinkTitle)
	for name, in := range map[string]string{
		"before.txt":  text[:title+len(rocmsmi.LinkTitle)+40], // title and header, no row
		"weights.txt": text[:title-40],
		"garbage.txt": "GPU0 GPU1\nhello world\n",
	} {
		if _, err := rocmsmi.Parse(name, []byte(in)); err == nil || !strings.HasPrefix(err.Error(), name+": ") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %v, want one line starting with the name", name, err)
		}
	}
}

func mi300x(t *testing.T) *topology.Graph {
	t.Helper()
	src, err := source.Open(fixturetest.Archive(t, "mi300x-8oam"))
	if err != nil {
		t.Fatal(err)
	}
	g, err := sysfs.Read(src.Root)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestCompareMI300X sets the published MI308X box's matrix (8 GPUs, all
// XGMI) against the mi300x-8oam fixture, another host of the same shape (8
// OAM modules, 4 per socket): its sysfs tree cannot show xGMI,
// so every XGMI cell is xGMI the source lacks, and the NUMA affinities
// (0 for GPUs 0-3, 1 for 4-7) agree.
func TestCompareMI300X(t *testing.T) {
	m, _ := capture(t, "ms-swift-mi308x-8xgmi.txt")
	g := mi300x(t)
	r := rocmsmi.Compare(g, m)
	if r.GPUsBy == "" {
		t.Fatalf("GPUs not matched: %v", r.Notes)
	}
	if r.NVLink != 28 || len(r.Differ) != 0 || r.Agree != 8 || r.Compared != 36 {
		t.Errorf("compared %d, agree %d, xGMI not in source %d, differ %v", r.Compared, r.Agree, r.NVLink, r.Differ)
	}

	// A source that records its xGMI and finds none (as an RCCL topology
	// with no xGMI links would) disagrees with every XGMI cell.
	g = mi300x(t)
	g.NVLinkRecorded = true
	r = rocmsmi.Compare(g, m)
	if len(r.Differ) != 28 || r.NVLink != 0 {
		t.Fatalf("no xGMI in the source: %d differ, %d not in source", len(r.Differ), r.NVLink)
	}
	if d := r.Differ[0]; d.Driver != "XGMI" || strings.HasPrefix(d.Tree, "XGMI") || !strings.Contains(d.Why, "xGMI the source cannot show") {
		t.Errorf("first difference %+v", d)
	}

	// One that records xGMI between every pair agrees with every cell.
	g = mi300x(t)
	accels := g.OfKind(topology.KindAccelerator)
	for i, a := range accels {
		for _, b := range accels[i+1:] {
			g.NVLinks = append(g.NVLinks, topology.NVLink{A: a.Addr, B: b.Addr, Count: 1})
		}
	}
	g.NVLinkRecorded = true
	if r = rocmsmi.Compare(g, m); r.Agree != 36 || len(r.Differ) != 0 {
		t.Errorf("xGMI recorded: agree %d, differ %v", r.Agree, r.Differ)
	}
}

// TestComparePCIe sets the 4-GPU PCIE matrix of ROCm/rocm_smi_lib#108
// against a source of four AMD accelerators: PCIe paths agree with PCIE
// whatever their label; xGMI recorded in the source disagrees.
func TestComparePCIe(t *testing.T) {
	m, _ := capture(t, "rocm-smi-lib-108-pcie-4gpu-cut.txt")
	four := func() *topology.Graph {
		g := mi300x(t)
		for _, d := range g.OfKind(topology.KindAccelerator)[4:] {
			d.Kind = topology.KindOther // hidden from the host, as a VM's passthrough would
		}
		return g
	}
	g := four()
	r := rocmsmi.Compare(g, m)
	if r.GPUsBy == "" || r.Compared != 6 || r.NVLink != 0 || len(r.Differ) != 0 {
		t.Errorf("PCIe source: compared %d, differ %v, notes %v", r.Compared, r.Differ, r.Notes)
	}
	g = four()
	accels := g.OfKind(topology.KindAccelerator)
	g.NVLinks = []topology.NVLink{{A: accels[0].Addr, B: accels[1].Addr, Count: 4}}
	g.NVLinkRecorded = true
	r = rocmsmi.Compare(g, m)
	if len(r.Differ) != 1 || r.Differ[0].Tree != "XGMI" || !strings.Contains(r.Differ[0].Why, "KFD does not report") {
		t.Errorf("xGMI recorded on GPU0-GPU1: differ %+v", r.Differ)
	}
	if r = rocmsmi.Compare(mi300x(t), m); r.GPUsBy != "" || !strings.Contains(strings.Join(r.Notes, ";"), "rocm-smi lists 4 GPUs, the source has 8") {
		t.Errorf("4 GPUs against 8: matched by %q, notes %v", r.GPUsBy, r.Notes)
	}
}

// FuzzParse: no input makes Parse panic, and what it returns holds only
// the GPUs of its link-type table's header.
func FuzzParse(f *testing.F) {
	for _, name := range []string{"ms-swift-mi308x-8xgmi.txt", "rocm-smi-lib-108-pcie-4gpu-cut.txt", "rocm-1503-mi100-pcie.txt"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := rocmsmi.Parse("fuzz", data)
		if err != nil {
			return
		}
		for row := range m.Link {
			found := false
			for _, g := range m.GPUs {
				found = found || g == row
			}
			if !found {
				t.Fatalf("row %s not in the header %v", row, m.GPUs)
			}
		}
		_ = m.Summary()
	})
}
