package outfile_test

import (
	"bufio"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gdtopo/gdtopo/internal/outfile"
)

// TestWriteFIFO writes to a FIFO in place: the reader gets every byte, and
// the FIFO is still a FIFO, with nothing else left in the folder.
func TestWriteFIFO(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(name, 0o600); err != nil {
		t.Fatal(err)
	}
	got := make(chan []byte, 1)
	go func() {
		f, err := os.Open(name)
		if err != nil {
			got <- nil
			return
		}
		defer f.Close()
		b, _ := io.ReadAll(f)
		got <- b
	}()
	data := []byte(strings.Repeat("fifo ", 20000)) // more than a pipe buffer
	if err := outfile.Write(name, outfile.Options{}, writeAll(data)); err != nil {
		t.Fatal(err)
	}
	if b := <-got; string(b) != string(data) {
		t.Errorf("reader got %d bytes, want %d", len(b), len(data))
	}
	assertOnly(t, dir, "pipe", fs.ModeNamedPipe)
}

// TestWriteDevice writes to character devices made in a temporary folder
// (never the real /dev): a null device (1,3) takes it in place and stays a
// device; a full device (1,7) fails with the full-disk advice and stays a
// device. Making device nodes needs root; CI runs this package as root.
func TestWriteDevice(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("making device nodes needs root (CI's root run covers this)")
	}
	dir := t.TempDir()
	null, full := filepath.Join(dir, "null"), filepath.Join(dir, "full")
	for name, minor := range map[string]int{null: 3, full: 7} {
		if err := syscall.Mknod(name, syscall.S_IFCHR|0o666, 1<<8|minor); err != nil {
			t.Fatal(err)
		}
	}
	if err := outfile.Write(null, outfile.Options{}, writeAll([]byte("gone"))); err != nil {
		t.Errorf("null device: %v", err)
	}
	err := outfile.Write(full, outfile.Options{}, writeAll([]byte("never")))
	if !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), "the disk is full") {
		t.Errorf("full device: %v; want ENOSPC with advice", err)
	}
	for _, name := range []string{null, full} {
		if info, err := os.Lstat(name); err != nil || info.Mode()&fs.ModeCharDevice == 0 {
			t.Errorf("%s after the write: %v, %v; want a character device", name, info.Mode(), err)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("%d entries; want the two devices only", len(entries))
	}
}

// TestWriteRefuses refuses a symbolic link (to a file, dangling, or to a
// folder) and a socket: nothing is written, the link and its target are as
// they were, and the error says why.
func TestWriteRefuses(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "secret")
	if err := os.WriteFile(target, []byte("keep"), 0o600); err != nil {
		t.Fatal(err)
	}
	links := map[string]string{"to-file": target, "dangling": filepath.Join(dir, "none"), "to-dir": dir}
	for name, to := range links {
		if err := os.Symlink(to, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	for name := range links {
		path := filepath.Join(dir, name)
		err := outfile.Write(path, outfile.Options{}, writeAll([]byte("overwritten")))
		if err == nil || !strings.Contains(err.Error(), "is a symbolic link") {
			t.Errorf("%s: %v; want refused as a symbolic link", name, err)
		}
		if to, err := os.Readlink(path); err != nil || to != links[name] {
			t.Errorf("%s now %q, %v", name, to, err)
		}
	}
	if b, _ := os.ReadFile(target); string(b) != "keep" {
		t.Errorf("link target now %q", b)
	}
	if _, err := os.Stat(filepath.Join(dir, "none")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("dangling link's target made: %v", err)
	}
	sock := filepath.Join(dir, "sock")
	if fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0); err == nil {
		defer syscall.Close(fd)
		if err := syscall.Bind(fd, &syscall.SockaddrUnix{Name: sock}); err != nil {
			t.Fatal(err)
		}
		err := outfile.Write(sock, outfile.Options{}, writeAll([]byte("x")))
		if err == nil || !strings.Contains(err.Error(), "is a socket") {
			t.Errorf("socket: %v; want refused", err)
		}
	}
}

// TestWriteSignal kills a child process with SIGTERM and with SIGINT while
// it is writing: the temporary file is gone, the file already there is as
// it was, and the child died of the signal.
func TestWriteSignal(t *testing.T) {
	if name := os.Getenv("OUTFILE_SIGNAL_CHILD"); name != "" {
		err := outfile.Write(name, outfile.Options{}, func(w io.Writer) error {
			_, _ = w.Write([]byte("partial"))
			os.Stdout.WriteString("writing\n")
			time.Sleep(time.Minute)
			return nil
		})
		os.Stdout.WriteString("returned: " + errString(err) + "\n")
		time.Sleep(time.Minute)
		return
	}
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		dir := t.TempDir()
		name := filepath.Join(dir, "out.tar.gz")
		if err := os.WriteFile(name, []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
		// A child inherits an ignored signal (SIGINT, in a job a
		// non-interactive shell runs in the background, as .ci/unprivileged
		// does); one the parent catches starts at its default.
		caught := make(chan os.Signal, 1)
		signal.Notify(caught, sig)
		cmd := exec.Command(os.Args[0], "-test.run=^TestWriteSignal$")
		cmd.Env = append(os.Environ(), "OUTFILE_SIGNAL_CHILD="+name)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		err = cmd.Start()
		signal.Stop(caught)
		if err != nil {
			t.Fatal(err)
		}
		line, _ := bufio.NewReader(out).ReadString('\n')
		if line != "writing\n" {
			_ = cmd.Process.Kill()
			t.Fatalf("child said %q", line)
		}
		_ = cmd.Process.Signal(sig)
		err = cmd.Wait()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != sig {
			t.Errorf("%v: child ended with %v; want killed by the signal", sig, err)
		}
		assertOnly(t, dir, "out.tar.gz", 0)
		if b, _ := os.ReadFile(name); string(b) != "old" {
			t.Errorf("%v: file now %q", sig, b)
		}
	}
}

func errString(err error) string {
	if err == nil {
		return "nil"
	}
	return err.Error()
}

// assertOnly checks that dir holds just name, of file type typ.
func assertOnly(t *testing.T, dir, name string, typ fs.FileMode) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != name || entries[0].Type() != typ {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("folder holds %v; want only %s", names, name)
	}
}

// TestWriteIgnoredSignal starts a child with SIGINT ignored, as a script's
// background job is, and interrupts it while it writes: the signal stays
// ignored, and the write completes.
func TestWriteIgnoredSignal(t *testing.T) {
	if name := os.Getenv("OUTFILE_IGNORED_CHILD"); name != "" {
		err := outfile.Write(name, outfile.Options{}, func(w io.Writer) error {
			_, _ = w.Write([]byte("whole"))
			os.Stdout.WriteString("writing\n")
			_, err := bufio.NewReader(os.Stdin).ReadString('\n') // until the parent says
			return err
		})
		if err != nil {
			os.Stdout.WriteString("returned: " + err.Error() + "\n")
			os.Exit(1)
		}
		return
	}
	name := filepath.Join(t.TempDir(), "out.tar.gz")
	signal.Ignore(syscall.SIGINT) // inherited by the child
	cmd := exec.Command(os.Args[0], "-test.run=^TestWriteIgnoredSignal$")
	cmd.Env = append(os.Environ(), "OUTFILE_IGNORED_CHILD="+name)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	err = cmd.Start()
	signal.Reset(syscall.SIGINT)
	if err != nil {
		t.Fatal(err)
	}
	if line, _ := bufio.NewReader(out).ReadString('\n'); line != "writing\n" {
		_ = cmd.Process.Kill()
		t.Fatalf("child said %q", line)
	}
	_ = cmd.Process.Signal(syscall.SIGINT)
	time.Sleep(200 * time.Millisecond) // time for a handler, were there one
	_, _ = in.Write([]byte("\n"))
	if err := cmd.Wait(); err != nil {
		t.Fatalf("child ended with %v; want the SIGINT ignored and the write done", err)
	}
	if b, err := os.ReadFile(name); string(b) != "whole" {
		t.Errorf("file now %q, %v", b, err)
	}
}
