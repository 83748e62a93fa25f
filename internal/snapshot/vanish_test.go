package snapshot_test

import (
	"bytes"
	"errors"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gdtopo/gdtopo/internal/faultfs"
	"github.com/gdtopo/gdtopo/internal/snapshot"
	"github.com/gdtopo/gdtopo/topology"
)

// TestCaptureVanishingTree captures a tree that vanishes (a capture being
// deleted) after N file operations, for every N: the capture fails saying
// so, or is the whole tree's, byte for byte. Never a smaller snapshot
// taken for the machine.
func TestCaptureVanishingTree(t *testing.T) {
	fsys := open(t, filepath.Join("..", "..", "fixtures", "recorded-vm"))
	opts := snapshot.Options{Redact: true, Now: fixed}
	counter := &faultfs.Vanish{FS: fsys, After: math.MaxInt64}
	var whole bytes.Buffer
	if _, err := snapshot.Capture(counter, &whole, opts); err != nil {
		t.Fatal(err)
	}
	failed := 0
	for after := range counter.Ops() + 1 {
		var buf bytes.Buffer
		_, err := snapshot.Capture(&faultfs.Vanish{FS: fsys, After: after}, &buf, opts)
		switch {
		case err != nil:
			failed++
			if !strings.Contains(err.Error(), "vanished while being read") && !errors.Is(err, topology.ErrNoPCI) {
				t.Errorf("after %d: %v; want it to say the tree vanished", after, err)
			}
		case !bytes.Equal(buf.Bytes(), whole.Bytes()):
			t.Errorf("after %d: a snapshot of %d bytes, not the whole tree's %d", after, buf.Len(), whole.Len())
		}
	}
	t.Logf("%d operations; %d captures failed", counter.Ops(), failed)
}
