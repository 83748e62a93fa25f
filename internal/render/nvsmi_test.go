package render

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gdtopo/gdtopo/internal/report"
)

var cellSplit = regexp.MustCompile(`\t+| {2,}`)

// TestMatrixLayoutMatchesNvidiaSmi: the matrices nvidia-smi topo -m printed
// on real machines (corpus/nvsmi), read back into a report.Matrix, come out
// of gdtopo matrix line for line: header and column order, " X ", the
// affinity and GPU NUMA ID columns, the legend and the NIC legend one a
// line (gdtopo adds each NIC's address after its name).
func TestMatrixLayoutMatchesNvidiaSmi(t *testing.T) {
	files, _ := filepath.Glob("../../../shared/corpus/nvsmi/*.txt")
	if len(files) == 0 {
		if os.Getenv("CI") != "" {
			t.Fatal("corpus/nvsmi missing in CI")
		}
		t.Skip("corpus not here (runs in CI)")
	}
	tested := 0
	for _, f := range files {
		if strings.Contains(f, ".partial.") {
			continue // cut short where it was posted
		}
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimRight(string(raw), "\n"), "\n")
		start := -1
		for i, l := range lines {
			if strings.Contains(l, "GPU0") && strings.Contains(l, "CPU Affinity") {
				start = i
				break
			}
		}
		if start < 0 || !strings.Contains(lines[start], "GPU NUMA ID") {
			continue // not the layout of today's nvidia-smi (no GPU NUMA ID column)
		}
		var want []string
		for _, l := range lines[start:] {
			want = append(want, strings.TrimRight(expandTabs(l, 0, 8), " "))
		}
		for len(want) > 0 && want[len(want)-1] == "" {
			want = want[:len(want)-1]
		}
		header := cellSplit.Split(strings.TrimSpace(lines[start]), -1)
		n := len(header) - 3
		m := &report.Matrix{}
		names := map[string]string{}
		for _, l := range lines[start:] {
			if k, v, ok := strings.Cut(strings.TrimSpace(l), ": "); ok && strings.HasPrefix(k, "NIC") {
				names[k] = v
			}
		}
		for i, l := range lines[start+1 : start+1+n] {
			cells := cellSplit.Split(strings.TrimSpace(l), -1)
			d := report.MatrixDevice{Alias: cells[0], BDF: "0000:00:00.0", NUMAAffinity: -1, Name: names[cells[0]]}
			if strings.HasPrefix(d.Alias, "GPU") {
				d.Kind = "accelerator"
				d.CPUAffinity, d.GPUNUMAID = cells[n+1], cells[n+3]
				if cells[n+2] != "N/A" {
					d.NUMAAffinity = int(cells[n+2][0] - '0')
				}
			} else {
				d.Kind = "nic"
			}
			m.Devices = append(m.Devices, d)
			row := make([]string, n)
			copy(row, cells[1:n+1])
			row[i] = "X"
			m.Labels = append(m.Labels, row)
		}
		legend := regexp.MustCompile(`^  (\S+)\s+= (.*)$`)
		for _, l := range lines[start:] {
			if g := legend.FindStringSubmatch(l); g != nil {
				m.Legend = append(m.Legend, report.LegendEntry{Label: g[1], Meaning: g[2]})
			}
		}
		var out bytes.Buffer
		if err := Matrix(&out, Table, m); err != nil {
			t.Fatal(err)
		}
		got := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
		if !strings.Contains(string(raw), "Legend:") {
			got = got[:slices.Index(got, "")] // the matrix alone was posted
		}
		for i := range got { // as a terminal shows both: tabs at stops of eight
			got[i] = strings.TrimRight(expandTabs(strings.TrimSuffix(got[i], " (0000:00:00.0)"), 0, 8), " ")
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: gdtopo's layout\n%s\nnvidia-smi's\n%s", filepath.Base(f), strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		tested++
	}
	if tested == 0 {
		t.Error("no complete nvidia-smi matrix in the corpus")
	}
}
