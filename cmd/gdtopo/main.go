// Command gdtopo tells how well GPUDirect RDMA can work on a machine: it reads
// the PCIe tree, labels every accelerator-NIC path the way nvidia-smi and
// NCCL do, and says why. Run "gdtopo help" for the commands.
package main

import (
	"os"

	"github.com/gdtopo/gdtopo/internal/cli"
)

// version is the release version, stamped at build time with
// -ldflags "-X main.version=v1.2.3" (scripts/release); empty, gdtopo
// reports the module version Go recorded.
var version string

func main() {
	os.Exit(cli.MainTerminal(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv, version))
}
