package report

import (
	"fmt"
	"testing"
)

// TestHexDigits: hexDigits writes what fmt's %0Nx writes, for values wider than N too.
func TestHexDigits(t *testing.T) {
	for _, v := range []uint32{0, 1, 0xf, 0x10de, 0xffff, 0x10000, 0x030200, 0xffffff, 0x1000000, 0xffffffff, 0x12345678} {
		for _, w := range []int{4, 6, 8} {
			if got, want := hexDigits(v, w), fmt.Sprintf("%0*x", w, v); got != want {
				t.Errorf("hexDigits(%#x, %d) = %q; want %q", v, w, got, want)
			}
		}
	}
}

// TestFailing: the exit status's count of findings at or above --fail-on.
func TestFailing(t *testing.T) {
	findings := []Finding{{Code: "a", Severity: "warning"}, {Code: "b", Severity: "info"}}
	for level, want := range map[string]int{"critical": 0, "warning": 1, "info": 2, FailOnNever: 0} {
		r := &Report{Findings: findings, FailOn: level}
		if got := r.Failing(); got != want {
			t.Errorf("--fail-on %s: %d failing, want %d", level, got, want)
		}
	}
}

// TestLabelMarks: a guessed label gets one "?", NCCL's also when only its
// flattening or Data Direct is unknown, and an unknown path is "?" alone.
func TestLabelMarks(t *testing.T) {
	for _, tt := range []struct {
		p         Pair
		smi, nccl string
	}{
		{Pair{SMI: "PXB", NCCL: "PXB"}, "PXB", "PXB"},
		{Pair{SMI: "NODE", NCCL: "PHB", LabelUncertain: true}, "NODE?", "PHB?"},
		{Pair{SMI: "PXB", NCCL: "PXB", NCCLUncertain: true}, "PXB", "PXB?"},
		{Pair{SMI: "?", NCCL: "?", LabelUncertain: true}, "?", "?"},
	} {
		if s, n := Label(&tt.p), NCCLLabel(&tt.p); s != tt.smi || n != tt.nccl {
			t.Errorf("%+v: %s/%s, want %s/%s", tt.p, s, n, tt.smi, tt.nccl)
		}
	}
}
