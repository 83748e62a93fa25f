package source

// sumBlock is the sum of the bytes of the block b: PSADBW adds eight bytes
// in one instruction, a sixth of the instructions of sumBlockGeneric, and
// every member of an archive has its header summed (see checksum).
//
//go:noescape
func sumBlock(b *[tarBlock]byte) uint64
