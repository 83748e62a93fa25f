//go:build !amd64

package source

// sumBlock is the sum of the bytes of the block b.
func sumBlock(b *[tarBlock]byte) uint64 { return sumBlockGeneric(b) }
