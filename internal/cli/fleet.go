package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"time"

	"github.com/spf13/cobra"

	"github.com/gdtopo/gdtopo/internal/fleet"
	"github.com/gdtopo/gdtopo/internal/render"
	"github.com/gdtopo/gdtopo/internal/source"
	"github.com/gdtopo/gdtopo/internal/termsafe"
)

// fleetOptions are gdtopo fleet's inputs.
type fleetOptions struct {
	*globalOptions
	adviceOptions
	Sources   []string
	Output    string // -o
	Reference string // --reference: a known-good source or report every machine is compared with
}

// fleetFormats are fleet's outputs, the default first.
var fleetFormats = []render.Format{render.Table, render.JSON, render.JSONL, render.Prometheus}

func newCmdFleet(g *globalOptions) *cobra.Command {
	opts := &fleetOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use:   "fleet SOURCE...",
		Short: "Group machines by topology and show how the odd ones differ",
		Long: `Fleet reads many sources (snapshots, captured trees, quoted globs such as
'snapshots/*.tar.gz') and groups them by hardware: the accelerators, the NICs
and the bridges above them, by model, at the same PCI addresses under the same
parents. Groups are printed largest first. Within a group, the state most
machines share (links, RDMA and interface names, ACS, IOMMU, pair labels,
predictions, findings) is the majority; every other machine is listed with how
it differs from it: a link slower or narrower, a NIC renamed (matched by
address, not by name), ACS redirect on, a finding the majority lacks. A group
after the first is compared with the first: a NIC missing, a GPU moved.
Devices are named as check names them (GPU2, NIC3) with their addresses,
matched by their place in the tree: a bus renumbered is a rename, not a move.

--reference SOURCE compares every machine with a known-good one (a snapshot,
a captured tree or a check -o json report) instead of its group's majority,
so a fault most of the fleet shares is found on each machine that has it.

-o prometheus writes, per source, gdtopo_fleet_up, _group, _alike, _differences
and _worse_differences for node_exporter's textfile collector.

Exit status: 0 when every machine is like the majority of the first group,
3 when some machine differs (or is in another group), 1 when a source could
not be read and none differs, 2 on a usage error.`,
		Example: `  $ gdtopo fleet 'snapshots/*.tar.gz'
  $ gdtopo fleet 'snapshots/*.tar.gz' -o jsonl | jq -c 'select(.alike | not)'`,
		Args: args(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			opts.Sources = a
			return fleetDiffRun(opts)
		},
	}
	opts.addFlags(cmd)
	addOutputFlag(cmd, &opts.Output, fleetFormats)
	cmd.Flags().StringVar(&opts.Reference, "reference", "", "compare every machine with this known-good `SOURCE` (a snapshot, tree or check -o json report) instead of its group's majority")
	return cmd
}

func fleetDiffRun(opts *fleetOptions) error {
	f, err := parseFormat(opts.Output, fleetFormats)
	if err != nil {
		return err
	}
	if err := opts.validate(); err != nil {
		return err
	}
	names := expandSources(opts.Sources)
	var ref *fleet.Topo
	if opts.Reference != "" {
		if ref, err = opts.topo(&source.Opener{}, opts.Reference); err != nil {
			return fmt.Errorf("reference %s: %w", opts.Reference, err)
		}
	}
	fl := opts.readFleet(names)
	if ref != nil {
		fl.SetReference(opts.Reference, ref)
	}
	res := fl.Result(names)
	for _, e := range res.Errors {
		fmt.Fprintf(opts.IO.Err, "gdtopo: %s\n", termsafe.Text(e.Error))
	}
	w := bufio.NewWriter(opts.IO.Out)
	switch f {
	case render.JSON:
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		err = enc.Encode(res)
	case render.JSONL:
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		for i := range names {
			if err = enc.Encode(res.Node(i)); err != nil {
				break
			}
		}
	case render.Prometheus:
		err = fleet.WriteFleetPrometheus(w, res, time.Now())
	default:
		err = render.Fleet(w, res, opts.IO.Style)
	}
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		return err
	}
	switch {
	case res.Differing > 0:
		return &exitError{code: ExitFindings}
	case res.Unreadable > 0:
		return &exitError{code: ExitError}
	}
	return nil
}

// readFleet reads the sources on every CPU into a Fleet. Each worker keeps
// one source at a time; only each source's comparable state stays.
func (opts *fleetOptions) readFleet(names []string) *fleet.Fleet {
	workers := max(1, min(runtime.GOMAXPROCS(0), len(names)))
	if os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" && len(names) > 1 {
		gc := startFleetGC(workers)
		defer gc.stop()
	}
	type read struct {
		i    int
		topo *fleet.Topo
		err  error
	}
	next := make(chan int)
	out := make(chan read, workers)
	go func() {
		for i := range names {
			next <- i
		}
		close(next)
	}()
	for range workers {
		go func() {
			// Each source is done with before the next opens: its tree's
			// memory can be the next one's.
			op := source.Opener{ReuseMemory: true}
			for i := range next {
				t, err := opts.topo(&op, names[i])
				out <- read{i, t, err}
			}
		}()
	}
	fl := fleet.NewFleet(len(names))
	for range names {
		r := <-out
		if r.err != nil {
			fl.Fail(r.i, r.err.Error())
			continue
		}
		fl.Add(r.i, r.topo)
	}
	return fl
}

// topo reads one source into what fleet compares.
func (opts *fleetOptions) topo(op *source.Opener, name string) (*fleet.Topo, error) {
	a, err := opts.loadWith(op, name, false)
	if err != nil {
		return nil, err
	}
	pairs := a.g.PairsWithoutHops() // a fleet compares no hops
	res, err := a.advise(&opts.adviceOptions, pairs, false)
	if err != nil {
		return nil, err
	}
	t := fleet.NewTopo(a.g, pairs, res)
	return &t, nil
}
