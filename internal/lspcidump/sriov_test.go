package lspcidump

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gdtopo/gdtopo/topology"
)

// hgxWithVFs is lspci -nn of an 8x H100, 8x ConnectX-7 server, each NIC
// with 16 virtual functions enabled (mlx5 numbers them from function 1 of
// its bus on, ARI), as lspci prints them with the pci.ids of pciutils 3.10.
func hgxWithVFs() (text string, pfs []string) {
	var b strings.Builder
	for _, bus := range []int{0x1a, 0x3c, 0x4d, 0x5d, 0x9b, 0xba, 0xcb, 0xdb} {
		fmt.Fprintf(&b, "%02x:00.0 3D controller [0302]: NVIDIA Corporation GH100 [H100 SXM5 80GB] [10de:2330] (rev a1)\n", bus-1)
		fmt.Fprintf(&b, "%02x:00.0 Infiniband controller [0207]: Mellanox Technologies MT2910 Family [ConnectX-7] [15b3:1021]\n", bus)
		for v := 1; v <= 16; v++ {
			fmt.Fprintf(&b, "%02x:%02x.%d Infiniband controller [0207]: Mellanox Technologies ConnectX Family mlx5Gen Virtual Function [15b3:101e]\n", bus, v>>3, v&7)
		}
		pfs = append(pfs, fmt.Sprintf("0000:%02x:00.0", bus))
	}
	return b.String(), pfs
}

// TestVirtualFunctionsSetAside: lspci -nn and -vmmn of a server whose
// ConnectX-7s have virtual functions enabled count 8 NICs, not 136; each
// virtual function names its physical function, as a sysfs tree's physfn
// link does.
func TestVirtualFunctionsSetAside(t *testing.T) {
	nn, pfs := hgxWithVFs()
	// lspci -vmmn: the IDs without names.
	var n strings.Builder
	for _, l := range strings.Split(strings.TrimSpace(nn), "\n") {
		addr, rest, _ := strings.Cut(l, " ")
		class := rest[strings.Index(rest, "[")+1 : strings.Index(rest, "]")]
		vendor, device, _ := strings.Cut(rest[strings.LastIndex(rest, "[")+1:strings.LastIndex(rest, "]")], ":")
		fmt.Fprintf(&n, "Slot:\t%s\nClass:\t%s\nVendor:\t%s\nDevice:\t%s\n\n", addr, class, vendor, device)
	}
	for _, c := range []struct{ name, text string }{{"-nn", nn}, {"-vmmn", n.String()}} {
		t.Run(c.name, func(t *testing.T) {
			g, err := Parse(c.name, []byte(c.text))
			if err != nil {
				t.Fatal(err)
			}
			if err := g.CheckPairEnds(); err != nil {
				t.Fatal(err)
			}
			nics := g.OfKind(topology.KindNIC)
			if len(nics) != 8 || len(g.OfKind(topology.KindAccelerator)) != 8 {
				t.Fatalf("%d NICs, %d accelerators; want 8 and 8", len(nics), len(g.OfKind(topology.KindAccelerator)))
			}
			vfs := 0
			for _, d := range g.Devices {
				if d.IsVirtualFunction() {
					vfs++
					if want := fmt.Sprintf("%04x:%02x:00.0", d.Addr.Domain, d.Addr.Bus); d.PhysFn() != want {
						t.Errorf("%s: physfn %q, want %q", d.BDF(), d.PhysFn(), want)
					}
				}
			}
			if vfs != 128 {
				t.Errorf("%d virtual functions, want 128", vfs)
			}
			for i, d := range nics {
				if d.BDF() != pfs[i] {
					t.Errorf("NIC%d is %s, want %s", i, d.BDF(), pfs[i])
				}
			}
			if len(g.Warnings) != 0 {
				t.Errorf("warnings %v, want none: each function has one physical function on its bus", g.Warnings)
			}
		})
	}
}

// TestVirtualFunctionsTree: lspci -tv of a dual-port ConnectX-5 with
// virtual functions (laid out as in an lspci -tv pasted in NVIDIA/nccl
// issue 246): they are set aside, and as a tree does not say which port's
// each is, the warning says so.
func TestVirtualFunctionsTree(t *testing.T) {
	tree := `-[0000:00]-+-00.0  Intel Corporation Sky Lake-E DMI3 Registers
           \-02.0-[58-5b]--+-00.0  Mellanox Technologies MT27800 Family [ConnectX-5]
                           +-00.1  Mellanox Technologies MT27800 Family [ConnectX-5]
                           +-00.2  Mellanox Technologies MT27800 Family [ConnectX-5 Virtual Function]
                           +-00.3  Mellanox Technologies MT27800 Family [ConnectX-5 Virtual Function]
                           +-00.4  Mellanox Technologies MT27800 Family [ConnectX-5 Virtual Function]
                           \-00.5  Mellanox Technologies MT27800 Family [ConnectX-5 Virtual Function]
`
	g, err := Parse("tree", []byte(tree))
	if err != nil {
		t.Fatal(err)
	}
	var nics []string
	for _, d := range g.OfKind(topology.KindNIC) {
		nics = append(nics, d.BDF())
	}
	if strings.Join(nics, " ") != "0000:58:00.0 0000:58:00.1" {
		t.Fatalf("NICs %v, want the two ports", nics)
	}
	for _, f := range []string{"00.2", "00.3", "00.4", "00.5"} {
		if d := dev(t, g, "0000:58:"+f); d.PhysFn() != "0000:58:00.0" {
			t.Errorf("%s: physfn %q, want 0000:58:00.0 (taken, with a warning)", d.BDF(), d.PhysFn())
		}
	}
	var said []string
	for _, w := range g.Warnings {
		said = append(said, w.Subject+": "+w.Message)
	}
	want := "0000:58:00.2: 4 functions on bus 0000:58 set aside as SR-IOV virtual functions, physfn given as 0000:58:00.0: " +
		"whether each is its or 0000:58:00.1's, this lspci output does not say"
	if len(said) != 1 || !strings.HasPrefix(said[0], want) {
		t.Errorf("warnings %q, want one starting %q", said, want)
	}
}

// TestVirtualFunctionsCapability: lspci -vvv as root shows each physical
// function's SR-IOV capability, which places its virtual functions exactly:
// port 1's follow port 0's, and a port whose virtual functions are not
// enabled has none.
func TestVirtualFunctionsCapability(t *testing.T) {
	pf := func(fn, numVFs, offset int, enable string) string {
		return fmt.Sprintf(`58:00.%d Ethernet controller [0200]: Mellanox Technologies MT2892 Family [ConnectX-6 Dx] [15b3:101d]
	Subsystem: Mellanox Technologies Device [15b3:0016]
	Capabilities: [60] Express (v2) Endpoint, MSI 00
		LnkCap:	Port #0, Speed 16GT/s, Width x16, ASPM not supported
		LnkSta:	Speed 16GT/s, Width x16
	Capabilities: [180 v1] Single Root I/O Virtualization (SR-IOV)
		IOVCap:	Migration-, Interrupt Message Number: 000
		IOVCtl:	Enable%s Migration- Interrupt- MSE%s ARIHierarchy+
		IOVSta:	Migration-
		Initial VFs: 8, Total VFs: 8, Number of VFs: %d, Function Dependency Link: %02x
		VF offset: %d, stride: 1, Device ID: 101e
		Supported Page Size: 000007ff, System Page Size: 00000001
		Region 0: Memory at 000000e07e000000 (64-bit, prefetchable)
		VF Migration: offset: 00000000, BIR: 0
	Kernel driver in use: mlx5_core

`, fn, enable, enable, numVFs, fn, offset)
	}
	vf := func(f string) string {
		return "58:" + f + " Ethernet controller [0200]: Mellanox Technologies ConnectX Family mlx5Gen Virtual Function [15b3:101e]\n" +
			"\tLnkSta:\tSpeed unknown (downgraded), Width x0 (downgraded)\n\tKernel driver in use: mlx5_core\n\n"
	}
	text := pf(0, 3, 2, "+") + pf(1, 2, 4, "+") + vf("00.2") + vf("00.3") + vf("00.4") + vf("00.5") + vf("00.6")
	g, err := Parse("vvv", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"00.0": "", "00.1": "", "00.2": "0000:58:00.0", "00.3": "0000:58:00.0", "00.4": "0000:58:00.0",
		"00.5": "0000:58:00.1", "00.6": "0000:58:00.1"}
	for f, w := range want {
		if d := dev(t, g, "0000:58:"+f); d.PhysFn() != w {
			t.Errorf("%s: physfn %q, want %q", d.BDF(), d.PhysFn(), w)
		}
	}
	if len(g.Warnings) != 0 {
		t.Errorf("warnings %v, want none: the capabilities place every virtual function", g.Warnings)
	}

	// Port 0's virtual functions disabled, port 1's capability not shown
	// (lspci -vvv without root): the functions named virtual functions are
	// port 1's, the one function that may have them.
	denied := "58:00.1 Ethernet controller [0200]: Mellanox Technologies MT2892 Family [ConnectX-6 Dx] [15b3:101d]\n" +
		"\tCapabilities: <access denied>\n\tKernel driver in use: mlx5_core\n\n"
	g, err = Parse("vvv", []byte(pf(0, 0, 2, "-")+denied+vf("00.2")+vf("00.3")))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"00.2", "00.3"} {
		if d := dev(t, g, "0000:58:"+f); d.PhysFn() != "0000:58:00.1" {
			t.Errorf("port 0 disabled: %s: physfn %q, want 0000:58:00.1", d.BDF(), d.PhysFn())
		}
	}
	if len(g.Warnings) != 0 {
		t.Errorf("warnings %v, want none", g.Warnings)
	}
}

// TestVirtualFunctionInVM: a virtual function passed through to a VM,
// with no physical function of its vendor on its bus, is the VM's NIC, as
// in the VM's own sysfs (no physfn link).
func TestVirtualFunctionInVM(t *testing.T) {
	text := "00:00.0 Host bridge [0600]: Intel Corporation 82G33/G31/P35/P31 Express DRAM Controller [8086:29c0]\n" +
		"00:05.0 Infiniband controller [0207]: Mellanox Technologies MT28908 Family [ConnectX-6 Virtual Function] [15b3:101c]\n" +
		"00:06.0 3D controller [0302]: NVIDIA Corporation GA100 [A100 SXM4 80GB] [10de:20b2] (rev a1)\n"
	g, err := Parse("vm", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if nics := g.OfKind(topology.KindNIC); len(nics) != 1 || nics[0].PhysFn() != "" {
		t.Errorf("NICs %v, want the virtual function as the VM's NIC", nics)
	}
}

func TestVFName(t *testing.T) {
	for name, want := range map[string]bool{
		"Mellanox Technologies ConnectX Family mlx5Gen Virtual Function":       true,
		"Intel Corporation Ethernet Adaptive Virtual Function":                 true,
		"Mellanox Technologies MT416842 BlueField multicore SoC family VF":     true,
		"Chelsio Communications T420-CR Unified Wire Ethernet Controller [VF]": true,
		"Emulex Corporation OneConnect NIC (Skyhawk-VF)":                       true,
		"Mellanox Technologies MT2910 Family [ConnectX-7]":                     false,
		"Red Hat, Inc. Virtio network device":                                  false,
		"Intel Corporation VFIO test device":                                   false,
	} {
		if got := vfName(name); got != want {
			t.Errorf("vfName(%q) = %v, want %v", name, got, want)
		}
	}
}
