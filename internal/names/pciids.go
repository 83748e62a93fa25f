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
	"strconv"
	"strings"
	"syscall"
)

// maxPCIIDsBytes bounds a pci.ids file, after gunzip: the real one is about
// 1.4 MB, so anything past this is not one.
const maxPCIIDsBytes = 16 << 20

// pciIDs is a pci.ids file held in memory with the offset of each vendor's
// line. A device's line is found by scanning its vendor's block when asked,
// so loading is one pass over the file that allocates only the index.
//
// The format (https://pci-ids.ucw.cz, the file's own header): comment lines
// start with '#'; a vendor line is "vvvv  Vendor name"; the vendor's device
// lines follow as "\tdddd  Device name", each followed by its subsystem
// lines "\t\tssss dddd  Subsystem name"; the class list ("C cc  Class") ends
// the file. IDs are four hexadecimal digits.
type pciIDs struct {
	data    []byte
	vendors map[uint16]int // the offset of each vendor's line; a vendor listed twice: the last
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

// loadPCIIDs reads and indexes the pci.ids at path (gunzipped when its name
// ends in .gz), or the first of searchPaths that exists when path is "".
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
	if fi, err := f.Stat(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	} else if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		zr, err := gzip.NewReader(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		r = zr
	}
	data, err := io.ReadAll(io.LimitReader(r, maxPCIIDsBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(data) > maxPCIIDsBytes {
		return nil, fmt.Errorf("%s: over %d MiB: not a pci.ids file", path, maxPCIIDsBytes>>20)
	}
	return parsePCIIDs(data), nil
}

// parsePCIIDs indexes the vendors of a pci.ids file. Lines that fit no
// entry are skipped: a damaged file names fewer devices and never fails.
func parsePCIIDs(data []byte) *pciIDs {
	p := &pciIDs{data: data, vendors: map[uint16]int{}}
	for off := 0; off < len(data); {
		line, next := lineAt(data, off)
		if id, _, ok := entry(line); ok {
			p.vendors[id] = off
		}
		off = next
	}
	return p
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
func entry(line []byte) (id uint16, name string, ok bool) {
	if len(line) < 6 || line[4] != ' ' && line[4] != '\t' {
		return 0, "", false
	}
	v, err := strconv.ParseUint(string(line[:4]), 16, 16)
	if err != nil {
		return 0, "", false
	}
	name = strings.TrimSpace(string(line[4:]))
	return uint16(v), name, name != ""
}

// vendor returns a vendor's name.
func (p *pciIDs) vendor(v uint16) (string, bool) {
	off, ok := p.vendors[v]
	if !ok {
		return "", false
	}
	line, _ := lineAt(p.data, off)
	_, name, _ := entry(line)
	return name, true
}

// device returns the name of vendor v's device d, scanning v's block: its
// device lines, skipping comments and subsystem lines, up to the next line
// that is neither.
func (p *pciIDs) device(v, d uint16) (string, bool) {
	off, ok := p.vendors[v]
	if !ok {
		return "", false
	}
	_, off = lineAt(p.data, off)
	for off < len(p.data) {
		var line []byte
		line, off = lineAt(p.data, off)
		switch {
		case len(line) == 0 || line[0] == '#' || bytes.HasPrefix(line, []byte("\t\t")):
		case line[0] == '\t':
			if id, name, ok := entry(line[1:]); ok && id == d {
				return name, true
			}
		default:
			return "", false
		}
	}
	return "", false
}
