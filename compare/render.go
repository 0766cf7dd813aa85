package compare

import (
	"fmt"
	"io"
	"strings"
)

// methodNote explains a method in a sentence for the text and Markdown outputs.
var methodNote = map[string]string{
	MethodPermutation:         "exact permutation test of the difference of the per-recording means (every split of the recordings into two sides; p cannot go below p_min), Welch's t interval",
	MethodWelch:               "Welch's t test and interval on the per-recording values",
	MethodOccurrenceBootstrap: "message occurrences resampled with replacement (difference of the p95; the seed and resample count are in the JSON)",
}

func fv(p *float64) string {
	if p == nil {
		return "–"
	}
	return num(*p)
}

func signedv(p *float64) string {
	if p == nil {
		return "–"
	}
	return signed(*p)
}

func ci(m Metric) string {
	if m.CILow == nil {
		return "–"
	}
	return fmt.Sprintf("[%s, %s]", num(*m.CILow), num(*m.CIHigh))
}

func pv(m Metric) string {
	if m.P == nil {
		return "–"
	}
	s := pNum(*m.P)
	if m.PMin != nil && *m.P <= *m.PMin {
		s = "≤" + s
	}
	return s
}

// PValue prints a metric's p-value for a reader: never "0", "≤" when the test could go no
// lower, and a verdict metric's Holm-adjusted p beside it; "–" without a test.
func PValue(m Metric) string {
	s := pv(m)
	if h := holmv(m); h != "" {
		s += " (Holm " + h + ")"
	}
	return s
}

// holmv is a verdict metric's Holm-adjusted p ("" for the informational ones).
func holmv(m Metric) string {
	if m.PHolm == nil {
		return ""
	}
	return pNum(*m.PHolm)
}

// mark is a metric's verdict; informational metrics (not the verdict's) say so.
func mark(m Metric) string {
	v := string(m.Verdict)
	if m.Significant {
		v += " *"
	}
	if !m.Gated {
		v += " (info)"
	}
	return v
}

func sideLine(s Side) string {
	parts := []string{s.Source}
	if s.Package != nil {
		parts = append(parts, *s.Package)
	}
	if s.RefreshHz != nil {
		parts = append(parts, num(*s.RefreshHz)+" Hz")
	}
	if s.Scenario != "" {
		parts = append(parts, "scenario "+s.Scenario)
	}
	parts = append(parts, fmt.Sprintf("%d recording(s)", len(s.Recordings)), fmt.Sprintf("%d frames", s.Frames), num(s.DurationS)+" s")
	return fmt.Sprintf("%s (%s)", s.Label, strings.Join(parts, ", "))
}

// significanceNote says what "significant" means: the verdict metrics with Holm's correction,
// the others on their own.
func significanceNote(r *Result) string {
	return fmt.Sprintf("* significant: p < %s and |diff| above the minimum effect. The verdict and the gates rest on fps and jank_pct of the run and of each window both sides have, with Holm's correction across them (p_holm); the other metrics are informational (info), each on its own p.", num(1-r.Confidence))
}

func methods(r *Result) []string {
	seen := map[string]bool{}
	var out []string
	add := func(m string) {
		if n, ok := methodNote[m]; ok && !seen[m] {
			seen[m] = true
			out = append(out, fmt.Sprintf("%s: %s", m, n))
		}
	}
	for _, m := range r.Metrics {
		add(m.Method)
	}
	for _, w := range r.Windows {
		for _, m := range w.Metrics {
			add(m.Method)
		}
	}
	for _, m := range r.Messages {
		add(m.P95.Method)
	}
	for _, s := range r.Sections {
		add(s.P95.Method)
	}
	return out
}

// WriteText prints the comparison for a terminal.
func WriteText(w io.Writer, r *Result) error {
	ew := &errWriter{w: w}
	ew.printf("fpstop compare: NEW is %s (%s%% confidence; minimum effect %s fps, %s pp, %s ms)\n",
		strings.ToUpper(string(r.Verdict)), num(r.Confidence*100), num(r.MinEffect.FPS), num(r.MinEffect.Pct), num(r.MinEffect.Ms))
	for _, s := range r.Warnings {
		ew.printf("  warning: %s\n", s)
	}
	ew.printf("BASE %s\nNEW  %s\n\n", sideLine(r.Base), sideLine(r.New))
	wide := 16 // the blame metrics' names are longer
	for _, m := range r.Metrics {
		wide = max(wide, len(m.Name))
	}
	ew.printf("%-*s %9s %9s %9s %20s %9s %8s  %s\n", wide, "metric", "base", "new", "diff", fmt.Sprintf("%s%% CI", num(r.Confidence*100)), "p", "Holm p", "verdict")
	for _, m := range r.Metrics {
		ew.printf("%-*s %9s %9s %9s %20s %9s %8s  %s\n", wide, m.Name, fv(m.Base), fv(m.New), signedv(m.Diff), ci(m), pv(m), holmv(m), mark(m))
	}
	if len(r.Windows) > 0 {
		ew.printf("\nwindows:\n")
	}
	for _, win := range r.Windows {
		if win.Present != PresentBoth {
			continue
		}
		f, j := find(win.Metrics, "fps"), find(win.Metrics, "jank_pct")
		ew.printf("  %-9s %s: fps %s → %s (%s, p %s), jank %s → %s %% (%s pp, p %s)\n", win.Verdict, win.Name,
			fv(f.Base), fv(f.New), signedv(f.Diff), pv(f), fv(j.Base), fv(j.New), signedv(j.Diff), pv(j))
	}
	for _, p := range []struct{ present, side string }{{PresentGone, "BASE"}, {PresentNew, "NEW"}} {
		if names := onlyIn(r.Windows, p.present); len(names) > 0 {
			ew.printf("  only in %s: %s\n", p.side, names)
		}
	}
	if len(r.Messages) > 0 {
		ew.printf("\nslow messages (p95 ms):\n")
	}
	for _, m := range r.Messages {
		ew.printf("  %-9s %s: %s → %s ms (%s, p %s), ×%d → ×%d\n", m.Status, msgLabel(m), fv(m.P95.Base), fv(m.P95.New),
			signedv(m.P95.Diff), pv(m.P95), m.CountBase, m.CountNew)
	}
	if len(r.Sections) > 0 {
		ew.printf("\nslow sections (p95 ms):\n")
	}
	for _, s := range r.Sections {
		ew.printf("  %-9s %s: %s → %s ms (%s, p %s), ×%d → ×%d\n", s.Status, sectionLabel(s), fv(s.P95.Base), fv(s.P95.New),
			signedv(s.P95.Diff), pv(s.P95), s.CountBase, s.CountNew)
	}
	if len(r.Gates) > 0 {
		ew.printf("\ngates:\n")
	}
	for _, g := range r.Gates {
		st := "pass"
		if g.Failed {
			st = "FAIL"
		}
		ew.printf("  %s %s\n", st, g.Message)
	}
	ew.printf("\n%s\n", significanceNote(r))
	for _, m := range methods(r) {
		ew.printf("method %s\n", m)
	}
	return ew.err
}

// onlyIn lists the windows present on one side only (popups carry an identity hash in their
// name, so each run's popups are new names), at most five by name.
func onlyIn(ws []Window, present string) string {
	var names []string
	for _, w := range ws {
		if w.Present == present {
			names = append(names, w.Name)
		}
	}
	if len(names) > 5 {
		return fmt.Sprintf("%s and %d more", strings.Join(names[:5], ", "), len(names)-5)
	}
	return strings.Join(names, ", ")
}

func msgLabel(m Message) string {
	name := m.WhatName
	if name == "" {
		name = fmt.Sprint(m.What)
	}
	return fmt.Sprintf("%s %s #%s", m.Handler, m.Callback, name)
}

type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, args...)
	}
}
