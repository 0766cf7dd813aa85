// Package gate is a run's CI gates (--fail-under-fps, --max-jank-pct): checked against its
// report, and written as JUnit testcases. A headless run, `fpstop report`, the multi-device lab
// and `fpstop test` all gate the same way through it, and each gate's rule is written once here
// (on or off, passed or the sentence that says why not), for the exit status and JUnit alike.
package gate

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/fpstop/fpstop/internal/exit"
	"github.com/fpstop/fpstop/internal/junit"
	"github.com/fpstop/fpstop/metrics"
)

// Off turns a gate off (the default of both gate flags).
const Off = -1

// Gates are the gates a run is held to.
type Gates struct {
	// FPS fails a run whose fps is under it; Jank one whose jank_pct is over it. A gate is off
	// when its value is negative or NaN (Off); note that Jank 0 is a real gate ("no janky
	// frame at all"), while FPS 0 is off.
	FPS, Jank float64
	// JUnit is the --junit file the gates are written to ("" for none).
	JUnit string
}

func (g Gates) fpsOn() bool  { return g.FPS > 0 && !math.IsNaN(g.FPS) }
func (g Gates) jankOn() bool { return g.Jank >= 0 && !math.IsNaN(g.Jank) }

// fpsFailure is why rep fails --fail-under-fps ("" when it passes). A run without frames
// fails: CI must not pass when nothing was measured.
func (g Gates) fpsFailure(rep *metrics.Report) string {
	switch {
	case rep == nil || rep.Frames == 0:
		return fmt.Sprintf("no frames were recorded, so fps cannot be checked against --fail-under-fps %s", fmtNum(g.FPS))
	case rep.FPS == nil:
		return fmt.Sprintf("fps is unknown, so it cannot be checked against --fail-under-fps %s", fmtNum(g.FPS))
	case float64(*rep.FPS) < g.FPS:
		return fmt.Sprintf("fps %s is under --fail-under-fps %s", fmtNum(float64(*rep.FPS)), fmtNum(g.FPS))
	}
	return ""
}

// jankFailure is why rep fails --max-jank-pct ("" when it passes), a run without frames too.
func (g Gates) jankFailure(rep *metrics.Report) string {
	switch {
	case rep == nil || rep.Frames == 0:
		return fmt.Sprintf("no frames were recorded, so jank cannot be checked against --max-jank-pct %s", fmtNum(g.Jank))
	case rep.JankPct == nil:
		return fmt.Sprintf("jank_pct is unknown, so it cannot be checked against --max-jank-pct %s", fmtNum(g.Jank))
	case float64(*rep.JankPct) > g.Jank:
		return fmt.Sprintf("jank_pct %s%% (%d of %d frames) is over --max-jank-pct %s%%",
			fmtNum(float64(*rep.JankPct)), rep.JankyFrames, rep.Frames, fmtNum(g.Jank))
	}
	return ""
}

// Failures are the gates rep fails, one sentence each (none: the run passes).
func (g Gates) Failures(rep *metrics.Report) []string {
	var out []string
	if g.fpsOn() {
		if f := g.fpsFailure(rep); f != "" {
			out = append(out, f)
		}
	}
	if g.jankOn() {
		if f := g.jankFailure(rep); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// Scope names the device and app a report measured, for JUnit class names.
func Scope(rep *metrics.Report) string {
	dev := rep.Source
	if rep.Device != nil && rep.Device.Serial != "" {
		dev = rep.Device.Serial
	}
	if rep.Package != nil {
		dev += "." + *rep.Package
	}
	return dev
}

// fmtNum prints at most two decimals, without trailing zeros.
func fmtNum(f float64) string { return strconv.FormatFloat(math.Round(f*100)/100, 'f', -1, 64) }

// Cases are the gates that are on, one testcase each, for the run on its device (the gates of
// headless runs and `fpstop report` apply to the whole run). prefix is "fpstop.headless",
// "fpstop.report" or an iteration's class.
func (g Gates) Cases(rep *metrics.Report, prefix string) []junit.Case {
	class := prefix + "." + Scope(rep)
	var cases []junit.Case
	measured := func(p *metrics.R2, unit string) string {
		if p == nil {
			return "unknown (no frames)"
		}
		return fmtNum(float64(*p)) + unit
	}
	if g.fpsOn() {
		c := junit.Case{Name: "fail-under-fps " + fmtNum(g.FPS), Class: class,
			Output: fmt.Sprintf("fps %s against --fail-under-fps %s over %d frames", measured(rep.FPS, ""), fmtNum(g.FPS), rep.Frames)}
		if f := g.fpsFailure(rep); f != "" {
			c.Failure, c.Detail = f, c.Output
		}
		cases = append(cases, c)
	}
	if g.jankOn() {
		c := junit.Case{Name: "max-jank-pct " + fmtNum(g.Jank), Class: class,
			Output: fmt.Sprintf("jank_pct %s against --max-jank-pct %s (%d of %d frames)", measured(rep.JankPct, " %"), fmtNum(g.Jank), rep.JankyFrames, rep.Frames)}
		if f := g.jankFailure(rep); f != "" {
			c.Failure, c.Detail = f, c.Output
		}
		cases = append(cases, c)
	}
	return cases
}

// Finish writes the JUnit file (when asked) and returns the gate error, if any gate failed.
// suite is "headless" or "report".
func (g Gates) Finish(rep *metrics.Report, suite string, start time.Time) error {
	if g.JUnit != "" {
		s := junit.Suite{Name: "fpstop " + suite, Timestamp: start, Time: time.Since(start),
			Cases: g.Cases(rep, "fpstop."+suite)}
		if err := junit.WriteFile(g.JUnit, s); err != nil {
			return exit.RuntimeErr(err)
		}
	}
	if f := g.Failures(rep); len(f) > 0 {
		return &exit.GateError{Failures: f}
	}
	return nil
}
