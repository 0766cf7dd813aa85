package compare

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/fpstop/fpstop/metrics"
)

// GateOff turns a gate off (Options.MaxFPSDrop, Options.MaxJankIncrease).
const GateOff = -1

// Options are the comparison's settings; DefaultOptions gives the documented defaults.
type Options struct {
	// Confidence of the intervals; a difference is significant when p < 1 − Confidence (and it
	// exceeds MinEffect).
	Confidence float64
	MinEffect  MinEffect
	// Resamples and Seed drive the bootstrap; the same seed gives the same result.
	Resamples int
	Seed      uint64
	// MaxFPSDrop (fps) and MaxJankIncrease (percentage points) fail a significant regression
	// beyond them; negative = off.
	MaxFPSDrop      float64
	MaxJankIncrease float64
	// Version is the fpstop version written into the result.
	Version string
	// BaseLabel and NewLabel name the sides (what the user passed).
	BaseLabel, NewLabel string
	// NoMessages leaves the slow messages and sections out (they never decide the verdict or a gate, and
	// their bootstrap is most of a comparison's time): scripts/calibrate compares thousands.
	NoMessages bool
}

// DefaultOptions: 95 % confidence, a minimum effect of 1 fps, 1 percentage point and 1 ms,
// 2000 resamples with seed 1, no gates.
func DefaultOptions() Options {
	return Options{Confidence: 0.95, MinEffect: MinEffect{FPS: 1, Pct: 1, Ms: 1}, Resamples: 2000, Seed: 1,
		MaxFPSDrop: GateOff, MaxJankIncrease: GateOff}
}

func (o Options) validate() error {
	switch {
	case !(o.Confidence > 0 && o.Confidence < 1):
		return fmt.Errorf("confidence %v: want a value between 0 and 1 (e.g. 0.95)", o.Confidence)
	case o.Resamples < 100 || o.Resamples > 100000:
		return fmt.Errorf("resamples %d: want 100 to 100000", o.Resamples)
	case !(o.MinEffect.FPS >= 0 && o.MinEffect.Pct >= 0 && o.MinEffect.Ms >= 0):
		return errors.New("minimum effects must not be negative")
	}
	return nil
}

// Compare compares the NEW recordings with the BASE ones (each side at least one).
func Compare(base, new []*Run, o Options) (*Result, error) {
	if len(base) == 0 || len(new) == 0 {
		return nil, errors.New("each side needs at least one recording")
	}
	if err := o.validate(); err != nil {
		return nil, err
	}
	c := &comparer{o: o, defs: defsFor(base, new)}
	res := &Result{Schema: SchemaVersion, FpstopVersion: o.Version, Confidence: o.Confidence, MinEffect: o.MinEffect,
		Bootstrap: Bootstrap{Resamples: o.Resamples, Seed: o.Seed},
		Base:      describe(o.BaseLabel, base), New: describe(o.NewLabel, new),
		Windows: []Window{}, Messages: []Message{}, Gates: []Gate{}, Warnings: []string{}}
	res.Metrics = c.scope(runScope(base), runScope(new))
	res.Windows = c.windows(base, new)
	c.decide(res)
	if !o.NoMessages {
		res.Messages = c.messages(base, new)
		res.Sections = c.sections(base, new)
	}
	res.Gates = c.gates(res)
	for _, g := range res.Gates {
		res.GatesFailed = res.GatesFailed || g.Failed
	}
	res.Warnings = warnings(res, base, new)
	return res, nil
}

type comparer struct {
	o    Options
	defs []metricDef // what is compared (defsFor)
}

// scopeData is one side of a scope (the run, or a window): per recording where it exists, the
// report's values.
type scopeData struct {
	vals []scopeValues
}

func runScope(runs []*Run) scopeData {
	var d scopeData
	for _, r := range runs {
		d.vals = append(d.vals, runValues(r.Report))
	}
	return d
}

// reportedAll is metric m over the side's recordings (missing values left out).
func (d scopeData) reportedAll(m metricDef) []float64 {
	var out []float64
	for _, v := range d.vals {
		if x := v.reported(m); !math.IsNaN(x) {
			out = append(out, x)
		}
	}
	return out
}

// verdictMetrics are the metrics that decide the verdict and that the gates check, tested
// together with Holm's correction (in the run and every window both sides have); every other
// metric is informational: tested and shown on its own, never failing a build.
var verdictMetrics = map[string]bool{"fps": true, "jank_pct": true}

// scope compares every metric of one scope: per-iteration values when both sides have at
// least two recordings, else the values and the difference only (no test: one run cannot tell
// the spread between runs). Significance is decided later, once every scope's p is known.
func (c *comparer) scope(base, new scopeData) []Metric {
	alpha := (1 - c.o.Confidence) / float64(len(verdictMetrics))
	out := make([]Metric, len(c.defs))
	for i, def := range c.defs {
		bv, nv := base.reportedAll(def), new.reportedAll(def)
		m := Metric{Name: def.name, Unit: def.unit, Better: "lower", MinEffect: c.o.MinEffect.of(def),
			Verdict: Unchanged, Method: MethodNone, Gated: verdictMetrics[def.name], NBase: len(bv), NNew: len(nv)}
		if def.higher {
			m.Better = "higher"
		}
		if len(bv) > 0 {
			m.Base = r2p(mean(bv))
		}
		if len(nv) > 0 {
			m.New = r2p(mean(nv))
		}
		if len(bv) == 0 || len(nv) == 0 {
			out[i] = m
			continue
		}
		d := mean(nv) - mean(bv)
		m.Diff = r2p(d)
		// a relative change of a tiny base says nothing (+13734 % of 0.08 %): below the
		// metric's minimum effect (or 1 unit) it is left out
		if b := math.Abs(mean(bv)); b > 0 && b >= math.Max(m.MinEffect, 1) {
			m.DiffPct = r2p(d / b * 100)
		}
		if len(bv) < 2 || len(nv) < 2 {
			m.Verdict = Inconclusive
			out[i] = m
			continue
		}
		if t, ok := testIterations(bv, nv, c.o.Confidence, alpha); ok {
			m.Method, m.CILow, m.CIHigh, m.P = t.method, r2p(t.lo), r2p(t.hi), pround(t.p)
			if t.pMin > 0 {
				m.PMin = pround(t.pMin)
			}
			m.p = t.p
		}
		out[i] = m
	}
	return out
}

// pround keeps a p-value's first three significant digits (so 0.00397 stays 0.00397).
func pround(p float64) *float64 {
	if math.IsNaN(p) {
		return nil
	}
	if p == 0 {
		return &p
	}
	v, _ := strconv.ParseFloat(strconv.FormatFloat(p, 'g', 3, 64), 64)
	return &v
}

// decide sets every metric's significance and verdict: the verdict metrics of all scopes with
// Holm's correction across them, the others each on its own p; then the scopes' verdicts and
// the overall one.
func (c *comparer) decide(res *Result) {
	alpha := 1 - c.o.Confidence
	scopes := [][]Metric{res.Metrics}
	for _, w := range res.Windows {
		if w.Present == PresentBoth {
			scopes = append(scopes, w.Metrics)
		}
	}
	var gated []*Metric
	var ps []float64
	for _, ms := range scopes {
		for i := range ms {
			m := &ms[i]
			if m.Gated && m.P != nil {
				gated, ps = append(gated, m), append(ps, m.p)
			}
			if !m.Gated && m.P != nil {
				setVerdict(m, m.p < alpha)
			}
		}
	}
	for i, adj := range holm(ps) {
		gated[i].PHolm = pround(adj)
		setVerdict(gated[i], adj < alpha)
	}
	for i := range res.Windows {
		if w := &res.Windows[i]; w.Present == PresentBoth {
			w.Verdict = overall(w.Metrics)
		}
	}
	res.Verdict = overall(res.Metrics)
	if res.Verdict != Inconclusive {
		for _, w := range res.Windows {
			if w.Present == PresentBoth && (w.Verdict == Worse || w.Verdict == Better && res.Verdict == Unchanged) {
				res.Verdict = w.Verdict
			}
		}
	}
}

// setVerdict: significant when the test says so and the difference exceeds the minimum effect.
func setVerdict(m *Metric, sig bool) {
	m.Significant = sig && m.Diff != nil && math.Abs(*m.Diff) > m.MinEffect
	m.Verdict = Unchanged
	if m.Significant {
		if (*m.Diff > 0) == (m.Better == "higher") {
			m.Verdict = Better
		} else {
			m.Verdict = Worse
		}
	}
}

// fillBootstrap sets a slow message's difference, interval, p-value, significance and verdict
// from the bootstrap distribution of its difference (nil: no test). Messages are
// informational: they never decide the verdict.
func (c *comparer) fillBootstrap(m *Metric, d, base float64, dist []float64) {
	m.Diff = r2p(d)
	if base != 0 && math.Abs(base) >= math.Max(m.MinEffect, 1) {
		m.DiffPct = r2p(d / math.Abs(base) * 100)
	}
	if dist == nil {
		m.Method = MethodNone
		return
	}
	lo, hi, p, ok := interval(dist, c.o.Confidence)
	if !ok {
		m.Method = MethodNone
		return
	}
	m.CILow, m.CIHigh, m.P = r2p(lo), r2p(hi), pround(p)
	setVerdict(m, p < 1-c.o.Confidence)
}

// overall: inconclusive when a verdict metric could not be tested for want of recordings,
// worse when any verdict metric is worse, better when any is better and none worse.
func overall(ms []Metric) Verdict {
	v := Unchanged
	for _, m := range ms {
		if !m.Gated {
			continue
		}
		switch m.Verdict {
		case Worse:
			return Worse
		case Inconclusive:
			v = Inconclusive
		case Better:
			if v == Unchanged {
				v = Better
			}
		}
	}
	return v
}

// windows compares the windows by name: those on both sides fully, the others by presence.
func (c *comparer) windows(base, new []*Run) []Window {
	frames := map[string]int64{}
	side := func(runs []*Run) map[string]scopeData {
		out := map[string]scopeData{}
		for _, r := range runs {
			for i := range r.Report.Windows {
				w := &r.Report.Windows[i]
				d := out[w.Name]
				d.vals = append(d.vals, windowValues(w))
				out[w.Name] = d
				frames[w.Name] += w.Frames
			}
		}
		return out
	}
	bw, nw := side(base), side(new)
	names := make([]string, 0, len(frames))
	for n := range frames {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		if frames[names[i]] != frames[names[j]] {
			return frames[names[i]] > frames[names[j]]
		}
		return names[i] < names[j]
	})
	out := make([]Window, 0, len(names))
	for _, n := range names {
		b, inB := bw[n]
		nn, inN := nw[n]
		w := Window{Name: n, Present: PresentBoth, Verdict: Unchanged}
		switch {
		case !inB:
			w.Present = PresentNew
		case !inN:
			w.Present = PresentGone
		}
		w.Metrics = c.scope(b, nn)
		out = append(out, w)
	}
	return out
}

// describe summarises a side from its recordings.
func describe(label string, runs []*Run) Side {
	s := Side{Label: label, Recordings: []string{}}
	for i, r := range runs {
		s.Recordings = append(s.Recordings, r.Path)
		s.Frames += r.Report.Frames
		s.DurationS += float64(r.Report.DurationS)
		if i == 0 {
			s.Source, s.Package, s.Scenario = r.Report.Source, r.Report.Package, r.Header.Scenario
			if r.Report.RefreshHz != nil {
				s.RefreshHz = r2p(float64(*r.Report.RefreshHz))
			}
			if d := r.Report.Device; d != nil {
				s.Device = strings.TrimSpace(d.Model)
				if d.Serial != "" {
					s.Device = strings.TrimSpace(fmt.Sprintf("%s (%s)", s.Device, d.Serial))
				}
			}
		}
		if r.Header.Scenario != "" {
			s.Seeds = append(s.Seeds, r.Header.Seed)
		}
	}
	s.DurationS = math.Round(s.DurationS*100) / 100
	return s
}

// shortS is the run length under which a recording is called short: a few seconds of an app
// catch one phase of it (a scroll, an idle gap, a GC), so short runs differ for that alone.
const shortS = 15

// warnings say what limits the comparison, printed beside the verdict: sides that are not
// comparable, a single recording, few or short recordings.
func warnings(res *Result, base, new []*Run) []string {
	w := []string{}
	b, n := res.Base, res.New
	if b.Source != n.Source {
		w = append(w, fmt.Sprintf("the sides were measured with different sources (%s and %s)", b.Source, n.Source))
	}
	if b.RefreshHz != nil && n.RefreshHz != nil && *b.RefreshHz != *n.RefreshHz {
		w = append(w, fmt.Sprintf("the sides ran at different refresh rates (%g and %g Hz): fps and frame times differ for that reason alone", *b.RefreshHz, *n.RefreshHz))
	}
	for _, sd := range []struct {
		name string
		runs []*Run
	}{{"BASE", base}, {"NEW", new}} {
		if k := mixed(sd.runs); k != "" {
			w = append(w, fmt.Sprintf("%s's recordings differ in %s: they are not repeats of one measurement", sd.name, k))
		}
	}
	if b.Package != nil && n.Package != nil && *b.Package != *n.Package {
		w = append(w, fmt.Sprintf("the sides measured different apps (%s and %s)", *b.Package, *n.Package))
	}
	if b.Scenario != n.Scenario {
		w = append(w, fmt.Sprintf("the sides are different simulator scenarios (%q and %q)", b.Scenario, n.Scenario))
	}
	nb, nn := len(base), len(new)
	switch {
	case nb < 2 || nn < 2:
		w = append(w, fmt.Sprintf("%d and %d recording(s): with one run on a side the spread between runs is unknown, so the verdict is inconclusive and the gates are not checked; run fpstop test --iterations 5 (or more) for each build", nb, nn))
	case nb < 5 || nn < 5:
		w = append(w, fmt.Sprintf("%d and %d recordings: an exact test of so few cannot give p below %s, so p comes from Welch's t test, which assumes per-run values roughly normal; 5 or more per side give an exact test", nb, nn, strconv.FormatFloat(minPermutationP(nb, nn, binomial(nb+nn, nb)), 'g', 3, 64)))
	}
	w = append(w, phaseWarnings(base, new)...)
	short := 0
	for _, r := range append(append([]*Run(nil), base...), new...) {
		if float64(r.Report.DurationS) < shortS {
			short++
		}
	}
	if short > 0 {
		w = append(w, fmt.Sprintf("%d recording(s) shorter than %d s: short runs catch different phases of an app (a scroll, an idle gap, a GC pause) and differ for that alone; measure %d s or more", short, shortS, 2*shortS))
	}
	return w
}

// mixed names what a side's recordings disagree on (source, refresh rate, package), or "".
func mixed(runs []*Run) string {
	keys := []struct {
		name string
		of   func(*Run) string
	}{
		{"source", func(r *Run) string { return r.Report.Source }},
		{"refresh rate", func(r *Run) string {
			if r.Report.RefreshHz == nil {
				return ""
			}
			return num(float64(*r.Report.RefreshHz))
		}},
		{"package", func(r *Run) string { return r.Header.Package }},
	}
	var what []string
	for _, k := range keys {
		for _, r := range runs[1:] {
			if k.of(r) != k.of(runs[0]) {
				what = append(what, k.name)
				break
			}
		}
	}
	return strings.Join(what, " and ")
}

// r2p rounds to two decimals; nil for NaN or infinity (a value with no meaning is null).
func r2p(f float64) *float64 { return roundp(f, 2) }

func roundp(f float64, digits int) *float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil
	}
	k := math.Pow(10, float64(digits))
	v := math.Round(f*k) / k
	if v == 0 {
		v = 0 // no -0 in JSON
	}
	return &v
}

// whatName names a message's what code as the report does.
func whatName(handler string, what int) string { return metrics.WhatName(handler, what) }
