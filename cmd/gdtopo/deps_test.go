package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// networkClients are standard packages that talk over the network: gdtopo
// reads files and never opens a socket, so none is linked.
var networkClients = []string{"net/http", "net/rpc", "net/smtp", "net/mail"}

// TestNoNetworkImports fails when a gdtopo package imports net (or one of
// its clients) itself, or when a network client is linked into the binary.
// Libraries may import net for its types (pflag's IP flags); gdtopo's own
// code may not.
func TestNoNetworkImports(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("no go command in CI: %v", err)
		}
		t.Skipf("no go command to list the binary's packages with (CI has one): %v", err)
	}
	out, err := exec.Command(goTool, "list", "-deps", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for line := range strings.Lines(string(out)) {
		fields := strings.Fields(line)
		pkg, imports := fields[0], fields[1:]
		for _, c := range networkClients {
			if pkg == c {
				t.Errorf("gdtopo links %s, a network client", c)
			}
		}
		if pkg != "github.com/gdtopo/gdtopo" && !strings.HasPrefix(pkg, "github.com/gdtopo/gdtopo/") {
			continue
		}
		for _, imp := range imports {
			if imp == "net" || strings.HasPrefix(imp, "net/") && imp != "net/url" && imp != "net/netip" {
				t.Errorf("%s imports %s; gdtopo never opens a socket", pkg, imp)
			}
		}
	}
}
