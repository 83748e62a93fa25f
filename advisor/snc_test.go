package advisor

import (
	"strings"
	"testing"

	"github.com/gdtopo/gdtopo/topology"
)

// TestSNCStagesOnItsSocket runs spr-snc2 (SNC2: NUMA nodes 0 and 1 on
// socket 0, 2 and 3 on socket 1): a pair across NUMA nodes of one socket is
// SYS, as nvidia-smi prints it, but its traffic stays on the socket's mesh,
// so its host staging is the same-socket figure (GPU0's PHB pair to the same
// NIC, on links alike), above the pairs across sockets; the plan keeps each
// accelerator on its socket's NIC; and the no-local-nic remedy says
// NCCL_NET_GDR_LEVEL=PHB leaves such pairs staged (NCCL's SYS).
func TestSNCStagesOnItsSocket(t *testing.T) {
	g, r := analyzeFixture(t, "spr-snc2", "")
	staged := map[string]float64{}
	var oneSocket, crossing int
	for _, p := range r.Predictions {
		pair := g.Classify(p.GPU, p.NIC)
		staged[p.GPU.BDF()+" "+p.NIC.BDF()] = p.HostStagedGbps
		switch {
		case pair.Path == topology.PathNUMANodes:
			oneSocket++
			if pair.SMI != topology.SYS || pair.CrossSocket() {
				t.Errorf("%s–%s: %s %q, crosses sockets %v; want SYS on one socket", p.GPU.BDF(), p.NIC.BDF(), pair.SMI, pair.Path, pair.CrossSocket())
			}
		case pair.CrossSocket():
			crossing++
		}
	}
	if oneSocket == 0 || crossing == 0 {
		t.Fatalf("spr-snc2: %d pairs across NUMA nodes of one socket, %d across sockets; want both", oneSocket, crossing)
	}
	const gpu0, gpu1, nic0, nic1 = "0000:16:00.0", "0000:49:00.0", "0000:17:00.0", "0000:b8:00.0"
	phb, snc, cross := staged[gpu0+" "+nic0], staged[gpu1+" "+nic0], staged[gpu1+" "+nic1]
	if phb <= 0 || snc != phb {
		t.Errorf("GPU1–NIC0 (NUMA nodes 1 and 0 of socket 0) staged at %.1f Gb/s, GPU0–NIC0 (PHB) at %.1f: want the same-socket figure", snc, phb)
	}
	if cross <= 0 || cross >= snc {
		t.Errorf("GPU1–NIC1 (across sockets) staged at %.1f Gb/s, not below GPU1–NIC0's %.1f", cross, snc)
	}
	for _, as := range r.Plan.Assignments {
		if pair := g.Classify(as.GPU, as.NIC); pair.CrossSocket() {
			t.Errorf("plan: %s on %s across sockets", as.GPU.BDF(), as.NIC.BDF())
		}
	}
	found := false
	for _, f := range r.Findings {
		if f.Code != "no-local-nic" {
			continue
		}
		found = true
		var remedy []string
		for _, s := range f.Remedy {
			remedy = append(remedy, s.Comment)
		}
		if !strings.Contains(strings.Join(remedy, "\n"), "only NCCL_NET_GDR_LEVEL=SYS reaches them") {
			t.Errorf("no-local-nic remedy does not say PHB leaves the one-socket SYS pairs staged: %q", remedy)
		}
	}
	if !found {
		t.Error("no no-local-nic finding")
	}
}
