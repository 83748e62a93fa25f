package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gdtopo/gdtopo/internal/render"
)

// TestCheckFitsEighty: with an 80-column terminal (COLUMNS=80), check and
// check -v draw no line wider than 80 columns on any fixture (gdtopo
// matrix is nvidia-smi's layout, never folded: TestMatrixCutsAsNvidiaSmi).
func TestCheckFitsEighty(t *testing.T) {
	for _, dir := range bundled(t) {
		for _, args := range [][]string{{"check", dir}, {"check", "-v", dir}} {
			var out bytes.Buffer
			code := mainStreams(args, &Streams{In: strings.NewReader(""), Out: &out, Err: &bytes.Buffer{}, Style: render.Style{Width: 80}})
			if code != ExitOK && code != ExitFindings {
				t.Fatalf("%v: exit %d", args, code)
			}
			for i, l := range strings.Split(out.String(), "\n") {
				if n := utf8.RuneCountInString(l); n > 80 {
					t.Errorf("%v line %d is %d columns: %q", args, i+1, n, l)
				}
			}
		}
	}
}

// TestCheckOneScreen: the default check of an 8-GPU, 8-NIC server fits one
// screen, and -v holds the pair table it leaves out.
func TestCheckOneScreen(t *testing.T) {
	code, out, _ := run("check", "../../fixtures/hgx-h100.tar.gz")
	if code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	if n := strings.Count(out, "\n"); n > 50 {
		t.Errorf("default check is %d lines, want at most 50:\n%s", n, out)
	}
	if !strings.HasPrefix(out, "WARNING: 1 warning, 1 info;") {
		t.Errorf("check does not open with its verdict:\n%s", out)
	}
	if strings.Contains(out, "Accelerator-NIC pairs") {
		t.Errorf("default check shows the pair table")
	}
	_, verbose, _ := run("check", "-v", "../../fixtures/hgx-h100.tar.gz")
	for _, want := range []string{"Accelerator-NIC pairs", "Settings per local rank", "remedy:", "Legend:"} {
		if !strings.Contains(verbose, want) {
			t.Errorf("check -v lacks %q", want)
		}
	}
}

// TestNotesGrouped: on a dump with little in it, check and check -v say
// each note once, never once a pair.
func TestNotesGrouped(t *testing.T) {
	src := "../../../shared/corpus/lspci/lenovo-sd665n-v3-4xh100-genoa.lspci.txt"
	if _, err := os.Stat(src); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("corpus missing in CI: %v", err)
		}
		t.Skipf("corpus not here (runs in CI): %v", err)
	}
	for _, v := range []string{"", "-v"} {
		args := []string{"check", src}
		if v != "" {
			args = append(args, v)
		}
		_, out, _ := run(args...)
		_, notes, _ := strings.Cut(out, "\nNotes\n")
		notes, _, _ = strings.Cut(notes, "\n\n")
		seen := map[string]bool{}
		for _, l := range strings.Split(notes, "\n") {
			_, note, _ := strings.Cut(l, ": ")
			if note != "" && seen[note] {
				t.Errorf("check %s says a note twice: %q", v, note)
			}
			seen[note] = true
		}
		if strings.Contains(out, "GPU0-NIC0: ") {
			t.Errorf("check %s gives a note to one pair at a time:\n%s", v, out)
		}
	}
}

// TestCompareFitsEighty: compare of two, three and four servers (fixtures
// and real lspci dumps) at COLUMNS=80 draws no line wider than 80 columns
// and loses nothing: read back as a reader would (columns by their
// alignment, short names through the legend), every server's every measure
// and the verdict say what the unlimited-width table says.
func TestCompareFitsEighty(t *testing.T) {
	corpus := filepath.Join("..", "..", "..", "shared", "corpus", "lspci")
	lenovo := filepath.Join(corpus, "lenovo-sd665n-v3-4xh100-genoa.lspci-t-vvv.txt")
	h200 := filepath.Join(corpus, "nccl-tests-256-h200-vm.partial.lspci-tv.txt")
	sets := [][]string{
		{fx("hgx-h100"), fx("dgx-a100")},
		{fx("hgx-h100"), fx("dgx-a100"), fx("sys-4029gp-v100")},
		{fx("hgx-h100"), fx("dgx-a100"), fx("sys-4029gp-v100"), fx("mi300x-8oam")},
		{fx("gb200-tray"), fx("wrx90-threadripper"), fx("roce-lag-bond"), fx("grace-cx8-dd")},
	}
	if _, err := os.Stat(lenovo); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("corpus missing in CI: %v", err)
		}
		t.Logf("corpus not here, its dumps left out (they run in CI): %v", err)
	} else {
		sets = append(sets, []string{lenovo, h200}, []string{lenovo, fx("hgx-h100"), h200},
			[]string{fx("hgx-h100"), lenovo, h200, fx("socket-direct")})
	}
	compare := func(sources []string, width int) string {
		var out bytes.Buffer
		args := append([]string{"compare"}, sources...)
		if code := mainStreams(args, &Streams{In: strings.NewReader(""), Out: &out, Err: &bytes.Buffer{}, Style: render.Style{Width: width}}); code != ExitOK {
			t.Fatalf("%v: exit %d", args, code)
		}
		return out.String()
	}
	for _, sources := range sets {
		full, narrow := compare(sources, 0), compare(sources, 80)
		for i, l := range strings.Split(narrow, "\n") {
			if n := utf8.RuneCountInString(l); n > 80 {
				t.Errorf("compare of %d: line %d is %d columns: %q", len(sources), i+1, n, l)
			}
		}
		want, wantVerdict := readCompare(t, full)
		got, gotVerdict := readCompare(t, narrow)
		if len(want) != 14 || len(want["Rank"]) != len(sources) {
			t.Fatalf("compare of %d: read %d measures, %d ranks back from the full table:\n%s", len(sources), len(want), len(want["Rank"]), full)
		}
		for m, cells := range want {
			for src, v := range cells {
				if got[m][src] != v {
					t.Errorf("compare of %d at 80 columns: %s of %s reads %q, want %q:\n%s", len(sources), m, src, got[m][src], v, narrow)
				}
			}
		}
		if gotVerdict != wantVerdict {
			t.Errorf("compare of %d at 80 columns: verdict %q, want %q", len(sources), gotVerdict, wantVerdict)
		}
	}
}

// readCompare reads compare's text back: each measure's value for each
// source (by its full name), and the verdict, its lines joined.
func readCompare(t *testing.T, text string) (map[string]map[string]string, string) {
	t.Helper()
	_, body, _ := strings.Cut(text, "Servers\n")
	body, verdict, _ := strings.Cut(body, "\nVerdict\n")
	verdict = strings.Join(strings.Fields(verdict), " ")
	legend := map[string]string{}
	if head, table, ok := strings.Cut(body, "\n\n"); ok { // a legend above the table
		label := ""
		for _, l := range strings.Split(head, "\n") {
			if f := strings.Fields(l); len(f) == 2 && !strings.HasPrefix(l, " ") {
				label, legend[f[0]] = f[0], f[1]
			} else if len(f) == 1 && label != "" {
				legend[label] += f[0] // a source cut to fit
			}
		}
		body = table
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimRight(body, "\n"), "\n") {
		if strings.Trim(l, "-") != "" {
			lines = append(lines, l)
		}
	}
	rows := alignedCells(lines)
	name := func(label string) string {
		if src, ok := legend[label]; ok {
			return src
		}
		return label
	}
	out := map[string]map[string]string{}
	add := func(m, src, piece string) {
		if out[m] == nil {
			out[m] = map[string]string{}
		}
		if piece != "" {
			out[m][src] = strings.TrimSpace(out[m][src] + " " + piece)
		} else if _, ok := out[m][src]; !ok {
			out[m][src] = ""
		}
	}
	measure, server := "", ""
	if len(rows) == 0 {
		t.Fatalf("no table in:\n%s", text)
	}
	if rows[0][0] != "" && len(rows[0]) == 3 { // no header: stacked
		for _, r := range rows { // stacked: measure, server, value
			if r[0] != "" {
				measure = r[0]
			}
			if r[1] != "" {
				server = name(r[1])
			}
			add(measure, server, r[2])
		}
		return out, verdict
	}
	header := rows[0]
	for _, r := range rows[1:] { // side by side: measure, then a column a server
		if r[0] != "" {
			measure = r[0]
		}
		for i := 1; i < len(r); i++ {
			add(measure, name(header[i]), r[i])
		}
	}
	return out, verdict
}

// alignedCells splits lines into the columns a reader sees: a column
// starts where every line has two spaces (or nothing) before it.
func alignedCells(lines []string) [][]string {
	rs := make([][]rune, len(lines))
	width := 0
	for i, l := range lines {
		rs[i] = []rune(l)
		width = max(width, len(rs[i]))
	}
	blank := func(r []rune, p int) bool { return p < 0 || p >= len(r) || r[p] == ' ' }
	starts := []int{0}
	for p := 2; p < width; p++ {
		gap, ink := true, false
		for _, r := range rs {
			gap = gap && blank(r, p-1) && blank(r, p-2)
			ink = ink || !blank(r, p)
		}
		if gap && ink {
			starts = append(starts, p)
		}
	}
	out := make([][]string, len(rs))
	for i, r := range rs {
		for c, s := range starts {
			end := width
			if c+1 < len(starts) {
				end = starts[c+1]
			}
			out[i] = append(out[i], strings.TrimSpace(string(r[min(s, len(r)):min(end, len(r))])))
		}
	}
	return out
}

// TestEveryCommandFitsEighty: at 80 columns no command's text output has a
// line wider than 80 columns (tabs at stops of eight): tree, path,
// check, verify, fleet and calibrate on every fixture, and the help of
// every command.
func TestEveryCommandFitsEighty(t *testing.T) {
	fixtures := bundled(t)
	perftest := filepath.Join(t.TempDir(), "write-server.txt")
	text, err := os.ReadFile("../../advisor/testdata/ib_write_bw-server.txt")
	if err == nil {
		s := strings.Replace(string(text), "Picking device No. 1", "Picking device No. 0", 1)
		err = os.WriteFile(perftest, []byte(strings.Replace(s, "Device         : mlx5_4", "Device         : mlx5_2", 1)), 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
	commands := [][]string{
		{"help"}, {"--help"}, {"fleet"}, append([]string{"fleet"}, fixtures...),
		{"calibrate", "../../fixtures/hgx-h100.tar.gz", perftest},
		{"calibrate", "../../fixtures/hgx-h100.tar.gz", perftest, "../nccllog/testdata/nccl-tests-321-vm-roce-pxn.log"},
		{"verify", "../../fixtures/mi300x-8oam.tar.gz", "../rocmsmi/testdata/ms-swift-mi308x-8xgmi.txt"},
	}
	nvsmi := "../../../shared/corpus/nvsmi/dgxa100-like-epyc7742-8xa100-10nic.txt"
	if _, err := os.Stat(nvsmi); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("corpus missing in CI: %v", err)
		}
		t.Logf("corpus not here, verify left out (it runs in CI): %v", err)
	} else {
		commands = append(commands, []string{"verify", "../../fixtures/dgx-a100.tar.gz", nvsmi},
			[]string{"verify", "../../fixtures/hgx-h100.tar.gz", "../../../shared/corpus/nvsmi/nccl-1453-8xh100-9nic.partial.txt"})
	}
	for _, c := range NewRootCmd(&Streams{}).Commands() {
		commands = append(commands, []string{"help", c.Name()}, []string{c.Name(), "--help"})
	}
	logs, _ := filepath.Glob("../nccllog/testdata/*.log")
	for _, l := range logs {
		commands = append(commands, []string{"explain", l}, []string{"explain", l, "../../fixtures/hgx-h100.tar.gz"})
	}
	for _, shell := range []string{"bash", "zsh", "fish", "powershell"} {
		commands = append(commands, []string{"help", "completion", shell})
	}
	for _, dir := range fixtures {
		commands = append(commands, []string{"tree", dir}, []string{"tree", "--all", dir},
			[]string{"check", dir}, []string{"check", "-v", dir},
			[]string{"path", "GPU0", "NIC0", dir}, []string{"path", "--explain", "GPU0", "NIC0", dir})
	}
	for _, args := range commands {
		var out bytes.Buffer
		code := mainStreams(args, &Streams{In: strings.NewReader(""), Out: &out, Err: &bytes.Buffer{}, Style: render.Style{Width: 80}})
		if out.Len() == 0 && code != ExitError && code != ExitUsage {
			t.Errorf("%v: exit %d and nothing written", args, code)
		}
		for i, l := range strings.Split(out.String(), "\n") {
			if n := shownColumns(l); n > 80 {
				t.Errorf("%v line %d is %d columns: %q", args, i+1, n, l)
			}
		}
	}
}

// shownColumns is how many columns a terminal takes to show l: a rune
// each, a tab to the next multiple of eight.
func shownColumns(l string) int {
	n := 0
	for _, r := range l {
		if r == '\t' {
			n += 8 - n%8
			continue
		}
		n++
	}
	return n
}
