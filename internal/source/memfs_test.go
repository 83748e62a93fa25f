package source

import (
	"fmt"
	"io"
	"io/fs"
	"strings"
	"testing"
)

// TestValidPath checks validPath against fs.ValidPath on names of every
// shape: components empty, "." and "..", at either end and inside, ASCII,
// other UTF-8 and bytes that are no UTF-8.
func TestValidPath(t *testing.T) {
	parts := []string{"", ".", "..", "...", "a", "sys", "0000:00:01.0", "é", "\xff", "a\x00b", ".x", "x.", " "}
	names := []string{".", "", "/", "//", "./", "/."}
	for _, a := range parts {
		names = append(names, a, a+"/", "/"+a)
		for _, b := range parts {
			names = append(names, a+"/"+b, a+b, a+"//"+b)
			for _, c := range parts {
				names = append(names, a+"/"+b+"/"+c)
			}
		}
	}
	for _, name := range names {
		if got, want := validPath(name), fs.ValidPath(name); got != want {
			t.Errorf("validPath(%q) = %v; fs.ValidPath says %v", name, got, want)
		}
	}
}

// TestMemFolder reads names through folders of an archive's tree and
// through the tree itself: the same content, link targets, descriptions and
// errors, whether the name is there, missing, a link (followed or not, in
// a loop, dangling), a longer path or no valid name at all.
func TestMemFolder(t *testing.T) {
	src, err := Open(writeFile(t, "folder.tar", tarBytes(t, withGood(
		member{name: "sys/loop/a", link: "b"},
		member{name: "sys/loop/b", link: "a"},
		member{name: "sys/loop/up", link: "."},
		member{name: "sys/rel/dir", link: "../devices/pci0000:00"},
		member{name: "sys/rel/file", link: "../../proc/cpuinfo"},
		member{name: "sys/rel/dangling", link: "nowhere"},
		member{name: "sys/rel/x/y/z", body: "z"},
	))))
	if err != nil {
		t.Fatal(err)
	}
	m := src.Root.(*memFS)
	describe := func(fi fs.FileInfo, err error) string {
		if err != nil {
			return err.Error()
		}
		return fmt.Sprint(fi.Name(), fi.Mode(), fi.Size(), fi.IsDir())
	}
	read := func(fsys fs.FS, name string) string {
		f, err := fsys.Open(name)
		if err != nil {
			return err.Error()
		}
		defer f.Close()
		if d, ok := f.(fs.ReadDirFile); ok {
			es, err := d.ReadDir(-1)
			return fmt.Sprint(len(es), err)
		}
		b, err := io.ReadAll(f)
		return fmt.Sprint(string(b), err)
	}
	names := []string{"class", "vendor", "a", "b", "up", "dir", "file", "dangling", "abs", "x", "x/y", "x/y/z",
		"0000:00:01.0", "0000:00:01.0/class", "nothing", ".", "..", "", "x/", "/x", "x//y", "./x", "\xff", "é"}
	for _, dir := range []string{"sys/devices/pci0000:00/0000:00:01.0", devLink, "sys/loop", "sys/rel", "sys/rel/dir", "sys/rel/x"} {
		folder, err := m.OpenFolder(dir)
		if err != nil {
			t.Fatalf("OpenFolder(%s): %v", dir, err)
		}
		for _, name := range names {
			inTree := dir + "/" + name
			if name == "." {
				inTree = dir
			}
			if !fs.ValidPath(name) {
				inTree = name // the tree refuses it as it refuses it in the folder
			}
			if got, want := read(folder, name), read(m, inTree); got != want {
				t.Errorf("%s: open %q: folder %q; tree %q", dir, name, got, want)
			}
			if got, want := describe(fs.Lstat(folder, name)), describe(fs.Lstat(m, inTree)); got != want {
				t.Errorf("%s: lstat %q: folder %q; tree %q", dir, name, got, want)
			}
			gl, gerr := fs.ReadLink(folder, name)
			wl, werr := fs.ReadLink(m, inTree)
			if gl != wl || fmt.Sprint(gerr) != fmt.Sprint(werr) {
				t.Errorf("%s: readlink %q: folder %q, %v; tree %q, %v", dir, name, gl, gerr, wl, werr)
			}
		}
	}
	for _, dir := range []string{"sys/nothing", "sys/rel/file", "sys/loop/a", "sys/rel/x/y/z", "sys/../x"} {
		if _, err := m.OpenFolder(dir); err == nil {
			t.Errorf("OpenFolder(%s) opened it", dir)
		}
	}
}

// TestValidName checks validName against its definition: a name
// fs.ValidPath accepts, with no "/" in it, other than ".".
func TestValidName(t *testing.T) {
	for _, name := range []string{"", ".", "..", "...", "a", "vendor", "a/b", "/a", "a/", "./a", "a/..",
		"é", "é/x", "x/é", "\xff", "a\xffb", "a\x00b", " ", ".a", "a.", "0000:17:00.0"} {
		want := name != "." && !strings.Contains(name, "/") && fs.ValidPath(name)
		if got := validName(name); got != want {
			t.Errorf("validName(%q) = %v; want %v", name, got, want)
		}
	}
}
