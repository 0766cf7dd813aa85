package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/fpstop/fpstop/compare"
	"github.com/fpstop/fpstop/internal/junit"
	"github.com/fpstop/fpstop/internal/outfile"
)

// testFlags are `fpstop test`'s own flags (the source, simulator, gate and metric flags are the
// main command's).
type testFlags struct {
	iterations int
	command    string
	before     string
	cold       bool
	grace      time.Duration
	format     string
	confidence float64
	resamples  int
	bseed      uint64
}

// flags of the main command that mean nothing to `fpstop test`: refused on the command line.
var testRefused = []string{"input", "record", "headless", "json", "truth", "theme", "color", "no-mouse", "refresh", "target-fps"}

func (a *app) testCmd() *cobra.Command {
	var f testFlags
	c := &cobra.Command{
		Use:   "test --iterations N --command CMD",
		Short: "repeatable measured runs: N iterations, each measured while a driver command runs; one recording each and a summary",
		Long: `test measures the app N times. Each iteration optionally restarts the app (--cold: am force-stop,
then its launcher activity), runs --before, then measures while --command runs (an adb shell input
swipe loop, a Maestro or UI Automator flow, any script): until the command ends, or for --duration
(the command is then stopped if still running). Each iteration leaves a recording in --record-dir,
and the directory gets summary.json: every iteration's values, their mean and a bootstrap
confidence interval of the mean. A failing command or --before marks that iteration failed; the
run goes on, and exits 1 at the end. Compare two test directories with fpstop compare.
Works with every source; with the simulator (--source sim) iteration i uses --seed + i − 1.
Commands run with sh -c and get FPSTOP_ITERATION, and on a device FPSTOP_SERIAL and FPSTOP_PACKAGE.`,
		Example: `  fpstop test -p com.example.app --iterations 10 --cold --duration 20s \
      --command 'while true; do adb shell input swipe 500 1500 500 300 200; done' --record-dir runs/main
  fpstop test --source sim --scenario janky --hz 120 --speed 0 --iterations 3 --duration 10s --command true --record-dir runs/sim`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.runTest(cmd, &f)
		},
	}
	fs := c.Flags()
	fs.IntVarP(&f.iterations, "iterations", "n", 5, "how many measured runs")
	fs.StringVar(&f.command, "command", "", "driver command, run with sh -c while measuring")
	fs.StringVar(&f.before, "before", "", "command run before each iteration's measurement (after --cold)")
	fs.BoolVar(&f.cold, "cold", false, "force-stop the app and start its launcher activity before each iteration")
	fs.DurationVar(&f.grace, "driver-grace", 5*time.Second, "how long to wait for the driver after the measurement before stopping it")
	fs.StringVar(&f.format, "format", "text", "summary on stdout: text or json")
	fs.Float64Var(&f.confidence, "confidence", 0.95, "confidence of the summary's intervals")
	fs.IntVar(&f.resamples, "resamples", 2000, "bootstrap resamples for the intervals")
	fs.Uint64Var(&f.bseed, "bootstrap-seed", 1, "bootstrap seed")
	// the summary's intervals are t intervals now: the flags stay for scripts that pass them
	_ = fs.MarkDeprecated("resamples", "the summary's intervals are t intervals of the mean; it has no effect")
	_ = fs.MarkDeprecated("bootstrap-seed", "the summary's intervals are t intervals of the mean; it has no effect")
	a.opts.bind(fs)
	for _, name := range testRefused {
		// not hidden: a shared config file may set them for the dashboard (hidden flags are
		// unknown keys to the config file)
		fs.Lookup(name).Usage = "(not used by fpstop test)"
	}
	fs.Lookup("record-dir").Usage = "directory for the recordings and summary.json (default fpstop-test-DATE-TIME)"
	fs.Lookup("duration").Usage = "measure each iteration this long (default: as long as --command runs; the simulator: virtual time)"
	fs.Lookup("force").Usage = "replace a test already in --record-dir"
	fs.Lookup("seed").Usage = "simulator seed of the first iteration (iteration i uses seed + i − 1)"
	return c
}

// validateTest checks the test's own flags and refuses the main command's flags that mean
// nothing here.
func (a *app) validateTest(cmd *cobra.Command, f *testFlags) error {
	for _, name := range testRefused {
		// only the command line counts (a config file leaves Changed false): a config file's
		// theme or refresh is for the dashboard
		if cmd.Flags().Changed(name) {
			return usageErr("--%s does not apply to fpstop test", name)
		}
	}
	switch {
	case f.iterations < 1 || f.iterations > 1000:
		return usageErr("--iterations %d: want 1 to 1000", f.iterations)
	case f.command == "" && a.opts.Duration == 0:
		return usageErr("fpstop test needs --command (measured while it runs) or --duration")
	case a.opts.Source == "sim" && a.opts.Duration == 0:
		return usageErr("the simulator needs --duration (the length of each iteration, in virtual time)")
	case f.cold && a.opts.Source == "sim":
		return usageErr("--cold restarts an app on a device; the simulator has none")
	case f.format != "text" && f.format != "json":
		return usageErr("--format %q: want text or json", f.format)
	case !(f.confidence > 0 && f.confidence < 1):
		return usageErr("--confidence %v: want a value between 0 and 1", f.confidence)
	case f.resamples < 100 || f.resamples > 100000:
		return usageErr("--resamples %d: want 100 to 100000", f.resamples)
	case f.grace < 0:
		return usageErr("--driver-grace must not be negative")
	}
	return nil
}

// prepareTestDir creates the record directory (default fpstop-test-YYYYMMDD-HHMMSS) and
// refuses one that already holds a test unless --force.
func (a *app) prepareTestDir(now time.Time) (string, error) {
	dir := a.opts.RecordDir
	if dir == "" {
		dir = "fpstop-test-" + now.Format("20060102-150405")
	}
	if _, err := os.Stat(filepath.Join(dir, compare.SummaryFile)); err == nil && !a.opts.Force {
		return "", usageErr("%s already holds a test (add --force to replace it)", dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", runtimeErr(fmt.Errorf("cannot create %s: %w", dir, err))
	}
	return dir, nil
}

func (a *app) runTest(cmd *cobra.Command, f *testFlags) error {
	if err := a.prepare(cmd); err != nil {
		return err
	}
	if err := a.validateTest(cmd, f); err != nil {
		return err
	}
	a.startLog()
	ctx := cmd.Context()
	start := time.Now()
	t := &tester{a: a, f: f, start: start, baseSeed: a.opts.Seed}
	// auto: a device is required, as for a headless run (gfxinfo, or SurfaceFlinger for an app
	// drawing only into a SurfaceView); the summary names the source the reports name
	if a.opts.Source != "sim" {
		tg, err := a.resolveTargetFor(ctx, a.opts.Serial, a.opts.Package)
		if err != nil {
			return err
		}
		// fixed for every iteration: after a force-stop the foreground app is another one
		a.opts.Package, a.opts.Serial, t.target = tg.pkg, tg.info.Serial, tg
	}
	dir, err := a.prepareTestDir(start)
	if err != nil {
		return err
	}
	t.dir = dir
	sum := &compare.Summary{Schema: compare.SummarySchema, FpstopVersion: a.env.Build.Version, Source: a.opts.Source,
		Package: a.opts.Package, Command: f.command, Before: f.before, Cold: f.cold}
	var gateFails []string
	for i := 1; i <= f.iterations; i++ {
		t.progress(i)
		it, fails, err := t.iteration(ctx, i)
		if err != nil {
			return err
		}
		sum.Iterations = append(sum.Iterations, it)
		gateFails = append(gateFails, fails...)
		t.done = append(t.done, time.Since(t.itStart))
		if ctx.Err() != nil {
			// interrupted: the iterations so far are kept and summarised
			fmt.Fprintf(a.env.Stderr, "fpstop test: interrupted after iteration %d of %d\n", i, f.iterations)
			break
		}
	}
	if t.source != "" {
		sum.Source = t.source
	}
	compare.Summarize(sum, f.confidence)
	return t.finish(sum, gateFails)
}

// finish writes summary.json, prints the summary and the JUnit report, and says how it went.
func (t *tester) finish(sum *compare.Summary, gateFails []string) error {
	a := t.a
	path := filepath.Join(t.dir, compare.SummaryFile)
	f, err := outfile.Create(path, true)
	if err != nil {
		return runtimeErr(fmt.Errorf("cannot write the summary: %w", err))
	}
	err = writeJSON(f, sum)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return runtimeErr(fmt.Errorf("writing %s: %w", path, err))
	}
	if t.f.format == "json" {
		err = writeJSON(a.env.Stdout, sum)
	} else {
		err = compare.WriteSummaryText(a.env.Stdout, sum)
	}
	if err != nil {
		return runtimeErr(err)
	}
	fmt.Fprintf(a.env.Stderr, "fpstop test: %d of %d iterations ok; recordings and %s in %s\n",
		len(sum.Iterations)-sum.Failed, len(sum.Iterations), compare.SummaryFile, t.dir)
	if a.opts.JUnit != "" {
		if err := junit.WriteFile(a.opts.JUnit, t.suite(sum)); err != nil {
			return runtimeErr(err)
		}
	}
	var fails []string
	for _, it := range sum.Iterations {
		if it.Status == compare.StatusFailed {
			fails = append(fails, fmt.Sprintf("iteration %d failed: %s", it.Index, it.Error))
		}
	}
	fails = append(fails, gateFails...)
	if len(fails) > 0 {
		return &gateErr{failures: fails}
	}
	return nil
}

// suite is the JUnit report: per iteration, a testcase for the iteration itself (cold start,
// --before, the driver, the measurement) and one per gate.
func (t *tester) suite(sum *compare.Summary) junit.Suite {
	s := junit.Suite{Name: "fpstop test", Timestamp: t.start, Time: time.Since(t.start)}
	for i, it := range sum.Iterations {
		class := fmt.Sprintf("fpstop.test.iteration.%d", it.Index)
		c := junit.Case{Name: "iteration", Class: class, Time: time.Duration(it.DurationS * float64(time.Second)),
			Output: fmt.Sprintf("recording %s", it.Recording)}
		if it.Status == compare.StatusFailed {
			c.Failure, c.Detail = it.Error, c.Output
		}
		s.Cases = append(s.Cases, c)
		if i < len(t.gateCases) {
			s.Cases = append(s.Cases, t.gateCases[i]...)
		}
	}
	return s
}
