package gzip

import (
	"bytes"
	stdgzip "compress/gzip"
	"errors"
	"io"
	"math/rand/v2"
	"testing"
)

// gzipped compresses data with the standard library's writer at level.
func gzipped(t *testing.T, data []byte, level int) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := stdgzip.NewWriterLevel(&buf, level)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestRoundTrip reads back what the standard library's writer wrote, at
// every level (stored, fixed and dynamic Huffman blocks), through one
// Reader reset for each stream as gdtopo's archive reader uses it.
func TestRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	random := make([]byte, 300<<10)
	for i := range random {
		random[i] = byte(rng.IntN(256))
	}
	text := bytes.Repeat([]byte("sys/devices/pci0000:00/0000:00:01.0/numa_node\n0\n"), 5000)
	var r Reader
	for _, data := range [][]byte{nil, []byte("x"), text, random} {
		for _, level := range []int{stdgzip.NoCompression, stdgzip.BestSpeed, stdgzip.DefaultCompression, stdgzip.BestCompression, stdgzip.HuffmanOnly} {
			if err := r.Reset(bytes.NewReader(gzipped(t, data, level))); err != nil {
				t.Fatalf("%d bytes at level %d: Reset: %v", len(data), level, err)
			}
			got, err := io.ReadAll(&r)
			if err != nil {
				t.Fatalf("%d bytes at level %d: %v", len(data), level, err)
			}
			if !bytes.Equal(got, data) {
				t.Errorf("%d bytes at level %d: read %d bytes, not the same", len(data), level, len(got))
			}
		}
	}
}

// TestMultistream reads two gzip members one after the other, as gzip(1)
// does.
func TestMultistream(t *testing.T) {
	in := append(gzipped(t, []byte("first "), 6), gzipped(t, []byte("second"), 6)...)
	r, err := NewReader(bytes.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(r)
	if err != nil || string(got) != "first second" {
		t.Errorf("read %q, %v; want %q", got, err, "first second")
	}
}

// TestCorrupt: a damaged stream is an error, never a silent short read.
func TestCorrupt(t *testing.T) {
	good := gzipped(t, bytes.Repeat([]byte("0000:00:01.0\n"), 1000), 6)
	if _, err := NewReader(bytes.NewReader([]byte("not gzip at all"))); !errors.Is(err, ErrHeader) {
		t.Errorf("not gzip: %v; want ErrHeader", err)
	}
	badSum := bytes.Clone(good)
	badSum[len(badSum)-5] ^= 0xff // the CRC-32 in the trailer
	if err := readAll(badSum); !errors.Is(err, ErrChecksum) {
		t.Errorf("wrong checksum: %v; want ErrChecksum", err)
	}
	if err := readAll(good[:len(good)/2]); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("cut in half: %v; want io.ErrUnexpectedEOF", err)
	}
	badData := bytes.Clone(good)
	for i := 20; i < 40; i++ {
		badData[i] = 0xff
	}
	if err := readAll(badData); err == nil {
		t.Error("garbled blocks read without an error")
	}
}

func readAll(b []byte) error {
	r, err := NewReader(bytes.NewReader(b))
	if err != nil {
		return err
	}
	_, err = io.ReadAll(r)
	return err
}
