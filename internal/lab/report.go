package lab

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/fpstop/fpstop/internal/exit"
	"github.com/fpstop/fpstop/internal/gate"
	"github.com/fpstop/fpstop/internal/junit"
	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/report"
)

// labDeviceReport is one device's report: the single-device report, plus what happened to the
// device during the run.
type labDeviceReport struct {
	*metrics.Report
	// Connected is false when the device was gone (unplugged, offline) at the end of the run.
	Connected bool `json:"connected"`
	// Notices are the device's events (disconnected, connected again, picked up), timed from
	// the start of the run.
	Notices      []string `json:"notices"`
	GateFailures []string `json:"gate_failures"`
	// Error is why the device's source stopped early, if it did.
	Error *string `json:"error"`
}

// labSummary sums a multi-device run up, without per-frame keys.
type labSummary struct {
	Devices      int         `json:"devices"`
	Frames       int64       `json:"frames"`
	JankyFrames  int64       `json:"janky_frames"`
	JankPct      *metrics.R2 `json:"jank_pct"`
	FPSMin       *metrics.R2 `json:"fps_min"`
	FPSMax       *metrics.R2 `json:"fps_max"`
	Disconnected []string    `json:"disconnected"`
	GateFailed   []string    `json:"gate_failed"`
	// Warnings are the run's own, not a device's: the exports that failed, with their counts.
	Warnings []string `json:"warnings"`
}

// labOutput is what a multi-device --json run prints.
type labOutput struct {
	Devices []labDeviceReport `json:"devices"`
	Summary labSummary        `json:"summary"`
}

// report builds every device's report once its run ended, prints them and applies the gates
// per device: the exit status is 1 when any device failed one, 3 when every export failed (as
// for one device).
func (l *lab) report(exp Exports) error {
	c := l.cfg
	out := labOutput{Devices: []labDeviceReport{}, Summary: labSummary{Disconnected: []string{}, GateFailed: []string{},
		Warnings: append([]string{}, exp.Warnings()...)}}
	var failures []string
	minFPS, maxFPS := math.NaN(), math.NaN()
	for _, d := range l.list() {
		<-d.done
		rep := d.sess.Report(metrics.ReportMeta{Version: c.Version, SourceArg: d.kind, WallNs: d.wallNs})
		d.mu.Lock()
		dr := labDeviceReport{Report: rep, Connected: d.connected.Load(), Notices: append([]string{}, d.notices...)}
		d.mu.Unlock()
		if d.err != nil {
			msg := exit.Sentence(d.err)
			dr.Error = &msg
		}
		dr.GateFailures = c.Gates.Failures(rep)
		if dr.GateFailures == nil {
			dr.GateFailures = []string{}
		}
		s := &out.Summary
		s.Devices++
		s.Frames += rep.Frames
		s.JankyFrames += rep.JankyFrames
		if rep.FPS != nil {
			f := float64(*rep.FPS)
			minFPS, maxFPS = nanMin(minFPS, f), nanMax(maxFPS, f)
		}
		if !dr.Connected {
			s.Disconnected = append(s.Disconnected, d.serial)
		}
		if len(dr.GateFailures) > 0 {
			s.GateFailed = append(s.GateFailed, d.serial)
			for _, f := range dr.GateFailures {
				failures = append(failures, d.serial+": "+f)
			}
		}
		out.Devices = append(out.Devices, dr)
	}
	if out.Summary.Frames > 0 {
		out.Summary.JankPct = metrics.P2(100 * float64(out.Summary.JankyFrames) / float64(out.Summary.Frames))
	}
	out.Summary.FPSMin, out.Summary.FPSMax = metrics.P2(minFPS), metrics.P2(maxFPS)
	if err := writeLab(c.Stdout, &out, c.JSON); err != nil {
		return exit.RuntimeErr(err)
	}
	if c.Gates.JUnit != "" {
		if err := junit.WriteFile(c.Gates.JUnit, l.suites(out.Devices)...); err != nil {
			return exit.RuntimeErr(err)
		}
	}
	if err := exp.Failed(); err != nil {
		return exit.RuntimeErr(err)
	}
	var errs []error
	for _, d := range out.Devices {
		if d.Error != nil {
			errs = append(errs, errors.New(*d.Error))
		}
	}
	if len(failures) > 0 {
		return &exit.GateError{Failures: failures}
	}
	if len(errs) == len(out.Devices) && len(errs) > 0 {
		return exit.RuntimeErr(fmt.Errorf("no device could be measured: %w", errors.Join(errs...)))
	}
	return nil
}

func nanMin(a, b float64) float64 {
	if math.IsNaN(a) || b < a {
		return b
	}
	return a
}

func nanMax(a, b float64) float64 {
	if math.IsNaN(a) || b > a {
		return b
	}
	return a
}

// writeLab prints the multi-device result: JSON, or each device's summary and the total.
func writeLab(w io.Writer, out *labOutput, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(out)
	}
	for _, d := range out.Devices {
		serial, model := "", ""
		if d.Device != nil {
			serial, model = d.Device.Serial, d.Device.Model
		}
		state := "connected"
		if !d.Connected {
			state = "disconnected"
		}
		fmt.Fprintf(w, "== %s (%s) · %s\n", serial, model, state)
		if err := report.WriteText(w, d.Report); err != nil {
			return err
		}
		for _, n := range d.Notices {
			fmt.Fprintf(w, "notice: %s\n", n)
		}
		if d.Error != nil {
			fmt.Fprintf(w, "error: %s\n", *d.Error)
		}
	}
	s := out.Summary
	r2 := func(v *metrics.R2) string {
		if v == nil {
			return "–"
		}
		return fmt.Sprintf("%.2f", float64(*v))
	}
	_, err := fmt.Fprintf(w, "== summary: %d devices · frames %d · janky %d (%s %%) · fps %s–%s · disconnected %d · gates failed %d\n",
		s.Devices, s.Frames, s.JankyFrames, r2(s.JankPct), r2(s.FPSMin), r2(s.FPSMax), len(s.Disconnected), len(s.GateFailed))
	for _, warn := range s.Warnings {
		if err == nil {
			_, err = fmt.Fprintf(w, "warning: %s\n", warn)
		}
	}
	return err
}

// suites are the JUnit testsuites of a multi-device run: one per device, its gates as
// testcases, and a failed "measured" testcase for a device that could not be measured or was
// lost before the end (its gates then cover only part of the run).
func (l *lab) suites(devs []labDeviceReport) []junit.Suite {
	suites := make([]junit.Suite, 0, len(devs))
	for _, d := range devs {
		serial := gate.Scope(d.Report)
		s := junit.Suite{Name: "fpstop headless " + serial, Timestamp: l.start, Time: time.Since(l.start),
			Cases: l.cfg.Gates.Cases(d.Report, "fpstop.headless")}
		if d.Error != nil || !d.Connected {
			c := junit.Case{Name: "measured", Class: "fpstop.headless." + serial, Output: "the device was measured to the end of the run"}
			switch {
			case d.Error != nil:
				c.Failure = *d.Error
			default:
				c.Failure = "the device was disconnected at the end of the run: its numbers cover only part of it"
			}
			c.Detail = strings.Join(d.Notices, "\n")
			s.Cases = append(s.Cases, c)
		}
		suites = append(suites, s)
	}
	return suites
}
