package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/gdtopo/gdtopo/internal/render"
	"github.com/gdtopo/gdtopo/internal/report"
	"github.com/gdtopo/gdtopo/topology"
)

// matrixOptions are gdtopo matrix's inputs.
type matrixOptions struct {
	*globalOptions
	Source string
}

func newCmdMatrix(g *globalOptions) *cobra.Command {
	opts := &matrixOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use:   "matrix [SOURCE]",
		Short: "Print the nvidia-smi topo -m style matrix of accelerators and NICs",
		Long: `Matrix prints every accelerator and NIC against every other with nvidia-smi's
labels, CPU and NUMA affinity for accelerators, and the NIC legend.

NVLink is not visible in sysfs or lspci: where the source suggests it
(NVSwitch functions, SXM or OAM modules, PCIe boards that take NVLink bridges,
an NCCL topology file without NVLink elements) accelerator pairs read NV?,
never a PCIe label stated as fact. An NCCL topology dump's NVLink elements, or the host's own
nvidia-smi topo -m (concatenated with a text dump, or given with --nvsmi),
give NV# counts.`,
		Example: `  $ gdtopo matrix fixtures/dgx-a100`,
		Args:    args(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			if len(a) == 1 {
				opts.Source = a[0]
			}
			return matrixRun(opts)
		},
	}
	g.addOutputFlag(cmd)
	g.addNVSMIFlag(cmd)
	return cmd
}

func matrixRun(opts *matrixOptions) error {
	f, a, err := opts.start(opts.Source, false)
	if err != nil {
		return err
	}
	pairs := a.g.Pairs()
	if f == render.JSON {
		return writeJSON(opts.IO.Out, report.New(a.sourceInfo(), a.g, pairs, nil).Pairs)
	}
	nics, hidden := a.shownNICs()
	ends := append(a.g.OfKind(topology.KindAccelerator), nics...)
	if len(ends) == 0 {
		fmt.Fprintf(opts.IO.Out, "no accelerators or NICs found among %d PCI functions\n", len(a.g.Devices))
		return nil
	}
	if err := a.writeMatrix(render.NewPrinter(opts.IO.Out, f), ends, ends, pairs); err != nil {
		return err
	}
	fmt.Fprint(opts.IO.Out, legend)
	nv, nvUnknown, uncertain := false, false, false
	for _, p := range pairs {
		nv = nv || p.SMI.Rank() == topology.NVL.Rank()
		nvUnknown = nvUnknown || p.SMI == topology.NVLinkUnknown
		uncertain = uncertain || p.LabelUncertain
	}
	if nv {
		fmt.Fprint(opts.IO.Out, nvLegend)
	}
	if nvUnknown {
		fmt.Fprint(opts.IO.Out, nvUnknownLegend)
	}
	if uncertain {
		fmt.Fprint(opts.IO.Out, uncertainLegend)
	}
	if len(hidden) > 0 {
		fmt.Fprintf(opts.IO.Out, "\nNot shown, no RDMA device: %s\n", bdfs(hidden))
	}
	return nil
}

// legend is nvidia-smi's, verbatim, less NV# (nvLegend).
const legend = `
Legend:

  X    = Self
  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes (e.g., QPI/UPI)
  NODE = Connection traversing PCIe as well as the interconnect between PCIe Host Bridges within a NUMA node
  PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)
  PXB  = Connection traversing multiple PCIe bridges (without traversing the PCIe Host Bridge)
  PIX  = Connection traversing at most a single PCIe bridge
`

// nvLegend is nvidia-smi's NV# line.
const nvLegend = "  NV#  = Connection traversing a bonded set of # NVLinks\n"

// nvUnknownLegend says what gdtopo's NV? means.
const nvUnknownLegend = "  NV?  = NVLink possible but not in the source (gdtopo check says why): nvidia-smi prints NV# or a PCIe label\n"

// uncertainLegend explains the mark on labels that rest on a guess.
const uncertainLegend = "  ?    = the label rests on something the source does not show (see gdtopo check)\n"
