package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/gdtopo/gdtopo/advisor"
	"github.com/gdtopo/gdtopo/internal/report"
	"github.com/gdtopo/gdtopo/topology"
)

// adviceOptions are the advisor's flags, shared by the commands that
// predict throughput.
type adviceOptions struct {
	NCCLVersion string   // --nccl-version
	ModelFile   string   // --model
	NCCLEnv     []string // --nccl-env KEY=VALUE, repeated

	// environ are the NCCL variables of the environment gdtopo runs in
	// (Streams.NCCLEnv); env is them with --nccl-env over them, and vars
	// the same with where each came from, set by validate.
	environ map[string]string
	env     map[string]string
	vars    []report.NCCLVar

	// The model read from ModelFile, once for every source of a run.
	modelOnce sync.Once
	model     *advisor.Model
	modelErr  error
}

func (o *adviceOptions) addFlags(cmd *cobra.Command, s *Streams) {
	o.environ = s.NCCLEnv
	cmd.Flags().StringArrayVar(&o.NCCLEnv, "nccl-env", nil,
		"an NCCL variable as the job sets it, KEY=VALUE, over the environment's (repeatable): "+strings.Join(advisor.NCCLEnvKeys(), ", "))
	cmd.Flags().StringVar(&o.NCCLVersion, "nccl-version", advisor.DefaultNCCLVersion,
		"NCCL release whose GPUDirect RDMA rules decide each pair's \"gdr\" ("+advisor.SupportedNCCLVersions()[0]+" to "+advisor.DefaultNCCLVersion+")")
	cmd.Flags().StringVar(&o.ModelFile, "model", "", "JSON file replacing any number of the throughput model, e.g. with your ib_write_bw results (keys: gdtopo check --help)")
}

// validate checks --nccl-version and reads --model, once for a whole run,
// before any source.
func (o *adviceOptions) validate() error {
	if o.NCCLVersion == "" {
		o.NCCLVersion = advisor.DefaultNCCLVersion
	}
	// The default is known good; another is checked by an analysis of
	// nothing, which parses it as every analysis does.
	if o.NCCLVersion != advisor.DefaultNCCLVersion {
		if _, err := advisor.Analyze(&topology.Graph{}, nil, advisor.Options{NCCLVersion: o.NCCLVersion}); err != nil {
			return &usageError{fmt.Errorf("--nccl-version: %w", err)}
		}
	}
	if err := o.parseEnv(); err != nil {
		return err
	}
	_, err := o.loadModel()
	return err
}

// parseEnv merges the environment's NCCL variables and --nccl-env, the
// flag winning, into env and vars; a flag that is not KEY=VALUE or names
// a variable the advisor does not follow is a usage error.
func (o *adviceOptions) parseEnv() error {
	env, from := map[string]string{}, map[string]string{}
	for k, v := range o.environ {
		if advisor.IsNCCLEnvKey(k) {
			env[k], from[k] = v, "environment"
		}
	}
	for _, kv := range o.NCCLEnv {
		k, v, ok := strings.Cut(kv, "=")
		switch {
		case !ok || k == "":
			return usagef("--nccl-env %q: not KEY=VALUE", kv)
		case !advisor.IsNCCLEnvKey(k):
			return usagef("--nccl-env %s: gdtopo follows only %s", k, strings.Join(advisor.NCCLEnvKeys(), ", "))
		}
		env[k], from[k] = v, "--nccl-env"
	}
	o.env, o.vars = nil, nil
	if len(env) == 0 {
		return nil
	}
	o.env = env
	for _, k := range advisor.NCCLEnvKeys() {
		if v, ok := env[k]; ok {
			o.vars = append(o.vars, report.NCCLVar{Name: k, Value: v, From: from[k]})
		}
	}
	return nil
}

// advise runs the advisor on the analysis's pairs; explain fills in each
// prediction's arithmetic (path --explain).
func (a *analysis) advise(o *adviceOptions, pairs []topology.Pair, explain bool) (*advisor.Result, error) {
	return a.adviseTallying(o, pairs, explain, nil)
}

// adviseTallying is advise, the accelerator-NVMe pairs counted in tally
// rather than kept in the result when tally is not nil.
func (a *analysis) adviseTallying(o *adviceOptions, pairs []topology.Pair, explain bool, tally *report.StorageTally) (*advisor.Result, error) {
	m, err := o.loadModel()
	if err != nil {
		return nil, err
	}
	opts := advisor.Options{NCCLVersion: o.NCCLVersion, Model: m, Env: o.env, SkipExplain: !explain}
	if tally != nil {
		opts.EachStorage = tally.Add
	}
	res, err := advisor.Analyze(a.g, pairs, opts)
	if err != nil {
		return nil, &usageError{fmt.Errorf("--nccl-version: %w", err)}
	}
	return res, nil
}

// maxModelBytes bounds a --model file: its dozen keys take under 1 KiB.
const maxModelBytes = 64 << 10

// loadModel reads --model the first time it is asked for; nil without
// --model (the advisor's default). The advisor only reads the model, so
// every source of a fleet run shares it.
func (o *adviceOptions) loadModel() (*advisor.Model, error) {
	o.modelOnce.Do(func() {
		if o.ModelFile == "" {
			return
		}
		// Non-blocking, so a FIFO or terminal cannot hang the run; only a
		// regular file of at most maxModelBytes is read.
		f, err := os.OpenFile(o.ModelFile, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
		if err != nil {
			o.modelErr = fmt.Errorf("--model: %w", err)
			return
		}
		defer f.Close()
		fi, err := f.Stat()
		switch {
		case err != nil:
			o.modelErr = fmt.Errorf("--model: %w", err)
			return
		case fi.IsDir():
			o.modelErr = fmt.Errorf("--model %s: a folder, not a JSON file (see gdtopo check --help for its keys)", o.ModelFile)
			return
		case !fi.Mode().IsRegular():
			o.modelErr = fmt.Errorf("--model %s: not a regular file", o.ModelFile)
			return
		case fi.Size() > maxModelBytes:
			o.modelErr = fmt.Errorf("--model %s: %d bytes, over the %d KiB a model file may have", o.ModelFile, fi.Size(), maxModelBytes>>10)
			return
		}
		b, err := io.ReadAll(io.LimitReader(f, maxModelBytes+1))
		if err == nil && len(b) > maxModelBytes {
			err = fmt.Errorf("over the %d KiB a model file may have", maxModelBytes>>10)
		}
		if err != nil {
			o.modelErr = fmt.Errorf("--model %s: %w", o.ModelFile, err)
			return
		}
		if o.model, err = advisor.LoadModel(bytes.NewReader(b)); err != nil {
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

// addFailOnFlag adds --fail-on, the least severity of what (findings,
// differences) that makes the command exit with status 3.
func addFailOnFlag(cmd *cobra.Command, failOn *string, what string) {
	cmd.Flags().StringVar(failOn, "fail-on", string(advisor.Critical), "exit with status 3 when "+what+" is at least this severe: critical, warning, info, or never")
	_ = cmd.RegisterFlagCompletionFunc("fail-on", cobra.FixedCompletions([]string{"critical", "warning", "info", "never"}, cobra.ShellCompDirectiveNoFileComp))
}

// parseFailOn checks a --fail-on value: a severity, or never.
func parseFailOn(s string) (string, error) {
	if s == report.FailOnNever {
		return s, nil
	}
	level, err := advisor.ParseSeverity(s)
	if err != nil {
		return "", usagef("--fail-on: %v, or never", err)
	}
	return string(level), nil
}
