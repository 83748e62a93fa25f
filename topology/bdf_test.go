package topology

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// TestBDFFormat compares the hand-made formatting of addresses with fmt's,
// over every bus, device and function and domains of one to eight digits.
func TestBDFFormat(t *testing.T) {
	for _, dom := range []uint32{0, 1, 0xa, 0xffff, 0x10000, 0x123456, PositionalDomain} {
		for bus := 0; bus < 256; bus++ {
			for dev := 0; dev < 32; dev += 7 {
				for fn := 0; fn < 16; fn += 3 {
					b := BDF{Domain: dom, Bus: uint8(bus), Device: uint8(dev), Function: uint8(fn)}
					if got, want := b.String(), fmt.Sprintf("%04x:%02x:%02x.%x", dom, bus, dev, fn); got != want {
						t.Fatalf("%#v.String() = %q, want %q", b, got, want)
					}
					if got, want := b.Short(), fmt.Sprintf("%02x:%02x.%x", bus, dev, fn); got != want {
						t.Fatalf("%#v.Short() = %q, want %q", b, got, want)
					}
				}
			}
		}
	}
	if d := NewDevice(BDF{Domain: 1, Bus: 0x41, Function: 1}); d.BDF() != "0001:41:00.1" || d.NUMANode != -1 || d.RawNUMANode != -1 {
		t.Errorf("NewDevice: BDF %q, NUMA %d, raw %d", d.BDF(), d.NUMANode, d.RawNUMANode)
	}
}

// splitParseBDF is ParseBDF as it was written with strings.Split, the
// reference FuzzParseBDF holds the allocation-free one to.
func splitParseBDF(s string) (BDF, bool) {
	parts := strings.Split(s, ":")
	var dom uint64
	switch len(parts) {
	case 2:
	case 3:
		d, err := strconv.ParseUint(parts[0], 16, 32)
		if err != nil || parts[0] == "" || len(parts[0]) > 8 {
			return BDF{}, false
		}
		dom = d
		parts = parts[1:]
	default:
		return BDF{}, false
	}
	devFn := strings.Split(parts[1], ".")
	if len(devFn) != 2 || len(parts[0]) != 2 || len(devFn[0]) != 2 || len(devFn[1]) != 1 {
		return BDF{}, false
	}
	bus, err1 := strconv.ParseUint(parts[0], 16, 8)
	dev, err2 := strconv.ParseUint(devFn[0], 16, 8)
	fn, err3 := strconv.ParseUint(devFn[1], 16, 8)
	if err1 != nil || err2 != nil || err3 != nil || dev > 0x1f || fn > 7 {
		return BDF{}, false
	}
	return BDF{Domain: uint32(dom), Bus: uint8(bus), Device: uint8(dev), Function: uint8(fn)}, true
}

// FuzzParseBDF requires ParseBDF to accept and read exactly what the
// Split-based parser did.
func FuzzParseBDF(f *testing.F) {
	for _, s := range []string{"0000:01:00.0", "01:00.0", "ffffffff:ff:1f.7", "1:2:3:4", "00:00.0.0", ":01:00.0", "0000:1:00.0",
		"0000:01:20.0", "0000:01:00.8", "0000:01:00.", "0000:01:00", "123456789:00:00.0", "+000:00:00.0", "0000:0x:00.0", "00.0:00:00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, wantOK := splitParseBDF(s)
		got, err := ParseBDF(s)
		if (err == nil) != wantOK || got != want {
			t.Fatalf("ParseBDF(%q) = %v, %v; Split-based: %v, %v", s, got, err, want, wantOK)
		}
	})
}

// TestNodeOfCPUs: a cpulist's node is the one holding every CPU of it;
// lists that span nodes, are empty or do not parse have none, and a node
// whose own list does not parse is passed over.
func TestNodeOfCPUs(t *testing.T) {
	s := System{NUMANodes: []NUMANode{{ID: 0, CPUs: "0-3,8-11"}, {ID: 1, CPUs: "bad"}, {ID: 2, CPUs: "4-7,12-15,64,200-201"}, {ID: 3, CPUs: ""}}}
	for list, want := range map[string]int{
		"0-3": 0, "1,9-10": 0, " 8-11\n": 0, "4": 2, "12-15,64": 2, "201": 2, "200-201,7": 2,
		"3-4": -1, "0-11": -1, "16": -1, "65": -1, "202": -1, "": -1, "x": -1, "3-1": -1, "0,": -1, "1-2,,3": -1, "70000": -1,
	} {
		if got := s.NodeOfCPUs(list); got != want {
			t.Errorf("NodeOfCPUs(%q) = %d, want %d", list, got, want)
		}
	}
}
