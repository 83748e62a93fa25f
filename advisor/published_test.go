package advisor

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/gdtopo/gdtopo/topology"
)

// published is one public measurement and the graph of its shape.
type published struct {
	hardware, path, direction, measured, source string
	build                                       func() (*builder, *topology.Device, *topology.Device)
	// lo..hi is the measured spread in Gb/s; check returns the prediction
	// for the direction measured as a range, for the table and the test.
	lo, hi float64
	check  func(p Prediction) (float64, float64)
}

// withLinks sets every link of the graph to l.
func withLinks(b *builder, l topology.Link) {
	for _, d := range b.g.Devices {
		d.Link = l
	}
}

var gen3x16 = topology.Link{CurrentGTs: 8, CurrentWidth: 16, MaxGTs: 8, MaxWidth: 16}

func write(p Prediction) (float64, float64) { return p.ExpectedWriteGbps, p.ExpectedWriteMaxGbps }
func read(p Prediction) (float64, float64)  { return p.ExpectedReadGbps, p.ExpectedReadMaxGbps }

// lower is the pair's lower direction: perftest with --use_cuda on both
// ends, where one side reads GPU memory and the other writes it.
func lower(p Prediction) (float64, float64) {
	return p.ExpectedGbps, min(p.ExpectedWriteMaxGbps, p.ExpectedReadMaxGbps)
}
func staged(p Prediction) (float64, float64) { return p.HostStagedGbps, p.HostStagedGbps }

// rome is an EPYC 7452 (family 0x17, model 0x31) with a V100 (sm 70) on a
// Gen3 path, through the root complex, as stackoverflow.com/q/59277346.
func rome() (*builder, *topology.Device, *topology.Device) {
	b, g, n := phb()
	withLinks(b, gen3x16)
	b.g.System.CPUVendor, b.g.System.CPUFamily, b.g.System.CPUModelID = "AuthenticAMD", 0x17, 0x31
	g.DeviceID = 0x1db4 // V100 PCIe 16GB
	return b, g, n
}

// gh200 is a GH200: an H100 on NVLink-C2C to its Grace, a 400 Gb/s NDR
// NIC on a Grace Gen5 x16 root port, the SMMU translating as Grace ships.
func gh200() (*builder, *topology.Device, *topology.Device) {
	b := newBuilder()
	h, _ := b.hb(0)
	r2, r3 := b.rootPort(h, 2), b.rootPort(h, 3)
	for _, rp := range []*topology.Device{r2, r3} {
		rp.VendorID, rp.DeviceID = topology.VendorNVIDIA, 0x22b1 // Grace root port
	}
	g, n := b.gpu(endpoint(r2), r2), b.nic(endpoint(r3), r3, "mlx5_0")
	g.DeviceID = 0x2342 // GH200
	withLinks(b, topology.Link{CurrentGTs: 32, CurrentWidth: 16, MaxGTs: 32, MaxWidth: 16})
	n.PortRateGbps = 400
	s := &b.g.System
	s.CPUVendor, s.CPUFamily, s.CPUModelID, s.CPUArch = "", 0, 0, "arm64"
	g.IOMMUGroup, n.IOMMUGroup = "1", "2"
	b.g.Platform.IOMMUGroupTypes = map[string]string{"1": "DMA", "2": "DMA"}
	return b, g, n
}

// publishedShapes are the measurements docs/advice.md's table lists. Spreads:
// ±5% around a single figure (run-to-run variation of perftest).
var publishedShapes = []published{
	{hardware: "EPYC 7452 (Rome), V100, ConnectX-6, Gen3", path: "PHB", direction: "write", measured: "14.3 GB/s",
		source: "stackoverflow.com/q/59277346", build: rome, lo: 114.4 * 0.95, hi: 114.4 * 1.05, check: write},
	{hardware: "EPYC 7452 (Rome), V100, ConnectX-6, Gen3", path: "PHB", direction: "read", measured: "6.1 GB/s",
		source: "stackoverflow.com/q/59277346", build: rome, lo: 48.8 * 0.95, hi: 48.8 * 1.05, check: read},
	{hardware: "A30, mlx5 200 Gb/s, Xeon", path: "SYS", direction: "both (ib_write_bw, GPU at each end)", measured: "11000 MB/s (92.3 Gb/s)",
		source: "linux-rdma/perftest#241", build: sys, lo: 92.27 * 0.95, hi: 92.27 * 1.05, check: lower},
	{hardware: "100 Gb/s RoCE, Xeon", path: "SYS", direction: "GDR (lower direction)", measured: "85 Gb/s",
		source: "openucx/ucx#11121", build: func() (*builder, *topology.Device, *topology.Device) {
			b, g, n := sys()
			n.PortRateGbps = 100
			return b, g, n
		}, lo: 85 * 0.95, hi: 85 * 1.05, check: lower},
	{hardware: "100 Gb/s RoCE, Xeon", path: "SYS", direction: "host-staged", measured: "65 Gb/s",
		source: "openucx/ucx#11121", build: func() (*builder, *topology.Device, *topology.Device) {
			b, g, n := sys()
			n.PortRateGbps = 100
			return b, g, n
		}, lo: 65 * 0.95, hi: 65 * 1.05, check: staged},
	{hardware: "Threadripper PRO, 200 Gb/s NIC", path: "PHB", direction: "read (control run)", measured: "180 Gb/s",
		source: "NVIDIA/open-gpu-kernel-modules#1253", build: func() (*builder, *topology.Device, *topology.Device) {
			b, g, n := phb()
			b.g.System.CPUVendor, b.g.System.CPUFamily, b.g.System.CPUModelID = "AuthenticAMD", 0x19, 0x08
			b.g.System.CPUModel = "AMD Ryzen Threadripper PRO 5975WX 32-Cores"
			return b, g, n
		}, lo: 180 * 0.95, hi: 180 * 1.05, check: read},
	{hardware: "GH200 (H100 on NVLink-C2C to Grace), 400 Gb/s NDR NIC", path: "P2C", direction: "NIC-GPU P2P, one way", measured: "~49 GB/s (392 Gb/s)",
		source: "mlcommons/inference_results_v3.1 closed/NVIDIA/documentation/start_from_device/gh200-grace-hopper.md", build: gh200,
		lo: 392 * 0.95, hi: 392 * 1.05, check: lower},
	{hardware: "Intel Core (client) CPU", path: "PHB", direction: "read", measured: "fails (P2P writes only)",
		source: "NVIDIA/open-gpu-kernel-modules#1253", build: func() (*builder, *topology.Device, *topology.Device) {
			b, g, n := phb()
			b.g.System.CPUModelID, b.g.System.CPUModel = 0x97, "12th Gen Intel(R) Core(TM) i9-12900K"
			return b, g, n
		}, lo: 0, hi: 5, check: read},
}

// TestPublishedMeasurements: for each public measurement, the prediction
// for a graph of the same shape overlaps the measured spread in the
// direction measured, and docs/advice.md's table shows that prediction.
func TestPublishedMeasurements(t *testing.T) {
	readme, err := os.ReadFile("../docs/advice.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range publishedShapes {
		b, g, n := m.build()
		p := pred(t, analyze(t, b.graph(), Options{}), g, n)
		lo, hi := m.check(p)
		if hi < m.lo || lo > m.hi {
			t.Errorf("%s, %s, %s: predicted %.1f-%.1f Gb/s, measured %.1f-%.1f (%s)", m.hardware, m.path, m.direction, lo, hi, m.lo, m.hi, m.source)
		}
		if row := m.row(lo, hi); !strings.Contains(string(readme), row) {
			t.Errorf("docs/advice.md lacks the row\n%s", row)
		}
	}
}

// row is the measurement's table row in docs/advice.md.
func (m published) row(lo, hi float64) string {
	pr := fmt.Sprintf("%.0f Gb/s", lo)
	if hi > lo+0.5 {
		pr = fmt.Sprintf("%.0f-%.0f Gb/s", lo, hi)
	}
	return fmt.Sprintf("| %s | %s | %s | %s | %s | %s |", m.hardware, m.path, m.direction, m.measured, pr, m.source)
}
