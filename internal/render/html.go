package render

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"strconv"
	"strings"

	"github.com/gdtopo/gdtopo/internal/report"
	"github.com/gdtopo/gdtopo/internal/termsafe"
	"github.com/gdtopo/gdtopo/internal/words"
	"github.com/gdtopo/gdtopo/topology"
)

// htmlScript shows the detail block of the pair whose matrix cell was
// clicked. It is the page's only script; the page's Content-Security-Policy
// admits it by its hash and nothing else (no fetches, no other scripts).
const htmlScript = `document.addEventListener("click", function (e) {
  var b = e.target.closest("button[data-pair]");
  if (!b) return;
  document.querySelectorAll(".pair").forEach(function (d) { d.hidden = true; });
  document.querySelectorAll("button[data-pair]").forEach(function (x) { x.classList.remove("on"); });
  var d = document.getElementById("pair-" + b.dataset.pair);
  d.hidden = false;
  b.classList.add("on");
  d.scrollIntoView({block: "nearest"});
});`

// htmlScriptHash is htmlScript's SHA-256 in base64, as the page's
// Content-Security-Policy names it (CSP Level 3, "hash-source"). It is
// written out rather than computed: crypto/sha256 would bring the FIPS
// module's initialisation into every gdtopo run; TestHTMLScriptHash
// checks it against the script.
const htmlScriptHash = "sha256-oSH8UfgtLtmlbLOMJ1FHZIlNHVJutBd5WUi2ZOXajns="

const htmlStyle = `body{font-family:system-ui,sans-serif;margin:1.5em;color:#111827;max-width:1400px}
h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em}
table{border-collapse:collapse;margin:.4em 0}td,th{border:1px solid #d1d5db;padding:.2em .5em;text-align:left;vertical-align:top}
th{background:#f3f4f6}.kv th{background:none;font-weight:600}
.matrix button{font:inherit;font-family:monospace;border:0;padding:.2em .6em;cursor:pointer;min-width:4em}
.matrix button.best{outline:2px solid #111827}.matrix button.on{outline:3px solid #2563eb}
.PIX{background:#86efac}.PXB{background:#d9f99d}.PHB{background:#fde68a}.NODE{background:#fdba74}.SYS{background:#fca5a5}.NV{background:#93c5fd}
.pair{border:1px solid #9ca3af;border-radius:6px;padding:.2em 1em 1em;margin-top:1em}
.critical{color:#b91c1c}.warning{color:#b45309}.info{color:#1d4ed8}
pre{background:#f3f4f6;padding:.5em;overflow-x:auto}.picture{overflow-x:auto}.picture svg{max-width:100%;height:auto}`

const htmlPage = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src '{{.ScriptHash}}'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>gdtopo: {{.Report.Source.Name}}</title>
<style>{{.Style}}</style>
</head>
<body>
<h1>gdtopo: {{.Report.Source.Name}}</h1>
<p id="about">A picture of this source as gdtopo read it: its PCI tree, nvidia-smi's label for each accelerator and NIC pair, the rail plan and the findings. It holds only what the source holds.</p>
<p id="verdict">{{.Verdict}}</p>
<h2>Summary</h2>
<table class="kv" id="summary">{{range .Summary}}<tr><th>{{index . 0}}</th><td>{{index . 1}}</td></tr>{{end}}</table>
{{with .Report.NVSMI}}{{if .Differ}}<h2>Where {{.ToolName}} differs from the source</h2>
<table id="differ"><tr><th>Row</th><th>Column</th><th>{{.ToolName}}</th><th>Source</th><th>Why</th></tr>
{{range .Differ}}<tr><td>{{.Row}}</td><td>{{.Column}}</td><td>{{.Driver}}</td><td>{{.Source}}</td><td>{{.Why}}</td></tr>
{{end}}</table>{{end}}{{end}}
{{if .Rows}}<h2>Accelerator × NIC: nvidia-smi labels</h2>
<p>Click a label for the pair's path and the arithmetic of its prediction. Outlined: each accelerator's NIC in the rail plan.</p>
<table class="matrix" id="matrix"><tr><th></th>{{range .NICs}}<th title="{{.BDF}}">{{.Alias}}</th>{{end}}</tr>
{{range .Rows}}<tr><th title="{{.Accel.BDF}}">{{.Accel.Alias}}</th>{{range .Cells}}<td>{{if .Pair}}<button type="button" data-pair="{{.Index}}" class="{{.Class}}" title="{{.Title}}">{{.Label}}</button>{{end}}</td>{{end}}</tr>
{{end}}</table>
{{range .Pairs}}<section class="pair" id="pair-{{.Index}}" hidden>
<h3>{{.From}} → {{.To}}</h3>
<p class="label">nvidia-smi <b>{{.SMI}}</b>, NCCL <b>{{.NCCL}}</b>: {{.Pair.Path}}</p>
{{if .Hops}}<table class="hops"><tr><th>#</th><th>From</th><th>To</th><th>Crosses</th><th>Link</th><th>Gb/s</th></tr>
{{range $i, $h := .Hops}}<tr><td>{{$h.N}}</td><td>{{$h.From}}</td><td>{{$h.To}}</td><td>{{$h.Kind}}</td><td>{{$h.Link}}</td><td>{{$h.Gbps}}</td></tr>
{{end}}</table>{{else}}<p>The source shows no PCI hierarchy for this pair.</p>{{end}}
<p class="bottleneck">Bottleneck: {{.Bottleneck}}</p>
{{range .Pair.Notes}}<p class="note">Note: {{.}}</p>{{end}}
{{with .Prediction}}<p class="prediction">Prediction (NCCL {{$.Report.NCCLVersion}} rules): direct RDMA <b>{{.Expected}}</b>, write (NIC writes accelerator memory) {{.Write}}, read {{.Read}}, efficiency {{.Efficiency}}, GPUDirect RDMA {{.GDR}}</p>
{{if .Steps}}<table class="steps"><tr><th>#</th><th>Step</th><th>Value</th><th>Source</th></tr>
{{range .Steps}}<tr><td>{{index . 0}}</td><td>{{index . 1}}</td><td>{{index . 2}}</td><td>{{index . 3}}</td></tr>
{{end}}</table>{{end}}
{{if .P.GDRReason}}<p>GPUDirect RDMA: {{.P.GDRReason}}</p>{{end}}
{{range .P.Assumed}}<p>Assumed: {{.}}</p>{{end}}{{end}}
</section>
{{end}}{{end}}
{{if .Plan}}<h2>Rail plan</h2>
<table id="plan"><tr><th>Accelerator</th><th>NIC</th><th>Expected, as NCCL runs it</th><th>Shared by</th></tr>
{{range .Plan}}<tr><td>{{index . 0}}</td><td>{{index . 1}}</td><td>{{index . 2}}</td><td>{{index . 3}}</td></tr>
{{end}}</table>{{end}}
<h2>Findings</h2>
{{if .Report.Findings}}<ul id="findings">{{range .Report.Findings}}<li><b class="{{.Severity}}">{{.Severity}}</b> <code>{{.Code}}</code> {{.Message}}{{if .Evidence}}<br>evidence: <code>{{.Evidence}}</code>{{end}}{{with remedy .Remedy}}<pre>{{.}}</pre>{{end}}</li>
{{end}}</ul>{{else}}<p id="findings">no findings</p>{{end}}
<h2>Picture</h2>
<div class="picture">{{.SVG}}</div>
<script>{{.Script}}</script>
</body>
</html>
`

// htmlTemplate parses htmlPage, with html/template's escaping by context.
// It is parsed when a page is drawn, not at start-up: every other command
// would pay for it.
func htmlTemplate() (*template.Template, error) {
	t, err := template.New("page").Funcs(template.FuncMap{"remedy": htmlRemedy}).Parse(htmlPage)
	if err != nil {
		return nil, fmt.Errorf("html page: %w", err)
	}
	return t, nil
}

// htmlRemedy is a finding's remedy as the page shows it.
func htmlRemedy(steps []report.RemedyStep) string {
	return strings.Join(report.RemedyScript(steps), "\n")
}

// htmlData is what htmlPage shows.
type htmlData struct {
	Report        *report.Report
	ScriptHash    string
	Style         template.CSS  // gdtopo's own style sheet
	Script        template.JS   // gdtopo's own script
	SVG           template.HTML // drawn by svg, which escapes every name it prints
	Verdict       string
	Summary, Plan [][]string
	NICs          []*report.Device
	Rows          []htmlRow
	Pairs         []htmlPair
}

// htmlHop is one row of a pair's hop table.
type htmlHop struct {
	N                    int
	From, To, Kind, Link string
	Gbps                 string
}

// htmlPrediction is a pair's prediction as the page shows it.
type htmlPrediction struct {
	P                                 *report.Prediction
	Expected, Write, Read, Efficiency string
	GDR                               string
	Steps                             [][]string
}

// htmlPair is one accelerator-NIC pair's detail block.
type htmlPair struct {
	Index               int
	Pair                *report.Pair
	From, To, SMI, NCCL string
	Hops                []htmlHop
	Bottleneck          string
	Prediction          *htmlPrediction
}

// htmlCell is one matrix cell.
type htmlCell struct {
	Pair                *report.Pair
	Index               int
	Label, Class, Title string // Title: "GPU0 → NIC0"
}

// htmlRow is one accelerator's row of the matrix.
type htmlRow struct {
	Accel *report.Device
	Cells []htmlCell
}

// html writes one self-contained page: the summary, the matrix whose
// cells open each pair's path and prediction, the rail plan, the findings
// and the picture svg draws, with no reference to anything outside it.
// Every string from the source is escaped by html/template.
func html(w io.Writer, r *report.Report) error {
	data, err := htmlDataOf(r)
	if err != nil {
		return err
	}
	t, err := htmlTemplate()
	if err != nil {
		return err
	}
	var out bytes.Buffer
	if err := t.Execute(&out, data); err != nil {
		return err
	}
	_, err = w.Write(htmlControls(out.Bytes()))
	return err
}

// htmlControls escapes, as termsafe does, the control characters in a page
// (html/template escapes markup, not these): only names from inputs hold
// them, never gdtopo's own markup, style or script. Newlines, tabs and
// carriage returns stay.
func htmlControls(b []byte) []byte {
	if !bytes.ContainsFunc(b, htmlControl) {
		return b
	}
	var out bytes.Buffer
	for _, r := range string(b) {
		if htmlControl(r) {
			out.WriteString(termsafe.Text(string(r)))
			continue
		}
		out.WriteRune(r)
	}
	return out.Bytes()
}

// htmlControl reports whether r is a control character a page must not
// carry raw.
func htmlControl(r rune) bool {
	return r < ' ' && r != '\n' && r != '\t' && r != '\r' || r == 0x7f
}

// htmlDataOf is what the page of r shows.
func htmlDataOf(r *report.Report) (*htmlData, error) {
	var pic bytes.Buffer
	if err := svgTree(&pic, r); err != nil {
		return nil, err
	}
	data := &htmlData{
		Report:     r,
		ScriptHash: htmlScriptHash,
		Style:      template.CSS(htmlStyle),
		Script:     template.JS(htmlScript),
		SVG:        template.HTML(pic.String()),
		Verdict:    report.CheckVerdict(r),
		Summary:    pageSummary(r),
	}
	for _, bdf := range r.NICs {
		if d := r.Device(bdf); d != nil {
			data.NICs = append(data.NICs, d)
		}
	}
	for _, a := range r.Accelerators {
		acc := r.Device(a.BDF)
		if acc == nil {
			continue
		}
		row := htmlRow{Accel: acc}
		for _, n := range data.NICs {
			p := r.Pair(a.BDF, n.BDF)
			if p == nil {
				row.Cells = append(row.Cells, htmlCell{})
				continue
			}
			i := len(data.Pairs)
			class := strings.TrimSuffix(p.SMI, "?")
			if strings.HasPrefix(class, "NV") {
				class = "NV"
			}
			if a.BestNIC == n.BDF {
				class += " best"
			}
			row.Cells = append(row.Cells, htmlCell{Pair: p, Index: i, Label: report.Label(p), Class: class, Title: acc.Alias + " → " + n.Alias})
			data.Pairs = append(data.Pairs, htmlPairOf(i, r, p, acc, n))
		}
		data.Rows = append(data.Rows, row)
	}
	for _, as := range r.Plan.Assignments {
		acc, nic := as.Accelerator, as.NIC
		if d := r.Device(acc); d != nil {
			acc = d.TableNameAndBDF()
		}
		if d := r.Device(nic); d != nil {
			nic = d.TableNameAndBDF()
		}
		if len(as.MoreNICs) > 0 {
			nic += " + " + strings.Join(r.TableNames(as.MoreNICs), " ")
		}
		data.Plan = append(data.Plan, []string{acc, nic, words.GbpsAtMost(as.ExpectedGbps, as.AtMost) + " " + r.ModeText(as), strconv.Itoa(as.Shared)})
	}
	return data, nil
}

// pageSummary is check's summary for a page sent around, whose reader may
// not have gdtopo: it names no command, and says the page holds the source
// alone where check would point to gdtopo verify.
func pageSummary(r *report.Report) [][]string {
	rows := report.SummaryRows(r)
	for _, row := range rows {
		row[1] = strings.ReplaceAll(row[1], topology.VerifyPointer, "; this page pictures the source alone)")
		if r.NVSMI != nil && row[1] == r.NVSMI.CellCounts() {
			row[1] = r.NVSMI.PageCounts()
		}
	}
	return rows
}

// htmlPairOf is pair p's detail block.
func htmlPairOf(i int, r *report.Report, p *report.Pair, a, n *report.Device) htmlPair {
	out := htmlPair{Index: i, Pair: p, From: a.TableNameAndBDF(), To: n.TableNameAndBDF(),
		SMI: report.Label(p), NCCL: report.NCCLLabel(p), Bottleneck: "unknown"}
	if p.BottleneckGbps > 0 {
		out.Bottleneck = fmt.Sprintf("%g Gb/s (the narrowest current PCIe link the data crosses)", p.BottleneckGbps)
		switch {
		case r.NCCLTopology():
			out.Bottleneck = fmt.Sprintf("%g Gb/s (the narrowest PCIe link the data crosses, at its max as the NCCL topology records links)", p.BottleneckGbps)
		case p.BottleneckAtMax():
			out.Bottleneck = fmt.Sprintf("%g Gb/s (the narrowest PCIe link the data crosses, at its max: its state now unknown)", p.BottleneckGbps)
		}
	}
	for j, h := range p.Hops {
		row := htmlHop{N: j + 1, From: h.From, To: h.To, Kind: strings.ReplaceAll(h.Kind, "_", " ")}
		if h.OffPath {
			row.Kind += " (off the data path)"
		}
		if h.Kind == string(topology.HopPCIe) {
			row.Link, row.Gbps = "unknown", "unknown"
			if text, ok := hopLink(h); ok {
				row.Link, row.Gbps = text, fmt.Sprintf("%g", h.Gbps)
			}
		}
		out.Hops = append(out.Hops, row)
	}
	if x := p.Prediction; x != nil {
		span := func(lo, hi float64) string {
			if lo <= 0 {
				return words.Gbps(lo) // unknown
			}
			return words.Ceiling(words.GbpsSpan(lo, hi)+" Gb/s", x.AtMost)
		}
		pr := &htmlPrediction{P: x, Expected: words.GbpsAtMost(x.ExpectedGbps, x.AtMost), Write: span(x.ExpectedWriteGbps, x.ExpectedWriteMaxGbps),
			Read: span(x.ExpectedReadGbps, x.ExpectedReadMaxGbps), Efficiency: "unknown", GDR: x.GDRText()}
		if x.Efficiency > 0 {
			pr.Efficiency = fmt.Sprintf("%.0f%%", 100*x.Efficiency)
		}
		for k, s := range x.Steps {
			pr.Steps = append(pr.Steps, []string{strconv.Itoa(k + 1), s.What, stepValue(s), s.Source})
		}
		out.Prediction = pr
	}
	return out
}
