package sysfs_test

import (
	"bytes"
	"io"
	"io/fs"
	"path"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/gdtopo/gdtopo/fixtures/fixturetest"
	"github.com/gdtopo/gdtopo/internal/source"
	"github.com/gdtopo/gdtopo/internal/sysfs"
)

// piecesTree is a captured tree whose folders read config at offsets, as
// the live sysfs's do, counting the bytes read.
type piecesTree struct {
	source.FS
	read, whole *int
}

func (t piecesTree) OpenFolder(dir string) (fs.FS, error) {
	return piecesFolder{fsys: t.FS, dir: dir, read: t.read, whole: t.whole}, nil
}

type piecesFolder struct {
	fsys        fs.FS
	dir         string
	read, whole *int
}

func (f piecesFolder) Open(name string) (fs.File, error) { return f.fsys.Open(path.Join(f.dir, name)) }

func (f piecesFolder) ReadLink(name string) (string, error) {
	return fs.ReadLink(f.fsys, path.Join(f.dir, name))
}

func (f piecesFolder) Lstat(name string) (fs.FileInfo, error) {
	return fs.Lstat(f.fsys, path.Join(f.dir, name))
}

func (f piecesFolder) OpenPieces(name string) (interface {
	io.ReaderAt
	io.Closer
}, int64, error) {
	b, err := fs.ReadFile(f.fsys, path.Join(f.dir, name))
	if err != nil {
		return nil, 0, err
	}
	*f.whole += len(b)
	return countingFile{Reader: bytes.NewReader(b), read: f.read}, int64(len(b)), nil
}

type countingFile struct {
	*bytes.Reader
	read *int
}

func (c countingFile) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.Reader.ReadAt(p, off)
	*c.read += n
	return n, err
}

func (countingFile) Close() error { return nil }

// TestConfigInPiecesReadsAsWhole reads every fixture twice, its config
// files whole and in pieces as on a live machine, and requires the same
// graph from a fraction of the bytes.
func TestConfigInPiecesReadsAsWhole(t *testing.T) {
	names := fixturetest.Names(t)
	var read, whole int
	for _, name := range names {
		archive := filepath.Join("..", "..", "fixtures", name+".tar.gz")
		want := readSource(t, archive)
		src, err := source.Open(archive)
		if err != nil {
			t.Fatal(err)
		}
		got, err := sysfs.Read(piecesTree{FS: src.Root, read: &read, whole: &whole})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: config read in pieces gives another graph", name)
		}
	}
	if whole == 0 || read*10 > whole {
		t.Errorf("%d of %d config bytes read", read, whole)
	}
	t.Logf("%d fixtures: %d of %d config bytes read", len(names), read, whole)
}

// BenchmarkLiveConfig reads this machine's live /sys with config whole
// (the captured-tree path) and in pieces (the live path), since on a VM
// every 4 bytes of config read is a VM exit.
func BenchmarkLiveConfig(b *testing.B) {
	if _, err := fs.Stat(source.Live().Root, "sys/bus/pci/devices"); err != nil {
		b.Skip("no live sys/bus/pci/devices:", err)
	}
	for _, c := range []struct {
		name string
		tree func() source.FS
	}{
		{"pieces", func() source.FS { return source.Live().Root }},
		{"whole", func() source.FS { return wholeTree{source.Live().Root} }},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := sysfs.Read(c.tree()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// wholeTree is a tree whose folders are read by joined paths, every file
// whole, as a captured tree's are.
type wholeTree struct{ source.FS }
