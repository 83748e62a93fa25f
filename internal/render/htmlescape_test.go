package render

import (
	"bytes"
	"errors"
	"fmt"
	htmltemplate "html/template"
	"reflect"
	"strings"
	"testing"
	"text/template"

	"github.com/gdtopo/gdtopo/fixtures/fixturetest"
	"github.com/gdtopo/gdtopo/internal/reporttest"
	"github.com/gdtopo/gdtopo/topology"
)

// hostile is what a stranger's capture might name things: markup, both
// quotes, entities, '+', NUL, invalid UTF-8, non-ASCII, a line separator,
// template and comment syntax.
const hostile = "<script>alert('x\"&amp;+1')</script>\x00\xff\xfe\xc3 é中\u2028{{.}}<!--]]>-->"

// oracleHTML renders htmlPage with html/template, the trusted values typed
// as html/template's: what the page was before htmlEscape.
func oracleHTML(t *testing.T, data any) string {
	t.Helper()
	v := reflect.ValueOf(data)
	if v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	m := map[string]any{}
	for i := range v.NumField() {
		m[v.Type().Field(i).Name] = oracleValue(v.Field(i).Interface())
	}
	tmpl, err := htmltemplate.New("page").Funcs(htmltemplate.FuncMap{"remedy": htmlRemedy}).Parse(htmlPage)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := tmpl.Execute(&b, m); err != nil {
		t.Fatalf("html/template: %v", err)
	}
	return b.String()
}

// oracleValue is v with a trusted type made html/template's.
func oracleValue(v any) any {
	switch x := v.(type) {
	case trustedHTML:
		return htmltemplate.HTML(x)
	case trustedCSS:
		return htmltemplate.CSS(x)
	case trustedJS:
		return htmltemplate.JS(x)
	}
	return v
}

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

// TestHTMLEscaper: the page htmlEscape escapes is byte for byte the page
// html/template writes, for every bundled fixture and for each with
// hostile text in every string of its report.
func TestHTMLEscaper(t *testing.T) {
	for _, name := range fixturetest.Names(t) {
		for _, spoilt := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/hostile=%v", name, spoilt), func(t *testing.T) {
				r := reporttest.Fixture(t, name)
				if spoilt {
					spoil(reflect.ValueOf(r), map[uintptr]bool{})
					r.Source.Name = hostile
				}
				data, err := htmlDataOf(r)
				if err != nil {
					t.Fatal(err)
				}
				var got bytes.Buffer
				if err := html(&got, r); err != nil {
					t.Fatal(err)
				}
				want := oracleHTML(t, data)
				if got.String() != want {
					i := 0
					for i < min(got.Len(), len(want)) && got.String()[i] == want[i] {
						i++
					}
					t.Fatalf("the page differs from html/template's at byte %d:\n got %q\nwant %q",
						i, got.String()[max(0, i-80):min(got.Len(), i+80)], want[max(0, i-80):min(len(want), i+80)])
				}
				if spoilt && (strings.Contains(want, "<script>alert") || !strings.Contains(want, "&lt;script&gt;alert(&#39;x&#34;&amp;amp;&#43;1&#39;)")) {
					t.Error("the hostile text is not escaped in the page")
				}
			})
		}
	}
}

// stringer prints as a word; a pointer to one is printed by its method.
type stringer struct{ s string }

func (s stringer) String() string { return "<" + s.s + ">" }

// TestHTMLEscaperValues: values of every kind an action may print are
// escaped as html/template escapes them, in each context the page uses.
func TestHTMLEscaperValues(t *testing.T) {
	const page = `<!DOCTYPE html><meta http-equiv="Content-Security-Policy" content="a '{{.}}'">` +
		`<title>x: {{.}}</title><p class="{{.}}" id="p-{{.}}" title="{{.}}" data-pair="{{.}}" hidden>{{.}}</p>` +
		`{{if .}}<b>{{.}}</b>{{else}}<i>{{.}}</i>{{end}}{{with $x := .}}<pre>{{$x}}{{$x}}</pre>{{end}}`
	s := hostile
	var nilString *string
	values := []any{hostile, &s, &nilString, nil, 0, -1.5, true, []string{hostile, "b"}, map[string]int{"<": 1},
		stringer{hostile}, &stringer{"p"}, errors.New(hostile), trustedCSS(hostile), trustedJS(hostile),
		struct{ A, B string }{"<", ">"}, "", "+", "\x00", "\xff", "é"}
	for i, v := range values {
		var want bytes.Buffer
		if err := htmltemplate.Must(htmltemplate.New("v").Parse(page)).Execute(&want, oracleValue(v)); err != nil {
			t.Fatalf("%d: html/template: %v", i, err)
		}
		tmpl := template.Must(template.New("v").Funcs(htmlEscapers()).Parse(page))
		if err := htmlEscape(tmpl); err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := tmpl.Execute(&got, v); err != nil {
			t.Fatalf("%d: %v", i, err)
		}
		if got.String() != want.String() {
			t.Errorf("%d (%T):\n got %q\nwant %q", i, v, got.String(), want.String())
		}
	}
	// Trusted values in the contexts that take them.
	const trusted = `<div>{{.H}}</div><style>{{.C}}</style><script>{{.J}}</script>`
	data := map[string]any{"H": trustedHTML("<b>" + hostile + "</b>"), "C": trustedCSS("p{color:red}</x>"), "J": trustedJS("var a = 1 < 2 && '\"';")}
	oracle := map[string]any{}
	for k, v := range data {
		oracle[k] = oracleValue(v)
	}
	var want, got bytes.Buffer
	if err := htmltemplate.Must(htmltemplate.New("t").Parse(trusted)).Execute(&want, oracle); err != nil {
		t.Fatal(err)
	}
	tmpl := template.Must(template.New("t").Funcs(htmlEscapers()).Parse(trusted))
	if err := htmlEscape(tmpl); err != nil {
		t.Fatal(err)
	}
	if err := tmpl.Execute(&got, data); err != nil {
		t.Fatal(err)
	}
	if got.String() != want.String() {
		t.Errorf("trusted values:\n got %q\nwant %q", got.String(), want.String())
	}
}

// TestHTMLEscaperRefuses: an interpolation where htmlEscape cannot escape
// as html/template does, or markup html/template would rewrite, is refused
// when the page is parsed; a value that is not trusted in <style>,
// <script> or markup in an attribute, when it is written.
func TestHTMLEscaperRefuses(t *testing.T) {
	for _, page := range []string{
		`<a href="{{.}}">`,
		`<img src="{{.}}">`,
		`<p onclick="{{.}}">`,
		`<p style="{{.}}">`,
		`<p data-url="{{.}}">`,
		`<p title={{.}}>`,
		`<p title='{{.}}'>`,
		`<p {{.}}>`,
		`<{{.}}>`,
		`<p title="a" {{.}}>`,
		`<!-- {{.}} -->`,
		`a < b {{.}}`,
		`<title>a < b</title>`,
		`<script>var x = {{.}}</script>`,
		`<style>/* c */</style>`,
		`<script type="text/plain">{{.}}</script>`,
		`<meta http-equiv="refresh" content="0; url={{.}}">`,
		`<meta http-equiv="refresh" content="0; &#117;rl={{.}}">`,
		`{{define "x"}}{{.}}{{end}}{{template "x" .}}`,
		`{{.| html}}`,
		`{{if .}}<p title="{{end}}">`,
		`{{range .}}<p title="{{end}}"`,
		`<p title="{{.}}`,
	} {
		tmpl, err := template.New("r").Funcs(htmlEscapers()).Parse(page)
		if err != nil {
			t.Fatalf("%s: %v", page, err)
		}
		if err := htmlEscape(tmpl); err == nil {
			t.Errorf("%s: escaped", page)
		}
	}
	for _, c := range []struct {
		page string
		data any
	}{
		{`<style>{{.}}</style>`, "p{}"},
		{`<style>{{.}}</style>`, trustedJS("p{}")},
		{`<script>{{.}}</script>`, "alert(1)"},
		{`<script>{{.}}</script>`, trustedHTML("alert(1)")},
		{`<p title="{{.}}">`, trustedHTML("<b>x</b>")},
		{`<title>{{.}}</title>`, trustedHTML("<b>x</b>")},
	} {
		tmpl := template.Must(template.New("r").Funcs(htmlEscapers()).Parse(c.page))
		if err := htmlEscape(tmpl); err != nil {
			t.Fatalf("%s: %v", c.page, err)
		}
		if err := tmpl.Execute(&bytes.Buffer{}, c.data); err == nil {
			t.Errorf("%s with %T: written", c.page, c.data)
		}
	}
}
