package fleet

import (
	"os"
	"os/exec"
	"testing"
)

// TestAlertRules checks deploy/gdtopo-alerts.yaml with the real promtool
// and runs its unit tests (deploy/gdtopo-alerts.test.yaml). Outside CI a
// missing promtool skips it.
func TestAlertRules(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		if os.Getenv("CI") == "" {
			t.Skip("promtool not installed (apt-get install prometheus); skipped outside CI")
		}
		t.Fatal("promtool not installed: .ci/run installs it")
	}
	for _, args := range [][]string{
		{"check", "rules", "gdtopo-alerts.yaml"},
		{"test", "rules", "gdtopo-alerts.test.yaml"},
	} {
		cmd := exec.Command(promtool, args...)
		cmd.Dir = "../../deploy"
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("promtool %v: %v\n%s", args, err, out)
		}
	}
}
