package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
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
	opts.adviceOptions.addFlags(cmd, opts.IO)
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
		if ref, err = readReference(opts.globalOptions, &opts.adviceOptions, opts.Reference); err != nil {
			return err
		}
	}
	fl, names := opts.readFleet(names)
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

// readReference reads a known-good machine (--reference of fleet and
// check): a snapshot, a tree, or a file of reports that holds one machine.
func readReference(g *globalOptions, advice *adviceOptions, name string) (*fleet.Topo, error) {
	reads := readMachines(g, advice, &source.Opener{}, &fleet.ReportReader{}, nil, name)
	switch {
	case len(reads) != 1:
		return nil, fmt.Errorf("reference %s: %d machines; give one", name, len(reads))
	case reads[0].err != nil:
		return nil, fmt.Errorf("reference %s: %w", name, reads[0].err)
	}
	return reads[0].topo, nil
}

// fleetRead is one machine a source holds: a snapshot or tree holds one,
// a file of reports one or more.
type fleetRead struct {
	name string
	topo *fleet.Topo
	err  error
}

// readFleet reads the sources on every CPU into a Fleet, and names its
// machines in the order given (a file of several reports names each
// FILE:N). Each worker keeps one source at a time; only each machine's
// comparable state stays.
func (opts *fleetOptions) readFleet(sources []string) (*fleet.Fleet, []string) {
	opts.IO.gc.manySources()
	workers := max(1, min(runtime.GOMAXPROCS(0), len(sources)))
	type read struct {
		i     int
		reads []fleetRead
	}
	next := make(chan int)
	out := make(chan read, workers)
	go func() {
		for i := range sources {
			next <- i
		}
		close(next)
	}()
	for range workers {
		go func() {
			// Each source is done with before the next opens: its tree's
			// memory can be the next one's.
			op := source.Opener{ReuseMemory: true}
			var rr fleet.ReportReader
			var buf []byte // a file of reports' bytes, the next file's too
			for i := range next {
				out <- read{i, opts.readSource(&op, &rr, &buf, sources[i])}
			}
		}()
	}
	fl := fleet.NewFleet(len(sources))
	names := make([]string, 0, len(sources))
	// Sources finish in any order; their machines are numbered in the
	// order given, so a source read early waits here for those before it.
	pending := map[int][]fleetRead{}
	done := 0
	for range sources {
		r := <-out
		pending[r.i] = r.reads
		for ; ; done++ {
			reads, ok := pending[done]
			if !ok {
				break
			}
			delete(pending, done)
			for _, m := range reads {
				if m.err != nil {
					fl.Fail(len(names), m.err.Error())
				} else {
					fl.Add(len(names), m.topo)
				}
				names = append(names, m.name)
			}
		}
	}
	return fl, names
}

// readSource reads one source of the fleet (readMachines).
func (opts *fleetOptions) readSource(op *source.Opener, rr *fleet.ReportReader, buf *[]byte, name string) []fleetRead {
	return readMachines(opts.globalOptions, &opts.adviceOptions, op, rr, buf, name)
}

// readMachines reads one source: a file of gdtopo's JSON reports (check -o
// json or -o jsonl, recognised by its content) gives each machine's Topo
// without its tree; anything else is read and analysed as check does. A
// file of reports is read into *buf (when buf is not nil), which the next
// source reuses: nothing read from it outlives the call.
func readMachines(g *globalOptions, advice *adviceOptions, op *source.Opener, rr *fleet.ReportReader, buf *[]byte, name string) []fleetRead {
	var mem []byte
	if buf != nil {
		mem = *buf
	}
	reports, data, err := readReportFile(name, mem)
	if buf != nil && cap(data) > cap(mem) {
		*buf = data
	}
	if err != nil {
		return []fleetRead{{name: name, err: err}}
	}
	if !reports {
		t, err := machineTopo(g, advice, op, name)
		return []fleetRead{{name: name, topo: t, err: err}}
	}
	var out []fleetRead
	err = rr.Read(data, func(res fleet.ReportResult) {
		m := fleetRead{name: res.Source}
		switch {
		case res.Report == nil && res.Error != "":
			m.err = fmt.Errorf("%s: %s", name, res.Error)
		case res.Report == nil:
			m.err = fmt.Errorf("%s: a result without a report", name)
		default:
			t := fleet.TopoFromReport(res.Report)
			m.topo = &t
		}
		out = append(out, m)
	})
	if err != nil {
		return []fleetRead{{name: name, err: fmt.Errorf("%s: %w", name, err)}}
	}
	if len(out) == 1 {
		out[0].name = name
		return out
	}
	for k := range out {
		out[k].name = name + ":" + strconv.Itoa(k+1) + " " + out[k].name
	}
	return out
}

// readReportFile reads name when it is a regular file of JSON (its first
// byte other than white space opens an object), into mem when it is large
// enough; reports is false, and nothing read, for anything else.
func readReportFile(name string, mem []byte) (reports bool, data []byte, err error) {
	f, err := os.Open(name)
	if err != nil {
		return false, nil, nil // not a file here: the source reader says why
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return false, nil, nil
	}
	var head [64]byte
	n, _ := io.ReadFull(f, head[:])
	if !fleet.IsReports(head[:n]) {
		return false, nil, nil
	}
	data = mem[:0]
	if int64(cap(data)) < st.Size()+1 {
		data = make([]byte, 0, st.Size()+1)
	}
	data = append(data, head[:n]...)
	for {
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
		m, err := f.Read(data[len(data):cap(data)])
		data = data[:len(data)+m]
		if err == io.EOF {
			return true, data, nil
		}
		if err != nil {
			return true, nil, fmt.Errorf("%s: %w", name, err)
		}
	}
}

// machineTopo reads one source into what fleet compares.
func machineTopo(g *globalOptions, advice *adviceOptions, op *source.Opener, name string) (*fleet.Topo, error) {
	a, err := g.loadWith(op, name, false)
	if err != nil {
		return nil, err
	}
	pairs := a.g.PairsWithoutHops() // a fleet compares no hops
	res, err := a.advise(advice, pairs, false)
	if err != nil {
		return nil, err
	}
	t := fleet.NewTopo(a.g, pairs, res)
	return &t, nil
}
