package sysfs

import (
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/gdtopo/gdtopo/topology"
)

// openLog is a tree that records every name opened in it.
type openLog struct {
	fstest.MapFS
	opened map[string]bool
}

func (o openLog) Open(name string) (fs.File, error) {
	o.opened[name] = true
	return o.MapFS.Open(name)
}

func (o openLog) ReadLink(name string) (string, error)   { return o.MapFS.ReadLink(name) }
func (o openLog) Lstat(name string) (fs.FileInfo, error) { return o.MapFS.Lstat(name) }

// TestIDsFromModalias checks that a function whose config cannot be read
// takes its IDs, subsystem IDs and class from modalias alone, and that the
// files are read, as before, when modalias does not parse.
func TestIDsFromModalias(t *testing.T) {
	nic := "sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:01.0/0000:04:00.0"
	tests := []struct {
		name, modalias string
		wantFiles      bool   // vendor, device, class opened
		wantSub        uint16 // subsystem device
		wantWarning    string
	}{
		{"modalias", "pci:v000015B3d00001021sv000015B3sd00000023bc02sc07i00\n", false, 0x0023, ""},
		{"bad modalias", "pci:v000015B3d00001021\n", true, 0, "0000:04:00.0/modalias: invalid value"},
		{"no modalias", "", true, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tree := smallTree()
			if tt.modalias != "" {
				tree.file(nic+"/modalias", tt.modalias)
			}
			log := openLog{fstest.MapFS(tree), map[string]bool{}}
			g, err := Read(log)
			if err != nil {
				t.Fatal(err)
			}
			d := g.Device(topology.BDF{Bus: 4})
			if d == nil {
				t.Fatal("no NIC")
			}
			if d.VendorID != 0x15b3 || d.DeviceID != 0x1021 || d.Class != 0x020700 {
				t.Errorf("IDs %04x:%04x class %06x; want 15b3:1021 class 020700", d.VendorID, d.DeviceID, d.Class)
			}
			if d.SubsystemKnown != (tt.wantSub != 0) || d.SubDeviceID != tt.wantSub {
				t.Errorf("subsystem known %v, device %04x; want %04x", d.SubsystemKnown, d.SubDeviceID, tt.wantSub)
			}
			for _, f := range []string{"vendor", "device", "class"} {
				if got := log.opened[nic+"/"+f]; got != tt.wantFiles {
					t.Errorf("%s opened: %v; want %v", f, got, tt.wantFiles)
				}
			}
			var warned string
			for _, w := range g.Warnings {
				warned += w.String() + "\n"
			}
			if tt.wantWarning != "" && !strings.Contains(warned, tt.wantWarning) || tt.wantWarning == "" && strings.Contains(warned, "modalias") {
				t.Errorf("warnings %q; want %q", warned, tt.wantWarning)
			}
		})
	}
}
