//go:build unix

package names

import (
	"os"
	"runtime"
	"syscall"
)

// mapPCIIDs maps size bytes of f read-only, unmapped once the result is
// collected. It reports false where the file cannot be mapped (an empty
// file, a file system without mmap), and the caller reads it instead. A
// file cut short while mapped faults on access to the lost pages, which
// Resolver.Device turns into an error.
func mapPCIIDs(f *os.File, size int64) (*pciIDs, bool) {
	if size <= 0 {
		return nil, false
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_PRIVATE)
	if err != nil {
		return nil, false
	}
	ids := &pciIDs{data: data}
	runtime.AddCleanup(ids, func(b []byte) { syscall.Munmap(b) }, data)
	return ids, true
}
