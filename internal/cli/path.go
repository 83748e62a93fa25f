package cli

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gdtopo/gdtopo/internal/render"
	"github.com/gdtopo/gdtopo/internal/report"
	"github.com/gdtopo/gdtopo/topology"
)

// pathOptions are gdtopo path's inputs.
type pathOptions struct {
	*globalOptions
	Output string // -o
	adviceOptions
	A, B    string
	Source  string
	Explain bool // --explain
}

func newCmdPath(g *globalOptions) *cobra.Command {
	opts := &pathOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use:   "path A B [SOURCE]",
		Short: "Show the path between two devices hop by hop",
		Long: `Path shows every hop between devices A and B with the link it crosses, and the
labels nvidia-smi and NCCL give the pair.

A device is named by its address (0000:18:00.0 or 18:00.0), its RDMA or network
interface name (mlx5_0, ibp24s0), or its index in gdtopo's tables (GPU0, NIC3).

With --explain, for an accelerator and a NIC, it also shows the arithmetic of
the predicted direct-RDMA throughput step by step, each number with its source.`,
		Example: `  $ gdtopo path GPU0 mlx5_0
  $ gdtopo path 18:00.0 NIC1 fixtures/hgx-h100.tar.gz --explain`,
		Args: args(cobra.RangeArgs(2, 3)),
		RunE: func(cmd *cobra.Command, a []string) error {
			opts.A, opts.B = a[0], a[1]
			if len(a) == 2 && sourceNamed(a[1]) {
				// one device and a source: read as two devices, the source
				// would be this machine's /sys and the answer "no device"
				return usagef("path needs two devices before SOURCE, and %s is a source, not a device: gdtopo path %s B %s", a[1], a[0], a[1])
			}
			if len(a) == 3 {
				opts.Source = a[2]
				if sourceFirst(a) {
					return usagef("SOURCE comes after the two devices: gdtopo path %s %s %s", a[1], a[2], a[0])
				}
			}
			return pathRun(opts)
		},
	}
	opts.adviceOptions.addFlags(cmd, opts.IO)
	addOutputFlag(cmd, &opts.Output, render.ViewFormats)
	g.addNVSMIFlag(cmd)
	cmd.Flags().BoolVar(&opts.Explain, "explain", false, "show the throughput prediction's arithmetic for an accelerator and a NIC")
	return cmd
}

func pathRun(opts *pathOptions) error {
	f, err := parseFormat(opts.Output, render.ViewFormats)
	if err != nil {
		return err
	}
	if err := opts.validate(); err != nil {
		return err
	}
	a, err := opts.load(opts.Source, false)
	if err != nil {
		return err
	}
	da, err := a.find(opts.A)
	if err != nil {
		return err
	}
	db, err := a.find(opts.B)
	if err != nil {
		return err
	}
	if da == db {
		return fmt.Errorf("%s and %s are the same device (%s)", opts.A, opts.B, da.BDF())
	}
	if opts.Explain {
		gpu, nic := da, db
		if gpu.Kind == topology.KindNIC {
			gpu, nic = nic, gpu
		}
		if gpu.Kind != topology.KindAccelerator || nic.Kind != topology.KindNIC {
			return usagef("--explain needs an accelerator and a NIC, not %s %s and %s %s", da.Kind, da.BDF(), db.Kind, db.BDF())
		}
	}
	r, err := a.buildReport(&opts.adviceOptions, reportOptions{Explain: opts.Explain})
	if err != nil {
		return err
	}
	v := report.NewPathView(r, a.g.Classify(da, db))
	if opts.Explain && v.PlaceUnknown {
		return fmt.Errorf("no prediction for %s and %s: %s shows no PCI hierarchy for them: capture lspci -tv, or sudo lspci -vvv", da.BDF(), db.BDF(), a.src.Name)
	}
	if opts.Explain && v.Pair.Prediction == nil {
		return fmt.Errorf("no prediction for %s and %s: the rail planner only pairs accelerators with RDMA NICs when the source names any", da.BDF(), db.BDF())
	}
	return render.Path(opts.IO.Out, f, v, opts.IO.Style)
}

// find resolves a device name given on the command line.
func (a *analysis) find(name string) (*topology.Device, error) {
	upper := strings.ToUpper(name)
	for d, alias := range report.Aliases(a.g) {
		if alias == upper {
			return d, nil
		}
	}
	if addr, err := topology.ParseBDF(name); err == nil {
		if d := a.g.Device(addr); d != nil {
			return d, nil
		}
		if !strings.Contains(strings.TrimSuffix(name, ":"), ":") || strings.Count(name, ":") == 1 {
			// A short address may name a function in any domain.
			var found []*topology.Device
			for _, d := range a.g.Devices {
				if d.Addr.Bus == addr.Bus && d.Addr.Device == addr.Device && d.Addr.Function == addr.Function {
					found = append(found, d)
				}
			}
			if len(found) == 1 {
				return found[0], nil
			}
			if len(found) > 1 {
				return nil, fmt.Errorf("%s is ambiguous in %s: give the domain, e.g. %s", name, a.src.Name, found[0].BDF())
			}
		}
	}
	for _, d := range a.g.Devices {
		for _, n := range append(append([]string{}, d.RDMA...), d.Netdevs...) {
			if n == name {
				return d, nil
			}
		}
	}
	return nil, fmt.Errorf("no device %q in %s: name one by address (0000:18:00.0 or 18:00.0), RDMA or network name (mlx5_0), or table index (GPU0, NIC0)", name, a.src.Name)
}

// sourceFirst reports whether path's arguments name the source first: the
// first is a file or folder, the last is not.
// sourceNamed reports whether s names a source (a file or folder that
// exists, or "-") rather than a device.
func sourceNamed(s string) bool {
	if s == "-" {
		return true
	}
	_, err := os.Stat(s)
	return err == nil
}

func sourceFirst(a []string) bool {
	_, first := os.Stat(a[0])
	_, last := os.Stat(a[2])
	return first == nil && last != nil && a[2] != "-"
}
