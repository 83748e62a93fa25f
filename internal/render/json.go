package render

import (
	"bytes"
	"encoding/json"
	"io"

	"github.com/gdtopo/gdtopo/internal/report"
)

// writeJSON writes v as indented JSON (-o json).
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// MarshalJSONLine encodes one source's result as one compact JSON object
// and a newline (-o jsonl).
func MarshalJSONLine(r report.Result) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil { // Encode appends the newline
		return nil, err
	}
	return b.Bytes(), nil
}

// flusher is a buffered writer (bufio.Writer) that JSONLine flushes.
type flusher interface{ Flush() error }

// JSONLine writes one source's result as a line of -o jsonl, in one Write,
// and flushes w when it buffers: a reader of a long fleet run sees every
// source as soon as it is done.
func JSONLine(w io.Writer, r report.Result) error {
	b, err := MarshalJSONLine(r)
	if err != nil {
		return err
	}
	return WriteEncodedLine(w, b)
}

// WriteEncodedLine writes a line from MarshalJSONLine and flushes w when
// it buffers.
func WriteEncodedLine(w io.Writer, b []byte) error {
	if _, err := w.Write(b); err != nil {
		return err
	}
	if f, ok := w.(flusher); ok {
		return f.Flush()
	}
	return nil
}
