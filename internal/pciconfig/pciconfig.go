// Package pciconfig decodes raw PCI configuration space: the bytes of a sysfs
// config file or the hex rows of lspci -x/-xxx/-xxxx. It never panics, bounds
// every capability walk, and reports what the bytes did not reach as unknown
// (nil pointers, false "known"/"readable" flags), never as zero or disabled.
//
// Layout: include/uapi/linux/pci_regs.h and pciutils lib/header.h.
package pciconfig

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Sizes of the regions of configuration space.
const (
	// HeaderSize is the standard header, and all an unprivileged sysfs read returns.
	HeaderSize = 0x40
	// LegacySize is conventional PCI configuration space; extended capabilities start here.
	LegacySize = 0x100
	// ExtendedSize is PCIe configuration space; Parse ignores bytes beyond it.
	ExtendedSize = 0x1000
)

// Standard header offsets and bits.
const (
	offVendor, offDevice, offStatus, offRevision, offHeaderType = 0x00, 0x02, 0x06, 0x08, 0x0e // class follows revision
	offPrimaryBus, offSecondaryBus, offSubordinateBus           = 0x18, 0x19, 0x1a
	offSubsystemVendor, offSubsystemDevice                      = 0x2c, 0x2e
	offCapPtr, offCardBusCapPtr                                 = 0x34, 0x14
	vendorNone, statusCapList                                   = 0xffff, 0x0010
	headerTypeMask, headerMultiFunction                         = 0x7f, 0x80
	headerNormal, headerBridge, headerCardBus                   = 0, 1, 2
)

// Capability lists.
const (
	capIDExpress, capIDInvalid = 0x10, 0xff
	// capIDSSVID is the Bridge Subsystem Vendor ID capability (PCI-to-PCI
	// Bridge Architecture 1.2): vendor at +4, device at +6. The kernel reads
	// a bridge's subsystem IDs from it (ssvid_cap, drivers/pci/probe.c).
	capIDSSVID               = 0x0d
	maxCaps                  = 48 // the kernel's PCI_FIND_CAP_TTL
	maxExtCaps               = (ExtendedSize - LegacySize) / 8
	extCapIDACS, extCapIDATS = 0x000d, 0x000f
	extCapNone, extNextShift = 0xffffffff, 20
	extCapRegsLen            = 8 // header dword, then 16-bit capability and control registers
)

// PCI Express capability register offsets (from the capability start) and fields.
const (
	expFlags, expDevCap, expDevCtl, expLnkCap, expLnkSta, expLnkCap2 = 0x02, 0x04, 0x08, 0x0c, 0x12, 0x2c
	expDevEnd, expLinkEnd, expLink2End                               = 0x0c, 0x14, 0x30 // bytes needed for each group
	expVersionMask, expTypeShift, expTypeMask, expSlot               = 0x000f, 4, 0x0f, 0x0100
	payloadUnit, sizeFieldMask                                       = 128, 0x7 // sizes are 128 << field
	devCtlRelaxed, devCtlPayloadShift, devCtlReadReqShift            = 0x0010, 5, 12
	linkSpeedMask, linkWidthShift, linkWidthMask, linkPortShift      = 0x000f, 4, 0x3f, 24
	lnkCap2SpeedsMask, atsCtlEnable, atsSizeMask                     = 0xfe, 0x8000, 0x1f
)

// ACS capability and control bits (identical positions in both registers).
const (
	ACSSrcValid    = 0x0001
	ACSTransBlk    = 0x0002
	ACSReqRedir    = 0x0004
	ACSCmpltRedir  = 0x0008
	ACSUpstreamFwd = 0x0010
	ACSEgressCtrl  = 0x0020
	ACSDirectTrans = 0x0040
)

// PortType is the PCIe device/port type, bits 7:4 of the PCIe Capabilities register.
type PortType int

// Device/port types.
const (
	Endpoint             PortType = 0
	LegacyEndpoint       PortType = 1
	RootPort             PortType = 4
	UpstreamPort         PortType = 5
	DownstreamPort       PortType = 6
	PCIeToPCIBridge      PortType = 7
	PCIToPCIeBridge      PortType = 8
	RCIntegratedEndpoint PortType = 9
	RCEventCollector     PortType = 10
)

// String returns the words lspci prints, without the "(Slot±)" suffix.
func (p PortType) String() string {
	names := [...]string{Endpoint: "Endpoint", LegacyEndpoint: "Legacy Endpoint", RootPort: "Root Port",
		UpstreamPort: "Upstream Port", DownstreamPort: "Downstream Port",
		PCIeToPCIBridge: "PCI-Express to PCI/PCI-X Bridge", PCIToPCIeBridge: "PCI/PCI-X to PCI-Express Bridge",
		RCIntegratedEndpoint: "Root Complex Integrated Endpoint", RCEventCollector: "Root Complex Event Collector"}
	if p >= 0 && int(p) < len(names) && names[p] != "" {
		return names[p]
	}
	return fmt.Sprintf("Unknown (%d)", int(p))
}

// hasLink reports whether the type implements the link registers (all defined
// types except RC integrated endpoints and event collectors).
func (p PortType) hasLink() bool {
	return p == Endpoint || p == LegacyEndpoint || p >= RootPort && p <= PCIToPCIeBridge
}

// Config is what the bytes tell. Pointer fields are nil when the capability is
// absent or the bytes did not reach it; CapsReadable and ExtReadable say which.
type Config struct {
	Len             int    // bytes available (at most ExtendedSize)
	VendorID        uint16 // 0x00
	DeviceID        uint16 // 0x02
	Class           uint32 // 0x09-0x0b: base<<16 | sub<<8 | prog-if
	Revision        uint8  // 0x08
	HeaderType      uint8  // 0x0e bits 6:0
	MultiFunction   bool   // 0x0e bit 7
	SubsystemVendor uint16 // 0x2c for header type 0; the SSVID capability for a bridge
	SubsystemDevice uint16 // 0x2e for header type 0; the SSVID capability for a bridge
	SubsystemKnown  bool   // header type 0, or a bridge whose SSVID capability was read
	PrimaryBus      uint8  // 0x18, header type 1 only
	SecondaryBus    uint8  // 0x19, header type 1 only
	SubordinateBus  uint8  // 0x1a, header type 1 only
	// CapsReadable is true when the capability list was walked to its end
	// within the bytes: Status bit 4 is clear (no list), or the chain ended
	// (next < 0x40 or ID 0xff) without leaving the bytes. Then a nil Express
	// means absent; otherwise it means unknown.
	CapsReadable bool
	// CapsLooped is true when the capability list points back to an entry
	// already seen (or runs past 48 entries): lspci prints "<chain looped>".
	// The list is broken, so CapsReadable is false: what it found before the
	// loop stands, what it did not find is unknown.
	CapsLooped bool
	Express    *Express // PCI Express capability (ID 0x10)
	// ExtReadable is true when the extended capability list from 0x100 was
	// walked to its end within the bytes (so Len >= 0x104). Then a nil ACS or
	// ATS means absent; otherwise it means unknown.
	ExtReadable bool
	// ExtLooped is CapsLooped for the extended capability list.
	ExtLooped bool
	ACS       *ACS // Access Control Services (extended ID 0x000d)
	ATS       *ATS // Address Translation Services (extended ID 0x000f)
}

// Express is the decoded PCI Express capability. Link fields are zero unless LinkKnown.
type Express struct {
	Offset              int      // capability start
	Version             uint8    // Capabilities bits 3:0
	PortType            PortType // Capabilities bits 7:4
	SlotImplemented     bool     // Capabilities bit 8
	MaxPayloadSupported int      // DevCap bits 2:0, bytes
	RelaxedOrdering     bool     // DevCtl bit 4
	MaxPayload          int      // DevCtl bits 7:5, bytes
	MaxReadRequest      int      // DevCtl bits 14:12, bytes
	LinkKnown           bool     // link registers implemented (not RC endpoints/collectors) and readable
	MaxSpeed            int      // LnkCap bits 3:0, speed code (see SpeedGTs)
	MaxWidth            int      // LnkCap bits 9:4
	PortNumber          int      // LnkCap bits 31:24
	CurSpeed            int      // LnkSta bits 3:0, speed code
	CurWidth            int      // LnkSta bits 9:4
	SupportedSpeeds     uint8    // LnkCap2 bits 7:1 (bit n set: speed code n); 0 if absent, version 1 or unreadable
}

// ACS is the Access Control Services extended capability.
type ACS struct {
	Offset int    // capability start
	Cap    uint16 // ACS Capability register (+0x04)
	Ctl    uint16 // ACS Control register (+0x06)
}

// ReqRedirect reports P2P Request Redirect enabled (Ctl bit 2).
func (a ACS) ReqRedirect() bool { return a.Ctl&ACSReqRedir != 0 }

// CompletionRedirect reports P2P Completion Redirect enabled (Ctl bit 3).
func (a ACS) CompletionRedirect() bool { return a.Ctl&ACSCmpltRedir != 0 }

// SourceValidation reports Source Validation enabled (Ctl bit 0).
func (a ACS) SourceValidation() bool { return a.Ctl&ACSSrcValid != 0 }

// Redirects reports that peer-to-peer traffic below this port is redirected
// upstream: Request or Completion Redirect is enabled.
func (a ACS) Redirects() bool { return a.Ctl&(ACSReqRedir|ACSCmpltRedir) != 0 }

// String returns the control register in lspci's ACSCtl words.
func (a ACS) String() string { return acsWords(a.Ctl) }

// CapString returns the capability register in lspci's ACSCap words.
func (a ACS) CapString() string { return acsWords(a.Cap) }

func acsWords(v uint16) string {
	names := [...]string{"SrcValid", "TransBlk", "ReqRedir", "CmpltRedir", "UpstreamFwd", "EgressCtrl", "DirectTrans"}
	words := make([]string, len(names))
	for i, name := range names { // names[i] is bit i
		words[i] = name + "-"
		if v&(1<<i) != 0 {
			words[i] = name + "+"
		}
	}
	return strings.Join(words, " ")
}

// ATS is the Address Translation Services extended capability.
type ATS struct {
	Offset                  int  // capability start
	InvalidateQueueDepth    int  // ATS Capability (+0x04) bits 4:0
	Enabled                 bool // ATS Control (+0x06) bit 15
	SmallestTranslationUnit int  // ATS Control bits 4:0
}

// raw is configuration space with bounds-checked little-endian accessors.
type raw []byte

func (r raw) has(off, n int) bool { return off >= 0 && n >= 0 && off+n <= len(r) }

// le reads n bytes at off as a little-endian value, or 0 when they are not all present.
func (r raw) le(off, n int) uint32 {
	var v uint32
	for i := n - 1; i >= 0 && r.has(off, n); i-- {
		v = v<<8 | uint32(r[off+i])
	}
	return v
}

func (r raw) u8(off int) uint8   { return uint8(r.le(off, 1)) }
func (r raw) u16(off int) uint16 { return uint16(r.le(off, 2)) }
func (r raw) u32(off int) uint32 { return r.le(off, 4) }

// Parse decodes configuration space bytes. It fails only when fewer than
// HeaderSize bytes are given or the vendor ID is 0xffff (no device).
func Parse(b []byte) (Config, error) {
	if len(b) < HeaderSize {
		return Config{}, fmt.Errorf("config space: %d bytes, need at least %d", len(b), HeaderSize)
	}
	r := raw(b[:min(len(b), ExtendedSize)])
	if r.u16(offVendor) == vendorNone {
		return Config{}, fmt.Errorf("config space: vendor id %#04x, no device", vendorNone)
	}
	ht := r.u8(offHeaderType)
	c := Config{
		Len:           len(r),
		VendorID:      r.u16(offVendor),
		DeviceID:      r.u16(offDevice),
		Class:         r.u32(offRevision) >> 8,
		Revision:      r.u8(offRevision),
		HeaderType:    ht & headerTypeMask,
		MultiFunction: ht&headerMultiFunction != 0,
	}
	capPtr := offCapPtr
	switch c.HeaderType {
	case headerNormal:
		c.SubsystemVendor, c.SubsystemDevice, c.SubsystemKnown = r.u16(offSubsystemVendor), r.u16(offSubsystemDevice), true
	case headerBridge:
		c.PrimaryBus, c.SecondaryBus, c.SubordinateBus = r.u8(offPrimaryBus), r.u8(offSecondaryBus), r.u8(offSubordinateBus)
	case headerCardBus:
		capPtr = offCardBusCapPtr
	default:
		capPtr = 0 // unknown layout: the capability list cannot be located
	}
	if capPtr != 0 {
		var ssvid int
		c.Express, ssvid, c.CapsReadable, c.CapsLooped = r.walkCaps(capPtr)
		if ssvid > 0 && c.HeaderType == headerBridge {
			c.SubsystemVendor, c.SubsystemDevice, c.SubsystemKnown = r.u16(ssvid+4), r.u16(ssvid+6), true
		}
	}
	c.ACS, c.ATS, c.ExtReadable, c.ExtLooped = r.walkExtCaps()
	return c, nil
}

// ReadSparse reads from r, a configuration space of size bytes, only what
// Parse decodes: the header; from each capability its ID and next
// pointer, the PCIe capability's registers and a bridge's subsystem IDs;
// from each extended capability its header and the two registers after
// it, following the lists as Parse does. On a live sysfs config file every
// 4 bytes read is a configuration read on the bus (a VM exit in a guest),
// so this reads about 50 of the 1024 words of a PCIe function. buf (at
// least ExtendedSize bytes) receives the bytes at their offsets, zero
// where not read; the slice returned is as long as a read of the whole
// file would be.
func ReadSparse(r io.ReaderAt, buf []byte, size int64) ([]byte, error) {
	b := buf[:min(max(size, 0), ExtendedSize)]
	clear(b)
	n, err := readAt(r, b[:min(len(b), HeaderSize)], 0)
	if err != nil || n < min(len(b), HeaderSize) || len(b) == HeaderSize {
		return b[:n], err
	}
	// A user without root reads 64 bytes of the file (128 of a CardBus
	// bridge's) whatever its size says (pci_read_config): the last byte
	// of conventional space, then of 128 bytes, tells how far it reads.
	end := HeaderSize
	for _, e := range []int{min(len(b), LegacySize), 2 * HeaderSize} {
		if e <= end {
			continue
		}
		n, err := readAt(r, b[e-1:e], int64(e-1))
		if err != nil {
			return b[:end], err
		}
		if n == 1 {
			end = e
			break
		}
	}
	if end == min(len(b), LegacySize) {
		end = len(b) // it reads to its size
	}
	b = b[:end]
	if err := readCaps(r, b); err != nil {
		return b, err
	}
	var seen [ExtendedSize / 4]bool
	for i, off := 0, LegacySize; i < maxExtCaps && off < len(b); i++ {
		if err := readRange(r, b, off, extCapRegsLen); err != nil {
			return b, err
		}
		h := raw(b).u32(off)
		if h == 0 || h == extCapNone {
			break
		}
		seen[off/4] = true
		off = int(h>>extNextShift) &^ 3
		if off < LegacySize || seen[off/4] {
			break
		}
	}
	return b, nil
}

// readCaps reads what walkCaps decodes of the capability list whose
// header is in b: each capability's ID and next pointer, the PCIe
// capability's registers and the SSVID capability's IDs.
func readCaps(r io.ReaderAt, b []byte) error {
	c := raw(b)
	ptr := offCapPtr
	switch c.u8(offHeaderType) & headerTypeMask {
	case headerNormal, headerBridge:
	case headerCardBus:
		ptr = offCardBusCapPtr
	default:
		return nil
	}
	if c.u16(offStatus)&statusCapList == 0 {
		return nil
	}
	var seen [LegacySize / 4]bool
	off := int(c.u8(ptr))
	for range maxCaps {
		off &^= 3
		if off < HeaderSize || off >= len(b) || seen[off/4] {
			return nil
		}
		seen[off/4] = true
		if err := readRange(r, b, off, 2); err != nil {
			return err
		}
		var regs int // bytes of the capability decoded past its ID and next pointer
		switch c.u8(off) {
		case capIDInvalid:
			return nil
		case capIDExpress:
			regs = expLink2End - 2
		case capIDSSVID:
			regs = 6
		}
		if regs > 0 && off+2 < len(b) {
			if err := readRange(r, b, off+2, regs); err != nil {
				return err
			}
		}
		off = int(c.u8(off + 1))
	}
	return nil
}

// readRange reads n bytes at off into b at off, fewer where b ends.
func readRange(r io.ReaderAt, b []byte, off, n int) error {
	_, err := readAt(r, b[off:min(off+n, len(b))], int64(off))
	return err
}

// readAt reads len(b) bytes at off, fewer at the file's end, which is no
// error here.
func readAt(r io.ReaderAt, b []byte, off int64) (int, error) {
	n, err := r.ReadAt(b, off)
	if errors.Is(err, io.EOF) {
		err = nil
	}
	return n, err
}

// LoopWarning says which of c's capability lists loop and what that leaves
// unknown, in the words lspci uses ("<chain looped>"); "" when neither does.
func LoopWarning(c Config) string {
	switch {
	case c.CapsLooped && c.ExtLooped:
		return "capability and extended capability lists loop (lspci: <chain looped>): PCIe capability, ACS and link registers past the loop unknown"
	case c.CapsLooped:
		return "capability list loops (lspci: <chain looped>): PCIe capability, DevCtl and link registers past the loop unknown"
	case c.ExtLooped:
		return "extended capability list loops (lspci: <chain looped>): ACS and ATS past the loop unknown"
	}
	return ""
}

// walkCaps follows the standard capability list from the pointer at ptrOff.
// It reports the PCIe capability, the offset of a readable SSVID capability
// (0 if none), whether the walk ended within the bytes, and whether the list
// looped (which ends it unread).
func (r raw) walkCaps(ptrOff int) (exp *Express, ssvid int, complete, looped bool) {
	if r.u16(offStatus)&statusCapList == 0 {
		return nil, 0, true, false
	}
	var seen [LegacySize / 4]bool
	off := int(r.u8(ptrOff))
	for range maxCaps {
		off &^= 3
		if off < HeaderSize {
			return exp, ssvid, true, false
		}
		if seen[off/4] {
			return exp, ssvid, false, true
		}
		seen[off/4] = true
		if !r.has(off, 2) {
			return exp, ssvid, false, false
		}
		id := r.u8(off)
		if id == capIDInvalid {
			return exp, ssvid, true, false
		}
		if id == capIDExpress && exp == nil {
			if !r.has(off, expDevEnd) {
				return nil, ssvid, false, false
			}
			exp = r.express(off)
		}
		if id == capIDSSVID && ssvid == 0 && r.has(off, 8) {
			ssvid = off
		}
		off = int(r.u8(off + 1))
	}
	return exp, ssvid, false, true
}

// express decodes the PCIe capability at off; the device registers must be readable.
func (r raw) express(off int) *Express {
	flags := r.u16(off + expFlags)
	devCap := r.u32(off + expDevCap)
	devCtl := r.u16(off + expDevCtl)
	e := &Express{
		Offset:              off,
		Version:             uint8(flags & expVersionMask),
		PortType:            PortType(flags >> expTypeShift & expTypeMask),
		SlotImplemented:     flags&expSlot != 0,
		MaxPayloadSupported: payloadUnit << (devCap & sizeFieldMask),
		RelaxedOrdering:     devCtl&devCtlRelaxed != 0,
		MaxPayload:          payloadUnit << (devCtl >> devCtlPayloadShift & sizeFieldMask),
		MaxReadRequest:      payloadUnit << (devCtl >> devCtlReadReqShift & sizeFieldMask),
	}
	if !e.PortType.hasLink() || !r.has(off, expLinkEnd) {
		return e
	}
	lnkCap, lnkSta := r.u32(off+expLnkCap), r.u16(off+expLnkSta)
	e.LinkKnown = true
	e.MaxSpeed = int(lnkCap & linkSpeedMask)
	e.MaxWidth = int(lnkCap >> linkWidthShift & linkWidthMask)
	e.PortNumber = int(lnkCap >> linkPortShift)
	e.CurSpeed = int(lnkSta & linkSpeedMask)
	e.CurWidth = int(lnkSta >> linkWidthShift & linkWidthMask)
	if e.Version >= 2 && r.has(off, expLink2End) {
		e.SupportedSpeeds = uint8(r.u32(off+expLnkCap2)) & lnkCap2SpeedsMask
	}
	return e
}

// walkExtCaps follows the extended capability list from 0x100. It reports
// ACS, ATS, whether the walk ended within the bytes, and whether the list
// looped (which ends it unread).
func (r raw) walkExtCaps() (acs *ACS, ats *ATS, complete, looped bool) {
	var seen [ExtendedSize / 4]bool
	off := LegacySize
	for range maxExtCaps {
		if !r.has(off, 4) {
			return acs, ats, false, false
		}
		h := r.u32(off)
		if h == 0 || h == extCapNone {
			return acs, ats, true, false
		}
		seen[off/4] = true
		switch id := uint16(h); {
		case id == extCapIDACS && acs == nil:
			if !r.has(off, extCapRegsLen) {
				return acs, ats, false, false
			}
			acs = &ACS{Offset: off, Cap: r.u16(off + 4), Ctl: r.u16(off + 6)}
		case id == extCapIDATS && ats == nil:
			if !r.has(off, extCapRegsLen) {
				return acs, ats, false, false
			}
			ctl := r.u16(off + 6)
			ats = &ATS{Offset: off, InvalidateQueueDepth: int(r.u16(off+4) & atsSizeMask),
				Enabled: ctl&atsCtlEnable != 0, SmallestTranslationUnit: int(ctl & atsSizeMask)}
		}
		off = int(h>>extNextShift) &^ 3
		switch {
		case off < LegacySize:
			return acs, ats, true, false
		case seen[off/4]:
			return acs, ats, false, true
		}
	}
	return acs, ats, false, true
}

// maxSpeedCode is the highest link speed code known (64 GT/s).
const maxSpeedCode = 6

// SpeedGTs maps a link speed code (LnkCap/LnkSta bits 3:0) to GT/s:
// 1→2.5, 2→5, 3→8, 4→16, 5→32, 6→64, anything else 0.
func SpeedGTs(code int) float64 {
	gts := [...]float64{1: 2.5, 2: 5, 3: 8, 4: 16, 5: 32, maxSpeedCode: 64}
	if code < 0 || code >= len(gts) {
		return 0
	}
	return gts[code]
}

// ParseSysfsSpeed parses a sysfs current_link_speed or max_link_speed value,
// either "16.0 GT/s PCIe" (current kernels) or "16 GT/s" (before ~v5.5). The
// number is matched to a generation, so the result is exactly one of 2.5, 5,
// 8, 16, 32 or 64. "Unknown", "Unknown speed", non-PCIe speeds and anything
// else give ok=false.
func ParseSysfsSpeed(s string) (gts float64, ok bool) {
	f := strings.Fields(s)
	if len(f) < 2 || len(f) > 3 || f[1] != "GT/s" || (len(f) == 3 && f[2] != "PCIe") ||
		strings.Trim(f[0], "0123456789.") != "" {
		return 0, false
	}
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return 0, false
	}
	for code := 1; code <= maxSpeedCode; code++ {
		if SpeedGTs(code) == v {
			return SpeedGTs(code), true
		}
	}
	return 0, false
}

// Offset digits accepted in an lspci hex row (pciutils lib/dump.c).
const hexOffsetMinDigits, hexOffsetMaxDigits = 2, 8

// ParseLspciHex parses the hex rows lspci -x/-xxx/-xxxx prints for one device,
// such as "00: de 10 30 23 ..." or "100: 0d 00 01 00 ...". Blank lines and a
// leading device line ("03:00.0 3D controller: ...") are skipped. It returns
// the bytes up to the highest offset written, with gaps filled with 0xff as
// lspci -F does. Offsets at or beyond 4096 and malformed rows are errors.
func ParseLspciHex(rows []string) ([]byte, error) {
	var out []byte
	first := true
	for i, row := range rows {
		line := strings.TrimSpace(row)
		if line == "" {
			continue
		}
		// A device line starts with a BDF ("03:00.0 "); a row starts with "OFF:".
		if f := strings.Fields(line)[0]; first && strings.Contains(f, ".") && !strings.HasSuffix(f, ":") {
			first = false
			continue
		}
		first = false
		off, data, ok := parseHexRow(line)
		if !ok {
			return nil, fmt.Errorf("lspci hex line %d: malformed row %q", i+1, row)
		}
		if last := off + max(len(data), 1) - 1; last >= ExtendedSize {
			return nil, fmt.Errorf("lspci hex line %d: offset %#x is beyond the %d-byte config space", i+1, last, ExtendedSize)
		}
		for len(out) < off+len(data) {
			out = append(out, 0xff)
		}
		copy(out[off:], data)
	}
	return out, nil
}

// parseHexRow splits "OFF: xx xx ..." into the offset and the bytes.
func parseHexRow(line string) (int, []byte, bool) {
	head, rest, found := strings.Cut(line, ":")
	if !found || len(head) < hexOffsetMinDigits || len(head) > hexOffsetMaxDigits || (rest != "" && rest[0] != ' ') {
		return 0, nil, false
	}
	off, err := strconv.ParseUint(head, 16, 32)
	if err != nil {
		return 0, nil, false
	}
	fields := strings.Fields(rest)
	data := make([]byte, len(fields))
	for i, f := range fields {
		v, err := strconv.ParseUint(f, 16, 8)
		if len(f) != 2 || err != nil {
			return 0, nil, false
		}
		data[i] = byte(v)
	}
	return int(off), data, true
}
