package load_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/gdtopo/gdtopo/fixtures/fixturetest"
	"github.com/gdtopo/gdtopo/internal/load"
	"github.com/gdtopo/gdtopo/internal/names"
	"github.com/gdtopo/gdtopo/internal/source"
	"github.com/gdtopo/gdtopo/topology"
)

// TestStdinTwice: standard input as SOURCE and as --nvsmi is refused with
// the sentinel the CLI turns into a usage error, before anything is read.
func TestStdinTwice(t *testing.T) {
	in := strings.NewReader("GPU0\n")
	_, err := load.Source("-", load.Options{Stdin: in, NVSMI: "-", Names: names.New("")})
	if !errors.Is(err, load.ErrStdinTwice) {
		t.Fatalf("err %v, want ErrStdinTwice", err)
	}
	if in.Len() == 0 {
		t.Error("standard input was read")
	}
}

// TestOpenHook: a folder or archive is opened through Options.Open, and
// its graph comes back read and named.
func TestOpenHook(t *testing.T) {
	var opened []string
	open := func(name string) (*source.Source, error) {
		opened = append(opened, name)
		return source.Open(fixturetest.Archive(t, "hgx-h100"))
	}
	l, err := load.Source("host-a", load.Options{Names: names.New(""), Open: open, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(opened) != 1 || opened[0] != "host-a" {
		t.Errorf("opened %q, want host-a once", opened)
	}
	gpus := l.Graph.OfKind(topology.KindAccelerator)
	if len(gpus) != 8 || l.NVSMI != nil {
		t.Fatalf("%d accelerators, matrix %v; want hgx-h100's 8 and none", len(gpus), l.NVSMI)
	}
	for _, d := range gpus {
		if d.Name == "" {
			t.Errorf("%s has no name", d.BDF())
		}
	}
}

// TestNCCLLogHint: an NCCL_DEBUG=INFO log given as SOURCE is refused as
// unrecognised, with the command that reads it named.
func TestNCCLLogHint(t *testing.T) {
	_, err := load.Source("../nccllog/testdata/nccl-899-ib-no-module.log", load.Options{Names: names.New("")})
	if !errors.Is(err, source.ErrUnrecognized) || !strings.Contains(err.Error(), "gdtopo explain") {
		t.Errorf("err %v", err)
	}
}

// TestNCCLLogSystemPrint: a log holding NCCL's "=== System" print is a
// source: the tree NCCL saw, in NCCL's view, with the host it names.
func TestNCCLLogSystemPrint(t *testing.T) {
	l, err := load.Source("../nccllog/testdata/nccl-tests-350-a100-roce-ib-system.log", load.Options{Names: names.New("")})
	if err != nil {
		t.Fatal(err)
	}
	g := l.Graph
	if l.Source.Format != "NCCL topology print" || !g.NCCLView || g.System.Hostname != "n013" ||
		len(g.OfKind(topology.KindAccelerator)) != 1 || len(g.OfKind(topology.KindNIC)) != 2 {
		t.Errorf("format %q view %v host %q, %d devices", l.Source.Format, g.NCCLView, g.System.Hostname, len(g.Devices))
	}
}
