package cli

import (
	"bytes"
	"runtime/debug"
	"strings"
	"testing"
)

// TestReadVersion: a stamped version wins over what Go recorded, a recorded
// module version over "(devel)", and the install line names the module
// proxy for a release alone.
func TestReadVersion(t *testing.T) {
	info := func(version string, settings ...debug.BuildSetting) func() (*debug.BuildInfo, bool) {
		return func() (*debug.BuildInfo, bool) {
			return &debug.BuildInfo{GoVersion: "go1.25.0", Main: debug.Module{Path: "github.com/gdtopo/gdtopo", Version: version}, Settings: settings}, true
		}
	}
	none := func() (*debug.BuildInfo, bool) { return nil, false }
	rev := debug.BuildSetting{Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"}
	modified := debug.BuildSetting{Key: "vcs.modified", Value: "true"}
	checkout := "install from a checkout: go install ./cmd/gdtopo\n"
	for _, c := range []struct {
		name, stamped string
		read          func() (*debug.BuildInfo, bool)
		want          string
	}{
		{"stamped", "v1.2.3", info("(devel)", rev), "gdtopo v1.2.3, go1.25.0\ninstall: go install github.com/gdtopo/gdtopo/cmd/gdtopo@v1.2.3\n"},
		{"stamped over recorded", "v1.2.3", info("v0.9.0"), "gdtopo v1.2.3, go1.25.0\ninstall: go install github.com/gdtopo/gdtopo/cmd/gdtopo@v1.2.3\n"},
		{"go install @v0.2.0", "", info("v0.2.0"), "gdtopo v0.2.0, go1.25.0\ninstall: go install github.com/gdtopo/gdtopo/cmd/gdtopo@v0.2.0\n"},
		{"prerelease", "", info("v0.2.0-rc.1"), "gdtopo v0.2.0-rc.1, go1.25.0\ninstall: go install github.com/gdtopo/gdtopo/cmd/gdtopo@v0.2.0-rc.1\n"},
		{"pseudo-version", "", info("v0.0.0-20260102030405-0123456789ab"), "gdtopo v0.0.0-20260102030405-0123456789ab, go1.25.0\n" + checkout},
		{"pseudo-version after a tag", "", info("v0.2.1-0.20260102030405-0123456789ab"), "gdtopo v0.2.1-0.20260102030405-0123456789ab, go1.25.0\n" + checkout},
		{"modified checkout", "", info("v0.2.0+dirty", rev, modified), "gdtopo v0.2.0+dirty, go1.25.0\n" + checkout},
		{"devel with commit", "", info("(devel)", rev, modified), "gdtopo (devel) commit 0123456789abcdef0123456789abcdef01234567 (modified), go1.25.0\n" + checkout},
		{"devel", "", info(""), "gdtopo (devel), go1.25.0\n" + checkout},
	} {
		if got := readVersion(c.stamped, c.read).String(); got != c.want {
			t.Errorf("%s:\n%q\nwant\n%q", c.name, got, c.want)
		}
	}
	if v := readVersion("", none); v.Version != "(devel)" || !strings.HasPrefix(v.GoVersion, "go") {
		t.Errorf("no build information: %+v", v)
	}
}

// TestVersionFlag: gdtopo version and gdtopo --version print the same, the
// stamped version when there is one.
func TestVersionFlag(t *testing.T) {
	for _, stamped := range []string{"", "v9.8.7"} {
		var outs []string
		for _, args := range [][]string{{"version"}, {"--version"}} {
			var out, errb bytes.Buffer
			if code := mainStreams(args, &Streams{In: strings.NewReader(""), Out: &out, Err: &errb, Version: stamped}); code != ExitOK {
				t.Fatalf("%q stamped %q: exit %d: %s", args, stamped, code, errb.String())
			}
			outs = append(outs, out.String())
		}
		if outs[0] != outs[1] {
			t.Errorf("stamped %q: gdtopo version says\n%q\ngdtopo --version says\n%q", stamped, outs[0], outs[1])
		}
		if want := "gdtopo " + stamped; stamped != "" && !strings.HasPrefix(outs[0], want+", go") {
			t.Errorf("stamped %q: %q does not start %q", stamped, outs[0], want)
		}
	}
}
