package advisor

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gdtopo/gdtopo/internal/words"
	"github.com/gdtopo/gdtopo/topology"
)

// Port and AER facts: the state of each RDMA port and the AER counters of
// the devices on accelerator and NIC paths. Where the source holds no port
// or AER files (lspci, hwloc, NCCL files, older captures) nothing is said.

// aerCorrectableInfo is the count of corrected errors since boot from which
// a device's aer_dev_correctable is reported. A capture gives no time base,
// so no rate can be told: a healthy link's occasional corrected errors
// (training, ASPM exits; the kernel ABI document's own sample shows 2) stay
// far below 100, which a link at DCGM's limit of 8 replays a minute
// (dcgm_gpu_hardware_limits.h, DCGM_LIMIT_MAX_PCIREPLAY_RATE) passes in
// under 13 minutes.
const aerCorrectableInfo = 100

// liveRails drops the NICs whose RDMA ports are all known to be down: NCCL
// uses ACTIVE ports only, so planning a GPU there sends it nowhere.
func liveRails(nics []*topology.Device) []*topology.Device {
	if !slices.ContainsFunc(nics, (*topology.Device).PortsAllDown) {
		return nics
	}
	out := make([]*topology.Device, 0, len(nics))
	for _, n := range nics {
		if !n.PortsAllDown() {
			out = append(out, n)
		}
	}
	return out
}

// planPort is the port UCX_NET_DEVICES names for NIC n: the first ACTIVE
// port of its first RDMA device, "1" where none is known active.
func planPort(n *topology.Device) string {
	for _, p := range n.Ports {
		if len(n.RDMA) > 0 && p.Device == n.RDMA[0] && p.Active() {
			return p.Port
		}
	}
	return "1"
}

// portName is how findings name a port: "mlx5_3 port 1".
func portName(p topology.IBPort) string { return p.Device + " port " + p.Port }

// portEvidence is the port's folder and what its files said.
func portEvidence(p topology.IBPort) string {
	ev := "sys/class/infiniband/" + p.Device + "/ports/" + p.Port + ": state " + p.State
	if p.PhysState != "" {
		ev += ", phys_state " + p.PhysState
	}
	if p.LinkLayer != "" {
		ev += ", link_layer " + p.LinkLayer
	}
	return ev
}

// portFix is the step that fits a port's states: the physical state says
// whether the port is disabled, has no partner, or has a link that the
// fabric has not brought up (IB: no subnet manager has configured it).
func portFix(n *topology.Device, p topology.IBPort) RemedyStep {
	mlx := n.VendorID == topology.VendorMellanox
	switch {
	case p.PhysState == "Disabled" && mlx:
		return command("sudo mlxlink -d "+n.BDF()+" --port_state UP", portName(p)+" is disabled: enable it (NVIDIA MFT mlxlink), or on the switch side if it was disabled there")
	case p.PhysState == "Disabled":
		return manual("enable "+portName(p), "it is disabled: on the host, the switch port, or by firmware")
	case p.PhysState == "Polling":
		return manual("check the cable and the switch port of "+portName(p), "Polling: the port sees no link partner")
	case p.PhysState == "LinkUp" && p.LinkLayer != "Ethernet":
		return command("sudo sminfo", portName(p)+" has a link but is "+p.State+": check that a subnet manager runs on the fabric (infiniband-diags)")
	}
	return command("ibstat "+p.Device+" "+p.Port, "read "+portName(p)+"'s state and rate")
}

// findPorts reports RDMA ports that are not ACTIVE (critical where a rail
// NIC has none active: its accelerators lose their NIC; warning for a NIC
// set aside; info for a card's other port), and active ports slower than
// the fastest active port of the other rails of the same model and link
// layer. A port rate below what the model can do is not reported: one
// device ID covers cards of several rates (ConnectX-7 is sold at 200 and
// 400 Gb/s), so the model does not tell the card's rate.
func (a *analysis) findPorts(rails []*topology.Device) {
	isRail := make(map[*topology.Device]bool, len(rails))
	for _, n := range rails {
		isRail[n] = true
	}
	var railDown, asideDown, spare group
	for _, n := range a.g.OfKind(topology.KindNIC) {
		allDown := n.PortsAllDown()
		for _, p := range n.Ports {
			if !p.StateKnown() || p.Active() {
				continue
			}
			g := &spare
			switch {
			case allDown && isRail[n]:
				g = &railDown
			case allDown:
				g = &asideDown
			}
			state := p.State
			if p.PhysState != "" {
				state += " (" + p.PhysState + ")"
			}
			g.add([]*topology.Device{n}, fmt.Sprintf("%s on %s: %s", portName(p), n.BDF(), state), portFix(n, p), portEvidence(p))
		}
	}
	a.emit("port-down", Critical, &railDown,
		"RDMA ports not ACTIVE on rail NICs: %s. NCCL uses ACTIVE ports only, so these NICs carry nothing and the rail plan leaves them out", nil,
		[]RemedyStep{command("ibstat", "check every port again once fixed: State Active, Physical state LinkUp")})
	a.emit("port-down", Warning, &asideDown, "RDMA ports not ACTIVE on NICs outside the rails: %s", nil, nil)
	a.emit("port-down", Info, &spare, "RDMA ports not ACTIVE beside an active port of the same NIC: %s (a second port left uncabled is common)", nil, nil)
	a.findPortRates(rails)
}

// findPortRates reports active rail ports slower than the fastest active
// port of rails of the same model (vendor and device ID) and link layer.
func (a *analysis) findPortRates(rails []*topology.Device) {
	type kind struct {
		vendor, device uint16
		layer          string
	}
	best := map[kind]float64{}
	count := map[kind]int{}
	for _, n := range rails {
		for _, p := range n.Ports {
			if p.Active() && p.RateGbps > 0 {
				k := kind{n.VendorID, n.DeviceID, p.LinkLayer}
				best[k] = max(best[k], p.RateGbps)
				count[k]++
			}
		}
	}
	var slow group
	for _, n := range rails {
		for _, p := range n.Ports {
			k := kind{n.VendorID, n.DeviceID, p.LinkLayer}
			if !p.Active() || p.RateGbps <= 0 || count[k] < 2 || p.RateGbps >= best[k] {
				continue
			}
			model := n.Name
			if model == "" {
				model = fmt.Sprintf("%04x:%04x", n.VendorID, n.DeviceID)
			}
			slow.add([]*topology.Device{n}, fmt.Sprintf("%s on %s at %s, other %s ports at %s", portName(p), n.BDF(), p.Rate, model, words.Gbps(best[k])),
				command("ibstat "+p.Device+" "+p.Port, "Rate and the width/speed it trained at"),
				"sys/class/infiniband/"+p.Device+"/ports/"+p.Port+"/rate: "+p.Rate)
		}
	}
	a.emit("port-rate-low", Warning, &slow, "RDMA ports slower than the other rails of their model: %s; the pair's throughput is capped by the port",
		[]RemedyStep{manual("check the cable and the switch port's speed", "a cable or switch port of a lower speed, or lanes lost in the cable, cap the port")}, nil)
}

// aerDevices are the accelerators, the NICs and the bridges above them, in
// address order: the devices whose AER counters the reader keeps.
func (a *analysis) aerDevices() []*topology.Device {
	seen := map[*topology.Device]bool{}
	for _, d := range a.g.Devices {
		if d.Kind != topology.KindAccelerator && d.Kind != topology.KindNIC {
			continue
		}
		for x := d; x != nil && !seen[x]; x = x.Parent {
			seen[x] = true
		}
	}
	var out []*topology.Device
	for _, d := range a.g.Devices {
		if seen[d] && d.AER != nil {
			out = append(out, d)
		}
	}
	return out
}

// aerPart names a device's count and its error kinds: "0000:1b:00.0 (NIC):
// 2 (CmpltTO 2)".
func aerPart(d *topology.Device, c topology.AERClass) string {
	kinds := make([]string, len(c.Errors))
	for i, e := range c.Errors {
		kinds[i] = fmt.Sprintf("%s %d", e.Name, e.Count)
	}
	what := string(d.Kind)
	if d.Kind == topology.KindBridge && d.Role != "" {
		what = strings.ReplaceAll(string(d.Role), "_", " ")
	}
	s := fmt.Sprintf("%s (%s): %d", d.BDF(), what, c.Total)
	if len(kinds) > 0 {
		s += " (" + strings.Join(kinds, ", ") + ")"
	}
	return s
}

// findAER reports AER counters on accelerator and NIC paths: fatal errors
// (critical: the kernel resets the link, Documentation/PCI/pcieaer-howto.rst),
// non-fatal ones (warning: a transaction was lost, the link stayed up), and
// corrected ones from aerCorrectableInfo on (info: the link replayed).
func (a *analysis) findAER() {
	var fatal, nonfatal, corr group
	for _, d := range a.aerDevices() {
		one := []*topology.Device{d}
		c := d.AER
		if c.Fatal.Read && c.Fatal.Total > 0 {
			fatal.add(one, aerPart(d, c.Fatal), RemedyStep{}, fmt.Sprintf("%s: TOTAL_ERR_FATAL %d", sysfsFile(d, "aer_dev_fatal"), c.Fatal.Total))
		}
		if c.Nonfatal.Read && c.Nonfatal.Total > 0 {
			nonfatal.add(one, aerPart(d, c.Nonfatal), RemedyStep{}, fmt.Sprintf("%s: TOTAL_ERR_NONFATAL %d", sysfsFile(d, "aer_dev_nonfatal"), c.Nonfatal.Total))
		}
		if c.Correctable.Read && c.Correctable.Total >= aerCorrectableInfo {
			corr.add(one, aerPart(d, c.Correctable), command("cat /"+sysfsFile(d, "aer_dev_correctable"), "again later, under load: a count that keeps growing is a marginal link"),
				fmt.Sprintf("%s: TOTAL_ERR_COR %d", sysfsFile(d, "aer_dev_correctable"), c.Correctable.Total))
		}
	}
	dmesg := command("sudo dmesg | grep -i aer", "when and where: the kernel logs each error with the reporting port and the device at fault")
	a.emit("aer-fatal", Critical, &fatal, "uncorrectable fatal PCIe errors since boot on accelerator or NIC paths: %s; the kernel reset those links, and the devices below may have lost work",
		[]RemedyStep{dmesg, manual("reseat the card and check its riser and cables; replace it if the errors come back", "errors are counted where they are seen: at the device or at the port above it")}, nil)
	a.emit("aer-nonfatal", Warning, &nonfatal, "uncorrectable non-fatal PCIe errors since boot on accelerator or NIC paths: %s; transactions were lost while the link stayed up",
		[]RemedyStep{dmesg, manual("watch the count: completion timeouts or poisoned TLPs that recur point at the device or its slot", "")}, nil)
	a.emit("aer-correctable", Info, &corr, fmt.Sprintf("at least %d corrected PCIe errors since boot on %%s: the link retried them, costing bandwidth only while they last", aerCorrectableInfo),
		nil, []RemedyStep{manual("reseat or replace the riser or cable if the count grows", "")})
}
