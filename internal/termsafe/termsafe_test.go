package termsafe

import (
	"os/exec"
	"strings"
	"testing"
)

func TestText(t *testing.T) {
	for in, want := range map[string]string{
		"mlx5_0":                         "mlx5_0",
		`C:\captures\a b`:                `C:\captures\a b`,
		"Mellanox ConnectX-7 — 400 Gb/s": "Mellanox ConnectX-7 — 400 Gb/s",
		"a\nb":                           `a\nb`,
		"x\x1b]0;owned\x07y":             `x\x1b]0;owned\ay`,
		"\x1b[2J\\":                      `\x1b[2J\\`,
		"evil\u202etxt.exe":              `evil\u202etxt.exe`,
		"\xff\xfe":                       `\xff\xfe`,
		"\u009b31m":                      `\u009b31m`,
	} {
		if got := Text(in); got != want {
			t.Errorf("Text(%q) = %q, want %q", in, got, want)
		}
	}
	if got := Block("line 1\n\tline 2\x1b[H"); got != "line 1\n\tline 2\\x1b[H" {
		t.Errorf("Block kept %q", got)
	}
}

// TestShell quotes hostile words and has a real shell read them back:
// each must come back as one word, unchanged, running nothing.
func TestShell(t *testing.T) {
	words := []string{"mlx5_0", "=mlx5_0", "", "=mlx5_0;id;$(id)", "a b", "it's", "`touch x`", "$HOME", "a\nb", "*", "~root", "-n", "!"}
	for _, w := range words {
		q := Shell(w)
		if w == "mlx5_0" && q != w || w == "=mlx5_0" && q != w {
			t.Errorf("Shell(%q) = %q: a plain word needs no quotes", w, q)
		}
		out, err := exec.Command("sh", "-c", `printf '%s\0' `+q).Output()
		if err != nil {
			t.Fatalf("sh: %v", err)
		}
		if got := strings.TrimSuffix(string(out), "\x00"); got != w || strings.Count(string(out), "\x00") != 1 {
			t.Errorf("Shell(%q) = %s: the shell read %q", w, q, out)
		}
	}
	if got := Assignment("NCCL_IB_HCA==mlx5_0;id;$(id)"); got != `NCCL_IB_HCA='=mlx5_0;id;$(id)'` {
		t.Errorf("Assignment = %s", got)
	}
	if got := Assignment("NCCL_IB_HCA==mlx5_0"); got != "NCCL_IB_HCA==mlx5_0" {
		t.Errorf("Assignment of a plain value = %s", got)
	}
}
