// Package snapshot writes a gdtopo snapshot: a gzip'd tar of exactly the part
// of a sysfs/procfs tree that gdtopo reads, plus what lspci -A linux-sysfs and
// lstopo --input need to read the copy. The list of what is kept comes from
// sysfs.CaptureSpec, the same table the reader uses, so the two never
// drift.
//
// A snapshot is re-readable by source.Open like any capture: it holds sys/
// and proc/ at the archive root, next to a small manifest (ManifestName).
package snapshot

import (
	"archive/tar"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gdtopo/gdtopo/internal/sysfs"
	"github.com/gdtopo/gdtopo/topology"
)

// ManifestName is the manifest's name at the archive root.
const ManifestName = sysfs.ManifestName

// Options control a capture.
type Options struct {
	// Redact leaves out serial numbers and GUIDs: per-function serial_number,
	// InfiniBand node_guid and sys_image_guid, DMI serials and UUID, and
	// "Serial" lines of /proc/cpuinfo. MAC addresses (net/*/address) and
	// InfiniBand GIDs are never kept. The host name is kept either way: it
	// names the machine a snapshot came from, which fleet output needs.
	Redact  bool
	Version string           // gdtopo version, for the manifest
	Source  string           // what was captured, for the manifest: "/" for the live machine
	Now     func() time.Time // the capture time; time.Now when nil
	Root    bool             // whether the capture ran as root (config past 64 bytes readable)
}

// Stats says what a capture wrote.
type Stats struct {
	Files int   // regular files captured, the manifest not counted
	Links int   // symbolic links
	Bytes int64 // size of the compressed archive written
	// Vanished lists the functions (by PCI address) whose folders went
	// away while being captured, hot-unplugged or deleted: they are left
	// out whole, with every link to them, rather than kept in part.
	Vanished []string
}

// Manifest is the content of ManifestName.
type Manifest struct {
	Version  string `json:"gdtopo_version"`
	TakenAt  string `json:"taken_at"` // RFC 3339, UTC
	Source   string `json:"source"`
	Root     bool   `json:"root"`
	Redacted bool   `json:"redacted"`
	Files    int    `json:"files"`
	// Vanished lists the functions left out because their folders went
	// away while being captured.
	Vanished []string `json:"vanished,omitempty"`
}

// entry is one member of the archive being built.
type entry struct {
	typ    byte // tar.TypeDir, tar.TypeReg or tar.TypeSymlink
	data   []byte
	target string
}

// capturer carries one Capture call's state.
type capturer struct {
	fsys fs.FS
	spec sysfs.Spec
	opts Options
	tree map[string]*entry // cleaned slash paths, without "."

	functions map[string]string // each captured function's folder, by address
	vanished  []string          // functions that went away, by address
	gone      []string          // folders that went away while being captured
}

// Capture writes a gzip'd tar of what gdtopo reads from fsys, a source root
// holding sys/ and proc/: each PCI function's attribute files (config as far
// as it is readable) and links, class/infiniband and class/net entries, IOMMU
// and peer-memory evidence, NUMA nodes, CPU topology and the proc files.
// Links are kept relative (absolute ones are made relative, ones that climb
// out of the tree are left out) and never followed while walking. The
// folders that links point to (bus/pci/drivers/<name>, kernel/iommu_groups/<N>)
// are made with the back-links the kernel has, so that lspci and lstopo
// resolve them. Missing or unreadable files are simply absent. A function
// whose folder went away while it was being captured (hot-unplugged) is left
// out whole and named in Stats.Vanished and the manifest. Only a source
// without sys/bus/pci/devices, or whose sys/bus/pci/devices vanished while
// it was being captured (a capture deleted meanwhile), is an error.
func Capture(fsys fs.FS, w io.Writer, opts Options) (Stats, error) {
	c := &capturer{fsys: fsys, spec: sysfs.CaptureSpec(), opts: opts, tree: map[string]*entry{}, functions: map[string]string{}}
	if err := c.pci(); err != nil {
		return Stats{}, err
	}
	c.classes()
	c.system()
	c.platform()
	c.recheck()
	if _, err := fs.Stat(fsys, c.spec.PCIDevices); errors.Is(err, fs.ErrNotExist) {
		return Stats{}, fmt.Errorf("%s vanished while being read (was the capture deleted?)", c.spec.PCIDevices)
	}
	now := time.Now
	if opts.Now != nil {
		now = opts.Now
	}
	st, err := c.write(w, now().UTC().Truncate(time.Second))
	st.Vanished = c.vanished
	return st, err
}

// pci captures every function named by the PCI index.
func (c *capturer) pci() error {
	s := c.spec
	entries, err := fs.ReadDir(c.fsys, s.PCIDevices)
	if err != nil {
		return fmt.Errorf("%w: read %s: %w", topology.ErrNoPCI, s.PCIDevices, err)
	}
	c.dir(s.PCIDevices)
	files := c.withPrivate(s.DeviceFiles, s.DevicePrivate)
	for _, e := range entries {
		bdf := e.Name()
		if _, err := topology.ParseBDF(bdf); err != nil {
			continue // lspci stops at a name that is no address; the reader skips it
		}
		index := path.Join(s.PCIDevices, bdf)
		dir, ok := c.linkOrDir(index)
		if !ok {
			if _, err := fs.Lstat(c.fsys, index); errors.Is(err, fs.ErrNotExist) {
				c.vanished = append(c.vanished, bdf) // listed a moment ago
			}
			continue
		}
		c.functions[bdf] = dir
		c.files(dir, files)
		for _, l := range s.DeviceLinks {
			target, ok := c.link(path.Join(dir, l))
			if !ok {
				continue
			}
			switch {
			case strings.HasPrefix(target, s.IOMMUGroups+"/"):
				c.files(target, s.GroupFiles)
				c.backLink(path.Join(target, "devices", bdf), dir)
			case l == "driver":
				c.backLink(path.Join(target, bdf), dir)
			}
		}
	}
	return nil
}

// recheck looks for the captured functions in the PCI index again, once
// everything is captured. One that is gone now (its link or its folder)
// went away while being captured, perhaps before its RDMA and network names
// were, and so did every function below it: their folders and every link
// into them are left out (the index's, the drivers' and IOMMU groups' back
// links, the class entries), so a snapshot has each function whole or not
// at all.
func (c *capturer) recheck() {
	for bdf, dir := range c.functions {
		_, err := fs.Lstat(c.fsys, path.Join(c.spec.PCIDevices, bdf))
		if err == nil {
			_, err = fs.Stat(c.fsys, dir)
		}
		if errors.Is(err, fs.ErrNotExist) {
			c.gone = append(c.gone, dir)
		}
	}
	if len(c.gone) == 0 {
		return
	}
	under := func(p string) bool {
		for _, dir := range c.gone {
			if p == dir || strings.HasPrefix(p, dir+"/") {
				return true
			}
		}
		return false
	}
	for bdf, dir := range c.functions {
		if under(dir) {
			c.vanished = append(c.vanished, bdf)
		}
	}
	slices.Sort(c.vanished)
	for p, e := range c.tree {
		if under(p) || e.typ == tar.TypeSymlink && under(path.Join(path.Dir(p), e.target)) {
			delete(c.tree, p)
		}
	}
}

// classes captures the class entries that lead to PCI functions.
func (c *capturer) classes() {
	for _, cl := range c.spec.Classes {
		entries, err := fs.ReadDir(c.fsys, cl.Dir)
		if err != nil {
			continue
		}
		c.dir(cl.Dir)
		files := c.withPrivate(cl.Files, cl.Private)
		for _, e := range entries {
			name := path.Join(cl.Dir, e.Name())
			target, dir, ok := c.resolve(name)
			if !ok || strings.Contains(dir, "/virtual/") {
				continue // loopback, bridges and other software devices
			}
			if !c.put(name, &entry{typ: tar.TypeSymlink, target: target}) || !c.dir(dir) {
				continue
			}
			c.files(dir, files)
			if cl.Master != "" {
				c.master(cl, dir)
			}
			if cl.Ports == "" {
				continue
			}
			ports, _ := fs.ReadDir(c.fsys, path.Join(dir, cl.Ports))
			for _, p := range ports {
				c.files(path.Join(dir, cl.Ports, p.Name()), cl.PortFiles)
			}
		}
	}
}

// master captures the software device the class entry at dir is enslaved
// to (a bond, under devices/virtual): the link to it, its class entry, its
// MasterFiles and its links back to its members, which are what the reader
// needs of a RoCE LAG.
func (c *capturer) master(cl sysfs.ClassSpec, dir string) {
	bond, ok := c.link(path.Join(dir, cl.Master))
	if !ok {
		return
	}
	c.backLink(path.Join(cl.Dir, path.Base(bond)), bond)
	c.files(bond, cl.MasterFiles)
	entries, _ := fs.ReadDir(c.fsys, bond)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), cl.MasterLinks) {
			c.link(path.Join(bond, e.Name()))
		}
	}
}

// system captures NUMA nodes, CPU topology, proc files and DMI identity.
func (c *capturer) system() {
	s := c.spec
	if entries, err := fs.ReadDir(c.fsys, s.Nodes); err == nil {
		c.dir(s.Nodes)
		c.files(s.Nodes, s.NodeTop)
		for _, e := range entries {
			if numbered(e.Name(), "node") {
				c.files(path.Join(s.Nodes, e.Name()), s.NodeFiles)
			}
		}
	}
	if entries, err := fs.ReadDir(c.fsys, s.CPUs); err == nil {
		c.dir(s.CPUs)
		c.files(s.CPUs, s.CPUTop)
		for _, e := range entries {
			if !numbered(e.Name(), "cpu") {
				continue
			}
			dir := path.Join(s.CPUs, e.Name(), s.CPUTopology)
			attrs, _ := fs.ReadDir(c.fsys, dir)
			for _, a := range attrs {
				if a.Type()&(fs.ModeDir|fs.ModeSymlink) == 0 {
					c.file(path.Join(dir, a.Name()), s.AttrLimit)
				}
			}
		}
	}
	for _, p := range s.Proc {
		c.file(p, s.ProcLimit)
		if e := c.tree[p]; e != nil && c.opts.Redact && path.Base(p) == "cpuinfo" {
			e.data = dropSerials(e.data)
		}
	}
	if dir, ok := c.linkOrDir(s.DMI); ok {
		c.files(dir, c.withPrivate(s.DMIFiles, s.DMIPrivate))
	}
}

// platform captures IOMMU and peer-memory evidence: what exists matters,
// not what it holds.
func (c *capturer) platform() {
	s := c.spec
	if entries, err := fs.ReadDir(c.fsys, s.IOMMUClass); err == nil {
		c.dir(s.IOMMUClass)
		for _, e := range entries {
			if dir, ok := c.linkOrDir(path.Join(s.IOMMUClass, e.Name())); ok {
				c.dir(dir)
			}
		}
	}
	for _, p := range append(append([]string{s.Modules}, s.PeerMemory...), s.DriverFiles...) {
		switch fi, err := fs.Stat(c.fsys, p); {
		case err != nil:
		case fi.IsDir():
			c.dir(p)
		default:
			c.file(p, s.AttrLimit)
		}
	}
}

// withPrivate is files, plus private when the capture is not redacted.
func (c *capturer) withPrivate(files, private []string) []string {
	if c.opts.Redact {
		return files
	}
	return append(slices.Clip(files), private...)
}

// numbered reports whether name is prefix followed by a number ("node0", "cpu12").
func numbered(name, prefix string) bool {
	n, ok := strings.CutPrefix(name, prefix)
	_, err := strconv.Atoi(n)
	return ok && err == nil && !strings.HasPrefix(n, "-") && !strings.HasPrefix(n, "+")
}

// dropSerials removes "Serial : ..." lines (some Arm boards) from cpuinfo.
func dropSerials(b []byte) []byte {
	var out []byte
	for line := range bytes.Lines(b) {
		if k, _, ok := bytes.Cut(line, []byte(":")); ok && strings.EqualFold(string(bytes.TrimSpace(k)), "serial") {
			continue
		}
		out = append(out, line...)
	}
	return out
}
