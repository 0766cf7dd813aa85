package compare

import (
	"fmt"
	"math"
	"strconv"
)

// Gate names (the flags).
const (
	GateMaxFPSDrop      = "max-fps-drop"
	GateMaxJankIncrease = "max-jank-increase"
)

// gates checks the CI gates on the run and on every window both sides have. A gate fails only
// on a regression beyond its threshold that is significant after Holm's correction across the
// verdict metrics, so noise fails a build in at most 1 − confidence of same-build comparisons
// (measured: docs/compare.md).
func (c *comparer) gates(res *Result) []Gate {
	out := []Gate{}
	type scope struct {
		kind, window string
		ms           []Metric
	}
	scopes := []scope{{kind: "run", ms: res.Metrics}}
	for _, w := range res.Windows {
		if w.Present == PresentBoth {
			scopes = append(scopes, scope{kind: "window", window: w.Name, ms: w.Metrics})
		}
	}
	for _, sc := range scopes {
		if on(c.o.MaxFPSDrop) {
			out = append(out, gate(GateMaxFPSDrop, sc.kind, sc.window, c.o.MaxFPSDrop, find(sc.ms, "fps"), -1, c.o.Confidence))
		}
		if on(c.o.MaxJankIncrease) {
			out = append(out, gate(GateMaxJankIncrease, sc.kind, sc.window, c.o.MaxJankIncrease, find(sc.ms, "jank_pct"), 1, c.o.Confidence))
		}
	}
	return out
}

func on(threshold float64) bool { return threshold >= 0 && !math.IsNaN(threshold) }

func find(ms []Metric, name string) Metric {
	for _, m := range ms {
		if m.Name == name {
			return m
		}
	}
	return Metric{Name: name}
}

// gate checks one metric: sign −1 measures a drop (BASE − NEW), +1 an increase (NEW − BASE).
func gate(name, kind, window string, threshold float64, m Metric, sign, confidence float64) Gate {
	g := Gate{Name: name, Scope: kind, Window: window, Threshold: threshold, Significant: m.Significant}
	where := "the run"
	if kind == "window" {
		where = "window " + window
	}
	unit := " fps"
	what, verb := "fps", "dropped"
	if m.Unit == UnitPct || name == GateMaxJankIncrease {
		unit, what, verb = " pp", "jank", "rose"
	}
	if m.Verdict == Inconclusive {
		g.Message = fmt.Sprintf("%s: %s not checked against --%s %s: one recording on a side cannot tell a change from noise (run fpstop test --iterations 5 or more for each build)", where, what, name, num(threshold))
		return g
	}
	if m.Diff == nil {
		g.Failed = true
		g.Message = fmt.Sprintf("%s: %s is unknown on one side, so it cannot be checked against --%s %s", where, what, name, num(threshold))
		return g
	}
	v := sign * *m.Diff
	g.Measured = r2p(v)
	detail := fmt.Sprintf("%s %s → %s", what, fmtPtr(m.Base), fmtPtr(m.New))
	if m.CILow != nil && m.P != nil {
		detail += fmt.Sprintf(", difference %s%s (%s%% CI %s to %s, %s)", signed(*m.Diff), unit, num(confidence*100), num(*m.CILow), num(*m.CIHigh), pText(m))
	}
	switch {
	case m.Significant && m.Verdict == Worse && v > threshold:
		g.Failed = true
		g.Message = fmt.Sprintf("%s: %s %s%s, a significant regression beyond --%s %s (%s)", where, what, verb, " "+num(v)+unit, name, num(threshold), detail)
	case m.Significant && m.Verdict == Worse:
		g.Message = fmt.Sprintf("%s: %s %s%s, significant but within --%s %s (%s)", where, what, verb, " "+num(v)+unit, name, num(threshold), detail)
	default:
		g.Message = fmt.Sprintf("%s: no significant regression of %s (--%s %s; %s)", where, what, name, num(threshold), detail)
	}
	return g
}

func fmtPtr(p *float64) string {
	if p == nil {
		return "–"
	}
	return num(*p)
}

func signed(f float64) string {
	if f > 0 {
		return "+" + num(f)
	}
	return num(f)
}

// num prints at most two decimals, without trailing zeros.
func num(f float64) string { return strconv.FormatFloat(math.Round(f*100)/100, 'f', -1, 64) }

// pText prints a metric's p-value as the test gives it: never "0", "p ≤ p_min" when the test
// could go no lower, and the Holm-adjusted p of a verdict metric.
func pText(m Metric) string {
	if m.P == nil {
		return "p –"
	}
	s := "p " + pNum(*m.P)
	if m.PMin != nil && *m.P <= *m.PMin {
		s = "p " + pNum(*m.P) + " (the smallest this many recordings can give)"
	}
	if m.PHolm != nil && *m.PHolm != *m.P {
		s += ", Holm " + pNum(*m.PHolm)
	}
	return s
}

// pNum prints a p-value with three significant digits, and p below 0.0001 as "<0.0001".
func pNum(p float64) string {
	if p < 1e-4 {
		return "<0.0001"
	}
	return strconv.FormatFloat(p, 'g', 3, 64)
}
