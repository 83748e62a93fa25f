package sysfs_test

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/gdtopo/gdtopo/internal/source"
	"github.com/gdtopo/gdtopo/internal/sysfs"
	"github.com/gdtopo/gdtopo/topology"
)

// fuzzAttrs are the attribute values a FuzzReadSysfs input supplies, in the
// order of the fuzz function's arguments after the config bytes.
type fuzzAttrs struct {
	class, vendor, device, numa                  string
	curSpeed, curWidth, maxSpeed, maxWidth, cpus string
	config                                       []byte
	resource, rate, nodeCPUs, distance, cpuinfo  string
	physfn                                       string // target of the endpoint's physfn link
}

// Fixed places of the fuzzed tree: a root port with the fuzzed endpoint
// below it, and a NIC on the same root bus; a second host bridge on node 1
// holds a fixed accelerator so that pairs cross nodes.
const (
	fzRootPort = "sys/devices/pci0000:00/0000:00:01.0"
	fzEndpoint = fzRootPort + "/0000:01:00.0"
	fzNIC      = "sys/devices/pci0000:00/0000:00:02.0"
	fzFar      = "sys/devices/pci0000:80/0000:80:00.0"
)

// fuzzTree builds the in-memory sysfs for one fuzz input.
func fuzzTree(a fuzzAttrs) fstest.MapFS {
	m := fstest.MapFS{}
	file := func(p, data string) { m[p] = &fstest.MapFile{Data: []byte(data), Mode: 0o444} }
	link := func(p, target string) { m[p] = &fstest.MapFile{Data: []byte(target), Mode: fs.ModeSymlink | 0o777} }
	dev := func(dir string, attrs map[string]string) {
		bdf := dir[strings.LastIndex(dir, "/")+1:]
		link("sys/bus/pci/devices/"+bdf, "../../../"+strings.TrimPrefix(dir, "sys/"))
		for k, v := range attrs {
			file(dir+"/"+k, v)
		}
	}
	dev(fzRootPort, map[string]string{"class": "0x060400\n", "vendor": "0x8086\n", "device": "0x352a\n",
		"numa_node": a.numa, "config": string(a.config), "current_link_speed": a.curSpeed, "max_link_width": a.maxWidth})
	dev(fzEndpoint, map[string]string{"class": a.class, "vendor": a.vendor, "device": a.device, "numa_node": a.numa,
		"current_link_speed": a.curSpeed, "current_link_width": a.curWidth,
		"max_link_speed": a.maxSpeed, "max_link_width": a.maxWidth,
		"local_cpulist": a.cpus, "config": string(a.config), "resource": a.resource,
		"subsystem_vendor": a.vendor, "subsystem_device": a.device, "revision": a.numa})
	if fs.ValidPath(strings.TrimPrefix(a.physfn, "../")) || a.physfn == "" {
		link(fzEndpoint+"/physfn", a.physfn)
	}
	link(fzEndpoint+"/driver", "../../../../bus/pci/drivers/nvidia")
	dev(fzNIC, map[string]string{"class": "0x020700\n", "vendor": "0x15b3\n", "device": "0x1021\n", "numa_node": a.numa,
		"local_cpulist": a.cpus, "resource": a.resource})
	file(fzNIC+"/infiniband/mlx5_0/ports/1/rate", a.rate)
	link("sys/class/infiniband/mlx5_0", "../../devices/pci0000:00/0000:00:02.0/infiniband/mlx5_0")
	dev(fzFar, map[string]string{"class": "0x030200\n", "vendor": "0x10de\n", "device": "0x2330\n", "numa_node": "1\n"})
	file("sys/devices/system/node/node0/cpulist", a.nodeCPUs)
	file("sys/devices/system/node/node0/distance", a.distance)
	file("sys/devices/system/node/node1/cpulist", "8-15\n")
	file("sys/devices/system/node/node1/distance", "21 10\n")
	file("sys/devices/system/cpu/cpu0/topology/physical_package_id", "0\n")
	file("proc/cpuinfo", a.cpuinfo)
	return m
}

// hgxSeed reads the attribute values of one accelerator and one NIC of the
// hgx-h100 fixture, so the fuzzer starts from what the kernel writes.
func hgxSeed(f *testing.F) (fuzzAttrs, bool) {
	base := filepath.Join("..", "..", "fixtures", "hgx-h100.tar.gz")
	src, err := source.Open(base)
	if err != nil {
		return fuzzAttrs{}, false
	}
	read := func(p string, limit int) string {
		b, err := fs.ReadFile(src.Root, p)
		if err != nil {
			return ""
		}
		if len(b) > limit {
			b = b[:limit]
		}
		return string(b)
	}
	devs, err := fs.ReadDir(src.Root, "sys/bus/pci/devices")
	if err != nil {
		return fuzzAttrs{}, false
	}
	gpu := ""
	for _, d := range devs {
		if strings.TrimSpace(read("sys/bus/pci/devices/"+d.Name()+"/class", 64)) == "0x030200" {
			gpu = "sys/bus/pci/devices/" + d.Name() + "/"
			break
		}
	}
	if gpu == "" {
		f.Fatalf("no accelerator in %s", base)
	}
	return fuzzAttrs{
		class: read(gpu+"class", 64), vendor: read(gpu+"vendor", 64), device: read(gpu+"device", 64),
		numa: read(gpu+"numa_node", 64), curSpeed: read(gpu+"current_link_speed", 64),
		curWidth: read(gpu+"current_link_width", 64), maxSpeed: read(gpu+"max_link_speed", 64),
		maxWidth: read(gpu+"max_link_width", 64), cpus: read(gpu+"local_cpulist", 256),
		config: []byte(read(gpu+"config", 4096)), resource: read(gpu+"resource", 4096),
		rate:     read("sys/class/infiniband/mlx5_0/ports/1/rate", 64),
		nodeCPUs: read("sys/devices/system/node/node0/cpulist", 256),
		distance: read("sys/devices/system/node/node0/distance", 256),
		cpuinfo:  read("proc/cpuinfo", 2048),
	}, true
}

// FuzzReadSysfs feeds arbitrary attribute values (IDs, NUMA, link state,
// cpulists, config space, BARs, port rate, SLIT, cpuinfo) to ReadSysfs in a
// fixed tree shape and classifies every pair. Whatever the values, the read
// must succeed (the tree always holds well-formed devices), never panic, and
// yield one pair per two accelerators or NICs.
func FuzzReadSysfs(f *testing.F) {
	add := func(a fuzzAttrs) {
		f.Add(a.class, a.vendor, a.device, a.numa, a.curSpeed, a.curWidth, a.maxSpeed, a.maxWidth, a.cpus,
			a.config, a.resource, a.rate, a.nodeCPUs, a.distance, a.cpuinfo, a.physfn)
	}
	if real, ok := hgxSeed(f); ok {
		add(real)
		bridge := real
		bridge.class, bridge.physfn = "0x060400\n", "../0000:00:02.0"
		bridge.config = append([]byte(nil), real.config...)
		if len(bridge.config) > 64 {
			bridge.config = bridge.config[:64] // an unprivileged read
		}
		add(bridge)
	}
	add(fuzzAttrs{}) // every file empty
	add(fuzzAttrs{
		class: "\x00\xff garbage", vendor: "0xZZZZ", device: "-1", numa: "99999999999999999999",
		curSpeed: "NaN GT/s PCIe", curWidth: "-16", maxSpeed: "Inf GT/s", maxWidth: "4294967296",
		cpus: "9-0,,4-", config: []byte{0x86, 0x80, 0x2a, 0x35, 0, 0, 0x10, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0,
			0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x34, 0, 0, 0},
		resource: "0xffffffffffffffff 0x0 0xffffffff\nnot hex\n", rate: "-400 Gb/sec (4X NDR)",
		nodeCPUs: "0-1000000000", distance: "10 x -5", cpuinfo: "processor\t: \nphysical id\t: -1\ncpu family\t: 1e99\n",
		physfn: "..",
	})
	add(fuzzAttrs{class: "0x020000", vendor: "0x15b3", device: "0x101e", numa: "-1", curSpeed: "Unknown",
		curWidth: "0", maxSpeed: "Unknown speed", maxWidth: "255", cpus: "0-3", config: make([]byte, 4096),
		resource: strings.Repeat("0x0 0x0 0x0\n", 40), rate: "Unknown", nodeCPUs: "", distance: "10",
		cpuinfo: strings.Repeat("processor\t: 0\n", 100), physfn: "physfn"})

	f.Fuzz(func(t *testing.T, class, vendor, device, numa, curSpeed, curWidth, maxSpeed, maxWidth, cpus string,
		config []byte, resource, rate, nodeCPUs, distance, cpuinfo, physfn string) {
		tree := fuzzTree(fuzzAttrs{class, vendor, device, numa, curSpeed, curWidth, maxSpeed, maxWidth, cpus,
			config, resource, rate, nodeCPUs, distance, cpuinfo, physfn})
		g, err := sysfs.Read(tree)
		if err != nil {
			if errors.Is(err, topology.ErrNoPCI) {
				t.Fatalf("Read: %v; the tree holds well-formed devices", err)
			}
			t.Fatalf("Read: %v; only ErrNoPCI may fail a read", err)
		}
		if len(g.Devices) < 3 {
			t.Fatalf("%d devices read; want at least the root port, NIC and far accelerator", len(g.Devices))
		}
		ends := len(g.OfKind(topology.KindAccelerator)) + len(g.OfKind(topology.KindNIC))
		pairs := g.Pairs()
		if len(pairs) != ends*(ends-1)/2 {
			t.Fatalf("%d pairs among %d accelerators and NICs; want %d", len(pairs), ends, ends*(ends-1)/2)
		}
		for _, p := range pairs {
			if p.SMI == "" || p.NCCL == "" {
				t.Fatalf("pair %s-%s has no label: %+v", p.A.BDF(), p.B.BDF(), p)
			}
		}
		for _, d := range g.Devices {
			_ = d.Link.String()
			_ = d.Link.Degraded()
		}
		for _, w := range g.Warnings {
			_ = w.String()
		}
	})
}
