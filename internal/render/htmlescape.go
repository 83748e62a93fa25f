package render

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"text/template"
	"text/template/parse"
)

// The page is a text/template whose every interpolation htmlEscape gives
// an escaper, as html/template would, writing byte for byte what
// html/template writes: html/template's package initialisation (its
// regexps and tables, about 170 K instructions and a dozen page faults)
// would otherwise be paid by every gdtopo run. htmlEscape knows the few
// contexts the page uses (element text, <title>, double-quoted plain
// attributes, <style> and <script> holding trusted constants) and refuses
// a page with an interpolation anywhere else, so that a change to the page
// cannot put a value where it would be escaped wrongly. TestHTMLEscaper
// checks it against html/template.

// trustedHTML is markup gdtopo drew itself (svg escapes every name it
// prints); it is written into element text as it is.
type trustedHTML string

// trustedCSS is a style sheet of gdtopo's own, written into <style> as it is.
type trustedCSS string

// trustedJS is a script of gdtopo's own, written into <script> as it is.
type trustedJS string

// The escapers' names in the page's function map; html/template's have
// the same role (escape.go, funcMap).
const (
	escHTMLText = "_gdtopo_htmltext" // element text: html/template's htmlEscaper
	escHTMLAttr = "_gdtopo_htmlattr" // attribute value or <title>: attrEscaper, rcdataEscaper
	escCSS      = "_gdtopo_css"      // <style>: only trustedCSS
	escJS       = "_gdtopo_js"       // <script>: only trustedJS
)

// htmlEscapers are the escapers htmlEscape names, for the page's
// function map.
func htmlEscapers() template.FuncMap {
	return template.FuncMap{
		escHTMLText: escapeHTMLText,
		escHTMLAttr: escapeHTMLAttr,
		escCSS:      escapeCSS,
		escJS:       escapeJS,
	}
}

// escapeHTMLText is html/template's htmlEscaper: trusted markup as it is,
// anything else as text.
func escapeHTMLText(args ...any) string {
	if len(args) == 1 {
		if h, ok := indirect(args[0]).(trustedHTML); ok {
			return string(h)
		}
	}
	return htmlEscapeString(stringify(args))
}

// escapeHTMLAttr is html/template's attrEscaper (quoted attribute values)
// and rcdataEscaper (<title>), which escape text alike. They would strip
// the tags of trusted markup; it is refused instead.
func escapeHTMLAttr(args ...any) (string, error) {
	if len(args) == 1 {
		if _, ok := indirect(args[0]).(trustedHTML); ok {
			return "", errors.New("markup in an attribute value or <title>")
		}
	}
	return htmlEscapeString(stringify(args)), nil
}

// escapeCSS writes a trusted style sheet, as html/template's
// cssValueFilter does; it refuses anything else.
func escapeCSS(args ...any) (string, error) {
	if len(args) == 1 {
		if s, ok := indirect(args[0]).(trustedCSS); ok {
			return string(s), nil
		}
	}
	return "", errors.New("a value in <style> that is not gdtopo's own style sheet")
}

// escapeJS writes a trusted script, as html/template's jsValEscaper does;
// it refuses anything else.
func escapeJS(args ...any) (string, error) {
	if len(args) == 1 {
		if s, ok := indirect(args[0]).(trustedJS); ok {
			return string(s), nil
		}
	}
	return "", errors.New("a value in <script> that is not gdtopo's own script")
}

// stringify is the text of an action's value as html/template's stringify
// makes it (content.go): a lone string after dereferencing pointers, else
// fmt.Sprint of the values less untyped nils, each dereferenced down to a
// fmt.Stringer, an error or a base value.
func stringify(args []any) string {
	if len(args) == 1 {
		if s, ok := indirect(args[0]).(string); ok {
			return s
		}
	}
	vs := make([]any, 0, len(args))
	for _, a := range args {
		if a != nil {
			vs = append(vs, indirectToStringerOrError(a))
		}
	}
	return fmt.Sprint(vs...)
}

// indirect is a after dereferencing every pointer, as html/template's.
func indirect(a any) any {
	if a == nil || reflect.TypeOf(a).Kind() != reflect.Pointer {
		return a
	}
	v := reflect.ValueOf(a)
	for v.Kind() == reflect.Pointer && !v.IsNil() {
		v = v.Elem()
	}
	return v.Interface()
}

// indirectToStringerOrError is a dereferenced until it is a fmt.Stringer,
// an error, a base value or nil, as html/template's.
func indirectToStringerOrError(a any) any {
	stringer, errType := reflect.TypeFor[fmt.Stringer](), reflect.TypeFor[error]()
	v := reflect.ValueOf(a)
	for !v.Type().Implements(stringer) && !v.Type().Implements(errType) && v.Kind() == reflect.Pointer && !v.IsNil() {
		v = v.Elem()
	}
	return v.Interface()
}

// htmlEscapeString is s escaped by html/template's htmlReplacementTable
// (html.go), which element text, quoted attribute values and RCDATA share:
// NUL, both quotes, '&', '+', '<' and '>'. Every other byte, invalid UTF-8
// included, stays as it is (htmlReplacer with badRunes). Only ASCII bytes
// are replaced, so a byte-wise scan matches html/template's rune-wise one.
func htmlEscapeString(s string) string {
	var b strings.Builder
	written := 0
	for i := 0; i < len(s); i++ {
		var repl string
		switch s[i] {
		case 0:
			repl = "\uFFFD"
		case '"':
			repl = "&#34;"
		case '&':
			repl = "&amp;"
		case '\'':
			repl = "&#39;"
		case '+':
			repl = "&#43;"
		case '<':
			repl = "&lt;"
		case '>':
			repl = "&gt;"
		default:
			continue
		}
		if written == 0 {
			b.Grow(len(s) + 16)
		}
		b.WriteString(s[written:i])
		b.WriteString(repl)
		written = i + 1
	}
	if written == 0 {
		return s
	}
	b.WriteString(s[written:])
	return b.String()
}

// htmlState is where in the page's markup the template stands; a subset
// of html/template's states (context.go).
type htmlState uint8

const (
	stText        htmlState = iota // element content
	stTag                          // in a start or end tag, between attributes
	stAttrName                     // in an attribute's name
	stAfterName                    // after an attribute's name
	stBeforeValue                  // after an attribute's '='
	stAttr                         // in a double-quoted attribute value
	stRCDATA                       // in <title> or <textarea>
	stRaw                          // in <script> or <style>
)

// htmlContext is the state with what the escaper needs of it.
type htmlContext struct {
	state   htmlState
	element string // script, style, title, textarea or meta, lower case; "" for any other
	attr    string // the attribute's lower-case name, in stAttrName to stAttr
	value   string // a meta's content's text so far, in stAttr
}

// htmlPlainAttr reports whether an interpolation may stand in attribute
// name: one html/template escapes as plain text (attr.go, attrType). One
// that names a URL, a script or a style must not be added: html/template
// filters those differently.
func htmlPlainAttr(name string) bool {
	switch name {
	case "class", "id", "title", "data-pair":
		return true
	}
	return false
}

// htmlSpecialElement reports whether html/template treats element name's
// content or attributes apart (transition.go, elementNameMap).
func htmlSpecialElement(name string) bool {
	switch name {
	case "script", "style", "textarea", "title", "meta":
		return true
	}
	return false
}

// escaper is the escaper an interpolation in c needs, as html/template's
// escapeAction picks it.
func (c htmlContext) escaper() (string, error) {
	switch c.state {
	case stText:
		return escHTMLText, nil
	case stRCDATA:
		return escHTMLAttr, nil
	case stAttr:
		if c.element == "meta" && c.attr == "content" {
			// html/template filters a URL after "url=" in a meta's content,
			// which it reads with character references decoded.
			if strings.Contains(strings.ToLower(c.value), "url") || strings.Contains(c.value, "&") {
				return "", errors.New(`an interpolation after "url" or '&' in a meta element's content`)
			}
			return escHTMLAttr, nil
		}
		if !htmlPlainAttr(c.attr) {
			return "", fmt.Errorf("an interpolation in attribute %q, which html/template may not escape as plain text", c.attr)
		}
		return escHTMLAttr, nil
	case stRaw:
		if c.element == "style" {
			return escCSS, nil
		}
		return escJS, nil
	}
	return "", errors.New("an interpolation inside a tag, outside any attribute value")
}

// after is the context after the template text s, which starts in c.
// Text html/template would rewrite (a '<' starting no tag, a comment,
// anything in <script> or <style>) and markup it parses in ways this does
// not follow (single-quoted or unquoted attribute values, a script's
// type) are refused.
func (c htmlContext) after(s string) (htmlContext, error) {
	for i := 0; i < len(s); {
		b := s[i]
		switch c.state {
		case stText:
			j := strings.IndexByte(s[i:], '<')
			if j < 0 {
				return c, nil
			}
			i += j
			k := i + 1
			end := strings.HasPrefix(s[i:], "</")
			if end {
				k++
			}
			n := tagNameLen(s[k:])
			if n == 0 {
				if len(s)-i >= 9 && strings.EqualFold(s[i:i+9], "<!DOCTYPE") {
					i++
					continue
				}
				return c, fmt.Errorf("%q: a '<' that starts no tag (html/template rewrites it, or drops a comment)", s[i:min(len(s), i+10)])
			}
			c = htmlContext{state: stTag}
			if name := strings.ToLower(s[k : k+n]); !end && htmlSpecialElement(name) {
				c.element = name
			}
			i = k + n
		case stTag:
			switch {
			case isHTMLSpace(b):
				i++
			case b == '>':
				el := c.element
				c = htmlContext{state: stText}
				switch el {
				case "script", "style":
					c.state, c.element = stRaw, el
				case "title", "textarea":
					c.state, c.element = stRCDATA, el
				}
				i++
			case isAttrNameByte(b):
				c.state, c.attr = stAttrName, ""
			default:
				return c, fmt.Errorf("%q in a tag", s[i:min(len(s), i+10)])
			}
		case stAttrName:
			if isAttrNameByte(b) {
				c.attr += strings.ToLower(s[i : i+1])
				i++
			} else {
				c.state = stAfterName
			}
		case stAfterName:
			switch {
			case isHTMLSpace(b):
				i++
			case b == '=':
				c.state = stBeforeValue
				i++
			default:
				c.state, c.attr = stTag, ""
			}
		case stBeforeValue:
			switch {
			case isHTMLSpace(b):
				i++
			case b == '"':
				if c.element == "script" && c.attr == "type" {
					return c, errors.New("a script's type, which decides whether html/template escapes its content as script")
				}
				c.state, c.value = stAttr, ""
				i++
			default:
				return c, fmt.Errorf("attribute %q's value is not in double quotes", c.attr)
			}
		case stAttr:
			j := strings.IndexByte(s[i:], '"')
			if j < 0 {
				j = len(s) - i
			}
			if c.element == "meta" && c.attr == "content" {
				c.value += s[i : i+j]
			}
			if i += j; i == len(s) {
				return c, nil
			}
			i++
			c = htmlContext{state: stTag, element: c.element}
		case stRCDATA, stRaw:
			j := indexEndTag(s[i:], c.element)
			text := s[i:]
			if j >= 0 {
				text = s[i : i+j]
			}
			if c.state == stRaw && text != "" {
				return c, fmt.Errorf("text in <%s>, which html/template would parse (and drop its comments): make it a constant", c.element)
			}
			if strings.Contains(text, "<") {
				return c, fmt.Errorf("a '<' in <%s> (html/template rewrites it)", c.element)
			}
			if j < 0 {
				return c, nil
			}
			c = htmlContext{state: stText}
			i += j
		}
	}
	return c, nil
}

// tagNameLen is the length of the tag name s starts with, as
// html/template's eatTagName reads it; 0 when s starts with none.
func tagNameLen(s string) int {
	if s == "" || !isASCIIAlpha(s[0]) {
		return 0
	}
	j := 1
	for j < len(s) {
		if x := s[j]; isASCIIAlpha(x) || '0' <= x && x <= '9' {
			j++
		} else if (x == ':' || x == '-') && j+1 < len(s) && (isASCIIAlpha(s[j+1]) || '0' <= s[j+1] && s[j+1] <= '9') {
			j += 2
		} else {
			break
		}
	}
	return j
}

// indexEndTag is the index in s of the end tag of element, as
// html/template's indexTagEnd finds it; -1 when s has none.
func indexEndTag(s, element string) int {
	for at := 0; ; {
		i := strings.Index(s[at:], "</")
		if i < 0 {
			return -1
		}
		i += at
		rest := s[i+2:]
		if len(rest) > len(element) && strings.EqualFold(rest[:len(element)], element) && strings.IndexByte("> \t\n\f/", rest[len(element)]) >= 0 {
			return i
		}
		at = i + 2
	}
}

func isHTMLSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\f' || b == '\r' }

func isASCIIAlpha(b byte) bool { return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' }

func isAttrNameByte(b byte) bool {
	return isASCIIAlpha(b) || '0' <= b && b <= '9' || b == '-' || b == '_' || b == ':'
}

// htmlEscape gives every interpolation in t's tree the escaper its
// context needs, as html/template's escaper does: an escaper command is
// appended to each action's pipeline (not to the pipelines if, range and
// with test). It refuses a tree with an interpolation in a context it
// does not know, or markup html/template would read differently.
func htmlEscape(t *template.Template) error {
	e := htmlEscaperWalk{tree: t.Tree}
	c, err := e.walk(htmlContext{}, t.Tree.Root)
	if err != nil {
		return fmt.Errorf("template %s: %w", t.Name(), err)
	}
	if c != (htmlContext{}) {
		return fmt.Errorf("template %s ends inside a tag or an element's content", t.Name())
	}
	return nil
}

// htmlEscaperWalk walks one template's tree.
type htmlEscaperWalk struct {
	tree *parse.Tree
}

// walk escapes the interpolations of n, which starts in c, and returns the
// context after it.
func (e htmlEscaperWalk) walk(c htmlContext, n parse.Node) (htmlContext, error) {
	switch n := n.(type) {
	case *parse.ListNode:
		if n == nil {
			return c, nil
		}
		for _, m := range n.Nodes {
			var err error
			if c, err = e.walk(c, m); err != nil {
				return c, err
			}
		}
		return c, nil
	case *parse.TextNode:
		c1, err := c.after(string(n.Text))
		if err != nil {
			return c, fmt.Errorf("%s: %w", e.at(n), err)
		}
		return c1, nil
	case *parse.CommentNode:
		return c, nil
	case *parse.ActionNode:
		if len(n.Pipe.Decl) != 0 {
			return c, nil // a variable's assignment, not an interpolation
		}
		for _, cmd := range n.Pipe.Cmds {
			if id, ok := cmd.Args[0].(*parse.IdentifierNode); ok && (id.Ident == "html" || id.Ident == "urlquery" || id.Ident == "js") {
				return c, fmt.Errorf("%s: %s escapes a second time", e.at(n), id.Ident)
			}
		}
		name, err := c.escaper()
		if err != nil {
			return c, fmt.Errorf("%s: %w", e.at(n), err)
		}
		n.Pipe.Cmds = append(n.Pipe.Cmds, &parse.CommandNode{NodeType: parse.NodeCommand, Pos: n.Pos,
			Args: []parse.Node{parse.NewIdentifier(name).SetTree(e.tree).SetPos(n.Pos)}})
		return c, nil
	case *parse.IfNode:
		return e.branch(c, &n.BranchNode, false)
	case *parse.WithNode:
		return e.branch(c, &n.BranchNode, false)
	case *parse.RangeNode:
		return e.branch(c, &n.BranchNode, true)
	}
	return c, fmt.Errorf("%s: %s is not escaped (only text, actions, if, range and with are)", e.at(n), n)
}

// branch escapes an if, with or range, which must end in the context it
// ends in whichever way it goes; a range's body must end where it starts,
// as it may run again.
func (e htmlEscaperWalk) branch(c htmlContext, b *parse.BranchNode, loop bool) (htmlContext, error) {
	c1, err := e.walk(c, b.List)
	if err != nil {
		return c, err
	}
	c2, err := e.walk(c, b.ElseList)
	if err != nil {
		return c, err
	}
	if c1 != c2 || loop && c1 != c {
		return c, fmt.Errorf("%s: its branches end in different contexts", e.at(b))
	}
	return c1, nil
}

// at is n's place in the template, "name:line:column".
func (e htmlEscaperWalk) at(n parse.Node) string {
	loc, _ := e.tree.ErrorContext(n)
	return loc
}
