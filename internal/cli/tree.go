package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gdtopo/gdtopo/internal/render"
	"github.com/gdtopo/gdtopo/internal/report"
	"github.com/gdtopo/gdtopo/topology"
)

// treeOptions are gdtopo tree's inputs.
type treeOptions struct {
	*globalOptions
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
	g.addOutputFlag(cmd)
	cmd.Flags().BoolVar(&opts.All, "all", false, "show every PCI function, not only the branches that matter")
	return cmd
}

func treeRun(opts *treeOptions) error {
	f, a, err := opts.start(opts.Source, true)
	if err != nil {
		return err
	}
	if f == render.JSON {
		return writeJSON(opts.IO.Out, report.New(a.sourceInfo(), a.g, nil, nil).Devices)
	}
	w := opts.IO.Out
	if f == render.Markdown {
		fmt.Fprintf(w, "# gdtopo tree: %s\n\n```\n", a.src.Name)
	}
	keep := map[*topology.Device]bool{}
	for _, d := range a.g.Devices {
		if opts.All || interesting(d) {
			for x := d; x != nil; x = x.Parent {
				keep[x] = true
			}
		}
	}
	shown := 0
	for _, hb := range a.g.HostBridges {
		var roots []*topology.Device
		for _, d := range hb.Devices {
			if keep[d] {
				roots = append(roots, d)
			}
		}
		if len(roots) == 0 {
			continue
		}
		fmt.Fprintf(w, "%s  %s\n", hb.Name, placement(hb))
		a.writeBranch(w, roots, "", keep)
		shown++
	}
	var unplaced []*topology.Device
	for _, d := range a.g.Devices {
		if d.PlaceUnknown && keep[d] {
			unplaced = append(unplaced, d)
		}
	}
	if len(unplaced) > 0 {
		fmt.Fprintln(w, "place unknown (the source shows no PCI hierarchy: capture lspci -tv, or sudo lspci -vvv)")
		a.writeBranch(w, unplaced, "", keep)
		shown++
	}
	if shown == 0 {
		fmt.Fprintf(w, "no accelerators, NICs, NVMe drives or NVSwitches among %d PCI functions (--all shows them all)\n", len(a.g.Devices))
	}
	if f == render.Markdown {
		fmt.Fprintln(w, "```")
	}
	return nil
}

// interesting reports whether a device belongs in the default tree.
func interesting(d *topology.Device) bool {
	switch d.Kind {
	case topology.KindAccelerator, topology.KindNIC, topology.KindNVMe, topology.KindNVSwitch:
		return true
	}
	return false
}

func placement(hb *topology.HostBridge) string {
	parts := []string{"NUMA ?"}
	if hb.NUMANode >= 0 {
		parts[0] = fmt.Sprintf("NUMA %d", hb.NUMANode)
	}
	if hb.Socket >= 0 {
		parts = append(parts, fmt.Sprintf("socket %d", hb.Socket))
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

func (a *analysis) writeBranch(w io.Writer, ds []*topology.Device, indent string, keep map[*topology.Device]bool) {
	for i, d := range ds {
		branch, next := "├─ ", "│  "
		if i == len(ds)-1 {
			branch, next = "└─ ", "   "
		}
		fmt.Fprintf(w, "%s%s%s\n", indent, branch, a.describe(d))
		var kids []*topology.Device
		for _, c := range d.Children {
			if keep[c] {
				kids = append(kids, c)
			}
		}
		a.writeBranch(w, kids, indent+next, keep)
	}
}

// describe is one tree line: address, role or alias and kind, model, link,
// NUMA node, names and driver.
func (a *analysis) describe(d *topology.Device) string {
	parts := []string{d.BDF()}
	switch {
	case d.Role != topology.RoleNone:
		parts = append(parts, strings.ReplaceAll(string(d.Role), "_", " "))
	case a.aliases[d] != "":
		parts = append(parts, a.aliases[d])
	default:
		parts = append(parts, string(d.Kind))
	}
	parts = append(parts, d.Name)
	if d.Link.Known() {
		parts = append(parts, d.Link.String())
	}
	if d.Role == topology.RoleNone && d.NUMANode >= 0 {
		parts = append(parts, fmt.Sprintf("NUMA %d", d.NUMANode))
	}
	if names := append(append([]string{}, d.RDMA...), d.Netdevs...); len(names) > 0 {
		parts = append(parts, strings.Join(names, ","))
	}
	if d.Driver != "" {
		parts = append(parts, "["+d.Driver+"]")
	}
	return strings.Join(parts, "  ")
}
