package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// installPath is what go install takes to install a released gdtopo.
const installPath = "github.com/gdtopo/gdtopo/cmd/gdtopo"

// versionOptions are gdtopo version's inputs.
type versionOptions struct {
	*globalOptions
}

func newCmdVersion(g *globalOptions) *cobra.Command {
	opts := &versionOptions{globalOptions: g}
	return &cobra.Command{
		Use:   "version",
		Short: "Print gdtopo's version and how to install it",
		Long: `Version prints gdtopo's version, the Go version it was built with, and the
line that installs it; gdtopo --version prints the same. The version is the one
a release build was stamped with, else the module version Go recorded (v1.2.3
for go install MODULE@v1.2.3, a pseudo-version for go build in a git
checkout), else "(devel)", with the commit when Go recorded one.`,
		Args: args(cobra.NoArgs),
		RunE: func(*cobra.Command, []string) error { return versionRun(opts) },
	}
}

func versionRun(opts *versionOptions) error {
	fmt.Fprint(opts.IO.Out, readVersion(opts.IO.Version, debug.ReadBuildInfo))
	return nil
}

// versionInfo is what gdtopo says it is.
type versionInfo struct {
	Version   string // v1.2.3, a pseudo-version, or (devel) with the commit
	GoVersion string // the Go release that built it
}

// readVersion works out gdtopo's version: stamped, the string a release
// build sets with -ldflags "-X main.version=v1.2.3", when not empty; else
// the main module's version that read finds Go recorded; else "(devel)",
// with the commit and whether it was modified when Go recorded them.
func readVersion(stamped string, read func() (*debug.BuildInfo, bool)) versionInfo {
	v := versionInfo{Version: stamped, GoVersion: runtime.Version()}
	info, ok := read()
	if ok && info.GoVersion != "" {
		v.GoVersion = info.GoVersion
	}
	if v.Version != "" {
		return v
	}
	if ok && info.Main.Version != "" && info.Main.Version != "(devel)" {
		v.Version = info.Main.Version
		return v
	}
	v.Version = "(devel)"
	if !ok {
		return v
	}
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" {
			v.Version += " commit " + s.Value
		}
	}
	for _, s := range info.Settings {
		if s.Key == "vcs.modified" && s.Value == "true" {
			v.Version += " (modified)"
		}
	}
	return v
}

// isPseudoVersion says whether v ends as a Go pseudo-version does, with a
// commit's time and hash ("-20260102030405-0123456789ab" or
// ".20260102030405-0123456789ab"): it names a commit, not a release.
func isPseudoVersion(v string) bool {
	i := strings.LastIndexByte(v, '-')
	if i < 15 || len(v)-i-1 != 12 || (v[i-15] != '-' && v[i-15] != '.') {
		return false
	}
	return strings.Trim(v[i-14:i], "0123456789") == "" && strings.Trim(v[i+1:], "0123456789abcdef") == ""
}

// String is what gdtopo version and gdtopo --version print: the version, the
// Go version, and how to install it: a release from the module proxy, a
// build of a commit or of modified files from its checkout.
func (v versionInfo) String() string {
	install := "install from a checkout: go install ./cmd/gdtopo"
	if strings.HasPrefix(v.Version, "v") && !strings.Contains(v.Version, "+") && !isPseudoVersion(v.Version) {
		install = "install: go install " + installPath + "@" + v.Version
	}
	return fmt.Sprintf("gdtopo %s, %s\n%s\n", v.Version, v.GoVersion, install)
}
