// Package rocmsmi reads what `rocm-smi --showtopo` prints: AMD's host
// matrix, the driver's (KFD's) view of every pair of GPUs. Its tables are
// "Weight between two GPUs", "Hops between two GPUs" and "Link Type between
// two GPUs" (XGMI where an xGMI io_link joins the pair, PCIE otherwise), and
// its "Numa Nodes" lines give each GPU's node. The layout is rocm_smi.py's
// (ROCm/rocm_smi_lib python_smi_tools/rocm_smi.py: showWeightTopology,
// showHopsTopology, showTypeTopology, showNumaTopology). Compare sets the
// link types and NUMA nodes against a source's tree, as nvsmi.Compare does
// for nvidia-smi topo -m.
//
// Pastes are read as users post them: a prompt or warning lines around the
// tables, cells separated by any run of blanks, and outputs cut off, which
// keep what they hold and say what is missing.
package rocmsmi

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/gdtopo/gdtopo/internal/words"
)

// Tool names the command whose output this package reads.
const Tool = "rocm-smi --showtopo"

// LinkTitle is the title of the link-type table, which an output must hold
// to be read as rocm-smi's.
const LinkTitle = "Link Type between two GPUs"

// Link types as rocm_smi.py prints them (showTypeTopology): PCIE for
// rsmi_topo_get_link_type's type 1, XGMI for 2, XXXX for any other or
// none read.
const (
	LinkPCIe = "PCIE"
	LinkXGMI = "XGMI"
)

// Matrix is one rocm-smi --showtopo output.
type Matrix struct {
	// GPUs are the link-type table's columns in order: GPU0..GPUn.
	GPUs []string
	// Link, Weight and Hops are the tables' cells by row and column
	// (Link["GPU0"]["GPU1"] = "XGMI"); a cell cut off is absent. Weight
	// and Hops are nil when the output lacks them.
	Link, Weight, Hops map[string]map[string]string
	// NUMANode and NUMAAffinity are each GPU's "Numa Node" and "Numa
	// Affinity" lines by index: the node of the KFD CPU node the GPU links
	// to, and its PCI device's numa_node (rsmi_topo_numa_affinity_get
	// reads it from sysfs), -1 where the firmware gives none.
	NUMANode, NUMAAffinity map[int]int
	// Partial says what the output is missing; empty when it is whole.
	Partial []string
}

// patterns are the output's section titles, GPU names and NUMA lines,
// compiled on first use.
var patterns = sync.OnceValue(func() (p struct{ title, gpu, numa *regexp.Regexp }) {
	p.title = regexp.MustCompile(`^\s*=+\s*(.*?)\s*=+\s*$`)
	p.gpu = regexp.MustCompile(`^GPU[0-9]+$`)
	p.numa = regexp.MustCompile(`^\s*GPU\s*\[?([0-9]+)\]?\s*:\s*\(Topology\)\s+Numa\s+(Node|Affinity)\s*:\s*(-?[0-9]+)\s*$`)
	return p
})

// Sniff reports whether data holds rocm-smi --showtopo's link-type table.
func Sniff(data []byte) bool {
	return bytes.Contains(data, []byte(LinkTitle))
}

// Parse reads rocm-smi --showtopo output. name is the input's name for
// errors. An output cut off is returned with Partial saying what it lacks;
// one with no link-type table, or a table with no whole header and row, is
// an error.
func Parse(name string, data []byte) (*Matrix, error) {
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	lines := strings.Split(text, "\n")
	cutAtEnd := len(text) > 0 && text[len(text)-1] != '\n'
	m := &Matrix{NUMANode: map[int]int{}, NUMAAffinity: map[int]int{}}
	section := ""
	var cols []string // the current table's header
	tables := map[string]map[string]map[string]string{}
	seenTitles := map[string]bool{}
	for i, l := range lines {
		last := i == len(lines)-1
		if t := patterns().title.FindStringSubmatch(l); t != nil && strings.Contains(l, "==") {
			section, cols = t[1], nil
			if seenTitles[section] && strings.HasSuffix(section, "between two GPUs") {
				return nil, fmt.Errorf("%s: two %q tables: give one rocm-smi --showtopo output at a time", name, section)
			}
			seenTitles[section] = true
			continue
		}
		f := strings.Fields(l)
		switch {
		case strings.HasSuffix(section, "between two GPUs"):
			if len(f) == 0 {
				continue
			}
			if cols == nil {
				if allGPUs(f) && !(last && cutAtEnd) {
					cols = f
				}
				continue
			}
			if !patterns().gpu.MatchString(f[0]) || !isColumn(cols, f[0]) {
				continue
			}
			tb := tables[section]
			if tb == nil {
				tb = map[string]map[string]string{}
				tables[section] = tb
			}
			cells := f[1:]
			if last && cutAtEnd && len(cells) > 0 {
				cells = cells[:len(cells)-1] // the last word may be cut short
			}
			row := map[string]string{}
			for k, c := range cells {
				if k < len(cols) {
					row[cols[k]] = c
				}
			}
			tb[f[0]] = row
			if len(cells) < len(cols) && section == LinkTitle {
				m.Partial = append(m.Partial, fmt.Sprintf("link-type row %s cut off after %d of %d cells", f[0], len(cells), len(cols)))
			}
			if section == LinkTitle {
				m.GPUs = cols
			}
		case section == "Numa Nodes":
			if last && cutAtEnd {
				continue
			}
			mm := patterns().numa.FindStringSubmatch(l)
			if mm == nil {
				continue
			}
			gpu, _ := strconv.Atoi(mm[1])
			v, _ := strconv.Atoi(mm[3])
			if mm[2] == "Node" {
				m.NUMANode[gpu] = v
			} else {
				m.NUMAAffinity[gpu] = v
			}
		}
	}
	m.Link, m.Weight, m.Hops = tables[LinkTitle], tables["Weight between two GPUs"], tables["Hops between two GPUs"]
	if !seenTitles[LinkTitle] {
		return nil, fmt.Errorf("%s: no rocm-smi --showtopo link-type table (a %q title line)", name, LinkTitle)
	}
	if len(m.Link) == 0 {
		return nil, fmt.Errorf("%s: rocm-smi --showtopo's %q table has no whole header and row: cut off", name, LinkTitle)
	}
	var missing []string
	for _, c := range m.GPUs {
		if m.Link[c] == nil {
			missing = append(missing, c)
		}
	}
	if len(missing) > 0 {
		m.Partial = append(m.Partial, "no link-type row for "+strings.Join(missing, ", "))
	}
	if seenTitles["Numa Nodes"] && len(m.NUMAAffinity) < len(m.GPUs) {
		m.Partial = append(m.Partial, fmt.Sprintf("Numa Nodes: affinity of %d of %d GPUs", len(m.NUMAAffinity), len(m.GPUs)))
	}
	return m, nil
}

// allGPUs reports a table header: GPU names, each once.
func allGPUs(f []string) bool {
	for i, s := range f {
		if !patterns().gpu.MatchString(s) || slices.Contains(f[:i], s) {
			return false
		}
	}
	return len(f) > 0
}

func isColumn(cols []string, s string) bool {
	for _, c := range cols {
		if c == s {
			return true
		}
	}
	return false
}

// Cell returns the link type between GPUs a and b as printed, from a's row
// or, where that row lacks it, from b's (rsmi_topo_get_link_type is asked
// both ways, and the io_links are symmetric). ok is false when neither row
// holds it.
func (m *Matrix) Cell(a, b string) (link string, ok bool) {
	if c, ok := m.Link[a][b]; ok {
		return c, true
	}
	c, ok := m.Link[b][a]
	return c, ok
}

// Summary describes the output in a few words: "8 GPUs: 28 XGMI and 0
// PCIE pairs; cut off: ...".
func (m *Matrix) Summary() string {
	counts, absent := map[string]int{}, 0
	for i, a := range m.GPUs {
		for _, b := range m.GPUs[i+1:] {
			if c, ok := m.Cell(a, b); ok {
				counts[c]++
			} else {
				absent++
			}
		}
	}
	s := words.Count(len(m.GPUs), "GPU")
	if len(m.GPUs) > 1 {
		s += fmt.Sprintf(": %d XGMI and %d PCIE pairs", counts[LinkXGMI], counts[LinkPCIe])
		if n := len(m.GPUs)*(len(m.GPUs)-1)/2 - counts[LinkXGMI] - counts[LinkPCIe] - absent; n > 0 {
			s += fmt.Sprintf(", %d not read (XXXX)", n)
		}
		if absent > 0 {
			s += fmt.Sprintf(", %d cut off", absent)
		}
	}
	if len(m.Partial) > 0 {
		s += "; cut off: " + strings.Join(m.Partial, "; ")
	}
	return s
}
