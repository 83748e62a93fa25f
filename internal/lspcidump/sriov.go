package lspcidump

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gdtopo/gdtopo/internal/words"
	"github.com/gdtopo/gdtopo/topology"
)

// sriov is what a physical function's SR-IOV capability says in lspci -vvv
// (pciutils ls-ecaps.c, cap_sriov): whether its virtual functions are
// enabled, how many, and where they are.
type sriov struct {
	ctlKnown, enabled bool // IOVCtl: Enable+
	numKnown          bool
	numVFs            int // Number of VFs
	layoutKnown       bool
	offset, stride    int    // VF offset, stride
	device            uint16 // the virtual functions' device ID
}

func (s sriov) known() bool { return s.ctlKnown || s.numKnown || s.layoutKnown }

// placed reports whether the capability says where all of the function's
// virtual functions are, or that it has none enabled: no other function
// is one of its.
func (s sriov) placed() bool {
	return s.ctlKnown && (!s.enabled || s.numKnown && s.layoutKnown)
}

// mellanoxVFs are the device IDs of Mellanox virtual functions (pci.ids,
// vendor 15b3: ConnectX-3 to ConnectX Family mlx5Gen), for dumps that give
// IDs without names (lspci -n).
var mellanoxVFs = map[uint16]bool{
	0x1002: true, 0x1004: true, 0x1012: true, 0x1014: true, 0x1016: true,
	0x1018: true, 0x101a: true, 0x101c: true, 0x101e: true,
}

// vfName reports whether a model name is a virtual function's, as pci.ids
// names them: "... Virtual Function", "... VF", "[VF]", "(SR-IOV VF)".
func vfName(name string) bool {
	if strings.Contains(strings.ToLower(name), "virtual function") {
		return true
	}
	for _, w := range strings.FieldsFunc(name, func(c rune) bool {
		return !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9')
	}) {
		if w == "VF" {
			return true
		}
	}
	return false
}

// virtualFunctions sets the SR-IOV virtual functions aside, as the sysfs
// reader does for those with a physfn link: each gets its physical
// function's address (Device.PhysFn), so it is neither an accelerator nor
// a NIC of its own. A physical function's SR-IOV capability (-vvv) places
// its virtual functions exactly, at routing IDs offset + i*stride past its
// own (Linux drivers/pci/iov.c, pci_iov_virtfn_bus and
// pci_iov_virtfn_devfn). Other forms show only names or device IDs: a
// function named as a virtual function belongs to a function of its
// vendor and kind on its bus that is not one. One with no such function
// in the dump (a virtual function passed through to a VM, whose physical
// function is the host's) stays a device of its own, as in a VM's sysfs.
func (p *parser) virtualFunctions(g *topology.Graph, recs map[topology.BDF]*rec, devs map[topology.BDF]*topology.Device) {
	vfDevices := map[uint32]bool{} // vendor<<16|device of the virtual functions capabilities name
	for _, pf := range g.Devices {
		r := recs[pf.Addr]
		s := r.sriov
		if !s.layoutKnown {
			continue
		}
		if r.vendorKnown {
			vfDevices[uint32(r.vendor)<<16|uint32(s.device)] = true
		}
		if !s.numKnown || s.ctlKnown && !s.enabled {
			continue // none enabled, or how many unknown
		}
		rid := int(pf.Addr.Bus)<<8 | int(pf.Addr.Device)<<3 | int(pf.Addr.Function)
		for i := range s.numVFs {
			v := rid + s.offset + s.stride*i
			if v > 0xffff {
				break
			}
			a := topology.BDF{Domain: pf.Addr.Domain, Bus: uint8(v >> 8), Device: uint8(v >> 3 & 0x1f), Function: uint8(v & 7)}
			if d := devs[a]; d != nil && d != pf && d.PhysFn() == "" {
				d.SetPhysFn(pf.BDF())
			}
		}
	}
	isVF := func(d *topology.Device) bool {
		r := recs[d.Addr]
		return vfName(r.name) || r.vendorKnown && r.devKnown &&
			(r.vendor == topology.VendorMellanox && mellanoxVFs[r.device] || vfDevices[uint32(r.vendor)<<16|uint32(r.device)])
	}
	type bus struct {
		dom uint32
		bus uint8
	}
	byBus := map[bus][]*topology.Device{}
	for _, d := range g.Devices {
		byBus[bus{d.Addr.Domain, d.Addr.Bus}] = append(byBus[bus{d.Addr.Domain, d.Addr.Bus}], d)
	}
	ambiguous := map[*topology.Device][]*topology.Device{} // first physical function taken, for the warning
	var taken []*topology.Device
	for _, d := range g.Devices { // in address order
		if d.PhysFn() != "" || d.Kind == topology.KindBridge || !isVF(d) {
			continue
		}
		r := recs[d.Addr]
		var pfs []*topology.Device
		for _, o := range byBus[bus{d.Addr.Domain, d.Addr.Bus}] {
			or := recs[o.Addr]
			if o != d && o.PhysFn() == "" && o.Kind == d.Kind && r.vendorKnown && or.vendorKnown && or.vendor == r.vendor && !isVF(o) && !or.sriov.placed() {
				pfs = append(pfs, o)
			}
		}
		if len(pfs) == 0 {
			continue
		}
		d.SetPhysFn(pfs[0].BDF())
		if len(pfs) > 1 {
			if ambiguous[pfs[0]] == nil {
				taken = append(taken, pfs[0])
			}
			ambiguous[pfs[0]] = append(ambiguous[pfs[0]], d)
		}
	}
	sort.Slice(taken, func(i, j int) bool { return taken[i].Addr.Less(taken[j].Addr) })
	for _, pf := range taken {
		vfs := ambiguous[pf]
		var others []string
		for _, o := range byBus[bus{pf.Addr.Domain, pf.Addr.Bus}] {
			if o != pf && o.PhysFn() == "" && o.Kind == pf.Kind && recs[o.Addr].vendor == recs[pf.Addr].vendor && !isVF(o) && !recs[o.Addr].sriov.placed() {
				others = append(others, o.BDF())
			}
		}
		p.warnings = append(p.warnings, topology.Warning{Subject: vfs[0].BDF(), Message: fmt.Sprintf(
			"%s on bus %04x:%02x set aside as SR-IOV virtual functions, physfn given as %s: whether each is its or %s's, "+
				"this lspci output does not say (sudo lspci -vvv shows each physical function's SR-IOV capability)",
			words.Count(len(vfs), "function"), pf.Addr.Domain, pf.Addr.Bus, pf.BDF(), strings.Join(others, "'s or "))})
	}
}
