package topology

import "testing"

// TestUnidentified checks which functions Finish marks as ones the source
// does not identify: endpoints with neither IDs nor a name of the source's,
// whose class is a display controller's or not given.
func TestUnidentified(t *testing.T) {
	b := newBuilder(NUMANode{ID: 0, Socket: 0})
	hb := b.hostBridge("pci0000:00", 0)
	vga := b.dev("0000:00:01.0", hb, KindOther, RoleNone)
	vga.Class = 0x030000 // no IDs: a GPU or a BMC's graphics
	display := b.dev("0000:00:02.0", hb, KindOther, RoleNone)
	display.Class = 0x038000
	classless := b.dev("0000:00:03.0", hb, KindOther, RoleNone) // neither class nor IDs (an NCCL file's <pci busid=>)
	aspeed := b.dev("0000:00:04.0", hb, KindOther, RoleNone)
	aspeed.Class, aspeed.VendorID, aspeed.DeviceID = 0x030000, 0x1a03, 0x2000 // the vendor tells: not a GPU
	named := b.dev("0000:00:05.0", hb, KindOther, RoleNone)
	named.Name = "Intel Corporation Sky Lake-E CBDMA Registers" // lspci -tv: a name, no IDs
	gpu := b.dev("0000:00:06.0", hb, KindAccelerator, RoleNone)
	gpu.Class = 0x030200 // a 3D controller the reader took for an accelerator
	bridge := b.dev("0000:00:07.0", hb, KindOther, RoleNone)
	b.dev("0000:01:00.0", bridge, KindNIC, RoleNone) // a parent: a bridge by structure, whatever its class
	nvme := b.dev("0000:00:08.0", hb, KindNVMe, RoleNone)
	nvme.Class = 0x010802
	for _, d := range b.g.Devices {
		d.Children = nil // Finish fills them
	}
	b.g.Finish()

	want := map[*Device]bool{vga: true, display: true, classless: true}
	for _, d := range b.g.Devices {
		if d.Unidentified != want[d] {
			t.Errorf("%s (class %06x, %04x:%04x, %q): Unidentified %v, want %v", d.BDF(), d.Class, d.VendorID, d.DeviceID, d.Name, d.Unidentified, want[d])
		}
	}
	if disp, none := b.g.Unidentified(); disp != 2 || none != 1 {
		t.Errorf("Unidentified() = %d display, %d classless; want 2 and 1", disp, none)
	}
}
