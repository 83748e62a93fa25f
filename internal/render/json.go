package render

import (
	"bytes"
	"encoding/json"
	"io"

	"github.com/gdtopo/gdtopo/internal/report"
)

// writeJSON writes v as indented JSON (-o json): the bytes an Encoder with
// SetIndent("", "  ") writes, built with less memory. That Encoder indents
// into a slice grown by append, a quarter at a time at this size, which
// allocated five times the output in all (100 MB for the 20 MB report of
// a 10,000-function tree); json.Indent grows its buffer once, to twice the
// compact encoding.
func writeJSON(w io.Writer, v any) error {
	var compact, out bytes.Buffer
	enc := json.NewEncoder(&compact)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil { // Encode appends the newline, which Indent keeps
		return err
	}
	if err := json.Indent(&out, compact.Bytes(), "", "  "); err != nil {
		return err
	}
	_, err := w.Write(out.Bytes())
	return err
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
