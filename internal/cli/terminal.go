package cli

import (
	"io"
	"os"
	"strconv"

	"github.com/gdtopo/gdtopo/advisor"
	"github.com/gdtopo/gdtopo/internal/render"
)

// MainTerminal is Main for the gdtopo binary: text output fits the
// terminal standard output is (or COLUMNS, when set, whatever it is), with
// colour only on a terminal and never with NO_COLOR set; output that is not
// a terminal is plain and unwrapped unless COLUMNS says otherwise. version
// is the version the binary was stamped with, if any (Streams.Version).
func MainTerminal(args []string, stdin io.Reader, stdout *os.File, stderr io.Writer, getenv func(string) string, version string) int {
	gc := collectLate(getenv)
	return mainStreams(args, &Streams{In: stdin, Out: stdout, Err: stderr, Style: terminalStyle(stdout, getenv), NCCLEnv: ncclEnviron(getenv), Version: version,
		gc: gc})
}

// ncclEnviron are the NCCL variables the advisor follows that getenv has;
// empty counts as unset, as NCCL takes its default for an empty value
// (src/misc/param.cc, ncclLoadParam; paths.cc, ncclGetLevel).
func ncclEnviron(getenv func(string) string) map[string]string {
	var env map[string]string
	for _, k := range advisor.NCCLEnvKeys() {
		if v := getenv(k); v != "" {
			if env == nil {
				env = map[string]string{}
			}
			env[k] = v
		}
	}
	return env
}

// terminalStyle is the layout for output to out.
func terminalStyle(out *os.File, getenv func(string) string) render.Style {
	var st render.Style
	if cols, ok := terminalColumns(out); ok {
		st.Width = cols
		st.Color = getenv("NO_COLOR") == ""
	}
	if c, err := strconv.Atoi(getenv("COLUMNS")); err == nil && c > 0 {
		st.Width = c
	}
	return st
}
