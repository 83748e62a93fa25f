// Package tarfmt holds the tar member header, the member types and the
// rules on them that gdtopo's tar reader (internal/source) uses.
package tarfmt

import (
	"errors"
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

// Header is one member of a tar archive: the fields gdtopo reads.
type Header struct {
	Name     string
	Linkname string // a link's target
	Typeflag byte
	Size     int64 // content bytes
	Mode     int64 // permission bits
	ModTime  time.Time
}

// Promoted is the type of a member whose header says typ: V7's regular
// file becomes TypeReg, or TypeDir for a name ending in a slash, as
// archive/tar reads it; any other type stays.
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
