package load

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/gdtopo/gdtopo/internal/hwloc"
	"github.com/gdtopo/gdtopo/internal/lspcidump"
	"github.com/gdtopo/gdtopo/internal/nccllog"
	"github.com/gdtopo/gdtopo/internal/ncclxml"
	"github.com/gdtopo/gdtopo/internal/nvsmi"
	"github.com/gdtopo/gdtopo/internal/source"
	"github.com/gdtopo/gdtopo/topology"
)

// maxTextSource bounds a text source read whole into memory.
const maxTextSource = 64 << 20

// textFormat is a text input gdtopo reads besides sysfs: recognised by its
// content, never by its name.
type textFormat struct {
	name  string
	sniff func([]byte) bool
	parse func(string, []byte) (*topology.Graph, error)
}

// textFormats are tried in order; the XML forms first, as their sniffing is
// the most specific.
var textFormats = []textFormat{
	// An NCCL_DEBUG=INFO log holding NCCL's "=== System" print: the tree
	// NCCL saw. A log without one is refused below, pointing to explain.
	{"NCCL topology print", nccllog.SniffSystem, nccllog.ParseSystem},
	{"NCCL topology XML", ncclxml.Sniff, ncclxml.Parse},
	{"hwloc XML", hwloc.SniffXML, hwloc.ParseXML},
	{"lstopo console text", hwloc.SniffConsole, hwloc.ParseConsole},
	{"lspci output", lspcidump.Sniff, lspcidump.Parse},
}

// maxStdin bounds standard input, or a pipe, read whole into memory: a
// snapshot archive or a text source.
const maxStdin = 256 << 20

// stdinName is how errors and reports name the input "-".
const stdinName = "standard input"

// readStdin reads the SOURCE "-" from stdin: a snapshot archive (gdtopo
// snapshot --output-file - | gdtopo check -) or one of the text formats.
func readStdin(stdin io.Reader) (*source.Source, *topology.Graph, error) {
	return readStream(stdinName, stdin)
}

// readStream reads a SOURCE that can be read once only, named display:
// standard input, or a pipe named as a file (<(...), a FIFO). It is read
// whole, then recognised as a snapshot archive or one of the text formats.
func readStream(display string, r io.Reader) (*source.Source, *topology.Graph, error) {
	data, err := readWhole(display, r, maxStdin, "a topology dump or snapshot")
	if err != nil {
		return nil, nil, err
	}
	var op source.Opener
	src, err := op.OpenReader(display, bytes.NewReader(data))
	if !isUnrecognized(err) {
		return src, nil, err
	}
	return parseText(display, data)
}

// readText reads a file that is not a sysfs tree or archive as one of the
// text formats.
func readText(name string) (*source.Source, *topology.Graph, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	data, err := readWhole(name, f, maxTextSource, "a topology dump")
	if err != nil {
		return nil, nil, err
	}
	return parseText(name, data)
}

// readWhole reads r, named display, whole: at most limit bytes, and not
// empty. what is the input it would be, for the error when it is larger.
func readWhole(display string, r io.Reader, limit int, what string) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, int64(limit)+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", display, err)
	}
	if len(data) > limit {
		return nil, fmt.Errorf("%s: over %d MiB: not %s gdtopo reads", display, limit>>20, what)
	}
	if len(data) == 0 {
		return nil, fmt.Errorf("%s: empty input", display)
	}
	return data, nil
}

// parseText parses data, named display, as the first text format that
// recognises it, less an nvidia-smi topo -m matrix pasted before or after
// it, which the source keeps (Source.NVSMI).
func parseText(display string, data []byte) (*source.Source, *topology.Graph, error) {
	if bytes.IndexByte(data, 0) >= 0 { // no text form holds a NUL byte: binary data is none of them
		return nil, nil, fmt.Errorf("%s: %w, lspci output, NCCL or hwloc topology XML, or lstopo text", display, source.ErrUnrecognized)
	}
	matrix, rest, ok := nvsmi.Split(data) // a matrix pasted with the dump
	if ok && len(bytes.TrimSpace(rest)) == 0 {
		return nil, nil, matrixAlone(display, data, matrix)
	}
	for _, t := range textFormats {
		if t.sniff(rest) {
			g, err := t.parse(display, rest)
			if err != nil {
				return nil, nil, err
			}
			return &source.Source{Name: display, Kind: "file", Format: t.name, NVSMI: matrix}, g, nil
		}
	}
	if ok {
		return nil, nil, matrixAlone(display, data, matrix)
	}
	if bytes.Contains(rest, []byte("NCCL INFO ")) {
		return nil, nil, fmt.Errorf("%s: %w, lspci output, NCCL or hwloc topology XML, or lstopo text: an NCCL_DEBUG=INFO log, which gdtopo explain LOG [SOURCE] reads", display, source.ErrUnrecognized)
	}
	return nil, nil, fmt.Errorf("%s: %w, lspci output, NCCL or hwloc topology XML, or lstopo text", display, source.ErrUnrecognized)
}

// matrixAlone is the error for a text holding an nvidia-smi topo -m matrix
// and no PCIe tree gdtopo reads: what the matrix holds (and what of it is
// cut off), and the first line beside it that is no part of it: where the
// paste was cut, or text of no form gdtopo reads.
func matrixAlone(display string, data, matrix []byte) error {
	summary, beside := "", ""
	if m, err := nvsmi.Parse(display, matrix); err == nil {
		summary = " (" + m.Summary() + ")"
	}
	if first, last, ok := nvsmi.Locate(data); ok {
		ls := strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
		for i, l := range ls {
			t := strings.TrimSpace(l)
			if t == "" || i >= first && i <= last {
				continue
			}
			if r := []rune(t); len(r) > 40 {
				t = string(r[:40]) + "..."
			}
			beside = fmt.Sprintf(", and at line %d (%q) text of none of the forms gdtopo reads (lspci output, NCCL or hwloc topology XML, lstopo text)", i+1, t)
			if i == len(ls)-1 && i > last {
				beside = fmt.Sprintf(", the paste ending mid-row at line %d (%q)", i+1, t)
			}
			break
		}
	}
	what := "an nvidia-smi topo -m matrix alone" + summary
	if beside != "" {
		what = "an nvidia-smi topo -m matrix" + summary + beside
	}
	return fmt.Errorf("%s: %s, with no PCIe tree: paste it with a dump (lspci -tv), or give it with --nvsmi or to gdtopo verify beside a source", display, what)
}

// isUnrecognized reports whether source.Open gave up on a regular file.
func isUnrecognized(err error) bool { return errors.Is(err, source.ErrUnrecognized) }
