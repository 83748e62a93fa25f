// Package twlog is the fork's stand-in for github.com/olekukonko/ll, the
// logger upstream tablewriter traces with: a logger writes
// "[namespace] LEVEL: message" lines to its writer while it is enabled and
// not suspended, and does nothing (not even format) otherwise.
package twlog

import (
	"fmt"
	"io"
	"strings"
	"sync/atomic"
)

// Logger writes trace lines under a namespace; New makes one. A logger and
// the loggers Namespace derives from it share one writer and one on/off
// state.
type Logger struct {
	ns string
	s  *state
}

// state is what a logger shares with its namespaces.
type state struct {
	w         io.Writer
	enabled   atomic.Bool
	suspended atomic.Bool
}

// New returns a disabled logger for namespace that writes to w (nil: nowhere).
func New(namespace string, w io.Writer) *Logger {
	return &Logger{ns: namespace, s: &state{w: w}}
}

// Namespace returns a logger for namespace name under l's, sharing l's
// writer and on/off state.
func (l *Logger) Namespace(name string) *Logger {
	if l.ns != "" {
		name = l.ns + "/" + name
	}
	return &Logger{ns: name, s: l.s}
}

// Enable turns logging on and returns l.
func (l *Logger) Enable() *Logger { l.s.enabled.Store(true); return l }

// Disable turns logging off and returns l.
func (l *Logger) Disable() *Logger { l.s.enabled.Store(false); return l }

// Suspend holds logging off until Resume, whether enabled or not, and returns l.
func (l *Logger) Suspend() *Logger { l.s.suspended.Store(true); return l }

// Resume ends a Suspend and returns l.
func (l *Logger) Resume() *Logger { l.s.suspended.Store(false); return l }

// Enabled reports whether l writes: enabled, not suspended, with a writer.
func (l *Logger) Enabled() bool {
	return l.s.w != nil && l.s.enabled.Load() && !l.s.suspended.Load()
}

// Debug writes args, space-separated, at level DEBUG.
func (l *Logger) Debug(args ...any) { l.print("DEBUG", args) }

// Debugf writes a formatted line at level DEBUG.
func (l *Logger) Debugf(format string, args ...any) { l.printf("DEBUG", format, args) }

// Info writes args, space-separated, at level INFO.
func (l *Logger) Info(args ...any) { l.print("INFO", args) }

// Infof writes a formatted line at level INFO.
func (l *Logger) Infof(format string, args ...any) { l.printf("INFO", format, args) }

// Warn writes args, space-separated, at level WARN.
func (l *Logger) Warn(args ...any) { l.print("WARN", args) }

// Warnf writes a formatted line at level WARN.
func (l *Logger) Warnf(format string, args ...any) { l.printf("WARN", format, args) }

// Error writes args, space-separated, at level ERROR.
func (l *Logger) Error(args ...any) { l.print("ERROR", args) }

// Errorf writes a formatted line at level ERROR.
func (l *Logger) Errorf(format string, args ...any) { l.printf("ERROR", format, args) }

// print writes args as Sprintln spaces them, without the newline.
func (l *Logger) print(level string, args []any) {
	if l.Enabled() {
		l.write(level, strings.TrimSuffix(fmt.Sprintln(args...), "\n"))
	}
}

// printf writes format with args.
func (l *Logger) printf(level, format string, args []any) {
	if l.Enabled() {
		l.write(level, fmt.Sprintf(format, args...))
	}
}

// write writes one line: "[namespace] LEVEL: msg".
func (l *Logger) write(level, msg string) {
	var b strings.Builder
	if l.ns != "" {
		b.WriteString("[" + l.ns + "] ")
	}
	b.WriteString(level + ": " + msg + "\n")
	io.WriteString(l.s.w, b.String()) // a trace line lost to a failing writer is not the table's error
}
