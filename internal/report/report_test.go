package report

import (
	"fmt"
	"testing"
)

// TestHexDigits: hexDigits writes what fmt's %0Nx writes, for values wider than N too.
func TestHexDigits(t *testing.T) {
	for _, v := range []uint32{0, 1, 0xf, 0x10de, 0xffff, 0x10000, 0x030200, 0xffffff, 0x1000000, 0xffffffff, 0x12345678} {
		for _, w := range []int{4, 6, 8} {
			if got, want := hexDigits(v, w), fmt.Sprintf("%0*x", w, v); got != want {
				t.Errorf("hexDigits(%#x, %d) = %q; want %q", v, w, got, want)
			}
		}
	}
}
