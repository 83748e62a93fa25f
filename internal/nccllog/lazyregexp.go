package nccllog

import (
	"os"
	"regexp"
	"strings"
	"sync"
)

// lazyRegexp is a regular expression compiled when it is first used: a run
// that reads no NCCL log (most) then never pays for compiling them.
type lazyRegexp struct {
	compile func() *regexp.Regexp
}

// lazy returns expr as a lazyRegexp; it panics on first use where expr is
// not a valid expression, as regexp.MustCompile does at once, and at once
// in a test binary, so that a bad expression in a rare branch fails every
// test run (as Go's internal/lazyregexp does).
func lazy(expr string) *lazyRegexp {
	l := &lazyRegexp{compile: sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })}
	if inTest {
		l.compile()
	}
	return l
}

// inTest reports whether this is a test binary (pkg.test).
var inTest = len(os.Args) > 0 && strings.HasSuffix(strings.TrimSuffix(os.Args[0], ".exe"), ".test")

// FindStringSubmatch is regexp.Regexp's.
func (l *lazyRegexp) FindStringSubmatch(s string) []string {
	return l.compile().FindStringSubmatch(s)
}

// FindAllStringSubmatch is regexp.Regexp's.
func (l *lazyRegexp) FindAllStringSubmatch(s string, n int) [][]string {
	return l.compile().FindAllStringSubmatch(s, n)
}

// MatchString is regexp.Regexp's.
func (l *lazyRegexp) MatchString(s string) bool { return l.compile().MatchString(s) }
