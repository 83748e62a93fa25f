// Package source turns what the user typed as SOURCE (nothing, a folder, or a
// snapshot archive in a file or a pipe) into a read-only file tree rooted
// where sys/ and proc/ live.
//
// Every gdtopo reader takes the tree as an FS and reads it with fs.ReadFile,
// fs.ReadDir, fs.ReadLink and fs.Lstat. The live machine's /sys and /proc are
// read as they are, kernel-made links and all. A captured folder is read
// under an archive's rules: nothing outside the folder (os.Root), and only
// regular files and folders, opened without blocking (see rootDir).
// Archives are read as a stream into memory and never extracted to disk.
package source

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// FS is a read-only file tree with symbolic links, as every gdtopo reader takes it.
type FS interface {
	fs.FS
	fs.ReadLinkFS // ReadLink and Lstat (Go 1.25)
}

// Kind says what a source is.
type Kind string

// The kinds of source.
const (
	KindLive      Kind = "live"      // the running machine's /sys and /proc
	KindDirectory Kind = "directory" // a captured tree on disk
	KindArchive   Kind = "archive"   // a snapshot archive read into memory
)

// Source is an opened input.
type Source struct {
	Name     string   // what the user gave; "/" for live
	Kind     Kind     // live, directory or archive
	Format   string   // human words: "live /sys", "sysfs directory", "tar.gz archive", ...
	Root     FS       // rooted so that "sys/bus/pci/devices" is a valid path (when present)
	Warnings []string // recoverable problems, e.g. members skipped; each names the input and the member
	// NVSMI is an nvidia-smi topo -m matrix a text source held beside its
	// dump (pasted before or after it), taken out of the dump; nil if none.
	NVSMI []byte
}

// Limits bound what an archive may cost. A zero field takes its default.
type Limits struct {
	MaxExpanded int64 // total decompressed bytes read from the stream (default 512 MiB)
	MaxMember   int64 // largest member kept in memory (default 4 MiB); larger regular members are skipped with a warning
	MaxEntries  int   // most archive members, of any type (default 500 000)
	MaxKept     int64 // total bytes kept in memory: member contents, names and nodeCost a file or folder (default 64 MiB); past it the archive is refused
}

// DefaultLimits returns the limits Open uses.
func DefaultLimits() Limits {
	return Limits{MaxExpanded: 512 << 20, MaxMember: 4 << 20, MaxEntries: 500_000, MaxKept: 64 << 20}
}

// withDefaults fills the zero fields of l from DefaultLimits.
func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	return Limits{orDefault(l.MaxExpanded, d.MaxExpanded), orDefault(l.MaxMember, d.MaxMember),
		orDefault(l.MaxEntries, d.MaxEntries), orDefault(l.MaxKept, d.MaxKept)}
}

// orDefault is v, or d when v is not positive.
func orDefault[T int | int64](v, d T) T {
	if v <= 0 {
		return d
	}
	return v
}

// ErrUnrecognized is wrapped when a file or stream is none of the formats,
// so that a later lspci or XML reader can try it.
var ErrUnrecognized = errors.New("not a sysfs tree or snapshot archive")

// Live returns the running machine's /sys and /proc.
func Live() *Source {
	return &Source{Name: "/", Kind: KindLive, Format: "live /sys", Root: dirFS("/")}
}

// Open opens name with DefaultLimits. An empty name or "/" means the live machine.
func Open(name string) (*Source, error) {
	return OpenWithLimits(name, DefaultLimits())
}

// OpenWithLimits opens name: the live machine for "" or "/", a captured tree for
// a folder, and a snapshot archive (tar, tar.gz, tar.bz2, tar.zst) for a file
// or a stream (IsStream).
// Zero fields of lim take their defaults.
func OpenWithLimits(name string, lim Limits) (*Source, error) {
	return (&Opener{Limits: lim}).Open(name)
}

// An Opener opens sources one after another, as OpenWithLimits does, and
// keeps for the next archive what reading one needs but its tree does not:
// the read buffers and the gzip or zstd decompressor, over 200 KiB. A fleet of
// archives read through one Opener allocates that once, not per archive.
// The zero Opener opens with DefaultLimits. An Opener must not be used by
// several goroutines at once: give each its own.
type Opener struct {
	Limits Limits // bounds on an archive's cost; zero fields take their defaults
	// ReuseMemory builds each archive's tree in the memory of the one
	// before: a Source the Opener returned may then be read only until its
	// next Open or OpenReader. A fleet worker that is done with each source
	// before it opens the next sets it, to allocate (and collect) a
	// megabyte less per 8-GPU snapshot.
	ReuseMemory bool

	file   *bufio.Reader // the archive file's buffer
	whole  bytes.Reader  // the archive file, when it fits in that buffer
	stream *bufio.Reader // the decompressed stream's buffer, which tar headers are parsed in
	gz     *gzip.Reader
	zst    *zstd.Decoder
	mem    *arena // the memory of the last tree, with ReuseMemory
}

// Open opens name as OpenWithLimits does, with the Opener's limits.
func (o *Opener) Open(name string) (*Source, error) {
	if name == "" || name == "/" {
		return Live(), nil
	}
	info, err := os.Stat(name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, bareErr(err))
	}
	switch {
	case info.IsDir():
		return openFolder(name)
	case info.Mode().IsRegular(), IsStream(info.Mode()):
		f, err := os.Open(name)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, bareErr(err))
		}
		defer f.Close()
		return o.readArchive(name, f)
	default:
		return nil, notReadable(name, info.Mode())
	}
}

// IsStream reports whether a SOURCE of mode m is a pipe or a character
// device (a FIFO, the /dev/fd/63 of a shell's <(...), /dev/stdin): read
// once from start to end like standard input, as cat reads it, never
// looked at again. Only the SOURCE itself is: a captured tree's entries of
// these kinds are never opened (rootDir).
func IsStream(m fs.FileMode) bool {
	return m&fs.ModeNamedPipe != 0 || m&fs.ModeCharDevice != 0
}

// OpenStream opens name for reading when it is a stream (IsStream); ok is
// false, with no error, for anything else or a name that cannot be
// described, which Open then answers for. Opening a FIFO waits for a
// writer, as the shell's other readers do.
func OpenStream(name string) (f *os.File, ok bool, err error) {
	info, err := os.Stat(name)
	if err != nil || !IsStream(info.Mode()) {
		return nil, false, nil
	}
	f, err = os.Open(name)
	if err != nil {
		return nil, true, fmt.Errorf("%s: %w", name, bareErr(err))
	}
	return f, true, nil
}

// notReadable is the error for a SOURCE of a kind gdtopo never reads: a
// socket or a block device (a whole disk is no snapshot).
func notReadable(name string, m fs.FileMode) error {
	kind := "not a regular file"
	switch {
	case m&fs.ModeSocket != 0:
		kind = "a socket"
	case m&fs.ModeDevice != 0:
		kind = "a block device"
	}
	return fmt.Errorf("%s: %s: give a folder, a snapshot archive, a text dump (lspci, NCCL or hwloc XML), a pipe, or - for standard input", name, kind)
}

// openFolder roots a captured tree: a folder holding sys/, a mounted sysfs
// itself, or an extracted hwloc-gather-topology tarball (one folder holding sys/).
func openFolder(name string) (*Source, error) {
	src := &Source{Name: name, Kind: KindDirectory, Format: "sysfs directory"}
	rooted := func(dir string) (FS, error) {
		r, err := newRootDir(dir)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, bareErr(err))
		}
		return r, nil
	}
	var err error
	switch {
	case isDir(name, "sys"):
		src.Root, err = rooted(name)
	case isDir(name, "bus", "pci", "devices") || isDir(name, "devices", "system"):
		var r FS
		if r, err = rooted(name); err == nil {
			src.Root = sysView{r}
		}
	default:
		entries, rerr := os.ReadDir(name)
		if rerr != nil {
			return nil, fmt.Errorf("%s: %w", name, bareErr(rerr))
		}
		var dirs []string
		for _, e := range entries {
			if e.IsDir() {
				dirs = append(dirs, e.Name())
			}
		}
		if len(dirs) != 1 || !isDir(name, dirs[0], "sys") {
			return nil, fmt.Errorf("%s: not a sysfs tree: no sys/ folder (give a folder holding sys/, "+
				"a snapshot archive, or nothing for this machine's /sys)", name)
		}
		src.Root, err = rooted(filepath.Join(name, dirs[0]))
	}
	if err != nil {
		return nil, err
	}
	return src, nil
}

// isDir reports whether the joined path is a folder, following symbolic links.
func isDir(elem ...string) bool {
	info, err := os.Stat(filepath.Join(elem...))
	return err == nil && info.IsDir()
}

// dirFS is the live machine's file tree: os.DirFS with a cheaper Open.
func dirFS(dir string) FS {
	return newRawDir(dir)
}

// bareErr strips the *fs.PathError around err, whose path the caller names itself.
func bareErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// OpenReader reads a snapshot archive from r (standard input), named name
// in messages, as Open reads an archive file.
func (o *Opener) OpenReader(name string, r io.Reader) (*Source, error) {
	return o.readArchive(name, r)
}
