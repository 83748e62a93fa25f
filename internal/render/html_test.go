package render

import (
	"bytes"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gdtopo/gdtopo/fixtures/fixturetest"
	"github.com/gdtopo/gdtopo/internal/report"
	"github.com/gdtopo/gdtopo/internal/reporttest"
	"github.com/gdtopo/gdtopo/internal/source"
	"github.com/gdtopo/gdtopo/internal/sysfs"
	"github.com/gdtopo/gdtopo/topology"
)

// hostile is what a stranger's capture might name things: markup, both
// quotes, entities, '+', NUL, invalid UTF-8, non-ASCII, a line separator,
// template and comment syntax.
const hostile = "<script>alert('x\"&amp;+1')</script>\x00\xff\xfe\xc3 é中\u2028{{.}}<!--]]>-->"

// spoil appends hostile to every exported string v reaches (all alike, so
// that lookups by BDF still match), but for the topology graph's.
func spoil(v reflect.Value, seen map[uintptr]bool) {
	switch v.Kind() {
	case reflect.String:
		if v.CanSet() {
			v.SetString(v.String() + hostile)
		}
	case reflect.Pointer:
		if v.IsNil() || seen[v.Pointer()] || v.Type() == reflect.TypeFor[*topology.Graph]() {
			return
		}
		seen[v.Pointer()] = true
		spoil(v.Elem(), seen)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				spoil(v.Field(i), seen)
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			spoil(v.Index(i), seen)
		}
	}
}

// TestHTMLHostile: hostile text in every string of a fixture's report
// reaches the page escaped: no markup of its own, every character of it
// shown as text.
func TestHTMLHostile(t *testing.T) {
	for _, name := range fixturetest.Names(t) {
		t.Run(name, func(t *testing.T) {
			r := reporttest.Fixture(t, name)
			spoil(reflect.ValueOf(r), map[uintptr]bool{})
			r.Source.Name = hostile
			var b bytes.Buffer
			if err := html(&b, r); err != nil {
				t.Fatal(err)
			}
			page := b.String()
			if strings.Contains(page, "<script>alert") || strings.Contains(page, "{{.}}<!--") {
				t.Error("the hostile text reached the page as markup")
			}
			if !strings.Contains(page, "<title>gdtopo: &lt;script&gt;alert(&#39;x&#34;&amp;amp;&#43;1&#39;)") {
				t.Error("the hostile source name is not escaped in the title")
			}
			if n := strings.Count(page, "<script>"); n != 1 {
				t.Errorf("%d <script> elements; want the page's own one", n)
			}
		})
	}
}

// TestHTMLFits1400: the page fits a 1,400-pixel window: the body is at
// most that wide, and the picture, however wide its drawing, scales to the
// body (its SVG has a viewBox; the style sizes it to the container). The
// matrix is shown once.
func TestHTMLFits1400(t *testing.T) {
	r := reporttest.Fixture(t, "hgx-h100")
	var b bytes.Buffer
	if err := html(&b, r); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	m := regexp.MustCompile(`body\{[^}]*max-width:(\d+)px`).FindStringSubmatch(page)
	if m == nil {
		t.Fatal("the body has no max-width")
	}
	if px, err := strconv.Atoi(m[1]); err != nil || px > 1400 {
		t.Errorf("body max-width %spx, want at most 1400px", m[1])
	}
	if !strings.Contains(page, ".picture svg{max-width:100%;height:auto}") || !regexp.MustCompile(`<svg [^>]*viewBox=`).MatchString(page) {
		t.Error("the picture does not scale to the page")
	}
	// the matrix once: the page's own, not again in the picture
	if strings.Count(page, `class="matrix"`) != 1 || strings.Contains(page, "nvidia-smi label, accelerator × NIC") {
		t.Error("the page shows the matrix twice")
	}
}

// TestHTMLNamesNoCommand: the page is sent to people who may not have
// gdtopo, so it says what it is, a picture of the source, and lists the
// cells where the host's matrix differs itself rather than pointing to
// gdtopo verify (check's summary does both).
func TestHTMLNamesNoCommand(t *testing.T) {
	r := reporttest.Fixture(t, "hgx-h100")
	src, err := source.Open("../../fixtures/hgx-h100.tar.gz")
	if err != nil {
		t.Fatal(err)
	}
	g, err := sysfs.Read(src.Root)
	if err != nil {
		t.Fatal(err)
	}
	r.Lacks = append(r.Lacks, g.NVLinkLack()) // as load adds it
	r.NVSMI = &report.NVSMICheck{Tool: "nvidia-smi topo -m", Compared: 2, Agree: 1,
		Differ: []report.NVSMICell{{Row: "GPU0", Column: "NIC1", A: "0000:1a:00.0", B: "0000:1f:00.0", Driver: "SYS", Source: "PXB", Why: "the host's own reading"}}}
	if !strings.Contains(strings.Join(report.SummaryRows(r)[8], " "), "gdtopo verify") {
		t.Fatal("check's summary of hgx-h100 no longer points to gdtopo verify: this test needs a source that lacks NVLink")
	}
	var b bytes.Buffer
	if err := html(&b, r); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if m := regexp.MustCompile(`gdtopo (check|verify|tree|matrix|path|compare|fleet|snapshot|export|calibrate)`).FindString(page); m != "" {
		t.Errorf("the page names a command: %q", m)
	}
	if !strings.Contains(page, `<p id="about">A picture of this source`) || !strings.Contains(page, "this page pictures the source alone") {
		t.Error("the page does not say it pictures the source")
	}
	if !strings.Contains(page, "1 differ (listed below)") || !regexp.MustCompile(`<table id="differ">.*\n<tr><td>GPU0</td><td>NIC1</td><td>SYS</td><td>PXB</td>`).MatchString(page) {
		t.Error("the cells that differ are not listed on the page")
	}
}
