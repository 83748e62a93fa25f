package cli

import (
	"github.com/spf13/cobra"

	"github.com/gdtopo/gdtopo/internal/render"
	"github.com/gdtopo/gdtopo/internal/report"
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
		Example: `  $ gdtopo tree fixtures/hgx-h100
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
	a, err := opts.load(opts.Source, true)
	if err != nil {
		return err
	}
	return render.Tree(opts.IO.Out, f, report.TreeOf(a.devicesReport(), opts.All), opts.IO.Style)
}
