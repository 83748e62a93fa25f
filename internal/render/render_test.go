package render

import (
	"bytes"
	"strings"
	"testing"
)

func TestParseFormat(t *testing.T) {
	for _, ok := range []string{"table", "json", "markdown"} {
		if f, err := ParseFormat(ok); err != nil || string(f) != ok {
			t.Errorf("ParseFormat(%q) = %q, %v", ok, f, err)
		}
	}
	if _, err := ParseFormat("yaml"); err == nil || !strings.Contains(err.Error(), "table, json, markdown") {
		t.Errorf("ParseFormat(yaml) error %v: want the valid formats listed", err)
	}
}

func TestTable(t *testing.T) {
	var b bytes.Buffer
	if err := Table(&b, Text, []string{"GPU", "NIC"}, [][]string{{"GPU0", "NIC0 mlx5_0"}, {"GPU1", ""}}); err != nil {
		t.Fatal(err)
	}
	want := "GPU   NIC\n-----------------\nGPU0  NIC0 mlx5_0\nGPU1\n"
	if b.String() != want {
		t.Errorf("text table:\n%q\nwant\n%q", b.String(), want)
	}
	b.Reset()
	if err := Table(&b, Markdown, []string{"GPU", "NIC"}, [][]string{{"GPU0", "NIC0"}}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.String(), "| GPU  | NIC  |\n|:-----|:-----|\n| GPU0 | NIC0 |") {
		t.Errorf("markdown table:\n%s", b.String())
	}
}
