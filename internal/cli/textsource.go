package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/gdtopo/gdtopo/internal/hwloc"
	"github.com/gdtopo/gdtopo/internal/lspcidump"
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
	{"NCCL topology XML", ncclxml.Sniff, ncclxml.Parse},
	{"hwloc XML", hwloc.SniffXML, hwloc.ParseXML},
	{"lstopo console text", hwloc.SniffConsole, hwloc.ParseConsole},
	{"lspci output", lspcidump.Sniff, lspcidump.Parse},
}

// maxStdin bounds standard input read whole into memory: a snapshot
// archive or a text source.
const maxStdin = 256 << 20

// readStdin reads the SOURCE "-": a snapshot archive (gdtopo snapshot
// --output-file - | gdtopo check -) or one of the text formats.
func (o *globalOptions) readStdin() (*source.Source, *topology.Graph, error) {
	const display = "standard input"
	data, err := io.ReadAll(io.LimitReader(o.IO.In, maxStdin+1))
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", display, err)
	}
	if len(data) > maxStdin {
		return nil, nil, fmt.Errorf("%s: over %d MiB: not a topology dump or snapshot gdtopo reads", display, maxStdin>>20)
	}
	if len(data) == 0 {
		return nil, nil, fmt.Errorf("%s: empty input", display)
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
func (o *globalOptions) readText(name string) (*source.Source, *topology.Graph, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxTextSource+1))
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(data) > maxTextSource {
		return nil, nil, fmt.Errorf("%s: over %d MiB: not a topology dump gdtopo reads", name, maxTextSource>>20)
	}
	if len(data) == 0 {
		return nil, nil, fmt.Errorf("%s: empty input", name)
	}
	return parseText(name, data)
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
		return nil, nil, fmt.Errorf("%s: an nvidia-smi topo -m matrix alone, with no PCIe tree: paste it with a dump (lspci -tv), or give it with --nvsmi or to gdtopo verify beside a source", display)
	}
	data = rest
	for _, t := range textFormats {
		if t.sniff(data) {
			g, err := t.parse(display, data)
			if err != nil {
				return nil, nil, err
			}
			return &source.Source{Name: display, Kind: "file", Format: t.name, NVSMI: matrix}, g, nil
		}
	}
	return nil, nil, fmt.Errorf("%s: %w, lspci output, NCCL or hwloc topology XML, or lstopo text", display, source.ErrUnrecognized)
}

// isUnrecognized reports whether source.Open gave up on a regular file.
func isUnrecognized(err error) bool { return errors.Is(err, source.ErrUnrecognized) }
