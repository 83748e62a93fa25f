package advisor

import (
	"strings"
	"testing"

	"github.com/gdtopo/gdtopo/topology"
)

// TestPXN holds the model to NCCL's PXN (src/graph/paths.cc,
// ncclTopoComputePaths: "Check whether we can access the NIC through
// another NVLink-connected GPU (PXN)"; ncclTopoCheckGdr: "In case of PXN,
// use the intermediate GPU distance instead"): GPU0's NIC across sockets
// sits PIX under GPU1, its NVLink peer, so NCCL goes through GPU1 and GDR
// is on; nvidia-smi's label stays SYS. Without a recorded NVLink, with
// NCCL_PXN_DISABLE=1, or where the peer's own reads are off (2.30), the
// pair stays SYS with GDR off, undecided where NVLink is possible but not
// in the source.
func TestPXN(t *testing.T) {
	for _, tt := range []struct {
		name    string
		version string
		env     map[string]string
		nvlink  int // NVLink count between the GPUs; -1: none recorded at all
		setup   func(g []*topology.Device)
		pxn     bool
	}{
		{name: "NVLink peer: PXN", nvlink: 12, pxn: true},
		{name: "NVLink peer at 2.21: PXN", version: "2.21.5", nvlink: 12, pxn: true},
		{name: "NVLink peer at 2.12: PXN", version: "2.12.12", nvlink: 12, pxn: true},
		{name: "NVLink unknown: no PXN", nvlink: -1},
		{name: "no NVLink recorded between them: no PXN", nvlink: 0},
		{name: "NCCL_PXN_DISABLE=1", nvlink: 12, env: map[string]string{"NCCL_PXN_DISABLE": "1"}},
		{name: "peer's reads off (GDR_READ=0) at 2.30: no PXN", nvlink: 12, env: map[string]string{"NCCL_NET_GDR_READ": "0"}},
		{name: "peer's reads off at 2.29: PXN still", version: "2.29.7", nvlink: 12, env: map[string]string{"NCCL_NET_GDR_READ": "0"}, pxn: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b, gpus, nics := rails(2, 2)
			switch {
			case tt.nvlink > 0:
				b.g.NVLinks = []topology.NVLink{{A: gpus[0].Addr, B: gpus[1].Addr, Count: tt.nvlink}}
			case tt.nvlink == 0:
				b.g.NVLinks = []topology.NVLink{{A: gpus[0].Addr, B: gpus[1].Addr, Count: 0}}
				b.g.NVLinkRecorded = true
			}
			g := b.graph()
			r := analyze(t, g, Options{NCCLVersion: tt.version, Env: tt.env})
			p := pred(t, r, gpus[0], nics[1])
			if got := p.PXNVia == gpus[1]; got != tt.pxn {
				t.Fatalf("PXN via %v, want PXN %v", p.PXNVia, tt.pxn)
			}
			own := pred(t, r, gpus[1], nics[1])
			if own.PXNVia != nil {
				t.Errorf("the NIC's local GPU goes through %s", own.PXNVia.BDF())
			}
			if !tt.pxn {
				if p.GDR && tt.env["NCCL_NET_GDR_READ"] == "" {
					t.Errorf("SYS pair without PXN has GDR on: %+v", p)
				}
				// SXM4 modules suggest NVLink the source does not record (NV?):
				// PXN would turn GDR on, so the verdict is undecided.
				maybe := strings.Contains(p.GDRUnknown, "if NVLink joins "+gpus[1].BDF())
				if want := tt.nvlink < 0; maybe != want {
					t.Errorf("GDRUnknown %q: undecided for PXN %v, want %v", p.GDRUnknown, maybe, want)
				}
				return
			}
			if !p.GDR || p.ExpectedGbps != own.ExpectedGbps || !strings.Contains(strings.Join(p.Uncertain, ";"), "PXN") {
				t.Errorf("PXN pair: gdr %v expected %.1f (peer %.1f) notes %q; want GDR on at the peer's figure", p.GDR, p.ExpectedGbps, own.ExpectedGbps, p.Uncertain)
			}
			if c := g.Classify(gpus[0], nics[1]); c.SMI != topology.SYS {
				t.Errorf("nvidia-smi label %s, want SYS kept", c.SMI)
			}
		})
	}
}

// TestPXNLevel: with PXN the GDR level is compared with the peer's
// distance: PIX passes NCCL_NET_GDR_LEVEL=PIX; at 2.29 (no peer GDR check
// before the route) LOC turns it off and the reason names the peer.
func TestPXNLevel(t *testing.T) {
	b, gpus, nics := rails(2, 2)
	b.g.NVLinks = []topology.NVLink{{A: gpus[0].Addr, B: gpus[1].Addr, Count: 12}}
	g := b.graph()
	r := analyze(t, g, Options{Env: map[string]string{"NCCL_NET_GDR_LEVEL": "PIX"}})
	if p := pred(t, r, gpus[0], nics[1]); p.PXNVia != gpus[1] || !p.GDR {
		t.Errorf("level PIX, peer PIX: via %v gdr %v (%s)", p.PXNVia, p.GDR, p.GDRReason)
	}
	r = analyze(t, g, Options{NCCLVersion: "2.29.7", Env: map[string]string{"NCCL_NET_GDR_LEVEL": "LOC"}})
	if p := pred(t, r, gpus[0], nics[1]); p.PXNVia != gpus[1] || p.GDR || !strings.Contains(p.GDRReason, "PXN through "+gpus[1].BDF()+": its NCCL distance PIX > GDR level LOC") {
		t.Errorf("level LOC at 2.29: via %v gdr %v reason %q", p.PXNVia, p.GDR, p.GDRReason)
	}
}
