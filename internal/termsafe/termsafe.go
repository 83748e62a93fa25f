// Package termsafe makes text from inputs safe to print: Text and Block
// escape what a terminal would interpret (control characters, escape and
// OSC sequences, bidirectional overrides, invalid UTF-8), and Shell quotes
// a word for a POSIX shell. Names in gdtopo's inputs (SOURCE paths, device
// names from lspci text, InfiniBand names from a capture) come from
// strangers; every place that prints one to a terminal goes through Text or
// Block, and every setting meant to be pasted into a shell through Shell.
package termsafe

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Text returns s with every character a terminal could act on escaped as
// Go escapes it in a quoted string (\n, \x1b, \u202e, ...), and a backslash
// doubled only when something else was escaped, so ordinary text, Windows
// paths included, prints as it is. The result is one line.
func Text(s string) string { return escape(s, false) }

// Block is Text that keeps newlines and tabs: for free text of several
// lines.
func Block(s string) string { return escape(s, true) }

// escape is Text (block false) or Block (block true).
func escape(s string, block bool) string {
	if clean(s, block) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\\':
			b.WriteString(`\\`)
		case block && (r == '\n' || r == '\t'):
			b.WriteRune(r)
		case safe(r):
			b.WriteString(s[i : i+n])
		default:
			q := fmt.Sprintf("%+q", string(r)) // "\x1b", "\u202e", "\n"
			b.WriteString(q[1 : len(q)-1])
		}
		i += n
	}
	return b.String()
}

// clean reports whether s needs no escaping. Printable ASCII, most of
// what gdtopo prints, is decided a byte at a time; unicode's tables are
// looked up only past it.
func clean(s string, block bool) bool {
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if (c < ' ' || c == 0x7f) && !(block && (c == '\n' || c == '\t')) {
				return false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || !safe(r) && !(block && (r == '\n' || r == '\t')) {
			return false
		}
		i += n
	}
	return true
}

// safe reports whether a terminal shows r as a character and nothing
// more: printable, not a format character (bidirectional overrides and
// isolates, zero-width joiners) that reorders or hides what follows.
func safe(r rune) bool {
	return r == ' ' || unicode.IsPrint(r) && !unicode.Is(unicode.Cf, r)
}

// Shell returns s quoted for a POSIX shell: as it is when every character
// is one a shell takes literally in a word (letters, digits and
// @%+=:,./_-), else in single quotes, with each ' written '\”. An empty
// s is ”.
func Shell(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool { return !shellLiteral(r) }) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// shellLiteral reports whether r stands for itself anywhere in a shell word.
func shellLiteral(r rune) bool {
	return r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("@%+=:,./_-", r))
}

// Assignment quotes the value of a NAME=value word for a shell, leaving the
// name (which gdtopo chooses) as it is: NCCL_IB_HCA=;id becomes
// NCCL_IB_HCA=';id'. A word without '=' is quoted whole.
func Assignment(word string) string {
	name, value, ok := strings.Cut(word, "=")
	if !ok {
		return Shell(word)
	}
	return name + "=" + Shell(value)
}
