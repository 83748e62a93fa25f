package names

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"slices"
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
	if n := len(referenceVendors(ids.data)); len(db.Vendors) < 1000 || n != len(db.Vendors) {
		t.Fatalf("%d vendors, pcidb %d", n, len(db.Vendors))
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
	t.Logf("%s: %d vendors, %d devices agree", path, len(db.Vendors), devices)
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
	ids := &pciIDs{data: []byte(data)}
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
	for _, v := range []uint16{0x0abc, 0x0012, 0x0c02} {
		if got, ok := ids.vendor(v); ok {
			t.Errorf("vendor(%04x) = %q from a line that is not a vendor's", v, got)
		}
	}
}

// TestLastVendor names a device of the file's last vendor when no class
// list follows: pcidb v1.1.1 drops that vendor's devices.
func TestLastVendor(t *testing.T) {
	ids := &pciIDs{data: []byte("10de  NVIDIA Corporation\n\t2330  GH100\n8086  Intel Corporation\n\t2030  Sky Lake-E PCI Express Root Port A\n")}
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
	if err := f.Truncate(MaxPCIIDsBytes + 1); err != nil { // sparse: no disk used
		t.Fatal(err)
	}
	f.Close()
	if _, err := loadPCIIDs(huge); err == nil || !strings.Contains(err.Error(), "not a pci.ids file") {
		t.Errorf("oversized pci.ids: error %v", err)
	}

	// A small gzip'd file that expands past the bound is refused once the
	// bound is read, not read to its end.
	buf.Reset()
	zw = gzip.NewWriter(&buf)
	if _, err := zw.Write(make([]byte, MaxPCIIDsBytes+1)); err != nil || zw.Close() != nil {
		t.Fatal("gzip failed")
	}
	bomb := filepath.Join(dir, "bomb.ids.gz")
	if err := os.WriteFile(bomb, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := loadPCIIDs(bomb); err == nil || !strings.Contains(err.Error(), bomb+": over 16 MiB: not a pci.ids file") {
		t.Errorf("pci.ids.gz expanding past the bound: error %v", err)
	}
}

// referenceVendors indexes every vendor line of a pci.ids file by a pass
// over all its lines (as gdtopo did before it bisected): the offset of each
// vendor's lines, in file order.
func referenceVendors(data []byte) map[uint16][]int {
	vendors := map[uint16][]int{}
	for off := 0; off < len(data); {
		line, next := lineAt(data, off)
		if len(line) > 0 && line[0] != '\t' && line[0] != '#' {
			if id, _, ok := entry(line); ok {
				vendors[id] = append(vendors[id], off)
			}
		}
		off = next
	}
	return vendors
}

// referenceDevice scans the block of the vendor whose line starts at off
// for device d, line by line up to the first line that is not a device,
// subsystem, comment or blank line (as gdtopo did before it indexed a
// vendor's devices), and returns the first name it finds.
func referenceDevice(data []byte, off int, d uint16) string {
	_, off = lineAt(data, off)
	for off < len(data) {
		var line []byte
		line, off = lineAt(data, off)
		switch {
		case len(line) == 0 || line[0] == '#' || len(line) > 1 && line[1] == '\t' && line[0] == '\t':
		case line[0] == '\t':
			if id, _, ok := entry(line[1:]); ok && id == d {
				return string(bytes.TrimSpace(line[5:]))
			}
		default:
			return ""
		}
	}
	return ""
}

// inOrder reports whether a file's vendor lines are in strictly ascending
// order of ID, as pci.ids keeps them.
func inOrder(data []byte) bool {
	prev := -1
	for off := 0; off < len(data); {
		line, next := lineAt(data, off)
		if len(line) > 0 && line[0] != '\t' && line[0] != '#' {
			if id, _, ok := entry(line); ok {
				if int(id) <= prev {
					return false
				}
				prev = int(id)
			}
		}
		off = next
	}
	return true
}

// FuzzPCIIDs looks names up in arbitrary files: no panic; a vendor is found
// exactly when some line lists it, at one of those lines; in a file in
// order, at the one line a full scan finds.
func FuzzPCIIDs(f *testing.F) {
	f.Add([]byte("10de  NVIDIA Corporation\n\t2330  GH100\n\t\t10de 16c1  H100\nC 02  Network\n"), uint16(0x10de), uint16(0x2330))
	f.Add([]byte("abc\n\t\n\t23\n"), uint16(0), uint16(0))
	f.Add([]byte("1000  A\n\t0001  a\n8086  B\n\t0002  b\n\n\n1234  C\n\t0003  c\n10de  D\n"), uint16(0x8086), uint16(0x0002))
	f.Add([]byte("8086  B\n\t0009  z\n\t0002  \n# c\n\t0002  b\n\t\t0002 0003  s\n\t0001  a\nC 02  N\n\t0002  x\n"), uint16(0x8086), uint16(0x0002))
	f.Fuzz(func(t *testing.T, data []byte, vendor, device uint16) {
		ids := &pciIDs{data: data}
		ref := referenceVendors(data)
		off, ok := ids.vendorLine(vendor)
		if ok != (len(ref[vendor]) > 0) {
			t.Fatalf("vendor %04x found %v, lines listing it %v", vendor, ok, ref[vendor])
		}
		if ok && !slices.Contains(ref[vendor], off) {
			t.Fatalf("vendor %04x at %d, lines listing it %v", vendor, off, ref[vendor])
		}
		if ok && inOrder(data) && off != ref[vendor][0] {
			t.Fatalf("vendor %04x at %d in a file in order, want %d", vendor, off, ref[vendor][0])
		}
		if name, ok := ids.vendor(vendor); ok && name == "" {
			t.Fatalf("vendor %04x found without a name", vendor)
		}
		if ok && inOrder(data) {
			want := referenceDevice(data, off, device)
			if got, _ := ids.device(vendor, device); got != want {
				t.Fatalf("device %04x:%04x = %q, a scan of the vendor's block finds %q", vendor, device, got, want)
			}
		}
		ids.device(vendor, device)
		// A second vendor on the same file: bisection reuses the first's probes.
		off, ok = ids.vendorLine(device)
		if ok != (len(ref[device]) > 0) || ok && !slices.Contains(ref[device], off) {
			t.Fatalf("second vendor %04x: at %d (found %v), lines listing it %v", device, off, ok, ref[device])
		}
		if ok && inOrder(data) && off != ref[device][0] {
			t.Fatalf("second vendor %04x at %d in a file in order, want %d", device, off, ref[device][0])
		}
	})
}

// TestPCIIDsCutShort cuts pci.ids short after it is loaded: it was read
// whole, so the names still come from what was read.
func TestPCIIDsCutShort(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pci.ids")
	data := "1234  Example Vendor\n" + strings.Repeat("\t0001  Example Device\n", 1000) + "\t0002  Last Device\n"
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	r := New(path)
	if err := r.Load(); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	if got := r.Device(0x1234, 0x0002); got != "Example Vendor Last Device" {
		t.Errorf("from a pci.ids cut short after it was loaded: %q", got)
	}
}

// BenchmarkPCIIDs opens the machine's pci.ids and names the functions of
// the hgx-h100 and dgx-a100 fixtures that the built-in table does not name,
// as gdtopo tree does once per run.
func BenchmarkPCIIDs(b *testing.B) {
	path := systemPCIIDs(b)
	ids := [][2]uint16{
		{0x8086, 0x09a2}, {0x8086, 0x352a}, {0x8086, 0x352a}, {0x8086, 0x09a2}, {0x144d, 0xa824},
		{0x1022, 0x1480}, {0x1022, 0x1481}, {0x1022, 0x1482}, {0x1022, 0x1483}, {0x1022, 0x1480},
	}
	b.ReportAllocs()
	for b.Loop() {
		r := New(path)
		for _, id := range ids {
			r.Device(id[0], id[1])
		}
	}
}
