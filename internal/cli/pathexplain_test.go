package cli

import (
	"strings"
	"testing"
)

// TestPathExplainOneValuePerLink reads path --explain as an operator
// would: on gb200-tray the GPU's own PCIe link is off the data path (NCCL
// P2C: C2C to the Grace), so the hops mark it, and the bottleneck line and
// the steps give the NIC's link one figure (481.6 Gb/s at its MPS 512);
// on recorded-h200, whose source gives no link speed, nothing unknown is
// printed as 0 Gb/s or as 0% efficiency.
func TestPathExplainOneValuePerLink(t *testing.T) {
	code, out, errb := run("path", "GPU0", "NIC0", fx("gb200-tray"), "--explain")
	if code != ExitOK {
		t.Fatalf("path GPU0 NIC0 gb200-tray --explain: exit %d: %s", code, errb)
	}
	for _, want := range []string{"pcie (off the data path)", "Gen5 x16  481.6", "Bottleneck: 482 Gb/s", "481.6 Gb/s"} {
		if !strings.Contains(out, want) {
			t.Errorf("gb200-tray: no %q in\n%s", want, out)
		}
	}
	if strings.Contains(out, "Predicted path:") || strings.Contains(out, "Bottleneck: 461") {
		t.Errorf("gb200-tray: the bottleneck and the prediction disagree:\n%s", out)
	}
	code, out, errb = run("path", "GPU0", "NIC0", fx("recorded-h200"), "--explain")
	if code != ExitOK {
		t.Fatalf("path GPU0 NIC0 recorded-h200 --explain: exit %d: %s", code, errb)
	}
	if !strings.Contains(out, "efficiency unknown") || strings.Contains(out, " 0 Gb/s") || strings.Contains(out, "0.0 Gb/s") || strings.Contains(out, "efficiency 0%") {
		t.Errorf("recorded-h200: an unknown figure printed as 0:\n%s", out)
	}
}
