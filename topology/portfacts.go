package topology

import "strings"

// IBPort is one port of an RDMA device, as the kernel shows it in
// sys/class/infiniband/<dev>/ports/<n>/ (Documentation/ABI/stable/sysfs-class-infiniband).
// A field is "" (or 0) where its file could not be read: state unknown,
// not down.
type IBPort struct {
	Device    string  // the RDMA device: mlx5_0
	Port      string  // the port's number as its folder names it: "1"
	State     string  // logical state without its number: DOWN, INIT, ARMED, ACTIVE, ACTIVE_DEFER
	PhysState string  // physical state without its number: Sleep, Polling, Disabled, LinkUp, ...
	RateGbps  float64 // from rate ("400 Gb/sec (4X NDR)"); 0 unknown
	Rate      string  // the rate file as read, width and speed name included
	LinkLayer string  // InfiniBand or Ethernet (RoCE)
}

// LAG is a RoCE LAG: the two Ethernet ports of one card enslaved to one
// bond in active-backup, balance-xor or 802.3ad mode, which the card's
// driver serves with one RDMA device over both ports (MLNX_OFED user
// manual, "RoCE LAG").
type LAG struct {
	Bond    string      // the bonding interface: bond0
	Mode    string      // bonding/mode's name: 802.3ad, balance-xor, active-backup; "" unread
	Members []LAGMember // the bond's ports, in address order
}

// LAGMember is one port of a RoCE LAG bond.
type LAGMember struct {
	Netdev string  // net/<if>
	Addr   BDF     // the PCI function it belongs to
	Gbps   float64 // net/<if>/speed; 0 unknown, or the link is down (the kernel prints -1)
}

// Spreads reports whether the bond's mode sends over every port at once:
// balance-xor and 802.3ad hash traffic over the ports, active-backup
// keeps one (Documentation/networking/bonding.rst, "Bonding Driver
// Options", mode).
func (l *LAG) Spreads() bool { return l.Mode == "802.3ad" || l.Mode == "balance-xor" }

// Gbps is what the RDMA device carries over all its ports: the sum of the
// member ports' speeds where the mode spreads traffic and every port's
// speed is known; 0 otherwise (one port's rate is then the device's).
func (l *LAG) Gbps() float64 {
	if !l.Spreads() || len(l.Members) < 2 {
		return 0
	}
	sum := 0.0
	for _, m := range l.Members {
		if m.Gbps <= 0 {
			return 0
		}
		sum += m.Gbps
	}
	return sum
}

// StateKnown reports whether the port's logical state was read.
func (p IBPort) StateKnown() bool { return p.State != "" }

// Active reports whether the port is ACTIVE, the only state in which NCCL's
// IB transport uses it (NCCL src/transport/net_ib: ncclIbInitDevices skips a
// port whose ibv_port_attr.state is not IBV_PORT_ACTIVE, ACTIVE_DEFER
// included).
func (p IBPort) Active() bool { return p.State == "ACTIVE" }

// PortStateWord returns the name of a sysfs state or phys_state file's
// value: "4: ACTIVE" gives "ACTIVE", "3: Disabled" gives "Disabled"
// (drivers/infiniband/core/sysfs.c, state_show and phys_state_show print
// "%d: %s").
func PortStateWord(s string) string {
	s = strings.TrimSpace(s)
	if _, w, ok := strings.Cut(s, ":"); ok {
		return strings.TrimSpace(w)
	}
	return s
}

// PortsAllDown reports whether d has RDMA ports whose states were all read
// and none is active: a NIC that carries no RDMA traffic until a port
// comes up. It is false where any state is unknown.
func (d *Device) PortsAllDown() bool {
	if len(d.Ports) == 0 {
		return false
	}
	for _, p := range d.Ports {
		if !p.StateKnown() || p.Active() {
			return false
		}
	}
	return true
}

// AERClass is one of a function's AER counter files (aer_dev_correctable,
// aer_dev_nonfatal, aer_dev_fatal; Documentation/ABI/testing/sysfs-bus-pci-devices-aer):
// the TOTAL_ERR_* line and the error kinds counted above zero.
type AERClass struct {
	Read   bool       // the file was read and held its TOTAL_ line; false: unknown
	Total  uint64     // TOTAL_ERR_COR, TOTAL_ERR_NONFATAL or TOTAL_ERR_FATAL
	Errors []AERError // the kinds with a count above zero, in the file's order
}

// AERError is one line of an AER counter file: "RxErr 12".
type AERError struct {
	Name  string
	Count uint64
}

// AERCounts are a function's AER counters since the kernel found it (boot
// or hot-plug). The kernel counts an error at the function that reported
// it, which may be the link partner of the one at fault (a root or
// downstream port sees its endpoint's bad link).
type AERCounts struct {
	Correctable, Nonfatal, Fatal AERClass
}
