package metrics

import (
	"github.com/fpstop/fpstop/source"
)

// SlicePoint is one time slice (1 s by default) of the FPS series.
type SlicePoint struct {
	StartNs int64 // device time of the slice start
	Frames  int   // frames whose intended vsync falls in the slice
	Janky   int
	// FPS is frames / Σ(dropped+1)·T over the slice (Matrix's formula); NaN when Idle.
	FPS float64
	// Idle is true when the slice had no frames and nothing was overdue: shown as idle, never as
	// 0 or R fps.
	Idle bool
	// Frozen is true when the slice had no frame because the app was stuck: a late frame's span
	// covered it, or a main-thread dispatch was open through it. Never idle.
	Frozen bool
	// Gap is true for an idle slice that a gap covered (the device disconnected, the adb server
	// down): nothing was seen, which is not the app drawing nothing. Drawn as a gap, never as
	// idle; Idle stays true for the readers that only count seconds with frames.
	Gap bool
	// Partial is true for the slice still being filled.
	Partial bool
}

// FramePoint is one recent frame as the screen draws it.
type FramePoint struct {
	Window     string
	VsyncNs    int64
	CostMs     float64 // the frame's cost (DESIGN §4)
	IntervalMs float64 // the frame interval T that applied
	Dropped    int64
	Level      Level
	// Phases in ms (input, animation, measure/layout, draw, sync, GPU/swap), when known.
	Phases *PhaseMs
}

// PhaseMs splits a frame's time into Profile-HWUI-style stages, in ms.
type PhaseMs struct {
	Delay, Input, Animation, Layout, Draw, Sync, GPU float64
}

// Totals are aggregates over a set of frames (the run, or one window).
type Totals struct {
	Frames     int64
	Janky      int64
	FPS        float64 // NaN with no frames
	FPSWall    float64 // NaN with no frames
	JankPct    float64 // NaN with no frames
	DropLevels DropLevels
	// Dropped is Σ dropped vsyncs (refreshes the frames missed), for counters in exports.
	Dropped int64
	// HistSumNs is the sum of the frame times counted in the histogram (an export's _sum).
	HistSumNs   int64
	Percentiles *Percentiles // nil with no frames
	// MinFPS/AvgFPS/MaxFPS are over the non-idle complete slices in the series (NaN when none).
	MinFPS, AvgFPS, MaxFPS float64
	// HistoryFPS is the rendering rate (fps's formula) of the history frames: those drawn
	// before a live session started, from the first dump's backlog. The screen shows it at
	// once as `now N fps (history)` until a slice of the session's own frames is complete; it
	// never counts in FPS or FPSWall (NaN when there is none).
	HistoryFPS float64
}

// WindowSnapshot is one window's state.
type WindowSnapshot struct {
	Name    string
	Process string
	Visible bool
	Totals  Totals
	Series  []SlicePoint // oldest first, at most SeriesLen
	LastNs  int64        // vsync of its newest frame
	// Histogram is the window's own Android-bucket histogram (non-empty buckets).
	Histogram []HistogramBucket
	// Blame is FrameTimeline's verdict on the window's frames (nil without FrameTimeline).
	Blame *Blame
}

// MessageSnapshot is one slow message signature.
type MessageSnapshot struct {
	Handler, Callback string
	What              int
	WhatName          string
	Count             int64
	MaxMs, TotalMs    float64
	P95Ms             float64
	LastNs            int64
	Worst             []Occurrence
}

// Snapshot is an immutable copy of the pipeline state for the screen. The UI never mutates it.
type Snapshot struct {
	// Seq increases whenever data changed; the UI redraws charts only when it moved.
	Seq       uint64
	Session   source.Session
	State     source.State
	StateText string
	// StateForNs is how long a frozen / idle / no-frames state has lasted (device time); Busy
	// names the main-thread message a freeze is in ("FeedActivity$3"), when the source sees it.
	StateForNs int64
	Busy       string
	// OriginNs is the session origin (first event); NowNs the newest device time seen.
	OriginNs, NowNs int64
	RefreshHz       float64
	// Target FPS the current value is coloured against: Config.TargetFPS, else AutoTarget of
	// the refresh rate in use.
	TargetFPS float64
	SlowMs    float64
	// SliceNs is the length of one slice of the FPS series.
	SliceNs int64
	// DropThresholds are the NORMAL, MIDDLE, HIGH, FROZEN thresholds in dropped vsyncs at the
	// current refresh rate (Matrix's 60 Hz counts scaled, DESIGN §4).
	DropThresholds [4]int64
	// DropPaceFPS is the pace drops are counted at when a measured SurfaceFlinger layer has one
	// (a 60 fps game on a 120 Hz display: 60; DropThresholds are then at that pace); 0 when
	// they count the display's refreshes.
	DropPaceFPS float64

	Totals Totals
	Series []SlicePoint // whole-run FPS series, oldest first
	Recent []FramePoint // newest last, at most RecentLen
	// History is every frame of the run, oldest first, at most Config.HistoryLen (shared with
	// the pipeline, which never writes inside it: do not modify); HistoryDropped counts the
	// older frames let go to stay within that.
	History        []FrameMark
	HistoryDropped int64
	Histogram      []HistogramBucket
	Windows        []WindowSnapshot // by frames, descending
	// Layers are the SurfaceFlinger layers, the measured one (Session.Layer) first.
	Layers []LayerReport
	// LayerChoices are the app's SurfaceFlinger layers with live rates, for the layer picker.
	LayerChoices []LayerChoice
	Messages     []MessageSnapshot
	// Sections are the slowest atrace sections by name (Perfetto traces), as Messages are.
	Sections []SlowSectionReport
	// Blame is FrameTimeline's verdict on the run's frames (nil without FrameTimeline).
	Blame      *Blame
	Worst      []WorstFrame
	Paired     int64
	Unpaired   int64
	Skipped    SkippedReport
	SlowLooper []SlowLooperReport // newest last
	FramesLost int64
	LostKnown  bool
	Warnings   []string
	// LooperHint is set when no Looper printer lines arrived though the source reads logcat.
	LooperHint bool
}
