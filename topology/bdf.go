package topology

import (
	"fmt"
	"strconv"
	"strings"
)

// BDF is a PCI function address: domain, bus, device, function.
type BDF struct {
	Domain   uint32
	Bus      uint8
	Device   uint8
	Function uint8
}

// String formats the canonical lowercase form "0000:01:00.0".
func (b BDF) String() string {
	return fmt.Sprintf("%04x:%02x:%02x.%x", b.Domain, b.Bus, b.Device, b.Function)
}

// Short formats "01:00.0", as lspci does for domain 0.
func (b BDF) Short() string {
	return fmt.Sprintf("%02x:%02x.%x", b.Bus, b.Device, b.Function)
}

// Less orders addresses numerically.
func (b BDF) Less(o BDF) bool {
	if b.Domain != o.Domain {
		return b.Domain < o.Domain
	}
	if b.Bus != o.Bus {
		return b.Bus < o.Bus
	}
	if b.Device != o.Device {
		return b.Device < o.Device
	}
	return b.Function < o.Function
}

// SameDevice reports whether b and o are functions of one device.
func (b BDF) SameDevice(o BDF) bool {
	return b.Domain == o.Domain && b.Bus == o.Bus && b.Device == o.Device
}

// ParseBDF parses "DDDD:BB:DD.F" or the short "BB:DD.F" (domain 0), in any
// letter case.
func ParseBDF(s string) (BDF, error) {
	bad := func() (BDF, error) {
		return BDF{}, fmt.Errorf("invalid PCI address %q: want DDDD:BB:DD.F or BB:DD.F", s)
	}
	parts := strings.Split(s, ":")
	var dom uint64
	switch len(parts) {
	case 2:
	case 3:
		d, err := strconv.ParseUint(parts[0], 16, 32)
		if err != nil || parts[0] == "" || len(parts[0]) > 8 {
			return bad()
		}
		dom = d
		parts = parts[1:]
	default:
		return bad()
	}
	devFn := strings.Split(parts[1], ".")
	if len(devFn) != 2 || len(parts[0]) != 2 || len(devFn[0]) != 2 || len(devFn[1]) != 1 {
		return bad()
	}
	bus, err1 := strconv.ParseUint(parts[0], 16, 8)
	dev, err2 := strconv.ParseUint(devFn[0], 16, 8)
	fn, err3 := strconv.ParseUint(devFn[1], 16, 8)
	if err1 != nil || err2 != nil || err3 != nil || dev > 0x1f || fn > 7 {
		return bad()
	}
	return BDF{Domain: uint32(dom), Bus: uint8(bus), Device: uint8(dev), Function: uint8(fn)}, nil
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
