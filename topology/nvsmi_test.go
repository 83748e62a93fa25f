package topology_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gdtopo/gdtopo/topology"
)

// nvsmiMatrix parses `nvidia-smi topo -m` text: the label of every pair of
// the header's GPU and NIC columns, and the NIC legend (NIC0 -> mlx5_0).
func nvsmiMatrix(t *testing.T, file string) (labels map[[2]string]string, legend map[string]string) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	labels, legend = map[[2]string]string{}, map[string]string{}
	var cols []string
	name := regexp.MustCompile(`^(GPU|NIC)\d+$`)
	leg := regexp.MustCompile(`^\s*(NIC\d+): (\S+)`)
	for _, line := range strings.Split(string(b), "\n") {
		if m := leg.FindStringSubmatch(line); m != nil {
			legend[m[1]] = m[2]
			continue
		}
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if cols == nil && name.MatchString(f[0]) && f[0] == "GPU0" && len(f) > 1 && name.MatchString(f[1]) {
			for _, c := range f {
				if !name.MatchString(c) {
					break
				}
				cols = append(cols, c)
			}
			continue
		}
		if cols != nil && name.MatchString(f[0]) && len(f) > len(cols) {
			for i, c := range cols {
				labels[[2]string{f[0], c}] = f[1+i]
			}
		}
	}
	if len(cols) == 0 {
		t.Fatalf("%s: no matrix header", file)
	}
	return labels, legend
}

// TestFixturesMatchPublishedNvidiaSmi compares gdtopo's nvidia-smi labels on
// fixtures modelled on published machines with those machines' own
// `nvidia-smi topo -m` in the corpus. NV# entries (NVLink) are not visible
// in sysfs and are skipped.
func TestFixturesMatchPublishedNvidiaSmi(t *testing.T) {
	corpus := corpusDir(t)
	for _, c := range []struct{ fixture, nvsmi string }{
		{"wrx90-threadripper", "paired/puget-wrx90-threadripper-2xrtx6000ada-cx7/nvsmi-topo.txt"},
		{"dgx-a100", "nvsmi/dgxa100-like-epyc7742-8xa100-10nic.txt"},
	} {
		t.Run(c.fixture, func(t *testing.T) {
			g := readSource(t, filepath.Join("..", "fixtures", c.fixture))
			labels, legend := nvsmiMatrix(t, filepath.Join(corpus, c.nvsmi))
			dev := map[string]*topology.Device{}
			for i, d := range g.OfKind(topology.KindAccelerator) {
				dev["GPU"+strconv.Itoa(i)] = d
			}
			for nic, rdma := range legend {
				for _, d := range g.OfKind(topology.KindNIC) {
					if len(d.RDMA) > 0 && d.RDMA[0] == rdma {
						dev[nic] = d
					}
				}
			}
			checked := 0
			for k, want := range labels {
				if want == "X" || strings.HasPrefix(want, "NV") {
					continue
				}
				a, b := dev[k[0]], dev[k[1]]
				if a == nil || b == nil {
					t.Errorf("%s-%s: device not in the fixture", k[0], k[1])
					continue
				}
				if got := g.Classify(a, b).SMI; string(got) != want {
					t.Errorf("%s-%s (%s-%s): gdtopo %s, nvidia-smi %s", k[0], k[1], a.BDF(), b.BDF(), got, want)
				}
				checked++
			}
			if checked < 4 {
				t.Errorf("only %d labels compared", checked)
			}
		})
	}
}
