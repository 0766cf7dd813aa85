package cli

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/fpstop/fpstop/compare"
	"github.com/fpstop/fpstop/internal/exit"
	"github.com/fpstop/fpstop/internal/junit"
	"github.com/fpstop/fpstop/metrics"
)

// compareFlags are `fpstop compare`'s own flags.
type compareFlags struct {
	format, output  string
	base, new       []string
	confidence      float64
	minEffect       string
	resamples       int
	seed            uint64
	maxFPSDrop      float64
	maxJankIncrease float64
	junit           string
}

func (a *app) compareCmd() *cobra.Command {
	var f compareFlags
	c := &cobra.Command{
		Use:   "compare BASE NEW",
		Short: "compare two builds: recordings or fpstop test directories, with confidence intervals and verdicts",
		Long: `compare tells whether NEW is better, worse or unchanged against BASE. Each side is a recording,
a directory of recordings, or a fpstop test directory (its successful iterations); --base and
--new add more recordings to a side. For FPS, jank %, each drop level's share of frames, frame-time
percentiles, per window and per slow main-thread message it prints both values, the difference, a
confidence interval and a p-value. The unit is the run: with two or more recordings a side, an
exact permutation test (Welch's t when too few or too many to enumerate) on the per-recording
values; with one on a side the verdict is inconclusive (run fpstop test --iterations 5). fps and
jank % of the run and its windows decide the verdict and the gates, with Holm's correction; the
other metrics are informational. The gates exit 1 on a significant regression beyond them. See
docs/compare.md (its calibration: how often the same build is called unchanged).`,
		Example: `  fpstop compare before.jsonl.gz after.jsonl.gz
  fpstop compare runs/main runs/branch --format md > comment.md
  fpstop compare base.jsonl.gz new.jsonl.gz --max-fps-drop 2 --max-jank-increase 1 --format json --junit junit.xml`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runCompare(cmd, args, &f)
		},
	}
	fs := c.Flags()
	fs.StringVar(&f.format, "format", "text", "text, md (for a pull request), json (docs/compare.md) or html (one offline page with charts)")
	fs.StringVarP(&f.output, "output", "o", "", "write the comparison to this file instead of stdout")
	fs.BoolVar(&a.opts.Force, "force", false, "overwrite the --output file")
	fs.StringArrayVar(&f.base, "base", nil, "another BASE recording or directory (repeatable)")
	fs.StringArrayVar(&f.new, "new", nil, "another NEW recording or directory (repeatable)")
	fs.Float64Var(&f.confidence, "confidence", 0.95, "confidence of the intervals; significant when p < 1 − confidence")
	fs.StringVar(&f.minEffect, "min-effect", "fps=1,pct=1,ms=1", "smallest difference that counts: fps, percentage points, ms")
	fs.IntVar(&f.resamples, "resamples", 2000, "bootstrap resamples of the slow messages' p95")
	fs.Uint64Var(&f.seed, "bootstrap-seed", 1, "seed of the slow messages' bootstrap (the same seed gives the same result)")
	fs.Float64Var(&f.maxFPSDrop, "max-fps-drop", compare.GateOff, "gate: exit 1 when fps drops significantly by more than N fps (run or any window)")
	fs.Float64Var(&f.maxJankIncrease, "max-jank-increase", compare.GateOff, "gate: exit 1 when jank % rises significantly by more than P percentage points")
	fs.StringVar(&f.junit, "junit", "", "write the gates as JUnit XML to FILE")
	a.opts.bindMetricsFlags(c.Flags())
	return c
}

// parseMinEffect reads "fps=1,pct=1,ms=1" (any subset; a bare number sets fps and pct).
func parseMinEffect(s string, def compare.MinEffect) (compare.MinEffect, error) {
	e := def
	if v, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil {
		if v < 0 {
			return e, fmt.Errorf("--min-effect %q must not be negative", s)
		}
		e.FPS, e.Pct = v, v
		return e, nil
	}
	for _, part := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if !ok || err != nil || f < 0 {
			return e, fmt.Errorf("--min-effect %q: want fps=N,pct=N,ms=N with N ≥ 0", s)
		}
		switch strings.TrimSpace(k) {
		case "fps":
			e.FPS = f
		case "pct", "pp", "jank":
			e.Pct = f
		case "ms":
			e.Ms = f
		default:
			return e, fmt.Errorf("--min-effect %q: unknown unit %q (want fps, pct or ms)", s, k)
		}
	}
	return e, nil
}

func (f *compareFlags) options(version string, args []string) (compare.Options, error) {
	o := compare.DefaultOptions()
	me, err := parseMinEffect(f.minEffect, o.MinEffect)
	if err != nil {
		return o, err
	}
	o.MinEffect, o.Confidence, o.Resamples, o.Seed = me, f.confidence, f.resamples, f.seed
	o.MaxFPSDrop, o.MaxJankIncrease, o.Version = f.maxFPSDrop, f.maxJankIncrease, version
	o.BaseLabel = strings.Join(append([]string{args[0]}, f.base...), " + ")
	o.NewLabel = strings.Join(append([]string{args[1]}, f.new...), " + ")
	switch strings.ToLower(f.format) {
	case "text", "md", "markdown", "json", "html":
	default:
		return o, fmt.Errorf("--format %q: want text, md, json or html", f.format)
	}
	return o, nil
}

func (a *app) runCompare(cmd *cobra.Command, args []string, f *compareFlags) error {
	if err := a.prepare(cmd); err != nil {
		return err
	}
	start := time.Now()
	o, err := f.options(a.env.Build.Version, args)
	if err != nil {
		return usageErr("%v", err)
	}
	bp, err := compare.Paths(append([]string{args[0]}, f.base...))
	if err != nil {
		return runtimeErr(fmt.Errorf("BASE: %w", err))
	}
	np, err := compare.Paths(append([]string{args[1]}, f.new...))
	if err != nil {
		return runtimeErr(fmt.Errorf("NEW: %w", err))
	}
	base, err := loadRuns(bp, a.asRecording, a.opts.metricsConfig())
	if err != nil {
		return runtimeErr(err)
	}
	nw, err := loadRuns(np, a.asRecording, a.opts.metricsConfig())
	if err != nil {
		return runtimeErr(err)
	}
	res, err := compare.Compare(base, nw, o)
	if err != nil {
		return usageErr("%v", err)
	}
	err = writeOutput(cmd.OutOrStdout(), f.output, a.opts.Force, func(out io.Writer) error {
		switch strings.ToLower(f.format) {
		case "json":
			return writeJSON(out, res)
		case "md", "markdown":
			return compare.WriteMarkdown(out, res)
		case "html":
			return compareHTML(out, res, a.opts.metricsConfig(), a.env.Build.Version)
		}
		return compare.WriteText(out, res)
	})
	if err != nil {
		return runtimeErr(err)
	}
	if f.junit != "" {
		if err := junit.WriteFile(f.junit, compareSuite(res, start)); err != nil {
			return runtimeErr(err)
		}
	}
	var failed []string
	for _, g := range res.Gates {
		if g.Failed {
			failed = append(failed, g.Message)
		}
	}
	if len(failed) > 0 {
		return &exit.GateError{Failures: failed}
	}
	return nil
}

// compareSuite turns the comparison's gates into JUnit testcases: one per gate and scope (the
// run, each window both sides have).
func compareSuite(res *compare.Result, start time.Time) junit.Suite {
	s := junit.Suite{Name: "fpstop compare", Timestamp: start, Time: time.Since(start)}
	prefix := "fpstop.compare."
	if p := res.New.Package; p != nil && *p != "" {
		prefix += *p + "." // the app measured (NEW's)
	}
	for _, g := range res.Gates {
		class := prefix + "run"
		if g.Scope == "window" {
			class = prefix + "window." + g.Window
		}
		c := junit.Case{Name: fmt.Sprintf("%s %s", g.Name, strconv.FormatFloat(g.Threshold, 'f', -1, 64)), Class: class, Output: g.Message}
		if g.Failed {
			c.Failure, c.Detail = g.Message, fmt.Sprintf("BASE %s\nNEW %s", res.Base.Label, res.New.Label)
		}
		s.Cases = append(s.Cases, c)
	}
	return s
}

// loadRuns loads each side's runs: recordings, or Perfetto traces read as recordings by
// asRecording (named by the trace's own path).
func loadRuns(paths []string, asRecording func(string) (string, error), cfg metrics.Config) ([]*compare.Run, error) {
	conv := make([]string, len(paths))
	for i, p := range paths {
		var err error
		if conv[i], err = asRecording(p); err != nil {
			return nil, err
		}
	}
	runs, err := compare.LoadAll(conv, cfg)
	if err != nil {
		return nil, err
	}
	for i, r := range runs {
		r.Path = paths[i]
	}
	return runs, nil
}
