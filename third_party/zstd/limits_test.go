package zstd

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"testing"
)

// frame returns a zstd frame of one raw block holding data, after the
// frame header descriptor fhd and the header fields that follow it.
func frame(fhd byte, fields []byte, data string) []byte {
	b := append([]byte{0x28, 0xb5, 0x2f, 0xfd, fhd}, fields...)
	h := 1 | len(data)<<3 // last block, raw
	b = append(b, byte(h), byte(h>>8), byte(h>>16))
	return append(b, data...)
}

// TestWindowLimit checks gdtopo's changes: a frame may ask for a window of
// up to MaxWindowSize, one that asks for more is refused with
// ErrWindowSize before the window is allocated, and a window is allocated
// no larger than the frame's content size when the header gives it.
func TestWindowLimit(t *testing.T) {
	tests := []struct {
		name     string
		frame    []byte
		refuse   bool
		maxAlloc uint64
	}{
		{"64 MiB window", frame(0x00, []byte{16 << 3}, "hello"), false, 65 << 20},
		{"64 MiB window, 5 bytes of content", frame(0x80, []byte{16 << 3, 5, 0, 0, 0}, "hello"), false, 64 << 10},
		{"72 MiB window", frame(0x00, []byte{16<<3 | 1}, "hello"), true, 64 << 10},
		{"128 MiB window", frame(0x00, []byte{17 << 3}, "hello"), true, 64 << 10},
		{"2 GiB window", frame(0x00, []byte{21 << 3}, "hello"), true, 64 << 10},
		// A single segment frame's window is its content size.
		{"single segment of 5 bytes", frame(0xa0, []byte{5, 0, 0, 0}, "hello"), false, 64 << 10},
		{"single segment of 64 MiB and a byte", frame(0xa0, []byte{1, 0, 0, 4}, "hello"), true, 64 << 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			got, err := io.ReadAll(NewReader(bytes.NewReader(tt.frame)))
			runtime.ReadMemStats(&after)
			if grew := after.TotalAlloc - before.TotalAlloc; grew > tt.maxAlloc {
				t.Errorf("allocated %d KiB; want at most %d KiB", grew>>10, tt.maxAlloc>>10)
			}
			switch {
			case tt.refuse && !errors.Is(err, ErrWindowSize):
				t.Errorf("read %q, %v; want an error wrapping ErrWindowSize", got, err)
			case !tt.refuse && (err != nil || string(got) != "hello"):
				t.Errorf("read %q, %v; want %q", got, err, "hello")
			}
		})
	}
}
