// Package testrun is `fpstop test`: N measured iterations of an app, each measured while a
// driver command runs (after an optional cold start and --before), one recording per
// iteration and a summary with every iteration's values, their mean and its confidence
// interval. The command line parses the flags and picks the device; Run does the rest.
package testrun

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/fpstop/fpstop/compare"
	"github.com/fpstop/fpstop/device"
	"github.com/fpstop/fpstop/internal/exit"
	"github.com/fpstop/fpstop/internal/gate"
	"github.com/fpstop/fpstop/internal/junit"
	"github.com/fpstop/fpstop/internal/outfile"
	"github.com/fpstop/fpstop/internal/session"
	"github.com/fpstop/fpstop/source"
)

// Options are `fpstop test`'s own flags.
type Options struct {
	Iterations    int
	Command       string
	Before        string
	Cold          bool
	Grace         time.Duration
	Format        string
	Confidence    float64
	Resamples     int
	BootstrapSeed uint64
}

// Target is the device and app every iteration measures (fixed before the first: after a
// force-stop the foreground app is another one).
type Target struct {
	Client  *device.Client
	Serial  string
	Package string
}

// Opened is an iteration's source, ready to run.
type Opened struct {
	Src  source.Source
	Kind string // the --source it runs as, as the report names it
	// Live: a device; the report's duration is the run's wall time.
	Live bool
	// Virtual: the source ends by itself at --duration (the simulator).
	Virtual bool
}

// Config is a test as the flags ask for it.
type Config struct {
	Options
	Source   string        // --source
	Package  string        // the app, as the summary names it
	Duration time.Duration // each iteration's length (0: as long as --command runs)
	Dir      string        // --record-dir ("" : fpstop-test-DATE-TIME)
	Force    bool          // replace a test already in Dir
	Seed     int64         // the simulator's seed of the first iteration
	// Target is the device (nil: the simulator).
	Target *Target
	// Open starts an iteration's source as kind; seed is the simulator's for this iteration.
	Open    func(ctx context.Context, kind string, seed int64) (*Opened, error)
	Session session.Config
	Gates   gate.Gates
	Version string // fpstop's, for the summary and the reports
	Stdout  io.Writer
	Stderr  io.Writer
}

// Validate checks the test's own flags and what they need of the main command's.
func (c *Config) Validate() error {
	switch {
	case c.Iterations < 1 || c.Iterations > 1000:
		return exit.Usagef("--iterations %d: want 1 to 1000", c.Iterations)
	case c.Command == "" && c.Duration == 0:
		return exit.Usagef("fpstop test needs --command (measured while it runs) or --duration")
	case c.Source == "sim" && c.Duration == 0:
		return exit.Usagef("the simulator needs --duration (the length of each iteration, in virtual time)")
	case c.Cold && c.Source == "sim":
		return exit.Usagef("--cold restarts an app on a device; the simulator has none")
	case c.Format != "text" && c.Format != "json":
		return exit.Usagef("--format %q: want text or json", c.Format)
	case !(c.Confidence > 0 && c.Confidence < 1):
		return exit.Usagef("--confidence %v: want a value between 0 and 1", c.Confidence)
	case c.Resamples < 100 || c.Resamples > 100000:
		return exit.Usagef("--resamples %d: want 100 to 100000", c.Resamples)
	case c.Grace < 0:
		return exit.Usagef("--driver-grace must not be negative")
	}
	return nil
}

// prepareDir creates the record directory (default fpstop-test-YYYYMMDD-HHMMSS) and refuses one
// that already holds a test unless --force.
func (c *Config) prepareDir(now time.Time) (string, error) {
	dir := c.Dir
	if dir == "" {
		dir = "fpstop-test-" + now.Format("20060102-150405")
	}
	if _, err := os.Stat(filepath.Join(dir, compare.SummaryFile)); err == nil && !c.Force {
		return "", exit.Usagef("%s already holds a test (add --force to replace it)", dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", exit.RuntimeErr(fmt.Errorf("cannot create %s: %w", dir, err))
	}
	return dir, nil
}

// Run runs the iterations and writes the summary. A failed iteration or gate is exit 1 at the
// end; the iterations so far are kept and summarised when ctx ends.
func Run(ctx context.Context, cfg Config) error {
	start := time.Now()
	t := &tester{cfg: &cfg, start: start}
	dir, err := cfg.prepareDir(start)
	if err != nil {
		return err
	}
	t.dir = dir
	sum := &compare.Summary{Schema: compare.SummarySchema, FpstopVersion: cfg.Version, Source: cfg.Source,
		Package: cfg.Package, Command: cfg.Command, Before: cfg.Before, Cold: cfg.Cold}
	var gateFails []string
	for i := 1; i <= cfg.Iterations; i++ {
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
			fmt.Fprintf(cfg.Stderr, "fpstop test: interrupted after iteration %d of %d\n", i, cfg.Iterations)
			break
		}
	}
	if t.source != "" {
		sum.Source = t.source
	}
	compare.Summarize(sum, cfg.Confidence)
	return t.finish(sum, gateFails)
}

// finish writes summary.json, prints the summary and the JUnit report, and says how it went.
func (t *tester) finish(sum *compare.Summary, gateFails []string) error {
	c := t.cfg
	path := filepath.Join(t.dir, compare.SummaryFile)
	f, err := outfile.Create(path, true)
	if err != nil {
		return exit.RuntimeErr(fmt.Errorf("cannot write the summary: %w", err))
	}
	err = writeJSON(f, sum)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return exit.RuntimeErr(fmt.Errorf("writing %s: %w", path, err))
	}
	if c.Format == "json" {
		err = writeJSON(c.Stdout, sum)
	} else {
		err = compare.WriteSummaryText(c.Stdout, sum)
	}
	if err != nil {
		return exit.RuntimeErr(err)
	}
	fmt.Fprintf(c.Stderr, "fpstop test: %d of %d iterations ok; recordings and %s in %s\n",
		len(sum.Iterations)-sum.Failed, len(sum.Iterations), compare.SummaryFile, t.dir)
	if c.Gates.JUnit != "" {
		if err := junit.WriteFile(c.Gates.JUnit, t.suite(sum)); err != nil {
			return exit.RuntimeErr(err)
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
		return &exit.GateError{Failures: fails}
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

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
