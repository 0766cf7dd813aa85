// Package gate is a run's CI gates (--fail-under-fps, --max-jank-pct): checked against its
// report, and written as JUnit testcases. A headless run, `fpstop report`, the multi-device lab
// and `fpstop test` all gate the same way through it.
package gate

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/fpstop/fpstop/internal/exit"
	"github.com/fpstop/fpstop/internal/junit"
	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/report"
)

// Gates are the gates a run is held to.
type Gates struct {
	// FPS and Jank are report.Gate's thresholds: report.GateOff when the flag is not given.
	FPS, Jank float64
	// JUnit is the --junit file the gates are written to ("" for none).
	JUnit string
}

// Failures are the gates rep fails, one sentence each.
func (g Gates) Failures(rep *metrics.Report) []string { return report.Gate(rep, g.FPS, g.Jank) }

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
	if fps := g.FPS; fps > 0 {
		c := junit.Case{Name: "fail-under-fps " + fmtNum(fps), Class: class,
			Output: fmt.Sprintf("fps %s against --fail-under-fps %s over %d frames", measured(rep.FPS, ""), fmtNum(fps), rep.Frames)}
		if f := report.Gate(rep, fps, report.GateOff); len(f) > 0 {
			c.Failure, c.Detail = strings.Join(f, "; "), c.Output
		}
		cases = append(cases, c)
	}
	if jank := g.Jank; jank >= 0 {
		c := junit.Case{Name: "max-jank-pct " + fmtNum(jank), Class: class,
			Output: fmt.Sprintf("jank_pct %s against --max-jank-pct %s (%d of %d frames)", measured(rep.JankPct, " %"), fmtNum(jank), rep.JankyFrames, rep.Frames)}
		if f := report.Gate(rep, report.GateOff, jank); len(f) > 0 {
			c.Failure, c.Detail = strings.Join(f, "; "), c.Output
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
