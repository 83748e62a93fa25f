package fleet

import (
	"slices"
	"strings"
	"testing"
)

// withPort is topoLiteral with its NIC's RDMA port as sysfs shows it.
func withPort(state, phys string, rate float64, layer string) Topo {
	t := topoLiteral()
	t.Devices[2].Ports = []TopoPort{{RDMA: "mlx5_0", Port: "1", State: state, PhysState: phys, RateGbps: rate, LinkLayer: layer}}
	return t
}

// portWhats is whats with each difference's port and whether it is worse.
func portWhats(ds []Difference) []string {
	out := whats(ds)
	for i, d := range ds {
		if d.Port != "" {
			out[i] += " [" + d.Port + "]"
		}
		if d.Worse {
			out[i] += " (worse)"
		}
	}
	return out
}

// TestComparePorts: a port down is one port_state difference on its NIC,
// not also the NIC's rate falling to unknown, its rate file's value, or
// its pairs' figures (which the advisor makes without a rate); an active
// port's rate and link layer differ per port; a renamed RDMA device keeps
// its port.
func TestComparePorts(t *testing.T) {
	ref := withPort("ACTIVE", "LinkUp", 400, "InfiniBand")
	// The reader's NIC rate is its fastest active port's: none when down,
	// so the advisor's pair figure is the PCIe link's.
	down := withPort("DOWN", "Disabled", 10, "InfiniBand")
	down.Devices[2].PortRateGbps = 0
	down.Pairs[0].ExpectedGbps = 460.9
	down.Findings = []TopoFinding{{Code: "port-down", Severity: "critical", Devices: []string{"0000:17:00.0"}}}
	slower := withPort("ACTIVE", "LinkUp", 200, "InfiniBand")
	slower.Devices[2].PortRateGbps = 200
	slower.Pairs[0].ExpectedGbps = 200
	roce := withPort("ACTIVE", "LinkUp", 400, "Ethernet")
	renamed := withPort("ACTIVE", "LinkUp", 400, "InfiniBand")
	renamed.Devices[2].RDMA = []string{"mlx5_4"}
	renamed.Devices[2].Ports[0].RDMA = "mlx5_4"
	polling := withPort("DOWN", "Polling", 400, "InfiniBand")
	polling.Findings = down.Findings
	unknown := withPort("", "", 400, "InfiniBand")
	for _, c := range []struct {
		name string
		ref  Topo
		node Topo
		want []string
	}{
		{"down", ref, down, []string{"port_state 0000:17:00.0 ACTIVE (LinkUp) -> DOWN (Disabled) [mlx5_0 port 1] (worse)",
			"finding_added   -> critical on 0000:17:00.0 (worse)"}},
		{"up again", down, ref, []string{"port_state 0000:17:00.0 DOWN (Disabled) -> ACTIVE (LinkUp) [mlx5_0 port 1]",
			"finding_missing  critical ->  on 0000:17:00.0"}},
		{"down otherwise", down, polling, []string{"port_state 0000:17:00.0 DOWN (Disabled) -> DOWN (Polling) [mlx5_0 port 1]"}},
		{"state unread", ref, unknown, []string{"port_state 0000:17:00.0 ACTIVE (LinkUp) -> unknown [mlx5_0 port 1]"}},
		{"slower", ref, slower, []string{"port_rate 0000:17:00.0 400.0 Gb/s -> 200.0 Gb/s [mlx5_0 port 1] (worse)",
			"throughput 0000:16:00.0 400.0 Gb/s -> 200.0 Gb/s (worse)"}},
		{"roce", ref, roce, []string{"link_layer 0000:17:00.0 InfiniBand -> Ethernet [mlx5_0 port 1]"}},
		{"renamed", ref, renamed, []string{"renamed 0000:17:00.0 mlx5_0 ibp23s0 -> mlx5_4 ibp23s0"}},
	} {
		got := Compare(&c.ref, &c.node)
		if !slices.Equal(portWhats(got), c.want) {
			t.Errorf("%s: %q, want %q", c.name, portWhats(got), c.want)
		}
		if c.ref.key() == c.node.key() {
			t.Errorf("%s: the same key as the reference", c.name)
		}
	}
	// Without the ports' files on one side, the NIC's rate is compared.
	bare := topoLiteral()
	bare.Devices[2].PortRateGbps = 200
	if got, want := portWhats(Compare(&ref, &bare)), []string{"port_rate 0000:17:00.0 400.0 Gb/s -> 200.0 Gb/s (worse)"}; !slices.Equal(got, want) {
		t.Errorf("no ports on the node: %q, want %q", got, want)
	}
	d := Compare(&ref, &down)[0]
	if s := d.String(); s != "nic 0000:17:00.0 mlx5_0 port 1: port state DOWN (Disabled), majority ACTIVE (LinkUp)" {
		t.Errorf("text: %q", s)
	}
}

// TestCompareNUMAUnknown: a numa_node of -1 differs as unknown, with the
// node gdtopo infers said as inferred, never as the node read; it is
// worse, and its return is not.
func TestCompareNUMAUnknown(t *testing.T) {
	ref := topoLiteral()
	ref.Devices[1].NUMAFrom = "numa_node"
	minus := topoLiteral()
	minus.Devices[1].NUMAFrom = "local_cpus" // the same node, from its CPUs
	diffs := Compare(&ref, &minus)
	if got, want := portWhats(diffs), []string{"numa_node 0000:16:00.0 0 -> unknown (no numa_node; 0 from local_cpus) (worse)"}; !slices.Equal(got, want) {
		t.Errorf("numa_node -1: %q, want %q", got, want)
	}
	if ref.key() == minus.key() {
		t.Error("numa_node -1: the same key as the reference")
	}
	if back := Compare(&minus, &ref); len(back) != 1 || back[0].Worse || back[0].Node != "0" {
		t.Errorf("numa_node read again: %q", portWhats(back))
	}
	moved := topoLiteral()
	moved.Devices[1].NUMAFrom, moved.Devices[1].NUMANode = "numa_node", 1
	if got := portWhats(Compare(&ref, &moved)); len(got) != 1 || !strings.HasPrefix(got[0], "numa_node 0000:16:00.0 0 -> 1") || strings.HasSuffix(got[0], "(worse)") {
		t.Errorf("another node read: %q", got)
	}
}
