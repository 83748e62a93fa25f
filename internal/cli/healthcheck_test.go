package cli

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"
)

// terseLine is -o terse's line: SEVERITY CODE DEVICES MESSAGE.
var terseLine = regexp.MustCompile(`^(CRITICAL|WARNING|INFO) ([a-z0-9-]+) (\S+) (.+)$`)

// TestCheckTerse: -o terse gives every finding of -o json on one line, in
// its order, with its whole message however narrow the terminal, and
// check's exit statuses.
func TestCheckTerse(t *testing.T) {
	t.Setenv("COLUMNS", "40") // a width tables would be cut to: terse ignores it
	for _, c := range []struct {
		fixture, failOn string
		code            int
	}{
		{"sys-4029gp-v100", "critical", ExitFindings},
		{"sys-4029gp-v100", "never", ExitOK},
		{"hgx-h100", "warning", ExitFindings}, // its NIC at x8
		{"hgx-h100", "critical", ExitOK},
	} {
		code, out, errb := run("check", fx(c.fixture), "-o", "terse", "--fail-on", c.failOn)
		if code != c.code {
			t.Errorf("%s --fail-on %s: exit %d (%s), want %d", c.fixture, c.failOn, code, errb, c.code)
		}
		_, js, _ := run("check", fx(c.fixture), "-o", "json")
		var doc struct {
			Sources []struct {
				Report struct {
					Findings []struct {
						Code, Severity, Message string
						Devices                 []string
					}
				}
			}
		}
		if err := json.Unmarshal([]byte(js), &doc); err != nil || len(doc.Sources) != 1 {
			t.Fatalf("%s -o json: %v", c.fixture, err)
		}
		var want []string
		for _, f := range doc.Sources[0].Report.Findings {
			want = append(want, strings.ToUpper(f.Severity)+" "+f.Code+" "+strings.Join(f.Devices, ",")+" "+f.Message)
		}
		got := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s -o terse:\n%s\nwant -o json's findings:\n%s", c.fixture, out, strings.Join(want, "\n"))
		}
		for _, l := range got {
			if !terseLine.MatchString(l) {
				t.Errorf("%s: %q is not SEVERITY CODE DEVICES MESSAGE", c.fixture, l)
			}
		}
	}
	if code, _, errb := run("check", fx("hgx-h100"), fx("dgx-a100"), "-o", "terse"); code != ExitUsage || !strings.Contains(errb, "one SOURCE") {
		t.Errorf("-o terse over two sources: exit %d (%s), want 2", code, errb)
	}
}

// TestCheckNFDExpiry: -o nfd's file opens with NFD's expiry directive,
// --nfd-expiry after the run (3h by default), none for 0; a negative
// lifetime is a usage error.
func TestCheckNFDExpiry(t *testing.T) {
	for _, c := range []struct {
		flag []string
		life time.Duration
	}{{nil, 3 * time.Hour}, {[]string{"--nfd-expiry", "90m"}, 90 * time.Minute}} {
		before := time.Now()
		code, out, errb := run(append([]string{"check", fx("hgx-h100"), "-o", "nfd"}, c.flag...)...)
		after := time.Now()
		if code != ExitOK {
			t.Fatalf("exit %d: %s", code, errb)
		}
		first, _, _ := strings.Cut(out, "\n")
		v, ok := strings.CutPrefix(first, "# +expiry-time=")
		at, err := time.Parse(time.RFC3339, v)
		if !ok || err != nil || at.Before(before.Add(c.life).Truncate(time.Second)) || at.After(after.Add(c.life)) {
			t.Errorf("%v: first line %q (%v), want the run's time plus %s", c.flag, first, err, c.life)
		}
	}
	if code, out, _ := run("check", fx("hgx-h100"), "-o", "nfd", "--nfd-expiry", "0"); code != ExitOK || strings.Contains(out, "expiry") {
		t.Errorf("--nfd-expiry 0: exit %d, an expiry written:\n%.100s", code, out)
	}
	if code, _, _ := run("check", fx("hgx-h100"), "-o", "nfd", "--nfd-expiry", "-1h"); code != ExitUsage {
		t.Errorf("--nfd-expiry -1h: exit %d, want 2", code)
	}
}
