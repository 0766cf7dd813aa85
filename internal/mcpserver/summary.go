package mcpserver

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/report"
)

// RunSummary is one report as an agent reads it: a paragraph, the key figures with their units
// in their names, the worst frames with what ran in them, and the full report (the JSON of
// `fpstop report --format json`, docs/report.md) for anything else, new keys included.
type RunSummary struct {
	Summary          string             `json:"summary" jsonschema:"one paragraph in plain language: refresh rate, fps, jank and what ran in the worst frames"`
	Source           string             `json:"source" jsonschema:"where the frames came from: gfxinfo, logcat, gfxinfo+logcat, surfaceflinger, sim"`
	Package          string             `json:"package" jsonschema:"the app measured (empty when unknown)"`
	Device           string             `json:"device" jsonschema:"model (serial), Android version; empty for files without a device"`
	RefreshHz        *float64           `json:"refresh_hz" jsonschema:"display refresh rate in Hz"`
	DurationS        float64            `json:"duration_s" jsonschema:"measured span in seconds"`
	Frames           int64              `json:"frames" jsonschema:"frames drawn"`
	JankyFrames      int64              `json:"janky_frames" jsonschema:"frames that missed their deadline"`
	JankPct          *float64           `json:"jank_pct" jsonschema:"janky frames in percent of frames"`
	FPS              *float64           `json:"fps" jsonschema:"frames per second while the app was drawing"`
	FPSWall          *float64           `json:"fps_wall" jsonschema:"frames per second over the whole run, idle time included"`
	FPSLow1Pct       *float64           `json:"fps_low_1pct" jsonschema:"1 % low: fps of the slowest 1 % of frames"`
	ActivePct        *float64           `json:"active_pct" jsonschema:"share of the run the app was drawing, percent"`
	FramesLost       *int64             `json:"frames_lost" jsonschema:"vsyncs lost to late frames (null when the source cannot tell)"`
	DropLevelsFrames metrics.DropLevels `json:"drop_levels_frames" jsonschema:"frames per drop level (Matrix levels: best, normal, middle, high, frozen)"`
	FrameTimeMs      *Percentiles       `json:"frame_time_ms" jsonschema:"frame-time percentiles in ms"`
	WorstFrames      []WorstFrame       `json:"worst_frames" jsonschema:"the costliest frames, worst first, with the main-thread messages that ran in them"`
	SlowMessages     []SlowMessage      `json:"slow_messages" jsonschema:"main-thread messages that ran at least one frame interval, slowest first"`
	BlameFrames      *BlameFrames       `json:"blame_frames" jsonschema:"janky frames by who FrameTimeline says missed (Perfetto traces; null for other sources)"`
	SlowSections     []SlowSection      `json:"slow_sections" jsonschema:"atrace sections grouped by name, slowest first (Perfetto traces)"`
	Warnings         []string           `json:"warnings" jsonschema:"what the report could not be sure of"`
	Report           map[string]any     `json:"report" jsonschema:"the full report, as fpstop report --format json prints it (docs/report.md)"`
}

// Percentiles are frame-time percentiles in ms.
type Percentiles struct {
	P50Ms float64 `json:"p50_ms"`
	P90Ms float64 `json:"p90_ms"`
	P95Ms float64 `json:"p95_ms"`
	P99Ms float64 `json:"p99_ms"`
}

// WorstFrame is one costly frame.
type WorstFrame struct {
	Window        string       `json:"window"`
	StartMs       float64      `json:"start_ms" jsonschema:"when it started, ms since the run began"`
	CostMs        float64      `json:"cost_ms" jsonschema:"how long it took, ms"`
	DroppedFrames int64        `json:"dropped_frames" jsonschema:"vsyncs it missed"`
	Messages      []RanMessage `json:"messages" jsonschema:"main-thread messages that overlapped it, longest first (empty when the source does not see messages)"`
	Sections      []RanSection `json:"sections" jsonschema:"the slowest atrace sections that ran in it (Perfetto traces)"`
	Blame         []string     `json:"blame" jsonschema:"who FrameTimeline says missed: app, surfaceflinger, display… (Perfetto traces)"`
}

// RanSection is an atrace section that ran during a frame.
type RanSection struct {
	Name   string  `json:"name"`
	Thread string  `json:"thread"`
	Ms     float64 `json:"ms"`
}

// SlowSection is one atrace section name over the run.
type SlowSection struct {
	Name    string  `json:"name"`
	Thread  string  `json:"thread"`
	Count   int64   `json:"count"`
	MaxMs   float64 `json:"max_ms"`
	TotalMs float64 `json:"total_ms"`
}

// BlameFrames counts janky frames by FrameTimeline's verdict.
type BlameFrames struct {
	AppFrames            int64 `json:"app_frames"`
	SurfaceFlingerFrames int64 `json:"surfaceflinger_frames"`
	DisplayFrames        int64 `json:"display_frames"`
	PredictionFrames     int64 `json:"prediction_frames"`
	BufferStuffingFrames int64 `json:"buffer_stuffing_frames"`
	DroppedFrames        int64 `json:"dropped_frames"`
}

// RanMessage is a main-thread message that ran during a frame.
type RanMessage struct {
	Name string  `json:"name" jsonschema:"Handler: Callback #what, as Perfetto names it"`
	Ms   float64 `json:"ms" jsonschema:"how long it ran, ms"`
}

// SlowMessage is one slow main-thread message signature over the run.
type SlowMessage struct {
	Name    string  `json:"name"`
	Count   int64   `json:"count"`
	MaxMs   float64 `json:"max_ms"`
	P95Ms   float64 `json:"p95_ms"`
	TotalMs float64 `json:"total_ms"`
}

// maxListed bounds the worst frames and slow messages copied out of a report (the full report
// keeps them all).
const maxListed = 10

// summarise turns a report into a RunSummary.
func summarise(r *metrics.Report) (*RunSummary, error) {
	s := &RunSummary{Source: r.Source, DurationS: float64(r.DurationS), Frames: r.Frames, JankyFrames: r.JankyFrames,
		RefreshHz: f64(r.RefreshHz), JankPct: f64(r.JankPct), FPS: f64(r.FPS), FPSWall: f64(r.FPSWall),
		FPSLow1Pct: f64(r.FPSLow1Pct), ActivePct: f64(r.ActivePct), FramesLost: r.FramesLost,
		DropLevelsFrames: r.DropLevels, Warnings: r.Warnings, WorstFrames: []WorstFrame{}, SlowMessages: []SlowMessage{}}
	if s.Warnings == nil {
		s.Warnings = []string{}
	}
	if r.Package != nil {
		s.Package = *r.Package
	}
	if d := r.Device; d != nil && (d.Model != "" || d.Serial != "") {
		s.Device = strings.TrimSpace(d.Model)
		if d.Serial != "" {
			s.Device += " (" + d.Serial + ")"
		}
		if d.Android != "" {
			s.Device += ", Android " + d.Android
		}
		s.Device = strings.TrimSpace(s.Device)
	}
	if p := r.PercentilesMs; p != nil {
		s.FrameTimeMs = &Percentiles{P50Ms: float64(p.P50), P90Ms: float64(p.P90), P95Ms: float64(p.P95), P99Ms: float64(p.P99)}
	}
	for i, w := range r.WorstFrames {
		if i == maxListed {
			break
		}
		wf := WorstFrame{Window: w.Window, StartMs: float64(w.StartMs), CostMs: float64(w.CostMs), DroppedFrames: w.Dropped,
			Messages: []RanMessage{}, Sections: []RanSection{}, Blame: append([]string{}, w.Blame...)}
		for _, sec := range w.Sections {
			wf.Sections = append(wf.Sections, RanSection{Name: sec.Name, Thread: sec.Thread, Ms: float64(sec.Ms)})
		}
		for _, m := range w.Messages {
			wf.Messages = append(wf.Messages, RanMessage{Name: report.MessageName(m.Handler, m.Callback, m.What, m.WhatName), Ms: float64(m.Ms)})
		}
		s.WorstFrames = append(s.WorstFrames, wf)
	}
	for i, m := range r.SlowMessages {
		if i == maxListed {
			break
		}
		s.SlowMessages = append(s.SlowMessages, SlowMessage{Name: report.MessageName(m.Handler, m.Callback, m.What, m.WhatName),
			Count: m.Count, MaxMs: float64(m.MaxMs), P95Ms: float64(m.P95Ms), TotalMs: float64(m.TotalMs)})
	}
	s.SlowSections = []SlowSection{}
	for i, sec := range r.SlowSections {
		if i == maxListed {
			break
		}
		s.SlowSections = append(s.SlowSections, SlowSection{Name: sec.Name, Thread: sec.Thread, Count: sec.Count,
			MaxMs: float64(sec.MaxMs), TotalMs: float64(sec.TotalMs)})
	}
	if b := r.Blame; b != nil {
		s.BlameFrames = &BlameFrames{AppFrames: b.App, SurfaceFlingerFrames: b.SurfaceFlinger, DisplayFrames: b.Display,
			PredictionFrames: b.Prediction, BufferStuffingFrames: b.BufferStuffing, DroppedFrames: b.Dropped}
	}
	full, err := asMap(r)
	if err != nil {
		return nil, err
	}
	s.Report = full
	s.Summary = paragraph(s)
	return s, nil
}

// asMap is v's JSON as a generic object, so that fields added to the report or the comparison
// reach the client without this package knowing them.
func asMap(v any) (map[string]any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encoding: %w", err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("decoding: %w", err)
	}
	return m, nil
}

func f64(v *metrics.R2) *float64 {
	if v == nil {
		return nil
	}
	f := math.Round(float64(*v)*100) / 100
	return &f
}

// paragraph is the plain-language summary of a run.
func paragraph(s *RunSummary) string {
	var b strings.Builder
	what := s.Package
	if what == "" {
		what = "the app"
	}
	fmt.Fprintf(&b, "%s", what)
	if s.Device != "" {
		fmt.Fprintf(&b, " on %s", s.Device)
	}
	fmt.Fprintf(&b, " (source %s, %.1f s): ", s.Source, s.DurationS)
	if s.Frames == 0 {
		b.WriteString("no frames were measured — the app did not draw while measured (is it on screen, and is something scrolling or animating?).")
		return b.String() + warningsNote(s)
	}
	if s.RefreshHz != nil {
		fmt.Fprintf(&b, "%s Hz display, ", num(*s.RefreshHz))
	}
	if s.FPS != nil {
		fmt.Fprintf(&b, "%s fps while drawing", num(*s.FPS))
	} else {
		fmt.Fprintf(&b, "%d frames", s.Frames)
	}
	if s.JankPct != nil {
		fmt.Fprintf(&b, ", %s %% janky (%d of %d frames)", num(*s.JankPct), s.JankyFrames, s.Frames)
	}
	if d := s.DropLevelsFrames; d.High+d.Frozen > 0 {
		fmt.Fprintf(&b, ", %s dropped badly (%d high, %d frozen)", report.Plural(d.High+d.Frozen, "frame"), d.High, d.Frozen)
	}
	b.WriteString("; ")
	if d := s.DropLevelsFrames; s.JankyFrames == 0 && d.High+d.Frozen == 0 {
		b.WriteString("no frame missed its deadline")
		if len(s.WorstFrames) > 0 {
			fmt.Fprintf(&b, " (the slowest took %s ms)", num(s.WorstFrames[0].CostMs))
		}
		b.WriteString(".")
	} else {
		b.WriteString(worstSentence(s.WorstFrames))
	}
	if bl := s.BlameFrames; bl != nil && s.JankyFrames > 0 {
		b.WriteString(" FrameTimeline blames " + blameText(bl) + ".")
	}
	return b.String() + warningsNote(s)
}

// worstSentence says what the worst frames cost and which message ran in most of them.
func worstSentence(ws []WorstFrame) string {
	n := min(len(ws), 5)
	if n == 0 {
		return "no frame was costly enough to list."
	}
	lo, hi := ws[0].CostMs, ws[0].CostMs
	count := map[string]int{}
	for _, w := range ws[:n] {
		lo, hi = math.Min(lo, w.CostMs), math.Max(hi, w.CostMs)
		seen := map[string]bool{}
		for _, m := range w.Messages {
			if !seen[m.Name] {
				seen[m.Name] = true
				count[m.Name]++
			}
		}
		if len(w.Messages) == 0 { // a Perfetto trace: the sections that ran
			for _, sec := range w.Sections {
				if !seen[sec.Name] {
					seen[sec.Name] = true
					count[sec.Name]++
				}
			}
		}
	}
	span := fmt.Sprintf("%s–%s ms", num(lo), num(hi))
	if lo == hi {
		span = num(lo) + " ms"
	}
	names := make([]string, 0, len(count))
	for k := range count {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool {
		if count[names[i]] != count[names[j]] {
			return count[names[i]] > count[names[j]]
		}
		return names[i] < names[j]
	})
	frames := fmt.Sprintf("the %d worst frames (%s)", n, span)
	if n == 1 {
		frames = fmt.Sprintf("the worst frame (%s)", span)
	}
	if len(names) == 0 {
		return frames + " show no main-thread message: this source does not see them (measure with source gfxinfo+logcat on an app that logs Looper messages to see them, or report a Perfetto trace with atrace sections)."
	}
	s := frames + " " + ranText(names[0], count[names[0]], n, "")
	if isFrameMessage(names[0]) && len(names) > 1 {
		// doFrame is the frame's own work; what else ran in the same frames is the lead
		s += ", and " + ranText(names[1], count[names[1]], n, "also ")
	}
	return s + "."
}

// ranText says how many of the n frames ran the message name.
func ranText(name string, k, n int, also string) string {
	what := "ran `" + name + "`"
	if isFrameMessage(name) {
		what = "ran in Choreographer's doFrame (the frame's own input, layout and draw work)"
	}
	switch {
	case k == n && n > 1:
		return "all " + also + what
	case n == 1:
		return also + what
	}
	return fmt.Sprintf("%d of them %s%s", k, also, what)
}

// isFrameMessage says whether a message is Choreographer's frame callback, which runs in every
// frame: worth naming, but not the cause a developer looks for.
func isFrameMessage(name string) bool {
	return strings.Contains(name, "MSG_DO_FRAME") || strings.HasPrefix(name, "Choreographer$FrameHandler") ||
		strings.HasPrefix(name, "Choreographer#doFrame")
}

func warningsNote(s *RunSummary) string {
	switch len(s.Warnings) {
	case 0:
		return ""
	case 1:
		return " Warning: " + strings.TrimSuffix(s.Warnings[0], ".") + "."
	}
	return fmt.Sprintf(" %d warnings (see warnings).", len(s.Warnings))
}

// num prints a figure with at most one decimal.
func num(v float64) string {
	if v == math.Trunc(v) {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.1f", v)
}

// blameText lists who FrameTimeline says missed, most frames first ("the app for 2 janky
// frames, SurfaceFlinger for 1 janky frame").
func blameText(b *BlameFrames) string {
	parts := []struct {
		who string
		n   int64
	}{{"the app", b.AppFrames}, {"SurfaceFlinger", b.SurfaceFlingerFrames}, {"the display", b.DisplayFrames},
		{"a wrong vsync prediction", b.PredictionFrames}, {"buffer stuffing", b.BufferStuffingFrames}, {"SurfaceFlinger's drops", b.DroppedFrames}}
	sort.SliceStable(parts, func(i, j int) bool { return parts[i].n > parts[j].n })
	var out []string
	for _, p := range parts {
		if p.n > 0 {
			out = append(out, fmt.Sprintf("%s for %s", p.who, report.Plural(p.n, "janky frame")))
		}
	}
	if len(out) == 0 {
		return "no one"
	}
	return strings.Join(out, ", ")
}
