package nccllog

import (
	"regexp"
	"sync"
)

// lazyRegexp is a regular expression compiled when it is first used: a run
// that reads no NCCL log (most) then never pays for compiling them.
type lazyRegexp struct {
	compile func() *regexp.Regexp
}

// lazy returns expr as a lazyRegexp; it panics on first use where expr is
// not a valid expression, as regexp.MustCompile does at once.
func lazy(expr string) *lazyRegexp {
	return &lazyRegexp{compile: sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })}
}

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
