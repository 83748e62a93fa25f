package hwloc

import (
	"os"
	"strings"
	"testing"

	"github.com/gdtopo/gdtopo/topology"
)

// TestNVLinkBandwidth reads the NVLinkBandwidth matrices hwloc's NVML
// backend wrote into two corpus captures: an IBM POWER8 Minsky, whose P100
// pairs (GPU0-GPU1, GPU2-GPU3) are bonded by two NVLink 1 links (40000 MB/s
// at 20000 per link) and have none to the other socket's pair; and a DGX-2,
// whose 16 V100s reach 6 NVSwitches each, which nvidia-smi prints as NV6
// between any two of them (the DGX-2 matrix in the corpus's nvsmi folder).
func TestNVLinkBandwidth(t *testing.T) {
	g := parseFile(t, corpus(t, "power8gpudistances.xml"))
	if !g.NVLinkRecorded {
		t.Error("a matrix over every GPU does not record every NVLink")
	}
	gpus := g.OfKind(topology.KindAccelerator)
	if len(gpus) != 4 {
		t.Fatalf("%d GPUs", len(gpus))
	}
	for i, a := range gpus {
		for j := i + 1; j < len(gpus); j++ {
			p := g.Classify(a, gpus[j])
			want := topology.Label("NV2")
			if i/2 != j/2 {
				want = topology.SYS
			}
			if p.SMI != want || p.LabelUncertain {
				t.Errorf("GPU%d-GPU%d: %s (uncertain %v), want %s", i, j, p.SMI, p.LabelUncertain, want)
			}
		}
	}

	g = parseFile(t, corpus(t, "nvidiaDGX2.xml"))
	pairs := topology.PairsOf(g.Pairs(), topology.KindAccelerator, topology.KindAccelerator)
	if len(pairs) != 120 {
		t.Fatalf("%d GPU pairs, want 120", len(pairs))
	}
	for _, p := range pairs {
		if p.SMI != "NV6" || p.NCCL != topology.NVL {
			t.Errorf("%s-%s: %s %s, want NV6 NVL", p.A.BDF(), p.B.BDF(), p.SMI, p.NCCL)
		}
	}
}

// TestNVLinkBandwidthDamaged: a matrix of the wrong size or with values
// that are not whole links is left out with a warning, never half read.
func TestNVLinkBandwidthDamaged(t *testing.T) {
	data, err := os.ReadFile(corpus(t, "power8gpudistances.xml"))
	if err != nil {
		t.Fatal(err)
	}
	for what, text := range map[string]string{
		"not a whole number of links": strings.Replace(string(data), "1000000 40000 0 0", "1000000 30000 0 0", 1),
		"indexes and":                 strings.Replace(string(data), `nbobjs="6" kind="25"`, `nbobjs="7" kind="25"`, 1),
		"unreadable":                  strings.Replace(string(data), "1000000 40000 0 0", "1000000 4x000 0 0", 1),
	} {
		g, err := ParseXML("damaged.xml", []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, w := range g.Warnings {
			found = found || strings.Contains(w.Message, what) && strings.Contains(w.Message, "NVLink not read")
		}
		if !found || len(g.NVLinks) > 0 || g.NVLinkRecorded {
			t.Errorf("%s: warnings %v, %d NVLinks, recorded %v", what, g.Warnings, len(g.NVLinks), g.NVLinkRecorded)
		}
	}
}
