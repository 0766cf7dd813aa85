package cli

import (
	"context"
	"time"

	"github.com/spf13/cobra"

	"github.com/fpstop/fpstop/internal/testrun"
)

// flags of the main command that mean nothing to `fpstop test`: refused on the command line.
var testRefused = []string{"input", "record", "headless", "json", "truth", "theme", "color", "no-mouse", "refresh", "target-fps"}

func (a *app) testCmd() *cobra.Command {
	var f testrun.Options
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
	fs.IntVarP(&f.Iterations, "iterations", "n", 5, "how many measured runs")
	fs.StringVar(&f.Command, "command", "", "driver command, run with sh -c while measuring")
	fs.StringVar(&f.Before, "before", "", "command run before each iteration's measurement (after --cold)")
	fs.BoolVar(&f.Cold, "cold", false, "force-stop the app and start its launcher activity before each iteration")
	fs.DurationVar(&f.Grace, "driver-grace", 5*time.Second, "how long to wait for the driver after the measurement before stopping it")
	fs.StringVar(&f.Format, "format", "text", "summary on stdout: text or json")
	fs.Float64Var(&f.Confidence, "confidence", 0.95, "confidence of the summary's intervals")
	fs.IntVar(&f.Resamples, "resamples", 2000, "bootstrap resamples for the intervals")
	fs.Uint64Var(&f.BootstrapSeed, "bootstrap-seed", 1, "bootstrap seed")
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

// runTest is `fpstop test`: the flags checked, the device and app fixed for every iteration,
// then package testrun runs the iterations.
func (a *app) runTest(cmd *cobra.Command, f *testrun.Options) error {
	if err := a.prepare(cmd); err != nil {
		return err
	}
	for _, name := range testRefused {
		// only the command line counts (a config file leaves Changed false): a config file's
		// theme or refresh is for the dashboard
		if cmd.Flags().Changed(name) {
			return usageErr("--%s does not apply to fpstop test", name)
		}
	}
	cfg := testrun.Config{Options: *f, Source: a.opts.Source, Duration: a.opts.Duration, Dir: a.opts.RecordDir,
		Force: a.opts.Force, Seed: a.opts.Seed, Gates: a.opts.gates(),
		Version: a.env.Build.Version, Stdout: a.env.Stdout, Stderr: a.env.Stderr}
	if err := cfg.Validate(); err != nil {
		return err
	}
	a.startLog()
	cfg.Session = a.sessionConfig(false) // logs to the log just opened
	ctx := cmd.Context()
	// auto: a device is required, as for a headless run (gfxinfo, or SurfaceFlinger for an app
	// drawing only into a SurfaceView); the summary names the source the reports name
	if a.opts.Source != "sim" {
		tg, err := a.devices().Target(ctx, a.opts.Serial, a.opts.Package)
		if err != nil {
			return err
		}
		// fixed for every iteration: after a force-stop the foreground app is another one
		a.opts.Package, a.opts.Serial = tg.Pkg, tg.Info.Serial
		cfg.Target = &testrun.Target{Client: tg.Client, Serial: tg.Info.Serial, Package: tg.Pkg}
	}
	cfg.Package = a.opts.Package
	cfg.Open = func(ctx context.Context, kind string, seed int64) (*testrun.Opened, error) {
		var op *opened
		var err error
		if cfg.Target == nil {
			a.opts.Seed = seed
			op, err = a.simSource("")
		} else {
			op, err = a.deviceSource(ctx, kind, true)
		}
		if err != nil {
			return nil, err
		}
		return &testrun.Opened{Src: op.src, Kind: op.kind, Live: op.live, Virtual: op.virtual}, nil
	}
	return testrun.Run(ctx, cfg)
}
