package source

import (
	"bytes"
	"io"
	"io/fs"
	"os"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// readAllLarge reads f to its end in reads of up to 64 KiB, as gdtopo's
// readers ask (io.ReadAll's first 512 bytes would cut a packet short).
func readAllLarge(t *testing.T, f io.Reader) string {
	t.Helper()
	var out []byte
	buf := make([]byte, 64<<10)
	for range 100 {
		n, err := f.Read(buf)
		out = append(out, buf[:n]...)
		if err == io.EOF {
			return string(out)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	t.Fatal("no end after 100 reads")
	return ""
}

// TestRawFileShortReads reads a file that returns fewer bytes than asked
// before its end, as /proc/cpuinfo does past a page of records: a socket
// of packets, one per read. A procfs file is read to a read of 0 bytes, a
// sysfs one to a read short of a page, a captured regular file to its
// first short read.
func TestRawFileShortReads(t *testing.T) {
	page, tail := strings.Repeat("a", pageSize), "processor\t: 1\n"
	for _, c := range []struct {
		name string
		want string
	}{
		{"proc/cpuinfo", page + tail + tail},
		{"sys/bus/pci/devices/0000:00:00.0/vpd", page + tail},
	} {
		fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{page, tail, tail} {
			if _, err := unix.Write(fds[1], []byte(p)); err != nil {
				t.Fatal(err)
			}
		}
		unix.Close(fds[1])
		f := &rawFile{fd: fds[0], name: c.name, full: "/" + c.name, ends: liveEnds(c.name)}
		if got := readAllLarge(t, f); got != c.want {
			t.Errorf("%s: read %d bytes, want %d", c.name, len(got), len(c.want))
		}
		f.Close()
	}
}

// TestLiveCPUInfoWhole reads the live /proc/cpuinfo, whose records come a
// page at a time, and finds every CPU that os.ReadFile finds.
func TestLiveCPUInfoWhole(t *testing.T) {
	want, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		t.Skip("no /proc/cpuinfo:", err)
	}
	got, err := fs.ReadFile(Live().Root, "proc/cpuinfo")
	if err != nil {
		t.Fatal(err)
	}
	w, g := bytes.Count(want, []byte("\nprocessor")), bytes.Count(got, []byte("\nprocessor"))
	if g != w {
		t.Errorf("read %d bytes with %d processors after the first; os.ReadFile %d bytes with %d", len(got), g, len(want), w)
	}
	t.Logf("%d bytes, %d processors", len(got), g+1)
}
