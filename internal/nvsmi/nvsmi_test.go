package nvsmi

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// corpusDir returns ../shared/corpus, skipping outside CI when it is absent.
func corpusDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join("..", "..", "..", "shared", "corpus")
	if _, err := os.Stat(dir); err != nil {
		if os.Getenv("CI") == "" {
			t.Skipf("corpus %s absent (needed in CI): %v", dir, err)
		}
		t.Fatalf("corpus %s: %v", dir, err)
	}
	return dir
}

// TestCorpus reads every real matrix in the corpus and checks, per file,
// facts read off the paste by eye: its columns, some cells (from either
// row), the legend, and what a cut-off paste is missing.
func TestCorpus(t *testing.T) {
	type cell struct{ a, b, want string }
	cases := map[string]struct {
		gpus, nics int
		cells      []cell
		names      map[string]string
		partial    []string // substrings of Partial; none means whole
		affinity   [3]string
	}{
		"nvsmi/deepep-128-8gpu-10nic-all-sys.partial.txt": {8, 10,
			[]cell{{"GPU0", "NIC0", "PIX"}, {"GPU5", "NIC5", "PIX"}, {"GPU0", "GPU7", "SYS"}, {"GPU6", "GPU1", "SYS"}},
			nil, []string{"row GPU6 cut off after 2 of 18 cells", "no row for GPU7"}, [3]string{"0-55,112-167", "0", "N/A"}},
		"nvsmi/deepep-145-8xh-nv18-18nic.partial.txt": {8, 18,
			[]cell{{"GPU0", "GPU7", "NV18"}, {"GPU2", "NIC6", "PXB"}, {"GPU3", "NIC17", "SYS"}, {"GPU1", "NIC4", "NODE"}},
			nil, []string{"row GPU4 cut off after 0 of 26 cells"}, [3]string{"0-55,112-167", "0", "N/A"}},
		"nvsmi/dgxa100-like-epyc7742-8xa100-10nic.txt": {8, 10,
			[]cell{{"GPU0", "GPU1", "NV12"}, {"GPU7", "NIC7", "PXB"}, {"NIC8", "NIC9", "PIX"}, {"GPU2", "NIC0", "SYS"}},
			map[string]string{"NIC0": "mlx5_0", "NIC9": "mlx5_9"}, nil, [3]string{"48-63,176-191", "3", ""}},
		"nvsmi/go-gpuallocator-17-8x4090.txt": {8, 2,
			[]cell{{"GPU6", "NIC0", "PHB"}, {"GPU6", "NIC1", "PHB"}, {"GPU7", "NIC0", "SYS"}, {"NIC0", "NIC1", "PIX"}},
			nil, nil, [3]string{"0-55,112-167", "0", "N/A"}},
		"nvsmi/nccl-1453-8xh100-9nic.partial.txt": {8, 9,
			[]cell{{"GPU0", "NIC8", "PIX"}, {"GPU7", "NIC1", "PIX"}, {"GPU0", "NIC0", "SYS"}, {"NIC8", "GPU0", "PIX"}},
			nil, []string{"no row for NIC6, NIC7, NIC8"}, [3]string{"0-79", "0", "N/A"}},
		"nvsmi/nccl-933-8gpu-nv8-9nic.partial.txt": {8, 9,
			[]cell{{"GPU0", "NIC2", "PIX"}, {"GPU7", "GPU0", "NV8"}, {"GPU7", "NIC8", ""}},
			nil, []string{"row GPU7 cut off after 3 of 17 cells"}, [3]string{"0-47,96-143", "0", ""}},
		"nvsmi/nccl-tests-320-3gpu-2nic.txt": {3, 2,
			[]cell{{"GPU0", "GPU1", "NV4"}, {"GPU2", "NIC0", "PHB"}, {"GPU0", "NIC1", "NODE"}},
			map[string]string{"NIC0": "mlx5_0", "NIC1": "mlx5_1"}, nil, [3]string{"64-71", "1", "N/A"}},
		"nvsmi/nccl-tests-78-dgx2-16gpu-10nic.partial.txt": {16, 10,
			[]cell{{"GPU0", "GPU15", "NV6"}, {"GPU0", "mlx5_0", "PIX"}, {"GPU4", "mlx5_2", "PIX"}, {"GPU3", "mlx5_9", "SYS"}, {"GPU9", "mlx5_0", ""}},
			map[string]string{"mlx5_0": "mlx5_0"}, []string{"no row for GPU5"}, [3]string{"0-23,48-71", "", ""}},
		"paired/puget-wrx90-threadripper-2xrtx6000ada-cx7/nvsmi-topo.txt": {2, 2,
			[]cell{{"GPU0", "GPU1", "PHB"}, {"GPU1", "NIC0", "NODE"}, {"NIC0", "NIC1", "PIX"}},
			map[string]string{"NIC0": "mlx5_0", "NIC1": "mlx5_1"}, nil, [3]string{"0-23", "0", "N/A"}},
	}
	dir := corpusDir(t)
	files, _ := filepath.Glob(filepath.Join(dir, "nvsmi", "*"))
	paired, _ := filepath.Glob(filepath.Join(dir, "paired", "*", "nvsmi*"))
	files = append(files, paired...)
	if len(files) < len(cases) {
		t.Fatalf("%d matrices in the corpus, %d expected", len(files), len(cases))
	}
	for _, f := range files {
		rel, _ := filepath.Rel(dir, f)
		t.Run(rel, func(t *testing.T) {
			c, ok := cases[rel]
			if !ok {
				t.Fatalf("no expectations for %s: add them", rel)
			}
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if !Sniff(data) {
				t.Error("Sniff = false")
			}
			m, err := Parse(rel, data)
			if err != nil {
				t.Fatal(err)
			}
			if len(m.GPUs()) != c.gpus || len(m.NICs()) != c.nics {
				t.Errorf("%d GPUs %d NICs, want %d %d", len(m.GPUs()), len(m.NICs()), c.gpus, c.nics)
			}
			for _, x := range c.cells {
				got, ok := m.Cell(x.a, x.b)
				if got != x.want || ok != (x.want != "") {
					t.Errorf("Cell(%s, %s) = %q %v, want %q", x.a, x.b, got, ok, x.want)
				}
			}
			for k, v := range c.names {
				if m.NICNames[k] != v {
					t.Errorf("NIC %s named %q, want %q", k, m.NICNames[k], v)
				}
			}
			if len(c.names) == 0 && len(m.NICNames) > 0 {
				t.Errorf("NIC names %v from a paste without a legend", m.NICNames)
			}
			joined := strings.Join(m.Partial, "; ")
			if len(c.partial) == 0 && joined != "" {
				t.Errorf("Partial = %q for a whole matrix", joined)
			}
			for _, p := range c.partial {
				if !strings.Contains(joined, p) {
					t.Errorf("Partial = %q, want it to say %q", joined, p)
				}
			}
			r := m.Rows[0]
			if got := [3]string{r.CPUAffinity, r.NUMAAffinity, r.GPUNUMAID}; got != c.affinity {
				t.Errorf("GPU0 affinity %q, want %q", got, c.affinity)
			}
			for _, r := range m.Rows { // the diagonal is X wherever the row reaches it
				if got, ok := m.Cell(r.Name, r.Name); ok && got != "X" {
					t.Errorf("%s against itself: %q", r.Name, got)
				}
			}
		})
	}
}

const small = `$ nvidia-smi topo -m
	GPU0	GPU1	NIC0	CPU Affinity	NUMA Affinity	GPU NUMA ID
GPU0	 X 	NV4	PXB	0-7	0		N/A
GPU1	NV4	 X 	SYS	8-15	1		N/A
NIC0	PXB	SYS	 X 

Legend:

  X    = Self
  NV#  = Connection traversing a bonded set of # NVLinks

NIC Legend:

  NIC0: mlx5_0
`

func TestSplitKeepsTheDump(t *testing.T) {
	dump := "-[0000:00]-+-00.0  Intel Corporation Device 09a2\n           \\-01.0-[01]----00.0  NVIDIA Corporation GH100\n"
	for _, text := range []string{small + dump, dump + small, dump + "\n" + strings.ReplaceAll(small, "\n", "\r\n") + dump} {
		matrix, rest, ok := Split([]byte(text))
		if !ok {
			t.Fatalf("no matrix in %q", text)
		}
		if !strings.Contains(string(rest), "Intel Corporation Device 09a2") || strings.Contains(string(rest), "GPU0") ||
			strings.Contains(string(rest), "NIC Legend") || strings.Contains(string(rest), "mlx5_0") || strings.Contains(string(rest), "nvidia-smi") {
			t.Errorf("rest = %q", rest)
		}
		m, err := Parse("x", matrix)
		if err != nil {
			t.Fatal(err)
		}
		if c, _ := m.Cell("GPU1", "GPU0"); c != "NV4" || m.NICNames["NIC0"] != "mlx5_0" || len(m.Partial) > 0 {
			t.Errorf("cell %q names %v partial %v", c, m.NICNames, m.Partial)
		}
		if m.Rows[1].CPUAffinity != "8-15" || m.Rows[1].NUMAAffinity != "1" || m.Rows[1].GPUNUMAID != "N/A" {
			t.Errorf("GPU1 affinity %+v", m.Rows[1])
		}
	}
}

func TestCutMidWord(t *testing.T) {
	// A paste that ends inside "NV18": the last field is not trusted.
	m, err := Parse("cut", []byte("\tGPU0\tGPU1\tGPU2\nGPU0\t X \tNV18\tNV1"))
	if err != nil {
		t.Fatal(err)
	}
	if c, ok := m.Cell("GPU0", "GPU2"); ok {
		t.Errorf("cut cell kept: %q", c)
	}
	if c, _ := m.Cell("GPU0", "GPU1"); c != "NV18" {
		t.Errorf("GPU0-GPU1 = %q", c)
	}
	if !strings.Contains(strings.Join(m.Partial, ";"), "row GPU0 cut off after 2 of 3") {
		t.Errorf("Partial = %v", m.Partial)
	}
}

func TestNotAMatrix(t *testing.T) {
	for _, text := range []string{
		"",
		"GPU0 is fine\n",
		"\tGPU0\tGPU1\n",                // a header with no row
		"\tGPU0\tGPU1\nGPU1\tNV4\t X\n", // rows must start with the first column
		"package main\n\nfunc main() {}\n",
		"GPU0\tGPU1\tSYS\nGPU0 X SYS\n", // a label in the header
	} {
		if Sniff([]byte(text)) {
			t.Errorf("Sniff(%q) = true", text)
		}
		if _, err := Parse("f.txt", []byte(text)); err == nil || !strings.HasPrefix(err.Error(), "f.txt: ") {
			t.Errorf("Parse(%q) err = %v, want one naming the file", text, err)
		}
		if _, rest, ok := Split([]byte(text)); ok || string(rest) != text {
			t.Errorf("Split(%q) = %q %v", text, rest, ok)
		}
	}
}

// TestEscapes: nvidia-smi underlines the header with ESC[4m ... ESC[0m
// also when written to a file, as on the machine of fixtures/recorded-h200.
func TestEscapes(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "recorded-h200.nvidia-smi-topo-m.txt"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := Parse("h200", data)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Columns) != 1 || m.Columns[0] != "GPU0" || len(m.Rows) != 1 || m.Rows[0].CPUAffinity != "0-15" || m.Rows[0].GPUNUMAID != "N/A" {
		t.Errorf("columns %q, rows %+v", m.Columns, m.Rows)
	}
	for in, want := range map[string]string{
		"\x1b[4mGPU0\x1b[0m": "GPU0",
		"a\x1b[1;4mb":        "ab",
		"a\x1b]0;t\x07b":     "a\x1b]0;t\x07b", // not a style escape
		"a\x1b[2Jb":          "a\x1b[2Jb",
		"end\x1b[":           "end\x1b[",
		"\x1b[":              "\x1b[",
	} {
		if got := withoutSGR(in); got != want {
			t.Errorf("withoutSGR(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(small))
	f.Add([]byte("\tGPU0\tGPU1\nGPU0\t X \tNV1"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Parse("fuzz", data)
		if err != nil {
			return
		}
		for _, r := range m.Rows {
			if len(r.Cells) != len(m.Columns) {
				t.Fatalf("row %s has %d cells for %d columns", r.Name, len(r.Cells), len(m.Columns))
			}
		}
		matrix, _, ok := Split(data)
		if !ok || len(matrix) == 0 {
			t.Fatal("Parse found a matrix that Split did not")
		}
	})
}
