package names

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
)

// MaxPCIIDsBytes bounds a pci.ids file, after gunzip: the real one is about
// 1.4 MB, so anything past this is not one.
const MaxPCIIDsBytes = 16 << 20

// pciIDs is a pci.ids file held in memory, read only where a lookup leads:
// nothing is parsed or indexed in advance.
//
// The format (https://pci-ids.ucw.cz, the file's own header): comment lines
// start with '#'; a vendor line is "vvvv  Vendor name"; the vendor's device
// lines follow as "\tdddd  Device name", each followed by its subsystem
// lines "\t\tssss dddd  Subsystem name"; the class list ("C cc  Class") ends
// the file. IDs are four hexadecimal digits, and vendors are listed in
// ascending order of ID, which lets a vendor be found by bisecting the
// bytes: about a dozen probes, each reading a line or two, instead of a
// pass over 36,000 lines. A file out of order (damaged, or hand-made) is
// scanned from the start when bisection misses, so every vendor line is
// still found.
type pciIDs struct {
	data []byte

	// What was looked up so far, as a run names many devices of few
	// vendors and models; guarded by mu, as a fleet names its sources'
	// devices at once.
	mu      sync.Mutex
	vendors map[uint16]int          // a vendor's line's offset, -1 where none
	spans   []span                  // what the bisection's probes found
	blocks  map[uint16]*deviceIndex // a vendor's device lines; nil where none
	devices map[uint32]string       // vendor<<16 | device: its name, "" where none
}

// searchPaths are where pci.ids is looked for when no path is given, in
// pcidb's order (docs/libraries.md §1.6): the user's cache, then the
// system's copies, plain and gzip'd.
func searchPaths() []string {
	var paths []string
	if home, err := os.UserHomeDir(); err == nil {
		paths = append(paths, filepath.Join(home, ".cache", "pci.ids"))
	}
	return append(paths, "/usr/share/hwdata/pci.ids", "/usr/share/misc/pci.ids",
		"/usr/share/hwdata/pci.ids.gz", "/usr/share/misc/pci.ids.gz")
}

// loadPCIIDs reads the pci.ids at path (gunzipped when its name ends in
// .gz), or the first of searchPaths that exists when path is "", whole into
// memory: at most MaxPCIIDsBytes, whatever its size said when it was
// opened, so a file that grows while read is refused too.
func loadPCIIDs(path string) (*pciIDs, error) {
	if path == "" {
		for _, p := range searchPaths() {
			if _, err := os.Stat(p); err == nil {
				path = p
				break
			}
		}
		if path == "" {
			return nil, errors.New("not found in ~/.cache, /usr/share/hwdata or /usr/share/misc (install pciutils or hwdata, or give --pci-ids FILE)")
		}
	}
	// Non-blocking, and only a regular file read: a FIFO or a terminal
	// given as --pci-ids must not hang the run.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if pe, ok := err.(*fs.PathError); ok {
		return nil, fmt.Errorf("%s: %w", path, pe.Err) // "open" says nothing to the user
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	tooBig := fmt.Errorf("%s: over %d MiB: not a pci.ids file", path, MaxPCIIDsBytes>>20)
	if !strings.HasSuffix(path, ".gz") && fi.Size() > MaxPCIIDsBytes {
		return nil, tooBig
	}
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		zr, err := gzip.NewReader(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		r = zr
	}
	// Sized for the file as it was opened, as os.ReadFile does; one more
	// byte than the bound tells a file over it.
	buf := bytes.NewBuffer(make([]byte, 0, min(fi.Size(), MaxPCIIDsBytes)+bytes.MinRead))
	if _, err := buf.ReadFrom(io.LimitReader(r, MaxPCIIDsBytes+1)); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if buf.Len() > MaxPCIIDsBytes {
		return nil, tooBig
	}
	return &pciIDs{data: buf.Bytes()}, nil
}

// lineAt returns the line starting at off, without its newline, and the
// offset of the next one.
func lineAt(data []byte, off int) (line []byte, next int) {
	if i := bytes.IndexByte(data[off:], '\n'); i >= 0 {
		return data[off : off+i], off + i + 1
	}
	return data[off:], len(data)
}

// entry parses "hhhh  name": four hexadecimal digits, blanks, and a name.
func entry(line []byte) (id uint16, name []byte, ok bool) {
	if id, ok = entryID(line); !ok {
		return 0, nil, false
	}
	name = bytes.TrimSpace(line[4:])
	return id, name, len(name) > 0
}

// entryID parses the ID of what may be an entry: four hexadecimal digits
// and a blank, with more after it.
func entryID(line []byte) (id uint16, ok bool) {
	if len(line) < 6 || line[4] != ' ' && line[4] != '\t' {
		return 0, false
	}
	for _, c := range line[:4] {
		var v byte
		switch {
		case '0' <= c && c <= '9':
			v = c - '0'
		case 'a' <= c && c <= 'f':
			v = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			v = c - 'A' + 10
		default:
			return 0, false
		}
		id = id<<4 | uint16(v)
	}
	return id, true
}

// vendorAfter returns the first vendor line (a valid entry at column 0)
// starting at or after off and before end: its offset and ID.
func (p *pciIDs) vendorAfter(off, end int) (at int, id uint16, ok bool) {
	for off < end {
		line, next := lineAt(p.data, off)
		if len(line) > 0 && line[0] != '\t' && line[0] != '#' {
			if id, _, ok := entry(line); ok {
				return off, id, true
			}
		}
		off = next
	}
	return 0, 0, false
}

// probe is vendorAfter(off, end) for bisection, remembering each answer:
// the first probes of every vendor's bisection are the same, and a probe
// that lands in a long block (Intel's is a quarter of the file) reads up
// to its end. An answer is reused only as far as it holds: where the scan
// that found it passed off, or found nothing before end.
func (p *pciIDs) probe(off, end int) (at int, id uint16, ok bool) {
	for _, s := range p.spans {
		switch {
		case s.ok && s.from <= off && off <= s.at && s.at < end:
			return s.at, s.id, true
		case !s.ok && s.from <= off && end <= s.at:
			return 0, 0, false
		}
	}
	at, id, ok = p.vendorAfter(off, end)
	s := span{from: off, at: at, id: id, ok: ok}
	if !ok {
		s.at = end
	}
	p.spans = append(p.spans, s)
	return at, id, ok
}

// span is one answer of vendorAfter: no vendor line starts in [from, at);
// at holds vendor id's when ok, else at is the end the scan stopped at.
type span struct {
	from, at int
	id       uint16
	ok       bool
}

// lineStart returns the start of the line holding off.
func (p *pciIDs) lineStart(off int) int {
	return bytes.LastIndexByte(p.data[:off], '\n') + 1
}

// vendorLine returns the offset of vendor v's line: by bisection, which
// finds it in a file in order, else by a scan of every line, which finds
// it in any file (in a file out of order that lists v twice, either line).
func (p *pciIDs) vendorLine(v uint16) (int, bool) {
	// Invariant: v's line, if the file is in order, starts in [lo, hi).
	lo, hi := 0, len(p.data)
	for lo < hi {
		mid := p.lineStart(lo + (hi-lo)/2)
		if mid < lo {
			mid = lo
		}
		at, id, ok := p.probe(mid, hi)
		switch {
		case ok && id == v:
			return at, true
		case ok && id < v:
			_, lo = lineAt(p.data, at)
		case mid == lo:
			lo = hi // no vendor line in range, or only ones after v
		default:
			hi = mid // no vendor line in [mid, at), and at is after v or at hi
		}
	}
	found, last := false, 0
	for off := 0; off < len(p.data); {
		at, id, ok := p.vendorAfter(off, len(p.data))
		if !ok {
			break
		}
		if id == v {
			found, last = true, at
		}
		_, off = lineAt(p.data, at)
	}
	return last, found
}

// knownVendorLine is vendorLine, found once per vendor. The caller holds
// p.mu.
func (p *pciIDs) knownVendorLine(v uint16) (int, bool) {
	off, seen := p.vendors[v]
	if !seen {
		var ok bool
		if off, ok = p.vendorLine(v); !ok {
			off = -1
		}
		if p.vendors == nil {
			p.vendors = map[uint16]int{}
		}
		p.vendors[v] = off
	}
	return off, off >= 0
}

// vendor returns a vendor's name.
func (p *pciIDs) vendor(v uint16) (string, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	off, ok := p.knownVendorLine(v)
	if !ok {
		return "", false
	}
	line, _ := lineAt(p.data, off)
	_, name, _ := entry(line)
	return string(name), true
}

// device returns the name of vendor v's device d, found once per device.
func (p *pciIDs) device(v, d uint16) (string, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	key := uint32(v)<<16 | uint32(d)
	name, seen := p.devices[key]
	if !seen {
		name, _ = p.deviceLine(v, d)
		if p.devices == nil {
			p.devices = map[uint32]string{}
		}
		p.devices[key] = name
	}
	return name, name != ""
}

// deviceIndex is what one pass over a vendor's block found: where it
// ends, whether its device lines are in ascending order of ID (pci.ids
// keeps them so), and every checkpointEvery-th device line's ID and offset,
// from which a lookup scans at most that many device lines.
type deviceIndex struct {
	start, end int // the block: the line after the vendor's, up to the line that ends it
	ascending  bool
	ids        []uint16
	offs       []int
}

// checkpointEvery is how many device lines a checkpoint stands for: a few
// hundred lines to scan at most (devices and their subsystem lines), for
// an index of a hundred entries on Intel's 3,600 devices.
const checkpointEvery = 32

// deviceLine returns the name of vendor v's device d: the first device
// line of v's block that lists d with a name. The caller holds p.mu.
func (p *pciIDs) deviceLine(v, d uint16) (string, bool) {
	ix := p.deviceIndexOf(v)
	if ix == nil {
		return "", false
	}
	from := ix.start
	if ix.ascending {
		// The last checkpoint below d: no line before it lists d.
		lo, hi := 0, len(ix.ids)
		for lo < hi {
			mid := int(uint(lo+hi) >> 1)
			if ix.ids[mid] < d {
				lo = mid + 1
			} else {
				hi = mid
			}
		}
		if lo > 0 {
			from = ix.offs[lo-1]
		}
	}
	for off := from; off < ix.end; {
		var line []byte
		line, off = lineAt(p.data, off)
		if len(line) < 2 || line[0] != '\t' || line[1] == '\t' {
			continue // blank, comment or subsystem line
		}
		id, ok := entryID(line[1:])
		switch {
		case !ok:
		case id == d:
			if _, name, ok := entry(line[1:]); ok {
				return string(name), true
			}
		case id > d && ix.ascending:
			return "", false
		}
	}
	return "", false
}

// deviceIndexOf returns vendor v's block's index, made on the first lookup
// of one of its devices by one pass over the block: its device lines,
// skipping comments, blank and subsystem lines, up to the next line that
// is none of these. A vendor's block can be long (Intel's is 8,500 lines,
// a quarter of the file), and a run names several of its devices: each
// used to scan the block up to its line. nil when pci.ids does not list v.
// The caller holds p.mu.
func (p *pciIDs) deviceIndexOf(v uint16) *deviceIndex {
	if ix, seen := p.blocks[v]; seen {
		return ix
	}
	var ix *deviceIndex
	if off, ok := p.knownVendorLine(v); ok {
		_, off = lineAt(p.data, off)
		ix = &deviceIndex{start: off, end: len(p.data), ascending: true}
		n, last := 0, uint16(0)
		for off < len(p.data) {
			line, next := lineAt(p.data, off)
			if len(line) > 0 && line[0] != '#' && line[0] != '\t' {
				ix.end = off
				break
			}
			if len(line) > 1 && line[0] == '\t' && line[1] != '\t' {
				if id, ok := entryID(line[1:]); ok {
					if n > 0 && id < last {
						ix.ascending = false
					}
					if n%checkpointEvery == 0 {
						ix.ids = append(ix.ids, id)
						ix.offs = append(ix.offs, off)
					}
					n, last = n+1, id
				}
			}
			off = next
		}
	}
	if p.blocks == nil {
		p.blocks = map[uint16]*deviceIndex{}
	}
	p.blocks[v] = ix
	return ix
}
