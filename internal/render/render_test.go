package render

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"strings"
	"testing"
)

func TestParseFormat(t *testing.T) {
	for _, ok := range []string{"table", "json", "markdown"} {
		if f, err := ParseFormat(ok, ViewFormats); err != nil || string(f) != ok {
			t.Errorf("ParseFormat(%q) = %q, %v", ok, f, err)
		}
	}
	if _, err := ParseFormat("yaml", ViewFormats); err == nil || !strings.Contains(err.Error(), "table, json, markdown") {
		t.Errorf("ParseFormat(yaml) error %v: want the valid formats listed", err)
	}
}

func TestTable(t *testing.T) {
	var b bytes.Buffer
	if err := NewPrinter(&b, Table).Table([]string{"GPU", "NIC"}, [][]string{{"GPU0", "NIC0 mlx5_0"}, {"GPU1", ""}}); err != nil {
		t.Fatal(err)
	}
	want := "GPU   NIC\n-----------------\nGPU0  NIC0 mlx5_0\nGPU1\n"
	if b.String() != want {
		t.Errorf("text table:\n%q\nwant\n%q", b.String(), want)
	}
	b.Reset()
	if err := NewPrinter(&b, Markdown).Table([]string{"GPU", "NIC"}, [][]string{{"GPU0", "NIC0"}}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.String(), "| GPU  | NIC  |\n|:-----|:-----|\n| GPU0 | NIC0 |") {
		t.Errorf("markdown table:\n%s", b.String())
	}
}

// TestPrinterReuse checks that a second table on one printer does not
// inherit the first one's rows or widths.
func TestPrinterReuse(t *testing.T) {
	var b bytes.Buffer
	p := NewPrinter(&b, Table)
	if err := p.Table([]string{"A"}, [][]string{{"a very long cell"}}); err != nil {
		t.Fatal(err)
	}
	b.Reset()
	if err := p.Table([]string{"B"}, [][]string{{"x"}}); err != nil {
		t.Fatal(err)
	}
	if want := "B\n-\nx\n"; b.String() != want {
		t.Errorf("second table %q, want %q", b.String(), want)
	}
}

// BenchmarkTable renders a table the size of an 8-GPU, 10-NIC server's
// pair table (80 rows of 10 cells) with a fresh Printer, as a check does.
func BenchmarkTable(b *testing.B) {
	rows := make([][]string, 80)
	for i := range rows {
		rows[i] = []string{fmt.Sprintf("GPU%d 0000:%02x:00.0", i%8, i), fmt.Sprintf("NIC%d mlx5_%d", i%10, i%10), "SYS", "SYS",
			"CPU root complex, cross socket", "16 GB/s", "7", "12.3 GB/s", "45%", "off"}
	}
	header := []string{"Accelerator", "NIC", "SMI", "NCCL", "Path", "Bottleneck", "Hops", "Expected", "Eff", "GDR"}
	b.ReportAllocs()
	for b.Loop() {
		if err := NewPrinter(io.Discard, Table).Table(header, rows); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTextOnly writes a line with a fresh Printer, as gdtopo tree does
// (it draws no table).
func BenchmarkTextOnly(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		NewPrinter(io.Discard, Table).Printf("%s  %s\n", "pci0000:15", "(NUMA 0, socket 0)")
	}
}

// TestHTMLScriptHash checks the written-out hash the HTML page's
// Content-Security-Policy admits its script by: a browser runs the script
// only if it matches.
func TestHTMLScriptHash(t *testing.T) {
	sum := sha256.Sum256([]byte(htmlScript))
	if want := "sha256-" + base64.StdEncoding.EncodeToString(sum[:]); htmlScriptHash != want {
		t.Errorf("htmlScriptHash = %s; the script's hash is %s", htmlScriptHash, want)
	}
}
