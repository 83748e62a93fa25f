package names

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/jaypipes/pcidb"
)

// systemPCIIDs returns the machine's pci.ids, skipping outside CI when it
// has none (CI installs pciutils, which brings it).
func systemPCIIDs(t testing.TB) string {
	t.Helper()
	for _, p := range searchPaths() {
		if _, err := os.Stat(p); err == nil && !strings.HasSuffix(p, ".gz") {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("no pci.ids in CI: is pciutils installed?")
	}
	t.Skip("no pci.ids on this machine (outside CI this test is skipped)")
	return ""
}

// TestPCIIDsMatchPcidb reads the machine's pci.ids with this package and
// with pcidb and requires the same name for every vendor and device.
func TestPCIIDsMatchPcidb(t *testing.T) {
	path := systemPCIIDs(t)
	db, err := pcidb.New(pcidb.WithPath(path))
	if err != nil {
		t.Fatal(err)
	}
	ids, err := loadPCIIDs(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(db.Vendors) < 1000 || len(ids.vendors) != len(db.Vendors) {
		t.Fatalf("%d vendors, pcidb %d", len(ids.vendors), len(db.Vendors))
	}
	devices := 0
	for key, v := range db.Vendors {
		id, err := strconv.ParseUint(key, 16, 16)
		if err != nil {
			t.Fatalf("pcidb vendor %q: %v", key, err)
		}
		if name, _ := ids.vendor(uint16(id)); name != v.Name {
			t.Errorf("vendor %s: %q, pcidb %q", key, name, v.Name)
		}
		seen := map[string]bool{}
		for _, p := range v.Products {
			if seen[p.ID] {
				continue // pcidb's lookup, as gdtopo's, takes the first
			}
			seen[p.ID] = true
			devices++
			d, err := strconv.ParseUint(p.ID, 16, 16)
			if err != nil {
				t.Fatalf("pcidb device %s:%q: %v", key, p.ID, err)
			}
			if name, _ := ids.device(uint16(id), uint16(d)); name != p.Name {
				t.Errorf("device %s:%s: %q, pcidb %q", key, p.ID, name, p.Name)
			}
		}
	}
	t.Logf("%s: %d vendors, %d devices agree", path, len(ids.vendors), devices)
}

// TestPCIIDsDamaged reads pci.ids files with damaged, odd and hostile
// lines: what parses is named, the rest is skipped, nothing fails.
func TestPCIIDsDamaged(t *testing.T) {
	data := strings.Join([]string{
		"# comment",
		"abc",           // too short (pcidb panics here)
		"12",            // too short
		"zzzz  Not hex", // not an ID
		"10de  NVIDIA Corporation\r",
		"\t2330  GH100 [H100 SXM5 80GB]\r",
		"\t\t10de 16c1  H100 SXM5 80GB", // a subsystem line
		"# comment inside a block",
		"\t2331  GH100 [H100 PCIe]",
		"\t23",   // too short
		"\t",     // just a tab
		"\t2332", // no name
		"",
		"8086 Intel Corporation", // one blank
		"\t1234\tTabbed device",
		"C 02  Network controller", // the class list ends the vendors
		"\t00  Ethernet controller",
		"15b3  Mellanox Technologies", // no newline at the end
	}, "\n")
	ids := parsePCIIDs([]byte(data))
	tests := []struct {
		vendor, device uint16
		want           string
	}{
		{0x10de, 0x2330, "GH100 [H100 SXM5 80GB]"},
		{0x10de, 0x2331, "GH100 [H100 PCIe]"},
		{0x10de, 0x16c1, ""}, // a subsystem, not a device
		{0x10de, 0x2332, ""},
		{0x8086, 0x1234, "Tabbed device"},
		{0x8086, 0x0000, ""},
		{0x15b3, 0x0000, ""},
	}
	for _, tt := range tests {
		if got, _ := ids.device(tt.vendor, tt.device); got != tt.want {
			t.Errorf("device(%04x, %04x) = %q, want %q", tt.vendor, tt.device, got, tt.want)
		}
	}
	for v, want := range map[uint16]string{0x10de: "NVIDIA Corporation", 0x8086: "Intel Corporation", 0x15b3: "Mellanox Technologies"} {
		if got, _ := ids.vendor(v); got != want {
			t.Errorf("vendor(%04x) = %q, want %q", v, got, want)
		}
	}
	if len(ids.vendors) != 3 {
		t.Errorf("%d vendors, want 3", len(ids.vendors))
	}
}

// TestLastVendor names a device of the file's last vendor when no class
// list follows: pcidb v1.1.1 drops that vendor's devices.
func TestLastVendor(t *testing.T) {
	ids := parsePCIIDs([]byte("10de  NVIDIA Corporation\n\t2330  GH100\n8086  Intel Corporation\n\t2030  Sky Lake-E PCI Express Root Port A\n"))
	if got, _ := ids.device(0x8086, 0x2030); got != "Sky Lake-E PCI Express Root Port A" {
		t.Errorf("last vendor's device: %q", got)
	}
}

// TestLoadPCIIDs reads a gzip'd pci.ids, and refuses a missing or
// oversized one with an error naming it.
func TestLoadPCIIDs(t *testing.T) {
	dir := t.TempDir()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	fmt.Fprint(zw, "1234  Example Vendor\n\t0001  Example Device\n")
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	gz := filepath.Join(dir, "pci.ids.gz")
	if err := os.WriteFile(gz, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := New(gz).Device(0x1234, 0x0001); got != "Example Vendor Example Device" {
		t.Errorf("from %s: %q", gz, got)
	}

	missing := filepath.Join(dir, "missing.ids")
	r := New(missing)
	if got := r.Device(0x1234, 0x0001); got != "[1234:0001]" {
		t.Errorf("with no pci.ids: %q", got)
	}
	if err := r.Err(); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("missing pci.ids: error %v, want one naming %s", err, missing)
	}

	huge := filepath.Join(dir, "huge.ids")
	f, err := os.Create(huge)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(maxPCIIDsBytes + 1); err != nil { // sparse: no disk used
		t.Fatal(err)
	}
	f.Close()
	if _, err := loadPCIIDs(huge); err == nil || !strings.Contains(err.Error(), "not a pci.ids file") {
		t.Errorf("oversized pci.ids: error %v", err)
	}
}

// FuzzPCIIDs parses arbitrary files and looks names up in them: no panic,
// and every indexed vendor has a name.
func FuzzPCIIDs(f *testing.F) {
	f.Add([]byte("10de  NVIDIA Corporation\n\t2330  GH100\n\t\t10de 16c1  H100\nC 02  Network\n"), uint16(0x10de), uint16(0x2330))
	f.Add([]byte("abc\n\t\n\t23\n"), uint16(0), uint16(0))
	f.Fuzz(func(t *testing.T, data []byte, vendor, device uint16) {
		ids := parsePCIIDs(data)
		for v := range ids.vendors {
			if name, ok := ids.vendor(v); !ok || name == "" {
				t.Fatalf("vendor %04x indexed without a name", v)
			}
		}
		ids.vendor(vendor)
		ids.device(vendor, device)
	})
}
