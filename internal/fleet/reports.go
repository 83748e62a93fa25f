package fleet

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math/bits"
	"strconv"

	"github.com/gdtopo/gdtopo/internal/report"
)

// IsReports reports whether data looks like gdtopo's JSON: its first byte
// other than white space opens an object. No source gdtopo reads as a
// machine starts so (trees are folders, snapshots gzip, the text forms and
// XML start otherwise).
func IsReports(data []byte) bool {
	data = bytes.TrimLeft(data, " \t\r\n")
	return len(data) > 0 && data[0] == '{'
}

// ReportResult is one machine of a file of reports: its report, or why
// there is none (the node's check could not read its machine).
type ReportResult struct {
	Source string // the source the node's check read
	// Report holds what TopoFromReport takes, and only during the call:
	// the next machine's reuses it.
	Report *report.Report
	Error  string
}

// ReportReader reads files of reports one after another, reusing one
// report's memory for every machine: a worker keeps one.
type ReportReader struct{ rep report.Report }

// ReadReports calls each for every machine in data, in order: data holds
// one or more JSON values (JSON Lines or one document) each of which is
// `check -o json`'s document (its sources), a line of `check -o jsonl`, or
// a bare report. Only what TopoFromReport takes is decoded; the rest is
// skipped without being decoded, which is what makes a central run over
// many nodes' reports cheap (docs/performance.md).
func ReadReports(data []byte, each func(ReportResult)) error {
	return new(ReportReader).Read(data, each)
}

// Read is ReadReports with rr's memory.
func (rr *ReportReader) Read(data []byte, each func(ReportResult)) error {
	s := &scanner{b: data, rep: &rr.rep}
	n := 0
	for s.peek() != 0 {
		s.value(each)
		if s.err != nil {
			return s.err
		}
		n++
	}
	if n == 0 {
		return errors.New("no JSON value")
	}
	return nil
}

// value reads one top-level value: a check document, a result line, or a
// report.
func (s *scanner) value(each func(ReportResult)) {
	r := s.fresh()
	var (
		res     ReportResult
		isRep   bool // the object is a report itself
		results bool // the object held "sources": a check document
		sawRep  bool // the object held "report": a result
	)
	s.object(func(key []byte) {
		switch string(key) {
		case "sources":
			results = true
			s.array(func() { s.result(each) })
		case "report":
			sawRep = true
			if s.null() {
				return
			}
			res.Report = r
			s.report(r)
		case "error":
			res.Error = s.str()
		case "source":
			if s.peek() == '"' {
				res.Source = s.str()
				return
			}
			isRep = true
			s.object(func(key []byte) {
				if string(key) == "name" {
					r.Source.Name = s.str()
					return
				}
				s.skip()
			})
		default:
			if s.reportField(key, r) {
				isRep = true
				return
			}
			s.skip()
		}
	})
	switch {
	case s.err != nil || results:
	case sawRep:
		each(res)
	case isRep:
		each(ReportResult{Source: r.Source.Name, Report: r})
	default:
		s.fail("not a gdtopo report: no sources, report or devices")
	}
}

// result reads one entry of a check document's sources.
func (s *scanner) result(each func(ReportResult)) {
	var res ReportResult
	r := s.fresh()
	s.object(func(key []byte) {
		switch string(key) {
		case "source":
			res.Source = s.str()
		case "error":
			res.Error = s.str()
		case "report":
			if s.null() {
				return
			}
			res.Report = r
			s.report(r)
		default:
			s.skip()
		}
	})
	if s.err == nil {
		each(res)
	}
}

// report reads the parts of a report that TopoFromReport takes.
func (s *scanner) report(r *report.Report) {
	s.object(func(key []byte) {
		if string(key) == "source" {
			s.object(func(key []byte) {
				if string(key) == "name" {
					r.Source.Name = s.str()
					return
				}
				s.skip()
			})
			return
		}
		if !s.reportField(key, r) {
			s.skip()
		}
	})
}

// reportField reads a report's member key into r, or reports false.
func (s *scanner) reportField(key []byte, r *report.Report) bool {
	switch string(key) {
	case "system":
		s.object(func(key []byte) {
			switch string(key) {
			case "kernel_cmdline":
				if !s.null() {
					c := s.str()
					r.System.Cmdline = &c
				}
			case "iommu_units":
				n := int(s.num())
				r.System.IOMMUUnits = &n
			default:
				s.skip()
			}
		})
	case "summary":
		s.object(func(key []byte) {
			if string(key) == "partial" {
				r.Summary.Partial = s.str()
				return
			}
			s.skip()
		})
	case "devices":
		s.array(func() {
			r.Devices = append(r.Devices, report.Device{})
			s.device(&r.Devices[len(r.Devices)-1])
		})
	case "pairs":
		s.array(func() { s.pair(r) })
	case "findings":
		s.array(func() {
			var f report.Finding
			s.object(func(key []byte) {
				switch string(key) {
				case "code":
					f.Code = s.str()
				case "severity":
					f.Severity = s.str()
				case "devices":
					f.Devices = s.strs(f.Devices)
				default:
					s.skip()
				}
			})
			r.Findings = append(r.Findings, f)
		})
	default:
		return false
	}
	return true
}

// device reads a report's device.
func (s *scanner) device(d *report.Device) {
	s.object(func(key []byte) {
		switch string(key) {
		case "bdf":
			d.BDF = s.str()
		case "alias":
			d.Alias = s.str()
		case "kind":
			d.Kind = s.str()
		case "vendor_id":
			d.VendorID = s.str()
		case "device_id":
			d.DeviceID = s.str()
		case "name":
			d.Name = s.str()
		case "parent":
			d.Parent = s.str()
		case "numa_node":
			d.NUMANode = int(s.num())
		case "numa_from":
			d.NUMAFrom = s.str()
		case "ports":
			s.array(func() {
				var p report.Port
				s.object(func(key []byte) {
					switch string(key) {
					case "rdma":
						p.RDMA = s.str()
					case "port":
						p.Port = s.str()
					case "state":
						p.State = s.str()
					case "phys_state":
						p.PhysState = s.str()
					case "rate_gbps":
						p.RateGbps = s.num()
					case "link_layer":
						p.LinkLayer = s.str()
					default:
						s.skip()
					}
				})
				d.Ports = append(d.Ports, p)
			})
		case "iommu_group":
			d.IOMMUGroup = s.str()
		case "iommu_type":
			d.IOMMUType = s.str()
		case "physfn":
			d.PhysFn = s.str()
		case "rdma":
			d.RDMA = s.strs(nil)
		case "netdev":
			d.Netdev = s.strs(nil)
		case "port_rate_gbps":
			d.PortRateGbps = s.num()
		case "bond":
			d.Bond = s.str()
		case "acs":
			d.ACS = s.str()
		case "unidentified":
			d.Unidentified = s.boolean()
		case "link":
			s.object(func(key []byte) {
				switch string(key) {
				case "current_gts":
					d.Link.CurrentGTs = s.num()
				case "current_width":
					d.Link.CurrentWidth = int(s.num())
				case "max_gts":
					d.Link.MaxGTs = s.num()
				case "max_width":
					d.Link.MaxWidth = int(s.num())
				default:
					s.skip()
				}
			})
		default:
			s.skip()
		}
	})
}

// pair reads a report's pair, keeping it only when it is of an
// accelerator and a NIC: the others (GPU-GPU, NVMe...) are most of a
// report's pairs and none of a Topo's.
func (s *scanner) pair(r *report.Report) {
	var p report.Pair
	var kinds [2]string
	s.object(func(key []byte) {
		switch string(key) {
		case "a":
			p.A = s.str()
		case "b":
			p.B = s.str()
		case "kinds":
			k := 0
			s.array(func() {
				if k < 2 {
					kinds[k] = s.str()
				} else {
					s.skip()
				}
				k++
			})
		case "smi":
			p.SMI = s.str()
		case "nccl":
			p.NCCL = s.str()
		case "label_uncertain":
			p.LabelUncertain = s.boolean()
		case "prediction":
			if s.null() {
				return
			}
			p.Prediction = &report.Prediction{}
			s.object(func(key []byte) {
				switch string(key) {
				case "expected_gbps":
					p.Prediction.ExpectedGbps = s.num()
				case "gdr":
					p.Prediction.GDR = s.boolean()
				default:
					s.skip()
				}
			})
		default:
			s.skip()
		}
	})
	an := kinds[0] == "accelerator" && kinds[1] == "nic" || kinds[0] == "nic" && kinds[1] == "accelerator"
	if an && s.err == nil {
		p.Kinds = kinds[:]
		r.Pairs = append(r.Pairs, p)
	}
}

// Words of eight bytes, for looking at eight bytes a step.
const (
	ones        = 0x0101010101010101
	highBits    = 0x8080808080808080
	spaces      = 0x2020202020202020 // eight ' '
	caseBits    = 0x2020202020202020 // '[' | 0x20 is '{', ']' | 0x20 is '}'
	quotes      = 0x2222222222222222 // '"'
	backslashes = 0x5c5c5c5c5c5c5c5c // '\\'
	openBraces  = 0x7b7b7b7b7b7b7b7b // '{'
	closeBraces = 0x7d7d7d7d7d7d7d7d // '}'
)

// zeroByte sets the high bit of v's lowest zero byte (little-endian: the
// first in memory), and of no byte below it; bytes above it may be set
// too, so only its lowest set bit counts. Zero when v has no zero byte.
func zeroByte(v uint64) uint64 { return (v - ones) &^ v & highBits }

// scanner reads JSON from b, decoding only the members its callers ask
// for and stepping over the rest byte by byte. The first error stops it.
type scanner struct {
	b   []byte
	i   int
	err error
	rep *report.Report // reused for each machine
}

// fresh empties the scanner's report, keeping its lists' memory.
func (s *scanner) fresh() *report.Report {
	r := s.rep
	*r = report.Report{Devices: r.Devices[:0], Pairs: r.Pairs[:0], Findings: r.Findings[:0]}
	return r
}

func (s *scanner) fail(msg string) {
	if s.err == nil {
		s.err = fmt.Errorf("offset %d: %s", s.i, msg)
	}
	s.i = len(s.b)
}

// peek skips white space and returns the next byte, 0 at the end.
// Indentation (check -o json's) is skipped up to eight spaces a step.
func (s *scanner) peek() byte {
	for s.i < len(s.b) {
		switch c := s.b[s.i]; c {
		case ' ', '\t', '\r', '\n':
			if s.i+8 <= len(s.b) {
				// the spaces that start the next eight bytes, at least this one
				s.i += max(1, bits.TrailingZeros64(binary.LittleEndian.Uint64(s.b[s.i:])^spaces)>>3)
				continue
			}
			s.i++
		default:
			return c
		}
	}
	return 0
}

func (s *scanner) expect(c byte) bool {
	if s.peek() != c {
		s.fail(fmt.Sprintf("want %q", c))
		return false
	}
	s.i++
	return true
}

// object calls f with each member's key; f reads or skips the value.
func (s *scanner) object(f func(key []byte)) {
	if !s.expect('{') {
		return
	}
	if s.peek() == '}' {
		s.i++
		return
	}
	for s.err == nil {
		key := s.rawString()
		if !s.expect(':') {
			return
		}
		f(key)
		switch s.peek() {
		case ',':
			s.i++
		case '}':
			s.i++
			return
		default:
			s.fail("want , or }")
		}
	}
}

// array calls f for each element; f reads or skips it.
func (s *scanner) array(f func()) {
	if !s.expect('[') {
		return
	}
	if s.peek() == ']' {
		s.i++
		return
	}
	for s.err == nil {
		f()
		switch s.peek() {
		case ',':
			s.i++
		case ']':
			s.i++
			return
		default:
			s.fail("want , or ]")
		}
	}
}

// rawString reads a string and returns its bytes between the quotes,
// escapes left as they are.
func (s *scanner) rawString() []byte {
	if !s.expect('"') {
		return nil
	}
	start := s.i
	end := stringEnd(s.b, start)
	if end < 0 {
		s.fail("unterminated string")
		return nil
	}
	s.i = end
	return s.b[start : end-1]
}

// stringEnd is the index just past the quote that closes the string whose
// contents start at i, -1 when none does. It looks at eight bytes a step
// (a report's strings are short, shorter than a call to bytes.IndexByte
// pays for), then at the last few one by one.
func stringEnd(b []byte, i int) int {
	for i+8 <= len(b) {
		w := binary.LittleEndian.Uint64(b[i:])
		m := zeroByte(w^quotes) | zeroByte(w^backslashes)
		if m == 0 {
			i += 8
			continue
		}
		i += bits.TrailingZeros64(m) >> 3
		if b[i] == '"' {
			return i + 1
		}
		i += 2 // an escape: the next byte is never the end
	}
	for i < len(b) {
		switch b[i] {
		case '"':
			return i + 1
		case '\\':
			i += 2
		default:
			i++
		}
	}
	return -1
}

// str reads a string value; null reads as "".
func (s *scanner) str() string {
	if s.null() {
		return ""
	}
	raw := s.rawString()
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw)
	}
	var out string
	if err := json.Unmarshal(s.b[s.i-len(raw)-2:s.i], &out); err != nil {
		s.fail(err.Error())
	}
	return out
}

// strs reads an array of strings, appended to into.
func (s *scanner) strs(into []string) []string {
	if s.null() {
		return into
	}
	s.array(func() { into = append(into, s.str()) })
	return into
}

// num reads a number; null reads as 0.
func (s *scanner) num() float64 {
	if s.null() {
		return 0
	}
	start := s.i
	for s.i < len(s.b) {
		c := s.b[s.i]
		if c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' {
			s.i++
			continue
		}
		break
	}
	v, err := strconv.ParseFloat(string(s.b[start:s.i]), 64)
	if err != nil {
		s.fail("want a number")
	}
	return v
}

// boolean reads true or false.
func (s *scanner) boolean() bool {
	switch {
	case s.literal("true"):
		return true
	case s.literal("false"):
		return false
	}
	s.fail("want true or false")
	return false
}

// null reads null if it comes next.
func (s *scanner) null() bool { return s.literal("null") }

func (s *scanner) literal(word string) bool {
	if s.peek() == word[0] && bytes.HasPrefix(s.b[s.i:], []byte(word)) {
		s.i += len(word)
		return true
	}
	return false
}

// skip steps over one value without decoding it.
func (s *scanner) skip() {
	switch s.peek() {
	case '"':
		s.rawString()
	case '{', '[':
		// Eight bytes a step to the next byte that matters: out of a
		// string a quote or a bracket, in one a quote or a backslash.
		// Indentation, numbers, names and punctuation pass in words.
		b, i, depth, inString := s.b, s.i, 0, false
		for i < len(b) {
			if i+8 <= len(b) {
				w := binary.LittleEndian.Uint64(b[i:])
				var m uint64
				if inString {
					m = zeroByte(w^quotes) | zeroByte(w^backslashes)
				} else {
					lower := w | caseBits // '[' and ']' as '{' and '}'
					m = zeroByte(w^quotes) | zeroByte(lower^openBraces) | zeroByte(lower^closeBraces)
				}
				if m == 0 {
					i += 8
					continue
				}
				i += bits.TrailingZeros64(m) >> 3
			}
			switch c := b[i]; {
			case c == '"':
				inString = !inString
			case inString:
				if c == '\\' {
					i++ // the escaped byte is never the end
				}
			case c == '{' || c == '[':
				depth++
			case c == '}' || c == ']':
				depth--
				if depth == 0 {
					s.i = i + 1
					return
				}
			}
			i++
		}
		s.i = len(b)
		if inString {
			s.fail("unterminated string")
		} else {
			s.fail("unterminated value")
		}
	case 0:
		s.fail("want a value")
	default:
		start := s.i
		for s.i < len(s.b) {
			switch s.b[s.i] {
			case ',', '}', ']', ' ', '\t', '\r', '\n':
				if s.i == start {
					s.fail("want a value")
				}
				return
			}
			s.i++
		}
	}
}
