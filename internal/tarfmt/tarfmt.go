// Package tarfmt holds what gdtopo's tar reader and snapshot writer share:
// the member header, the member types, and a Writer that writes the bytes
// archive/tar's Writer would for the headers a snapshot has.
//
// gdtopo does not link archive/tar: it imports os/user (for
// FileInfoHeader), whose cgo lookups alone made every default build a
// dynamically linked executable, whose loading cost each run 0.44 M
// instructions and 70 page faults (docs/performance.md).
package tarfmt

import (
	"errors"
	"io"
	"path"
	"strconv"
	"strings"
	"time"
)

// BlockSize is the size of a tar header and the unit member contents are
// padded to.
const BlockSize = 512

// Member types, as the typeflag byte of a header.
const (
	TypeReg           = '0'    // regular file
	TypeRegA          = '\x00' // V7's regular file, or folder when the name ends in a slash
	TypeLink          = '1'    // hard link
	TypeSymlink       = '2'    // symbolic link
	TypeChar          = '3'    // character device
	TypeBlock         = '4'    // block device
	TypeDir           = '5'    // folder
	TypeFifo          = '6'    // FIFO
	TypeXHeader       = 'x'    // PAX records for the next member
	TypeXGlobalHeader = 'g'    // PAX records for every later member
	TypeGNUSparse     = 'S'    // GNU sparse file
	TypeGNULongName   = 'L'    // GNU: the next member's name
	TypeGNULongLink   = 'K'    // GNU: the next member's link target
)

// ErrHeader is a header that is not valid tar.
var ErrHeader = errors.New("invalid tar header")

// ErrFieldTooLong is a header field too long for tar to hold.
var ErrFieldTooLong = errors.New("tar header field too long")

// Header is one member of a tar archive: the fields gdtopo reads and writes.
type Header struct {
	Name     string
	Linkname string // a link's target
	Typeflag byte
	Size     int64 // content bytes
	Mode     int64 // permission bits
	ModTime  time.Time
}

// Field offsets and sizes of a USTAR header block.
const (
	nameSize   = 100
	prefixSize = 155
	offMode    = 100
	offUID     = 108
	offGID     = 116
	offSize    = 124
	offMtime   = 136
	offChksum  = 148
	offType    = 156
	offLink    = 157
	offMagic   = 257
	offDevMaj  = 329
	offDevMin  = 337
	offPrefix  = 345
)

// Writer writes a tar archive as archive/tar's Writer does for headers with
// no owner, no device numbers and no PAX records of their own: USTAR,
// splitting a long name into prefix and name where it can, else a PAX
// header with the path or link target that does not fit. TestWriterMatches
// holds it to archive/tar byte for byte.
type Writer struct {
	w    io.Writer
	blk  [BlockSize]byte
	left int64 // content bytes of the current member still to be written
	pad  int64 // padding owed after the current member's content
	err  error
}

// NewWriter writes a tar archive to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// WriteHeader ends the current member and starts the member h, whose Size
// content bytes Write then takes. The modification time is rounded to the
// second; one before 1970 or after 2242 is refused.
func (tw *Writer) WriteHeader(h *Header) error {
	if err := tw.finish(); err != nil {
		return err
	}
	typ := Promoted(h.Typeflag, h.Name)
	mtime := h.ModTime.Round(time.Second).Unix()
	if h.ModTime.IsZero() {
		mtime = 0
	}
	if !fitsOctal(12, h.Size) || !fitsOctal(8, h.Mode) || !fitsOctal(12, mtime) {
		return tw.fail(ErrFieldTooLong)
	}
	if strings.IndexByte(h.Name, 0) >= 0 || strings.IndexByte(h.Linkname, 0) >= 0 ||
		typ != TypeDir && typ != TypeLink && typ != TypeSymlink && strings.HasSuffix(h.Name, "/") {
		return tw.fail(ErrHeader)
	}
	var pax strings.Builder // archive/tar's records come sorted: linkpath, then path
	if !fitsField(h.Linkname) {
		pax.WriteString(paxRecord("linkpath", h.Linkname))
	}
	prefix, name, split := splitUSTARPath(h.Name)
	if pax.Len() > 0 || !split && !fitsField(h.Name) {
		if !fitsField(h.Name) {
			pax.WriteString(paxRecord("path", h.Name))
		}
		return tw.writePAX(h, typ, mtime, pax.String())
	}
	if !split {
		name = h.Name
	}
	tw.template(name, h.Linkname, typ, h.Mode, h.Size, mtime)
	putString(tw.blk[offPrefix:offPrefix+prefixSize], prefix)
	return tw.writeBlock(h.Size, typ)
}

// writePAX writes a PAX header with the records pax, then the member h
// with the name and link cut to what ASCII of them fits, as archive/tar.
func (tw *Writer) writePAX(h *Header, typ byte, mtime int64, pax string) error {
	dir, file := path.Split(h.Name)
	paxName := toASCII(path.Join(dir, "PaxHeaders.0", file))
	if len(paxName) > nameSize {
		paxName = paxName[:nameSize]
	}
	tw.template(strings.TrimRight(paxName, "/"), "", TypeXHeader, 0, int64(len(pax)), 0)
	clear(tw.blk[offDevMaj:offPrefix]) // archive/tar leaves them out of a PAX header
	if err := tw.writeBlock(int64(len(pax)), TypeXHeader); err != nil {
		return err
	}
	if _, err := io.WriteString(tw, pax); err != nil {
		return err
	}
	if err := tw.finish(); err != nil {
		return err
	}
	tw.template(toASCII(h.Name), toASCII(h.Linkname), typ, h.Mode, h.Size, mtime)
	return tw.writeBlock(h.Size, typ)
}

// template fills the header block with a USTAR header of these fields.
func (tw *Writer) template(name, link string, typ byte, mode, size, mtime int64) {
	b := &tw.blk
	clear(b[:])
	putString(b[:nameSize], name)
	putOctal(b[offMode:offUID], mode)
	putOctal(b[offUID:offGID], 0)
	putOctal(b[offGID:offSize], 0)
	putOctal(b[offSize:offMtime], size)
	putOctal(b[offMtime:offChksum], mtime)
	b[offType] = typ
	putString(b[offLink:offLink+nameSize], link)
	copy(b[offMagic:], "ustar\x0000")
	putOctal(b[offDevMaj:offDevMin], 0)
	putOctal(b[offDevMin:offPrefix], 0)
}

// writeBlock sets the header block's checksum, writes it, and expects the
// content bytes ContentSize says.
func (tw *Writer) writeBlock(size int64, typ byte) error {
	b := &tw.blk
	copy(b[offChksum:offType], "        ")
	var sum int64
	for _, c := range b {
		sum += int64(c)
	}
	putOctal(b[offChksum:offChksum+7], sum)
	b[offChksum+7] = ' '
	if _, err := tw.w.Write(b[:]); err != nil {
		return tw.fail(err)
	}
	size = ContentSize(typ, size)
	tw.left, tw.pad = size, -size&(BlockSize-1)
	return nil
}

// Promoted is the type of a member whose header says typ: V7's regular
// file becomes TypeReg, or TypeDir for a name ending in a slash, as
// archive/tar reads and writes it; any other type stays.
func Promoted(typ byte, name string) byte {
	if typ != TypeRegA {
		return typ
	}
	if strings.HasSuffix(name, "/") {
		return TypeDir
	}
	return TypeReg
}

// ContentSize is how many content bytes follow a header of type typ whose
// size field says size: none for the types that have no content, whatever
// the field says, as archive/tar takes them.
func ContentSize(typ byte, size int64) int64 {
	switch typ {
	case TypeLink, TypeSymlink, TypeChar, TypeBlock, TypeDir, TypeFifo:
		return 0
	}
	return size
}

// Write writes content of the current member, no more than its header said.
func (tw *Writer) Write(p []byte) (int, error) {
	if tw.err != nil {
		return 0, tw.err
	}
	if int64(len(p)) > tw.left {
		return 0, errors.New("tar: write past the member's size")
	}
	n, err := tw.w.Write(p)
	tw.left -= int64(n)
	if err != nil {
		return n, tw.fail(err)
	}
	return n, nil
}

// Close ends the last member and writes tar's end-of-archive blocks. It does
// not close the underlying writer.
func (tw *Writer) Close() error {
	if err := tw.finish(); err != nil {
		return err
	}
	var end [2 * BlockSize]byte
	if _, err := tw.w.Write(end[:]); err != nil {
		return tw.fail(err)
	}
	tw.err = errors.New("tar: write after close")
	return nil
}

// finish pads the current member's content to a whole block, refusing one
// whose content fell short of its header.
func (tw *Writer) finish() error {
	if tw.err != nil {
		return tw.err
	}
	if tw.left > 0 {
		return tw.fail(errors.New("tar: missed writing " + strconv.FormatInt(tw.left, 10) + " bytes"))
	}
	if tw.pad > 0 {
		var zeros [BlockSize]byte
		if _, err := tw.w.Write(zeros[:tw.pad]); err != nil {
			return tw.fail(err)
		}
		tw.pad = 0
	}
	return nil
}

// fail makes err the writer's lasting error and returns it.
func (tw *Writer) fail(err error) error {
	tw.err = err
	return err
}

// fitsField reports whether s can be written as it is in a 100-byte field:
// printable as ASCII, and short enough.
func fitsField(s string) bool { return len(s) <= nameSize && isASCII(s) }

// splitUSTARPath splits a name too long for the name field into USTAR's
// prefix and name, at a slash, as archive/tar does; ok is false when it
// cannot.
func splitUSTARPath(name string) (prefix, suffix string, ok bool) {
	length := len(name)
	if length <= nameSize || !isASCII(name) {
		return "", "", false
	} else if length > prefixSize+1 {
		length = prefixSize + 1
	} else if name[length-1] == '/' {
		length--
	}
	i := strings.LastIndex(name[:length], "/")
	nlen, plen := len(name)-i-1, i
	if i <= 0 || nlen > nameSize || nlen == 0 || plen > prefixSize {
		return "", "", false
	}
	return name[:i], name[i+1:], true
}

// paxRecord formats one "LENGTH key=value\n" PAX record, whose length
// counts its own digits.
func paxRecord(k, v string) string {
	size := len(k) + len(v) + len(" =\n")
	size += len(strconv.Itoa(size))
	rec := strconv.Itoa(size) + " " + k + "=" + v + "\n"
	if len(rec) != size { // the length gained a digit
		rec = strconv.Itoa(len(rec)) + " " + k + "=" + v + "\n"
	}
	return rec
}

// putString writes s into the field b, NUL-terminated where it is shorter;
// a longer s is cut, and a slash at the cut is dropped, as archive/tar does.
func putString(b []byte, s string) {
	copy(b, s)
	if len(s) < len(b) {
		b[len(s)] = 0
	}
	if len(s) > len(b) && b[len(b)-1] == '/' {
		b[len(strings.TrimRight(s[:len(b)-1], "/"))] = 0
	}
}

// putOctal writes x into the field b as zero-padded octal digits and a NUL.
func putOctal(b []byte, x int64) {
	s := strconv.FormatInt(x, 8)
	if n := len(b) - len(s) - 1; n > 0 {
		s = strings.Repeat("0", n) + s
	}
	putString(b, s)
}

// fitsOctal reports whether x fits a numeric field of n bytes in octal.
func fitsOctal(n int, x int64) bool {
	return x >= 0 && (n >= 22 || x < 1<<(3*(n-1)))
}

// isASCII reports whether s holds only ASCII and no NUL.
func isASCII(s string) bool {
	for _, c := range s {
		if c >= 0x80 || c == 0 {
			return false
		}
	}
	return true
}

// toASCII drops from s what is not ASCII, and NULs.
func toASCII(s string) string {
	if isASCII(s) {
		return s
	}
	b := make([]byte, 0, len(s))
	for _, c := range s {
		if c < 0x80 && c != 0 {
			b = append(b, byte(c))
		}
	}
	return string(b)
}
