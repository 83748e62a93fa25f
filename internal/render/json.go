package render

import (
	"bufio"
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

// writeCheckJSON writes c as writeJSON does, one source at a time: the
// document of a check over many sources holds all of their reports, and
// encoded whole it took ten times its size in memory (2.9 GB for 1,000
// snapshots of hgx-h100). The document is encoded without its sources,
// then each source is encoded and indented where the array opens.
func writeCheckJSON(w io.Writer, c *report.Check) error {
	if len(c.Sources) < 2 {
		return writeJSON(w, c)
	}
	shell := *c
	shell.Sources = []report.Result{}
	var doc bytes.Buffer
	if err := writeJSON(&doc, &shell); err != nil {
		return err
	}
	// The sources key is one of the document's own (indented once): no
	// string inside the document holds a newline.
	const empty = "\n  \"sources\": []"
	head, tail, ok := bytes.Cut(doc.Bytes(), []byte(empty))
	if !ok {
		return writeJSON(w, c) // a document laid out otherwise: whole
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.Write(head)
	bw.WriteString(empty[:len(empty)-1])
	var compact, indented bytes.Buffer
	enc := json.NewEncoder(&compact)
	enc.SetEscapeHTML(false)
	for i, r := range c.Sources {
		compact.Reset()
		indented.Reset()
		if err := enc.Encode(r); err != nil {
			return err
		}
		if err := json.Indent(&indented, bytes.TrimSuffix(compact.Bytes(), []byte("\n")), "    ", "  "); err != nil {
			return err
		}
		if i > 0 {
			bw.WriteByte(',')
		}
		bw.WriteString("\n    ")
		bw.Write(indented.Bytes())
	}
	bw.WriteString("\n  ]")
	bw.Write(tail)
	return bw.Flush()
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
