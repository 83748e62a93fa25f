package source

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// feed writes data to the pipe or FIFO name from a goroutine, as the
// shell's <(...) does, and reports the write's error on the channel.
func feed(t *testing.T, name string, data []byte) <-chan error {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		f, err := os.OpenFile(name, os.O_WRONLY, 0)
		if err == nil {
			_, err = f.Write(data)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		done <- err
	}()
	return done
}

// TestOpenStreams: a snapshot archive given as a FIFO, or as /dev/fd/N of
// a pipe (what bash's <(...) names), is read as the same file would be.
func TestOpenStreams(t *testing.T) {
	data := gz(t, tarBytes(t, goodTree("")))
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	go func() {
		_, _ = w.Write(data)
		_ = w.Close()
	}()
	for _, name := range []string{fifo, fmt.Sprintf("/dev/fd/%d", r.Fd())} {
		var done <-chan error
		if name == fifo {
			done = feed(t, fifo, data)
		}
		src, err := Open(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if src.Kind != KindArchive || src.Format != "tar.gz archive" || src.Name != name {
			t.Errorf("%s: kind %q, format %q, name %q; want the archive under its name", name, src.Kind, src.Format, src.Name)
		}
		checkGood(t, src.Root)
		if done != nil {
			if err := <-done; err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestOpenNotReadable: a socket is no source; the error is one line that
// names it. /dev/null reads as an empty stream.
func TestOpenNotReadable(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for _, c := range []struct{ name, want string }{
		{sock, sock + ": a socket: give a folder"},
		{"/dev/null", "/dev/null: empty file"},
	} {
		ch := make(chan error, 1)
		go func() { _, err := Open(c.name); ch <- err }()
		select {
		case err := <-ch:
			if err == nil || !strings.HasPrefix(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("Open(%s) = %v; want one line starting %q", c.name, err, c.want)
			}
			if errors.Is(err, ErrUnrecognized) {
				t.Errorf("Open(%s): %v is ErrUnrecognized, which sends it to the text readers", c.name, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("Open(%s): still running after 10 s", c.name)
		}
	}
}
