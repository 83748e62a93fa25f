package sysfs

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/gdtopo/gdtopo/topology"
)

// readSystem reads NUMA nodes, CPUs, the kernel command line and the host
// name. Every part is optional: what is missing stays unknown.
func (r *reader) readSystem() {
	s := &r.g.System
	s.CPUFamily, s.CPUModelID, s.CPUImplementer, s.CPUPart = -1, -1, -1, -1
	packages := r.readCPUInfo(s)
	if s.CPUModel == "" {
		s.CPUModel = armCoreName(s.CPUImplementer, s.CPUPart)
	}
	s.DefaultRouteIf = r.defaultRoute()
	r.readNodes(s, packages)
	if b, err := r.readSmall(pathCmdline); err == nil {
		s.Cmdline, s.CmdlineRead = strings.TrimSpace(string(b)), true
	}
	if h, err := r.text(pathHostname); err == nil {
		s.Hostname = h
	}
	r.readPlatform()
}

// readPlatform gathers IOMMU and peer-memory evidence.
func (r *reader) readPlatform() {
	p := &r.g.Platform
	if entries, err := fs.ReadDir(r.fsys, pathIOMMU); err == nil {
		p.IOMMUClassRead = true
		for _, e := range entries {
			p.IOMMUs = append(p.IOMMUs, e.Name())
		}
	}
	if _, err := fs.Stat(r.fsys, pathModules); err == nil {
		p.ModulesRead = true
	}
	if s, err := r.text(pathNVIDIATaint); err == nil {
		p.NVIDIATaint, p.NVIDIATaintRead = s, true
	}
	for _, f := range peerMemoryEvidence {
		if _, err := fs.Stat(r.fsys, f); err == nil {
			p.PeerMemory = append(p.PeerMemory, f)
		}
	}
}

// readIOMMUGroupTypes reads the default domain type of the IOMMU groups
// that hold accelerators and NICs: whether their DMA is translated.
func (r *reader) readIOMMUGroupTypes() {
	for _, d := range r.g.Devices {
		if d.IOMMUGroup == "" || d.Kind != topology.KindAccelerator && d.Kind != topology.KindNIC {
			continue
		}
		p := &r.g.Platform
		if _, done := p.IOMMUGroupTypes[d.IOMMUGroup]; done {
			continue
		}
		if t, err := r.text(path.Join(pathIOMMUGroup, d.IOMMUGroup, "type")); err == nil {
			if p.IOMMUGroupTypes == nil {
				p.IOMMUGroupTypes = map[string]string{}
			}
			p.IOMMUGroupTypes[d.IOMMUGroup] = t
		}
	}
}

// readCPUInfo parses /proc/cpuinfo (x86 "key<TABs>: value" blocks, one per
// logical CPU) and returns each CPU's physical package.
func (r *reader) readCPUInfo(s *topology.System) map[int]int {
	packages := map[int]int{}
	b, err := r.read(pathCPUInfo, maxProcBytes)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			r.warn(pathCPUInfo, err.Error())
		}
		return packages
	}
	cpu := -1
	// Parsed from the bytes read: only the values kept become strings.
	for rest := b; len(rest) > 0; {
		var line []byte
		line, rest, _ = bytes.Cut(rest, []byte{'\n'})
		kb, vb, ok := bytes.Cut(line, []byte{':'})
		if !ok {
			continue
		}
		kb, vb = bytes.TrimSpace(kb), bytes.TrimSpace(vb)
		switch string(kb) {
		case "processor":
			if n, ok := atoiBytes(vb); ok {
				cpu = n
				s.LogicalCPUs++
			}
		case "vendor_id":
			s.CPUVendor, s.CPUArch = keep(s.CPUVendor, vb), "x86_64"
		case "cpu":
			if bytes.HasPrefix(vb, []byte("POWER")) { // ppc64's /proc/cpuinfo: "cpu : POWER9, altivec supported", its only model line
				s.CPUArch, s.CPUModel = "ppc64", keep(s.CPUModel, vb)
			}
		case "model name":
			s.CPUModel = keep(s.CPUModel, vb)
		case "cpu family":
			s.CPUFamily = atoiOr(string(vb), -1)
		case "model":
			s.CPUModelID = atoiOr(string(vb), -1)
		case "flags":
			if !r.g.Platform.Hypervisor && cpu <= 0 {
				for _, f := range bytes.Fields(vb) {
					if string(f) == "hypervisor" {
						r.g.Platform.Hypervisor = true
					}
				}
			}
		case "CPU implementer": // Arm's /proc/cpuinfo
			s.CPUImplementer, s.CPUArch = hexOr(string(vb), -1), "arm64"
		case "CPU part":
			s.CPUPart = hexOr(string(vb), -1)
		case "physical id":
			if p, ok := atoiBytes(vb); ok && cpu >= 0 {
				packages[cpu] = p
			}
		}
	}
	return packages
}

// keep returns old when it already holds b (every CPU of /proc/cpuinfo
// repeats the same vendor and model), else b as a new string.
func keep(old string, b []byte) string {
	if old == string(b) {
		return old
	}
	return string(b)
}

// atoiBytes is strconv.Atoi of b, without a string made for the common
// case of a few plain digits.
func atoiBytes(b []byte) (int, bool) {
	if len(b) == 0 || len(b) > 18 {
		n, err := strconv.Atoi(string(b))
		return n, err == nil
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			n, err := strconv.Atoi(string(b))
			return n, err == nil
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

func atoiOr(s string, def int) int {
	if n, err := strconv.Atoi(s); err == nil {
		return n
	}
	return def
}

// readNodes reads /sys/devices/system/node/node*/{cpulist,distance} and
// places each node on the package of its first CPU.
func (r *reader) readNodes(s *topology.System, packages map[int]int) {
	entries, err := fs.ReadDir(r.fsys, pathNodes)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			r.warn(pathNodes, err.Error())
		}
	}
	for _, e := range entries {
		idText, ok := strings.CutPrefix(e.Name(), "node")
		id, err := strconv.Atoi(idText)
		if !ok || err != nil || id < 0 {
			continue
		}
		n := topology.NUMANode{ID: id, Socket: -1}
		dir := path.Join(pathNodes, e.Name())
		folder := r.folder(dir) // cpulist and distance, read by name in it
		if cl, err := r.textIn(folder, "cpulist"); err == nil {
			n.CPUs, n.MemoryOnly = cl, cl == ""
			if cpus, err := topology.ParseCPUList(cl); err != nil {
				r.warn(dir+"/cpulist", err.Error())
			} else if len(cpus) > 0 {
				n.Socket = r.packageOf(cpus[0], packages)
			}
		}
		if ds, err := r.textIn(folder, "distance"); err == nil {
			for _, f := range strings.Fields(ds) {
				v, err := strconv.Atoi(f)
				if err != nil {
					r.warn(dir+"/distance", fmt.Sprintf("invalid value %q", ds))
					n.Distances = nil
					break
				}
				n.Distances = append(n.Distances, v)
			}
		}
		closeFolder(folder)
		s.NUMANodes = append(s.NUMANodes, n)
	}
	sort.Slice(s.NUMANodes, func(i, j int) bool { return s.NUMANodes[i].ID < s.NUMANodes[j].ID })
	sockets := map[int]bool{}
	for _, p := range packages {
		sockets[p] = true
	}
	for _, n := range s.NUMANodes {
		if n.Socket >= 0 {
			sockets[n.Socket] = true
		}
	}
	s.Sockets = len(sockets)
}

// packageOf returns a CPU's physical package from sysfs topology, else from
// /proc/cpuinfo, else -1.
func (r *reader) packageOf(cpu int, packages map[int]int) int {
	f := path.Join(pathCPUs, "cpu"+strconv.Itoa(cpu), "topology", "physical_package_id")
	if v, err := r.int(f); err == nil && v >= 0 {
		return v
	}
	if p, ok := packages[cpu]; ok {
		return p
	}
	return -1
}

// maskToList turns a kernel cpumask ("ff,00000000": hex 32-bit words, most
// significant first) into a cpulist ("32-39"); "" if it does not parse.
func maskToList(mask string) string {
	words := strings.Split(strings.TrimSpace(mask), ",")
	if len(words)*32 > topology.MaxCPUs {
		return ""
	}
	var parts []string
	start, cpu := -1, 0
	flush := func(end int) {
		if start < 0 {
			return
		}
		if start == end {
			parts = append(parts, strconv.Itoa(start))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", start, end))
		}
		start = -1
	}
	for i := len(words) - 1; i >= 0; i-- {
		w, err := strconv.ParseUint(words[i], 16, 32)
		if err != nil {
			return ""
		}
		for bit := 0; bit < 32; bit, cpu = bit+1, cpu+1 {
			if w&(1<<bit) != 0 {
				if start < 0 {
					start = cpu
				}
			} else {
				flush(cpu - 1)
			}
		}
	}
	flush(cpu - 1)
	return strings.Join(parts, ",")
}
