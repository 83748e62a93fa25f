package advisor

import (
	"regexp"
	"strings"
	"testing"
)

// sysfsPath matches a path in a sysfs tree or procfs: what a finding on a
// text dump must not cite, since the dump holds no such file.
var sysfsPath = regexp.MustCompile(`(^|[\s(;"])(sys|proc)/`)

// fromSysfsOnly are the findings that rest on state only a sysfs tree
// holds (IOMMU group types, kernel modules, CPU flags): no text reader
// fills it, and on a real dump their evidence says so
// (internal/cli TestTextEvidence runs the corpus's dumps).
var fromSysfsOnly = map[string]bool{"iommu-translation": true, "peer-memory-missing": true, "peer-memory-unknown": true, "virtual-topology": true}

// fromDevice are findings that rest on what a device's line in the dump
// said: their evidence is that line ("dump.txt line 11 (BDF): ..."). The
// others rest on labels or the rail plan, derived, and say so.
var fromDevice = map[string]bool{"cross-socket": true, "socket-direct": true, "acs-grace": true, "acs-redirect": true,
	"link-width-degraded": true, "link-speed-degraded": true}

// TestTextDumpEvidence: every fault case, read as if from an lspci dump
// (each function seen at a line of it), raises findings whose evidence is
// the dump's: the line a device was read at, never a sysfs or procfs file.
func TestTextDumpEvidence(t *testing.T) {
	cited := map[string]bool{}
	for _, c := range faultCases {
		t.Run(c.name, func(t *testing.T) {
			g := c.graph()
			g.TextForm = "lspci"
			for i, d := range g.Devices {
				d.SetSeen("dump.txt line " + strings.Repeat("1", 1+i%3))
			}
			r := analyze(t, g, Options{})
			for _, f := range r.Findings {
				if fromSysfsOnly[f.Code] {
					continue
				}
				cited[f.Code] = true
				if sysfsPath.MatchString(f.Evidence) || fromDevice[f.Code] && !strings.HasPrefix(f.Evidence, "dump.txt line 1") {
					t.Errorf("%s on a text dump cites %q, not the dump", f.Code, f.Evidence)
				}
			}
		})
	}
	for code := range fromDevice {
		if !cited[code] {
			t.Errorf("no fault case raised %s", code)
		}
	}
}
