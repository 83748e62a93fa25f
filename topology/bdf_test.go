package topology

import (
	"fmt"
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
