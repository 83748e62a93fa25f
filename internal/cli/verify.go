package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gdtopo/gdtopo/internal/render"
	"github.com/gdtopo/gdtopo/internal/report"
)

// verifyOptions are gdtopo verify's inputs.
type verifyOptions struct {
	*globalOptions
	Output string // -o
	Source string
}

func newCmdVerify(g *globalOptions) *cobra.Command {
	opts := &verifyOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use:   "verify [SOURCE] [NVSMI_FILE]",
		Short: "Check the source's labels against nvidia-smi or rocm-smi's matrix",
		Long: `Verify sets every cell of the host's nvidia-smi topo -m against the label
gdtopo gives the same pair from SOURCE's PCIe tree, and lists every cell where
they disagree, with what may explain it: a tree that is not this host's, a
hypervisor's virtual tree, a label the source could only guess (NODE?), NVLink
the source cannot show. NV# cells where the source could only say NV? are
counted as NVLink the tree lacks, not as disagreements. Each GPU's CPU
Affinity and NUMA Affinity are set against its local CPUs and NUMA node in
the source, where both sides give them.

On AMD hosts the matrix is rocm-smi --showtopo, told apart by its "Link Type
between two GPUs" table: each XGMI or PCIE cell is set against the source's
label for the pair (any PCIe label agrees with PCIE; XGMI? cells the source
could only guess are counted as xGMI it lacks), and each GPU's Numa Affinity
against its NUMA node. rocm-smi numbers GPUs by PCI address, as matched.

The matrix is NVSMI_FILE, or --nvsmi FILE (- for standard input), or the
matrix pasted before or after a text dump in SOURCE itself
(cat nvsmi.txt lspci-tv.txt | gdtopo verify -). With no SOURCE, the matrix
given with --nvsmi is set against this machine's live /sys.
GPUs are matched in PCI bus order, as nvidia-smi numbers them; NICs by RDMA
name, or, where the source names none (lspci dumps), in the order of the
Mellanox functions, which the report says.

-o json gives {"schema_version", "source", "nvidia_smi": {the counts,
"differ": [each cell]}, "exit_status"}; "nvidia_smi" is the part check -o json
holds when given the matrix.

Exit status 3 when a cell disagrees; 0 when none does; 1 when the matrix's
GPUs do not match the source's (another host, or GPUs hidden from one of them).`,
		Example: `  $ nvidia-smi topo -m | gdtopo verify --nvsmi -
  $ gdtopo verify fixtures/dgx-a100.tar.gz nvsmi-topo.txt
  $ cat nvsmi-topo.txt lspci-tv.txt | gdtopo verify -
  $ gdtopo verify host.tar.gz --nvsmi nvsmi-topo.txt -o json
  $ rocm-smi --showtopo | gdtopo verify mi300x-host.tar.gz -`,
		Args: args(cobra.RangeArgs(0, 2)),
		RunE: func(cmd *cobra.Command, a []string) error {
			if len(a) == 0 && opts.NVSMI == "" {
				return usagef("verify of this machine needs its nvidia-smi topo -m: nvidia-smi topo -m | gdtopo verify --nvsmi -")
			}
			if len(a) > 0 {
				opts.Source = a[0]
			}
			if len(a) == 2 {
				if opts.NVSMI != "" {
					return usagef("the matrix given twice: as NVSMI_FILE and with --nvsmi")
				}
				opts.NVSMI = a[1]
			}
			return verifyRun(opts)
		},
	}
	addOutputFlag(cmd, &opts.Output, render.ViewFormats)
	g.addNVSMIFlag(cmd)
	return cmd
}

func verifyRun(opts *verifyOptions) error {
	f, err := parseFormat(opts.Output, render.ViewFormats)
	if err != nil {
		return err
	}
	a, err := opts.load(opts.Source, false)
	if err != nil {
		return err
	}
	v := a.nvsmi
	if v == nil {
		return usagef("verify needs the host's nvidia-smi topo -m or rocm-smi --showtopo: give it as NVSMI_FILE, with --nvsmi, or (nvidia-smi's) pasted with a text dump")
	}
	if r := v.Result; r.GPUsBy == "" || r.Compared == 0 && v.Devices() > 1 {
		return fmt.Errorf("%s: cannot be set against %s: %s", v.Name, a.src.Name, strings.Join(r.Notes, "; "))
	}
	r, err := a.buildReport(&adviceOptions{}, reportOptions{})
	if err != nil {
		return err
	}
	ver := report.VerificationOf(r)
	if err := render.Verify(opts.IO.Out, f, ver, opts.IO.Style); err != nil {
		return err
	}
	if ver.ExitStatus == report.ExitOK {
		return nil
	}
	return &exitError{code: ver.ExitStatus, msg: fmt.Sprintf("%d of %d cells differ from %s", len(ver.NVSMI.Differ), ver.NVSMI.Compared, ver.NVSMI.ToolName())}
}
