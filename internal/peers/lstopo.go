package peers

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"strconv"
	"strings"
)

// HwlocDevice is a PCI function as hwloc places it.
type HwlocDevice struct {
	Device
	// HostBridge is the bus range of hwloc's host bridge above the
	// function, as lstopo prints it: "0000:[17-1e]".
	HostBridge string
	// Locality is the normal (non-I/O) object the host bridge hangs under:
	// "Package:1", "Machine:0", or "Group" (hwloc 2 inserts a Group when
	// the local CPUs match no existing object, e.g. one NUMA node of an
	// AMD NPS4 or Intel SNC socket; such Groups have no OS index).
	Locality string
	// NUMANodes are the NUMA nodes in that object's nodeset: the memory
	// hwloc considers local to the device.
	NUMANodes []int
	// CPUs are the logical CPUs in that object's cpuset.
	CPUs []int
	// OSDevices are the names of the OS devices hwloc attached to the
	// function: network interfaces ("ibp4s0"), RDMA devices ("mlx5_0"),
	// block devices, ...
	OSDevices []string
	// LinkGBps is hwloc's pci_link_speed in GB/s (0 when unknown).
	LinkGBps float64
}

// LstopoArgs are the arguments Lstopo passes for the tree under dir.
func LstopoArgs(dir string) []string {
	return []string{"--input", dir, "--whole-io", "--of", "xml", "-"}
}

// Lstopo runs `lstopo-no-graphics --input DIR --whole-io --of xml -` on the
// tree rooted at dir (DIR/sys and DIR/proc) and returns every PCI function
// hwloc reports, by BDF.
func Lstopo(dir string) (map[string]HwlocDevice, error) {
	out, err := run(dir, LstopoTool, LstopoArgs(dir)...)
	if err != nil {
		return nil, err
	}
	devs, err := ParseHwlocXML(out)
	if err != nil {
		return nil, fmt.Errorf("%s on %s: %w", LstopoTool, dir, err)
	}
	return devs, nil
}

// xmlObject is an hwloc 2.x XML <object>; children nest.
type xmlObject struct {
	Type       string      `xml:"type,attr"`
	OSIndex    string      `xml:"os_index,attr"`
	CPUSet     string      `xml:"cpuset,attr"`
	NodeSet    string      `xml:"nodeset,attr"`
	Name       string      `xml:"name,attr"`
	BridgeType string      `xml:"bridge_type,attr"`
	BridgePCI  string      `xml:"bridge_pci,attr"`
	BusID      string      `xml:"pci_busid,attr"`
	PCIType    string      `xml:"pci_type,attr"`
	LinkSpeed  string      `xml:"pci_link_speed,attr"`
	Children   []xmlObject `xml:"object"`
}

type xmlTopology struct {
	XMLName xml.Name    `xml:"topology"`
	Objects []xmlObject `xml:"object"`
}

// ParseHwlocXML parses hwloc 2.x XML (as written by lstopo --of xml).
func ParseHwlocXML(out []byte) (map[string]HwlocDevice, error) {
	var top xmlTopology
	dec := xml.NewDecoder(bytes.NewReader(out))
	dec.Strict = false
	if err := dec.Decode(&top); err != nil {
		return nil, fmt.Errorf("parse hwloc XML: %w", err)
	}
	devs := map[string]HwlocDevice{}
	var walk func(o *xmlObject, normal *xmlObject, hostBridge, parent string) error
	walk = func(o *xmlObject, normal *xmlObject, hostBridge, parent string) error {
		switch o.Type {
		case "Bridge", "PCIDev":
			if o.Type == "Bridge" && o.BusID == "" {
				// A host bridge: bridge_type "0-1", no PCI address.
				hostBridge, parent = o.BridgePCI, ""
				break
			}
			d, err := hwlocDevice(o, normal, hostBridge, parent)
			if err != nil {
				return err
			}
			if _, dup := devs[d.BDF]; dup {
				return fmt.Errorf("hwloc lists %s twice", d.BDF)
			}
			devs[d.BDF] = d
			parent = d.BDF
		case "OSDev", "Misc", "NUMANode", "MemCache":
		default:
			normal = o
		}
		for i := range o.Children {
			if err := walk(&o.Children[i], normal, hostBridge, parent); err != nil {
				return err
			}
		}
		return nil
	}
	for i := range top.Objects {
		if err := walk(&top.Objects[i], &top.Objects[i], "", ""); err != nil {
			return nil, err
		}
	}
	return devs, nil
}

func hwlocDevice(o, normal *xmlObject, hostBridge, parent string) (HwlocDevice, error) {
	d := HwlocDevice{HostBridge: hostBridge}
	d.BDF = strings.ToLower(o.BusID)
	d.Parent = parent
	// pci_type="0302 [10de:2330] [10de:16c1] a1": class, [vendor:device],
	// [subvendor:subdevice], revision.
	f := strings.Fields(o.PCIType)
	if len(f) < 2 {
		return d, fmt.Errorf("%s: bad pci_type %q", o.BusID, o.PCIType)
	}
	class, err := strconv.ParseUint(f[0], 16, 16)
	if err != nil {
		return d, fmt.Errorf("%s: bad class in pci_type %q", o.BusID, o.PCIType)
	}
	ids := strings.Split(strings.Trim(f[1], "[]"), ":")
	if len(ids) != 2 {
		return d, fmt.Errorf("%s: bad IDs in pci_type %q", o.BusID, o.PCIType)
	}
	ven, err1 := strconv.ParseUint(ids[0], 16, 16)
	dev, err2 := strconv.ParseUint(ids[1], 16, 16)
	if err1 != nil || err2 != nil {
		return d, fmt.Errorf("%s: bad IDs in pci_type %q", o.BusID, o.PCIType)
	}
	d.Class, d.VendorID, d.DeviceID = uint16(class), uint16(ven), uint16(dev)
	d.LinkGBps, _ = strconv.ParseFloat(o.LinkSpeed, 64)
	if normal != nil {
		d.Locality = normal.Type
		if normal.OSIndex != "" {
			d.Locality += ":" + normal.OSIndex
		}
		if d.NUMANodes, err = ParseBitmap(normal.NodeSet); err != nil {
			return d, fmt.Errorf("%s: nodeset of %s: %w", o.BusID, normal.Type, err)
		}
		if d.CPUs, err = ParseBitmap(normal.CPUSet); err != nil {
			return d, fmt.Errorf("%s: cpuset of %s: %w", o.BusID, normal.Type, err)
		}
	}
	for _, c := range o.Children {
		if c.Type == "OSDev" && c.Name != "" {
			d.OSDevices = append(d.OSDevices, c.Name)
		}
	}
	return d, nil
}

// ParseBitmap parses an hwloc bitmap string ("0x00ff00ff",
// "0x00000001,0xffffffff", "" for empty) into the sorted set bits. An
// infinite bitmap ("0xf...f,...") is rejected.
func ParseBitmap(s string) ([]int, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "0x0" {
		return nil, nil
	}
	if strings.HasPrefix(s, "0xf...f") {
		return nil, fmt.Errorf("infinite bitmap %q", s)
	}
	words := strings.Split(s, ",")
	var out []int
	for i := range words {
		w := strings.TrimPrefix(strings.TrimSpace(words[len(words)-1-i]), "0x")
		v, err := strconv.ParseUint(w, 16, 32)
		if err != nil {
			return nil, fmt.Errorf("bad bitmap %q", s)
		}
		for b := 0; b < 32; b++ {
			if v&(1<<b) != 0 {
				out = append(out, i*32+b)
			}
		}
	}
	return out, nil
}
