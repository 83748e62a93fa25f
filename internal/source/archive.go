package source

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/bzip2"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"

	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// readArchive reads the snapshot archive f, named name, into memory. The
// format comes from the first bytes, not from the name.
func (o *Opener) readArchive(name string, f io.Reader) (*Source, error) {
	lim := o.Limits.withDefaults()
	if o.file == nil {
		o.file = bufio.NewReaderSize(f, 64<<10)
	}
	br := o.file
	br.Reset(f)
	defer br.Reset(nil) // holds no file once done
	head, err := br.Peek(512)
	if len(head) == 0 {
		if err == io.EOF {
			return nil, fmt.Errorf("%s: empty file", name)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	var stream io.Reader = br
	format := "tar"
	switch {
	case bytes.HasPrefix(head, []byte{0x1f, 0x8b}):
		format = "tar.gz"
		if o.gz == nil {
			o.gz = new(gzip.Reader)
		}
		// An archive that fits in the file's buffer (an 8-GPU snapshot is
		// about 50 KB) is inflated from a bytes.Reader over it: the
		// inflater's loop for one is cheaper than for a bufio.Reader.
		var in flate.Reader = br
		if whole, err := br.Peek(br.Size()); err == io.EOF {
			o.whole.Reset(whole)
			in = &o.whole
			defer o.whole.Reset(nil)
		}
		if err := o.gz.Reset(in); err != nil {
			return nil, fmt.Errorf("%s: corrupt gzip stream: %w", name, err)
		}
		stream = o.gz
	case bytes.HasPrefix(head, []byte("BZh")):
		format, stream = "tar.bz2", bzip2.NewReader(br)
	case bytes.HasPrefix(head, []byte{0x28, 0xb5, 0x2f, 0xfd}):
		format = "tar.zst"
		if o.zst == nil {
			dec, err := newZstdDecoder()
			if err != nil {
				return nil, fmt.Errorf("%s: zstd decoder: %w", name, err)
			}
			o.zst = dec
		}
		if err := o.zst.Reset(br); err != nil {
			return nil, fmt.Errorf("%s: corrupt zstd stream: %w", name, err)
		}
		defer o.zst.Reset(nil) // holds no file once done
		stream = o.zst
	case bytes.HasPrefix(head, []byte("\xfd7zXZ\x00")):
		return nil, fmt.Errorf("%s: xz-compressed archives are not supported; recompress with gzip, bzip2 or zstd", name)
	case !isTar(head):
		return nil, fmt.Errorf("%s: %w", name, ErrUnrecognized)
	}
	m := newMemFS()
	if o.ReuseMemory {
		if o.mem == nil {
			o.mem = new(arena)
		}
		o.mem.reset()
		m.mem = o.mem
	}
	r := &archiveReader{name: name, format: format + " archive", lim: lim, m: m,
		in: &capReader{r: stream, left: lim.MaxExpanded,
			err: fmt.Errorf("%s: archive expands beyond %s; refusing", name, size(lim.MaxExpanded))}}
	if o.stream == nil {
		o.stream = bufio.NewReaderSize(r.in, 32<<10)
	}
	o.stream.Reset(r.in)
	defer o.stream.Reset(nil)
	if err := r.readAll(o.stream); err != nil {
		return nil, err
	}
	return r.source()
}

// maxZstdWindow bounds the window, and so the memory, a zstd frame may ask
// for: zstd(1) writes windows of at most 8 MiB unless told --long, and a
// snapshot is a few MB. A single-segment frame's content is its window, so
// the same bound holds it.
const maxZstdWindow = 64 << 20

// newZstdDecoder makes a zstd decoder for one stream at a time, decoded as
// it is read in the caller's goroutine (no goroutines of its own, so it is
// kept for the next archive without Close), with memory bounded by
// maxZstdWindow.
func newZstdDecoder() (*zstd.Decoder, error) {
	return zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true),
		zstd.WithDecoderMaxWindow(maxZstdWindow), zstd.WithDecoderMaxMemory(maxZstdWindow))
}

// isTar reports whether the first block of a file is a tar header.
func isTar(head []byte) bool {
	if len(head) < 512 {
		return false
	}
	if string(head[257:262]) == "ustar" {
		return true
	}
	_, err := newTarReader(bytes.NewReader(head)).Next()
	return err == nil
}

// archiveReader turns a tar stream into a memFS.
type archiveReader struct {
	name, format string // the input and its format, for messages
	lim          Limits
	in           *capReader
	m            *memFS
	absLinks     [][2]string // symbolic links with absolute targets, as {member, target}; never stored
	slab         []byte      // where small member contents are read into
	kept         int64       // bytes of member contents kept so far, against lim.MaxKept
	warnings     []string
	member       string // the member being read, for messages
	cleanDir     string // the folder of the last member whose name was clean
}

// readAll reads every member from the buffered stream br, which reads
// r.in, then the rest of a compressed stream so that a corrupt end is
// noticed.
func (r *archiveReader) readAll(br *bufio.Reader) error {
	tr := newTarReader(br)
	for count := 0; ; count++ {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			if count == 0 && errors.Is(err, errTarHeader) && r.in.left >= 0 {
				return fmt.Errorf("%s: the %s stream holds no tar archive: %w", r.name, compression(r.format), ErrUnrecognized)
			}
			return r.streamErr(err)
		}
		if count >= r.lim.MaxEntries {
			return fmt.Errorf("%s: archive has more than %d members; refusing", r.name, r.lim.MaxEntries)
		}
		r.member = hdr.Name
		nodes := r.m.nodes
		if err := r.add(hdr, tr); err != nil {
			return err
		}
		// Each member's node, the folders its path implies and its name
		// count against the kept bytes as its content does: 480 000
		// members of nine bytes cost far more than their contents.
		r.kept += int64(r.m.nodes-nodes)*nodeCost + int64(len(hdr.Name))
		if r.kept > r.lim.MaxKept {
			return r.overKept()
		}
	}
	if r.format != "tar archive" {
		if _, err := io.Copy(io.Discard, r.in); err != nil && !errors.Is(err, gzip.ErrHeader) {
			return r.streamErr(err) // gzip.ErrHeader: trailing garbage, which gzip(1) ignores too
		}
	}
	return nil
}

// add stores the member hdr, whose content tr is positioned at.
func (r *archiveReader) add(hdr *tarHeader, tr io.Reader) error {
	p, err := r.memberPath(hdr.Name)
	if err != nil {
		return r.refuse(err.Error())
	}
	if p == "." {
		return nil
	}
	n := r.m.newNode(fs.FileMode(hdr.Mode)&fs.ModePerm, hdr.ModTime)
	switch hdr.Typeflag {
	case tar.TypeDir:
		n.mode |= fs.ModeDir
	case tar.TypeReg:
		if hdr.Size > r.lim.MaxMember {
			r.warn("skipped: its %s are over the %s member limit", size(hdr.Size), size(r.lim.MaxMember))
			if _, err := io.Copy(io.Discard, tr); err != nil {
				return r.streamErr(err)
			}
			return nil
		}
		// Checked on the header's claim, before reading: a claim beyond
		// the stream can only be the last member's, which then ends short.
		if hdr.Size > r.lim.MaxKept-r.kept {
			return r.overKept()
		}
		data, err := r.content(hdr.Size, tr)
		if err != nil {
			return r.streamErr(err)
		}
		r.kept += int64(len(data))
		n.data = data
	case tar.TypeSymlink:
		n.mode |= fs.ModeSymlink
		n.target = hdr.Linkname
		if path.IsAbs(n.target) {
			r.absLinks = append(r.absLinks, [2]string{p, n.target})
			return nil
		}
		if climbsAbove(p, n.target) {
			return r.refuse(fmt.Sprintf("symbolic link to %q climbs above the archive root", n.target))
		}
	case tar.TypeLink:
		t, err := memberPath(hdr.Linkname)
		if err != nil {
			return r.refuse("hard link: " + err.Error())
		}
		if src := r.m.lookup(t); src != nil && src.mode.IsRegular() {
			n.data = src.data
		} else {
			r.warn("skipped: hard link to %q, which is not an earlier regular file", hdr.Linkname)
			return nil
		}
	case tar.TypeChar, tar.TypeBlock, tar.TypeFifo, tar.TypeXGlobalHeader:
		return nil
	default:
		r.warn("skipped: unsupported tar type %q", hdr.Typeflag)
		return nil
	}
	if err := r.m.put(p, n); err != nil {
		return r.refuse(err.Error())
	}
	if old := r.m.replaced; old != nil && (old.mode.Type() != n.mode.Type() || old.target != n.target || !bytes.Equal(old.data, n.data)) {
		r.warn("appears again with different content: the last one is used")
	}
	return nil
}

// overKept refuses the archive for what its members would keep in memory.
func (r *archiveReader) overKept() error {
	return r.refuse(fmt.Sprintf("members add up to more than the %s kept in memory (contents, names and %d bytes a file or folder)", size(r.lim.MaxKept), nodeCost))
}

// nodeCost is what one file or folder of the tree costs beside its name
// and content: its node (about 120 bytes), its entry in its folder, and a
// folder's first entries, rounded up.
const nodeCost = 256

// Small member contents are carved from shared slabs of byteChunk bytes:
// at most slabMember bytes each.
const slabMember = 4 << 10

// content reads the content of a regular member whose header claims size
// bytes: into a slab when it is small, else into a buffer that grows with
// what the stream really holds, not with what the header claims.
func (r *archiveReader) content(size int64, tr io.Reader) ([]byte, error) {
	if size > slabMember {
		b, n := make([]byte, min(size, 64<<10)), 0
		for {
			m, err := io.ReadFull(tr, b[n:])
			if n += m; err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			if err != nil {
				return nil, err
			}
			if int64(n) == size {
				return b, nil
			}
			b = append(b, make([]byte, min(size-int64(n), int64(n)))...) // twice the size, at most size
		}
	}
	if int64(cap(r.slab)-len(r.slab)) < size {
		r.slab = r.m.mem.bytes()
	}
	start, end := len(r.slab), len(r.slab)+int(size)
	r.slab = r.slab[:end]
	b := r.slab[start:end:end]
	if _, err := io.ReadFull(tr, b); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return b, nil
}

// memberPath is the function memberPath for the name of the next member.
// Archives list a folder's members one after another, so when the name
// starts with the folder of the last clean name, only the rest is checked.
func (r *archiveReader) memberPath(name string) (string, error) {
	if d := r.cleanDir; len(name) > len(d)+1 && name[len(d)] == '/' && name[:len(d)] == d {
		if rest := name[len(d)+1:]; strings.IndexByte(rest, '/') < 0 && rest != "." && rest != ".." {
			return name, nil // one more component, clean itself
		}
	}
	p, err := memberPath(name)
	if i := strings.LastIndexByte(p, '/'); err == nil && i > 0 {
		r.cleanDir = p[:i]
	}
	return p, err
}

// memberPath cleans a member name ("./" prefixes are fine), refusing absolute
// names and names with a ".." component.
func memberPath(name string) (string, error) {
	if strings.HasPrefix(name, "/") {
		return "", errors.New("absolute path")
	}
	clean := name != ""
	for rest := name; rest != ""; {
		elem, tail, more := strings.Cut(rest, "/")
		switch elem {
		case "..":
			return "", errors.New(`path with a ".." component`)
		case "", ".":
			clean = false
		}
		if more && tail == "" {
			clean = false // a trailing slash
		}
		rest = tail
	}
	if clean {
		return name, nil
	}
	return path.Clean(name), nil
}

// climbsAbove reports whether the relative target of the symbolic link at
// the clean path link leads above the root of the tree, as
// path.Join(path.Dir(link), target) starting with "..", without building it.
func climbsAbove(link, target string) bool {
	depth := strings.Count(link, "/") // components of the link's folder
	for rest := target; rest != ""; {
		var elem string
		elem, rest, _ = strings.Cut(rest, "/")
		switch elem {
		case "", ".":
		case "..":
			if depth--; depth < 0 {
				return true
			}
		default:
			depth++
		}
	}
	return false
}

// source roots the finished tree at sys/'s parent and settles the links
// with absolute targets.
func (r *archiveReader) source() (*Source, error) {
	r.m.finish()
	root := "."
	if !r.m.isDir("sys") {
		var dirs []string
		for _, e := range r.m.root.entries {
			if e.n.mode.IsDir() {
				dirs = append(dirs, e.name)
			}
		}
		if len(dirs) != 1 || !r.m.isDir(dirs[0]+"/sys") {
			return nil, fmt.Errorf("%s: archive holds no sys/ folder", r.name)
		}
		root = dirs[0]
	}
	for _, l := range r.absLinks {
		r.member = l[0]
		rel, under := l[0], true
		if root != "." {
			rel, under = strings.CutPrefix(l[0], root+"/")
		}
		if top, _, _ := strings.Cut(rel, "/"); under && (top == "sys" || top == "proc") {
			return nil, r.refuse(fmt.Sprintf("symbolic link to absolute path %q", l[1]))
		}
		r.warn("skipped: symbolic link to absolute path %q, outside sys/ and proc/", l[1])
	}
	src := &Source{Name: r.name, Kind: KindArchive, Format: r.format, Root: r.m, Warnings: r.warnings}
	if root != "." {
		src.Root = r.m.sub(root)
	}
	return src, nil
}

// warn records a recoverable problem with the current member.
func (r *archiveReader) warn(format string, args ...any) {
	r.warnings = append(r.warnings, fmt.Sprintf("%s: member %q ", r.name, r.member)+fmt.Sprintf(format, args...))
}

// refuse is the error that rejects the whole archive for the current member.
func (r *archiveReader) refuse(why string) error {
	return fmt.Errorf("%s: member %q: %s; refusing the archive", r.name, r.member, why)
}

// streamErr is the error for a failed read of the stream.
func (r *archiveReader) streamErr(err error) error {
	if r.in.left < 0 {
		return r.in.err
	}
	what, near := "corrupt", ""
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, errTarNoEnd) {
		what = "truncated"
	}
	if r.member != "" {
		near = fmt.Sprintf(" near member %q", r.member)
	}
	return fmt.Errorf("%s: %s %s%s: %w", r.name, what, r.format, near, err)
}

// compression names the compression of an archive format such as
// "tar.zst archive", as a message calls it.
func compression(format string) string {
	switch {
	case strings.HasPrefix(format, "tar.gz"):
		return "gzip"
	case strings.HasPrefix(format, "tar.bz2"):
		return "bzip2"
	case strings.HasPrefix(format, "tar.zst"):
		return "zstd"
	}
	return "tar"
}

// capReader fails with err once more than left bytes were read through it.
type capReader struct {
	r    io.Reader
	left int64
	err  error
}

// Read reads from the underlying stream, at most one byte past the cap.
func (c *capReader) Read(p []byte) (int, error) {
	if c.left < 0 {
		return 0, c.err
	}
	if int64(len(p)) > c.left+1 {
		p = p[:c.left+1]
	}
	n, err := c.r.Read(p)
	if c.left -= int64(n); c.left < 0 {
		return n, c.err
	}
	return n, err
}

// size writes a byte count for messages: "4 MiB" when whole, else "N bytes".
func size(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}
