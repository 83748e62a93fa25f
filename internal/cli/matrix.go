package cli

import (
	"github.com/spf13/cobra"

	"github.com/gdtopo/gdtopo/internal/render"
	"github.com/gdtopo/gdtopo/internal/report"
)

// matrixOptions are gdtopo matrix's inputs.
type matrixOptions struct {
	*globalOptions
	Output string // -o
	Source string
}

func newCmdMatrix(g *globalOptions) *cobra.Command {
	opts := &matrixOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use:   "matrix [SOURCE]",
		Short: "Print the nvidia-smi topo -m style matrix of accelerators and NICs",
		Long: `Matrix prints every accelerator and NIC against every other with nvidia-smi's
labels, CPU and NUMA affinity for accelerators, and the NIC legend. Cells are
tab-separated as nvidia-smi topo -m writes them (two tabs before GPU NUMA ID),
never folded to the terminal's width, so cut -f takes the same fields from
both; check shows the same matrix fitted to the terminal.

NVLink is not visible in sysfs or lspci: where the source suggests it
(NVSwitch functions, SXM or OAM modules, PCIe boards that take NVLink bridges,
an NCCL topology file without NVLink elements) accelerator pairs read NV?,
never a PCIe label stated as fact. An NCCL topology dump's NVLink elements,
or the host's own nvidia-smi topo -m (concatenated with a text dump, or given
with --nvsmi), give NV# counts.`,
		Example: `  $ gdtopo matrix fixtures/dgx-a100.tar.gz`,
		Args:    args(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			if len(a) == 1 {
				opts.Source = a[0]
			}
			return matrixRun(opts)
		},
	}
	addOutputFlag(cmd, &opts.Output, render.ViewFormats)
	g.addNVSMIFlag(cmd)
	return cmd
}

func matrixRun(opts *matrixOptions) error {
	f, err := parseFormat(opts.Output, render.ViewFormats)
	if err != nil {
		return err
	}
	r, err := opts.report(opts.Source, false, &adviceOptions{}, reportOptions{})
	if err != nil {
		return err
	}
	return render.Matrix(opts.IO.Out, f, report.MatrixOf(r), opts.IO.Style)
}
