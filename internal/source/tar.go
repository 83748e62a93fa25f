package source

import (
	"archive/tar"
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"strconv"
	"strings"
	"time"
)

// maxTarMeta bounds the content of a PAX extended header or a GNU long name
// or link, as archive/tar does (its maxSpecialFileSize).
const maxTarMeta = 1 << 20

// errTarSparse refuses sparse members, which sysfs captures never hold.
var errTarSparse = errors.New("sparse members are not supported")

// errTarNoEnd refuses a stream that ends between members without tar's
// end-of-archive blocks: every tar writer ends with them, so the archive was
// cut short (archive/tar takes such a stream as complete).
var errTarNoEnd = errors.New("the archive ends without tar's end-of-archive blocks: it was cut short")

// tarReader reads a tar stream member by member, like archive/tar.Reader.
// Own code because archive/tar was tried: its header parsing (two checksums,
// every numeric field, a rune-by-rune scan of USTAR blocks, a Header of
// eight strings) made a fleet of 8-GPU snapshots, 2,000 members each, take
// 2.5 times the CPU. It reads V7, USTAR, PAX, GNU and star headers, GNU long
// names and links, PAX path, linkpath and size records, and numbers in octal
// or base-256; it refuses sparse members and streams cut short between
// members. Where archive/tar would read a stream, tarReader gives the same
// names, types, links and contents, or one of those two errors (see
// FuzzTarReader).
type tarReader struct {
	r    *bufio.Reader
	blk  []byte    // the header block just read, inside r's buffer
	hdr  tarHeader // the current member, overwritten by Next
	left int64     // content bytes of the current member not yet read
	pad  int64     // padding after the current member's content
}

// newTarReader reads the tar stream r. Headers are parsed and padding
// skipped inside the buffer of r when it is a bufio.Reader; anything else
// gets one.
func newTarReader(r io.Reader) *tarReader {
	br, ok := r.(*bufio.Reader)
	if !ok || br.Size() < tarBlock {
		br = bufio.NewReaderSize(r, 32<<10)
	}
	return &tarReader{r: br}
}

// Next advances to the next member and returns its header, which is only
// valid until the next call. It returns io.EOF at the end of the archive.
// Only Name, Linkname, Typeflag, Size, Mode and ModTime are filled in.
func (tr *tarReader) Next() (*tarHeader, error) {
	var longName, longLink, paxPath, paxLink, paxSize string
	var hasPath, hasLink, hasSize bool
	for {
		if err := tr.discard(tr.left); err != nil {
			return nil, err
		}
		if n, err := tr.r.Discard(int(tr.pad)); int64(n) < tr.pad && err == io.EOF {
			return nil, errTarNoEnd
		} else if err != nil {
			return nil, err
		}
		tr.left, tr.pad = 0, 0
		if err := tr.readBlock(); err == io.EOF {
			return nil, errTarNoEnd
		} else if err != nil {
			return nil, err
		}
		if allZero(tr.blk) {
			// Two zero blocks end the archive; archive/tar accepts one before
			// the end of the stream too.
			if err := tr.readBlock(); err != nil {
				return nil, err
			}
			if allZero(tr.blk) {
				return nil, io.EOF
			}
			return nil, errTarHeader
		}
		h := &tr.hdr
		if err := tr.parseHeader(h); err != nil {
			return nil, err
		}
		switch h.Typeflag {
		case tar.TypeXHeader, tar.TypeXGlobalHeader, tar.TypeGNULongName, tar.TypeGNULongLink:
			if h.Size > maxTarMeta {
				return nil, errTarFieldTooLong
			}
			meta, err := tr.readMeta(h.Size)
			if err != nil {
				return nil, err
			}
			switch h.Typeflag {
			case tar.TypeGNULongName:
				longName = cString(meta)
			case tar.TypeGNULongLink:
				longLink = cString(meta)
			case tar.TypeXGlobalHeader:
				// archive/tar returns a global header as a member of its own,
				// which ends what earlier headers said about the next member.
				if _, err := parsePAX(meta); err != nil {
					return nil, err
				}
				longName, longLink = "", ""
				hasPath, hasLink, hasSize = false, false, false
			case tar.TypeXHeader:
				recs, err := parsePAX(meta)
				if err != nil {
					return nil, err
				}
				hasPath, hasLink, hasSize = false, false, false // a later PAX header replaces an earlier one
				for _, kv := range recs {
					switch kv[0] {
					case "path":
						paxPath, hasPath = kv[1], true
					case "linkpath":
						paxLink, hasLink = kv[1], true
					case "size":
						paxSize, hasSize = kv[1], true
					}
				}
			}
			continue // affects the next header; global PAX records are ignored
		case tar.TypeGNUSparse:
			return nil, errTarSparse
		}
		if hasPath {
			h.Name = paxPath
		}
		if hasLink {
			h.Linkname = paxLink
		}
		if hasSize {
			n, err := strconv.ParseInt(paxSize, 10, 64)
			if err != nil {
				return nil, errTarHeader
			}
			h.Size = n
		}
		if longName != "" {
			h.Name = longName
		}
		if longLink != "" {
			h.Linkname = longLink
		}
		h.Typeflag = promoted(h.Typeflag, h.Name)
		if err := tr.setContent(h); err != nil {
			return nil, err
		}
		return h, nil
	}
}

// Read reads the current member's content.
func (tr *tarReader) Read(p []byte) (int, error) {
	if tr.left <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > tr.left {
		p = p[:tr.left]
	}
	n, err := tr.r.Read(p)
	tr.left -= int64(n)
	if err == io.EOF {
		if tr.left > 0 {
			return n, io.ErrUnexpectedEOF
		}
		err = nil
	}
	return n, err
}

// readBlock reads one 512-byte block into tr.blk, which stays valid until
// the next read. A stream that ends inside it is truncated; one that ends
// before it gives io.EOF.
func (tr *tarReader) readBlock() error {
	b, err := tr.r.Peek(tarBlock)
	if len(b) < tarBlock {
		if err == io.EOF && len(b) > 0 {
			err = io.ErrUnexpectedEOF
		}
		return err
	}
	tr.blk = b
	_, err = tr.r.Discard(tarBlock)
	return err
}

// allZero reports whether the block b holds only zero bytes.
func allZero(b []byte) bool {
	for i := 0; i < len(b); i += 8 {
		if binary.LittleEndian.Uint64(b[i:]) != 0 {
			return false
		}
	}
	return true
}

// readMeta reads the size-byte content of a metadata member, leaving its
// padding to the next header.
func (tr *tarReader) readMeta(size int64) ([]byte, error) {
	if err := tr.setContent(&tarHeader{Typeflag: tar.TypeReg, Size: size}); err != nil {
		return nil, err
	}
	b := make([]byte, size)
	if _, err := io.ReadFull(tr, b); err != nil {
		return nil, err // Read reports a stream that ends early as io.ErrUnexpectedEOF
	}
	return b, nil
}

// setContent sets how many content bytes follow the header h
// (contentSize).
func (tr *tarReader) setContent(h *tarHeader) error {
	size := contentSize(h.Typeflag, h.Size)
	if size < 0 {
		return errTarHeader
	}
	tr.left, tr.pad = size, -size&(tarBlock-1)
	return nil
}

// discard skips n bytes of the stream.
func (tr *tarReader) discard(n int64) error {
	for n > 0 {
		step := int(min(n, 1<<30))
		done, err := tr.r.Discard(step)
		n -= int64(done)
		if err == io.EOF {
			return io.ErrUnexpectedEOF
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// parseHeader decodes the header in tr.blk into h, after checking its
// checksum, as archive/tar's readHeader. It sets only the fields Next fills
// in, leaving the others as they were.
func (tr *tarReader) parseHeader(h *tarHeader) error {
	b := tr.blk
	sum, ok := parseOctal(b[148:156])
	if !ok {
		return errTarHeader
	}
	if sum != checksum(b) && sum != signedChecksum(b) {
		return errTarHeader
	}
	var prefix []byte
	if string(b[257:263]) == "ustar\x00" {
		if string(b[508:512]) == "tar\x00" { // star
			prefix = cBytes(b[345:476])
		} else { // USTAR and PAX
			prefix = cBytes(b[345:500])
		}
	}
	var size, mode, mtime int64
	if size, ok = parseNumeric(b[124:136]); !ok {
		return errTarHeader
	}
	if mode, ok = parseNumeric(b[100:108]); !ok {
		return errTarHeader
	}
	if mtime, ok = parseNumeric(b[136:148]); !ok {
		return errTarHeader
	}
	// Field by field: the other fields of tarHeader, over 200 bytes, stay
	// zero in tr.hdr.
	h.Typeflag, h.Linkname, h.Size, h.Mode, h.ModTime = b[156], "", size, mode, time.Unix(mtime, 0)
	if b[157] != 0 { // most members link to nothing
		h.Linkname = cString(b[157:257])
	}
	name := cBytes(b[0:100])
	if len(prefix) > 0 { // joined in place: one string, not three
		var buf [len("/") + 155 + 100]byte
		name = append(append(append(buf[:0], prefix...), '/'), name...)
	}
	h.Name = string(name)
	return nil
}

// checksum is the sum of the bytes of the header block b, with its checksum
// field taken as spaces: the sum of the whole block (sumBlock), less the
// field's eight bytes, plus eight spaces.
func checksum(b []byte) int64 {
	const lanes = 0x00ff00ff00ff00ff
	field := binary.LittleEndian.Uint64(b[148:156])
	f := field&lanes + field>>8&lanes // four 16-bit sums of two bytes
	f = f * 0x0001000100010001 >> 48  // their sum, in the top lane
	return int64(sumBlock((*[tarBlock]byte)(b))-f) + 8*' '
}

// sumBlock is the sum of the bytes of the block b. It adds eight
// bytes at a time in four 16-bit lanes, 32 bytes a round, in four sums that
// do not wait for each other and cannot overflow over one block (a lane of
// one sum gets 32 bytes, of the four together 128). Indexing a fixed-size
// array spares the bounds checks.
func sumBlock(blk *[tarBlock]byte) uint64 {
	const lanes = 0x00ff00ff00ff00ff
	le := binary.LittleEndian
	var s0, s1, s2, s3 uint64
	for i := 0; i < tarBlock; i += 32 {
		w := (*[32]byte)(blk[i : i+32])
		v0, v1, v2, v3 := le.Uint64(w[0:8]), le.Uint64(w[8:16]), le.Uint64(w[16:24]), le.Uint64(w[24:32])
		s0 += v0&lanes + v1&lanes
		s1 += v0>>8&lanes + v1>>8&lanes
		s2 += v2&lanes + v3&lanes
		s3 += v2>>8&lanes + v3>>8&lanes
	}
	s := s0 + s1 + s2 + s3
	return s&0xffff + s>>16&0xffff + s>>32&0xffff + s>>48
}

// signedChecksum is checksum with the bytes taken as int8, as some old
// tars computed it.
func signedChecksum(b []byte) int64 {
	var sum int64
	for i, c := range b[:tarBlock] {
		if i >= 148 && i < 156 {
			c = ' '
		}
		sum += int64(int8(c))
	}
	return sum
}

// cString is b up to its first NUL.
func cString(b []byte) string { return string(cBytes(b)) }

// cBytes is b up to its first NUL.
func cBytes(b []byte) []byte {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return b[:i]
	}
	return b
}

// parseNumeric decodes a numeric field: base-256 when its top bit is set
// (a GNU extension), else octal.
func parseNumeric(b []byte) (int64, bool) {
	if len(b) == 0 || b[0]&0x80 == 0 {
		return parseOctal(b)
	}
	var inv byte // negative numbers are stored inverted
	if b[0]&0x40 != 0 {
		inv = 0xff
	}
	var x uint64
	for i, c := range b {
		c ^= inv
		if i == 0 {
			c &= 0x7f
		}
		if x>>56 != 0 {
			return 0, false
		}
		x = x<<8 | uint64(c)
	}
	if x>>63 != 0 {
		return 0, false
	}
	if inv == 0xff {
		return ^int64(x), true
	}
	return int64(x), true
}

// parseOctal decodes an octal field padded with spaces and NULs on either
// side; what follows a NUL inside it is ignored, as archive/tar does.
func parseOctal(b []byte) (int64, bool) {
	if x, ok := octalField(b); ok {
		return x, true
	}
	for len(b) > 0 && (b[0] == ' ' || b[0] == 0) {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == 0) {
		b = b[:len(b)-1]
	}
	if len(b) == 0 {
		return 0, true
	}
	if len(b) <= 16 { // the usual field: read as 16 digits, zeros in front, eight at a time
		var buf [16]byte
		copy(buf[:], "0000000000000000")
		copy(buf[16-len(b):], b)
		hi, okHi := octal8(binary.LittleEndian.Uint64(buf[:8]))
		lo, okLo := octal8(binary.LittleEndian.Uint64(buf[8:]))
		if okHi && okLo {
			return int64(hi<<24 | lo), true
		}
	}
	var x uint64
	for _, c := range b {
		if c == 0 {
			break
		}
		if c < '0' || c > '7' || x>>61 != 0 {
			return 0, false
		}
		x = x<<3 | uint64(c-'0')
	}
	return int64(x), int64(x) >= 0
}

// octalField decodes, without copying, the shapes tar writers give the
// fields of 8 and 12 bytes: 7 digits and a NUL or space (mode), 6 digits,
// a NUL and a space (checksum), 11 digits and a NUL or space (size,
// mtime). ok is false for any other shape, which parseOctal then reads
// byte by byte.
func octalField(b []byte) (x int64, ok bool) {
	le := binary.LittleEndian
	switch {
	case len(b) == 8 && (b[7] == 0 || b[7] == ' '):
		// The digits shifted up a byte, a leading '0' in the lowest.
		v := le.Uint64(b)<<8 | '0'
		if b[6] == 0 && b[7] == ' ' {
			v = le.Uint64(b)<<16 | '0'<<8 | '0'
		}
		d, ok := octal8(v)
		return int64(d), ok
	case len(b) == 12 && (b[11] == 0 || b[11] == ' '):
		hi, okHi := octal8(uint64(le.Uint32(b))<<40 | 0x3030303030) // b[0:3] after five '0's
		lo, okLo := octal8(le.Uint64(b[3:11]))
		return int64(hi<<24 | lo), okHi && okLo
	}
	return 0, false
}

// octal8 decodes eight octal digits, the first in the lowest byte of v;
// ok is false when a byte is no octal digit.
func octal8(v uint64) (x uint64, ok bool) {
	if v&0xf8f8f8f8f8f8f8f8 != 0x3030303030303030 {
		return 0, false
	}
	v &= 0x0707070707070707
	v = v&0x0007000700070007<<3 | v>>8&0x0007000700070007  // two digits a 16-bit lane
	v = v&0x0000003f0000003f<<6 | v>>16&0x0000003f0000003f // four a 32-bit lane
	return v&0xfff<<12 | v>>32&0xfff, true
}

// parsePAX splits the content of a PAX extended header into its
// "LENGTH key=value\n" records, with archive/tar's checks. Sparse files are
// refused.
func parsePAX(b []byte) ([][2]string, error) {
	s := string(b)
	var recs [][2]string
	for len(s) > 0 {
		nStr, rest, ok := strings.Cut(s, " ")
		if !ok {
			return nil, errTarHeader
		}
		n, err := strconv.ParseInt(nStr, 10, 0)
		if err != nil || n < 5 || n > int64(len(s)) {
			return nil, errTarHeader
		}
		n -= int64(len(nStr) + 1)
		if n <= 0 {
			return nil, errTarHeader
		}
		rec, nl, rem := rest[:n-1], rest[n-1:n], rest[n:]
		if nl != "\n" {
			return nil, errTarHeader
		}
		k, v, ok := strings.Cut(rec, "=")
		if !ok || k == "" || strings.IndexByte(k, 0) >= 0 {
			return nil, errTarHeader
		}
		if (k == "path" || k == "linkpath") && strings.IndexByte(v, 0) >= 0 {
			return nil, errTarHeader
		}
		if strings.HasPrefix(k, "GNU.sparse.") {
			return nil, errTarSparse
		}
		recs = append(recs, [2]string{k, v})
		s = rem
	}
	return recs, nil
}
