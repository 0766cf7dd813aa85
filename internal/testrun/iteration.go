package testrun

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/fpstop/fpstop/compare"
	"github.com/fpstop/fpstop/internal/exit"
	"github.com/fpstop/fpstop/internal/junit"
	"github.com/fpstop/fpstop/internal/outfile"
	"github.com/fpstop/fpstop/internal/session"
	"github.com/fpstop/fpstop/metrics"
)

// tester runs the iterations of `fpstop test`.
type tester struct {
	cfg     *Config
	dir     string
	source  string // as the reports name it (auto resolves to gfxinfo or surfaceflinger)
	start   time.Time
	itStart time.Time
	done    []time.Duration
	// gateCases are the JUnit gate testcases of each iteration, in order.
	gateCases [][]junit.Case
}

// progress says on stderr which iteration starts and, after the first, when the run should end.
func (t *tester) progress(i int) {
	t.itStart = time.Now()
	msg := fmt.Sprintf("fpstop test: iteration %d of %d", i, t.cfg.Iterations)
	if n := len(t.done); n > 0 {
		var sum time.Duration
		for _, d := range t.done {
			sum += d
		}
		eta := sum / time.Duration(n) * time.Duration(t.cfg.Iterations-i+1)
		msg += fmt.Sprintf(" (ETA %s)", eta.Round(time.Second))
	}
	fmt.Fprintln(t.cfg.Stderr, msg)
}

// env is the environment of the user's commands.
func (t *tester) env(i int) []string {
	env := append(os.Environ(), fmt.Sprintf("FPSTOP_ITERATION=%d", i))
	if tg := t.cfg.Target; tg != nil {
		env = append(env, "FPSTOP_SERIAL="+tg.Serial, "FPSTOP_PACKAGE="+tg.Package)
	}
	return env
}

// iteration runs iteration i. A failure of the app restart, --before, the driver or the
// measurement marks the iteration failed (returned in the Iteration); err is only for what
// stops the whole test (the directory cannot be written).
func (t *tester) iteration(ctx context.Context, i int) (compare.Iteration, []string, error) {
	it := compare.Iteration{Index: i, Status: compare.StatusOK, Values: map[string]*float64{}}
	t.gateCases = append(t.gateCases, nil)
	fail := func(format string, args ...any) (compare.Iteration, []string, error) {
		it.Status, it.Error = compare.StatusFailed, fmt.Sprintf(format, args...)
		it.DurationS = time.Since(t.itStart).Seconds()
		fmt.Fprintf(t.cfg.Stderr, "fpstop test: iteration %d failed: %s\n", i, it.Error)
		return it, nil, nil
	}
	logf, err := outfile.Create(filepath.Join(t.dir, fmt.Sprintf("iteration-%02d.log", i)), true)
	if err != nil {
		return it, nil, exit.RuntimeErr(fmt.Errorf("cannot write the command log: %w", err))
	}
	defer logf.Close()
	if t.cfg.Cold {
		if err := t.coldStart(ctx); err != nil {
			return fail("cold start: %s", exit.Sentence(err))
		}
	}
	if t.cfg.Before != "" {
		cmd := shellCommand(t.cfg.Before)
		cmd.Env, cmd.Stdout, cmd.Stderr = t.env(i), logf, logf
		if err := runCommand(ctx, cmd); err != nil {
			return fail("--before %s", err)
		}
	}
	seed := t.cfg.Seed + int64(i-1)
	if t.cfg.Target == nil {
		it.Seed = &seed
	}
	name := fmt.Sprintf("iteration-%02d.jsonl.gz", i)
	rep, driverErr, err := t.measure(ctx, i, seed, filepath.Join(t.dir, name), logf)
	it.DurationS = time.Since(t.itStart).Seconds()
	if err != nil {
		return fail("measurement: %s", exit.Sentence(err))
	}
	it.Recording = name
	it.Values = compare.IterationValues(rep)
	if t.source == "" {
		t.source = rep.Source
		if t.cfg.Source == "auto" && t.cfg.Iterations > 1 {
			fmt.Fprintf(t.cfg.Stderr, "fpstop test: --source auto chose %s in iteration %d; every later iteration uses it too\n", rep.Source, i)
		}
	}
	cases := t.cfg.Gates.Cases(rep, fmt.Sprintf("fpstop.test.iteration.%d", i))
	t.gateCases[i-1] = cases
	var fails []string
	for _, c := range cases {
		if c.Failure != "" {
			fails = append(fails, fmt.Sprintf("iteration %d: %s", i, c.Failure))
		}
	}
	if driverErr != nil {
		res, _, err := fail("driver command %s", driverErr)
		res.Recording, res.Values = it.Recording, it.Values
		return res, fails, err
	}
	return it, fails, nil
}

// coldStart force-stops the app and starts its launcher activity (validated device commands).
func (t *tester) coldStart(ctx context.Context) error {
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	tg := t.cfg.Target
	if err := tg.Client.ForceStop(cctx, tg.Serial, tg.Package); err != nil {
		return err
	}
	return tg.Client.Launch(cctx, tg.Serial, tg.Package)
}

// runCommand runs cmd to its end (stopping it when ctx ends); the error says how it ended.
func runCommand(ctx context.Context, cmd *exec.Cmd) error {
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("could not start: %w", err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return exitText(err)
	case <-ctx.Done():
		stopCommand(cmd)
		<-done
		return ctx.Err()
	}
}

func exitText(err error) error {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return fmt.Errorf("exited with status %d", ee.ExitCode())
	}
	return err
}

// measure records one iteration: the source runs while the driver does (until the driver ends,
// or for --duration). The driver's failure is returned apart from the measurement's.
func (t *tester) measure(ctx context.Context, i int, seed int64, path string, log io.Writer) (*metrics.Report, error, error) {
	op, err := t.open(ctx, seed)
	if err != nil {
		return nil, nil, err
	}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	if d := t.cfg.Duration; d > 0 && !op.Virtual {
		runCtx, cancel = context.WithTimeout(runCtx, d)
		defer cancel()
	}
	var drv *driver
	if t.cfg.Command != "" {
		if drv, err = startDriver(t.cfg.Command, t.env(i), log); err != nil {
			return nil, nil, err
		}
		if t.cfg.Duration == 0 {
			go func() { // no --duration: the measurement lasts as long as the driver
				<-drv.done
				cancel()
			}()
		}
	}
	scfg := t.cfg.Session
	scfg.Recording.Force = true // the directory was checked as a whole
	rec, err := session.NewRecording(path, scfg.Recording)
	if err != nil {
		return nil, nil, exit.RecordingErr(err)
	}
	start := time.Now()
	sess := session.Start(runCtx, scfg, op.Src, rec)
	runErr := sess.Wait()
	wall := int64(max(0, time.Since(start)))
	var driverErr error
	if drv != nil {
		driverErr = drv.finish(ctx, t.cfg.Grace)
	}
	recErr := sess.Close()
	switch {
	case runErr != nil:
		return nil, driverErr, runErr
	case recErr != nil:
		return nil, driverErr, recErr
	}
	meta := metrics.ReportMeta{Version: t.cfg.Version, SourceArg: op.Kind}
	if op.Live {
		meta.WallNs = wall
	}
	return sess.Report(meta), driverErr, nil
}

// open starts this iteration's source. With --source auto the first iteration decides (gfxinfo,
// gfxinfo+logcat when the app logs its Looper, SurfaceFlinger for a SurfaceView-only app) and
// every later iteration keeps that choice: iterations measured differently are not repeats.
func (t *tester) open(ctx context.Context, seed int64) (*Opened, error) {
	kind := t.cfg.Source
	if t.cfg.Target != nil && kind == "auto" && t.source != "" && t.source != "auto" {
		kind = keptKind(t.source)
	}
	return t.cfg.Open(ctx, kind, seed)
}

// keptKind is the source kind that repeats the first iteration's choice, from its report's
// source: auto that measured the app's windows and its SurfaceView layer in turn reports both
// (gfxinfo+surfaceflinger, gfxinfo+logcat+surfaceflinger) and is auto again, on the same window
// source and without probing the Looper again.
func keptKind(reported string) string {
	switch reported {
	case "gfxinfo+surfaceflinger":
		return "auto+gfxinfo"
	case "gfxinfo+logcat+surfaceflinger":
		return "auto+logcat"
	}
	return reported
}

// driver is the user's command running during a measurement.
type driver struct {
	cmd  *exec.Cmd
	done chan struct{}
	err  error
}

func startDriver(line string, env []string, log io.Writer) (*driver, error) {
	cmd := shellCommand(line)
	cmd.Env, cmd.Stdout, cmd.Stderr = env, log, log
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("the driver command could not start: %w", err)
	}
	d := &driver{cmd: cmd, done: make(chan struct{})}
	go func() {
		d.err = cmd.Wait()
		close(d.done)
	}()
	return d, nil
}

// finish waits up to grace for the driver to end by itself, then stops it: a driver still
// looping when the measurement ends is not a failure; one that exited non-zero is.
func (d *driver) finish(ctx context.Context, grace time.Duration) error {
	timer := time.NewTimer(grace)
	defer timer.Stop()
	select {
	case <-d.done:
		return exitText(d.err)
	case <-timer.C:
	case <-ctx.Done():
	}
	stopCommand(d.cmd)
	<-d.done
	return nil
}
