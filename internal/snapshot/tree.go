package snapshot

import (
	"archive/tar"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"
)

// dir makes p and the folders above it. It fails when p or a folder above
// is already a file or a link: a capture never writes through a link.
func (c *capturer) dir(p string) bool {
	var missing []string
	for q := p; q != "." && q != "/" && q != ""; q = path.Dir(q) {
		if e, ok := c.tree[q]; ok {
			if e.typ != tar.TypeDir {
				return false
			}
			break // the folders above an existing one exist
		}
		missing = append(missing, q)
	}
	for _, q := range missing {
		c.tree[q] = &entry{typ: tar.TypeDir}
	}
	return true
}

// put adds e at p, making the folders above; the first entry at a path wins.
func (c *capturer) put(p string, e *entry) bool {
	if _, ok := c.tree[p]; ok || !c.dir(path.Dir(p)) {
		return false
	}
	c.tree[p] = e
	return true
}

// file captures the regular file name, at most limit bytes of it. A file
// that is missing or fails to read is left out.
func (c *capturer) file(name string, limit int64) {
	if _, ok := c.tree[name]; ok {
		return
	}
	f, err := c.fsys.Open(name)
	if err != nil {
		return
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit))
	if err != nil {
		return // a folder, or a read the kernel refused: the reader sees an error, the snapshot no file
	}
	c.put(name, &entry{typ: tar.TypeReg, data: b})
}

// files captures the named files of folder dir.
func (c *capturer) files(dir string, names []string) {
	for _, n := range names {
		c.file(path.Join(dir, n), c.spec.AttrLimit)
	}
}

// resolve reads the link name and returns the target to store (relative)
// and the in-tree path it points to; ok is false for a name that is no
// link, or a link that leaves the tree.
func (c *capturer) resolve(name string) (target, resolved string, ok bool) {
	target, err := fs.ReadLink(c.fsys, name)
	if err != nil || target == "" {
		return "", "", false
	}
	if strings.HasPrefix(target, "/") { // rooted at the source root, as the reader takes it
		resolved = path.Clean(strings.TrimLeft(target, "/"))
		target = rel(path.Dir(name), resolved)
	} else {
		resolved = path.Join(path.Dir(name), target)
	}
	if resolved == "." || resolved == ".." || strings.HasPrefix(resolved, "../") {
		return "", "", false
	}
	return target, resolved, true
}

// link captures the link name and returns the path it points to.
func (c *capturer) link(name string) (string, bool) {
	target, resolved, ok := c.resolve(name)
	if !ok {
		return "", false
	}
	return c.putLink(name, target, resolved)
}

// putLink adds the link name to target and the folder resolved it points to.
func (c *capturer) putLink(name, target, resolved string) (string, bool) {
	if !c.put(name, &entry{typ: tar.TypeSymlink, target: target}) {
		return "", false
	}
	return resolved, c.dir(resolved)
}

// linkOrDir captures name, a link or (in old kernels and some captures) a
// folder, and returns the folder it stands for.
func (c *capturer) linkOrDir(name string) (string, bool) {
	if target, resolved, ok := c.resolve(name); ok {
		return c.putLink(name, target, resolved)
	}
	if fi, err := fs.Stat(c.fsys, name); err == nil && fi.IsDir() && c.dir(name) {
		return name, true
	}
	return "", false
}

// backLink makes name a relative link to the folder dir, as the kernel
// links a driver or an IOMMU group back to its functions.
func (c *capturer) backLink(name, dir string) {
	c.put(name, &entry{typ: tar.TypeSymlink, target: rel(path.Dir(name), dir)})
}

// rel is the relative path from folder from to to; both are clean in-tree paths.
func rel(from, to string) string {
	f, t := strings.Split(from, "/"), strings.Split(to, "/")
	if from == "." {
		f = nil
	}
	n := 0
	for n < len(f) && n < len(t) && f[n] == t[n] {
		n++
	}
	parts := slices.Repeat([]string{".."}, len(f)-n)
	return path.Join(append(parts, t[n:]...)...)
}

// countWriter counts the bytes written through it.
type countWriter struct {
	w io.Writer
	n int64
}

func (cw *countWriter) Write(p []byte) (int, error) {
	n, err := cw.w.Write(p)
	cw.n += int64(n)
	return n, err
}

// write writes the manifest, then every entry in path order (folders
// before what they hold), as a gzip'd tar.
func (c *capturer) write(w io.Writer, at time.Time) (Stats, error) {
	var st Stats
	names := make([]string, 0, len(c.tree))
	for p, e := range c.tree {
		names = append(names, p)
		switch e.typ {
		case tar.TypeReg:
			st.Files++
		case tar.TypeSymlink:
			st.Links++
		}
	}
	slices.Sort(names)
	m, err := json.MarshalIndent(Manifest{Version: c.opts.Version, TakenAt: at.Format(time.RFC3339),
		Source: c.opts.Source, Root: c.opts.Root, Redacted: c.opts.Redact, Files: st.Files,
		Vanished: c.vanished}, "", "  ")
	if err != nil {
		return Stats{}, err
	}
	cw := &countWriter{w: w}
	zw := gzip.NewWriter(cw) // the default level: BestCompression saves little for much more time
	tw := tar.NewWriter(zw)
	add := func(name string, e *entry) error {
		h := &tar.Header{Name: name, Typeflag: e.typ, ModTime: at, Mode: 0o644, Size: int64(len(e.data)), Linkname: e.target}
		switch e.typ {
		case tar.TypeDir:
			h.Name, h.Mode = name+"/", 0o755
		case tar.TypeSymlink:
			h.Mode = 0o777
		}
		if err := tw.WriteHeader(h); err != nil {
			return fmt.Errorf("write snapshot member %s: %w", name, err)
		}
		if _, err := tw.Write(e.data); err != nil {
			return fmt.Errorf("write snapshot member %s: %w", name, err)
		}
		return nil
	}
	if err := add(ManifestName, &entry{typ: tar.TypeReg, data: append(m, '\n')}); err != nil {
		return Stats{}, err
	}
	for i, p := range names {
		// A folder with members below it is implied by them: leaving its own
		// entry out makes the archive a tenth smaller and faster to read.
		if c.tree[p].typ == tar.TypeDir && i+1 < len(names) && strings.HasPrefix(names[i+1], p+"/") {
			continue
		}
		if err := add(p, c.tree[p]); err != nil {
			return Stats{}, err
		}
	}
	if err := errors.Join(tw.Close(), zw.Close()); err != nil {
		return Stats{}, fmt.Errorf("write snapshot: %w", err)
	}
	st.Bytes = cw.n
	return st, nil
}
