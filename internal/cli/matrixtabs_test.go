package cli

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/gdtopo/gdtopo/internal/render"
)

// TestMatrixCutsAsNvidiaSmi: gdtopo matrix writes its cells tab-separated
// as nvidia-smi topo -m does, whatever the terminal's width, so that cut
// -f takes the same fields from both: the header starts with a tab, a GPU
// row has its labels, CPU Affinity, NUMA Affinity, then two tabs before
// GPU NUMA ID (nvidia-smi's own), a NIC row its labels only. The shape of
// each line, field by field, is set against nvidia-smi's in the corpus.
func TestMatrixCutsAsNvidiaSmi(t *testing.T) {
	smi := map[string]bool{} // the line shapes of nvidia-smi's matrices
	for _, f := range []string{"go-gpuallocator-17-8x4090.txt", "nccl-1453-8xh100-9nic.partial.txt"} {
		text, err := readCorpus(t, "nvsmi", f)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range matrixLines(text) {
			if strings.Contains(l, "\t") { // not a line cut short in the paste
				smi[fieldShape(l)] = true
			}
		}
	}
	if len(smi) < 3 {
		t.Fatalf("nvidia-smi's matrices give %d line shapes: %v", len(smi), smi)
	}
	for _, fx := range []string{fx("hgx-h100"), fx("wrx90-threadripper"), fx("dgx-a100")} {
		var out bytes.Buffer
		args := []string{"matrix", fx}
		if code := mainStreams(args, &Streams{In: strings.NewReader(""), Out: &out, Err: &bytes.Buffer{}, Style: render.Style{Width: 80}}); code != ExitOK {
			t.Fatalf("%v: exit %d", args, code)
		}
		lines := matrixLines(out.String())
		header := strings.Split(lines[0], "\t")
		for _, l := range lines {
			if shape := fieldShape(l); !strings.Contains(l, "\t") || !smi[shape] {
				t.Errorf("%s: line %q cuts as %s, no nvidia-smi line does (%v)", fx, l, shape, smi)
			}
			if f := strings.Split(l, "\t"); strings.HasPrefix(f[0], "GPU") && len(f) != len(header)+1 {
				t.Errorf("%s: GPU row has %d fields, want the header's %d and nvidia-smi's extra tab", fx, len(f), len(header))
			}
		}
	}
}

// readCorpus reads a corpus file.
func readCorpus(t *testing.T, parts ...string) (string, error) {
	t.Helper()
	b, err := os.ReadFile(corpusPath(t, parts...))
	return string(b), err
}

// matrixLines are the header and rows of a matrix text: from the line
// holding "CPU Affinity" to the first blank line.
func matrixLines(text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		switch {
		case len(out) == 0 && strings.Contains(l, "CPU Affinity"):
			out = append(out, strings.TrimRight(l, "\r"))
		case len(out) > 0 && strings.TrimSpace(l) == "":
			return out
		case len(out) > 0:
			out = append(out, strings.TrimRight(l, "\r"))
		}
	}
	return out
}

var (
	labelField = regexp.MustCompile(`^( ?X ?|NV(\d+|\?)|(PIX|PXB|PHB|NODE|SYS|SOC)\??)$`)
	cpusField  = regexp.MustCompile(`^\d+(-\d+)?(,\d+(-\d+)?)*$`)
)

// fieldShape is what cut -f finds in each field of a matrix line, runs of
// labels as one: "name labels cpus num empty N/A".
func fieldShape(l string) string {
	var kinds []string
	for i, f := range strings.Split(strings.TrimRight(l, " "), "\t") {
		k := ""
		switch {
		case i == 0 && f == "":
			k = "corner"
		case i == 0:
			k = "row"
		case strings.HasPrefix(f, "GPU") && !strings.Contains(f, " ") || strings.HasPrefix(f, "NIC"):
			k = "column"
		case labelField.MatchString(f):
			k = "label"
		case cpusField.MatchString(f) && len(kinds) > 0 && kinds[len(kinds)-1] == "label":
			k = "cpus"
		case cpusField.MatchString(f) || f == "N/A":
			k = "value"
		case f == "":
			k = "empty"
		default:
			k = fmt.Sprintf("%q", f)
		}
		if n := len(kinds); n > 0 && (k == "label" || k == "column") && kinds[n-1] == k {
			continue
		}
		kinds = append(kinds, k)
	}
	return strings.Join(kinds, " ")
}
