package hwloc

import (
	"encoding/xml"
	"errors"
	"io"
	"strings"
	"testing"
)

// wellFormed is encoding/xml's verdict on data up to the end of its root
// element, which is as far as ParseXML reads.
func wellFormed(data string) error {
	dec := xml.NewDecoder(strings.NewReader(data))
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch tok.(type) {
		case xml.StartElement:
			depth++
		case xml.EndElement:
			depth--
			if depth == 0 {
				return nil
			}
		}
	}
}

// TestXMLSyntax checks ParseXML's reader against encoding/xml on what XML
// allows and forbids around a small valid topology: both accept the same
// documents, and a refused one gets one line naming the input.
func TestXMLSyntax(t *testing.T) {
	obj := `<object type="Machine" os_index="0" nodeset="0x1"><object type="Bridge" bridge_type="0-1" bridge_pci="0000:[00-01]">` +
		`<object type="PCIDev" pci_busid="0000:00:02.0" pci_type="0302 [10de:2330] [10de:16c1] a1"/></object></object>`
	wrap := func(s string) string { return `<topology version="2.0">` + s + `</topology>` }
	machine := func(attrs string) string { return wrap(strings.Replace(obj, `type="Machine"`, attrs, 1)) }
	for name, doc := range map[string]string{
		"plain":                wrap(obj),
		"declaration":          `<?xml version="1.0" encoding="UTF-8"?>` + wrap(obj),
		"encoding utf-8":       `<?xml version="1.0" encoding="utf-8"?>` + wrap(obj),
		"encoding latin-1":     `<?xml version="1.0" encoding="ISO-8859-1"?>` + wrap(obj),
		"version 1.1":          `<?xml version="1.1"?>` + wrap(obj),
		"declaration inside":   wrap(`<?xml version="2.0"?>` + obj),
		"processing":           wrap(`<?hwloc x?>` + obj),
		"processing no target": wrap(`<? x?>` + obj),
		"doctype":              `<!DOCTYPE topology SYSTEM "hwloc2.dtd">` + wrap(obj),
		"doctype subset":       `<!DOCTYPE topology [ <!ENTITY x "y>"> <!-- a > b --> ]>` + wrap(obj),
		"doctype first byte":   `<!<DOCTYPE topology>` + wrap(obj),
		"comments":             `<!-- a -->` + wrap(`<!-- b -->`+obj+`<!---->`),
		"not a comment":        `<!-x>` + wrap(obj),
		"not a CDATA":          `<![CDAT[x]]>` + wrap(obj),
		"CDATA":                wrap(`<![CDATA[ <x> & ]]>` + obj),
		"]]> in text":          wrap(`a]]>b` + obj),
		"> in text":            wrap(`a>b` + obj),
		"entities":             wrap(`&lt;&gt;&amp;&apos;&quot;&#65;&#x41;&#xD800;` + obj),
		"unknown entity":       wrap(`&nbsp;` + obj),
		"entity no semicolon":  wrap(`&amp ` + obj),
		"empty reference":      wrap(`&#;` + obj),
		"upper X reference":    wrap(`&#X41;` + obj),
		"NUL reference":        wrap(`&#0;` + obj),
		"reference too big":    wrap(`&#1114112;` + obj),
		"entities in values":   machine(`type="Ma&#99;hine" name="&lt;&amp;&gt;"`),
		"< in a value":         machine(`type="Ma<chine"`),
		"> and ]]> in a value": machine(`type="Machine" name="a>b]]>"`),
		"single quotes":        machine(`type='Machine'`),
		"unquoted value":       machine(`type=Machine`),
		"attribute alone":      machine(`type`),
		"spaces around =":      machine("type \n= \t\"Machine\""),
		"no space between":     wrap(strings.Replace(obj, `type="Machine" os_index="0"`, `type="Machine"os_index="0"`, 1)),
		"two colons":           machine(`a:b:type="Machine"`),
		"bad UTF-8 in a value": machine("name=\"\xff\" type=\"Machine\""),
		"bad UTF-8 in text":    wrap("\xff" + obj),
		"bad UTF-8 in a name":  wrap("<\xff/>" + obj),
		"UTF-8 name":           wrap(`<é/>` + obj),
		"name from a digit":    wrap(`<1a/>` + obj),
		"name from a dot":      wrap(`<.a/>` + obj),
		"space after <":        wrap(`< a/>` + obj),
		"prefixed names":       `<h:topology version="2.0">` + strings.ReplaceAll(strings.ReplaceAll(obj, "<object", "<h:object"), "</object", "</h:object") + `</h:topology>`,
		"prefix mismatch":      wrap(strings.Replace(obj, "</object></object>", "</object></h:object>", 1)),
		"mismatched end":       wrap(strings.Replace(obj, "</object></object>", "</object></objectx>", 1)),
		"space in end tag":     wrap(strings.Replace(obj, "</object></object>", "</object ></object\n>", 1)),
		"junk in end tag":      wrap(strings.Replace(obj, "</object></object>", "</object x></object>", 1)),
		"empty end tag":        wrap(`</>` + obj),
		"end tag first":        `</a>` + wrap(obj),
		"text first":           `hello ` + wrap(obj),
		"after the root":       wrap(obj) + `<junk><`,
		"space before />":      wrap(strings.Replace(obj, `a1"/>`, `a1" />`, 1)),
		"space inside />":      wrap(strings.Replace(obj, `a1"/>`, `a1"/ >`, 1)),
		"unclosed":             `<topology version="2.0">` + obj,
		"unclosed element":     wrap(`<foo a="1">` + obj),
		"foreign elements":     wrap(`<foo a="1"><object type="PCIDev"/><b>x</b></foo>` + obj),
		"CRLF":                 strings.ReplaceAll(`<?xml version="1.0"?>`+"\n"+wrap("\n"+obj+"\n"), "\n", "\r\n"),
		"cut in a value":       `<topology version="2.0`,
		"cut in a tag":         `<topology version="2.0" /`,
		"cut in an end tag":    `<topology></topology`,
		"cut in a comment":     `<topology version="2.0"><!-- x`,
		"cut in CDATA":         wrap(`<![CDATA[ x` + obj),
	} {
		t.Run(name, func(t *testing.T) {
			want := wellFormed(doc)
			_, err := ParseXML("in.xml", []byte(doc))
			if (err == nil) != (want == nil) {
				t.Fatalf("ParseXML: %v; encoding/xml: %v", err, want)
			}
			if err != nil && (!strings.HasPrefix(err.Error(), "in.xml: ") || strings.Contains(err.Error(), "\n")) {
				t.Errorf("error %q: want one line naming the input", err)
			}
			if errors.Is(want, io.EOF) || want != nil && strings.Contains(want.Error(), "unexpected EOF") {
				if !strings.Contains(err.Error(), "truncated") && !strings.Contains(err.Error(), "ends inside") {
					t.Errorf("error %q on a cut input: want it said", err)
				}
			}
		})
	}
}

// TestXMLValues checks what the reader hands on: entities and CDATA
// decoded, line ends normalised (not those written as references), attributes in any order and quoting, a
// repeated attribute's last value, objects inside foreign elements left out.
func TestXMLValues(t *testing.T) {
	doc := "<?xml version=\"1.0\"?>\r\n<topology version='2.0'>\r\n" +
		`<object nodeset="0x1" os_index="0" type='Machine'>` +
		`<info value="a&amp;b &#x3b1;&#946;" name="HostName"/>` + "<info name=\"CPUModel\" value=\"x\r\ny&#13;z\"/>" +
		`<foo><object type="PCIDev" pci_busid="0000:00:09.0" pci_type="0302 [10de:2330]"/></foo>` +
		`<object type="Bridge" bridge_pci="0000:[00-01]" bridge_type="0-1">` +
		`<object pci_type="0207 [15b3:1021] [15b3:0041] 00" pci_busid="0000:00:03.0" type="PCIDev" pci_link_speed="63.02">` +
		`<object type="OSDev" name="wrong" name="mlx5_0"/></object>` +
		`<object type="PCIDev" pci_busid="0000:00:02.0" pci_type="0302 [10de:2330] [10de:16c1] a1"><![CDATA[<ignored>]]></object>` +
		"</object></object>\r\n</topology>\r\n"
	g, err := ParseXML("in.xml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if g.System.Hostname != "a&b αβ" || g.System.CPUModel != "x\ny\rz" {
		t.Errorf("hostname %q, CPU model %q", g.System.Hostname, g.System.CPUModel)
	}
	if len(g.Devices) != 2 {
		t.Fatalf("%d devices, want 2 (none from inside <foo>)", len(g.Devices))
	}
	nic := mustDevice(t, g, "0000:00:03.0")
	if len(nic.RDMA) != 1 || nic.RDMA[0] != "mlx5_0" || nic.Link.CurrentGTs != 32 || nic.Link.CurrentWidth != 16 || nic.SubDeviceID != 0x0041 {
		t.Errorf("NIC: RDMA %v, link %+v, subsystem %04x", nic.RDMA, nic.Link, nic.SubDeviceID)
	}
}
