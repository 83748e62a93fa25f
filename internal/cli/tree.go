package cli

import (
	"github.com/spf13/cobra"

	"github.com/gdtopo/gdtopo/internal/load"
	"github.com/gdtopo/gdtopo/internal/names"
	"github.com/gdtopo/gdtopo/internal/render"
	"github.com/gdtopo/gdtopo/internal/report"
	"github.com/gdtopo/gdtopo/topology"
)

// treeOptions are gdtopo tree's inputs.
type treeOptions struct {
	*globalOptions
	Output string // -o
	Source string
	All    bool
}

func newCmdTree(g *globalOptions) *cobra.Command {
	opts := &treeOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use:   "tree [SOURCE]",
		Short: "Print the PCIe tree with roles, kinds, NUMA nodes and links",
		Long: `Tree prints each host bridge and the bridges and functions below it: the
bridge's role (root port, switch upstream or downstream port), each endpoint's
kind and model, its NUMA node, and its link as "Gen5 x16", with the capability
in brackets where the link trained lower.

By default only branches that lead to an accelerator, NIC, NVMe drive or
NVSwitch are shown; --all shows every function.`,
		Example: `  $ gdtopo tree fixtures/hgx-h100.tar.gz
  $ gdtopo tree --all`,
		Args: args(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			if len(a) == 1 {
				opts.Source = a[0]
			}
			return treeRun(opts)
		},
	}
	addOutputFlag(cmd, &opts.Output, render.ViewFormats)
	cmd.Flags().BoolVar(&opts.All, "all", false, "show every PCI function, not only the branches that matter")
	return cmd
}

func treeRun(opts *treeOptions) error {
	f, err := parseFormat(opts.Output, render.ViewFormats)
	if err != nil {
		return err
	}
	// Every function's name is printed with --all, and in JSON, which lists
	// every function; otherwise only the branches that lead to an
	// accelerator, NIC, NVMe drive or NVSwitch are, and only theirs are
	// looked up (pci.ids is not opened when the built-in names cover them).
	all := opts.All || f == render.JSON
	a, err := opts.load(opts.Source, all)
	if err != nil {
		return err
	}
	if !all {
		nameBranches(opts.resolver(), a.g)
	}
	return render.Tree(opts.IO.Out, f, report.TreeOf(a.devicesReport(), opts.All), opts.IO.Style)
}

// nameBranches names the functions gdtopo tree shows without --all: those
// report.InTree keeps and every bridge above them.
func nameBranches(res *names.Resolver, g *topology.Graph) {
	named := make(map[*topology.Device]bool, len(g.Devices))
	for _, d := range g.Devices {
		if !report.InTree(d.Kind) {
			continue
		}
		for x := d; x != nil && !named[x]; x = x.Parent {
			load.NameDevice(res, x, true)
			named[x] = true
		}
	}
}
