package export

import (
	"bytes"
	"encoding/xml"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/gdtopo/gdtopo/internal/report"
	"github.com/gdtopo/gdtopo/topology"
)

func TestSVG(t *testing.T) {
	for name, g := range fixtures(t) {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := SVG(&buf, g, nil, best(t, g)); err != nil {
				t.Fatal(err)
			}
			root := wellFormed(t, name, buf.Bytes())
			if root.Name.Local != "svg" {
				t.Fatalf("root <%s>, want <svg>", root.Name.Local)
			}
			have := map[string]bool{}
			for _, a := range root.Attr {
				have[a.Name.Local] = a.Value != ""
			}
			for _, k := range []string{"width", "height", "viewBox"} {
				if !have[k] {
					t.Errorf("<svg> lacks %s", k)
				}
			}
			texts := svgTexts(t, buf.Bytes())
			for d, alias := range report.Aliases(g) {
				found := false
				for _, s := range texts {
					if strings.HasPrefix(s, alias+" ") || s == alias {
						found = true
					}
				}
				if !found {
					t.Errorf("no text for %s (%s)", alias, d.BDF())
				}
			}
			var again bytes.Buffer
			SVG(&again, g, nil, best(t, g))
			if again.String() != buf.String() {
				t.Error("SVG output differs between runs")
			}
		})
	}
}

func svgTexts(t *testing.T, data []byte) []string {
	var out []string
	dec := xml.NewDecoder(bytes.NewReader(data))
	in := false
	for {
		tok, err := dec.Token()
		if err != nil {
			return out
		}
		switch x := tok.(type) {
		case xml.StartElement:
			in = x.Name.Local == "text"
		case xml.CharData:
			if in {
				out = append(out, string(x))
			}
		case xml.EndElement:
			in = false
		}
	}
}

// TestLayout: boxes of one row never overlap, their text fits, children
// sit below their parents and inside their NUMA frame.
func TestLayout(t *testing.T) {
	for name, g := range fixtures(t) {
		pic := buildPicture(g, nil, best(t, g))
		w, h := layoutPicture(pic)
		rows := map[float64][]*box{}
		for _, b := range pic.boxes {
			rows[b.y] = append(rows[b.y], b)
			for _, l := range b.lines {
				if textW(l) > b.w-2*padX+0.01 {
					t.Errorf("%s: %q wider than its box", name, l)
				}
			}
			for _, c := range b.children {
				if c.y <= b.y+b.h {
					t.Errorf("%s: %s not below %s", name, c.id, b.id)
				}
			}
			if b.x < 0 || b.x+b.w > w || b.y+b.h > h {
				t.Errorf("%s: %s outside the picture", name, b.id)
			}
		}
		for y, row := range rows {
			for i, a := range row {
				for _, b := range row[i+1:] {
					if a.x < b.x+b.w && b.x < a.x+a.w {
						t.Errorf("%s: row %.0f: %s [%.0f,%.0f] overlaps %s [%.0f,%.0f]", name, y, a.id, a.x, a.x+a.w, b.id, b.x, b.x+b.w)
					}
				}
			}
		}
		for i, c := range pic.clusters {
			for _, o := range pic.clusters[:i] { // frames wrap onto rows: neither across nor down may they meet
				if o.x < c.x+c.w && c.x < o.x+o.w && o.y < c.y+c.h && c.y < o.y+o.h {
					t.Errorf("%s: NUMA frames %q and %q overlap", name, o.label, c.label)
				}
			}
			for _, hb := range c.hosts {
				var check func(b *box)
				check = func(b *box) {
					if b.x < c.x || b.x+b.w > c.x+c.w {
						t.Errorf("%s: %s outside %s", name, b.id, c.label)
					}
					for _, k := range b.children {
						check(k)
					}
				}
				check(hb)
			}
		}
	}
	// Two boxes side by side on a hand-made row would be caught.
	a, b := &box{x: 0, w: 100}, &box{x: 90, w: 100}
	if !(a.x < b.x+b.w && b.x < a.x+a.w) {
		t.Fatal("overlap check broken")
	}
}

var (
	dotNodeRe = regexp.MustCompile(`(?m)^\s*("(?:[^"\\]|\\.)*")\s*\[`)
	dotEdgeRe = regexp.MustCompile(`(?m)^\s*("(?:[^"\\]|\\.)*")\s*->\s*("(?:[^"\\]|\\.)*")`)
)

func TestDOT(t *testing.T) {
	dot, _ := exec.LookPath("dot")
	if dot == "" && os.Getenv("CI") == "true" {
		t.Fatal("Graphviz dot missing in CI: .ci/run installs graphviz")
	}
	for name, g := range fixtures(t) {
		var buf bytes.Buffer
		if err := DOT(&buf, g, nil, best(t, g)); err != nil {
			t.Fatal(err)
		}
		s := buf.String()
		if strings.Count(s, "{") != strings.Count(s, "}") {
			t.Errorf("%s: unbalanced braces", name)
		}
		declared := map[string]bool{}
		for _, m := range dotNodeRe.FindAllStringSubmatch(s, -1) {
			declared[m[1]] = true
		}
		for _, m := range dotEdgeRe.FindAllStringSubmatch(s, -1) {
			for _, n := range m[1:] {
				if !declared[n] {
					t.Errorf("%s: edge uses undeclared node %s", name, n)
				}
			}
		}
		if dot != "" {
			cmd := exec.Command(dot, "-Tsvg")
			cmd.Stdin = strings.NewReader(s)
			var errb bytes.Buffer
			cmd.Stderr = &errb
			out, err := cmd.Output()
			if err != nil || errb.Len() > 0 {
				t.Errorf("%s: dot: %v %s", name, err, errb.String())
			}
			wellFormed(t, name+" dot -Tsvg", out)
		}
	}
	g := fixture(t, "hgx-h100")
	var buf bytes.Buffer
	DOT(&buf, g, nil, best(t, g))
	s := buf.String()
	count := func(re string) int { return len(regexp.MustCompile(re).FindAllString(s, -1)) }
	if n := count(`(?m)^\s*"dev:[^"]+" \[label="GPU\d`); n != 8 {
		t.Errorf("hgx-h100: %d GPU nodes, want 8", n)
	}
	if n := count(`(?m)^\s*"dev:[^"]+" \[label="NIC\d`); n != 8 {
		t.Errorf("hgx-h100: %d NIC nodes, want 8", n)
	}
	if n := count(`subgraph cluster_numa`); n != len(g.System.NUMANodes) {
		t.Errorf("hgx-h100: %d NUMA clusters, want %d", n, len(g.System.NUMANodes))
	}
	if n := count(`style=dashed, constraint=false`); n != 8 {
		t.Errorf("hgx-h100: %d best-NIC edges, want 8", n)
	}
	if !strings.Contains(s, `label="NUMA 0 / socket 0"`) || !strings.Contains(s, "PEX89000") {
		t.Error("hgx-h100: cluster or switch model label missing")
	}
}

func TestDOTQuote(t *testing.T) {
	if got := dotQuote("a\"b\\c\nd"); got != `"a\"b\\c\nd"` {
		t.Errorf("dotQuote = %s", got)
	}
	_ = topology.PIX
}

// TestSVGNamesAndMarks: NICs are named by model, not by the vendor's
// "Technologies", and a label that rests on a guess keeps its "?".
func TestSVGNamesAndMarks(t *testing.T) {
	g := fixtures(t)["hgx-h100"]
	if g == nil {
		t.Fatal("no hgx-h100 fixture")
	}
	var buf bytes.Buffer
	if err := SVG(&buf, g, nil, best(t, g)); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "Technologies") {
		t.Error("a box is named after the vendor's \"Technologies\"")
	}
	p := &topology.Pair{SMI: topology.NODE, LabelUncertain: true}
	if got := smiText(p); got != "NODE?" {
		t.Errorf("uncertain NODE drawn as %q, want NODE?", got)
	}
	p.SMI = topology.Unknown
	if got := smiText(p); got != "?" {
		t.Errorf("unknown label drawn as %q, want ?", got)
	}
}

// TestSwitchLevelsDrawn: a two-level switch chip (Broadcom PEX89000 on the
// HGX baseboards) is drawn as one box per level, so that a PXB path, which
// nvidia-smi and NCCL give to pairs across several switch levels, crosses
// more than one switch box in the picture, and a PIX path at most one.
func TestSwitchLevelsDrawn(t *testing.T) {
	levelRe := regexp.MustCompile(` level (\d)/(\d)$`)
	for name, want := range map[string]map[string]int{
		// four chips, each level 1 over two level-2 switches (tree shows them)
		"hgx-b200": {"1/2": 4, "2/2": 8},
		"hgx-h100": {"1/2": 4, "2/2": 8},
	} {
		g := fixture(t, name)
		pic := buildPicture(g, nil, best(t, g))
		got := map[string]int{}
		for _, b := range pic.boxes {
			if b.kind != boxSwitch {
				continue
			}
			m := levelRe.FindStringSubmatch(b.lines[0])
			if m == nil {
				got["single"]++
				continue
			}
			got[m[1]+"/"+m[2]]++
			if m[1] == "2" && (len(b.children) == 0 || pic.parentOf(b) == nil || pic.parentOf(b).kind != boxSwitch) {
				t.Errorf("%s: level-2 box %s does not hang off its chip's level 1", name, b.id)
			}
		}
		for lv, n := range want {
			if got[lv] != n {
				t.Errorf("%s: %d switch boxes at level %s, want %d (all: %v)", name, got[lv], lv, n, got)
			}
		}
	}
	for name, g := range fixtures(t) {
		if g.NCCLView {
			continue
		}
		pic := buildPicture(g, nil, best(t, g))
		boxOf := map[*topology.Device]*box{}
		for _, b := range pic.ends {
			boxOf[b.dev] = b
		}
		for _, p := range topology.PairsOf(g.Pairs(), topology.KindAccelerator, topology.KindNIC) {
			a, b := boxOf[p.A], boxOf[p.B]
			if a == nil || b == nil || p.LabelUncertain {
				continue
			}
			n := pic.switchesBetween(a, b)
			switch p.SMI {
			case topology.PXB:
				if n < 2 {
					t.Errorf("%s: %s-%s is PXB but its drawn path crosses %d switch boxes", name, p.A.BDF(), p.B.BDF(), n)
				}
			case topology.PIX:
				if n > 1 {
					t.Errorf("%s: %s-%s is PIX but its drawn path crosses %d switch boxes", name, p.A.BDF(), p.B.BDF(), n)
				}
			}
		}
	}
}

// parentOf is the box b hangs off, nil for a host bridge.
func (pic *picture) parentOf(b *box) *box {
	for _, p := range pic.boxes {
		for _, c := range p.children {
			if c == b {
				return p
			}
		}
	}
	return nil
}

// switchesBetween counts the switch boxes on the drawn path from a to b.
func (pic *picture) switchesBetween(a, b *box) int {
	up := map[*box]int{} // a's ancestors, with the switch boxes from a up to each
	n := 0
	for x := pic.parentOf(a); x != nil; x = pic.parentOf(x) {
		if x.kind == boxSwitch {
			n++
		}
		up[x] = n
	}
	m := 0
	for x := pic.parentOf(b); x != nil; x = pic.parentOf(x) {
		if k, ok := up[x]; ok {
			return k + m
		}
		if x.kind == boxSwitch {
			m++
		}
	}
	return -1
}
