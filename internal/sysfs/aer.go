package sysfs

import (
	"strconv"
	"strings"

	"github.com/gdtopo/gdtopo/topology"
)

// readAER reads the AER counters of the accelerators, the NICs and the
// bridges above them: errors on their links are counted at either end
// (Documentation/ABI/testing/sysfs-bus-pci-devices-aer). A file that is
// absent or unreadable leaves its class unknown; none read leaves AER nil.
func (r *reader) readAER(dirs map[topology.BDF]string) {
	done := map[*topology.Device]bool{}
	for _, d := range r.g.Devices {
		if d.Kind != topology.KindAccelerator && d.Kind != topology.KindNIC {
			continue
		}
		for x := d; x != nil && !done[x]; x = x.Parent {
			done[x] = true
			dir := dirs[x.Addr]
			if dir == "" {
				continue
			}
			var c topology.AERCounts
			for i, cl := range [3]*topology.AERClass{&c.Correctable, &c.Nonfatal, &c.Fatal} {
				if s, err := r.text(dir + "/" + AERFiles[i]); err == nil { // dir is the clean folder readFunctions found
					*cl = parseAER(s)
				}
			}
			if c.Correctable.Read || c.Nonfatal.Read || c.Fatal.Read {
				x.AER = &c
			}
		}
	}
}

// parseAER reads one aer_dev_* file: a line "NAME COUNT" per error kind
// (names with spaces before Linux 5.x: "Receiver Error 2"; kinds without a
// name as "dev_cor_errs_bit[N] COUNT"), then "TOTAL_ERR_COR N",
// "TOTAL_ERR_NONFATAL N" or "TOTAL_ERR_FATAL N" (drivers/pci/pcie/aer.c,
// aer_stats_dev_attr). Without its TOTAL_ line the file is not read.
func parseAER(s string) topology.AERClass {
	var c topology.AERClass
	for line := range strings.SplitSeq(s, "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		n, err := strconv.ParseUint(f[len(f)-1], 10, 64)
		if err != nil {
			continue
		}
		name := strings.Join(f[:len(f)-1], " ")
		if strings.HasPrefix(name, "TOTAL_ERR_") {
			c.Read, c.Total = true, n
			continue
		}
		if n > 0 {
			c.Errors = append(c.Errors, topology.AERError{Name: name, Count: n})
		}
	}
	if !c.Read {
		return topology.AERClass{}
	}
	return c
}
