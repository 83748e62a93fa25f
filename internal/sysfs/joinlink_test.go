package sysfs

import (
	"path"
	"testing"
)

func TestJoinLinkIsPathJoin(t *testing.T) {
	dirs := []string{"sys/bus/pci/devices", "sys/class/net", "a", ".", "", "a/..", "a/./b", "a//b", "/abs", "sys/x/"}
	targets := []string{"../../../devices/pci0000:00/0000:00:01.0", "../x", "../../../../../x", "../../..", "..", "../", "./x", "x/../y", "x//y", "x/", "../.", "../a/../../b", "x", ""}
	for _, d := range dirs {
		for _, tg := range targets {
			if got, want := joinLink(d, tg), path.Join(d, tg); got != want {
				t.Errorf("joinLink(%q, %q) = %q, path.Join gives %q", d, tg, got, want)
			}
		}
	}
}
