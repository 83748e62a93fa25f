package source

import (
	"archive/tar"
	"encoding/binary"
	"errors"
	"io"
	"strings"
)

// tarBlock is the size of a tar header and the unit member contents are
// padded to.
const tarBlock = 512

// errTarSparse refuses sparse members, which sysfs captures never hold.
var errTarSparse = errors.New("sparse members are not supported")

// errTarNoEnd refuses a stream that ends between members without tar's
// end-of-archive blocks: every tar writer ends with them, so the archive was
// cut short (archive/tar takes such a stream as complete).
var errTarNoEnd = errors.New("the archive ends without tar's end-of-archive blocks: it was cut short")

// tarReader reads a tar stream member by member with archive/tar, and adds
// what gdtopo needs of it: a stream cut short between members is refused
// (errTarNoEnd) rather than read as a smaller machine, sparse members are
// refused (errTarSparse), and PAX global headers, which archive/tar returns
// as members, are skipped.
type tarReader struct {
	tr  *tar.Reader
	in  tarInput
	end int64 // stream offset where the last member's content and padding end
}

// newTarReader reads the tar stream r.
func newTarReader(r io.Reader) *tarReader {
	t := &tarReader{in: tarInput{r: r}}
	t.tr = tar.NewReader(&t.in)
	return t
}

// Next advances to the next member and returns its header. It returns
// io.EOF at the end of the archive.
func (t *tarReader) Next() (*tar.Header, error) {
	for {
		h, err := t.tr.Next()
		if errors.Is(err, tar.ErrInsecurePath) && h != nil {
			err = nil // GODEBUG=tarinsecurepath=0; memberPath refuses such names itself
		}
		if err == io.EOF {
			// archive/tar stops at the end-of-archive blocks, and also where
			// the stream just stops at, or inside, a member's padding or the
			// next header. Only the first has a zero block after the last
			// member, and zeros last.
			if t.in.n-t.end < tarBlock || t.in.zeros < tarBlock {
				return nil, errTarNoEnd
			}
			return nil, io.EOF
		}
		if err != nil {
			return nil, err
		}
		if h.Typeflag == tar.TypeGNUSparse {
			return nil, errTarSparse
		}
		for k := range h.PAXRecords {
			if strings.HasPrefix(k, "GNU.sparse.") {
				return nil, errTarSparse
			}
		}
		// The content archive/tar has yet to read: none for the types that
		// have none, whatever their size field says, and none for a global
		// header, whose records it has read.
		left := h.Size
		switch h.Typeflag {
		case tar.TypeLink, tar.TypeSymlink, tar.TypeChar, tar.TypeBlock, tar.TypeDir, tar.TypeFifo, tar.TypeXGlobalHeader:
			left = 0
		}
		t.end = t.in.n + left
		t.end += -t.end & (tarBlock - 1)
		if h.Typeflag == tar.TypeXGlobalHeader {
			continue
		}
		return h, nil
	}
}

// Read reads the current member's content.
func (t *tarReader) Read(p []byte) (int, error) { return t.tr.Read(p) }

// tarInput counts the bytes archive/tar reads, and the zero bytes that end
// them, for tarReader to tell the end of an archive from a stream cut short.
type tarInput struct {
	r     io.Reader
	n     int64 // bytes read
	zeros int   // zero bytes at the end of what was read, counted up to tarBlock at least
}

func (c *tarInput) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	tail := p[max(0, n-tarBlock):n] // only the last block's worth can matter
	if z := zeroSuffix(tail); z == n {
		c.zeros += z
	} else {
		c.zeros = z
	}
	return n, err
}

// zeroSuffix is how many zero bytes end b, read eight at a time.
func zeroSuffix(b []byte) int {
	i := len(b)
	for i >= 8 && binary.LittleEndian.Uint64(b[i-8:]) == 0 {
		i -= 8
	}
	for i > 0 && b[i-1] == 0 {
		i--
	}
	return len(b) - i
}
