package cli

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/gdtopo/gdtopo/internal/fleet"
	"github.com/gdtopo/gdtopo/internal/render"
	"github.com/gdtopo/gdtopo/internal/report"
	"github.com/gdtopo/gdtopo/internal/termsafe"
)

// checkOptions are gdtopo check's inputs.
type checkOptions struct {
	*globalOptions
	Output string // -o
	adviceOptions
	Sources []string // none: this machine
	FailOn  string   // --fail-on: critical, warning, info or never
	Verbose bool     // -v: every pair, note, evidence, remedy and rank's settings
	// NFDExpiry: how long -o nfd's labels stand (--nfd-expiry); 0 for ever.
	NFDExpiry time.Duration
	// Reference is a known-good machine (--reference) each source is
	// compared with; reference is it read, before any source.
	Reference string
	reference *fleet.Topo
}

// style is the layout of check's text: the terminal's, with -v.
func (o *checkOptions) style() render.Style {
	st := o.IO.Style
	st.Verbose = o.Verbose
	st.NFDLifetime = o.NFDExpiry
	return st
}

func newCmdCheck(g *globalOptions) *cobra.Command {
	opts := &checkOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use:   "check [SOURCE ...]",
		Short: "Report how every accelerator reaches every NIC",
		Long: `Check reads SOURCE (this machine when omitted) and prints, short answer first:
a verdict line (the worst severity found, or UNKNOWN where nothing was
found but the source hides the accelerators, NICs or paths to look at; the
findings by severity; what the rail plan gives), a summary of the host, the
accelerator x NIC matrix laid out as nvidia-smi topo -m lays it out, the
rail plan (which NIC each accelerator should use), one line per finding and
the pairs' notes, each said once.
A figure after "≤" is a ceiling, not an estimate: the source gives no port
rate for that NIC (NCCL topology files from providers, lspci dumps), so its
own PCIe link is taken as its limit. A source that holds part of a machine
(a tree fragment, output with lines left out at "...") says so in the
verdict line and the summary.

With -v (--verbose) it adds one row per accelerator-NIC pair (nvidia-smi's
label, NCCL's label, the path in plain words, its narrowest PCIe link, the
direct-RDMA throughput to expect, its efficiency against what the NIC alone
could do, and whether NCCL would use GPUDirect RDMA), nvidia-smi's legend,
each finding's evidence and remedy, the settings for each local rank, the
accelerator x NVMe table (GPUDirect Storage; without -v one line), every
finding of a code (without -v the first and a count) and every reader warning.
-o json and -o markdown always hold everything.

Text fits the terminal's width (or COLUMNS): cells wrap at spaces, never
inside a word; a table still too wide writes PCI addresses without domain 0000
(as lspci does), leaves out the columns it names under it, or stacks each row.
A finding's line says the problem first; on a terminal it is cut to one line.
Output that is not a terminal is plain and unwrapped unless COLUMNS is set.
Severities are coloured only on a terminal and never with NO_COLOR set.

Given several sources (files, folders, archives, or quoted globs such as
'snapshots/*.tar.gz'), check reports on each in turn; a source that fails is
reported on its own and does not stop the rest, and the exit status is the
highest of all (3 over 1 over 0). For fleets: -o jsonl writes one JSON object
per source, -o prometheus the text format for node_exporter's textfile
collector, -o nfd a Kubernetes Node Feature Discovery feature file (one source).
-o terse writes one line per finding for health checks (one source):
SEVERITY CODE DEVICES MESSAGE, the devices' addresses joined by commas ("-"
for none), never cut to the terminal's width.

With the host's own nvidia-smi topo -m (--nvsmi FILE, or pasted with a text
dump), GPU pairs get its NV# counts and the summary says how many of its
cells the source's tree agrees with (gdtopo verify lists those that differ).

--reference SOURCE compares the machine with a known-good one (a snapshot, a
captured tree, or a check -o json or -o jsonl report of one machine) as
fleet --reference does: each difference (a NIC missing, a link narrower, a
pair slower, a finding the reference lacks) is listed after the findings,
in -o json as the report's "reference", and in -o terse as a line whose code
is reference- and the kind of difference (reference-link), CRITICAL when it
is worse, INFO when not (a bus renumbered, a link faster). A worse
difference fails the check as a critical finding does: exit status 3 at any
--fail-on level but never.

Findings have stable codes (see the README) and a severity: critical, warning
or info. With --fail-on, the exit status is 3 when a finding reaches that
level (never: not at all), so health checks (Slurm NHC, Kubernetes probes) can
use it. The findings and the exit status are the same in every output format.

The throughput model's numbers, each replaceable with --model FILE (a JSON
object of key: value, for example with your own ib_write_bw --use_cuda results):
`, // and modelKeys(), added when help is shown (withModelKeys)
		Example: `  $ gdtopo check
  $ gdtopo check fixtures/hgx-h100.tar.gz
  $ gdtopo check -v fixtures/hgx-h100.tar.gz
  $ gdtopo check host.tar.bz2 -o json
  $ gdtopo check --fail-on warning; echo $?
  $ gdtopo check --fail-on warning -o terse
  $ gdtopo check --reference golden.json -o terse
  $ gdtopo check 'snapshots/*.tar.gz' -o jsonl`,
		Args: args(cobra.ArbitraryArgs),
		RunE: func(cmd *cobra.Command, a []string) error {
			opts.Sources = a
			return checkRun(opts)
		},
	}
	withModelKeys(cmd)
	opts.adviceOptions.addFlags(cmd, opts.IO)
	addOutputFlag(cmd, &opts.Output, render.CheckFormats)
	cmd.Flags().BoolVarP(&opts.Verbose, "verbose", "v", false, "show every pair, the legend, each finding's evidence and remedy, and each rank's settings")
	g.addNVSMIFlag(cmd)
	cmd.Flags().StringVar(&opts.Reference, "reference", "", "compare the machine with this known-good `SOURCE` (a snapshot, tree or check -o json report of one machine), as fleet --reference does; a worse difference exits 3 unless --fail-on never")
	addFailOnFlag(cmd, &opts.FailOn, "a finding")
	cmd.Flags().DurationVar(&opts.NFDExpiry, "nfd-expiry", fleet.DefaultNFDLifetime, "with -o nfd: how long NFD keeps the labels after this run (# +expiry-time=); 0 never expires them")
	return cmd
}

func checkRun(opts *checkOptions) error {
	f, err := parseFormat(opts.Output, render.CheckFormats)
	if err != nil {
		return err
	}
	if opts.FailOn, err = parseFailOn(opts.FailOn); err != nil {
		return err
	}
	names := expandSources(opts.Sources)
	if len(names) == 0 {
		names = []string{""}
	}
	if opts.NVSMI != "" && len(names) > 1 {
		return usagef("--nvsmi describes one host: give it with one source")
	}
	if (f == render.NFD || f == render.Terse) && len(names) != 1 {
		return usagef("-o %s describes one machine: give one SOURCE", f)
	}
	if opts.NFDExpiry < 0 {
		return usagef("--nfd-expiry %s: a lifetime is 0 (never expires) or more", opts.NFDExpiry)
	}
	if err := opts.validate(); err != nil {
		return err // once, not on every source's line
	}
	if opts.Reference != "" {
		// Read as fleet reads a source: without this host's --nvsmi.
		g := &globalOptions{IO: opts.IO, PCIIDs: opts.PCIIDs}
		if opts.reference, err = readReference(g, &opts.adviceOptions, opts.Reference); err != nil {
			return err
		}
	}
	var results []report.Result
	// The JSON document, and a table of several sources, are written a
	// source at a time, as -o jsonl is: none keeps a report once it is
	// written.
	var sections *render.CheckSections
	var document *render.CheckDocument
	switch {
	case f == render.JSON:
		document = render.NewCheckDocument(opts.IO.Out, opts.FailOn)
	case (f == render.Table || f == render.Markdown) && len(names) > 1:
		sections = render.NewCheckSections(opts.IO.Out, f, opts.style())
	}
	emit := func(r fleetResult) error {
		if r.res.Error != "" {
			fmt.Fprintf(opts.IO.Err, "gdtopo: %s\n", termsafe.Text(r.res.Error))
		}
		var err error
		switch {
		case f == render.JSONL:
			err = render.WriteEncodedLine(opts.IO.Out, r.encoded)
		case sections != nil:
			err = sections.Write(r.res)
		case document != nil:
			err = document.Write(r.res, r.encoded)
		default:
			results = append(results, r.res) // for the document written at the end
			return nil
		}
		r.res.Report = nil // written; only its exit status is kept
		results = append(results, r.res)
		return err
	}
	if len(names) == 1 {
		opts.IO.gc.oneSource()
		// One source runs here, on the calling goroutine: the workers of
		// checkSources would start threads that only wait for it.
		err = emit(opts.encodedResult(nil, names[0], f))
	} else {
		err = opts.checkSources(names, f, emit)
	}
	if err != nil {
		return err
	}
	c := report.NewCheck(opts.FailOn, results)
	c.Time = time.Now()
	if document != nil {
		if err := document.Close(c.ExitStatus); err != nil {
			return err
		}
	}
	if f != render.JSONL && sections == nil && document == nil && (anyReport(results) || f == render.Prometheus) {
		// Nothing to show in a table or a JSON document when no source
		// could be read: the errors went to standard error.
		if err := render.Check(opts.IO.Out, f, c, opts.style()); err != nil {
			return err
		}
	}
	if c.ExitStatus == report.ExitOK {
		return nil
	}
	e := &exitError{code: c.ExitStatus}
	if r := results[0].Report; len(results) == 1 && r != nil && c.ExitStatus == report.ExitFindings {
		var why []string
		if n := r.Failing(); n > 0 {
			why = append(why, fmt.Sprintf("%d finding(s) at or above %s", n, opts.FailOn))
		}
		if r.Reference != nil && r.Reference.Worse > 0 {
			why = append(why, fmt.Sprintf("%d difference(s) worse than the reference", r.Reference.Worse))
		}
		e.msg = strings.Join(why, "; ")
	}
	return e
}

// plainTable reports whether check's output in f is the plain table
// without -v: it shows each accelerator's tally of its NVMe pairs, not the
// pairs, and no device but the accelerators and NICs; --reference compares
// every device.
func (opts *checkOptions) plainTable(f render.Format) bool {
	return f == render.Table && !opts.Verbose && opts.Reference == ""
}

// anyReport reports whether some source could be read.
func anyReport(results []report.Result) bool {
	for _, r := range results {
		if r.Report != nil {
			return true
		}
	}
	return false
}

// withModelKeys ends cmd's long description with the --model keys
// (modelKeys) when its help is shown: they are made from the whole default
// model, which a run that shows no help never needs.
func withModelKeys(cmd *cobra.Command) {
	cmd.SetHelpFunc(func(c *cobra.Command, args []string) {
		if c == cmd && !strings.HasSuffix(c.Long, modelKeys()) {
			c.Long += modelKeys()
		}
		c.Root().HelpFunc()(c, args)
	})
}
