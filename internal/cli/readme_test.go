package cli

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/gdtopo/gdtopo/internal/render"
)

// TestReadmeExamples: every example in README.md that shows a gdtopo
// command ("$ gdtopo ...") and its output is what that command prints
// today, in an 80-column terminal, run from the repository's root
// (standard error after standard output, as a terminal shows them), and
// every "go run ./cmd/gdtopo ..." the README tells a reader to run has its
// output shown. It changes the working directory, so it does not run in
// parallel.
func TestReadmeExamples(t *testing.T) {
	t.Chdir("../..")
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	examples := 0
	shown := map[string]bool{}
	var toRun []string
	for i, block := range strings.Split(string(readme), "```\n") {
		if i%2 == 0 {
			continue // between code blocks
		}
		for _, line := range strings.Split(block, "\n") {
			if args, ok := strings.CutPrefix(line, "go run ./cmd/gdtopo "); ok {
				toRun = append(toRun, strings.Join(strings.Fields(args), " "))
			}
		}
		command, want, ok := strings.Cut(block, "\n")
		if !ok || !strings.HasPrefix(command, "$ gdtopo ") {
			continue
		}
		examples++
		args := strings.Fields(strings.TrimPrefix(command, "$ gdtopo "))
		shown[strings.Join(args, " ")] = true
		var out, errb bytes.Buffer
		mainStreams(args, &Streams{In: strings.NewReader(""), Out: &out, Err: &errb, Style: render.Style{Width: 80}})
		if got := out.String() + errb.String(); got != want {
			t.Errorf("README.md shows for %q:\n%s\nit prints:\n%s", command, want, got)
		}
	}
	if examples < 3 {
		t.Errorf("found %d examples in README.md, want the check, path and export ones", examples)
	}
	if len(toRun) == 0 {
		t.Error("README.md tells no one to go run ./cmd/gdtopo")
	}
	for _, args := range toRun {
		if !shown[args] {
			t.Errorf("README.md says to go run ./cmd/gdtopo %s but shows no \"$ gdtopo %s\" with its output", args, args)
		}
	}
}
