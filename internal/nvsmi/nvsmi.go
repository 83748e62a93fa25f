// Package nvsmi reads the matrix that `nvidia-smi topo -m` prints: the
// driver's own label for every pair of GPUs and NICs (X, NV#, PIX, PXB, PHB,
// NODE, SYS), each GPU's CPU and NUMA affinity, and the NIC legend
// ("NIC0: mlx5_0"). The driver sees what sysfs cannot, NVLink above all, so
// the matrix is the ground truth gdtopo's PCIe labels are checked against
// (Compare) and the NVLink counts it takes for accelerator pairs (Apply).
//
// Pastes are read as users post them: a shell prompt before the header,
// tabs or spaces, a legend or none, older drivers' RDMA-named columns
// (mlx5_0 instead of NIC0), and matrices cut off mid-row, which are kept up
// to the last whole cell and say what is missing.
package nvsmi

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/gdtopo/gdtopo/internal/words"
)

// Tool names the command whose output this package reads.
const Tool = "nvidia-smi topo -m"

// Matrix is one `nvidia-smi topo -m` output.
type Matrix struct {
	// Columns are the device columns in order: GPU0..GPUn, then NIC0..NICk
	// (or RDMA names such as mlx5_0 from older drivers).
	Columns []string
	Rows    []Row
	// NICNames is the NIC legend: NIC0 -> mlx5_0. A column already named
	// after its RDMA device is its own name.
	NICNames map[string]string
	// Partial says what the paste is missing (rows cut off or absent); empty
	// when it is whole.
	Partial []string
}

// Row is one line of the matrix.
type Row struct {
	Name  string
	Cells []string // one per column; "" where the paste was cut off
	// CPUAffinity, NUMAAffinity and GPUNUMAID are the trailing columns of a
	// GPU row as printed ("0-55,112-167", "0", "N/A"); "" when absent.
	CPUAffinity, NUMAAffinity, GPUNUMAID string
}

// matrixPatterns are the matrix's cells and legend lines, compiled on first
// use rather than at every start of gdtopo.
var matrixPatterns = sync.OnceValue(func() (p struct{ label, nicLegend, legend *regexp.Regexp }) {
	p.label = regexp.MustCompile(`^(X|NV[0-9]+|PIX|PXB|PHB|NODE|SYS|N/A)$`)
	p.nicLegend = regexp.MustCompile(`^\s*(NIC[0-9]+)\s*:\s*(\S+)\s*$`)
	p.legend = regexp.MustCompile(`^\s*(X|SYS|NODE|PHB|PXB|PIX|NV#|NV[0-9]+|C2C|NVB)\s*=`)
	return p
})

// trailing are the affinity columns that may follow the device columns,
// each a phrase of several words.
var trailing = [][]string{{"CPU", "Affinity"}, {"NUMA", "Affinity"}, {"GPU", "NUMA", "ID"}}

// header splits a header line into its device columns and the trailing
// phrases it holds, or ok false when the line is not a matrix header (its
// first field must be GPU0 and every device column a name).
func header(line string) (cols []string, tails []int, ok bool) {
	f := strings.Fields(line)
	if len(f) < 2 || f[0] != "GPU0" {
		return nil, nil, false
	}
	i := 0
	for ; i < len(f) && f[i] != "CPU" && !(f[i] == "NUMA" && i+1 < len(f) && f[i+1] == "Affinity") && !(f[i] == "GPU" && i+1 < len(f) && f[i+1] == "NUMA"); i++ {
		if matrixPatterns().label.MatchString(f[i]) || strings.ContainsAny(f[i], "=:") {
			return nil, nil, false
		}
		cols = append(cols, f[i])
	}
	for i < len(f) {
		matched := false
		for t, words := range trailing {
			if i+len(words) <= len(f) && slicesEqual(f[i:i+len(words)], words) {
				tails = append(tails, t)
				i += len(words)
				matched = true
				break
			}
		}
		if !matched {
			return nil, nil, false
		}
	}
	return cols, tails, len(cols) > 0
}

func slicesEqual(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// block is where a matrix lies in a text: the header's line, the last line
// that belongs to it (rows, legend, NIC legend), and the prompt line before
// the header when there is one.
type block struct {
	first, header, last int
}

// locate finds the first matrix in lines: a header followed by at least one
// row whose first field is the first column.
func locate(lines []string) (block, bool) {
	for i, l := range lines {
		if !strings.Contains(l, "GPU0") {
			continue // most lines of a dump: no Fields for them
		}
		cols, _, ok := header(l)
		if !ok || i+1 >= len(lines) {
			continue
		}
		if f := strings.Fields(lines[i+1]); len(f) < 2 || f[0] != cols[0] {
			continue
		}
		b := block{first: i, header: i, last: i}
		if i > 0 && strings.Contains(lines[i-1], "nvidia-smi") {
			b.first = i - 1
		}
		inRows := true
		for j := i + 1; j < len(lines); j++ {
			l := lines[j]
			t := strings.TrimSpace(l)
			switch f := strings.Fields(l); {
			case inRows && len(f) > 0 && isColumn(cols, f[0]):
				b.last = j
			case t == "":
				inRows = false
			case t == "Legend:" || t == "NIC Legend:" || matrixPatterns().legend.MatchString(l) || matrixPatterns().nicLegend.MatchString(l):
				inRows = false
				b.last = j
			default:
				return b, true
			}
		}
		return b, true
	}
	return block{}, false
}

func isColumn(cols []string, s string) bool {
	for _, c := range cols {
		if c == s {
			return true
		}
	}
	return false
}

// Sniff reports whether data holds an nvidia-smi topo -m matrix.
func Sniff(data []byte) bool {
	if !bytes.Contains(data, []byte("GPU0")) {
		return false
	}
	_, ok := locate(lines(data))
	return ok
}

// lines splits data into lines, each without the "# " a matrix pasted as
// a comment (in a script or an issue) starts its lines with.
func lines(data []byte) []string {
	s := strings.ReplaceAll(withoutSGR(string(data)), "\r\n", "\n")
	out := strings.Split(s, "\n")
	for i, l := range out {
		if l == "#" {
			out[i] = ""
		} else if rest, ok := strings.CutPrefix(l, "# "); ok {
			out[i] = rest
		}
	}
	return out
}

// withoutSGR removes the terminal's text-style escapes (ESC [ digits and
// semicolons m) from s: nvidia-smi topo -m underlines its header line with
// ESC[4m ... ESC[0m also when its output goes to a file or a pipe.
func withoutSGR(s string) string {
	i := strings.Index(s, "\x1b[")
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for ; i >= 0; i = strings.Index(s, "\x1b[") {
		j := i + 2
		for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == ';') {
			j++
		}
		if j < len(s) && s[j] == 'm' {
			b.WriteString(s[:i])
			s = s[j+1:]
		} else { // not a style escape: kept as it is
			b.WriteString(s[:i+1])
			s = s[i+1:]
		}
	}
	b.WriteString(s)
	return b.String()
}

// Split takes the first nvidia-smi topo -m matrix (with its prompt line and
// legends) out of a text that holds one beside other output, such as an
// lspci dump pasted after it: matrix is that part, rest the text without
// it. ok is false when the text holds no matrix.
func Split(data []byte) (matrix, rest []byte, ok bool) {
	if !bytes.Contains(data, []byte("GPU0")) {
		return nil, data, false
	}
	ls := lines(data)
	b, ok := locate(ls)
	if !ok {
		return nil, data, false
	}
	matrix = []byte(strings.Join(ls[b.first:b.last+1], "\n") + "\n")
	var r bytes.Buffer
	for i, l := range ls {
		if i < b.first || i > b.last {
			r.WriteString(l)
			if i < len(ls)-1 {
				r.WriteByte('\n')
			}
		}
	}
	return matrix, r.Bytes(), true
}

// Locate gives the lines (counted from 0) that the first matrix in data
// spans, with its prompt line and legends, as Split takes them out; ok is
// false when data holds no matrix.
func Locate(data []byte) (first, last int, ok bool) {
	b, ok := locate(lines(data))
	return b.first, b.last, ok
}

// Parse reads the first matrix in data. name is the input's name for
// errors. A matrix cut off is returned with Partial saying what is missing;
// a text with no matrix, or a header with no row, is an error.
func Parse(name string, data []byte) (*Matrix, error) {
	ls := lines(data)
	b, ok := locate(ls)
	if !ok {
		return nil, fmt.Errorf("%s: no nvidia-smi topo -m matrix (a header line GPU0 GPU1 ... followed by a GPU0 row)", name)
	}
	cols, tails, _ := header(ls[b.header])
	m := &Matrix{Columns: cols, NICNames: map[string]string{}}
	cutAtEnd := len(data) > 0 && data[len(data)-1] != '\n'
	seen := map[string]bool{}
	for j := b.header + 1; j <= b.last; j++ {
		l := ls[j]
		if mm := matrixPatterns().nicLegend.FindStringSubmatch(l); mm != nil {
			m.NICNames[mm[1]] = mm[2]
			continue
		}
		f := strings.Fields(l)
		if len(f) == 0 || !isColumn(cols, f[0]) || seen[f[0]] {
			continue
		}
		seen[f[0]] = true
		r := Row{Name: f[0], Cells: make([]string, len(cols))}
		n := 0
		for ; n < len(cols) && 1+n < len(f) && matrixPatterns().label.MatchString(f[1+n]); n++ {
			r.Cells[n] = f[1+n]
		}
		// The last field of a text that ends mid-line may be a word cut
		// short ("NV1" of "NV18"), so it is not kept.
		if j == len(ls)-1 && cutAtEnd && n > 0 && 1+n == len(f) {
			n--
			r.Cells[n] = ""
		}
		if n < len(cols) {
			m.Partial = append(m.Partial, fmt.Sprintf("row %s cut off after %d of %d cells", r.Name, n, len(cols)))
		} else {
			rest := f[1+n:]
			if cutAtEnd && j == len(ls)-1 && len(rest) > 0 {
				rest = rest[:len(rest)-1]
			}
			for k, t := range tails {
				if k >= len(rest) {
					break
				}
				switch t {
				case 0:
					r.CPUAffinity = rest[k]
				case 1:
					r.NUMAAffinity = rest[k]
				case 2:
					r.GPUNUMAID = rest[k]
				}
			}
		}
		m.Rows = append(m.Rows, r)
	}
	var missing []string
	for _, c := range cols {
		if !seen[c] {
			missing = append(missing, c)
		}
	}
	if len(missing) > 0 {
		m.Partial = append(m.Partial, fmt.Sprintf("no row for %s", strings.Join(missing, ", ")))
	}
	for _, c := range cols {
		if !strings.HasPrefix(c, "GPU") && !strings.HasPrefix(c, "NIC") {
			m.NICNames[c] = c // older drivers name the column after the RDMA device
		}
	}
	return m, nil
}

// GPUs returns the GPU columns in order.
func (m *Matrix) GPUs() []string {
	var out []string
	for _, c := range m.Columns {
		if isGPU(c) {
			out = append(out, c)
		}
	}
	return out
}

// NICs returns the NIC columns in order.
func (m *Matrix) NICs() []string {
	var out []string
	for _, c := range m.Columns {
		if !isGPU(c) {
			out = append(out, c)
		}
	}
	return out
}

func isGPU(c string) bool {
	if !strings.HasPrefix(c, "GPU") || len(c) == 3 {
		return false
	}
	for _, r := range c[3:] {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// Cell returns the label between columns a and b as printed, from a's row
// or, where that row is missing or cut off, from b's: the matrix is
// symmetric. ok is false when neither row holds it.
func (m *Matrix) Cell(a, b string) (label string, ok bool) {
	ia, ib := m.column(a), m.column(b)
	if ia < 0 || ib < 0 {
		return "", false
	}
	for _, r := range m.Rows {
		if r.Name == a && r.Cells[ib] != "" {
			return r.Cells[ib], true
		}
	}
	for _, r := range m.Rows {
		if r.Name == b && r.Cells[ia] != "" {
			return r.Cells[ia], true
		}
	}
	return "", false
}

func (m *Matrix) column(c string) int {
	for i, x := range m.Columns {
		if x == c {
			return i
		}
	}
	return -1
}

// Summary describes the matrix in a few words: "8 GPUs, 10 NICs (NIC
// legend), cut off: no row for GPU7".
func (m *Matrix) Summary() string {
	s := words.Count(len(m.GPUs()), "GPU") + ", " + words.Count(len(m.NICs()), "NIC")
	if n := len(m.NICs()); n > 0 {
		named := 0
		for _, c := range m.NICs() {
			if m.NICNames[c] != "" {
				named++
			}
		}
		switch {
		case named == n:
			s += " (named)"
		case named == 0:
			s += " (no NIC legend)"
		default:
			s += fmt.Sprintf(" (%d named)", named)
		}
	}
	if len(m.Partial) > 0 {
		s += "; cut off: " + strings.Join(m.Partial, "; ")
	}
	return s
}
