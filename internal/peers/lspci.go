package peers

import (
	"bufio"
	"bytes"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// LspciArgs are the arguments Lspci passes for the tree under dir.
func LspciArgs(dir string) []string {
	return []string{"-A", "linux-sysfs", "-O", "sysfs.path=" + filepath.Join(dir, "sys", "bus", "pci"), "-D", "-PP", "-nn"}
}

// Lspci runs `lspci -A linux-sysfs -O sysfs.path=DIR/sys/bus/pci -D -PP -nn`
// on the tree rooted at dir and returns every function it lists, by BDF.
//
// With -PP, lspci 3.9 prefixes each function with the path of bridges above
// it, taken from its bus tree (the sysfs directory nesting when available):
//
//	0000:17:00.0/18:00.0/19:04.0/1a:00.0 Infiniband controller [0207]: Mellanox Technologies MT27700 Family [ConnectX-4] [15b3:1013]
//
// The last path element is the function and the one before it its parent.
func Lspci(dir string) (map[string]Device, error) {
	out, err := run(dir, LspciTool, LspciArgs(dir)...)
	if err != nil {
		return nil, err
	}
	devs, err := ParseLspci(out)
	if err != nil {
		return nil, fmt.Errorf("%s on %s: %w", LspciTool, dir, err)
	}
	return devs, nil
}

var (
	// "<path> <class name> [cccc]: <rest>"
	lspciLine = regexp.MustCompile(`^(\S+) (.*?) \[([0-9a-fA-F]{4})\]: (.*)$`)
	lspciIDs  = regexp.MustCompile(`\[([0-9a-fA-F]{4}):([0-9a-fA-F]{4})\]`)
)

// ParseLspci parses the output of `lspci -D -PP -nn`.
func ParseLspci(out []byte) (map[string]Device, error) {
	devs := map[string]Device{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if strings.TrimSpace(line) == "" {
			continue
		}
		m := lspciLine.FindStringSubmatch(line)
		if m == nil {
			return nil, fmt.Errorf("line %d: unexpected format: %q", n, line)
		}
		bdf, parent, err := splitSlotPath(m[1])
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		class, _ := strconv.ParseUint(m[3], 16, 16)
		ids := lspciIDs.FindAllStringSubmatch(m[4], -1)
		if len(ids) == 0 {
			return nil, fmt.Errorf("line %d: no [vendor:device] in %q", n, line)
		}
		last := ids[len(ids)-1]
		ven, _ := strconv.ParseUint(last[1], 16, 16)
		dev, _ := strconv.ParseUint(last[2], 16, 16)
		if _, dup := devs[bdf]; dup {
			return nil, fmt.Errorf("line %d: %s listed twice", n, bdf)
		}
		devs[bdf] = Device{BDF: bdf, Parent: parent, VendorID: uint16(ven), DeviceID: uint16(dev), Class: uint16(class)}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return devs, nil
}

// splitSlotPath turns "0000:17:00.0/18:00.0/1a:00.0" into the full BDF of the
// last element and of the one before it.
func splitSlotPath(p string) (bdf, parent string, err error) {
	parts := strings.Split(strings.ToLower(p), "/")
	first := parts[0]
	if strings.Count(first, ":") != 2 {
		return "", "", fmt.Errorf("slot path %q does not start with a domain (was -D given?)", p)
	}
	domain := first[:strings.Index(first, ":")]
	full := func(s string) (string, error) {
		if strings.Count(s, ":") == 2 {
			return s, nil
		}
		if strings.Count(s, ":") != 1 {
			return "", fmt.Errorf("bad slot %q in path %q", s, p)
		}
		return domain + ":" + s, nil
	}
	if bdf, err = full(parts[len(parts)-1]); err != nil {
		return "", "", err
	}
	if len(parts) > 1 {
		if parent, err = full(parts[len(parts)-2]); err != nil {
			return "", "", err
		}
	}
	return bdf, parent, nil
}
