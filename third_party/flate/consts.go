package flate

// Constants that klauspost/compress defines in the files of its encoder,
// which this copy leaves out (see GDTOPO.md).
const (
	endBlockMarker = 256     // the literal/length code that ends a block
	maxMatchOffset = 1 << 15 // the largest match offset
	// shift32ByUint masks the count of a shift of a 32-bit value by a
	// uint known to be below 32, so that the compiler drops its guard
	// (klauspost's internal/regmask.Shift32ByUint, the same on every
	// architecture).
	shift32ByUint = 31
)
