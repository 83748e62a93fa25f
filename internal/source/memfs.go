package source

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
	"unicode/utf8"
)

// maxLinkHops is how many symbolic links one lookup follows, as Linux's MAXSYMLINKS.
const maxLinkHops = 40

// errLinkLoop is returned once a lookup has followed maxLinkHops links.
var errLinkLoop = errors.New("too many levels of symbolic links")

// node is one entry of an in-memory tree.
type node struct {
	mode    fs.FileMode // type bits and permissions
	modTime time.Time
	data    []byte     // content of a regular file; shared by hard links, never written
	target  string     // target of a symbolic link, as stored
	parent  *node      // the folder holding it; nil for the root
	entries []fileInfo // a folder's entries, sorted by name; see index
	// index holds a folder's entries instead of entries while the tree is
	// built, once an entry arrived out of order among many; finish moves
	// them back. Archives list a folder's entries in order, so most folders
	// never have one.
	index map[string]*node
}

// sortedInsertMax is the largest folder an entry that arrives out of order
// is inserted into in place; a larger one gets an index, so that an archive
// listing a huge folder backwards does not cost quadratic time.
const sortedInsertMax = 64

// memFS is a read-only tree held in memory: a tree of nodes, so that a
// lookup walks it component by component without building paths. It is
// safe for concurrent reads once built.
type memFS struct {
	root     *node
	free     []node     // where new nodes come from while the tree is built
	freeDirs []fileInfo // where folders' first entries go while the tree is built
	mem      *arena     // where free and freeDirs come from; nil: new memory
	unsorted []*node    // the folders with an index, sorted by finish

	// The folder the last put went into: archives list a folder's entries
	// one after another, so most puts skip the walk from the root.
	lastDir     string
	lastDirNode *node

	// replaced is the file the last put replaced (a member given twice),
	// nil when it replaced none.
	replaced *node

	// nodes counts the nodes made, folders a member's path implies
	// included: what the tree costs beside its files' contents.
	nodes int

	// The folder a recent walk ended in: readers ask for a folder's files
	// one after another, so most walks skip the components down to it.
	walked atomic.Pointer[walkedDir]
}

// walkedDir is a folder a walk reached through the name's own components,
// without following a link.
type walkedDir struct {
	path string // the folder's path, as a prefix of that name
	n    *node
}

var _ interface {
	FS
	fs.ReadDirFS
} = (*memFS)(nil)

// newMemFS returns a tree holding only its root folder.
func newMemFS() *memFS {
	return &memFS{root: &node{mode: fs.ModeDir | 0o555}}
}

// newNode returns a zero node with the given mode, carved from a slab:
// an archive holds thousands.
func (m *memFS) newNode(mode fs.FileMode, modTime time.Time) *node {
	if len(m.free) == 0 {
		m.free = m.mem.nodes()
	}
	n := &m.free[0]
	m.free = m.free[1:]
	n.mode, n.modTime = mode, modTime
	m.nodes++
	return n
}

// firstEntries is the room a folder's entries get from a slab: most folders
// of a sysfs tree hold a few, and growing each list from one entry was a
// large part of building the tree.
const firstEntries = 8

// newEntries returns an empty entry list with room for firstEntries,
// carved from a slab; a longer list moves out as append grows it.
func (m *memFS) newEntries() []fileInfo {
	if len(m.freeDirs) < firstEntries {
		m.freeDirs = m.mem.entries()
	}
	e := m.freeDirs[:0:firstEntries]
	m.freeDirs = m.freeDirs[firstEntries:]
	return e
}

// Chunk sizes of an arena.
const (
	nodeChunk  = 256
	entryChunk = 64 * firstEntries
	byteChunk  = 64 << 10
)

// arena is where the trees an Opener builds get their nodes, entry lists
// and small member contents, in chunks that are handed out again for the
// next archive once reset: a fleet worker then builds each tree in the
// memory of the last one instead of allocating (and collecting) a
// megabyte per archive. The nil arena allocates new chunks every time.
type arena struct {
	nodeChunks  [][]node
	entryChunks [][]fileInfo
	byteChunks  [][]byte
	// How many chunks of each kind were handed out since the last reset.
	usedNodes, usedEntries, usedBytes int
}

// reset lets the chunks be handed out again: nothing built from them may
// be read any more.
func (a *arena) reset() {
	a.usedNodes, a.usedEntries, a.usedBytes = 0, 0, 0
}

// nodes returns a chunk of zero nodes.
func (a *arena) nodes() []node {
	if a == nil {
		return make([]node, nodeChunk)
	}
	if a.usedNodes == len(a.nodeChunks) {
		a.nodeChunks = append(a.nodeChunks, make([]node, nodeChunk))
	} else {
		clear(a.nodeChunks[a.usedNodes]) // drops the last tree's pointers too
	}
	a.usedNodes++
	return a.nodeChunks[a.usedNodes-1]
}

// entries returns a chunk of zero entries.
func (a *arena) entries() []fileInfo {
	if a == nil {
		return make([]fileInfo, entryChunk)
	}
	if a.usedEntries == len(a.entryChunks) {
		a.entryChunks = append(a.entryChunks, make([]fileInfo, entryChunk))
	} else {
		clear(a.entryChunks[a.usedEntries])
	}
	a.usedEntries++
	return a.entryChunks[a.usedEntries-1]
}

// bytes returns an empty chunk of bytes with room for byteChunk; what it
// held before is overwritten by whoever fills it.
func (a *arena) bytes() []byte {
	if a == nil {
		return make([]byte, 0, byteChunk)
	}
	if a.usedBytes == len(a.byteChunks) {
		a.byteChunks = append(a.byteChunks, make([]byte, 0, byteChunk))
	}
	a.usedBytes++
	return a.byteChunks[a.usedBytes-1][:0]
}

// put stores n at the cleaned path p, creating missing parent folders.
func (m *memFS) put(p string, n *node) error {
	dir, full, walk := m.root, p, true
	if i := strings.LastIndexByte(p, '/'); i > 0 && m.lastDirNode != nil && p[:i] == m.lastDir {
		dir, p, walk = m.lastDirNode, p[i+1:], false // p holds no "/" now
	}
	for walk {
		elem, rest, more := strings.Cut(p, "/")
		if !more {
			break
		}
		child := dir.child(elem)
		switch {
		case child == nil:
			child = m.newNode(fs.ModeDir|0o755, n.modTime)
			m.add(dir, elem, child)
		case !child.mode.IsDir():
			return fmt.Errorf("parent %q is not a folder", full[:len(full)-len(rest)-1])
		}
		dir, p = child, rest
	}
	if len(p) < len(full) {
		m.lastDir, m.lastDirNode = full[:len(full)-len(p)-1], dir
	}
	m.replaced = nil
	if last := len(dir.entries) - 1; dir.index == nil && (last < 0 || dir.entries[last].name < p) {
		m.add(dir, p, n) // after every entry, as archives list them: new
		return nil
	}
	if old := dir.child(p); old != nil {
		if old.mode.IsDir() {
			if !n.mode.IsDir() {
				return errors.New("would replace a folder")
			}
			old.mode, old.modTime = n.mode, n.modTime
			return nil
		}
		n.parent = dir
		dir.replace(p, n)
		m.replaced = old
		return nil
	}
	m.add(dir, p, n)
	return nil
}

// search returns where name is or would be among the entries of the folder
// dir, which must be sorted, and whether it is there.
func (dir *node) search(name string) (int, bool) {
	lo, hi := 0, len(dir.entries) // as slices.BinarySearchFunc, without a call per comparison
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if dir.entries[mid].name < name {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo, lo < len(dir.entries) && dir.entries[lo].name == name
}

// child returns the entry name of the folder dir, or nil.
func (dir *node) child(name string) *node {
	if dir.index != nil {
		return dir.index[name]
	}
	if i, ok := dir.search(name); ok {
		return dir.entries[i].n
	}
	return nil
}

// replace makes n the existing entry name of the folder dir.
func (dir *node) replace(name string, n *node) {
	if dir.index != nil {
		dir.index[name] = n
		return
	}
	i, _ := dir.search(name)
	dir.entries[i].n = n
}

// add makes child the new entry name of the folder dir, keeping dir's
// entries sorted, unless an out-of-order entry would have to be inserted
// into a large folder: that folder's entries move to an index until finish.
func (m *memFS) add(dir *node, name string, child *node) {
	child.parent = dir
	e := fileInfo{name, child}
	last := len(dir.entries) - 1
	switch {
	case dir.index != nil:
		dir.index[name] = child
	case last < 0:
		dir.entries = append(m.newEntries(), e)
	case dir.entries[last].name < name:
		dir.entries = append(dir.entries, e)
	case len(dir.entries) < sortedInsertMax:
		i, _ := dir.search(name)
		dir.entries = slices.Insert(dir.entries, i, e)
	default:
		dir.index = make(map[string]*node, 2*len(dir.entries))
		for _, e := range dir.entries {
			dir.index[e.name] = e.n
		}
		dir.index[name] = child
		dir.entries = nil
		m.unsorted = append(m.unsorted, dir)
	}
}

// finish moves the entries of the folders with an index back into sorted
// entries; call it once, after the last put.
func (m *memFS) finish() {
	for _, dir := range m.unsorted {
		dir.entries = make([]fileInfo, 0, len(dir.index))
		for name, n := range dir.index {
			dir.entries = append(dir.entries, fileInfo{name, n})
		}
		slices.SortFunc(dir.entries, func(a, b fileInfo) int { return strings.Compare(a.name, b.name) })
		dir.index = nil
	}
	m.unsorted = nil
}

// lookup returns the node at the cleaned path p, without following links.
func (m *memFS) lookup(p string) *node {
	n := m.root
	for p != "." && n != nil {
		elem, rest, _ := strings.Cut(p, "/")
		n, p = n.child(elem), rest
		if p == "" {
			break
		}
	}
	return n
}

// sub returns the finished tree below the folder dir.
func (m *memFS) sub(dir string) *memFS { return &memFS{root: m.lookup(dir)} }

// isDir reports whether p is a folder, without following links.
func (m *memFS) isDir(p string) bool {
	n := m.lookup(p)
	return n != nil && n.mode.IsDir()
}

// walk looks name up, following symbolic links in every component but the
// last, and in the last too when follow is set.
func (m *memFS) walk(op, name string, follow bool) (*node, error) {
	if !validPath(name) {
		return nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	cur, rest := m.root, name
	w := m.walked.Load()
	if w != nil && len(name) > len(w.path) && name[len(w.path)] == '/' && name[:len(w.path)] == w.path {
		cur, rest = w.n, name[len(w.path)+1:]
	}
	n, dir, dirEnd, err := m.follow(cur, rest, follow)
	if dir != nil && (w == nil || w.n != dir) {
		m.walked.Store(&walkedDir{path: name[:len(name)-dirEnd], n: dir})
	}
	if err != nil {
		return nil, &fs.PathError{Op: op, Path: name, Err: err}
	}
	return n, nil
}

// validPath is fs.ValidPath in one pass over an ASCII name, which is what
// readers ask for; other names go to fs.ValidPath.
func validPath(name string) bool {
	if name == "." {
		return true
	}
	start := 0
	for i := 0; i <= len(name); i++ {
		if i < len(name) && name[i] >= utf8.RuneSelf {
			return fs.ValidPath(name)
		}
		if i == len(name) || name[i] == '/' {
			if elem := name[start:i]; elem == "" || elem == "." || elem == ".." {
				return false
			}
			start = i + 1
		}
	}
	return true
}

// follow walks the path rest from the folder cur, as walk does. It also
// returns the deepest folder it entered before the last component while the
// components were still rest's own (no link followed yet), and how many
// bytes of rest followed that folder's path.
func (m *memFS) follow(cur *node, rest string, follow bool) (n, dir *node, dirEnd int, err error) {
	hops := 0
	for rest != "" {
		var elem string
		elem, rest, _ = strings.Cut(rest, "/")
		switch elem {
		case "", ".":
			continue
		case "..": // only from link targets, after the links before it were followed
			if cur == m.root {
				return nil, dir, dirEnd, fs.ErrNotExist
			}
			cur = cur.parent
			continue
		}
		c := cur.child(elem)
		switch {
		case c == nil:
			return nil, dir, dirEnd, fs.ErrNotExist
		case c.mode.Type() == fs.ModeSymlink && (rest != "" || follow):
			if hops++; hops > maxLinkHops {
				return nil, dir, dirEnd, errLinkLoop
			}
			if path.IsAbs(c.target) || c.target == "" {
				return nil, dir, dirEnd, fs.ErrNotExist
			}
			if rest != "" {
				rest = c.target + "/" + rest
			} else {
				rest = c.target
			}
		case rest != "" && !c.mode.IsDir():
			return nil, dir, dirEnd, syscall.ENOTDIR
		default:
			if cur = c; hops == 0 && rest != "" {
				dir, dirEnd = c, len(rest)+1
			}
		}
	}
	return cur, dir, dirEnd, nil
}

// Open opens name, following symbolic links.
func (m *memFS) Open(name string) (fs.File, error) {
	n, err := m.walk("open", name, true)
	if err != nil {
		return nil, err
	}
	return n.open(path.Base(name)), nil
}

// open opens the node n, a folder or a regular file, named base.
func (n *node) open(base string) fs.File {
	info := fileInfo{name: base, n: n}
	if n.mode.IsDir() {
		return &openDir{info: info, entries: n.dirEntries()}
	}
	f := &openFile{info: info}
	f.Reset(n.data)
	return f
}

// OpenFolder returns folder dir of the tree, links followed, for reading
// the names in it: a PCI function's attribute files are then found by one
// lookup each instead of a walk of their whole path.
func (m *memFS) OpenFolder(dir string) (fs.FS, error) {
	n, err := m.walk("open", dir, true)
	if err != nil {
		return nil, err
	}
	if !n.mode.IsDir() {
		return nil, &fs.PathError{Op: "open", Path: dir, Err: syscall.ENOTDIR}
	}
	return memFolder{m: m, n: n, dir: dir}, nil
}

// memFolder is a folder of a memFS (see OpenFolder). It answers for a
// single name that is there and is no link to follow, or that is not
// there at all; anything else is asked of the tree under the name dir/name,
// so every answer and error is the tree's.
type memFolder struct {
	m   *memFS
	n   *node
	dir string // the folder's path in m
}

var _ FS = memFolder{}

// child returns the entry name of the folder, nil when there is none;
// ok is false when name is not a single valid name.
func (f memFolder) child(name string) (n *node, ok bool) {
	if !validName(name) {
		return nil, false
	}
	return f.n.child(name), true
}

// validName reports whether name is a single valid name: what validPath
// accepts with no "/" in it, but for ".". One pass over an ASCII name.
func validName(name string) bool {
	if name == "" || name == "." || name == ".." {
		return false
	}
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case c == '/':
			return false
		case c >= utf8.RuneSelf:
			return strings.IndexByte(name, '/') < 0 && fs.ValidPath(name)
		}
	}
	return true
}

// inTree is name as the tree names it.
func (f memFolder) inTree(op, name string) (string, error) {
	switch {
	case !validPath(name):
		return "", &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	case name == ".":
		return f.dir, nil
	}
	return f.dir + "/" + name, nil
}

// Open opens name in the folder, following links.
func (f memFolder) Open(name string) (fs.File, error) {
	n, ok := f.child(name)
	switch {
	case ok && n == nil:
		return nil, &fs.PathError{Op: "open", Path: f.dir + "/" + name, Err: fs.ErrNotExist}
	case ok && n.mode.Type() != fs.ModeSymlink:
		return n.open(name), nil
	}
	full, err := f.inTree("open", name)
	if err != nil {
		return nil, err
	}
	return f.m.Open(full)
}

// Absent reports whether the folder lacks name, a single name: its
// reader then takes the file as missing without an error made for it.
func (f memFolder) Absent(name string) bool {
	n, ok := f.child(name)
	return ok && n == nil
}

// Lstat describes name in the folder without following it.
func (f memFolder) Lstat(name string) (fs.FileInfo, error) {
	n, ok := f.child(name)
	switch {
	case ok && n == nil:
		return nil, &fs.PathError{Op: "lstat", Path: f.dir + "/" + name, Err: fs.ErrNotExist}
	case ok:
		return fileInfo{name: name, n: n}, nil
	}
	full, err := f.inTree("lstat", name)
	if err != nil {
		return nil, err
	}
	return f.m.Lstat(full)
}

// ReadLink returns the target of the link name in the folder.
func (f memFolder) ReadLink(name string) (string, error) {
	if n, ok := f.child(name); ok && n != nil && n.mode.Type() == fs.ModeSymlink {
		return n.target, nil
	}
	full, err := f.inTree("readlink", name)
	if err != nil {
		return "", err
	}
	return f.m.ReadLink(full)
}

// ReadDir lists the folder name, sorted by name; links are not followed.
func (m *memFS) ReadDir(name string) ([]fs.DirEntry, error) {
	n, err := m.walk("readdir", name, true)
	if err != nil {
		return nil, err
	}
	if !n.mode.IsDir() {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: syscall.ENOTDIR}
	}
	return n.dirEntries(), nil
}

// Lstat describes name without following it if it is a symbolic link.
func (m *memFS) Lstat(name string) (fs.FileInfo, error) {
	n, err := m.walk("lstat", name, false)
	if err != nil {
		return nil, err
	}
	return fileInfo{name: path.Base(name), n: n}, nil
}

// ReadLink returns the target of the symbolic link name, as stored.
func (m *memFS) ReadLink(name string) (string, error) {
	n, err := m.walk("readlink", name, false)
	if err != nil {
		return "", err
	}
	if n.mode.Type() != fs.ModeSymlink {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: fs.ErrInvalid}
	}
	return n.target, nil
}

// dirEntries lists the folder n.
func (n *node) dirEntries() []fs.DirEntry {
	list := make([]fs.DirEntry, len(n.entries))
	for i, e := range n.entries {
		list[i] = fs.FileInfoToDirEntry(e)
	}
	return list
}

// fileInfo describes a node under a name; its methods implement fs.FileInfo.
type fileInfo struct {
	name string
	n    *node
}

func (fi fileInfo) Name() string       { return fi.name }
func (fi fileInfo) Mode() fs.FileMode  { return fi.n.mode }
func (fi fileInfo) ModTime() time.Time { return fi.n.modTime }
func (fi fileInfo) IsDir() bool        { return fi.n.mode.IsDir() }
func (fi fileInfo) Sys() any           { return nil }
func (fi fileInfo) Size() int64 {
	if fi.n.mode.Type() == fs.ModeSymlink {
		return int64(len(fi.n.target))
	}
	return int64(len(fi.n.data))
}

// openFile is an open regular file; it implements fs.File, io.Seeker and
// io.ReaderAt. One allocation holds it and its reader.
type openFile struct {
	bytes.Reader
	info fileInfo
}

func (f *openFile) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *openFile) Close() error               { return nil }

// openDir is an open folder, listed when opened; it implements fs.ReadDirFile.
type openDir struct {
	info    fileInfo
	entries []fs.DirEntry
	off     int
}

func (d *openDir) Stat() (fs.FileInfo, error) { return d.info, nil }
func (d *openDir) Close() error               { return nil }
func (d *openDir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.info.name, Err: syscall.EISDIR}
}

// ReadDir returns the next count entries, or all the rest when count <= 0.
func (d *openDir) ReadDir(count int) ([]fs.DirEntry, error) {
	rest := d.entries[d.off:]
	if count > 0 && len(rest) == 0 {
		return nil, io.EOF
	}
	if count > 0 && count < len(rest) {
		rest = rest[:count]
	}
	d.off += len(rest)
	return rest, nil
}
