package source

import "sync/atomic"

// listings is what a tree's folders share about listing themselves (see
// folder): a listing buffer, kept between folders so that one PCI
// function's folder is listed into the memory the previous one used, and
// whether the tree lacks files in its folders, as captures that keep only
// some attribute files do.
type listings struct {
	spare atomic.Pointer[listBuffer]
	gappy atomic.Bool
}

// listBuffer holds one folder's listing.
type listBuffer struct {
	b []byte
}

// newListings returns the listings of a tree with no folder listed yet.
func newListings() *listings { return &listings{} }

// get takes the kept buffer, or a new one.
func (l *listings) get() *listBuffer {
	if l != nil {
		if lb := l.spare.Swap(nil); lb != nil {
			return lb
		}
	}
	return &listBuffer{b: make([]byte, 0, 4096)}
}

// put keeps lb for the next folder.
func (l *listings) put(lb *listBuffer) {
	if l != nil {
		l.spare.Store(lb)
	}
}

// sawGaps records that a folder of the tree lacks files.
func (l *listings) sawGaps() {
	if l != nil {
		l.gappy.Store(true)
	}
}

// hasGaps reports whether a folder of the tree was found lacking files.
func (l *listings) hasGaps() bool { return l != nil && l.gappy.Load() }
