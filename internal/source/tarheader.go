package source

import (
	"archive/tar"
	"errors"
	"strings"
	"time"
)

// typeRegA is V7's regular file, or a folder when the name ends in a slash
// (archive/tar's TypeRegA, deprecated there for writers).
const typeRegA = '\x00'

// tarBlock is the size of a tar header and the unit member contents are
// padded to.
const tarBlock = 512

// errTarHeader is a header that is not valid tar.
var errTarHeader = errors.New("invalid tar header")

// errTarFieldTooLong is a header field too long for tar to hold.
var errTarFieldTooLong = errors.New("tar header field too long")

// tarHeader is one member of a tar archive: the fields gdtopo reads.
type tarHeader struct {
	Name     string
	Linkname string // a link's target
	Typeflag byte
	Size     int64 // content bytes
	Mode     int64 // permission bits
	ModTime  time.Time
}

// promoted is the type of a member whose header says typ: V7's regular
// file becomes TypeReg, or tar.TypeDir for a name ending in a slash, as
// archive/tar reads it; any other type stays.
func promoted(typ byte, name string) byte {
	if typ != typeRegA {
		return typ
	}
	if strings.HasSuffix(name, "/") {
		return tar.TypeDir
	}
	return tar.TypeReg
}

// contentSize is how many content bytes follow a header of type typ whose
// size field says size: none for the types that have no content, whatever
// the field says, as archive/tar takes them.
func contentSize(typ byte, size int64) int64 {
	switch typ {
	case tar.TypeLink, tar.TypeSymlink, tar.TypeChar, tar.TypeBlock, tar.TypeDir, tar.TypeFifo:
		return 0
	}
	return size
}
