package sysfs

import (
	"io/fs"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"
)

// listedTree is a tree whose folders know their names from one listing,
// as internal/source's folders do; asking one of them for a name its
// listing lacks fails the test: the reader must take such a file as
// missing without asking.
type listedTree struct {
	fstest.MapFS
	t *testing.T
}

func (l listedTree) OpenFolder(dir string) (fs.FS, error) {
	entries, err := fs.ReadDir(l.MapFS, dir)
	if err != nil {
		return nil, err
	}
	names := map[string]bool{}
	for _, e := range entries {
		names[e.Name()] = true
	}
	return listedFolder{joinedFS{l.MapFS, dir}, names, l.t}, nil
}

type listedFolder struct {
	joinedFS
	names map[string]bool
	t     *testing.T
}

func (f listedFolder) Absent(name string) bool {
	return name != "." && !strings.Contains(name, "/") && !f.names[name]
}

func (f listedFolder) Open(name string) (fs.File, error) {
	if f.Absent(name) {
		f.t.Errorf("%s/%s, missing from its folder's listing, was opened", f.dir, name)
	}
	return f.joinedFS.Open(name)
}

func (f listedFolder) ReadLink(name string) (string, error) {
	if f.Absent(name) {
		f.t.Errorf("%s/%s, missing from its folder's listing, was read as a link", f.dir, name)
	}
	return f.joinedFS.ReadLink(name)
}

// TestReadSysfsListedFolders reads trees through folders that answer
// missing names from their listing and name by name: the same graph,
// warnings and gaps, on a whole tree and on one that lacks what ghw's
// captures lack (config, subsystem IDs, link files, driver links).
func TestReadSysfsListedFolders(t *testing.T) {
	whole := smallTree()
	partial := smallTree()
	for p := range partial {
		switch p[strings.LastIndex(p, "/")+1:] {
		case "config", "current_link_speed", "max_link_width", "driver", "numa_node":
			delete(partial, p)
		}
	}
	for what, tree := range map[string]memTree{"whole": whole, "partial": partial} {
		want, werr := Read(fstest.MapFS(tree))
		got, gerr := Read(listedTree{fstest.MapFS(tree), t})
		if werr != nil || gerr != nil {
			t.Fatalf("%s: %v; name by name %v", what, gerr, werr)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: read through listed folders:\n%+v\nname by name:\n%+v", what, got, want)
		}
		if what == "partial" && len(got.Lacks) == 0 {
			t.Errorf("partial: no gaps found")
		}
	}
}
