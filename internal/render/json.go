package render

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/gdtopo/gdtopo/internal/report"
)

// writeJSON writes v as indented JSON (-o json): the bytes an Encoder with
// SetIndent("", "  ") writes, built with less memory. That Encoder indents
// into a slice grown by append, which allocates several times a large
// report's size; json.Indent grows its buffer once, to twice the compact
// encoding.
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

// writeCheckJSON writes c as writeJSON does, one source at a time (see
// CheckDocument).
func writeCheckJSON(w io.Writer, c *report.Check) error {
	if len(c.Sources) < 2 {
		return writeJSON(w, c)
	}
	d := NewCheckDocument(w, c.FailOn)
	for _, r := range c.Sources {
		if err := d.Write(r, nil); err != nil {
			return err
		}
	}
	return d.Close(c.ExitStatus)
}

// CheckDocument writes the -o json document of a check one source at a
// time, byte for byte as writeJSON writes the whole report.Check: a run
// over many sources keeps no report once it is written, and no document
// is encoded whole (encoding takes several times the document's size in
// memory). The exit
// status, which needs every source, follows the sources array. As
// CheckSections does, sources that could not be read wait for the first
// that could, and a document where none could be read is not written.
type CheckDocument struct {
	w       *bufio.Writer
	failOn  string
	written int      // sources written
	waiting [][]byte // unread sources before the first read one, encoded
}

// NewCheckDocument returns a CheckDocument writing to w a check run with
// --fail-on failOn.
func NewCheckDocument(w io.Writer, failOn string) *CheckDocument {
	return &CheckDocument{w: bufio.NewWriterSize(w, 64<<10), failOn: failOn}
}

// MarshalCheckSource encodes one source's result as CheckDocument writes
// it, so that the encoding can be done where the result is made.
func MarshalCheckSource(r report.Result) ([]byte, error) {
	var compact, indented bytes.Buffer
	enc := json.NewEncoder(&compact)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		return nil, err
	}
	if err := json.Indent(&indented, bytes.TrimSuffix(compact.Bytes(), []byte("\n")), "    ", "  "); err != nil {
		return nil, err
	}
	return indented.Bytes(), nil
}

// Write writes the next source, in the order of the check's sources:
// encoded by MarshalCheckSource, or encoded here when encoded is nil.
func (d *CheckDocument) Write(r report.Result, encoded []byte) error {
	if encoded == nil {
		var err error
		if encoded, err = MarshalCheckSource(r); err != nil {
			return err
		}
	}
	if r.Report == nil && d.written == 0 {
		d.waiting = append(d.waiting, encoded)
		return nil
	}
	if d.written == 0 {
		head, _, err := d.shell(0)
		if err != nil {
			return err
		}
		d.w.Write(head)
		d.w.WriteString("\n  \"sources\": [")
	}
	for _, b := range append(d.waiting, encoded) {
		if d.written > 0 {
			d.w.WriteByte(',')
		}
		d.w.WriteString("\n    ")
		d.w.Write(b)
		d.written++
	}
	d.waiting = nil
	return d.w.Flush()
}

// Close ends the document with the check's exit status. It writes nothing
// when no source could be read.
func (d *CheckDocument) Close(exitStatus int) error {
	if d.written == 0 {
		return nil
	}
	_, tail, err := d.shell(exitStatus)
	if err != nil {
		return err
	}
	d.w.WriteString("\n  ]")
	d.w.Write(tail)
	return d.w.Flush()
}

// shell is the document with no sources, encoded by writeJSON and cut
// where its sources array is: the sources key is one of the document's
// own (indented once), and no string in it holds a newline.
func (d *CheckDocument) shell(exitStatus int) (head, tail []byte, err error) {
	var doc bytes.Buffer
	c := report.NewCheck(d.failOn, nil)
	c.ExitStatus = exitStatus
	if err := writeJSON(&doc, c); err != nil {
		return nil, nil, err
	}
	head, tail, ok := bytes.Cut(doc.Bytes(), []byte("\n  \"sources\": []"))
	if !ok {
		return nil, nil, fmt.Errorf("check document laid out otherwise: %q", doc.Bytes())
	}
	return head, tail, nil
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
