package advisor

import (
	"fmt"
	"testing"

	"github.com/gdtopo/gdtopo/topology"
)

// TestThresholdBoundaries sets each device threshold of findDevices at its
// value and one step short of it: at the value nothing fires, one step
// short the finding does. The values are the cited ones, written out here:
// a threshold moved either way (halved, doubled, < made <=), in the model
// or in the comparison, fails one of the two.
func TestThresholdBoundaries(t *testing.T) {
	// BAR1 of at least 16 GiB: CUDA GPUDirect RDMA §3.5; MaxReadReq of at
	// least 256 B: fwts's pcie maxreadreq test.
	const minBAR, mrrs = 16 << 30, 256
	tests := []struct {
		name  string
		fault func(g, n []*topology.Device)
		code  string
		fires bool
	}{
		{fmt.Sprintf("BAR1 at %d MiB", minBAR>>20), func(g, n []*topology.Device) {
			g[7].BARs = []topology.BAR{{Index: 1, Size: minBAR, Prefetchable: true}}
		}, "bar-small", false},
		{fmt.Sprintf("BAR1 at %d MiB", (minBAR>>20)-1), func(g, n []*topology.Device) {
			g[7].BARs = []topology.BAR{{Index: 1, Size: minBAR - 1<<20, Prefetchable: true}}
		}, "bar-small", true},
		{"a large BAR that is not prefetchable", func(g, n []*topology.Device) {
			g[7].BARs = []topology.BAR{{Index: 1, Size: 2 * minBAR}}
		}, "bar-small", true},
		{fmt.Sprintf("NIC MaxReadReq %d B", mrrs), func(g, n []*topology.Device) { n[0].MaxReadRequest = mrrs }, "max-read-request-low", false},
		{fmt.Sprintf("NIC MaxReadReq %d B", mrrs/2), func(g, n []*topology.Device) { n[0].MaxReadRequest = mrrs / 2 }, "max-read-request-low", true},
		{fmt.Sprintf("GPU MaxReadReq %d B", mrrs), func(g, n []*topology.Device) { g[0].MaxReadRequest = mrrs }, "max-read-request-low", false},
		{fmt.Sprintf("GPU MaxReadReq %d B", mrrs/2), func(g, n []*topology.Device) { g[0].MaxReadRequest = mrrs / 2 }, "max-read-request-low", true},
		{"link at its full width", func(g, n []*topology.Device) {
			g[0].Link.CurrentWidth = g[0].Link.MaxWidth
		}, "link-width-degraded", false},
		{"link one width short", func(g, n []*topology.Device) {
			g[0].Link.CurrentWidth = g[0].Link.MaxWidth / 2
		}, "link-width-degraded", true},
		{"link at its full speed", func(g, n []*topology.Device) {
			g[0].Link.CurrentGTs = g[0].Link.MaxGTs
		}, "link-speed-degraded", false},
		{"link one generation short", func(g, n []*topology.Device) {
			g[0].Link.CurrentGTs = g[0].Link.MaxGTs / 2
		}, "link-speed-degraded", true},
	}
	for _, tt := range tests {
		b, gpus, nics := rails(8, 8)
		tt.fault(gpus, nics)
		fired := false
		for _, f := range analyze(t, b.graph(), Options{}).Findings {
			fired = fired || f.Code == tt.code
		}
		if fired != tt.fires {
			t.Errorf("%s: %s fired %v; want %v", tt.name, tt.code, fired, tt.fires)
		}
	}
}
