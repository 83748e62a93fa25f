// Package names turns PCI vendor and device IDs into names: first from a
// small built-in table of the accelerators, NICs and switches gdtopo cares
// about, then from the machine's pci.ids through pcidb, loaded at most once
// and only when a name outside the table is asked for. The network is never
// used.
package names

import (
	"fmt"
	"sync"

	"github.com/jaypipes/pcidb"
)

// Resolver looks names up. The zero value is not usable; call New.
type Resolver struct {
	path string // pci.ids path; "" lets pcidb search its usual places

	once sync.Once
	db   *pcidb.PCIDB
	err  error
}

// New returns a resolver reading pci.ids from path, or from pcidb's usual
// search paths (/usr/share/hwdata, /usr/share/misc, ~/.cache) when path is "".
func New(path string) *Resolver { return &Resolver{path: path} }

// load parses pci.ids once; later calls return the same result.
func (r *Resolver) load() (*pcidb.PCIDB, error) {
	r.once.Do(func() {
		off := false
		opts := []*pcidb.WithOption{{EnableNetworkFetch: &off}}
		if r.path != "" {
			opts = append(opts, pcidb.WithPath(r.path))
		}
		r.db, r.err = pcidb.New(opts...)
		if r.err != nil && r.path != "" {
			r.err = fmt.Errorf("pci.ids %s: %w", r.path, r.err)
		}
	})
	return r.db, r.err
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
	if db, err := r.load(); err == nil {
		v, ok := db.Vendors[fmt.Sprintf("%04x", vendor)]
		if ok {
			for _, p := range v.Products {
				if p.ID == fmt.Sprintf("%04x", device) {
					return v.Name + " " + p.Name
				}
			}
			return fmt.Sprintf("%s device [%04x]", v.Name, device)
		}
	}
	if v, ok := builtinVendors[vendor]; ok {
		return fmt.Sprintf("%s device [%04x]", v, device)
	}
	return fmt.Sprintf("[%04x:%04x]", vendor, device)
}
