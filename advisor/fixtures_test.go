package advisor

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gdtopo/gdtopo/fixtures/fixturetest"
	"github.com/gdtopo/gdtopo/internal/source"
	"github.com/gdtopo/gdtopo/internal/sysfs"
	"github.com/gdtopo/gdtopo/topology"
)

// TestFixtureInvariants runs the advisor on every generated fixture and
// checks what no prediction may break: the lower direction is the expected
// figure and within each range; expected is never above the path's
// narrowest link as predicted; efficiency in [0, 1]; across sockets host
// staging is never above GDR's write figure (openucx/ucx#11121); every
// rank of a node gets the same NCCL_IB_HCA (NVIDIA/nccl#1478); the pair's
// bottleneck is the prediction's path figure.
var (
	unrounded      = regexp.MustCompile(`\d\.\d{5,}`)
	bottleneckStep = regexp.MustCompile(`^bottleneck link above (\S+) `)
	nicStep        = regexp.MustCompile(`^NIC (\S+) on a healthy link: .*own link now ([0-9.]+) Gb/s`)
)

func TestFixtureInvariants(t *testing.T) {
	for _, name := range fixturetest.Names(t) {
		t.Run(name, func(t *testing.T) {
			src, err := source.Open(filepath.Join("..", "fixtures", name+".tar.gz"))
			if err != nil {
				t.Fatal(err)
			}
			g, err := sysfs.Read(src.Root)
			if err != nil {
				t.Fatal(err)
			}
			r := analyze(t, g, Options{})
			for _, p := range r.Predictions {
				name := p.GPU.BDF() + "–" + p.NIC.BDF()
				if p.ExpectedGbps != min(p.ExpectedWriteGbps, p.ExpectedReadGbps) {
					t.Errorf("%s: expected %.1f is not the lower of write %.1f and read %.1f", name, p.ExpectedGbps, p.ExpectedWriteGbps, p.ExpectedReadGbps)
				}
				if p.ExpectedWriteMaxGbps < p.ExpectedWriteGbps || p.ExpectedReadMaxGbps < p.ExpectedReadGbps {
					t.Errorf("%s: a range's high end below its low end: %+v", name, p)
				}
				if p.PathGbps > 0 && p.ExpectedGbps > p.PathGbps+1e-9 {
					t.Errorf("%s: expected %.1f above the path's %.1f", name, p.ExpectedGbps, p.PathGbps)
				}
				// The pair table's bottleneck and the prediction's path use one
				// link arithmetic at one path-wide Max_Payload_Size: equal, but
				// where PathNote says why: an idle GPU link raised to its max
				// speed (higher), or ACS or the IOMMU sending the path up to the
				// root complex (lower). A GPU on NVLink-C2C is no exception: the
				// pair's bottleneck leaves its PCIe link out too.
				pair := g.Classify(p.GPU, p.NIC)
				if bn := pair.BottleneckGbps; p.PathGbps > 0 && bn > 0 {
					up := p.PathNote == "loaded"
					down := strings.HasPrefix(p.PathNote, "via the root complex (")
					if p.PathGbps < bn-1e-9 && !down || p.PathGbps > bn+1e-9 && !up {
						t.Errorf("%s: prediction's path %.3f Gb/s, pair's bottleneck %.3f Gb/s (path note %q)", name, p.PathGbps, bn, p.PathNote)
					}
				}
				// Each step's words: figures rounded, an unknown port rate said
				// so, and one value per link (the NIC's own link at the path's
				// Max_Payload_Size, as the bottleneck step's).
				links := map[string]string{}
				for _, st := range p.Explain {
					if unrounded.MatchString(st.What) || strings.Contains(st.What, "port 0 Gb/s") || strings.Contains(st.What, " 0.0 Gb/s") {
						t.Errorf("%s: step %q", name, st.What)
					}
					if m := bottleneckStep.FindStringSubmatch(st.What); m != nil {
						links[m[1]] = fmt.Sprintf("%.1f", st.Value)
						// The hops table shows the same link at the same figure,
						// but where the step says it takes an idle link as loaded.
						for _, h := range g.AppendHops(nil, pair) {
							if h.Kind == topology.HopPCIe && (h.From == m[1] || h.To == m[1]) && h.Gbps > 0 &&
								fmt.Sprintf("%.1f", h.Gbps) != links[m[1]] && !strings.Contains(st.What, "as under load") {
								t.Errorf("%s: the link above %s is %.1f Gb/s in the hops and %s in the steps", name, m[1], h.Gbps, links[m[1]])
							}
						}
					}
					if m := nicStep.FindStringSubmatch(st.What); m != nil && links[m[1]] != "" && links[m[1]] != m[2] {
						t.Errorf("%s: the link above %s is %s Gb/s in one step and %s in another", name, m[1], links[m[1]], m[2])
					}
				}
				if p.Efficiency < 0 || p.Efficiency > 1 {
					t.Errorf("%s: efficiency %g", name, p.Efficiency)
				}
				if g.Classify(p.GPU, p.NIC).SMI == topology.SYS && p.HostStagedGbps > p.ExpectedWriteGbps+1e-9 {
					t.Errorf("%s: across sockets staging %.1f ranks above GDR's write %.1f", name, p.HostStagedGbps, p.ExpectedWriteGbps)
				}
			}
			for _, rk := range r.Plan.Ranks {
				if h := rk.Get("NCCL_IB_HCA"); h != r.Plan.NCCLIBHCA && h != "" {
					t.Errorf("rank %d NCCL_IB_HCA %q, the node's list %q", rk.LocalRank, h, r.Plan.NCCLIBHCA)
				}
			}
		})
	}
}

// TestPlanKeepsSocketNICs: on sys-4029gp-v100 each socket has its own NIC
// (one at x8); moving GPU4 to the other socket's NIC would lift the worst
// share by a tenth only, within what the model can tell apart, so every
// accelerator stays on its own socket's NIC, as NCCL keeps it
// (src/graph/topo.cc ncclTopoGetLocal).
func TestPlanKeepsSocketNICs(t *testing.T) {
	src, err := source.Open(filepath.Join("..", "fixtures", "sys-4029gp-v100.tar.gz"))
	if err != nil {
		t.Fatal(err)
	}
	g, err := sysfs.Read(src.Root)
	if err != nil {
		t.Fatal(err)
	}
	pl := analyze(t, g, Options{}).Plan
	if len(pl.Assignments) != 8 {
		t.Fatalf("%d assignments, want 8", len(pl.Assignments))
	}
	for _, as := range pl.Assignments {
		if l := g.Classify(as.GPU, as.NIC).SMI; l == topology.SYS {
			t.Errorf("%s planned on %s across sockets (%s) though its own socket has a NIC", as.GPU.BDF(), as.NIC.BDF(), l)
		}
	}
}
