package pciconfig

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gdtopo/gdtopo/fixtures/fixturetest"
)

// cfg is a test-only configuration space builder: set bytes at offsets.
type cfg []byte

func (c cfg) b8(off int, v uint8) cfg   { c[off] = v; return c }
func (c cfg) w16(off int, v uint16) cfg { binary.LittleEndian.PutUint16(c[off:], v); return c }
func (c cfg) w32(off int, v uint32) cfg { binary.LittleEndian.PutUint32(c[off:], v); return c }

// Identities written by dev.build (the H100 and PEX890xx DSP of sysfs-reference.md §6).
const (
	gpuVendor, gpuDevice, gpuClass, gpuRev = 0x10de, 0x2330, 0x030200, 0xa1
	gpuSubVendor, gpuSubDevice             = 0x10de, 0x16c1
	swVendor, swDevice, swClass, swRev     = 0x1000, 0xc030, 0x060400, 0xb0
	pmOff, expOff                          = 0x40, 0x60 // PM capability, then PCIe capability
)

// extCap is one extended capability: ID, then the 16-bit registers at +4 and +6.
type extCap struct{ id, reg4, reg6 uint16 }

// dev describes a 4096-byte PCIe function: a PM capability at 0x40 chaining to the PCIe
// capability at 0x60, and extended capabilities chained from 0x100 (0x40 apart).
type dev struct {
	bridge                  bool // header type 1 with a PCI bridge class
	buses                   [3]uint8
	vendor, device          uint16 // 0: the default identity
	flags                   uint16 // PCIe Capabilities: version | type<<4 | slot<<8
	devCap, lnkCap, lnkCap2 uint32
	devCtl, lnkSta          uint16
	ext                     []extCap
}

func (d dev) build() cfg {
	c := make(cfg, ExtendedSize)
	vendor, device, class, rev := uint16(gpuVendor), uint16(gpuDevice), uint32(gpuClass), uint32(gpuRev)
	if d.bridge {
		vendor, device, class, rev = swVendor, swDevice, swClass, swRev
		c.b8(0x0e, 1).b8(0x18, d.buses[0]).b8(0x19, d.buses[1]).b8(0x1a, d.buses[2])
	} else {
		c.w16(0x2c, gpuSubVendor).w16(0x2e, gpuSubDevice)
	}
	if d.vendor != 0 {
		vendor, device = d.vendor, d.device
	}
	c.w16(0x00, vendor).w16(0x02, device).w16(0x04, 0x0406).w16(0x06, 0x0010).w32(0x08, class<<8|rev).b8(0x34, pmOff)
	c.b8(pmOff, 0x01).b8(pmOff+1, expOff).w16(pmOff+2, 0x0003)
	c.b8(expOff, 0x10).w16(expOff+0x02, d.flags).w32(expOff+0x04, d.devCap).w16(expOff+0x08, d.devCtl)
	c.w32(expOff+0x0c, d.lnkCap).w16(expOff+0x12, d.lnkSta).w32(expOff+0x2c, d.lnkCap2)
	for i, e := range d.ext {
		off, next := LegacySize+0x40*i, uint32(0)
		if i+1 < len(d.ext) {
			next = uint32(off + 0x40)
		}
		c.w32(off, uint32(e.id)|1<<16|next<<20).w16(off+4, e.reg4).w16(off+6, e.reg6)
	}
	return c
}

// gpuHeader and swHeader are the Config fields dev.build writes in the header.
func gpuHeader(n int) Config {
	return Config{Len: n, VendorID: gpuVendor, DeviceID: gpuDevice, Class: gpuClass, Revision: gpuRev,
		SubsystemVendor: gpuSubVendor, SubsystemDevice: gpuSubDevice, SubsystemKnown: true}
}

func swHeader(n int, buses [3]uint8) Config {
	return Config{Len: n, VendorID: swVendor, DeviceID: swDevice, Class: swClass, Revision: swRev, HeaderType: 1,
		PrimaryBus: buses[0], SecondaryBus: buses[1], SubordinateBus: buses[2]}
}

// with returns base with the capability results set.
func with(base Config, caps bool, e *Express, ext bool, acs *ACS, ats *ATS) Config {
	base.CapsReadable, base.Express, base.ExtReadable, base.ACS, base.ATS = caps, e, ext, acs, ats
	return base
}

// gpuDev is the §6 H100: Gen5 x16 capable, trained at Gen4 x16, MPS 256 of 512, MRRS 4096, RlxdOrd+.
func gpuDev() dev {
	return dev{flags: 0x0002, devCap: 0x10008022, devCtl: 0x5930, lnkCap: 0x07100105, lnkSta: 0x2104, lnkCap2: 0x3e}
}

func gpuExpress(off int) *Express {
	return &Express{Offset: off, Version: 2, PortType: Endpoint, MaxPayloadSupported: 512, RelaxedOrdering: true,
		MaxPayload: 256, MaxReadRequest: 4096, LinkKnown: true, MaxSpeed: 5, MaxWidth: 16, PortNumber: 7,
		CurSpeed: 4, CurWidth: 16, SupportedSpeeds: 0x3e}
}

func dspExpress() *Express {
	return &Express{Offset: expOff, Version: 2, PortType: DownstreamPort, SlotImplemented: true,
		MaxPayloadSupported: 512, RelaxedOrdering: true, MaxPayload: 256, MaxReadRequest: 512,
		LinkKnown: true, MaxSpeed: 5, MaxWidth: 16, CurSpeed: 5, CurWidth: 16, SupportedSpeeds: 0x3e}
}

// dspDev is the §6 switch downstream port with ACSCap 0x001d and ACSCtl 0x000c.
func dspDev() dev {
	return dev{bridge: true, buses: [3]uint8{2, 3, 3}, flags: 0x0162, devCap: 0x8022, devCtl: 0x2930,
		lnkCap: 0x00100105, lnkSta: 0x2105, lnkCap2: 0x3e, ext: []extCap{{extCapIDACS, 0x001d, 0x000c}}}
}

func TestParse(t *testing.T) {
	gpuATS := gpuDev()
	gpuATS.ext = []extCap{{0x0001, 0, 0}, {extCapIDATS, 0x0005, 0x8003}} // AER, then ATS
	rciep := gpuDev()
	rciep.flags = 0x0092
	gpuV1 := gpuDev()
	gpuV1.flags = 0x0001
	atsFirst := gpuDev()
	atsFirst.ext = []extCap{{extCapIDATS, 0, 0x8000}}
	bridge := dspDev()
	bridge.buses = [3]uint8{0x02, 0x03, 0x05}
	bridge.ext = nil

	tests := []struct {
		name string
		in   []byte
		want Config
	}{
		{"unprivileged 64-byte read", gpuDev().build()[:64], with(gpuHeader(64), false, nil, false, nil, nil)},
		{"256-byte endpoint", gpuDev().build()[:256], with(gpuHeader(256), true, gpuExpress(expOff), false, nil, nil)},
		{"4096-byte downstream port with ACS", dspDev().build(), with(swHeader(4096, dspDev().buses), true, dspExpress(),
			true, &ACS{Offset: 0x100, Cap: 0x001d, Ctl: 0x000c}, nil)},
		{"endpoint with ATS enabled after AER", gpuATS.build(), with(gpuHeader(4096), true, gpuExpress(expOff), true,
			nil, &ATS{Offset: 0x140, InvalidateQueueDepth: 5, Enabled: true, SmallestTranslationUnit: 3})},
		{"type-1 bridge bus numbers, subsystem bytes ignored", bridge.build().w32(0x2c, 0xdeadbeef)[:64],
			with(swHeader(64, bridge.buses), false, nil, false, nil, nil)},
		{"multi-function header bit", gpuDev().build().b8(0x0e, 0x80)[:64], func() Config {
			c := gpuHeader(64)
			c.MultiFunction = true
			return c
		}()},
		{"RC integrated endpoint has no link", rciep.build()[:256], with(gpuHeader(256), true,
			&Express{Offset: expOff, Version: 2, PortType: RCIntegratedEndpoint, MaxPayloadSupported: 512,
				RelaxedOrdering: true, MaxPayload: 256, MaxReadRequest: 4096}, false, nil, nil)},
		{"x32 link at 8 GT/s, port 255", gpuDev().build().w32(expOff+0x0c, 0xff000203).w16(expOff+0x12, 0x0203)[:256], func() Config {
			e := gpuExpress(expOff)
			e.MaxSpeed, e.MaxWidth, e.PortNumber, e.CurSpeed, e.CurWidth = 3, 32, 255, 3, 32
			return with(gpuHeader(256), true, e, false, nil, nil)
		}()},
		{"version 1 has no LnkCap2", gpuV1.build()[:256], func() Config {
			e := gpuExpress(expOff)
			e.Version, e.SupportedSpeeds = 1, 0
			return with(gpuHeader(256), true, e, false, nil, nil)
		}()},
		{"PCIe capability cut mid device registers", gpuDev().build()[:expOff+0x0b],
			with(gpuHeader(expOff+0x0b), false, nil, false, nil, nil)},
		{"PCIe capability cut before link registers", gpuDev().build()[:expOff+0x13], func() Config {
			e := gpuExpress(expOff)
			e.LinkKnown, e.MaxSpeed, e.MaxWidth, e.PortNumber, e.CurSpeed, e.CurWidth, e.SupportedSpeeds = false, 0, 0, 0, 0, 0, 0
			return with(gpuHeader(expOff+0x13), true, e, false, nil, nil)
		}()},
		// A loop leaves the list unread (lspci: "<chain looped>"): what came
		// before it stands, the rest is unknown, never "absent".
		{"cap list loop 0x40 to 0x40", gpuDev().build().b8(pmOff+1, pmOff)[:256], capsLooped(with(gpuHeader(256), false, nil, false, nil, nil))},
		{"cap list loop through PCIe", gpuDev().build().b8(expOff+1, pmOff)[:256],
			capsLooped(with(gpuHeader(256), false, gpuExpress(expOff), false, nil, nil))},
		{"cap pointer beyond Len", gpuDev().build().b8(0x34, 0xc0)[:128], with(gpuHeader(128), false, nil, false, nil, nil)},
		{"cap pointer below 0x40 ends the list", gpuDev().build().b8(0x34, 0x20)[:256], with(gpuHeader(256), true, nil, false, nil, nil)},
		{"cap ID 0xff ends the list", gpuDev().build().b8(pmOff, 0xff)[:256], with(gpuHeader(256), true, nil, false, nil, nil)},
		{"no capability list (Status bit 4 clear)", gpuDev().build().w16(0x06, 0)[:64], with(gpuHeader(64), true, nil, false, nil, nil)},
		{"CardBus header uses pointer at 0x14", gpuDev().build().b8(0x0e, 2).b8(0x14, expOff)[:256], func() Config {
			c := with(gpuHeader(256), true, gpuExpress(expOff), false, nil, nil)
			c.HeaderType, c.SubsystemVendor, c.SubsystemDevice, c.SubsystemKnown = 2, 0, 0, false
			return c
		}()},
		{"unknown header type: caps unknown", gpuDev().build().b8(0x0e, 0x05)[:256], func() Config {
			c := gpuHeader(256)
			c.HeaderType, c.SubsystemVendor, c.SubsystemDevice, c.SubsystemKnown = 5, 0, 0, false
			return c
		}()},
		{"ext cap loop (next = self)", gpuDev().build().w32(0x100, 0x10010001), extLooped(with(gpuHeader(4096), true, gpuExpress(expOff), false, nil, nil))},
		{"ext cap loop through ACS", dspDev().build().w32(0x100, 0x1401000d).w32(0x140, 0x10010001),
			extLooped(with(swHeader(4096, dspDev().buses), true, dspExpress(), false, &ACS{Offset: 0x100, Cap: 0x001d, Ctl: 0x000c}, nil))},
		{"ext next pointer below 0x100 ends the list", gpuDev().build().w32(0x100, 0x0c010001), with(gpuHeader(4096), true, gpuExpress(expOff), true, nil, nil)},
		{"ext header all ones", gpuDev().build().w32(0x100, 0xffffffff), with(gpuHeader(4096), true, gpuExpress(expOff), true, nil, nil)},
		{"ext list leaves the bytes", gpuATS.build()[:0x110], with(gpuHeader(0x110), true, gpuExpress(expOff), false, nil, nil)},
		{"ext ACS registers cut", dspDev().build()[:0x106], with(swHeader(0x106, dspDev().buses), true, dspExpress(), false, nil, nil)},
		{"ext ATS registers cut", atsFirst.build()[:0x106], with(gpuHeader(0x106), true, gpuExpress(expOff), false, nil, nil)},
		{"cap chain through all 48 dword slots hits the TTL", capChain(gpuDev().build()[:256]), capsLooped(with(gpuHeader(256), false, nil, false, nil, nil))},
		{"ext chain of 481 entries hits the TTL before ACS", extChain(dspDev().build(), 481),
			extLooped(with(swHeader(4096, dspDev().buses), true, dspExpress(), false, nil, nil))},
		{"ext chain of 480 entries ends in ACS", extChain(dspDev().build(), 480),
			with(swHeader(4096, dspDev().buses), true, dspExpress(), true, &ACS{Offset: 0x100 + 479*4, Cap: 0x001d, Ctl: 0x000c}, nil)},
		{"bytes beyond 4096 ignored", append(gpuDev().build(), 1, 2, 3), with(gpuHeader(4096), true, gpuExpress(expOff), true, nil, nil)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.in)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Parse (-want +got):\n%s", diff)
			}
		})
	}
}

// capChain links vendor-specific capabilities 0x40 -> 0x44 -> ... -> 0xfc -> 0x40.
// capsLooped is c with its capability list marked looped.
func capsLooped(c Config) Config { c.CapsLooped = true; return c }

// extLooped is c with its extended capability list marked looped.
func extLooped(c Config) Config { c.ExtLooped = true; return c }

func capChain(c cfg) cfg {
	for off := HeaderSize; off < LegacySize; off += 4 {
		next := off + 4
		if next == LegacySize {
			next = HeaderSize
		}
		c.b8(off, 0x09).b8(off+1, uint8(next))
	}
	return c
}

// extChain writes n-1 vendor-specific headers 4 bytes apart from 0x100, then
// an ACS header with no registers after it: it is the n-th entry.
func extChain(c cfg, n int) cfg {
	off := LegacySize
	for range n - 1 {
		c.w32(off, 0x0001000b|uint32(off+4)<<20)
		off += 4
	}
	return c.w32(off, 0x0001000d).w32(off+4, 0x000c001d)
}

func mustParse(t *testing.T, b []byte) Config {
	t.Helper()
	c, err := Parse(b)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return c
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		want string
	}{
		{"nil", nil, "config space: 0 bytes, need at least 64"},
		{"63 bytes", gpuDev().build()[:63], "config space: 63 bytes, need at least 64"},
		{"no device", gpuDev().build().w16(0, 0xffff)[:64], "config space: vendor id 0xffff, no device"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(tt.in)
			if err == nil || err.Error() != tt.want {
				t.Errorf("Parse error = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestACS(t *testing.T) {
	tests := []struct {
		ctl                  uint16
		rr, cr, sv, redirect bool
		words                string
	}{
		{0x000c, true, true, false, true, "SrcValid- TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd- EgressCtrl- DirectTrans-"},
		{0x001d, true, true, true, true, "SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-"},
		{0x0001, false, false, true, false, "SrcValid+ TransBlk- ReqRedir- CmpltRedir- UpstreamFwd- EgressCtrl- DirectTrans-"},
		{0x0008, false, true, false, true, "SrcValid- TransBlk- ReqRedir- CmpltRedir+ UpstreamFwd- EgressCtrl- DirectTrans-"},
		{0xff62, false, false, false, false, "SrcValid- TransBlk+ ReqRedir- CmpltRedir- UpstreamFwd- EgressCtrl+ DirectTrans+"},
	}
	for _, tt := range tests {
		a := ACS{Cap: tt.ctl ^ 0x7f, Ctl: tt.ctl}
		if a.ReqRedirect() != tt.rr || a.CompletionRedirect() != tt.cr || a.SourceValidation() != tt.sv || a.Redirects() != tt.redirect {
			t.Errorf("ACS Ctl %#04x: RR %v CR %v SV %v Redirects %v, want %v %v %v %v", tt.ctl,
				a.ReqRedirect(), a.CompletionRedirect(), a.SourceValidation(), a.Redirects(), tt.rr, tt.cr, tt.sv, tt.redirect)
		}
		if a.String() != tt.words {
			t.Errorf("ACS Ctl %#04x String() = %q, want %q", tt.ctl, a.String(), tt.words)
		}
		if want := (ACS{Ctl: a.Cap}).String(); a.CapString() != want {
			t.Errorf("ACS Cap %#04x CapString() = %q, want %q", a.Cap, a.CapString(), want)
		}
	}
}

func TestPortTypeString(t *testing.T) {
	tests := map[PortType]string{
		Endpoint: "Endpoint", LegacyEndpoint: "Legacy Endpoint", RootPort: "Root Port", UpstreamPort: "Upstream Port",
		DownstreamPort: "Downstream Port", PCIeToPCIBridge: "PCI-Express to PCI/PCI-X Bridge",
		PCIToPCIeBridge: "PCI/PCI-X to PCI-Express Bridge", RCIntegratedEndpoint: "Root Complex Integrated Endpoint",
		RCEventCollector: "Root Complex Event Collector", 2: "Unknown (2)", 3: "Unknown (3)", 11: "Unknown (11)",
		15: "Unknown (15)", -1: "Unknown (-1)", 99: "Unknown (99)",
	}
	for p, want := range tests {
		if got := p.String(); got != want {
			t.Errorf("PortType(%d).String() = %q, want %q", int(p), got, want)
		}
	}
}

func TestSpeedGTs(t *testing.T) {
	want := map[int]float64{-1: 0, 0: 0, 1: 2.5, 2: 5, 3: 8, 4: 16, 5: 32, 6: 64, 7: 0, 15: 0}
	for code, w := range want {
		if got := SpeedGTs(code); got != w {
			t.Errorf("SpeedGTs(%d) = %v, want %v", code, got, w)
		}
	}
}

func TestParseSysfsSpeed(t *testing.T) {
	tests := []struct {
		in   string
		want float64
		ok   bool
	}{
		{"16.0 GT/s PCIe", 16, true}, {"16 GT/s", 16, true}, {"2.5 GT/s", 2.5, true}, {"5 GT/s", 5, true},
		{"8.0 GT/s PCIe", 8, true}, {"64.0 GT/s PCIe", 64, true}, {"16.0 GT/s", 16, true}, {"32 GT/s", 32, true},
		{"2.5 GT/s PCIe", 2.5, true}, {"5.0 GT/s PCIe", 5, true}, {"32.0 GT/s PCIe\n", 32, true}, {"8 GT/s", 8, true},
		{"Unknown", 0, false}, {"Unknown speed", 0, false}, {"", 0, false}, {"junk", 0, false},
		{"33 MHz PCI", 0, false}, {"8x AGP", 0, false}, {"16.0GT/s PCIe", 0, false}, {"4 GT/s", 0, false},
		{"128.0 GT/s PCIe", 0, false}, {"16.0 GT/s PCIe extra", 0, false}, {"16.0 GB/s", 0, false},
		{"1e1 GT/s", 0, false}, {"NaN GT/s", 0, false}, {"-16 GT/s", 0, false}, {"16..0 GT/s", 0, false},
		{"4.92 GT/s", 0, false}, {"GT/s", 0, false},
	}
	for _, tt := range tests {
		got, ok := ParseSysfsSpeed(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ParseSysfsSpeed(%q) = %v, %v, want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestParseLspciHex(t *testing.T) {
	full := make([]byte, 0x20)
	for i := range full {
		full[i] = byte(i)
	}
	tests := []struct {
		name    string
		rows    []string
		want    []byte
		wantErr string
	}{
		{"two full rows", []string{
			"00: 00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f",
			"10: 10 11 12 13 14 15 16 17 18 19 1a 1b 1c 1d 1e 1f"}, full, ""},
		{"gap filled with ff, partial row, upper case", []string{"00: 01 02", "", "08: AB cd\r"},
			[]byte{1, 2, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xab, 0xcd}, ""},
		{"leading device line skipped", []string{"0000:02:00.0 PCI bridge: Broadcom", "04: 07"},
			[]byte{0xff, 0xff, 0xff, 0xff, 7}, ""},
		{"three-digit offset", []string{"100: 0d 00 01 00"},
			append(bytes.Repeat([]byte{0xff}, 0x100), 0x0d, 0, 1, 0), ""},
		{"last byte of config space", []string{"fff: 01"}, append(bytes.Repeat([]byte{0xff}, 0xfff), 1), ""},
		{"no rows", nil, nil, ""},
		{"offset 4096", []string{"00: 00", "1000: 00"}, nil, "lspci hex line 2: offset 0x1000 is beyond the 4096-byte config space"},
		{"row runs past 4096", []string{"ff8: 00 01 02 03 04 05 06 07 08"}, nil, "lspci hex line 1: offset 0x1000 is beyond"},
		{"empty row beyond 4096", []string{"2000:"}, nil, "lspci hex line 1: offset 0x2000 is beyond"},
		{"bad hex byte", []string{"00: 00", "10: 0g"}, nil, `lspci hex line 2: malformed row "10: 0g"`},
		{"three-digit byte", []string{"00: 000"}, nil, "lspci hex line 1: malformed"},
		{"no space after colon", []string{"00:00 11"}, nil, "lspci hex line 1: malformed"},
		{"one-digit offset", []string{"0: 00"}, nil, "lspci hex line 1: malformed"},
		{"nine-digit offset", []string{"000000000: 00"}, nil, "lspci hex line 1: malformed"},
		{"annotation after bytes", []string{"00: de 10   vendor"}, nil, "lspci hex line 1: malformed"},
		{"second device line", []string{"03:00.0 x", "00: 00", "04:00.0 y"}, nil, "lspci hex line 3: malformed"},
		{"no colon", []string{"de 10 30 23"}, nil, "lspci hex line 1: malformed"},
		{"dotted offset is not a device line", []string{"00.5: 11"}, nil, "lspci hex line 1: malformed"},
		{"ellipsis", []string{"50: 00 00 04 21 ..."}, nil, "lspci hex line 1: malformed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseLspciHex(tt.rows)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseLspciHex error = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseLspciHex: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseLspciHex (-want +got):\n%s", diff)
			}
		})
	}
}

// TestReferenceExample parses the H100 (03:00.0) rows of sysfs-reference.md §6,
// with the annotations removed and the elided ("...") bytes zero as written there.
func TestReferenceExample(t *testing.T) {
	rows := strings.Split(`03:00.0 3D controller: NVIDIA Corporation GH100[H100 SXM5 80GB] (rev a1)
00: de 10 30 23 06 04 10 00 a1 00 02 03 00 00 00 00
10: 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00
20: 00 00 00 00 00 00 00 00 00 00 00 00 de 10 c1 16
30: 00 00 00 00 40 00 00 00 00 00 00 00 00 00 00 00
40: 10 00 02 00 22 80 00 10 30 59 00 00 05 01 10 00
50: 00 00 04 21 00 00 00 00 00 00 00 00 00 00 00 00
60: 00 00 00 00 00 00 00 00 00 00 00 00 3e 00 00 00
70: 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00`, "\n")
	b, err := ParseLspciHex(rows)
	if err != nil {
		t.Fatalf("ParseLspciHex: %v", err)
	}
	got := mustParse(t, b)
	e := gpuExpress(0x40)
	e.PortNumber = 0
	want := with(gpuHeader(0x80), true, e, false, nil, nil)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Parse (-want +got):\n%s", diff)
	}
	// The ACS row of the §6 downstream port, on its own after a 64-byte header.
	acsRows := slices.Concat(rows[1:5], []string{"100: 0d 00 01 00 1d 00 0c 00"})
	b, err = ParseLspciHex(acsRows)
	if err != nil {
		t.Fatalf("ParseLspciHex: %v", err)
	}
	if c := mustParse(t, b); c.ACS == nil || c.ACS.String() != "SrcValid- TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd- EgressCtrl- DirectTrans-" ||
		c.ACS.CapString() != "SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-" || !c.ExtReadable {
		t.Errorf("§6 ACS row: got ACS %+v ExtReadable %v", c.ACS, c.ExtReadable)
	}
}

// seeds are the hand-built inputs, also the fuzz corpus.
func seeds() [][]byte {
	gpuATS := gpuDev()
	gpuATS.ext = []extCap{{0x0001, 0, 0}, {extCapIDATS, 0x0005, 0x8003}}
	return [][]byte{
		gpuDev().build()[:64], gpuDev().build()[:256], gpuDev().build(), dspDev().build(), gpuATS.build(), dspDev().build()[:0x106],
		gpuDev().build().b8(pmOff+1, pmOff)[:256], gpuDev().build().w32(0x100, 0x10010001), gpuDev().build().b8(0x34, 0xc0)[:128],
		gpuDev().build().b8(0x0e, 2).b8(0x14, expOff)[:256],
	}
}

// checkInvariants parses b and checks what must hold for any input.
func checkInvariants(t *testing.T, b []byte) {
	t.Helper()
	c, err := Parse(b)
	if err != nil {
		if len(b) >= HeaderSize && binary.LittleEndian.Uint16(b) != vendorNone {
			t.Fatalf("Parse(%d bytes) failed: %v", len(b), err)
		}
		return
	}
	if c.Len != min(len(b), ExtendedSize) {
		t.Fatalf("Len = %d for %d bytes", c.Len, len(b))
	}
	if e := c.Express; e != nil {
		_ = e.PortType.String()
		if e.Offset < HeaderSize || e.Offset+expDevEnd > c.Len || e.MaxPayload < payloadUnit || e.MaxReadRequest < payloadUnit {
			t.Fatalf("bad Express %+v (Len %d)", *e, c.Len)
		}
		if !e.LinkKnown && (e.MaxSpeed|e.MaxWidth|e.PortNumber|e.CurSpeed|e.CurWidth|int(e.SupportedSpeeds)) != 0 {
			t.Fatalf("unknown link reported as values: %+v", *e)
		}
	}
	if c.ExtReadable && c.Len < LegacySize+4 {
		t.Fatalf("ExtReadable with Len %d", c.Len)
	}
	if a := c.ACS; a != nil && (a.Offset < LegacySize || a.Offset+extCapRegsLen > c.Len || a.String() == "") {
		t.Fatalf("bad ACS %+v (Len %d)", *a, c.Len)
	}
	if a := c.ATS; a != nil && (a.Offset < LegacySize || a.Offset+extCapRegsLen > c.Len) {
		t.Fatalf("bad ATS %+v (Len %d)", *a, c.Len)
	}
	checkSparse(t, b, &configFile{b: b}, int64(len(b)))
	for _, n := range []int{HeaderSize, 2 * HeaderSize} { // read without root: 64 bytes, 128 of a CardBus bridge
		if len(b) >= n {
			checkSparse(t, b[:n], &configFile{b: b[:n]}, ExtendedSize)
		}
	}
}

// configFile is a config file read at offsets, counting the bytes read.
type configFile struct {
	b    []byte
	read int
}

func (f *configFile) ReadAt(p []byte, off int64) (int, error) {
	if off >= int64(len(f.b)) {
		return 0, io.EOF
	}
	n := copy(p, f.b[off:])
	f.read += n
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// checkSparse requires ReadSparse of f (a file whose stat says size) to
// decode as whole, the bytes a read of the whole file gives.
func checkSparse(t *testing.T, whole []byte, f io.ReaderAt, size int64) {
	t.Helper()
	want, werr := Parse(whole)
	b, err := ReadSparse(f, make([]byte, ExtendedSize), size)
	if err != nil {
		t.Fatalf("ReadSparse: %v", err)
	}
	got, gerr := Parse(b)
	if (werr == nil) != (gerr == nil) || !reflect.DeepEqual(got, want) {
		t.Fatalf("ReadSparse of %d bytes: %d bytes decode as %+v (%v), the whole as %+v (%v)", len(whole), len(b), got, gerr, want, werr)
	}
}

// TestReadSparseFixtures reads every config file of the bundled fixtures
// in pieces, as gdtopo reads the live sysfs, and as a user without root
// (64 bytes of a file whose size says 4096): each decodes as when read
// whole, from a fraction of its bytes.
func TestReadSparseFixtures(t *testing.T) {
	var files, whole, read int
	for _, name := range fixturetest.Names(t) {
		configs := fixturetest.Files(t, name, func(member string) bool { return path.Base(member) == "config" })
		for _, b := range configs {
			f := &configFile{b: b}
			checkSparse(t, b, f, int64(len(b)))
			checkSparse(t, b[:min(len(b), HeaderSize)], &configFile{b: b[:min(len(b), HeaderSize)]}, ExtendedSize)
			files, whole, read = files+1, whole+len(b), read+f.read
		}
	}
	if files < 100 || read*4 > whole {
		t.Errorf("%d config files: %d of %d bytes read", files, read, whole)
	}
	t.Logf("%d config files: %d of %d bytes read (%.1f%%)", files, read, whole, 100*float64(read)/float64(whole))
}

// TestParseRandom runs Parse on 10k random inputs: half pure noise, half
// hand-built configs with random bytes overwritten and random truncation.
func TestParseRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	base := seeds()
	for i := range 10000 {
		var b []byte
		if i%2 == 0 {
			b = make([]byte, rng.IntN(ExtendedSize+1))
			for j := range b {
				b[j] = byte(rng.Uint32())
			}
		} else {
			b = append([]byte(nil), base[rng.IntN(len(base))]...)
			for range rng.IntN(16) + 1 {
				if len(b) > 0 {
					b[rng.IntN(len(b))] = byte(rng.Uint32())
				}
			}
			b = b[:rng.IntN(len(b)+1)]
		}
		checkInvariants(t, b)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range seeds() {
		f.Add(s)
	}
	f.Fuzz(checkInvariants)
}

// peerConfigs are the devices of the lspci peer check: the named cases, then
// random but well-formed PCIe functions (every register bit random).
func peerConfigs() []cfg {
	gpuATS := gpuDev()
	gpuATS.ext = []extCap{{extCapIDATS, 0x0000, 0x0000}}
	x8 := gpuDev()
	x8.lnkSta, x8.ext = 0x1085, []extCap{{0x0001, 0, 0}, {extCapIDATS, 0x0005, 0x8003}}
	named := []cfg{dspDev().build(), gpuATS.build(), x8.build(), gpuDev().build()[:64]}
	for _, pt := range []PortType{LegacyEndpoint, RootPort, UpstreamPort, PCIeToPCIBridge, PCIToPCIeBridge, RCIntegratedEndpoint, RCEventCollector} {
		d := dspDev()
		d.flags = 0x0102 | uint16(pt)<<4
		named = append(named, d.build())
	}
	rng := rand.New(rand.NewPCG(3, 4))
	types := []PortType{Endpoint, LegacyEndpoint, RootPort, UpstreamPort, DownstreamPort, PCIeToPCIBridge,
		PCIToPCIeBridge, RCIntegratedEndpoint, RCEventCollector}
	for range 64 {
		pt := types[rng.IntN(len(types))]
		d := dev{bridge: pt >= RootPort && pt <= PCIToPCIeBridge, vendor: uint16(rng.IntN(0xfffe) + 1), device: uint16(rng.Uint32()),
			buses: [3]uint8{uint8(rng.Uint32()), uint8(rng.Uint32()), uint8(rng.Uint32())},
			flags: uint16(rng.Uint32())&^0xf0 | uint16(pt)<<4, devCap: rng.Uint32(), devCtl: uint16(rng.Uint32()),
			lnkCap: rng.Uint32(), lnkSta: uint16(rng.Uint32()), lnkCap2: rng.Uint32()}
		if rng.IntN(2) == 0 {
			d.ext = append(d.ext, extCap{extCapIDACS, uint16(rng.Uint32()), uint16(rng.Uint32())})
		}
		if rng.IntN(2) == 0 {
			d.ext = append(d.ext, extCap{extCapIDATS, uint16(rng.Uint32()), uint16(rng.Uint32())})
		}
		named = append(named, d.build())
	}
	return named
}

// peerView is what lspci -vvv -nn shows of a function, in lspci's words.
type peerView struct {
	Ident, Bus                              string
	AccessDenied                            bool
	Express, DevCap, DevCtl, LnkCap, LnkSta string
	ACSCap, ACSCtl, ATSCap, ATSCtl          string
}

// lspciView extracts a peerView from one device's lspci -vvv -nn lines.
func lspciView(block string) peerView {
	find := func(expr string) string {
		m := regexp.MustCompile(expr).FindStringSubmatch(block)
		if m == nil {
			return ""
		}
		return strings.Join(m[1:], " ")
	}
	return peerView{
		Ident:        find(`^\S+ [^\[]*\[([0-9a-f]{4})\]: .*\[([0-9a-f]{4}:[0-9a-f]{4})\] \(rev ([0-9a-f]{2})\)`),
		Bus:          find(`Bus: (primary=[0-9a-f]+, secondary=[0-9a-f]+, subordinate=[0-9a-f]+)`),
		AccessDenied: strings.Contains(block, "Capabilities: <access denied>"),
		Express:      find(`Capabilities: \[([0-9a-f]+)\] Express \((v\d+)\) (.*), MSI`),
		DevCap:       find(`DevCap:\s+(MaxPayload \d+ bytes)`),
		DevCtl:       find(`\s(RlxdOrd[+-]) .*\n\s+(MaxPayload \d+ bytes, MaxReadReq \d+ bytes)`),
		LnkCap:       find(`LnkCap:\s+(Port #\d+, Speed \S+, Width x\d+)`),
		LnkSta:       find(`LnkSta:\s+(Speed \S+?)(?: \((?:downgraded|overdriven)\))?, (Width x\d+)`),
		ACSCap:       find(`ACSCap:\s+(.*)`),
		ACSCtl:       find(`ACSCtl:\s+(.*)`),
		ATSCap:       find(`ATSCap:\s+(Invalidate Queue Depth: [0-9a-f]+)`),
		ATSCtl:       find(`ATSCtl:\s+(Enable[+-], Smallest Translation Unit: [0-9a-f]+)`),
	}
}

// parseView renders what Parse returned in lspci's words.
func parseView(c Config) peerView {
	sign := func(b bool) string { return map[bool]string{true: "+", false: "-"}[b] }
	speed := func(code int) string {
		if g := SpeedGTs(code); g != 0 {
			return fmt.Sprintf("%gGT/s", g)
		}
		return "unknown"
	}
	v := peerView{Ident: fmt.Sprintf("%04x %04x:%04x %02x", c.Class>>8, c.VendorID, c.DeviceID, c.Revision), AccessDenied: !c.CapsReadable}
	if c.HeaderType == 1 {
		v.Bus = fmt.Sprintf("primary=%02x, secondary=%02x, subordinate=%02x", c.PrimaryBus, c.SecondaryBus, c.SubordinateBus)
	}
	if e := c.Express; e != nil {
		kind := e.PortType.String()
		if e.PortType == RootPort || e.PortType == DownstreamPort || e.PortType == PCIToPCIeBridge {
			kind += " (Slot" + sign(e.SlotImplemented) + ")"
		}
		v.Express = fmt.Sprintf("%x v%d %s", e.Offset, e.Version, kind)
		v.DevCap = fmt.Sprintf("MaxPayload %d bytes", e.MaxPayloadSupported)
		v.DevCtl = fmt.Sprintf("RlxdOrd%s MaxPayload %d bytes, MaxReadReq %d bytes", sign(e.RelaxedOrdering), e.MaxPayload, e.MaxReadRequest)
		if e.LinkKnown {
			v.LnkCap = fmt.Sprintf("Port #%d, Speed %s, Width x%d", e.PortNumber, speed(e.MaxSpeed), e.MaxWidth)
			v.LnkSta = fmt.Sprintf("Speed %s Width x%d", speed(e.CurSpeed), e.CurWidth)
		}
	}
	if a := c.ACS; a != nil {
		v.ACSCap, v.ACSCtl = a.CapString(), a.String()
	}
	if a := c.ATS; a != nil {
		v.ATSCap = fmt.Sprintf("Invalidate Queue Depth: %02x", a.InvalidateQueueDepth)
		v.ATSCtl = fmt.Sprintf("Enable%s, Smallest Translation Unit: %02x", sign(a.Enabled), a.SmallestTranslationUnit)
	}
	return v
}

// lspciBlocks runs lspci and splits its stdout into per-device blocks keyed by BDF.
func lspciBlocks(t *testing.T, lspci string, args ...string) map[string]string {
	t.Helper()
	out, err := exec.Command(lspci, args...).Output()
	if err != nil {
		t.Fatalf("lspci %s: %v", strings.Join(args, " "), err)
	}
	blocks := map[string]string{}
	for _, block := range strings.Split(string(out), "\n\n") {
		if bdf, _, ok := strings.Cut(strings.TrimLeft(block, "\n"), " "); ok {
			blocks[bdf] = strings.TrimLeft(block, "\n")
		}
	}
	return blocks
}

// TestLspciPeer writes the configs as an lspci dump (sysfs-reference.md §6.5),
// then checks that lspci -F decodes the same fields as Parse, and that
// ParseLspciHex reads lspci's own -xxxx rows back to the same bytes.
func TestLspciPeer(t *testing.T) {
	lspci, err := exec.LookPath("lspci")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("lspci is required when CI=true: %v", err)
		}
		t.Skipf("lspci not on PATH: %v", err)
	}
	configs := peerConfigs()
	var dump strings.Builder
	for i, b := range configs {
		fmt.Fprintf(&dump, "0000:%02x:00.0 x\n", i+1) // the space after the BDF is required
		for off := 0; off < len(b); off += 16 {
			fmt.Fprintf(&dump, "%02x: % x\n", off, []byte(b[off:min(off+16, len(b))]))
		}
		dump.WriteString("\n")
	}
	path := filepath.Join(t.TempDir(), "dump.txt")
	if err := os.WriteFile(path, []byte(dump.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	verbose := lspciBlocks(t, lspci, "-F", path, "-vvv", "-nn")
	hex := lspciBlocks(t, lspci, "-F", path, "-xxxx")
	var links, acs, ats int
	for i, b := range configs {
		bdf := fmt.Sprintf("%02x:00.0", i+1)
		c := mustParse(t, b)
		if c.Express != nil && c.Express.LinkKnown {
			links++
		}
		if c.ACS != nil {
			acs++
		}
		if c.ATS != nil {
			ats++
		}
		if diff := cmp.Diff(lspciView(verbose[bdf]), parseView(c)); diff != "" {
			t.Errorf("%s: lspci and Parse disagree (-lspci +Parse):\n%s\nlspci said:\n%s", bdf, diff, verbose[bdf])
		}
		rows, err := ParseLspciHex(strings.Split(hex[bdf], "\n"))
		if err != nil {
			t.Fatalf("%s: ParseLspciHex of lspci -xxxx: %v", bdf, err)
		}
		if !bytes.Equal(rows, b) {
			t.Errorf("%s: lspci -xxxx rows read back as %d bytes, differing from the %d written", bdf, len(rows), len(b))
		}
	}
	t.Logf("lspci agreed with Parse on %d functions (%d with link registers, %d ACS, %d ATS)", len(configs), links, acs, ats)
	if v := lspciView(verbose["01:00.0"]); v.ACSCtl != "SrcValid- TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd- EgressCtrl- DirectTrans-" ||
		!strings.Contains(verbose["02:00.0"], "Speed 16GT/s (downgraded)") || !lspciView(verbose["04:00.0"]).AccessDenied {
		t.Errorf("named peer cases lost: DSP ACSCtl %q; GPU:\n%s", v.ACSCtl, verbose["02:00.0"])
	}
}

// TestBridgeSSVID reads a bridge's subsystem IDs from its Bridge Subsystem
// Vendor ID capability (0x0d), as the kernel does.
func TestBridgeSSVID(t *testing.T) {
	b := make([]byte, 256)
	put16 := func(off int, v uint16) { b[off], b[off+1] = byte(v), byte(v>>8) }
	put16(0x00, 0x1000)
	put16(0x02, 0xc030)
	put16(0x06, 0x0010) // Status: capability list
	b[0x0b], b[0x0a] = 0x06, 0x04
	b[0x0e] = 1
	b[0x34] = 0x48
	b[0x48], b[0x49] = 0x0d, 0x00
	put16(0x4c, 0x1000)
	put16(0x4e, 0x00a1)
	c, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if !c.SubsystemKnown || c.SubsystemVendor != 0x1000 || c.SubsystemDevice != 0x00a1 {
		t.Errorf("subsystem %04x:%04x known %v, want 1000:00a1 from SSVID", c.SubsystemVendor, c.SubsystemDevice, c.SubsystemKnown)
	}
	b[0x48] = 0x05 // an MSI capability instead: the IDs are unknown
	if c, _ := Parse(b); c.SubsystemKnown {
		t.Errorf("a bridge without SSVID has subsystem %04x:%04x known", c.SubsystemVendor, c.SubsystemDevice)
	}
}
