// Package peers runs the real peer tools, lspci (pciutils) and lstopo
// (hwloc), on a captured or generated sysfs tree and parses what they see,
// so tests can hold gdtopo's own reading of a tree against theirs.
//
// Both tools are pointed at a tree root DIR that holds DIR/sys (and, for
// lstopo, DIR/proc):
//
//	lspci -A linux-sysfs -O sysfs.path=DIR/sys/bus/pci -D -PP -nn
//	lstopo-no-graphics --input DIR --whole-io --of xml -
//
// lspci takes parents from the sysfs directory nesting; hwloc rebuilds the
// hierarchy from the bridges' bus numbers in config space and places each
// host bridge by the local_cpus of its first device. Agreement between the
// two is therefore a check that a tree is self-consistent.
package peers

import (
	"bytes"
	"errors"
	"fmt"
	"os/exec"
	"strings"
)

// ErrToolMissing is wrapped by the errors of Lspci and Lstopo when the tool
// is not installed (exec.ErrNotFound), so callers and tests can skip.
var ErrToolMissing = errors.New("peer tool not installed")

// Tool names, as looked up in PATH.
const (
	LspciTool  = "lspci"
	LstopoTool = "lstopo-no-graphics"
)

// Device is one PCI function as a peer tool reports it.
type Device struct {
	BDF      string // "0000:03:00.0", lower case
	Parent   string // BDF of the bridge above; "" under a host bridge
	VendorID uint16
	DeviceID uint16
	Class    uint16 // base<<8 | sub-class
}

// run executes name with args and returns its stdout. A missing binary
// gives an error wrapping ErrToolMissing; a failing one names the tool,
// the tree and stderr.
func run(dir, name string, args ...string) ([]byte, error) {
	path, err := exec.LookPath(name)
	if err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return nil, fmt.Errorf("%s on %s: %w: %w", name, dir, ErrToolMissing, err)
		}
		return nil, fmt.Errorf("%s on %s: %w", name, dir, err)
	}
	cmd := exec.Command(path, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg != "" {
			return nil, fmt.Errorf("%s on %s: %w: %s", name, dir, err, msg)
		}
		return nil, fmt.Errorf("%s on %s: %w", name, dir, err)
	}
	return stdout.Bytes(), nil
}
