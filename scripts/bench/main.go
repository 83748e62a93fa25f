// Command bench times gdtopo side by side with the peer tools, lspci
// (pciutils) and lstopo (hwloc), in one run, and prints Markdown tables of
// paired ratios, CPU time and peak memory (docs/performance.md):
//
//   - `gdtopo check DIR` against `lspci -A linux-sysfs -O sysfs.path=DIR/sys/bus/pci -tv`
//     and `lstopo-no-graphics --input DIR`, and `gdtopo tree DIR` against
//     that lspci -tv, on every fixture (fixtures/NAME.tar.gz) and every
//     sysfs capture in the corpus (../shared/corpus), each unpacked into a
//     temporary folder;
//   - `gdtopo check X.xml` against `lstopo-no-graphics --input X.xml`, X.xml
//     being what `lstopo-no-graphics --of xml --input DIR` writes for each of
//     those trees;
//   - check against lspci -tv and lstopo on a generated tree of 10,000 PCI
//     functions (fixtures.Scale);
//   - `gdtopo fleet` over N copies of a snapshot of fixtures/hgx-h100:
//     snapshots per second, and peak memory at N against N/10;
//   - the peak memory of a single check.
//
// Each comparison runs the two commands alternately (A B A B), first the
// warm-up runs, then the timed pairs; a pair's ratio is A's wall time over
// B's, each measured by this program around the process, and the table gives
// the median ratio with its range and both commands' median times. CPU time
// and peak memory come from the process's resource usage (wait4).
//
// Usage, from the repository root:
//
//	go run ./scripts/bench            # full run: 15 pairs after 3 warm-ups
//	go run ./scripts/bench -quick     # a quick run, for CI and a first look
//	go run ./scripts/bench -gen DIR   # only write the generated tree into DIR
//
// gdtopo is built once (`go build ./cmd/gdtopo`) into a temporary folder,
// which is removed at the end with everything else the run wrote.
package main

import (
	"flag"
	"fmt"
	"os"
	"regexp"

	"github.com/gdtopo/gdtopo/fixtures"
)

func main() {
	var (
		opts  options
		only  string
		gen   string
		quick bool
	)
	flag.BoolVar(&quick, "quick", false, "quick mode: fewer pairs and a smaller fleet (well under a minute)")
	flag.IntVar(&opts.Runs, "runs", 0, "timed pairs per comparison (default 15, -quick 3)")
	flag.IntVar(&opts.Warmup, "warmup", -1, "warm-up runs of each command before the pairs (default 3, -quick 1)")
	flag.StringVar(&only, "only", "", "run only the inputs whose name matches this regular expression (e.g. 'hgx-h100$')")
	flag.IntVar(&opts.Functions, "functions", -1, "PCI functions of the generated tree (default 10000, -quick 1000; 0 leaves it out)")
	flag.IntVar(&opts.Fleet, "fleet", -1, "snapshots in the fleet run (default 10000, -quick 1000; 0 leaves it out)")
	flag.IntVar(&opts.Reports, "reports", -1, "nodes' check -o jsonl reports in the fleet-of-reports run (default 100000, -quick 1000; 0 leaves it out)")
	flag.StringVar(&opts.Corpus, "corpus", "", "the corpus folder (default ../shared/corpus beside the repository; a missing one is left out)")
	flag.StringVar(&opts.Gdtopo, "gdtopo", "", "time this gdtopo binary instead of building ./cmd/gdtopo")
	flag.StringVar(&gen, "gen", "", "write the generated tree of -functions functions into this folder and exit")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "bench: unexpected argument %q\n", flag.Arg(0))
		os.Exit(2)
	}
	if gen != "" {
		opts.setDefaults(quick)
		if err := fixtures.Write(gen, fixtures.Scale(opts.Functions, scaleNICs)); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		return
	}
	if only != "" {
		re, err := regexp.Compile(only)
		if err != nil {
			fmt.Fprintf(os.Stderr, "bench: -only %q: %v\n", only, err)
			os.Exit(2)
		}
		opts.Only = re
	}
	opts.setDefaults(quick)
	opts.Log = os.Stderr
	if err := run(opts, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}
