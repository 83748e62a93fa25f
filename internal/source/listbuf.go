package source

import "sync/atomic"

// listBuffers keeps a tree's listing buffer between its folders: a PCI
// function's folder is listed into the memory the previous one used.
type listBuffers struct {
	spare atomic.Pointer[listBuffer]
}

// listBuffer holds one folder's listing.
type listBuffer struct {
	b []byte
}

// newListBuffers returns an empty keeper of listing buffers.
func newListBuffers() *listBuffers { return &listBuffers{} }

// get takes the kept buffer, or a new one.
func (l *listBuffers) get() *listBuffer {
	if l != nil {
		if lb := l.spare.Swap(nil); lb != nil {
			return lb
		}
	}
	return &listBuffer{b: make([]byte, 0, 4096)}
}

// put keeps lb for the next folder.
func (l *listBuffers) put(lb *listBuffer) {
	if l != nil {
		l.spare.Store(lb)
	}
}
