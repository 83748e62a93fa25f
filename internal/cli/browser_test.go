package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/gdtopo/gdtopo/fixtures/fixturetest"
	"github.com/gdtopo/gdtopo/internal/report"
)

// browser starts one headless chromium, offline, with a fresh profile, and
// returns a tab in it. Outside CI a machine without chromium skips the
// test, saying so; in CI (.ci/run installs chromium) it must run.
func browser(t *testing.T) context.Context {
	t.Helper()
	path, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("chromium missing in CI (.ci/run installs it): %v", err)
		}
		t.Skipf("chromium not found (%v): the render tests need a real browser; skipped outside CI", err)
	}
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1600, 1200),
	)
	ctx, cancel := chromedp.NewContext(alloc)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("starting chromium: %v", err)
	}
	return ctx
}

// svgCheckJS measures an SVG document shown at its natural size: every
// text's rendered font size (>= 11 CSS px), that no two texts meet, that
// no text meets a box (a rect that is not a class="frame" container) other
// than the one it is grouped with, that a text grouped with a box stays in
// it, and that everything lies on the canvas. It returns the problems.
const svgCheckJS = `(() => {
  const svg = document.documentElement, canvas = svg.getBoundingClientRect(), eps = 0.5, out = [];
  const name = t => JSON.stringify(t.textContent);
  const meet = (a, b) => a.left < b.right - eps && b.left < a.right - eps && a.top < b.bottom - eps && b.top < a.bottom - eps;
  const inside = (a, b) => a.left >= b.left - eps && a.right <= b.right + eps && a.top >= b.top - eps && a.bottom <= b.bottom + eps;
  const texts = [...svg.querySelectorAll("text")], tb = texts.map(t => t.getBoundingClientRect());
  const rects = [...svg.querySelectorAll("rect:not(.frame)")], rb = rects.map(r => r.getBoundingClientRect());
  texts.forEach((t, i) => {
    const size = parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a;
    if (size < 11) out.push(name(t) + ": font " + size.toFixed(1) + " px");
    if (!inside(tb[i], canvas)) out.push(name(t) + " off the canvas");
    for (let j = i + 1; j < texts.length; j++) if (meet(tb[i], tb[j])) out.push(name(t) + " overlaps " + name(texts[j]));
    rects.forEach((r, k) => {
      if (r.parentNode === t.parentNode && r.parentNode.tagName === "g") {
        if (r === t.parentNode.querySelector("rect") && !inside(tb[i], rb[k])) out.push(name(t) + " sticks out of its box");
      } else if (meet(tb[i], rb[k])) out.push(name(t) + " overlaps a box it is not in");
    });
  });
  return {texts: texts.length, problems: out};
})()`

// svgResult is what svgCheckJS returns.
type svgResult struct {
	Texts    int      `json:"texts"`
	Problems []string `json:"problems"`
}

// checkSVGFile shows an SVG file in the tab and returns svgCheckJS's answer.
func checkSVGFile(ctx context.Context, path string) (svgResult, error) {
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+path)); err != nil {
		return svgResult{}, err
	}
	return chromedp.Run(ctx, chromedp.Evaluate[svgResult](svgCheckJS))
}

// TestRenderInBrowser draws every fixture and corpus input as SVG and shows
// each in chromium at its natural size: text at 11 px or more, no text on
// another text or on a box it is not in, nothing off the canvas. Then the
// HTML export: a click on a pair shows that pair's path and arithmetic as
// the JSON report has them, with no network request, and a hostile device
// name stays text.
func TestRenderInBrowser(t *testing.T) {
	t.Parallel()
	ctx := browser(t)
	dir := fixturetest.TempDir(t)

	// The checker fails where it should: small text, overlaps, a foreign
	// box, text off the canvas.
	bad := filepath.Join(dir, "bad.svg")
	os.WriteFile(bad, []byte(`<svg xmlns="http://www.w3.org/2000/svg" width="200" height="100" viewBox="0 0 600 300" font-size="11">
<text x="10" y="20">overlapping one</text><text x="20" y="22">overlapping two</text>
<g><rect x="10" y="50" width="100" height="30"/><text x="12" y="70">in a box</text></g><text x="30" y="72">on the box</text>
<text x="560" y="290">off the canvas</text></svg>`), 0o644)
	res, err := checkSVGFile(ctx, bad)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"font 3.7 px", `"overlapping one" overlaps "overlapping two"`, `"on the box" overlaps a box it is not in`, `"off the canvas" off the canvas`} {
		if !strings.Contains(strings.Join(res.Problems, "\n"), want) {
			t.Errorf("the checker misses %q on a bad SVG: %q", want, res.Problems)
		}
	}

	for i, src := range consistencySources(t) {
		code, out, errb := run("export", src, "-o", "svg")
		if code == ExitError {
			if c, _, _ := run("check", src); c == ExitError {
				continue // not an input gdtopo reads (a matrix alone, notes, a graph file): check says why
			}
		}
		if code != ExitOK {
			t.Errorf("%s: export -o svg: exit %d: %s", src, code, errb)
			continue
		}
		path := filepath.Join(dir, fmt.Sprintf("%d.svg", i))
		if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		res, err := checkSVGFile(ctx, path)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		if res.Texts == 0 {
			t.Errorf("%s: no text drawn", src)
		}
		if n := len(res.Problems); n > 0 {
			t.Errorf("%s: %d problems in chromium, among them:\n  %s", src, n, strings.Join(res.Problems[:min(n, 8)], "\n  "))
		}
	}

	t.Run("html", func(t *testing.T) { htmlInBrowser(t, ctx, dir) })
}

// htmlPanel is what the page shows after a click.
type htmlPanel struct {
	Visible    []string   `json:"visible"` // ids of the detail blocks shown
	Label      string     `json:"label"`
	Hops       [][]string `json:"hops"`
	Bottleneck string     `json:"bottleneck"`
	Prediction string     `json:"prediction"`
	Steps      [][]string `json:"steps"`
}

const htmlPanelJS = `(() => {
  const shown = [...document.querySelectorAll(".pair:not([hidden])")];
  const s = shown[0] || document.createElement("section");
  const rows = sel => [...s.querySelectorAll(sel + " tr")].slice(1).map(r => [...r.cells].map(c => c.textContent));
  const text = sel => (s.querySelector(sel) || {textContent: ""}).textContent;
  return {visible: shown.map(x => x.id), label: text(".label"), hops: rows(".hops"), bottleneck: text(".bottleneck"),
    prediction: text(".prediction"), steps: rows(".steps")};
})()`

func htmlInBrowser(t *testing.T, ctx context.Context, dir string) {
	// A NIC whose RDMA name is markup: it must stay text.
	const evil = `mlx5_0<img src=x onerror=window.pwned=1><script>window.pwned=2<\script>"'&`
	src := filepath.Join(dir, "hostile")
	if err := fixturetest.ExtractFile(fx("hgx-h100"), src); err != nil {
		t.Fatal(err)
	}
	renameRDMA(t, src, "mlx5_0", evil)

	code, page, errb := run("export", src, "-o", "html")
	if code != ExitOK {
		t.Fatalf("export -o html: exit %d: %s", code, errb)
	}
	file := filepath.Join(dir, "page.html")
	if err := os.WriteFile(file, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var requests []string
	err := chromedp.Listen(ctx, func(ev any) {
		if e, ok := ev.(*network.EventRequestWillBeSent); ok {
			mu.Lock()
			requests = append(requests, e.Request.URL)
			mu.Unlock()
		}
	})
	if err != nil {
		t.Fatal(err)
	}

	// The pairs to click, with the JSON report's account of each.
	for _, pair := range [][2]string{{"GPU0", "NIC0"}, {"GPU5", "NIC5"}, {"GPU3", "NIC6"}} {
		code, out, errb := run("path", pair[0], pair[1], src, "--explain", "-o", "json")
		if code != ExitOK {
			t.Fatalf("path %s %s: exit %d: %s", pair[0], pair[1], code, errb)
		}
		var v report.PathView
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Fatal(err)
		}
		err := chromedp.Do(ctx,
			chromedp.Navigate("file://"+file),
			chromedp.Click(chromedp.CSS(fmt.Sprintf(`button[title="%s → %s"]`, pair[0], pair[1]))),
		)
		if err != nil {
			t.Fatalf("%s-%s: %v", pair[0], pair[1], err)
		}
		panel, err := chromedp.Run(ctx, chromedp.Evaluate[htmlPanel](htmlPanelJS))
		if err != nil {
			t.Fatal(err)
		}
		pwned, err := chromedp.Run(ctx, chromedp.Evaluate[any](`window.pwned === undefined ? null : window.pwned`))
		if err != nil {
			t.Fatal(err)
		}
		if pwned != nil {
			t.Errorf("a device name ran as script: window.pwned = %v", pwned)
		}
		checkPanel(t, pair, &v.Pair, panel)
	}
	text, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.innerText`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text, evil) {
		t.Errorf("the hostile name is not shown as text")
	}
	mu.Lock()
	defer mu.Unlock()
	for _, u := range requests {
		if u != "file://"+file {
			t.Errorf("the page made a request: %s", u)
		}
	}
}

// checkPanel compares the detail block a click showed with the JSON
// report's pair.
func checkPanel(t *testing.T, pair [2]string, p *report.Pair, panel htmlPanel) {
	t.Helper()
	what := pair[0] + "-" + pair[1]
	if len(panel.Visible) != 1 {
		t.Fatalf("%s: %d detail blocks shown after the click, want 1", what, len(panel.Visible))
	}
	if want := "nvidia-smi " + report.Label(p) + ", NCCL " + report.NCCLLabel(p) + ": " + p.Path; panel.Label != want {
		t.Errorf("%s: label line %q, want %q", what, panel.Label, want)
	}
	if len(panel.Hops) != len(p.Hops) {
		t.Fatalf("%s: %d hops shown, the report has %d", what, len(panel.Hops), len(p.Hops))
	}
	for i, h := range p.Hops {
		row := panel.Hops[i]
		gbps := ""
		if h.Gbps > 0 {
			gbps = fmt.Sprintf("%g", h.Gbps)
		}
		if row[1] != h.From || row[2] != h.To || gbps != "" && row[5] != gbps {
			t.Errorf("%s: hop %d shown as %q; the report has %s -> %s at %s Gb/s", what, i+1, row, h.From, h.To, gbps)
		}
		if h.CurrentWidth > 0 && !strings.HasSuffix(row[4], fmt.Sprintf("x%d", h.CurrentWidth)) {
			t.Errorf("%s: hop %d link %q, the report has x%d", what, i+1, row[4], h.CurrentWidth)
		}
	}
	if want := fmt.Sprintf("%g Gb/s", p.BottleneckGbps); p.BottleneckGbps > 0 && !strings.Contains(panel.Bottleneck, want) {
		t.Errorf("%s: bottleneck %q, want %s", what, panel.Bottleneck, want)
	}
	x := p.Prediction
	if x == nil {
		t.Fatalf("%s: the report has no prediction", what)
	}
	for _, want := range []string{
		fmt.Sprintf("direct RDMA %.0f Gb/s", x.ExpectedGbps),
		fmt.Sprintf("write (NIC writes accelerator memory) %.0f", x.ExpectedWriteGbps),
		fmt.Sprintf("read %.0f", x.ExpectedReadGbps),
		fmt.Sprintf("efficiency %.0f%%", 100*x.Efficiency),
	} {
		if !strings.Contains(panel.Prediction, want) {
			t.Errorf("%s: prediction %q lacks %q", what, panel.Prediction, want)
		}
	}
	if len(panel.Steps) != len(x.Steps) || len(x.Steps) == 0 {
		t.Fatalf("%s: %d steps shown, the report has %d", what, len(panel.Steps), len(x.Steps))
	}
	for i, s := range x.Steps {
		if panel.Steps[i][1] != s.What || panel.Steps[i][2] != fmt.Sprintf("%.4g %s", s.Value, s.Unit) {
			t.Errorf("%s: step %d shown as %q, the report has %q %.4g %s", what, i+1, panel.Steps[i], s.What, s.Value, s.Unit)
		}
	}
}

// renameRDMA renames a capture's InfiniBand device.
func renameRDMA(t *testing.T, root, old, name string) {
	t.Helper()
	class := filepath.Join(root, "sys", "class", "infiniband")
	target, err := os.Readlink(filepath.Join(class, old))
	if err != nil {
		t.Fatal(err)
	}
	devDir := filepath.Join(class, filepath.Dir(target))
	if err := os.Rename(filepath.Join(devDir, old), filepath.Join(devDir, name)); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(class, old)); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(filepath.Dir(target), name), filepath.Join(class, name)); err != nil {
		t.Fatal(err)
	}
}

// TestHTMLEscapes runs without a browser: a NIC named with markup reaches
// the page escaped, and the page refers to nothing outside itself.
func TestHTMLEscapes(t *testing.T) {
	src := filepath.Join(t.TempDir(), "hostile")
	if err := fixturetest.ExtractFile(fx("hgx-h100"), src); err != nil {
		t.Fatal(err)
	}
	renameRDMA(t, src, "mlx5_0", `mlx5_0<img src=x onerror=alert(1)>`)
	code, page, errb := run("export", src, "-o", "html")
	if code != ExitOK {
		t.Fatalf("export -o html: exit %d: %s", code, errb)
	}
	if strings.Contains(page, "<img") || !strings.Contains(page, "mlx5_0&lt;img src=x onerror=alert(1)&gt;") {
		t.Error("the NIC's name is not escaped in the page")
	}
	if n := strings.Count(page, "<script"); n != 1 {
		t.Errorf("%d scripts in the page, want 1", n)
	}
	own := strings.ReplaceAll(page, `xmlns="http://www.w3.org/2000/svg"`, "") // a name, not a fetch
	for _, ref := range []string{"http:", "https:", "src=\"", "href=\"", "@import", "url("} {
		if strings.Contains(own, ref) {
			t.Errorf("the page refers outside itself: %q", ref)
		}
	}
}
