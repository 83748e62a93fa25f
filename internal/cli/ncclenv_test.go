package cli

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/gdtopo/gdtopo/internal/report"
)

// pathGDR runs path GPU0 NIC4 on hgx-h100 (a SYS pair) with streams s and
// returns the pair's prediction and the report's NCCL variables.
func pathGDR(t *testing.T, s *Streams, extra ...string) report.Prediction {
	t.Helper()
	var out, errb bytes.Buffer
	s.Out, s.Err = &out, &errb
	args := append([]string{"path", "GPU0", "NIC4", fx("hgx-h100"), "--explain", "-o", "json"}, extra...)
	if code := mainStreams(args, s); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	keepJSON(args, ExitOK, out.String()) // TestMain checks it against the schema
	var v struct {
		Pair struct {
			Prediction report.Prediction `json:"prediction"`
		} `json:"pair"`
	}
	if err := json.Unmarshal(out.Bytes(), &v); err != nil {
		t.Fatal(err)
	}
	return v.Pair.Prediction
}

// TestNCCLEnvChangesGDR: NCCL_NET_GDR_LEVEL=SYS, from the environment gdtopo
// runs in (Streams.NCCLEnv, never the test process's) or --nccl-env, turns
// GDR on for a SYS pair as ncclTopoCheckGdr does (NCCL src/graph/paths.cc:
// "if (ncclTopoUserGdrLevel != -2) netGdrLevel = ncclTopoUserGdrLevel"), and
// the output names the variable; --nccl-env wins over the environment.
func TestNCCLEnvChangesGDR(t *testing.T) {
	if p := pathGDR(t, &Streams{}); p.GDR || !strings.Contains(p.GDRReason, "default P2C") || len(p.GDRSetBy) > 0 {
		t.Fatalf("defaults: gdr %v reason %q set by %q; want off at the default P2C", p.GDR, p.GDRReason, p.GDRSetBy)
	}
	env := &Streams{NCCLEnv: map[string]string{"NCCL_NET_GDR_LEVEL": "SYS", "NCCL_SOCKET_IFNAME": "eth0"}}
	if p := pathGDR(t, env); !p.GDR || len(p.GDRSetBy) != 1 || !strings.Contains(p.GDRSetBy[0], "NCCL_NET_GDR_LEVEL=SYS") {
		t.Errorf("environment SYS: gdr %v set by %q; want on, by NCCL_NET_GDR_LEVEL=SYS", p.GDR, p.GDRSetBy)
	}
	if p := pathGDR(t, &Streams{}, "--nccl-env", "NCCL_NET_GDR_LEVEL=SYS"); !p.GDR {
		t.Errorf("--nccl-env SYS: gdr off (%s)", p.GDRReason)
	}
	env = &Streams{NCCLEnv: map[string]string{"NCCL_NET_GDR_LEVEL": "SYS"}}
	if p := pathGDR(t, env, "--nccl-env", "NCCL_NET_GDR_LEVEL=PXB"); p.GDR || !strings.Contains(p.GDRReason, "NCCL_NET_GDR_LEVEL=PXB") {
		t.Errorf("--nccl-env PXB over environment SYS: gdr %v reason %q", p.GDR, p.GDRReason)
	}

	// check names the variables and where each came from.
	var out bytes.Buffer
	s := &Streams{Out: &out, Err: &out, NCCLEnv: map[string]string{"NCCL_IB_HCA": "^mlx5_0"}}
	mainStreams([]string{"check", fx("hgx-h100"), "--nccl-env", "NCCL_NET_GDR_LEVEL=SYS"}, s)
	if want := "NCCL env       NCCL_IB_HCA=^mlx5_0 (environment), NCCL_NET_GDR_LEVEL=SYS (--nccl-env)"; !strings.Contains(out.String(), want) {
		t.Errorf("check does not show %q:\n%s", want, out.String())
	}
	if _, js, _ := run("check", fx("hgx-h100"), "--nccl-env", "NCCL_NET_GDR_LEVEL=SYS", "-o", "json"); !strings.Contains(js, `"nccl_env": [`) {
		t.Errorf("check -o json has no nccl_env")
	}
}

// TestNCCLEnvUsage: --nccl-env takes KEY=VALUE of a variable the advisor
// follows; anything else is a usage error, not silently ignored.
func TestNCCLEnvUsage(t *testing.T) {
	for _, arg := range []string{"NCCL_NET_GDR_LEVEL", "=SYS", "NCCL_SOCKET_IFNAME=eth0"} {
		code, _, stderr := run("check", fx("hgx-h100"), "--nccl-env", arg)
		if code != ExitUsage || !strings.Contains(stderr, "--nccl-env") {
			t.Errorf("--nccl-env %s: exit %d, %q; want a usage error", arg, code, stderr)
		}
	}
}

// TestNCCLEnviron: the binary reads only the variables the advisor follows,
// an empty one as unset (NCCL takes its default for an empty value).
func TestNCCLEnviron(t *testing.T) {
	env := map[string]string{"NCCL_NET_GDR_READ": "1", "NCCL_IB_HCA": "", "NCCL_DEBUG": "INFO"}
	got := ncclEnviron(func(k string) string { return env[k] })
	if len(got) != 1 || got["NCCL_NET_GDR_READ"] != "1" {
		t.Errorf("ncclEnviron = %v, want only NCCL_NET_GDR_READ=1", got)
	}
	if got := ncclEnviron(func(string) string { return "" }); got != nil {
		t.Errorf("ncclEnviron of an empty environment = %v, want nil", got)
	}
}
