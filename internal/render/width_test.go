package render

import (
	"slices"
	"testing"
)

// TestWrapText: lines break at spaces within the width, a word longer
// than a line is cut, and the spaces between words on a line are kept
// (two that align a finding's columns stay two), none at a line's start.
func TestWrapText(t *testing.T) {
	cases := []struct {
		s           string
		width       int
		first, rest string
		want        []string
	}{
		{"WARNING  link-width-degraded  NIC5: lost lanes", 30, "", "  ",
			[]string{"WARNING  link-width-degraded", "  NIC5: lost lanes"}},
		{"a  b", 0, "> ", "", []string{"> a  b"}},
		{"abcdefghij kl", 4, "", "", []string{"abcd", "efgh", "ij", "kl"}},
		{"one\ttwo   three", 80, "", "", []string{"one two   three"}},
		{"", 10, "x", "y", []string{"x"}},
	}
	for _, c := range cases {
		if got := wrapText(c.s, c.width, c.first, c.rest); !slices.Equal(got, c.want) {
			t.Errorf("wrapText(%q, %d) = %q, want %q", c.s, c.width, got, c.want)
		}
	}
}
