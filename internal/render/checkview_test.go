package render

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gdtopo/gdtopo/internal/report"
	"github.com/gdtopo/gdtopo/internal/reporttest"
)

// TestCheckDrawsItsView: a check's tables are drawn from the report's check
// view alone. The view is built, the report it was built from is then
// wiped, and what checkReport draws from the view is what Check writes of
// the report, in every layout the command line asks for.
func TestCheckDrawsItsView(t *testing.T) {
	// storage, findings with remedies, no accelerators, NVLink, notes
	for _, name := range []string{"gds-storage", "sys-4029gp-v100", "recorded-vm", "gb200-tray", "cloud-vm-flat"} {
		for _, f := range []Format{Table, Markdown} {
			for _, style := range []Style{{}, {Verbose: true}, {Width: 80, Verbose: true}, {Width: 40}} {
				if f == Markdown && style != (Style{}) {
					continue // markdown has one layout
				}
				r := reporttest.Fixture(t, name)
				var want, got bytes.Buffer
				if err := Check(&want, f, report.NewCheck("critical", []report.Result{report.NewResult(name, r, nil, 0)}), style); err != nil {
					t.Fatal(err)
				}
				p := NewPrinter(&got, f, style)
				v := report.NewCheckView(r, report.CheckViewOptions{Verbose: p.style.Verbose})
				*r = report.Report{}
				if err := checkReport(p, v); err != nil {
					t.Fatal(err)
				}
				if got.String() != want.String() {
					t.Errorf("%s, %s, %+v: drawn from the view alone:\n%s\nwant\n%s", name, f, style, got.String(), want.String())
				}
			}
		}
	}
}

// TestCheckDecidesNothing: the check's tables call into package report
// once a source, to build its check view (checkSection), and the code that
// draws the view (checkReport and everything it calls) calls nothing of
// report's: no verdict, label, note or summary is decided while drawing.
func TestCheckDecidesNothing(t *testing.T) {
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	funcs := map[string]*ast.FuncDecl{}   // functions, by name
	methods := map[string]*ast.FuncDecl{} // the Printer's methods, by name
	var builds []string                   // the functions calling report.NewCheckView
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		file, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			switch {
			case fn.Recv == nil:
				funcs[fn.Name.Name] = fn
			case receiverType(fn) == "Printer":
				methods[fn.Name.Name] = fn
			}
			for _, c := range reportCalls(fn) {
				if c == "NewCheckView" {
					builds = append(builds, fn.Name.Name)
				}
			}
		}
	}
	if !slices.Equal(builds, []string{"checkSection"}) {
		t.Errorf("report.NewCheckView is called in %v; want once, in checkSection", builds)
	}
	if funcs["checkReport"] == nil {
		t.Fatal("no checkReport")
	}
	seen := map[*ast.FuncDecl]bool{}
	queue := []*ast.FuncDecl{funcs["checkReport"]}
	for len(queue) > 0 {
		fn := queue[0]
		queue = queue[1:]
		if fn == nil || seen[fn] {
			continue
		}
		seen[fn] = true
		if calls := reportCalls(fn); len(calls) > 0 {
			t.Errorf("%s, which draws the check view, calls report.%s", fn.Name.Name, strings.Join(calls, ", report."))
		}
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			c, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			switch f := c.Fun.(type) {
			case *ast.Ident: // a function of this package
				queue = append(queue, funcs[f.Name])
			case *ast.SelectorExpr: // a method, perhaps the Printer's
				queue = append(queue, methods[f.Sel.Name])
			}
			return true
		})
	}
	if len(seen) < 5 {
		t.Errorf("checkReport reaches %d functions; the walk missed its calls", len(seen))
	}
}

// receiverType is the name of the type fn is a method of.
func receiverType(fn *ast.FuncDecl) string {
	t := fn.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// reportCalls are the functions of package report that fn calls.
func reportCalls(fn *ast.FuncDecl) []string {
	var out []string
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok {
			if s, ok := c.Fun.(*ast.SelectorExpr); ok {
				if x, ok := s.X.(*ast.Ident); ok && x.Name == "report" {
					out = append(out, s.Sel.Name)
				}
			}
		}
		return true
	})
	return out
}
