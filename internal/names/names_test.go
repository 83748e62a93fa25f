package names

import (
	"os"
	"path/filepath"
	"testing"
)

func TestDevice(t *testing.T) {
	dir := t.TempDir()
	ids := filepath.Join(dir, "pci.ids")
	// pci.ids format: vendor lines, then tab-indented device lines.
	if err := os.WriteFile(ids, []byte("# test\n8086  Intel Corporation\n\t2030  Sky Lake-E PCI Express Root Port A\n1234  Example Vendor\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := New(ids)
	tests := []struct {
		vendor, device uint16
		want           string
	}{
		{0x10de, 0x2330, "NVIDIA H100 SXM5 80GB"},                                // built in
		{0x8086, 0x2030, "Intel Corporation Sky Lake-E PCI Express Root Port A"}, // pci.ids
		{0x1234, 0x0001, "Example Vendor device [0001]"},                         // vendor known only
		{0xabcd, 0x0001, "[abcd:0001]"},                                          // nothing known
	}
	for _, tt := range tests {
		if got := r.Device(tt.vendor, tt.device); got != tt.want {
			t.Errorf("Device(%04x, %04x) = %q, want %q", tt.vendor, tt.device, got, tt.want)
		}
	}
}

// TestBuiltinAvoidsPCIIDs checks that a built-in name never loads pci.ids:
// with a path that does not exist, no error is recorded until a name
// outside the table is asked for.
func TestBuiltinAvoidsPCIIDs(t *testing.T) {
	r := New(filepath.Join(t.TempDir(), "missing.ids"))
	if got := r.Device(0x15b3, 0x1021); got != "NVIDIA ConnectX-7" {
		t.Errorf("got %q", got)
	}
	if r.Err() != nil {
		t.Fatalf("pci.ids was loaded for a built-in name: %v", r.Err())
	}
	if got := r.Device(0x15b3, 0xffff); got != "Mellanox device [ffff]" {
		t.Errorf("got %q", got)
	}
	if r.Err() == nil {
		t.Error("a missing pci.ids gave no error once needed")
	}
}

func TestUnidentified(t *testing.T) {
	for _, tt := range []struct {
		class   uint32
		switch_ bool
		want    string
	}{
		{0x030200, false, "3D controller, IDs not given"},
		{0x020700, false, "Infiniband controller, IDs not given"},
		{0x060400, true, "PCIe switch, IDs not given"},
		{0, false, "IDs not given"},
		{0xff0000, false, "IDs not given"},
	} {
		if got := Unidentified(tt.class, tt.switch_); got != tt.want {
			t.Errorf("Unidentified(%06x, %v) = %q, want %q", tt.class, tt.switch_, got, tt.want)
		}
	}
}
