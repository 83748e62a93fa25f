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

// TestCleanASCII checks clean's byte-at-a-time path for ASCII against the
// rune rule (safe) it stands for, in Text and Block, alone and amid other
// text.
func TestCleanASCII(t *testing.T) {
	for c := rune(0); c < 0x80; c++ {
		for _, block := range []bool{false, true} {
			want := safe(c) || block && (c == '\n' || c == '\t')
			for _, s := range []string{string(c), "a" + string(c) + "é", "é" + string(c)} {
				if got := clean(s, block); got != want {
					t.Errorf("clean(%q, %v) = %v, want %v", s, block, got, want)
				}
			}
		}
	}
}

// BenchmarkText escapes a table cell with nothing to escape, as most are.
func BenchmarkText(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		Text("GPU0 0000:05:00.0  NIC0 mlx5_0  200 Gb/s")
	}
}
