package main

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/gdtopo/gdtopo/fixtures"
)

// scaleNICs is the number of NICs (and half the accelerators) of the
// generated tree: 8 accelerator-NIC pairs, so its size is all in reading.
const scaleNICs = 2

// fleetFixture is the fixture the fleet's snapshots are taken of: an
// 8-GPU, 8-NIC server.
const fleetFixture = "hgx-h100"

// options are one run's settings.
type options struct {
	Runs      int            // timed pairs per comparison
	Warmup    int            // untimed runs of each command first
	Only      *regexp.Regexp // inputs to run, by name; nil runs all
	Functions int            // PCI functions of the generated tree; 0 leaves it out
	Fleet     int            // snapshots in the fleet; 0 leaves it out
	FleetRuns int            // timed fleet runs
	Reports   int            // nodes' reports (check -o jsonl files) in the fleet of reports; 0 leaves it out
	Corpus    string         // corpus folder; "" is ../shared/corpus beside the module
	Gdtopo    string         // binary to time; "" builds ./cmd/gdtopo
	Root      string         // module root; "" finds it from the working directory
	Log       io.Writer      // progress lines; nil for none
	mode      string         // "full" or "quick", for the table's header
}

// setDefaults fills what the flags left unset for the full or quick mode.
func (o *options) setDefaults(quick bool) {
	runs, warmup, functions, fleet, fleetRuns, reports, mode := 15, 3, 10000, 10000, 3, 100000, "full"
	if quick {
		runs, warmup, functions, fleet, fleetRuns, reports, mode = 3, 1, 1000, 1000, 1, 1000, "quick"
	}
	if o.Reports < 0 {
		o.Reports = reports
	}
	if o.Functions < 0 {
		o.Functions = functions
	}
	if o.Runs <= 0 {
		o.Runs = runs
	}
	if o.Warmup < 0 {
		o.Warmup = warmup
	}
	if o.Fleet < 0 {
		o.Fleet = fleet
	}
	if o.FleetRuns <= 0 {
		o.FleetRuns = fleetRuns
	}
	o.mode = mode
}

// bigRuns and bigWarmup are the pairs and warm-up runs on the generated
// tree, where one check takes seconds: a third of the others, at least 3,
// and one warm-up run.
func (o options) bigRuns() int { return min(o.Runs, max(3, o.Runs/3)) }

func (o options) bigWarmup() int { return min(o.Warmup, 1) }

func (o options) logf(format string, args ...any) {
	if o.Log != nil {
		fmt.Fprintf(o.Log, "bench: "+format+"\n", args...)
	}
}

// input is one tree to compare on: a folder holding sys/ (and proc/).
type input struct {
	name string // "fixtures/hgx-h100" (fixtures/hgx-h100.tar.gz unpacked), "corpus hwloc/NAME"
	dir  string
}

// tools are the resolved binaries.
type tools struct {
	gdtopo, lspci, lstopo string
}

func (t tools) check(src string) command {
	return command{path: t.gdtopo, args: []string{"check", src}, ok: []int{0, 3}}
}

func (t tools) tree(src string) command {
	return command{path: t.gdtopo, args: []string{"tree", src}, ok: []int{0}}
}

func (t tools) lspciTree(dir string) command {
	return command{path: t.lspci, args: []string{"-A", "linux-sysfs", "-O", "sysfs.path=" + filepath.Join(dir, "sys", "bus", "pci"), "-tv"}, ok: []int{0}}
}

func (t tools) lstopoInput(src string) command {
	return command{path: t.lstopo, args: []string{"--input", src}, ok: []int{0}}
}

// run measures everything and writes the Markdown tables to out.
func run(o options, out io.Writer) error {
	if o.Root == "" {
		root, err := fixtures.ModuleRoot()
		if err != nil {
			return err
		}
		o.Root = root
	}
	if o.Corpus == "" {
		o.Corpus = filepath.Join(o.Root, "..", "shared", "corpus")
	}
	tmp, err := os.MkdirTemp("", "bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	m := machineNow()
	var t tools
	if t.lspci, err = exec.LookPath("lspci"); err != nil {
		return fmt.Errorf("lspci (pciutils) is needed: %w", err)
	}
	if t.lstopo, err = exec.LookPath("lstopo-no-graphics"); err != nil {
		return fmt.Errorf("lstopo-no-graphics (hwloc) is needed: %w", err)
	}
	if t.gdtopo = o.Gdtopo; t.gdtopo == "" {
		t.gdtopo = filepath.Join(tmp, "gdtopo")
		// Built as the README installs it: the default build.
		o.logf("go build -o %s ./cmd/gdtopo", t.gdtopo)
		build := exec.Command("go", "build", "-o", t.gdtopo, "./cmd/gdtopo")
		build.Dir = o.Root
		if b, err := build.CombinedOutput(); err != nil {
			return fmt.Errorf("go build ./cmd/gdtopo: %w: %s", err, strings.TrimSpace(string(b)))
		}
	}
	m.pciutils = toolVersion(t.lspci, "lspci version ")
	m.hwloc = toolVersion(t.lstopo, "lstopo-no-graphics ")

	inputs, notes, err := findInputs(o, tmp)
	if err != nil {
		return err
	}
	var res results
	res.notes, res.tmp = notes, tmp
	for _, in := range inputs {
		if t.lspciReads(in, &res.notes) {
			res.add(o, checkLspci, in.name, t.check(in.dir), t.lspciTree(in.dir))
			res.add(o, treeLspci, in.name, t.tree(in.dir), t.lspciTree(in.dir))
		}
		res.add(o, checkLstopo, in.name, t.check(in.dir), t.lstopoInput(in.dir))
		xml, err := writeXML(t, in, tmp)
		if err != nil {
			res.comparisons = append(res.comparisons, comparison{workload: xmlLstopo, input: in.name, err: err})
			continue
		}
		res.add(o, xmlLstopo, in.name, t.check(xml), t.lstopoInput(xml))
	}
	if o.Functions > 0 {
		in, err := writeScale(o.Functions, tmp)
		if err != nil {
			return err
		}
		big := o
		big.Runs, big.Warmup = o.bigRuns(), o.bigWarmup()
		res.add(big, bigLspci, in.name, t.check(in.dir), t.lspciTree(in.dir))
		res.add(big, bigLstopo, in.name, t.check(in.dir), t.lstopoInput(in.dir))
	}
	if o.Fleet > 0 {
		f, err := measureFleet(o, t, tmp)
		if err != nil {
			return err
		}
		res.fleet = &f
	}
	if o.Reports > 0 {
		f, err := measureFleetOf(o, t, tmp, true)
		if err != nil {
			return err
		}
		res.reports = &f
	}
	m.loadEnd = loadAverage()
	m.runs, m.warmup, m.mode = o.Runs, o.Warmup, o.mode
	if o.Functions > 0 {
		m.bigRuns, m.bigWarmup = o.bigRuns(), o.bigWarmup()
	}
	if o.Only != nil {
		m.only = o.Only.String()
	}

	doc := render(m, res)
	_, err = io.WriteString(out, doc.summary+"\n"+doc.detail)
	return err
}

// findInputs unpacks the fixtures (fixtures/NAME.tar.gz, named
// "fixtures/NAME"; a NAME with a dot is a file kept beside a fixture) and
// the corpus's archives that hold a PCI tree, keeping those whose names
// match o.Only: lspci and lstopo read folders, so every tool reads the
// unpacked folder. notes say what was left out and why.
func findInputs(o options, tmp string) ([]input, []string, error) {
	var inputs []input
	var notes []string
	keep := func(name string) bool { return o.Only == nil || o.Only.MatchString(name) }
	fixtureArchives, err := filepath.Glob(filepath.Join(o.Root, "fixtures", "*.tar.gz"))
	if err != nil {
		return nil, nil, err
	}
	for _, a := range fixtureArchives {
		base := archiveBase(filepath.Base(a))
		name := "fixtures/" + base
		if strings.Contains(base, ".") || !keep(name) {
			continue
		}
		dest := filepath.Join(tmp, "fixtures", base)
		if err := untar(a, dest); err != nil {
			return nil, nil, err
		}
		if !isDir(filepath.Join(dest, "sys", "bus", "pci")) {
			return nil, nil, fmt.Errorf("%s holds no sys/bus/pci", a)
		}
		inputs = append(inputs, input{name, dest})
	}
	if !isDir(o.Corpus) {
		notes = append(notes, fmt.Sprintf("no corpus at %s: fixtures only", o.Corpus))
		return inputs, notes, nil
	}
	var archives []string
	err = filepath.WalkDir(o.Corpus, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && isArchive(p) {
			archives = append(archives, p)
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	slices.Sort(archives)
	for _, a := range archives {
		rel, _ := filepath.Rel(o.Corpus, a)
		name := "corpus " + archiveBase(filepath.ToSlash(rel))
		if !keep(name) {
			continue
		}
		dest := filepath.Join(tmp, "corpus", archiveBase(filepath.Base(a)))
		if err := untar(a, dest); err != nil {
			return nil, nil, err
		}
		root := pciRoot(dest, 3)
		if root == "" {
			notes = append(notes, fmt.Sprintf("%s: no sys/bus/pci inside, left out", name))
			continue
		}
		inputs = append(inputs, input{name, root})
	}
	return inputs, notes, nil
}

// lspciReads runs lspci -tv on in once, untimed, and reports whether it
// could read it. lspci cannot read every capture: one whose functions
// have neither a vendor file nor a config file (the corpus POWER capture
// nvidiagpunumanodes) stops it. Such an input gets no rows against lspci
// and a note with lspci's own words.
func (t tools) lspciReads(in input, notes *[]string) bool {
	_, err := t.lspciTree(in.dir).run()
	if err == nil {
		return true
	}
	*notes = append(*notes, fmt.Sprintf("%s: no rows against lspci -tv, which cannot read it: %v", in.name, err))
	return false
}

// untar unpacks the archive a into the folder dest with tar(1).
func untar(a, dest string) error {
	if err := os.MkdirAll(dest, 0o755); err != nil {
		return err
	}
	if b, err := exec.Command("tar", "-xf", a, "-C", dest).CombinedOutput(); err != nil {
		return fmt.Errorf("tar -xf %s: %w: %s", a, err, strings.TrimSpace(string(b)))
	}
	return nil
}

func isArchive(p string) bool {
	for _, ext := range []string{".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tar.xz", ".tar.zst"} {
		if strings.HasSuffix(p, ext) {
			return true
		}
	}
	return false
}

// archiveBase is p without its archive extension.
func archiveBase(p string) string {
	for _, ext := range []string{".tar.gz", ".tgz", ".tar.bz2", ".tar.xz", ".tar.zst", ".tar"} {
		if s, ok := strings.CutSuffix(p, ext); ok {
			return s
		}
	}
	return p
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// pciRoot is the folder at most depth levels below dir that holds
// sys/bus/pci, or "".
func pciRoot(dir string, depth int) string {
	if isDir(filepath.Join(dir, "sys", "bus", "pci")) {
		return dir
	}
	if depth == 0 {
		return ""
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if e.IsDir() {
			if r := pciRoot(filepath.Join(dir, e.Name()), depth-1); r != "" {
				return r
			}
		}
	}
	return ""
}

// writeXML writes what `lstopo-no-graphics --of xml --input DIR` prints for
// the input into a file and returns its path.
func writeXML(t tools, in input, tmp string) (string, error) {
	dir := filepath.Join(tmp, "xml")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	p := filepath.Join(dir, strings.NewReplacer("/", "_", " ", "_").Replace(in.name)+".xml")
	b, err := exec.Command(t.lstopo, "--of", "xml", "--input", in.dir).Output()
	if err != nil {
		return "", fmt.Errorf("lstopo-no-graphics --of xml --input %s: %w", in.dir, err)
	}
	return p, os.WriteFile(p, b, 0o644)
}

// writeScale writes the generated tree of about functions PCI functions.
func writeScale(functions int, tmp string) (input, error) {
	m := fixtures.Scale(functions, scaleNICs)
	fns, err := m.Functions()
	if err != nil {
		return input{}, err
	}
	dir := filepath.Join(tmp, "scale")
	if err := fixtures.Write(dir, m); err != nil {
		return input{}, err
	}
	return input{fmt.Sprintf("generated, %s functions", thousands(len(fns))), dir}, nil
}

// machine describes where and when the run happened.
type machine struct {
	date            time.Time
	cpu             string
	cpus            int
	kernel          string
	loadStart       string
	loadEnd         string
	goVersion       string
	pciutils, hwloc string
	runs, warmup    int
	bigRuns         int
	bigWarmup       int
	mode            string
	only            string // the -only expression, if any
}

func machineNow() machine {
	return machine{
		date:      time.Now().UTC(),
		cpu:       cpuModel(),
		cpus:      runtime.NumCPU(),
		kernel:    firstLine("/proc/sys/kernel/osrelease"),
		loadStart: loadAverage(),
		goVersion: runtime.Version(),
	}
}

// cpuModel is /proc/cpuinfo's first "model name", or "unknown CPU".
func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown CPU"
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown CPU"
}

// loadAverage is the 1-minute load average from /proc/loadavg.
func loadAverage() string {
	f := strings.Fields(firstLine("/proc/loadavg"))
	if len(f) == 0 {
		return "?"
	}
	return f[0]
}

func firstLine(p string) string {
	b, err := os.ReadFile(p)
	if err != nil {
		return "?"
	}
	l, _, _ := strings.Cut(string(b), "\n")
	return strings.TrimSpace(l)
}

// toolVersion runs the tool with --version and returns what follows prefix
// on its first line.
func toolVersion(path, prefix string) string {
	b, err := exec.Command(path, "--version").CombinedOutput()
	if err != nil {
		return "?"
	}
	l, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	return strings.TrimPrefix(l, prefix)
}
