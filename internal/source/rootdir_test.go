package source

import (
	"archive/tar"
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestCapturedFolderRules builds a captured folder holding what a stranger
// could put there, and reads each entry with a deadline: links out of the
// folder (absolute, climbing, to /proc/self/fd/0) and a FIFO fail at once
// with an error that never holds the target's content; a link that stays
// inside is followed; a device node (made only as root) is not read.
func TestCapturedFolderRules(t *testing.T) {
	top := t.TempDir()
	secret := filepath.Join(top, "secret")
	if err := os.WriteFile(secret, []byte("TOP-SECRET"), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(top, "capture")
	dev := filepath.Join(dir, "sys", "devices", "pci0000:00", "0000:00:01.0")
	if err := os.MkdirAll(dev, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name, data string) {
		if err := os.WriteFile(filepath.Join(dev, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(name, to string) {
		if err := os.Symlink(to, filepath.Join(dev, name)); err != nil {
			t.Fatal(err)
		}
	}
	write("vendor", "0x10de\n")
	link("numa_node", secret)                                     // absolute, out of the folder
	link("resource", "../../../../secret")                        // relative, climbing out
	link("stdin", "/proc/self/fd/0")                              // would block on a terminal
	link("class", "vendor")                                       // inside: followed
	link("up", "../../../devices/pci0000:00/0000:00:01.0/vendor") // inside, climbing and back
	if err := syscall.Mkfifo(filepath.Join(dev, "config"), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := []string{"numa_node", "resource", "stdin", "config"}
	if os.Geteuid() == 0 {
		if err := syscall.Mknod(filepath.Join(dev, "irq"), syscall.S_IFCHR|0o644, 1<<8|5); err != nil { // a zero device
			t.Fatal(err)
		}
		bad = append(bad, "irq")
	}
	src, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	base := "sys/devices/pci0000:00/0000:00:01.0/"
	read := func(name string) ([]byte, error) {
		type result struct {
			b   []byte
			err error
		}
		done := make(chan result, 1)
		go func() {
			b, err := fs.ReadFile(src.Root, base+name)
			done <- result{b, err}
		}()
		select {
		case r := <-done:
			return r.b, r.err
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: read still blocked after 5 s", name)
			return nil, nil
		}
	}
	for _, name := range bad {
		b, err := read(name)
		if err == nil {
			t.Errorf("%s: read %q; want an error", name, b)
			continue
		}
		if strings.Contains(err.Error(), "TOP-SECRET") || strings.Contains(string(b), "TOP-SECRET") {
			t.Errorf("%s: leaks the target: %v", name, err)
		}
	}
	for _, name := range []string{"class", "up"} {
		if b, err := read(name); err != nil || string(b) != "0x10de\n" {
			t.Errorf("%s: %q, %v; want the link inside the folder followed", name, b, err)
		}
	}
	if _, err := read("config"); !errors.Is(err, errNotRegular) {
		t.Errorf("FIFO: %v; want %v", err, errNotRegular)
	}
	if target, err := fs.ReadLink(src.Root, base+"numa_node"); err != nil || target != secret {
		t.Errorf("ReadLink: %q, %v; want the link as stored", target, err)
	}
	if _, err := fs.Stat(src.Root, base+"numa_node"); err == nil {
		t.Errorf("Stat followed a link out of the folder")
	}
}

// TestDuplicateMembers gives an archive a member twice: with the same
// content it is read quietly; with different content the last is used and
// a warning names it.
func TestDuplicateMembers(t *testing.T) {
	for _, c := range []struct {
		second string
		warn   bool
	}{{"0x10de\n", false}, {"0x15b3\n", true}} {
		var buf bytes.Buffer
		tw := tar.NewWriter(&buf)
		for _, body := range []string{"0x10de\n", c.second} {
			if err := tw.WriteHeader(&tar.Header{Name: "sys/vendor", Typeflag: tar.TypeReg, Mode: 0o444, Size: int64(len(body))}); err != nil {
				t.Fatal(err)
			}
			if _, err := tw.Write([]byte(body)); err != nil {
				t.Fatal(err)
			}
		}
		if err := tw.Close(); err != nil {
			t.Fatal(err)
		}
		name := filepath.Join(t.TempDir(), "dup.tar")
		if err := os.WriteFile(name, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		src, err := Open(name)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := fs.ReadFile(src.Root, "sys/vendor")
		warned := strings.Contains(strings.Join(src.Warnings, "\n"), `member "sys/vendor" appears again with different content`)
		if string(got) != c.second || warned != c.warn {
			t.Errorf("second %q: read %q, warnings %q; want the last, warned: %v", c.second, got, src.Warnings, c.warn)
		}
	}
}
