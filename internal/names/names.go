// Package names turns PCI vendor and device IDs into names: first from a
// small built-in table of the accelerators, NICs and switches gdtopo cares
// about, then from the machine's pci.ids, loaded at most once and only when
// a name outside the table is asked for. The network is never used.
//
// pci.ids is read here rather than through pcidb: pcidb links net/http for
// a download gdtopo never makes, parses the whole file into maps, and
// panics on a line shorter than it expects (gdtopo --pci-ids FILE with a
// damaged FILE). Tests check this reader against pcidb.
package names

import (
	"fmt"
	"sync"
)

// Resolver looks names up. The zero value is not usable; call New.
type Resolver struct {
	path string // pci.ids path; "" searches the usual places

	once sync.Once
	db   *pciIDs
	err  error
}

// New returns a resolver reading pci.ids from path (gzip'd when its name
// ends in .gz), or from the usual places (~/.cache, /usr/share/hwdata,
// /usr/share/misc, as pcidb searches) when path is "".
func New(path string) *Resolver { return &Resolver{path: path} }

// load reads pci.ids once; later calls return the same result.
func (r *Resolver) load() (*pciIDs, error) {
	r.once.Do(func() {
		r.db, r.err = loadPCIIDs(r.path)
		if r.err != nil {
			r.err = fmt.Errorf("pci.ids %w", r.err)
		}
	})
	return r.db, r.err
}

// Load reads pci.ids now, if it was not read yet, and reports why it could
// not be: for a --pci-ids the user gave, whose failure must not pass
// unnoticed because no name happened to be looked up.
func (r *Resolver) Load() error {
	_, err := r.load()
	return err
}

// Err reports why pci.ids could not be loaded, if it was needed and failed.
func (r *Resolver) Err() error {
	if r.db == nil && r.err != nil {
		return r.err
	}
	return nil
}

// Builtin returns the built-in model name for a vendor and device, without
// touching pci.ids.
func Builtin(vendor, device uint16) (string, bool) {
	n, ok := builtinDevices[uint32(vendor)<<16|uint32(device)]
	return n, ok
}

// Device returns "Vendor Model" for a function: the built-in name if there is
// one, else pci.ids, else the IDs in lspci's "[10de:2330]" form.
func (r *Resolver) Device(vendor, device uint16) string {
	if n, ok := Builtin(vendor, device); ok {
		return n
	}
	unknown := func(v string) string {
		if device == 0 { // no device uses 0000: the source did not give it (an NCCL topology without device=)
			return v + " device (ID not given)"
		}
		return fmt.Sprintf("%s device [%04x]", v, device)
	}
	if v, d := r.lookup(vendor, device); v != "" {
		if d != "" {
			return v + " " + d
		}
		return unknown(v)
	}
	if v, ok := builtinVendors[vendor]; ok {
		return unknown(v)
	}
	return fmt.Sprintf("[%04x:%04x]", vendor, device)
}

// lookup returns a vendor's name and its device's from pci.ids, "" for
// either that it does not list or when there is no pci.ids.
func (r *Resolver) lookup(vendor, device uint16) (v, d string) {
	db, err := r.load()
	if err != nil {
		return "", ""
	}
	if v, _ = db.vendor(vendor); v != "" {
		d, _ = db.device(vendor, device)
	}
	return v, d
}

// classNames are pci.ids's names of the classes gdtopo meets, keyed by
// base<<8 | sub-class, as lspci prints them.
var classNames = map[uint32]string{
	0x0100: "SCSI storage controller", 0x0104: "RAID bus controller", 0x0106: "SATA controller",
	0x0107: "Serial Attached SCSI controller", 0x0108: "Non-Volatile memory controller", 0x0180: "Mass storage controller",
	0x0200: "Ethernet controller", 0x0207: "Infiniband controller", 0x0208: "Fabric controller", 0x0280: "Network controller",
	0x0300: "VGA compatible controller", 0x0302: "3D controller", 0x0380: "Display controller",
	0x0600: "Host bridge", 0x0604: "PCI bridge", 0x0680: "Bridge",
	0x0b40: "Co-processor", 0x1200: "Processing accelerators",
}

// Unidentified describes a function whose vendor and device IDs the source
// did not give, from what it did: its class ("3D controller, IDs not
// given"), else "IDs not given". A PCIe switch's upstream port reads
// "PCIe switch, IDs not given".
func Unidentified(class uint32, switchPort bool) string {
	const missing = "IDs not given"
	if switchPort {
		return "PCIe switch, " + missing
	}
	if n, ok := classNames[class>>8]; ok && class != 0 {
		return n + ", " + missing
	}
	return missing
}
