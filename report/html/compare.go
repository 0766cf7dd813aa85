package html

import (
	"fmt"
	"html/template"
	"io"
	"math"
	"strings"

	"github.com/fpstop/fpstop/compare"
	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/report"
)

// Comparison is a compare.Result with the recordings of its two sides read for drawing (the
// result carries numbers and verdicts, not the per-slice series and histograms the charts need).
type Comparison struct {
	Result    *compare.Result
	Base, New []*Session
}

// LoadComparison reads every recording the result names (Side.Recordings), with the metrics
// configuration the comparison used, so the charts show the same frames the tests resampled.
func LoadComparison(res *compare.Result, cfg metrics.Config, meta metrics.ReportMeta) (*Comparison, error) {
	c := &Comparison{Result: res}
	for _, side := range []struct {
		paths []string
		dst   *[]*Session
	}{{res.Base.Recordings, &c.Base}, {res.New.Recordings, &c.New}} {
		for _, p := range side.paths {
			s, err := Load(p, cfg, meta)
			if err != nil {
				return nil, err
			}
			*side.dst = append(*side.dst, s)
		}
	}
	return c, nil
}

// compareView is the comparison page.
type compareView struct {
	Title    string
	Verdict  string
	VerdCls  string
	Sides    []sideView
	Metrics  []metricRow
	Conf     string
	Charts   []chart
	Messages []msgChangeRow
	Sections []msgChangeRow
	Windows  []windowRow
	Gates    []compare.Gate
	Warnings []string
	Method   string
}

type sideView struct {
	Name, Cls string
	Facts     []fact
}

// metricRow is one line of the verdict table.
type metricRow struct {
	Name, Base, New, Diff, CI, P, Verdict, VerdCls string
	Interval                                       template.HTML
}

type msgChangeRow struct {
	Name, Full, Status, StatusCls string
	CountBase, CountNew           int64
	Base, New, Diff, CI           string
}

type windowRow struct {
	Name, Present, Verdict, VerdCls, FPS, Jank string
}

// WriteCompare writes the comparison page: both sides' facts, the verdict table with its
// intervals, FPS over time and the histograms of both sides overlaid, drop levels side by
// side, and what changed in the slow messages.
func WriteCompare(w io.Writer, c *Comparison, opt Options) error {
	v := buildCompare(c)
	p, err := newPage(opt, "fpstop compare · "+v.Title)
	if err != nil {
		return err
	}
	p.Compare = v
	return render(w, p)
}

func buildCompare(c *Comparison) *compareView {
	res := c.Result
	v := &compareView{Title: res.Base.Label + " → " + res.New.Label, Verdict: string(res.Verdict),
		VerdCls: verdictClass(res.Verdict), Gates: res.Gates, Warnings: res.Warnings,
		Conf: ms2(res.Confidence*100) + " %"}
	v.Method = fmt.Sprintf("Differences are NEW − BASE; intervals at %s confidence: Welch's t interval over the recordings; p from an exact permutation test of the recordings (or Welch's t test when there are too few or too many to enumerate). fps and jank_pct decide the verdict with Holm's correction across the run and its windows (Holm p); the other rows are informational. A difference is significant when p < %s and it exceeds the minimum effect (%s fps, %s percentage points, %s ms); slow messages use a bootstrap of their occurrences (%d resamples, seed %d).",
		v.Conf, ms2(1-res.Confidence), ms2(res.MinEffect.FPS), ms2(res.MinEffect.Pct), ms2(res.MinEffect.Ms), res.Bootstrap.Resamples, res.Bootstrap.Seed)
	v.Sides = []sideView{sideFacts("BASE", "side0", &res.Base), sideFacts("NEW", "side1", &res.New)}
	for i := range res.Metrics {
		v.Metrics = append(v.Metrics, metricLine(&res.Metrics[i]))
	}
	v.Charts = compareCharts(c)
	for _, m := range res.Messages {
		v.Messages = append(v.Messages, msgChange(m))
	}
	for _, sec := range res.Sections {
		v.Sections = append(v.Sections, sectionChange(sec))
	}
	for _, win := range res.Windows {
		v.Windows = append(v.Windows, windowLine(win))
	}
	return v
}

func verdictClass(v compare.Verdict) string {
	switch v {
	case compare.Better:
		return "good"
	case compare.Worse:
		return "bad"
	case compare.Inconclusive:
		return "unsure"
	}
	return "same"
}

func sideFacts(name, cls string, s *compare.Side) sideView {
	f := []fact{{K: "recordings", V: fmt.Sprint(len(s.Recordings)), Note: strings.Join(s.Recordings, ", ")}}
	if s.Package != nil {
		f = append(f, fact{K: "app", V: *s.Package})
	}
	if d := strings.TrimSuffix(s.Device, " ()"); d != "" {
		f = append(f, fact{K: "device", V: d})
	}
	src := s.Source
	if s.Scenario != "" {
		src += fmt.Sprintf(" (scenario %s, seeds %v)", s.Scenario, s.Seeds)
	}
	f = append(f, fact{K: "source", V: src})
	if s.RefreshHz != nil {
		f = append(f, fact{K: "refresh rate", V: ms2(*s.RefreshHz) + " Hz"})
	}
	f = append(f, fact{K: "frames", V: fmt.Sprint(s.Frames)}, fact{K: "duration", V: duration(s.DurationS)})
	return sideView{Name: name + " · " + s.Label, Cls: cls, Facts: f}
}

func fp(p *float64) string {
	if p == nil {
		return "—"
	}
	return ms2(*p)
}

func signedp(p *float64) string {
	if p == nil {
		return "—"
	}
	if *p > 0 {
		return "+" + ms2(*p)
	}
	return strings.Replace(ms2(*p), "-", "−", 1)
}

func metricLine(m *compare.Metric) metricRow {
	unit := m.Unit
	if unit == compare.UnitPct {
		unit = "%"
	}
	r := metricRow{Name: m.Name, Base: fp(m.Base) + " " + unit, New: fp(m.New) + " " + unit, P: compare.PValue(*m),
		Verdict: string(m.Verdict), VerdCls: verdictClass(m.Verdict)}
	r.Diff = signedp(m.Diff)
	if m.DiffPct != nil {
		r.Diff += " (" + signedp(m.DiffPct) + " %)"
	}
	r.CI = "—"
	if m.CILow != nil && m.CIHigh != nil {
		r.CI = "[" + signedp(m.CILow) + ", " + signedp(m.CIHigh) + "]"
	}
	r.Interval = intervalSVG(m)
	return r
}

// intervalSVG draws one metric's difference and its interval on a scale centred on zero, with
// the minimum-effect band: an interval clear of the band is a change that counts.
func intervalSVG(m *compare.Metric) template.HTML {
	if m.Diff == nil || m.CILow == nil || m.CIHigh == nil {
		return ""
	}
	lo, hi, d := *m.CILow, *m.CIHigh, *m.Diff
	span := math.Max(math.Max(math.Abs(lo), math.Abs(hi)), math.Max(m.MinEffect, 1e-9)) * 1.15
	const w, h = 180.0, 18.0
	xs := linScale{lo: -span, hi: span, a: 4, b: w - 4}
	var s svg
	s.start(w, h, "ci", "difference and confidence interval of "+m.Name)
	if m.MinEffect > 0 {
		a := xs.at(-m.MinEffect)
		s.rect(a, 2, xs.at(m.MinEffect)-a, h-4, "effect", fmt.Sprintf("minimum effect ±%s", ms2(m.MinEffect)))
	}
	s.line(xs.at(0), 1, xs.at(0), h-1, "zero", "")
	cls := "civ " + verdictClass(m.Verdict)
	s.rect(xs.at(lo), h/2-2, xs.at(hi)-xs.at(lo), 4, cls, fmt.Sprintf("%s: %s, interval [%s, %s]", m.Name, signedp(m.Diff), signedp(m.CILow), signedp(m.CIHigh)))
	s.circle(xs.at(d), h/2, 3.5, cls, "")
	return s.end()
}

func msgChange(m compare.Message) msgChangeRow {
	return changeRow(report.MessageName(m.Handler, m.Callback, m.What, m.WhatName), fmt.Sprintf("%s %s #%d", m.Handler, m.Callback, m.What),
		m.Status, m.CountBase, m.CountNew, m.P95)
}

func sectionChange(s compare.Section) msgChangeRow {
	return changeRow(s.Name, s.Name+" on "+s.Thread, s.Status, s.CountBase, s.CountNew, s.P95)
}

// changeRow is one slow message's or section's row: its p95 on each side and the status.
func changeRow(name, full, status string, countBase, countNew int64, p compare.Metric) msgChangeRow {
	r := msgChangeRow{Name: name, Full: full, Status: status, CountBase: countBase, CountNew: countNew,
		Base: fp(p.Base), New: fp(p.New), Diff: signedp(p.Diff), CI: "—"}
	switch status {
	case compare.MsgNew, compare.MsgSlower:
		r.StatusCls = "bad"
	case compare.MsgGone, compare.MsgFaster:
		r.StatusCls = "good"
	default:
		r.StatusCls = "same"
	}
	if p.CILow != nil && p.CIHigh != nil {
		r.CI = "[" + signedp(p.CILow) + ", " + signedp(p.CIHigh) + "]"
	}
	return r
}

func windowLine(w compare.Window) windowRow {
	r := windowRow{Name: w.Name, Present: w.Present, Verdict: string(w.Verdict), VerdCls: verdictClass(w.Verdict), FPS: "—", Jank: "—"}
	for _, m := range w.Metrics {
		txt := fmt.Sprintf("%s → %s (%s)", fp(m.Base), fp(m.New), signedp(m.Diff))
		switch m.Name {
		case "fps":
			r.FPS = txt
		case "jank_pct":
			r.Jank = txt
		}
	}
	return r
}
