package cli

import (
	"encoding/json"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gdtopo/gdtopo/internal/report"
)

// pcieNote is the PCIe label an NV? pair's note prints.
var pcieNote = regexp.MustCompile(`else its PCIe label (\S+) \(`)

// TestUncertainFlagsMatchTables: over every fixture and corpus file, each
// label the tables print with "?" (the matrix's nvidia-smi labels, check
// -v's nvidia-smi and NCCL columns, the PCIe label of path's NVLink note)
// has its JSON flag set, and each printed without one has it clear: a
// script reading JSON sees no label more certain than a reader does.
func TestUncertainFlagsMatchTables(t *testing.T) {
	var cells atomic.Int64
	t.Run("sources", func(t *testing.T) {
		for _, src := range consistencySources(t) {
			t.Run(strings.TrimPrefix(src, "../../"), func(t *testing.T) {
				t.Parallel()
				cells.Add(int64(uncertainAgrees(t, src)))
			})
		}
	})
	if cells.Load() == 0 {
		t.Fatal("no table label compared with its JSON flag")
	}
}

// uncertainAgrees compares src's printed labels with check -o json's
// flags and returns how many labels it compared.
func uncertainAgrees(t *testing.T, src string) int {
	code, js, _ := run("check", src, "-o", "json")
	if code != ExitOK && code != ExitFindings {
		return 0 // unreadable: TestEveryFormatAgrees covers it
	}
	var doc report.Check
	if err := json.Unmarshal([]byte(js), &doc); err != nil || len(doc.Sources) != 1 || doc.Sources[0].Report == nil {
		t.Fatalf("check -o json: %v", err)
	}
	r := doc.Sources[0].Report
	n := 0
	agree := func(where, a, b, shown string, flag bool) {
		n++
		if strings.Contains(shown, "?") != flag {
			t.Errorf("%s: %s-%s printed %q, JSON flag %v", where, a, b, shown, flag)
		}
	}

	// check -v: a row per accelerator-NIC pair, nvidia-smi's label and
	// NCCL's after the NIC's BDF.
	_, tab, _ := run("check", src, "-v")
	if _, rows, ok := strings.Cut(tab, "\nAccelerator-NIC pairs\n"); ok {
		rows, _, _ = strings.Cut(rows, "\n\n")
		for _, row := range strings.Split(rows, "\n")[2:] {
			f := strings.Fields(row)
			for k := 2; k+2 < len(f); k++ {
				p := r.Pair(f[1], f[k])
				if p == nil {
					continue
				}
				agree("check -v, smi", p.A, p.B, f[k+1], p.LabelUncertain)
				agree("check -v, nccl", p.A, p.B, f[k+2], p.NCCLUncertain)
				break
			}
		}
	}

	// matrix: every accelerator and NIC against every other.
	_, mj, _ := run("matrix", src, "-o", "json")
	var m report.Matrix
	if err := json.Unmarshal([]byte(mj), &m); err != nil {
		t.Fatalf("matrix -o json: %v", err)
	}
	_, mt, _ := run("matrix", src)
	rows := map[string][]string{}
	for _, line := range strings.Split(mt, "\n") {
		if f := strings.Fields(line); len(f) > len(m.Devices) {
			rows[f[0]] = f[1 : 1+len(m.Devices)]
		}
	}
	for i, a := range m.Devices {
		row, ok := rows[a.Alias]
		if !ok {
			t.Errorf("matrix: no row %s", a.Alias)
			continue
		}
		for j, b := range m.Devices {
			if p := r.Pair(a.BDF, b.BDF); i != j && p != nil {
				agree("matrix", a.BDF, b.BDF, row[j], p.LabelUncertain)
			}
		}
	}

	// An NV? pair's PCIe label: its note, and path's table of the first
	// whose table prints it (a pair with no hierarchy behind it says so
	// instead), trying a few.
	pathRuns := 3
	for i := range r.Pairs {
		p := &r.Pairs[i]
		if p.PCIeSMI == "" {
			continue
		}
		for _, note := range p.Notes {
			if s := pcieNote.FindStringSubmatch(note); s != nil {
				agree("note, pcie_smi", p.A, p.B, s[1], p.PCIeSMIUncertain)
				if pathRuns > 0 {
					pathRuns--
					_, out, _ := run("path", p.A, p.B, src)
					if s := pcieNote.FindStringSubmatch(out); s != nil {
						agree("path, pcie_smi", p.A, p.B, s[1], p.PCIeSMIUncertain)
						pathRuns = 0
					}
				}
			}
		}
	}
	return n
}

// TestStorageCarriesDoubt: the Lenovo SD665-N V3's lspci -tv gives no NUMA
// nodes, so its accelerator-NVMe pairs across host bridges are NODE? (the
// drives sit on the other socket of two accelerators). The storage table
// counts them under an unknown route and prints the "?", and JSON says
// the same; the GDS server's certain labels keep the table as it was.
func TestStorageCarriesDoubt(t *testing.T) {
	src := corpusPath(t, "lspci", "lenovo-sd665n-v3-4xh100-genoa.lspci-t-vvv.txt")
	_, tab, _ := run("check", "-v", src)
	_, rows, ok := strings.Cut(tab, "\nAccelerator x NVMe (GPUDirect Storage)\n")
	if !ok {
		t.Fatalf("no storage table:\n%s", tab)
	}
	rows, _, _ = strings.Cut(rows, "\n\n")
	if !strings.Contains(rows, "Unknown route") || strings.Contains(rows, "through the root complex") || strings.Count(rows, "NODE? route unknown") != 4 {
		t.Errorf("storage rows state a guessed route as known:\n%s", rows)
	}
	_, js, _ := run("check", "-o", "json", src)
	var doc report.Check
	if err := json.Unmarshal([]byte(js), &doc); err != nil || len(doc.Sources) != 1 || doc.Sources[0].Report == nil {
		t.Fatalf("check -o json: %v", err)
	}
	pairs := doc.Sources[0].Report.StoragePairs
	for _, s := range pairs {
		if !s.LabelUncertain || s.Route != "unknown" {
			t.Errorf("%s-%s: %s route %q, label_uncertain %v", s.Accelerator, s.NVMe, s.SMI, s.Route, s.LabelUncertain)
		}
	}
	if len(pairs) != 8 {
		t.Errorf("%d storage pairs, want 8", len(pairs))
	}
	_, tab, _ = run("check", "-v", "../../fixtures/gds-storage.tar.gz")
	if !strings.Contains(tab, "Nearest drives") || strings.Contains(tab, "Unknown route") || strings.Contains(tab, "?:") {
		t.Errorf("the GDS server's certain storage table changed:\n%s", tab)
	}
}
