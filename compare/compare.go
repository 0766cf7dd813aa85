package compare

import (
	"errors"
	"fmt"
	"math"
	"sort"
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
	c := &comparer{o: o}
	res := &Result{Schema: SchemaVersion, FpstopVersion: o.Version, Confidence: o.Confidence, MinEffect: o.MinEffect,
		Bootstrap: Bootstrap{Resamples: o.Resamples, Seed: o.Seed},
		Base:      describe(o.BaseLabel, base), New: describe(o.NewLabel, new),
		Windows: []Window{}, Messages: []Message{}, Gates: []Gate{}, Warnings: []string{}}
	res.Metrics = c.scope("run", runScope(base), runScope(new))
	res.Verdict = overall(res.Metrics)
	res.Windows = c.windows(base, new)
	res.Messages = c.messages(base, new)
	res.Gates = c.gates(res)
	for _, g := range res.Gates {
		res.GatesFailed = res.GatesFailed || g.Failed
	}
	res.Warnings = warnings(res, base, new)
	return res, nil
}

type comparer struct{ o Options }

// scopeData is one side of a scope (the run, or a window): per recording where it exists, the
// report's values and the slices.
type scopeData struct {
	vals []scopeValues
	sl   []secs
}

func runScope(runs []*Run) scopeData {
	var d scopeData
	for _, r := range runs {
		d.vals = append(d.vals, runValues(r.Report))
		d.sl = append(d.sl, r.Total)
	}
	return d
}

func (d scopeData) pooled() secs {
	var out secs
	for _, s := range d.sl {
		out = append(out, s...)
	}
	return out
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

// scope compares every metric of one scope.
func (c *comparer) scope(name string, base, new scopeData) []Metric {
	rng := rngFor(c.o.Seed, name)
	pb, pn := base.pooled(), new.pooled()
	var d0 []float64
	var reps [][]float64
	across := len(base.vals) >= 2 && len(new.vals) >= 2
	if !across && len(pb) >= 2 && len(pn) >= 2 {
		d0, reps = blockBootstrap(pb, pn, metricDefs, c.o.Resamples, rng)
	}
	out := make([]Metric, len(metricDefs))
	for i, def := range metricDefs {
		bv, nv := base.reportedAll(def), new.reportedAll(def)
		m := Metric{Name: def.name, Unit: def.unit, Better: "lower", MinEffect: c.o.MinEffect.of(def),
			Verdict: Unchanged, Method: MethodNone}
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
		var dist []float64
		switch {
		case across && len(bv) >= 2 && len(nv) >= 2:
			m.Method, m.NBase, m.NNew = MethodIterationBootstrap, len(bv), len(nv)
			dist = meanBootstrap(bv, nv, c.o.Resamples, rng, mean)
		case reps != nil:
			m.Method, m.NBase, m.NNew = MethodBlockBootstrap, len(pb), len(pn)
			dist = shift(reps[i], d0[i], d)
		}
		c.fill(&m, def.higher, d, mean(bv), dist)
		out[i] = m
	}
	return out
}

// fill sets a metric's difference, interval, p-value, significance and verdict from the
// bootstrap distribution of its difference (nil: no test).
func (c *comparer) fill(m *Metric, higherBetter bool, d, base float64, dist []float64) {
	m.Diff = r2p(d)
	if base != 0 {
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
	m.CILow, m.CIHigh, m.P = r2p(lo), r2p(hi), roundp(p, 4)
	m.Significant = p < 1-c.o.Confidence && math.Abs(d) > m.MinEffect
	if m.Significant {
		if (d > 0) == higherBetter {
			m.Verdict = Better
		} else {
			m.Verdict = Worse
		}
	}
}

// overall: worse when any metric is worse, better when any is better and none worse.
func overall(ms []Metric) Verdict {
	v := Unchanged
	for _, m := range ms {
		switch m.Verdict {
		case Worse:
			return Worse
		case Better:
			v = Better
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
				d.sl = append(d.sl, r.Windows[w.Name])
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
		w.Metrics = c.scope("window:"+n, b, nn)
		if w.Present == PresentBoth {
			w.Verdict = overall(w.Metrics)
		}
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

func warnings(res *Result, base, new []*Run) []string {
	w := []string{}
	b, n := res.Base, res.New
	if b.Source != n.Source {
		w = append(w, fmt.Sprintf("the sides were measured with different sources (%s and %s)", b.Source, n.Source))
	}
	if b.RefreshHz != nil && n.RefreshHz != nil && *b.RefreshHz != *n.RefreshHz {
		w = append(w, fmt.Sprintf("the sides ran at different refresh rates (%g and %g Hz): fps and frame times differ for that reason alone", *b.RefreshHz, *n.RefreshHz))
	}
	if b.Package != nil && n.Package != nil && *b.Package != *n.Package {
		w = append(w, fmt.Sprintf("the sides measured different apps (%s and %s)", *b.Package, *n.Package))
	}
	if len(base) >= 2 && len(new) < 2 || len(new) >= 2 && len(base) < 2 {
		w = append(w, "one side has a single recording: the tests resample one-second secs of the pooled recordings; run fpstop test with --iterations on both sides for tests across runs")
	}
	return w
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
