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

// String formats the canonical lowercase form "0000:01:00.0" (the domain
// has more digits where it needs them, as %04x gives).
func (b BDF) String() string {
	var buf [24]byte
	s := appendHex(buf[:0], uint64(b.Domain), 4)
	s = append(s, ':')
	return string(b.appendShort(s))
}

// Short formats "01:00.0", as lspci does for domain 0.
func (b BDF) Short() string {
	var buf [16]byte
	return string(b.appendShort(buf[:0]))
}

// appendShort appends "BB:DD.F". Formatted by hand rather than with
// fmt.Sprintf: a check of an hwloc XML asks for addresses thousands of times.
func (b BDF) appendShort(s []byte) []byte {
	s = appendHex(s, uint64(b.Bus), 2)
	s = append(s, ':')
	s = appendHex(s, uint64(b.Device), 2)
	s = append(s, '.')
	return appendHex(s, uint64(b.Function), 1)
}

// appendHex appends v in lowercase hexadecimal, zero-padded to width
// digits, as fmt's %0<width>x.
func appendHex(s []byte, v uint64, width int) []byte {
	const digits = "0123456789abcdef"
	n := 1
	for x := v >> 4; x != 0; x >>= 4 {
		n++
	}
	for ; n < width; width-- {
		s = append(s, '0')
	}
	for shift := 4 * (n - 1); shift >= 0; shift -= 4 {
		s = append(s, digits[v>>uint(shift)&0xf])
	}
	return s
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
	// Cut rather than Split: a text reader parses every function's address,
	// and Split allocated twice for each.
	rest := s
	var dom uint64
	switch strings.Count(s, ":") {
	case 1:
	case 2:
		var ds string
		ds, rest, _ = strings.Cut(s, ":")
		d, err := strconv.ParseUint(ds, 16, 32)
		if err != nil || ds == "" || len(ds) > 8 {
			return bad()
		}
		dom = d
	default:
		return bad()
	}
	busS, devFn, _ := strings.Cut(rest, ":")
	devS, fnS, _ := strings.Cut(devFn, ".")
	if strings.Count(devFn, ".") != 1 || len(busS) != 2 || len(devS) != 2 || len(fnS) != 1 {
		return bad()
	}
	bus, err1 := strconv.ParseUint(busS, 16, 8)
	dev, err2 := strconv.ParseUint(devS, 16, 8)
	fn, err3 := strconv.ParseUint(fnS, 16, 8)
	if err1 != nil || err2 != nil || err3 != nil || dev > 0x1f || fn > 7 {
		return bad()
	}
	return BDF{Domain: uint32(dom), Bus: uint8(bus), Device: uint8(dev), Function: uint8(fn)}, nil
}
