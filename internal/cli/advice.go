package cli

import (
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/gdtopo/gdtopo/advisor"
	"github.com/gdtopo/gdtopo/internal/render"
	"github.com/gdtopo/gdtopo/topology"
)

// adviceOptions are the advisor's flags, shared by the commands that
// predict throughput.
type adviceOptions struct {
	NCCLVersion string // --nccl-version
	ModelFile   string // --model

	// The model read from ModelFile, once for every source of a run.
	modelOnce sync.Once
	model     *advisor.Model
	modelErr  error
}

func (o *adviceOptions) addFlags(cmd *cobra.Command) {
	cmd.Flags().StringVar(&o.NCCLVersion, "nccl-version", advisor.DefaultNCCLVersion,
		"NCCL release whose GPUDirect RDMA rules decide each pair's \"gdr\" ("+advisor.SupportedNCCLVersions()[0]+" to "+advisor.DefaultNCCLVersion+")")
	cmd.Flags().StringVar(&o.ModelFile, "model", "", "JSON file replacing any number of the throughput model, e.g. with your ib_write_bw results (keys: gdtopo check --help)")
}

// advise runs the advisor on the analysis; explain fills in each
// prediction's arithmetic (path --explain).
func (a *analysis) advise(o *adviceOptions, explain bool) (*advisor.Result, error) {
	m, err := o.loadModel()
	if err != nil {
		return nil, err
	}
	opts := advisor.Options{NCCLVersion: o.NCCLVersion, Model: m, SkipExplain: !explain}
	res, err := advisor.Analyze(a.g, a.allPairs(), opts)
	if err != nil {
		return nil, &usageError{fmt.Errorf("--nccl-version: %w", err)}
	}
	return res, nil
}

// loadModel reads --model the first time it is asked for; nil without
// --model (the advisor's default). The advisor only reads the model, so
// every source of a fleet run shares it.
func (o *adviceOptions) loadModel() (*advisor.Model, error) {
	o.modelOnce.Do(func() {
		if o.ModelFile == "" {
			return
		}
		f, err := os.Open(o.ModelFile)
		if err != nil {
			o.modelErr = fmt.Errorf("--model: %w", err)
			return
		}
		defer f.Close()
		if fi, err := f.Stat(); err == nil && fi.IsDir() {
			o.modelErr = fmt.Errorf("--model %s: a folder, not a JSON file (see gdtopo check --help for its keys)", o.ModelFile)
			return
		}
		if o.model, err = advisor.LoadModel(f); err != nil {
			o.modelErr = fmt.Errorf("--model %s: %w", o.ModelFile, err)
		}
	})
	return o.model, o.modelErr
}

// modelKeys documents the --model keys for help text.
func modelKeys() string {
	var b strings.Builder
	for _, p := range advisor.DefaultModel().Params() {
		fmt.Fprintf(&b, "  %-28s %8.4g %-5s %s\n", p.Key, p.Value, p.Unit, p.Confidence)
	}
	return b.String()
}

// findingsError means the analysis found problems at or above --fail-on;
// Main turns it into exit status 3.
type findingsError struct {
	count int
	level advisor.Severity
}

func (e *findingsError) Error() string {
	return fmt.Sprintf("%d finding(s) at or above %s", e.count, e.level)
}

// failOn counts the findings at or above level.
func failOn(res *advisor.Result, level advisor.Severity) error {
	n := 0
	for _, f := range res.Findings {
		if f.Severity.AtLeast(level) {
			n++
		}
	}
	if n > 0 {
		return &findingsError{count: n, level: level}
	}
	return nil
}

// writeFindings lists the findings, worst first, each with its remedy.
func (a *analysis) writeFindings(p *render.Printer, res *advisor.Result) {
	if len(res.Findings) == 0 {
		p.Heading("Findings")
		p.Printf("no findings\n")
		return
	}
	count := map[advisor.Severity]int{}
	for _, f := range res.Findings {
		count[f.Severity]++
	}
	var parts []string
	for _, s := range []advisor.Severity{advisor.Critical, advisor.Warning, advisor.Info} {
		if count[s] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", count[s], s))
		}
	}
	p.Heading(fmt.Sprintf("Findings (%s)", strings.Join(parts, ", ")))
	md := p.Format() == render.Markdown
	for _, f := range res.Findings {
		devs := a.deviceList(f.Devices)
		if md {
			p.Printf("\n- **%s** `%s` %s: %s\n", strings.ToUpper(string(f.Severity)), f.Code, devs, f.Message)
			if f.Evidence != "" {
				p.Printf("  evidence: `%s`\n", f.Evidence)
			}
			if f.Remedy != "" {
				p.Printf("\n  ```\n  %s\n  ```\n", strings.ReplaceAll(f.Remedy, "\n", "\n  "))
			}
			continue
		}
		p.Printf("\n%-8s %s  %s\n  %s\n", strings.ToUpper(string(f.Severity)), f.Code, devs, f.Message)
		if f.Evidence != "" {
			p.Printf("  evidence: %s\n", f.Evidence)
		}
		if f.Remedy != "" {
			p.Printf("  remedy:\n    %s\n", strings.ReplaceAll(f.Remedy, "\n", "\n    "))
		}
	}
}

// deviceList names devices by alias where they have one: "GPU0 (0000:1a:00.0)".
func (a *analysis) deviceList(bdfs []string) string {
	byBDF := map[string]*topology.Device{}
	for d := range a.aliases {
		byBDF[d.BDF()] = d
	}
	out := make([]string, len(bdfs))
	for i, b := range bdfs {
		if d := byBDF[b]; d != nil {
			out[i] = a.aliases[d] + " " + b
		} else {
			out[i] = b
		}
	}
	return strings.Join(out, ", ")
}

// writePlan shows the rail plan and each local rank's settings.
func (a *analysis) writePlan(p *render.Printer, res *advisor.Result) error {
	plan := res.Plan
	if len(plan.Assignments) == 0 {
		return nil
	}
	p.Heading(fmt.Sprintf("Rail plan (worst %s, mean %s)", gbps(plan.WorstGbps), gbps(plan.MeanGbps)))
	var rows [][]string
	for _, as := range plan.Assignments {
		shared := "own"
		if as.Shared > 1 {
			shared = fmt.Sprintf("shared by %d", as.Shared)
		}
		if !as.Known {
			shared += ", unsure"
		}
		rows = append(rows, []string{a.aliases[as.GPU] + " " + as.GPU.BDF(), a.label(as.NIC), gbps(as.ExpectedGbps), gbps(as.ShareGbps), shared})
	}
	if err := p.Table([]string{"Accelerator", "NIC", "Expected", "Each", "NIC use"}, rows); err != nil {
		return err
	}
	p.Printf("\nSettings per local rank:\n")
	if p.Format() == render.Markdown {
		p.Printf("\n```\n")
	}
	for _, r := range plan.Ranks {
		line := strings.Join(r.Env(), " ")
		if r.Numactl != "" {
			line += " " + r.Numactl
		}
		p.Printf("  rank %d: %s\n", r.LocalRank, line)
	}
	if p.Format() == render.Markdown {
		p.Printf("```\n")
	}
	return nil
}

// gbps formats a throughput; 0 is unknown.
func gbps(v float64) string {
	if v <= 0 {
		return "unknown"
	}
	return fmt.Sprintf("%.0f Gb/s", v)
}
