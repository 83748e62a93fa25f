package twlog

import (
	"bytes"
	"testing"
)

// TestLogger checks that a logger writes only while enabled and not
// suspended, and that its namespaces follow it.
func TestLogger(t *testing.T) {
	var b bytes.Buffer
	l := New("table", &b)
	r := l.Namespace("blueprint")
	l.Debugf("off %d", 1)
	l.Enable()
	l.Debugf("on %d", 2)
	r.Info("renderer", 3)
	l.Suspend()
	r.Warn("suspended")
	l.Resume()
	l.Errorf("resumed")
	l.Disable()
	l.Error("off again")
	want := "[table] DEBUG: on 2\n[table/blueprint] INFO: renderer 3\n[table] ERROR: resumed\n"
	if b.String() != want {
		t.Errorf("trace:\n%s\nwant:\n%s", b.String(), want)
	}
	if New("x", nil).Enable().Enabled() {
		t.Error("a logger without a writer reports itself enabled")
	}
}
