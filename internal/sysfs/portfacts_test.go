package sysfs

import (
	"testing"
	"testing/fstest"

	"github.com/gdtopo/gdtopo/topology"
)

const nicDir = "sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:01.0/0000:04:00.0"

// TestPortStateRead reads a port's state, physical state, rate and link
// layer, and keeps a port known to be down out of the NIC's port rate.
func TestPortStateRead(t *testing.T) {
	m := smallTree()
	port := nicDir + "/infiniband/mlx5_0/ports/1/"
	m.file(port+"state", "1: DOWN\n")
	m.file(port+"phys_state", "3: Disabled\n")
	m.file(port+"link_layer", "InfiniBand\n")
	g, err := Read(fstest.MapFS(m))
	if err != nil {
		t.Fatal(err)
	}
	nic := g.Device(bdf(t, "0000:04:00.0"))
	want := topology.IBPort{Device: "mlx5_0", Port: "1", State: "DOWN", PhysState: "Disabled", RateGbps: 400, Rate: "400 Gb/sec (4X NDR)", LinkLayer: "InfiniBand"}
	if len(nic.Ports) != 1 || nic.Ports[0] != want {
		t.Fatalf("ports = %+v, want [%+v]", nic.Ports, want)
	}
	if nic.PortRateGbps != 0 || !nic.PortsAllDown() {
		t.Errorf("a DOWN port: port rate %g, all down %v; want 0 and true", nic.PortRateGbps, nic.PortsAllDown())
	}
	m.file(port+"state", "4: ACTIVE\n")
	if g, err = Read(fstest.MapFS(m)); err != nil {
		t.Fatal(err)
	}
	if nic = g.Device(bdf(t, "0000:04:00.0")); nic.PortRateGbps != 400 || nic.PortsAllDown() {
		t.Errorf("an ACTIVE port: port rate %g, all down %v; want 400 and false", nic.PortRateGbps, nic.PortsAllDown())
	}
}

// TestPortStateAbsentIsUnknown: a port folder with only its rate (as older
// captures hold) keeps the rate and says nothing of the state.
func TestPortStateAbsentIsUnknown(t *testing.T) {
	g, err := Read(fstest.MapFS(smallTree()))
	if err != nil {
		t.Fatal(err)
	}
	nic := g.Device(bdf(t, "0000:04:00.0"))
	if len(nic.Ports) != 1 || nic.Ports[0].StateKnown() || nic.PortsAllDown() || nic.PortRateGbps != 400 {
		t.Errorf("ports %+v, rate %g: want one port of unknown state at 400 Gb/s", nic.Ports, nic.PortRateGbps)
	}
}

// TestAERRead reads the AER files of a NIC and the switch ports above it,
// in the kernel's current and its pre-5.x spelling, and leaves a function
// without them unknown.
func TestAERRead(t *testing.T) {
	m := smallTree()
	m.file(nicDir+"/aer_dev_correctable", "RxErr 0\nBadTLP 3\nBadDLLP 0\nRollover 0\nTimeout 0\nNonFatalErr 0\nCorrIntErr 0\nHeaderOF 0\nTOTAL_ERR_COR 3\n")
	m.file(nicDir+"/aer_dev_nonfatal", "Undefined 0\nDLP 0\nSDES 0\nTLP 0\nFCP 0\nCmpltTO 2\nTOTAL_ERR_NONFATAL 2\n")
	m.file(nicDir+"/aer_dev_fatal", "garbage without a total\n")
	dsp := "sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:01.0"
	m.file(dsp+"/aer_dev_correctable", "Receiver Error 120\nBad TLP 0\nRELAY_NUM Rollover 0\ndev_cor_errs_bit[15] 4\nTOTAL_ERR_COR 124\n")
	g, err := Read(fstest.MapFS(m))
	if err != nil {
		t.Fatal(err)
	}
	nic := g.Device(bdf(t, "0000:04:00.0"))
	if nic.AER == nil {
		t.Fatal("NIC AER not read")
	}
	if c := nic.AER.Correctable; !c.Read || c.Total != 3 || len(c.Errors) != 1 || c.Errors[0] != (topology.AERError{Name: "BadTLP", Count: 3}) {
		t.Errorf("correctable = %+v", c)
	}
	if c := nic.AER.Nonfatal; !c.Read || c.Total != 2 || len(c.Errors) != 1 || c.Errors[0].Name != "CmpltTO" {
		t.Errorf("nonfatal = %+v", c)
	}
	if nic.AER.Fatal.Read {
		t.Errorf("fatal without its TOTAL_ line read as %+v; want unknown", nic.AER.Fatal)
	}
	port := g.Device(bdf(t, "0000:02:01.0"))
	if port.AER == nil || port.AER.Correctable.Total != 124 || len(port.AER.Correctable.Errors) != 2 ||
		port.AER.Correctable.Errors[0] != (topology.AERError{Name: "Receiver Error", Count: 120}) {
		t.Errorf("downstream port AER = %+v", port.AER)
	}
	if gpu := g.Device(bdf(t, "0000:03:00.0")); gpu.AER != nil {
		t.Errorf("GPU without AER files: AER = %+v, want nil (unknown)", gpu.AER)
	}
}

func bdf(t *testing.T, s string) topology.BDF {
	t.Helper()
	a, err := topology.ParseBDF(s)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
