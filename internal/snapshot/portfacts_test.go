package snapshot_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gdtopo/gdtopo/fixtures/fixturetest"
	"github.com/gdtopo/gdtopo/internal/snapshot"
)

// TestSnapshotKeepsPortStateAndAER plants a port down and AER counters in
// a fixture's copy: the snapshot must keep both, and read as its source.
func TestSnapshotKeepsPortStateAndAER(t *testing.T) {
	dir := fixturetest.Copy(t, "hgx-h100")
	ports, _ := filepath.Glob(filepath.Join(dir, "sys/class/infiniband/*/ports/1"))
	nics, _ := filepath.Glob(filepath.Join(dir, "sys/class/infiniband/*/device"))
	if len(ports) == 0 || len(nics) == 0 {
		t.Fatal("fixture has no RDMA ports")
	}
	plant := func(name, data string) {
		if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	plant(filepath.Join(ports[0], "state"), "1: DOWN\n")
	plant(filepath.Join(ports[0], "phys_state"), "3: Disabled\n")
	plant(filepath.Join(nics[0], "aer_dev_fatal"), "DLP 0\nSurpriseDn 1\nTOTAL_ERR_FATAL 1\n")
	plant(filepath.Join(nics[0], "aer_dev_correctable"), "RxErr 7\nTOTAL_ERR_COR 7\n")
	out, _ := requireSame(t, open(t, dir), snapshot.Options{Redact: true})
	g := read(t, open(t, out))
	down, aer := 0, 0
	for _, d := range g.Devices {
		if d.PortsAllDown() {
			down++
		}
		if d.AER != nil && d.AER.Fatal.Total == 1 && d.AER.Correctable.Total == 7 {
			aer++
		}
	}
	if down != 1 || aer != 1 {
		t.Errorf("snapshot holds %d NICs with their ports down and %d with the planted AER counts; want 1 and 1", down, aer)
	}
}
