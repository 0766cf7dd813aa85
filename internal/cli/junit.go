package cli

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/fpstop/fpstop/internal/junit"
	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/record"
)

// reportScope names the device and app a report measured, for JUnit class names.
func reportScope(rep *metrics.Report) string {
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

// gateCases are the report gates that are on, one testcase each, for the run on its device
// (the gates of headless runs and `fpstop report` apply to the whole run). prefix is
// "fpstop.headless", "fpstop.report" or an iteration's class.
func (a *app) gateCases(rep *metrics.Report, prefix string) []junit.Case {
	class := prefix + "." + reportScope(rep)
	var cases []junit.Case
	measured := func(p *metrics.R2, unit string) string {
		if p == nil {
			return "unknown (no frames)"
		}
		return fmtNum(float64(*p)) + unit
	}
	if fps := a.gateFPS(); fps > 0 {
		c := junit.Case{Name: "fail-under-fps " + fmtNum(fps), Class: class,
			Output: fmt.Sprintf("fps %s against --fail-under-fps %s over %d frames", measured(rep.FPS, ""), fmtNum(fps), rep.Frames)}
		if f := record.Gate(rep, fps, record.GateOff); len(f) > 0 {
			c.Failure, c.Detail = strings.Join(f, "; "), c.Output
		}
		cases = append(cases, c)
	}
	if jank := a.gateJank(); jank >= 0 {
		c := junit.Case{Name: "max-jank-pct " + fmtNum(jank), Class: class,
			Output: fmt.Sprintf("jank_pct %s against --max-jank-pct %s (%d of %d frames)", measured(rep.JankPct, " %"), fmtNum(jank), rep.JankyFrames, rep.Frames)}
		if f := record.Gate(rep, record.GateOff, jank); len(f) > 0 {
			c.Failure, c.Detail = strings.Join(f, "; "), c.Output
		}
		cases = append(cases, c)
	}
	return cases
}

// finishGates writes --junit (when asked) and returns the gate error, if any gate failed.
func (a *app) finishGates(rep *metrics.Report, suite string, start time.Time) error {
	if a.opts.JUnit != "" {
		s := junit.Suite{Name: "fpstop " + suite, Timestamp: start, Time: time.Since(start),
			Cases: a.gateCases(rep, "fpstop."+suite)}
		if err := junit.WriteFile(a.opts.JUnit, s); err != nil {
			return runtimeErr(err)
		}
	}
	if f := record.Gate(rep, a.gateFPS(), a.gateJank()); len(f) > 0 {
		return &gateErr{failures: f}
	}
	return nil
}
