package sysfs

import (
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/gdtopo/gdtopo/topology"
)

// This file reads what the newer servers add to the PCI tree (the rules
// that name them are topology's platforms.go): Arm core names, the VPD of
// Mellanox functions, AMD Instinct partition modes, bonded netdevs and the
// default route.

// armCoreName names an Arm core from its MIDR implementer and part numbers
// (Arm's Technical Reference Manuals, MIDR_EL1), "" when unknown.
func armCoreName(implementer, part int) string {
	if implementer != 0x41 {
		return ""
	}
	switch part {
	case 0xd4f:
		return "Arm Neoverse V2"
	case 0xd40:
		return "Arm Neoverse V1"
	case 0xd0c:
		return "Arm Neoverse N1"
	case 0xd49:
		return "Arm Neoverse N2"
	}
	return ""
}

func hexOr(s string, def int) int {
	if v, err := strconv.ParseInt(strings.TrimPrefix(s, "0x"), 16, 32); err == nil {
		return int(v)
	}
	return def
}

// defaultRoute returns the interface of the default route in
// /proc/net/route (destination and mask 00000000), or "".
func (r *reader) defaultRoute() string {
	b, err := r.readSmall(pathRoute)
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(b), "\n")[1:] {
		f := strings.Fields(line)
		if len(f) >= 8 && f[1] == "00000000" && f[7] == "00000000" {
			return f[0]
		}
	}
	return ""
}

// readExtras reads the per-function facts of the new platforms: the VPD
// V3 of Mellanox functions, amdgpu's partition modes, and the bond each
// netdev belongs to. Absent files leave the fields empty.
func (r *reader) readExtras(dirs map[topology.BDF]string) {
	for _, d := range r.g.Devices {
		dir := dirs[d.Addr]
		if dir == "" {
			continue
		}
		switch {
		case d.VendorID == topology.VendorMellanox && (d.Kind == topology.KindNIC || d.DeviceID == topology.DeviceCX8DMA):
			if b, err := r.read(path.Join(dir, "vpd"), maxConfigBytes); err == nil {
				d.SetVPD(vpdKeyword(b, "V3"), vpdKeyword(b, "SN"))
			}
		case d.Kind == topology.KindAccelerator && d.VendorID == topology.VendorAMD:
			compute, memory := d.ComputePartition(), d.MemoryPartition()
			if s, err := r.text(path.Join(dir, "current_compute_partition")); err == nil {
				compute = s
			}
			if s, err := r.text(path.Join(dir, "current_memory_partition")); err == nil {
				memory = s
			}
			d.SetPartitions(compute, memory)
		}
		for _, n := range d.Netdevs {
			nd, err := r.resolve(path.Join(pathNet, n))
			if err != nil {
				continue
			}
			if t, err := r.resolve(path.Join(nd, linkNetMaster)); err == nil && d.Bond == "" {
				d.Bond = path.Base(t)
			}
		}
	}
}

// readLAGs gives each function that holds the RDMA device of a bond (mlx5
// RoCE LAG: mlx5_bond_N on the bond's first function) the bond's mode and
// ports: the bond's lower_<if> links (netdev_adjacent), each port's
// net/<if>/speed, and bonding/mode ("802.3ad 4": the name first).
func (r *reader) readLAGs() {
	for _, d := range r.g.Devices {
		if d.Bond == "" || len(d.RDMA) == 0 {
			continue
		}
		dir, err := r.resolve(path.Join(pathNet, d.Bond))
		if err != nil {
			continue
		}
		entries, err := fs.ReadDir(r.fsys, dir)
		if err != nil {
			continue
		}
		lag := &topology.LAG{Bond: d.Bond}
		if s, err := r.text(path.Join(dir, fileBondMode)); err == nil {
			if f := strings.Fields(s); len(f) > 0 {
				lag.Mode = f[0]
			}
		}
		for _, e := range entries {
			nd, ok := strings.CutPrefix(e.Name(), linkBondLower)
			if !ok {
				continue
			}
			m := topology.LAGMember{Netdev: nd}
			for _, o := range r.g.Devices {
				if slices.Contains(o.Netdevs, nd) {
					m.Addr = o.Addr
				}
			}
			if mbps, err := r.int(path.Join(pathNet, nd, fileNetSpeed)); err == nil && mbps > 0 {
				m.Gbps = float64(mbps) / 1000
			}
			lag.Members = append(lag.Members, m)
		}
		slices.SortFunc(lag.Members, func(a, b topology.LAGMember) int {
			if a.Addr == b.Addr {
				return strings.Compare(a.Netdev, b.Netdev)
			}
			if a.Addr.Less(b.Addr) {
				return -1
			}
			return 1
		})
		d.SetLAG(lag)
	}
}

// vpdKeyword returns the value of a read-only VPD keyword (PCI Local Bus
// Specification §6.4: large resources 0x82 identifier and 0x90 VPD-R, each
// with a 16-bit length; keywords of two letters and a length byte), as
// rdma_topo's parse_vpd reads V3. It returns "" on malformed data.
func vpdKeyword(b []byte, key string) string {
	for i := 0; i < len(b); {
		tag := b[i]
		if tag == 0x78 || tag == 0x79 { // end tags
			return ""
		}
		if tag&0x80 == 0 { // small resource: length in the low three bits
			i += 1 + int(tag&0x07)
			continue
		}
		if i+3 > len(b) {
			return ""
		}
		n := int(b[i+1]) | int(b[i+2])<<8
		data := b[i+3 : min(len(b), i+3+n)]
		if tag == 0x90 {
			for j := 0; j+3 <= len(data); {
				k, l := string(data[j:j+2]), int(data[j+2])
				if j+3+l > len(data) {
					return ""
				}
				if k == key {
					return strings.TrimSpace(string(data[j+3 : j+3+l]))
				}
				j += 3 + l
			}
		}
		i += 3 + n
	}
	return ""
}
