package cli

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gdtopo/gdtopo/internal/render"
	"github.com/gdtopo/gdtopo/internal/report"
)

// verifyOptions are gdtopo verify's inputs.
type verifyOptions struct {
	*globalOptions
	Source string
}

func newCmdVerify(g *globalOptions) *cobra.Command {
	opts := &verifyOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use:   "verify SOURCE [NVSMI_FILE]",
		Short: "Check the source's labels against the host's own nvidia-smi topo -m",
		Long: `Verify sets every cell of the host's nvidia-smi topo -m against the label
gdtopo gives the same pair from SOURCE's PCIe tree, and lists every cell where
they disagree, with what may explain it: a tree that is not this host's, a
hypervisor's virtual tree, a label the source could only guess (NODE?), NVLink
the source cannot show. NV# cells where the source could only say NV? are
counted as NVLink the tree lacks, not as disagreements.

The matrix is NVSMI_FILE, or --nvsmi FILE, or the matrix pasted before or
after a text dump in SOURCE itself (cat nvsmi.txt lspci-tv.txt | gdtopo verify -).
GPUs are matched in PCI bus order, as nvidia-smi numbers them; NICs by RDMA
name, or, where the source names none (lspci dumps), in the order of the
Mellanox functions, which the report says.

-o json gives {"source", "nvidia_smi": {the counts, "differ": [each cell]}},
the part check -o json holds when given the matrix.

Exit status 3 when a cell disagrees; 0 when none does; 1 when the matrix's
GPUs do not match the source's (another host, or GPUs hidden from one of them).`,
		Example: `  $ gdtopo verify fixtures/dgx-a100 nvsmi-topo.txt
  $ cat nvsmi-topo.txt lspci-tv.txt | gdtopo verify -
  $ gdtopo verify host.tar.gz --nvsmi nvsmi-topo.txt -o json`,
		Args: args(cobra.RangeArgs(1, 2)),
		RunE: func(cmd *cobra.Command, a []string) error {
			opts.Source = a[0]
			if len(a) == 2 {
				if opts.NVSMI != "" {
					return usagef("the matrix given twice: as NVSMI_FILE and with --nvsmi")
				}
				opts.NVSMI = a[1]
			}
			return verifyRun(opts)
		},
	}
	g.addOutputFlag(cmd)
	g.addNVSMIFlag(cmd)
	return cmd
}

func verifyRun(opts *verifyOptions) error {
	f, a, err := opts.start(opts.Source, false)
	if err != nil {
		return err
	}
	v := a.nvsmi
	if v == nil {
		return usagef("verify needs the host's nvidia-smi topo -m: give it as NVSMI_FILE, with --nvsmi, or pasted with a text dump")
	}
	r := v.result
	if r.GPUsBy == "" || r.Compared == 0 {
		return fmt.Errorf("%s: cannot be set against %s: %s", v.name, a.src.Name, strings.Join(r.Notes, "; "))
	}
	rep := report.NVSMI(v.name, r)
	if f == render.JSON {
		out := struct {
			Source report.Source      `json:"source"`
			NVSMI  *report.NVSMICheck `json:"nvidia_smi"`
		}{a.sourceInfo(), rep}
		if err := writeJSON(opts.IO.Out, out); err != nil {
			return err
		}
	} else if err := writeVerify(render.NewPrinter(opts.IO.Out, f), a, rep); err != nil {
		return err
	}
	if n := len(rep.Differ); n > 0 {
		fmt.Fprintf(opts.IO.Err, "gdtopo: %d of %d cells differ from nvidia-smi\n", n, rep.Compared)
		return &exitError{code: ExitFindings}
	}
	return nil
}

func writeVerify(p *render.Printer, a *analysis, rep *report.NVSMICheck) error {
	orNot := func(s string) string {
		if s == "" {
			return "not matched"
		}
		return "by " + s
	}
	rows := [][]string{
		{"Source", fmt.Sprintf("%s (%s)", a.src.Name, a.src.Format)},
		{"nvidia-smi", rep.File + ": " + a.nvsmi.matrix.Summary()},
		{"GPUs", orNot(rep.GPUsBy)},
		{"NICs", orNot(rep.NICsBy)},
		{"Cells", a.nvsmi.summary()},
	}
	for _, n := range rep.Notes {
		rows = append(rows, []string{"Note", n})
	}
	p.Heading("nvidia-smi topo -m against the source")
	if err := p.Table([]string{"Item", "Value"}, rows); err != nil {
		return err
	}
	if len(rep.Differ) == 0 {
		p.Printf("\nno compared cell disagrees\n")
		return nil
	}
	p.Heading("Cells that differ")
	var t [][]string
	for _, c := range rep.Differ {
		t = append(t, []string{c.Row + " " + c.A, c.Column + " " + c.B, c.Driver, c.Source, c.Why})
	}
	return p.Table([]string{"Row", "Column", "nvidia-smi", "Source", "Why it may differ"}, t)
}

// summary counts the cells: "72 compared: 64 agree, 0 differ; 56 NV# the
// source cannot show".
func (v *driverMatrix) summary() string {
	r := v.result
	s := strconv.Itoa(r.Compared) + " compared: " + strconv.Itoa(r.Agree) + " agree, " + strconv.Itoa(len(r.Differ)) + " differ"
	if r.NVLink > 0 {
		s += "; " + strconv.Itoa(r.NVLink) + " NV# the source cannot show"
	}
	if len(r.Differ) > 0 {
		s += " (gdtopo verify lists them)"
	}
	return s
}

// nvsmiCheck is the report's part on the host's matrix; nil without one.
func (a *analysis) nvsmiCheck() *report.NVSMICheck {
	if a.nvsmi == nil {
		return nil
	}
	return report.NVSMI(a.nvsmi.name, a.nvsmi.result)
}
