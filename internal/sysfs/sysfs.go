// Package sysfs reads a Linux sysfs tree, with the /proc files beside it,
// into a topology.Graph: the live machine's or a capture's, as
// internal/source opens them. The other sources have readers of their own
// (internal/lspcidump, internal/ncclxml, internal/hwloc).
package sysfs

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/bits"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/gdtopo/gdtopo/internal/pciconfig"
	"github.com/gdtopo/gdtopo/internal/words"
	"github.com/gdtopo/gdtopo/topology"
)

// Read reads the PCI hierarchy, RDMA and network names, NUMA nodes and
// CPUs from a sysfs tree. fsys is rooted where sys/ (and proc/) live: "/" for
// the running machine, or a capture. Problems with single files or devices
// become warnings (a function that vanishes while being read, hot-unplugged
// or deleted from a capture, is left out with one); only a tree with no PCI
// devices, or whose PCI index vanished while being read, is an error. It
// reads on the calling goroutine; ReadOn reads on several.
func Read(fsys fs.FS) (*topology.Graph, error) {
	return ReadOn(fsys, 1)
}

// ReadLiveOn is ReadOn for the running machine's own tree: a folder it
// lacks (sys/class/iommu, sys/module, sys/class/infiniband) is one the
// kernel did not make, not one a capture left out.
func ReadLiveOn(fsys fs.FS, workers int) (*topology.Graph, error) {
	return readOn(fsys, workers, true)
}

// functionsPerWorker is the fewest PCI functions a goroutine of
// ReadOn is started for: on a smaller tree, starting goroutines costs
// more than reading on them saves.
const functionsPerWorker = 16

// ReadOn is Read on at most workers goroutines, for a tree of at
// least two runs of functionsPerWorker functions: the PCI functions'
// folders in equal runs of the index, and beside them the system (NUMA
// nodes, CPUs) and the RDMA and network classes. A smaller tree, or
// workers 1, is read on the calling goroutine, as each worker of a fleet
// reads its sources. The graph, its warnings and their order included, is
// the same for any number: each goroutine keeps what it read apart, and
// the parts are joined in the order one goroutine reads them. With more
// than one, fsys must allow reads from several goroutines at once, as
// internal/source's trees and fstest.MapFS do.
func ReadOn(fsys fs.FS, workers int) (*topology.Graph, error) {
	return readOn(fsys, workers, false)
}

// readOn is ReadOn, told whether fsys is the running machine's tree.
func readOn(fsys fs.FS, workers int, live bool) (*topology.Graph, error) {
	r := &reader{fsys: fsys, g: &topology.Graph{}, missing: map[string][]string{}}
	index := r.folder(pathPCIDevices)
	defer closeFolder(index)
	entries, err := fs.ReadDir(index, ".")
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w: %s is missing (a capture without PCI data?)", topology.ErrNoPCI, pathPCIDevices)
		}
		return nil, fmt.Errorf("read %s: %w", pathPCIDevices, err)
	}
	if len(entries) > topology.MaxFunctions {
		return nil, fmt.Errorf("%s lists %d functions: %w", pathPCIDevices, len(entries), topology.ErrTooManyFunctions)
	}
	// The system (NUMA nodes, CPUs) and the RDMA and network classes' links
	// are read by readers of their own, beside the functions when they are
	// read in runs, and joined where one goroutine has them: the system's
	// warnings first, the classes' after the links between functions.
	sys, classes := r.part(), r.part()
	var links classLinks
	var wg sync.WaitGroup
	runs := max(1, min(workers, len(entries)/functionsPerWorker))
	alongside := func(read func()) {
		if runs > 1 {
			wg.Go(read)
		} else {
			read()
		}
	}
	alongside(sys.readSystem)
	alongside(func() { links = classes.readClassLinks() })
	if runs == 1 {
		r.readFunctions(index, entries)
	} else {
		r.readFunctionsOn(index, entries, runs)
	}
	wg.Wait()
	r.g.System, r.g.Platform = sys.g.System, sys.g.Platform
	r.g.Warnings = append(sys.g.Warnings, r.g.Warnings...)
	dirs, listed := make(map[topology.BDF]string, len(r.found)), make(map[topology.BDF]string, len(r.found))
	for _, f := range r.found {
		dirs[f.d.Addr], listed[f.d.Addr] = f.dir, f.name
		r.g.Devices = append(r.g.Devices, f.d)
		if d := f.d; d.RawNUMANode < 0 {
			// As hwloc does: local CPUs that all lie in one node place the
			// device there. With numa_node -1 the kernel lists every CPU,
			// so this never guesses on a multi-node machine.
			if n := r.g.System.NodeOfCPUs(d.LocalCPUs); n >= 0 {
				d.NUMANode, d.NUMAFrom = n, topology.NUMAFromLocalCPUs
			}
		}
	}
	if len(r.g.Devices) == 0 {
		if len(r.denied) > 0 {
			return nil, fmt.Errorf("%w: this user may not read the folders of the %d functions in %s (permission denied: run as root)", topology.ErrNoPCI, len(r.denied), pathPCIDevices)
		}
		if r.gone > 0 {
			if err := r.recheck(listed); err != nil {
				return nil, err
			}
			return nil, fmt.Errorf("%w: the folders of the %d functions in %s are gone (they vanished while being read, or are missing from the capture)", topology.ErrNoPCI, r.gone, pathPCIDevices)
		}
		return nil, fmt.Errorf("%w: %s is empty", topology.ErrNoPCI, pathPCIDevices)
	}
	sort.Slice(r.g.Devices, func(i, j int) bool { return r.g.Devices[i].Addr.Less(r.g.Devices[j].Addr) })
	r.link(dirs)
	r.g.Warnings = append(r.g.Warnings, classes.g.Warnings...)
	r.g.System.RDMAListed = links.rdmaListed
	for _, l := range links.rdma {
		if d := r.g.Device(l.addr); d != nil {
			d.RDMA = append(d.RDMA, l.name)
			d.PortRateGbps = max(d.PortRateGbps, l.rateGbps)
			d.Ports = append(d.Ports, l.ports...)
		}
	}
	for _, l := range links.net {
		if d := r.g.Device(l.addr); d != nil {
			d.Netdevs = append(d.Netdevs, l.name)
			if d.PortRateGbps == 0 {
				if mbps, err := r.int(path.Join(pathNet, l.name, "speed")); err == nil && mbps > 0 {
					d.PortRateGbps = float64(mbps) / 1000
				}
			}
		}
	}
	r.deniedWarning()
	r.readIOMMUGroupTypes()
	r.readExtras(dirs)
	r.readLAGs()
	r.readAER(dirs)
	if err := r.recheck(listed); err != nil {
		return nil, err
	}
	r.summarize()
	if !live && !r.completeSnapshot() {
		r.uncaptured()
	}
	return r.g, nil
}

// completeSnapshot reports whether the tree is a gdtopo snapshot of a
// running machine (its manifest's source "/"): it kept every folder that
// was there, so one it lacks was absent on the machine.
func (r *reader) completeSnapshot() bool {
	b, err := r.readSmall(ManifestName)
	if err != nil {
		return false
	}
	var m struct {
		Source string `json:"source"`
	}
	return json.Unmarshal(b, &m) == nil && m.Source == "/"
}

// uncaptured adds to Lacks the evidence a capture did not take that the
// analysis then assumes: on the running machine, or in a complete
// snapshot, the same absence means there is none.
func (r *reader) uncaptured() {
	g, p := r.g, &r.g.Platform
	if !p.IOMMUClassRead && len(p.IOMMUGroupTypes) == 0 {
		g.Lacks = append(g.Lacks, "IOMMU state (no "+pathIOMMU+" or "+pathIOMMUGroup+" captured: taken as passthrough)")
	}
	nvidiaGPU, nic, rdma := false, false, false
	for _, d := range g.Devices {
		nvidiaGPU = nvidiaGPU || d.Kind == topology.KindAccelerator && d.VendorID == topology.VendorNVIDIA
		nic = nic || d.Kind == topology.KindNIC
		rdma = rdma || len(d.RDMA) > 0
	}
	if nic && !rdma && !g.System.RDMAListed {
		g.Lacks = append(g.Lacks, "RDMA devices (no "+pathInfiniband+" captured: NICs' RDMA told by their model)")
	}
	if nvidiaGPU && nic && !p.ModulesRead && len(p.PeerMemory) == 0 {
		g.Lacks = append(g.Lacks, "peer-memory modules (no "+pathModules+" captured: GPUDirect RDMA's peer memory unknown)")
	}
}

// readFunctions reads the functions of the PCI index's entries, found
// through index, the index's folder, into r.found.
func (r *reader) readFunctions(index fs.FS, entries []fs.DirEntry) {
	// The functions' Devices are allocated together, one slab for the
	// tree: the graph holds every one of them, so the slab lives as long
	// as the graph does and no longer.
	r.slab = make([]topology.Device, 0, len(entries))
	r.found = make([]foundFunction, 0, len(entries))
	for _, e := range entries {
		addr, err := topology.ParseBDF(e.Name())
		if err != nil {
			r.warn(path.Join(pathPCIDevices, e.Name()), "not a PCI address: skipped")
			continue
		}
		dir, err := r.resolveIn(index, path.Join(pathPCIDevices, e.Name()))
		if errors.Is(err, fs.ErrNotExist) { // listed a moment ago
			r.vanished(addr.String())
			continue
		}
		if err != nil {
			r.warn(path.Join(pathPCIDevices, e.Name()), err.Error())
			continue
		}
		if d := r.readDevice(addr, dir); d != nil {
			r.found = append(r.found, foundFunction{d: d, dir: dir, name: e.Name()})
		}
	}
}

// part returns a reader for one part of the tree, read on a goroutine of
// its own and joined into r after: the same tree, its own state.
func (r *reader) part() *reader {
	return &reader{fsys: r.fsys, g: &topology.Graph{}, missing: map[string][]string{}}
}

// readFunctionsOn is readFunctions on runs goroutines, the calling one
// included, each reading an equal run of entries through a reader of its
// own (and an index folder of its own: a folder is read by one goroutine
// at a time); what they read is then joined into r in the entries' order.
func (r *reader) readFunctionsOn(index fs.FS, entries []fs.DirEntry, runs int) {
	run := func(i int) []fs.DirEntry { return entries[i*len(entries)/runs : (i+1)*len(entries)/runs] }
	parts := make([]*reader, runs)
	for i := range parts {
		parts[i] = r.part()
	}
	var wg sync.WaitGroup
	for i := 1; i < runs; i++ {
		wg.Go(func() {
			own := parts[i].folder(pathPCIDevices)
			defer closeFolder(own)
			parts[i].readFunctions(own, run(i))
		})
	}
	parts[0].readFunctions(index, run(0)) // on this goroutine, through index
	wg.Wait()
	for _, p := range parts {
		r.join(p)
	}
}

// join adds what reader p read of the PCI functions to r's, after r's own.
func (r *reader) join(p *reader) {
	r.found = append(r.found, p.found...)
	r.g.Warnings = append(r.g.Warnings, p.g.Warnings...)
	for file, devs := range p.missing {
		r.missing[file] = append(r.missing[file], devs...)
	}
	r.short = append(r.short, p.short...)
	r.looped = append(r.looped, p.looped...)
	r.linkExpected += p.linkExpected
	r.failed += p.failed
	r.gone += p.gone
	r.denied = append(r.denied, p.denied...)
}

// foundFunction is a PCI function read from its folder dir, listed in the
// PCI index as name.
type foundFunction struct {
	d         *topology.Device
	dir, name string
}

// vanished warns that the function bdf, listed in sys/bus/pci/devices, has
// no folder (any more): it went away while being read, unplugged from a live
// machine or deleted from a capture, or a broken capture lacks it. It is left
// out rather than shown with what little was read.
func (r *reader) vanished(bdf string) {
	r.gone++
	r.warn(bdf, "its folder is gone (hot-unplugged or deleted while being read, or missing from the capture): left out")
}

// recheck looks at the PCI index again once everything is read. An index
// that is gone now (a capture deleted, /sys unmounted) is an error: what was
// read may be incomplete anywhere. An accelerator or NIC that is gone now
// was unplugged after its folder was read, and its RDMA and network names,
// read later, may be missing: it is kept, with a warning. Other functions
// were read whole (readDevice catches one that vanished on the way).
// listed holds each function's name in the index.
func (r *reader) recheck(listed map[topology.BDF]string) error {
	if _, err := fs.Stat(r.fsys, pathPCIDevices); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s vanished while being read (was the capture deleted?): run again on a stable copy", pathPCIDevices)
	}
	for _, d := range r.g.Devices {
		if d.Kind != topology.KindAccelerator && d.Kind != topology.KindNIC {
			continue
		}
		if _, err := fs.Lstat(r.fsys, path.Join(pathPCIDevices, listed[d.Addr])); errors.Is(err, fs.ErrNotExist) {
			r.warn(d.BDF(), "vanished while being read (hot-unplugged?): shown as it was, its RDMA and network names perhaps missing")
		}
	}
	return nil
}

// reader carries one Read call's state.
type reader struct {
	fsys    fs.FS
	g       *topology.Graph
	missing map[string][]string // attribute file -> devices lacking it
	short   []string            // devices whose config stopped at 64 bytes
	looped  []string            // devices whose capability lists loop
	scratch []byte              // readSmall's and readConfigBytes' buffer (scratchBuf)
	slab    []topology.Device   // where readFunction's Devices are allocated
	found   []foundFunction     // the functions read (readFunctions)
	parts   []string            // splitPath's elements, reused
	// linkExpected counts the functions that should have a PCIe link.
	linkExpected int
	// failed counts the reads of attribute files that failed, gone the
	// functions that vanished while being read.
	failed, gone int
	// denied are the functions whose folders could not be read for want
	// of permission (readDevice).
	denied []string
}

func (r *reader) warn(subject, msg string) {
	r.g.Warnings = append(r.g.Warnings, topology.Warning{Subject: subject, Message: msg})
}

// folderOpener is a tree that opens a folder once for reading the files in
// it by name relative to it (openat), as internal/source's captured and
// live trees do: a path walk per folder instead of one per file. The
// folder it returns reads single names, names its errors as the tree
// would, and is closed with Close.
type folderOpener interface {
	OpenFolder(dir string) (fs.FS, error)
}

// folder returns folder dir of the tree for reading the files in it by
// name: opened once where the tree can (folderOpener), else read by joined
// names. Errors are the files' own: a folder that cannot be opened reads as
// one whose files fail. Close it with closeFolder.
func (r *reader) folder(dir string) fs.FS {
	if o, ok := r.fsys.(folderOpener); ok {
		if f, err := o.OpenFolder(dir); err == nil {
			return f
		}
	}
	return joinedFS{r.fsys, dir}
}

// lister is a folder that knows its names from one listing, as
// internal/source's folders of captured and live trees and of archives
// do: Absent reports, without a system call, that name is not in it. A
// folder without one is asked name by name.
type lister interface {
	Absent(name string) bool
}

// absent reports whether folder's listing shows that name is not in it.
func absent(folder fs.FS, name string) bool {
	l, ok := folder.(lister)
	return ok && l.Absent(name)
}

// closeFolder releases a folder from reader.folder.
func closeFolder(f fs.FS) {
	if c, ok := f.(io.Closer); ok {
		_ = c.Close()
	}
}

// joinedFS reads the names in folder dir of fsys by joined paths.
type joinedFS struct {
	fsys fs.FS
	dir  string
}

func (j joinedFS) Open(name string) (fs.File, error) { return j.fsys.Open(path.Join(j.dir, name)) }

func (j joinedFS) ReadLink(name string) (string, error) {
	return fs.ReadLink(j.fsys, path.Join(j.dir, name))
}

func (j joinedFS) Lstat(name string) (fs.FileInfo, error) {
	return fs.Lstat(j.fsys, path.Join(j.dir, name))
}

// read returns a file's contents, at most limit bytes, in a new slice.
func (r *reader) read(name string, limit int64) ([]byte, error) {
	f, err := r.fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// Started at 32 KiB, not io.ReadAll's 512 bytes: a /proc/cpuinfo of a
	// few dozen CPUs fits in one buffer instead of seven grown ones.
	b := make([]byte, 0, min(limit+1, 32<<10))
	for int64(len(b)) <= limit {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := f.Read(b[len(b):min(int64(cap(b)), limit+1)])
		b = b[:len(b)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if int64(len(b)) > limit {
		return b[:limit], fmt.Errorf("over %d bytes", limit)
	}
	return b, nil
}

// readSmall reads a file of at most maxConfigBytes into the reader's
// scratch buffer, which the next call overwrites. Thousands of attribute
// files per tree make a fresh buffer each a large share of gdtopo's run.
func (r *reader) readSmall(name string) ([]byte, error) {
	return r.readSmallIn(r.fsys, name)
}

// readSmallIn is readSmall of name in fsys (the tree or one folder of it).
func (r *reader) readSmallIn(fsys fs.FS, name string) ([]byte, error) {
	if absent(fsys, name) {
		// Every caller that reads through a folder takes a missing file
		// as data and never shows the error, so none is made per file.
		r.failed++
		return nil, fs.ErrNotExist
	}
	if sr, ok := fsys.(smallReader); ok {
		n, err := sr.ReadSmall(name, r.scratchBuf())
		return r.small(n, err)
	}
	f, err := fsys.Open(name)
	if err != nil {
		return r.small(0, err)
	}
	defer f.Close()
	n, err := io.ReadFull(f, r.scratchBuf())
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		err = nil // its end before the buffer is full
	}
	return r.small(n, err)
}

// scratchBuf is the reader's scratch buffer, made on first use: one
// byte more than any config space, so a longer file shows.
func (r *reader) scratchBuf() []byte {
	if r.scratch == nil {
		r.scratch = make([]byte, maxConfigBytes+1)
	}
	return r.scratch
}

// smallReader is a folder that reads a small file into its caller's
// buffer (until its end or the buffer is full) without a file value made
// for it, as internal/source's folders of captured and live trees do.
type smallReader interface {
	ReadSmall(name string, buf []byte) (int, error)
}

// small is readSmallIn's answer for n bytes read into the scratch buffer,
// with the error that stopped the read (counted as a failed read).
func (r *reader) small(n int, err error) ([]byte, error) {
	if err != nil {
		r.failed++
		return nil, err
	}
	if n > maxConfigBytes {
		return r.scratch[:maxConfigBytes], fmt.Errorf("over %d bytes", maxConfigBytes)
	}
	return r.scratch[:n], nil
}

// text reads a small attribute file and trims it.
func (r *reader) text(name string) (string, error) {
	return r.textIn(r.fsys, name)
}

// textIn is text of name in fsys (the tree or one folder of it).
func (r *reader) textIn(fsys fs.FS, name string) (string, error) {
	b, err := r.readSmallIn(fsys, name)
	return strings.TrimSpace(string(b)), err
}

func (r *reader) int(name string) (int, error) {
	s, err := r.text(name)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(s)
}

// resolve follows the symbolic link at name once and returns the cleaned
// path it points to inside the tree.
func (r *reader) resolve(name string) (string, error) {
	return r.resolveIn(nil, name)
}

// resolveIn is resolve with the link read through folder, the tree's
// folder that holds name, when it is not nil.
func (r *reader) resolveIn(folder fs.FS, name string) (string, error) {
	var target string
	var err error
	if folder != nil {
		target, err = fs.ReadLink(folder, path.Base(name))
	} else {
		target, err = fs.ReadLink(r.fsys, name)
	}
	if err != nil {
		var pe *fs.PathError
		if fi, serr := fs.Stat(r.fsys, name); serr == nil && fi.IsDir() && errors.As(err, &pe) {
			return name, nil // old kernels and some captures keep real folders here
		}
		return "", fmt.Errorf("read link: %w", err)
	}
	if strings.HasPrefix(target, "/") {
		target = strings.TrimPrefix(target, "/") // an absolute /sys link of the live tree
	} else {
		target = joinLink(path.Dir(name), target)
	}
	if target == ".." || strings.HasPrefix(target, "../") {
		return "", fmt.Errorf("link points outside the tree: %s", target)
	}
	return target, nil
}

// joinLink is path.Join(dir, target) for a relative link target in
// folder dir, made as one string where both are clean and the target only
// climbs ("../../devices/..."), as sysfs links do; path.Join otherwise.
func joinLink(dir, target string) string {
	d, t := dir, target
	for strings.HasPrefix(t, "../") && d != "" && d != "." {
		i := strings.LastIndexByte(d, '/')
		if i < 0 {
			d = ""
		} else {
			d = d[:i]
		}
		t = t[3:]
	}
	if d == "" || d == "." || !cleanRel(dir) || !cleanRel(t) {
		return path.Join(dir, target)
	}
	return d + "/" + t
}

// cleanRel reports whether s is a relative path that path.Clean leaves
// as it is and that has no "." or ".." element.
func cleanRel(s string) bool {
	if s == "" || s[0] == '/' {
		return false
	}
	for s != "" {
		elem, rest, found := strings.Cut(s, "/")
		if elem == "" || elem == "." || elem == ".." || found && rest == "" {
			return false
		}
		s = rest
	}
	return true
}

// hexAttr parses a "0x10de" style attribute.
func parseHex(s string, bits int) (uint64, error) {
	return strconv.ParseUint(strings.TrimPrefix(strings.TrimSpace(s), "0x"), 16, bits)
}

// readDevice reads one function's attribute files from its folder dir. It
// returns nil, with a warning and nothing else recorded, when the folder went
// away while being read.
func (r *reader) readDevice(addr topology.BDF, dir string) *topology.Device {
	failed, warnings, short, looped, linkExpected := r.failed, len(r.g.Warnings), len(r.short), len(r.looped), r.linkExpected
	d := r.readFunction(addr, dir)
	if r.failed == failed {
		return d
	}
	_, err := fs.Stat(r.fsys, dir)
	if err == nil {
		_, err = fs.ReadDir(r.fsys, dir)
	}
	denied := errors.Is(err, fs.ErrPermission)
	if !denied && !errors.Is(err, fs.ErrNotExist) {
		return d // files missing from a complete folder: a capture's gaps
	}
	bdf := d.BDF()
	// Undo what was recorded of it: its warnings, short config, missing files.
	r.g.Warnings, r.short, r.looped, r.linkExpected = r.g.Warnings[:warnings], r.short[:short], r.looped[:looped], linkExpected
	for file, devs := range r.missing {
		if n := len(devs); n > 0 && devs[n-1] == bdf {
			if n == 1 {
				delete(r.missing, file)
			} else {
				r.missing[file] = devs[:n-1]
			}
		}
	}
	if denied {
		// A folder this user may not read (a capture's subtree owned by
		// root, as nobody): the function is there, unread. It is left out
		// and the source is partial, never read as a machine without it.
		r.denied = append(r.denied, bdf)
		return nil
	}
	r.vanished(bdf)
	return nil
}

// deniedWarning makes the source partial for the functions whose folders
// could not be read for want of permission: one warning naming a few, and
// Partial, which the verdict line and fleet's comparison show.
func (r *reader) deniedWarning() {
	if len(r.denied) == 0 {
		return
	}
	sort.Strings(r.denied)
	why := fmt.Sprintf("%d functions whose folders this user may not read (permission denied: run as root, or make the capture readable)", len(r.denied))
	r.warn(pathPCIDevices, fmt.Sprintf("%s: left out, not absent: %s", why, words.Examples(r.denied, 5)))
	if r.g.Partial == "" {
		r.g.Partial = why
	}
}

// newDevice returns a zero Device from the reader's slab, or a new one
// when the slab is full.
func (r *reader) newDevice() *topology.Device {
	if len(r.slab) == cap(r.slab) {
		return &topology.Device{}
	}
	r.slab = r.slab[:len(r.slab)+1]
	return &r.slab[len(r.slab)-1]
}

// readFunction reads one function's attribute files from its folder dir.
func (r *reader) readFunction(addr topology.BDF, dir string) *topology.Device {
	d := r.newDevice()
	topology.InitDevice(d, addr)
	bdf := d.BDF()
	f := r.folder(dir)
	defer closeFolder(f)
	// attrWhy reads file, or says in a few words why it could not.
	attrWhy := func(file string) (s, why string) {
		s, err := r.textIn(f, file)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if trackedFiles[file] {
				r.missing[file] = append(r.missing[file], bdf)
			}
			return "", "missing"
		case err != nil:
			r.warn(bdf+"/"+file, err.Error())
			var pe *fs.PathError
			if errors.As(err, &pe) {
				return "", pe.Err.Error()
			}
			return "", err.Error()
		}
		return s, ""
	}
	attr := func(file string) (string, bool) {
		s, why := attrWhy(file)
		return s, why == ""
	}
	hexField := func(file string, bits int) (uint64, bool) {
		s, ok := attr(file)
		if !ok {
			return 0, false
		}
		v, err := parseHex(s, bits)
		if err != nil {
			r.warn(bdf+"/"+file, fmt.Sprintf("invalid value %q", s))
			return 0, false
		}
		return v, true
	}

	// The config header (the first 64 bytes, readable without root) holds
	// the IDs and class the kernel's attribute files are made from, so a
	// readable config saves six file reads per function. SR-IOV virtual
	// functions read vendor 0xffff there and fall back to the files.
	cfg := r.readConfig(d, f)
	idsKnown, classKnown := false, false
	if cfg != nil {
		d.VendorID, d.DeviceID, d.Class, idsKnown, classKnown = cfg.VendorID, cfg.DeviceID, cfg.Class, true, true
		if cfg.SubsystemKnown { // header type 0, or a bridge's SSVID capability
			d.SubVendorID, d.SubDeviceID, d.SubsystemKnown = cfg.SubsystemVendor, cfg.SubsystemDevice, true
		}
	} else if r.idsFromModalias(d, f) {
		idsKnown, classKnown = true, true
	} else {
		if v, ok := hexField("vendor", 16); ok {
			d.VendorID, idsKnown = uint16(v), true
		}
		if v, ok := hexField("device", 16); ok {
			d.DeviceID = uint16(v)
		}
		if v, ok := hexField("class", 24); ok {
			d.Class, classKnown = uint32(v), true
		}
	}
	// Bridges keep subsystem IDs in a capability, which unprivileged config
	// (64 bytes) does not reach; the files have them. Only Broadcom switches
	// need them (NCCL's flattening), so only those, or any function whose
	// config could not be read, pay for the two reads.
	if !d.SubsystemKnown && (cfg == nil || d.VendorID == topology.VendorBroadcom) {
		sv, ok1 := hexField("subsystem_vendor", 16)
		sd, ok2 := hexField("subsystem_device", 16)
		if ok1 && ok2 {
			d.SubVendorID, d.SubDeviceID, d.SubsystemKnown = uint16(sv), uint16(sd), true
		}
	}
	if !idsKnown || !classKnown || !d.SubsystemKnown && cfg == nil {
		r.fromModalias(d, f, !idsKnown, !classKnown)
	}
	d.Kind = topology.KindOf(d.Class, d.VendorID, d.DeviceID)
	// Links before numa_node, which is always read: a link missing because
	// the folder vanished then shows as a failed read too (see readDevice).
	d.Driver = linkBase(f, "driver")
	d.IOMMUGroup = linkBase(f, "iommu_group")
	if cfg == nil { // a virtual function's config reads vendor 0xffff, so only these can be one
		d.SetPhysFn(linkBase(f, "physfn"))
	}

	// RawNUMANode stays -1 when the file is not read; NUMANodeUnread then
	// says why, so no one reports -1 as the kernel's answer.
	if s, why := attrWhy("numa_node"); why != "" {
		d.SetNUMANodeUnread(why)
	} else if n, err := strconv.Atoi(s); err == nil && n >= -1 && n < 1<<16 {
		d.RawNUMANode = n
	} else {
		d.SetNUMANodeUnread(fmt.Sprintf("invalid value %q", s))
		r.warn(bdf+"/numa_node", d.NUMANodeUnread())
	}
	// Local CPUs matter for the endpoints gdtopo reports, and for placing a
	// function whose numa_node says nothing.
	if d.Kind == topology.KindAccelerator || d.Kind == topology.KindNIC || d.RawNUMANode < 0 {
		if s, ok := attr("local_cpulist"); ok {
			d.LocalCPUs = s
		} else if s, err := r.textIn(f, "local_cpus"); err == nil {
			d.LocalCPUs = maskToList(s)
		}
	}
	if d.RawNUMANode >= 0 { // else placed by its CPUs once the system is read (ReadOn)
		d.NUMANode, d.NUMAFrom = d.RawNUMANode, topology.NUMAFromFile
	}
	d.Link = r.readLink(d, attr, cfg)
	if d.Kind == topology.KindAccelerator {
		d.BARs = r.readBARs(d, f)
	}
	// Only PCI Express functions have links: count the unknown ones among
	// those that should have one.
	pcie := cfg != nil && cfg.Express != nil && cfg.Express.LinkKnown
	if pcie || (cfg == nil || !cfg.CapsReadable) && (d.Kind == topology.KindAccelerator || d.Kind == topology.KindNIC || d.Kind == topology.KindBridge) {
		r.linkExpected++
		if !d.Link.Known() {
			r.missing[linkFiles] = append(r.missing[linkFiles], bdf)
		}
	}
	return d
}

// Resource flag bits (include/linux/ioport.h) used to read BARs.
const (
	resourceMem      = 0x200
	resourcePrefetch = 0x2000
	resourceMem64    = 0x100000
)

// readBARs reads the memory regions of the resource file in the function's
// folder: one "start end flags" line per BAR, then the ROM
// (the kernel's resource_show, drivers/pci/pci-sysfs.c).
func (r *reader) readBARs(d *topology.Device, folder fs.FS) []topology.BAR {
	s, err := r.textIn(folder, "resource")
	if err != nil {
		return nil
	}
	var bars []topology.BAR
	for i, line := range strings.Split(s, "\n") {
		if i > 6 {
			break // SR-IOV and bridge windows follow
		}
		start, end, flags, ok := resourceLine(line)
		if !ok {
			r.warn(d.BDF()+"/resource", fmt.Sprintf("line %d: invalid value %q", i+1, line))
			return bars
		}
		if flags&resourceMem == 0 || end <= start {
			continue
		}
		bars = append(bars, topology.BAR{Index: i, Size: end - start + 1, Prefetchable: flags&resourcePrefetch != 0, Is64: flags&resourceMem64 != 0})
	}
	return bars
}

// resourceLine parses one "0xSTART 0xEND 0xFLAGS" line of a resource file
// (more fields may follow; drivers/pci/pci-sysfs.c, resource_show).
func resourceLine(line string) (start, end, flags uint64, ok bool) {
	f := strings.Fields(line)
	if len(f) < 3 {
		return 0, 0, 0, false
	}
	var v [3]uint64
	for i := range v {
		hex, found := strings.CutPrefix(f[i], "0x")
		n, err := strconv.ParseUint(hex, 16, 64)
		if !found || err != nil {
			return 0, 0, 0, false
		}
		v[i] = n
	}
	return v[0], v[1], v[2], true
}

// pieceOpener is a folder of the live sysfs, whose files can be read at
// offsets, as internal/source's live folders do: OpenPieces gives the file
// and its size, or errors.ErrUnsupported where reading it whole is cheaper.
type pieceOpener interface {
	OpenPieces(name string) (readerAtCloser, int64, error)
}

// readerAtCloser is a file read at offsets (an alias: internal/source's
// method spells the same type).
type readerAtCloser = interface {
	io.ReaderAt
	io.Closer
}

// readConfigBytes reads the config file in folder: on the live sysfs only
// the bytes pciconfig decodes (each 4 bytes read there is a configuration
// read on the bus), elsewhere whole. Errors are readSmallIn's.
func (r *reader) readConfigBytes(folder fs.FS) ([]byte, error) {
	if po, ok := folder.(pieceOpener); ok && !absent(folder, "config") {
		if f, size, err := po.OpenPieces("config"); err == nil {
			defer f.Close()
			b, err := pciconfig.ReadSparse(f, r.scratchBuf(), size)
			if err != nil {
				r.failed++
			}
			return b, err
		}
	}
	return r.readSmallIn(folder, "config")
}

// readConfig decodes the config file in the function's folder and records
// what it shows; nil when absent or unreadable.
func (r *reader) readConfig(d *topology.Device, folder fs.FS) *pciconfig.Config {
	b, err := r.readConfigBytes(folder)
	if errors.Is(err, fs.ErrNotExist) {
		r.missing["config"] = append(r.missing["config"], d.BDF())
		return nil
	}
	if err != nil && len(b) < maxConfigBytes {
		r.warn(d.BDF()+"/config", err.Error())
		return nil
	}
	if err != nil { // longer than any config space: use what a config space holds
		r.warn(d.BDF()+"/config", err.Error()+"; the first 4096 used")
	}
	cfg, err := pciconfig.Parse(b)
	if err != nil {
		r.warn(d.BDF()+"/config", err.Error())
		return nil
	}
	d.ConfigLen = cfg.Len
	switch {
	case cfg.CapsLooped || cfg.ExtLooped:
		r.looped = append(r.looped, d.BDF())
		r.warn(d.BDF()+"/config", pciconfig.LoopWarning(cfg))
	case !cfg.CapsReadable:
		r.short = append(r.short, d.BDF())
	}
	if x := cfg.Express; x != nil {
		d.Role, d.RoleFrom = topology.RoleOfPort(x.PortType), topology.RoleFromConfig
		d.MaxPayload, d.MaxReadRequest, d.RelaxedOrdering, d.DevCtlKnown = x.MaxPayload, x.MaxReadRequest, x.RelaxedOrdering, true
	} else if cfg.CapsReadable && cfg.HeaderType == 1 {
		d.Role, d.RoleFrom = topology.RolePCIBridge, topology.RoleFromConfig // a conventional PCI bridge
	}
	if cfg.ACS != nil {
		d.ACSKnown, d.ACSRedirect = true, cfg.ACS.Redirects()
		d.HasACS, d.ACSCtl = true, cfg.ACS.Ctl
	} else if cfg.ExtReadable || cfg.CapsReadable && cfg.Express == nil {
		d.ACSKnown = true // read and absent, or a conventional PCI function, which has none
	}
	return &cfg
}

// fromModalias fills IDs or class from modalias
// ("pci:v000010DEd00002330sv000010DEsd000016C1bc03sc02i00"), which ghw
// snapshots keep when other files are missing.
func (r *reader) fromModalias(d *topology.Device, folder fs.FS, ids, class bool) {
	s, err := r.textIn(folder, "modalias")
	if err != nil {
		return
	}
	m, ok := parseModalias(s)
	if !ok {
		r.warn(d.BDF()+"/modalias", fmt.Sprintf("invalid value %q", s))
		return
	}
	if ids {
		d.VendorID, d.DeviceID = m.vendor, m.device
	}
	if !d.SubsystemKnown {
		d.SubVendorID, d.SubDeviceID, d.SubsystemKnown = m.subVendor, m.subDevice, true
	}
	if class {
		d.Class = m.class
	}
}

// idsFromModalias takes a function's IDs, subsystem IDs and class from its
// modalias file alone, which the kernel writes from the same fields as the
// vendor, device, subsystem_vendor, subsystem_device and class files
// (drivers/pci/pci-sysfs.c, modalias_show): one file read instead of five,
// for a function whose config could not be read. It reports false, and
// sets nothing, when modalias is missing or does not parse; the files are
// then read one by one (and modalias again for what they lack, with a
// warning if it is invalid).
func (r *reader) idsFromModalias(d *topology.Device, folder fs.FS) bool {
	s, err := r.textIn(folder, "modalias")
	if err != nil {
		return false
	}
	m, ok := parseModalias(s)
	if !ok {
		return false
	}
	d.VendorID, d.DeviceID, d.Class = m.vendor, m.device, m.class
	d.SubVendorID, d.SubDeviceID, d.SubsystemKnown = m.subVendor, m.subDevice, true
	return true
}

// modalias is what a PCI function's modalias file holds.
type modalias struct {
	vendor, device, subVendor, subDevice uint16
	class                                uint32
}

// parseModalias parses a PCI modalias, "pci:v%08Xd%08Xsv%08Xsd%08Xbc%02Xsc%02Xi%02X".
func parseModalias(s string) (modalias, bool) {
	var v, dv, sv, sd uint32
	var bc, sc, pi uint8
	if _, err := fmt.Sscanf(s, "pci:v%08Xd%08Xsv%08Xsd%08Xbc%02Xsc%02Xi%02X", &v, &dv, &sv, &sd, &bc, &sc, &pi); err != nil {
		return modalias{}, false
	}
	return modalias{vendor: uint16(v), device: uint16(dv), subVendor: uint16(sv), subDevice: uint16(sd),
		class: uint32(bc)<<16 | uint32(sc)<<8 | uint32(pi)}, true
}

// readLink takes the link from the config space's link registers when they
// are readable (the kernel makes the *_link_* files from the same
// registers), else from the files.
func (r *reader) readLink(d *topology.Device, attr func(string) (string, bool), cfg *pciconfig.Config) topology.Link {
	if cfg != nil && cfg.CapsReadable && (cfg.Express == nil || !cfg.Express.LinkKnown) {
		return topology.Link{} // conventional PCI or a root-complex integrated function: no link
	}
	if cfg != nil && cfg.Express != nil && cfg.Express.LinkKnown {
		x := cfg.Express
		maxCode := x.MaxSpeed
		if x.SupportedSpeeds != 0 { // max_link_speed comes from LnkCap2 when set
			maxCode = bits.Len8(x.SupportedSpeeds) - 1
		}
		return topology.Link{CurrentGTs: pciconfig.SpeedGTs(x.CurSpeed), CurrentWidth: x.CurWidth,
			MaxGTs: pciconfig.SpeedGTs(maxCode), MaxWidth: x.MaxWidth}
	}
	speed := func(file string) float64 {
		s, ok := attr(file)
		if !ok {
			return 0
		}
		g, ok := pciconfig.ParseSysfsSpeed(s)
		if !ok && s != "Unknown" && s != "Unknown speed" {
			r.warn(d.BDF()+"/"+file, fmt.Sprintf("invalid value %q", s))
		}
		return g
	}
	width := func(file string) int {
		s, ok := attr(file)
		if !ok {
			return 0
		}
		w, err := strconv.Atoi(s)
		if err != nil || w < 0 || w > 32 {
			r.warn(d.BDF()+"/"+file, fmt.Sprintf("invalid value %q", s))
			return 0
		}
		return w
	}
	return topology.Link{CurrentGTs: speed("current_link_speed"), CurrentWidth: width("current_link_width"),
		MaxGTs: speed("max_link_speed"), MaxWidth: width("max_link_width")}
}

// linkBase returns the last element of the target of link name in
// folder, or "": a copy, so that the device does not keep the whole target
// ("../../../bus/pci/drivers/nvme") for its few bytes.
func linkBase(folder fs.FS, name string) string {
	if absent(folder, name) {
		return ""
	}
	t, err := fs.ReadLink(folder, name)
	if err != nil {
		return "" // absent often (no driver bound, no IOMMU): not counted as failed
	}
	return strings.Clone(path.Base(t))
}

// splitPath is strings.Split(name, "/") into a slice the reader reuses:
// valid until the next call.
func (r *reader) splitPath(name string) []string {
	r.parts = r.parts[:0]
	for {
		elem, rest, found := strings.Cut(name, "/")
		r.parts = append(r.parts, elem)
		if !found {
			return r.parts
		}
		name = rest
	}
}

// link builds parents, host bridges and roles from each device's folder.
func (r *reader) link(dirs map[topology.BDF]string) {
	hbs := map[string]*topology.HostBridge{}
	for _, d := range r.g.Devices {
		parts := r.splitPath(dirs[d.Addr])
		hbAt := -1
		for i, p := range parts {
			if _, _, ok := parseHostBridge(p); ok {
				hbAt = i
			}
		}
		var name string
		if hbAt >= 0 {
			name = parts[hbAt]
		} else {
			// A capture that kept the device folder but not its place in
			// /sys/devices: like hwloc, take its own bus as the root bus.
			name = fmt.Sprintf("pci%04x:%02x", d.Addr.Domain, d.Addr.Bus)
			r.warn(d.BDF(), "its folder "+dirs[d.Addr]+" is under no host bridge (pciDDDD:BB): parent unknown, host bridge "+name+" assumed")
		}
		hb := hbs[name]
		if hb == nil {
			dom, bus, _ := parseHostBridge(name)
			hb = &topology.HostBridge{Name: name, Domain: dom, Bus: bus, NUMANode: -1, Socket: -1, Inferred: hbAt < 0}
			hbs[name] = hb
			r.g.HostBridges = append(r.g.HostBridges, hb)
		}
		d.HostBridge = hb
		// The nearest folder above that is a known PCI function is the
		// parent; a bridge missing from a partial capture is skipped, as
		// hwloc does.
		for i := len(parts) - 2; i > hbAt && hbAt >= 0; i-- {
			pa, err := topology.ParseBDF(parts[i])
			if err != nil {
				continue
			}
			if p := r.g.Device(pa); p != nil {
				d.Parent = p
				break
			}
			r.warn(d.BDF(), "bridge "+parts[i]+" above it is not in "+pathPCIDevices+": skipped")
		}
	}
	r.g.Finish()
	for _, d := range r.g.Devices {
		if d.Kind == topology.KindBridge && d.RoleFrom == "" {
			d.Role, d.RoleFrom = topology.StructuralRole(d), topology.RoleFromStructure
		}
	}
}

// classLinks are the entries of the RDMA and network classes
// (sys/class/infiniband, sys/class/net) that lead to a PCI function.
type classLinks struct {
	rdmaListed bool        // sys/class/infiniband could be listed
	rdma, net  []classLink // in each class's order
}

// classLink is an entry name of a class that leads to the function addr;
// an RDMA device's rate is its fastest active port's (ibPorts).
type classLink struct {
	name     string
	addr     topology.BDF
	rateGbps float64
	ports    []topology.IBPort
}

// readClassLinks reads the RDMA and network classes' links, and each RDMA
// device's port rate.
func (r *reader) readClassLinks() classLinks {
	var l classLinks
	l.rdma, l.rdmaListed = r.readClass(pathInfiniband)
	for i := range l.rdma {
		l.rdma[i].ports, l.rdma[i].rateGbps = r.ibPorts(l.rdma[i].name)
	}
	l.net, _ = r.readClass(pathNet)
	return l
}

// readClass maps /sys/class/<class>/<name> links to their PCI function,
// for the entries of a class that lead to one; listed is false when the
// class cannot be listed.
func (r *reader) readClass(dir string) (links []classLink, listed bool) {
	entries, err := fs.ReadDir(r.fsys, dir)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			r.warn(dir, err.Error())
		}
		return nil, false
	}
	// The links are read through the folder: one call each, not a walk of
	// the class folder's path per link.
	folder := r.folder(dir)
	defer closeFolder(folder)
	for _, e := range entries {
		target, err := r.resolveIn(folder, path.Join(dir, e.Name()))
		if err != nil || strings.Contains(target, "/virtual/") {
			continue
		}
		// The last path element that is a PCI address is the function
		// (hwloc_linuxfs_find_osdev_parent; virtio sits one level lower).
		parts := r.splitPath(target)
		for i := len(parts) - 1; i >= 0; i-- {
			if addr, err := topology.ParseBDF(parts[i]); err == nil {
				links = append(links, classLink{name: e.Name(), addr: addr})
				break
			}
		}
	}
	return links, true
}

// ibPorts reads the ports of RDMA device dev (ports/N/state, phys_state,
// rate, link_layer) and returns them with the fastest rate of those that
// are ACTIVE, or whose state is unknown: a port known to be down carries
// nothing, whatever its rate file says.
func (r *reader) ibPorts(dev string) ([]topology.IBPort, float64) {
	dir := path.Join(pathInfiniband, dev, fileIBPorts)
	entries, err := fs.ReadDir(r.fsys, dir)
	if err != nil {
		return nil, 0
	}
	var ports []topology.IBPort
	best := 0.0
	for _, e := range entries {
		pd := path.Join(dir, e.Name())
		p := topology.IBPort{Device: dev, Port: e.Name()}
		if s, err := r.text(path.Join(pd, fileIBState)); err == nil {
			p.State = topology.PortStateWord(s)
		}
		if s, err := r.text(path.Join(pd, fileIBPhysState)); err == nil {
			p.PhysState = topology.PortStateWord(s)
		}
		if s, err := r.text(path.Join(pd, fileIBLinkLayer)); err == nil {
			p.LinkLayer = strings.TrimSpace(s)
		}
		if s, err := r.text(path.Join(pd, fileIBRate)); err == nil {
			p.Rate = strings.TrimSpace(s)
			p.RateGbps = parseIBRate(s)
		}
		if p.RateGbps > best && (!p.StateKnown() || p.Active()) {
			best = p.RateGbps
		}
		ports = append(ports, p)
	}
	return ports, best
}

// parseIBRate reads a ports/N/rate file, "400 Gb/sec (4X NDR)", in Gb/s; 0
// when it says otherwise.
func parseIBRate(s string) float64 {
	f := strings.Fields(s)
	if len(f) < 2 || !strings.HasPrefix(f[1], "Gb/sec") {
		return 0
	}
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil || v < 0 {
		return 0
	}
	return v
}

// trackedFiles are the attribute files whose absence changes what gdtopo
// can tell; the others are optional.
var trackedFiles = map[string]bool{"numa_node": true, "config": true, "subsystem_vendor": true}

// linkFiles names the link attributes in warnings.
const linkFiles = "link speed and width"

// summarize turns per-file gaps into the summary's list of what the source
// lacked (a file missing everywhere) or one warning per file (missing on
// some functions).
func (r *reader) summarize() {
	n := len(r.g.Devices)
	lacks := func(file, words string) bool {
		if len(r.missing[file]) == n {
			r.g.Lacks = append(r.g.Lacks, words)
			return true
		}
		return false
	}
	whole := map[string]bool{}
	if m := len(r.missing[linkFiles]); m > 0 && m == r.linkExpected {
		r.g.Lacks = append(r.g.Lacks, "link speed and width (no *_link_* files or readable link registers)")
		whole[linkFiles] = true
	}
	whole["config"] = lacks("config", "config space (port types from structure; ACS, DevCtl unknown)")
	whole["numa_node"] = lacks("numa_node", "numa_node files")
	subsystemKnown := false
	for _, d := range r.g.Devices {
		subsystemKnown = subsystemKnown || d.SubsystemKnown
	}
	whole["subsystem_vendor"] = len(r.missing["subsystem_vendor"]) == n
	if !subsystemKnown {
		r.g.Lacks = append(r.g.Lacks, "subsystem IDs (NCCL's Broadcom switch flattening cannot be told)")
	}
	if !whole["config"] && len(r.short) > 0 {
		r.g.Lacks = append(r.g.Lacks, fmt.Sprintf("config space past 64 bytes on %d of %d functions (ACS, DevCtl, link registers unknown: reading them needs root)", len(r.short), n))
	}
	if len(r.looped) > 0 {
		r.g.Lacks = append(r.g.Lacks, fmt.Sprintf("a capability list that loops on %d of %d functions (damaged config space: what lies past the loop is unknown)", len(r.looped), n))
	}
	if len(r.g.System.NUMANodes) == 0 {
		r.g.Lacks = append(r.g.Lacks, "NUMA nodes ("+pathNodes+")")
	}
	switch {
	case r.g.System.CPUModel == "" && r.g.System.CPUArch == "":
		r.g.Lacks = append(r.g.Lacks, pathCPUInfo)
	case r.g.System.CPUModel == "":
		r.g.Lacks = append(r.g.Lacks, "the CPU model ("+pathCPUInfo+" names none gdtopo reads)")
	}
	files := make([]string, 0, len(r.missing))
	for f := range r.missing {
		if !whole[f] {
			files = append(files, f)
		}
	}
	sort.Strings(files)
	for _, f := range files {
		devs, of := r.missing[f], n
		if f == linkFiles {
			of = r.linkExpected
		}
		r.warn(f, fmt.Sprintf("unknown for %d of %d functions (first %s)", len(devs), of, devs[0]))
	}
}

// parseHostBridge parses a sysfs host bridge folder name "pciDDDD:BB".
func parseHostBridge(name string) (domain uint32, bus uint8, ok bool) {
	rest, found := strings.CutPrefix(name, "pci")
	if !found {
		return 0, 0, false
	}
	d, b, found := strings.Cut(rest, ":")
	if !found || len(b) != 2 || d == "" || len(d) > 8 {
		return 0, 0, false
	}
	dv, err1 := strconv.ParseUint(d, 16, 32)
	bv, err2 := strconv.ParseUint(b, 16, 8)
	if err1 != nil || err2 != nil {
		return 0, 0, false
	}
	return uint32(dv), uint8(bv), true
}
