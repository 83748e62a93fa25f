package load_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/gdtopo/gdtopo/fixtures/fixturetest"
	"github.com/gdtopo/gdtopo/internal/load"
	"github.com/gdtopo/gdtopo/internal/names"
	"github.com/gdtopo/gdtopo/internal/source"
	"github.com/gdtopo/gdtopo/topology"
)

// TestStreamSources: a FIFO holding lspci text or a snapshot archive is
// read whole as standard input is, and recognised from its content; the
// opener for folders and archives is not asked, as a pipe can be read only
// once. /dev/null is an empty input.
func TestStreamSources(t *testing.T) {
	text := "17:00.0 3D controller [0302]: NVIDIA Corporation GH100 [H100 SXM5 80GB] [10de:2330]\n" +
		"18:00.0 Infiniband controller [0207]: Mellanox Technologies MT2910 Family [ConnectX-7] [15b3:1021]\n"
	archive, err := os.ReadFile(fixturetest.Archive(t, "hgx-h100"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		data       []byte
		format     string
		accels, ns int
	}{
		{[]byte(text), "lspci output", 1, 1},
		{archive, "tar.gz archive", 8, 8},
	} {
		fifo := filepath.Join(t.TempDir(), "fifo")
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Fatal(err)
		}
		go func() {
			if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
				_, _ = f.Write(c.data)
				_ = f.Close()
			}
		}()
		opened := false
		open := func(name string) (*source.Source, error) { opened = true; return source.Open(name) }
		l, err := within(t, func() (*load.Loaded, error) {
			return load.Source(fifo, load.Options{Names: names.New(""), Open: open})
		})
		if err != nil {
			t.Fatalf("%s: %v", c.format, err)
		}
		if opened || l.Source.Name != fifo || l.Source.Format != c.format ||
			len(l.Graph.OfKind(topology.KindAccelerator)) != c.accels || len(l.Graph.OfKind(topology.KindNIC)) < c.ns {
			t.Errorf("%s: source %+v, %d accelerators, %d NICs", c.format, l.Source,
				len(l.Graph.OfKind(topology.KindAccelerator)), len(l.Graph.OfKind(topology.KindNIC)))
		}
	}
	if _, err := within(t, func() (*load.Loaded, error) {
		return load.Source("/dev/null", load.Options{Names: names.New("")})
	}); err == nil || err.Error() != "/dev/null: empty input" {
		t.Errorf("/dev/null: %v, want empty input", err)
	}
}

// within runs f, failing the test where it has not returned in 20 s: a
// pipe opened again after it was read waits for a writer for ever.
func within(t *testing.T, f func() (*load.Loaded, error)) (*load.Loaded, error) {
	t.Helper()
	type result struct {
		l   *load.Loaded
		err error
	}
	done := make(chan result, 1)
	go func() {
		l, err := f()
		done <- result{l, err}
	}()
	select {
	case r := <-done:
		return r.l, r.err
	case <-time.After(20 * time.Second):
		t.Fatal("still reading after 20 s")
	}
	return nil, nil
}
