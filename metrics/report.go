package metrics

import (
	"math"
	"strconv"
)

// R2 is a float reported with at most two decimals (times in ms, rates in fps, percentages).
type R2 float64

// MarshalJSON prints the value rounded to two decimals, in its shortest form.
func (v R2) MarshalJSON() ([]byte, error) {
	f := float64(v)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	if r := math.Round(f*100) / 100; !math.IsInf(r, 0) {
		f = r // (a huge value has no decimals to round, and ×100 would overflow)
	}
	return strconv.AppendFloat(nil, f, 'f', -1, 64), nil
}

// P2 returns a pointer to f as R2, or nil when f is NaN (a value with no meaning is null).
func P2(f float64) *R2 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil
	}
	v := R2(f)
	return &v
}

// DropLevels counts frames per drop level.
type DropLevels struct {
	Best   int64 `json:"best"`
	Normal int64 `json:"normal"`
	Middle int64 `json:"middle"`
	High   int64 `json:"high"`
	Frozen int64 `json:"frozen"`
}

// Get returns the count for a level.
func (d *DropLevels) Get(l Level) int64 {
	if l < LevelBest || l > LevelFrozen {
		return d.Best
	}
	return [...]int64{d.Best, d.Normal, d.Middle, d.High, d.Frozen}[l]
}

// Percentiles are Android-bucketed frame-time percentiles in ms.
type Percentiles struct {
	P50 R2 `json:"p50"`
	P90 R2 `json:"p90"`
	P95 R2 `json:"p95"`
	P99 R2 `json:"p99"`
}

// HistogramBucket is one Android gfxinfo bucket: frames whose time falls in the bucket labelled Ms.
type HistogramBucket struct {
	Ms    int   `json:"ms"`
	Count int64 `json:"count"`
}

// PerfDog holds PerfDog-style jank counts: a frame longer than twice the mean of the previous
// three and longer than two (Jank) or three (BigJank) film frames at 24 fps.
type PerfDog struct {
	Jank       int64 `json:"jank"`
	BigJank    int64 `json:"big_jank"`
	StutterPct *R2   `json:"stutter_pct"`
}

// DeviceReport is the device block of the report.
type DeviceReport struct {
	Serial  string `json:"serial"`
	Model   string `json:"model"`
	Android string `json:"android"`
}

// AndroidPrinted is what dumpsys gfxinfo printed for a window, as printed.
type AndroidPrinted struct {
	TotalFrames *int64 `json:"total_frames"`
	JankyFrames *int64 `json:"janky_frames"`
	JankyLegacy *int64 `json:"janky_legacy"`
	P50Ms       *R2    `json:"p50_ms"`
	P90Ms       *R2    `json:"p90_ms"`
	P95Ms       *R2    `json:"p95_ms"`
	P99Ms       *R2    `json:"p99_ms"`
}

// ProcessAndroid is what dumpsys gfxinfo printed for a whole process (all its windows, including
// windows already gone), as printed.
type ProcessAndroid struct {
	Process string `json:"process"`
	Pid     int    `json:"pid"`
	AndroidPrinted
}

// WindowReport is one Android window's numbers.
type WindowReport struct {
	Name          string            `json:"name"`
	Process       string            `json:"process"`
	Visible       bool              `json:"visible"`
	Frames        int64             `json:"frames"`
	JankyFrames   int64             `json:"janky_frames"`
	JankyDeadline *int64            `json:"janky_deadline"`
	JankyLegacy   *int64            `json:"janky_legacy"`
	FPS           *R2               `json:"fps"`
	FPSWall       *R2               `json:"fps_wall"`
	JankPct       *R2               `json:"jank_pct"`
	DropLevels    DropLevels        `json:"drop_levels"`
	PercentilesMs *Percentiles      `json:"percentiles_ms"`
	HistogramMs   []HistogramBucket `json:"histogram_ms"`
	Android       *AndroidPrinted   `json:"android,omitempty"`
	// Blame and PresentTypes: the window's frames by FrameTimeline's verdict (Perfetto traces;
	// omitted for other sources).
	Blame        *Blame        `json:"blame,omitempty"`
	PresentTypes *PresentTypes `json:"present_types,omitempty"`
}

// Occurrence is one occurrence of a slow message: when it started (ms since the session origin)
// and how long it ran.
type Occurrence struct {
	StartMs R2 `json:"start_ms"`
	Ms      R2 `json:"ms"`
}

// SlowMessageReport is one message signature.
type SlowMessageReport struct {
	Handler  string       `json:"handler"`
	Callback string       `json:"callback"`
	What     int          `json:"what"`
	WhatName string       `json:"what_name"`
	Count    int64        `json:"count"`
	MaxMs    R2           `json:"max_ms"`
	TotalMs  R2           `json:"total_ms"`
	P95Ms    R2           `json:"p95_ms"`
	Worst    []Occurrence `json:"worst"`
}

// MessagesReport counts Looper printer lines.
type MessagesReport struct {
	Paired         int64 `json:"paired"`
	Unpaired       int64 `json:"unpaired"`
	DurationsKnown bool  `json:"durations_known"`
}

// SkippedReport counts Choreographer "Skipped N frames!" lines.
type SkippedReport struct {
	Events int64 `json:"events"`
	Frames int64 `json:"frames"`
}

// SlowLooperReport is one Slow dispatch/delivery or vendor Slow Looper line.
type SlowLooperReport struct {
	Kind     string `json:"kind"`
	Ms       int64  `json:"ms"`
	Thread   string `json:"thread"`
	Handler  string `json:"handler"`
	Callback string `json:"callback"`
	What     *int   `json:"what"`
	// Truncated: the line was cut off before its duration (ms 0 means unknown) or inside its
	// details.
	Truncated bool `json:"truncated,omitempty"`
}

// FrameMessage is a main-thread message overlapping a frame's main-thread part.
type FrameMessage struct {
	Handler  string `json:"handler"`
	Callback string `json:"callback"`
	What     int    `json:"what"`
	WhatName string `json:"what_name,omitempty"`
	Ms       R2     `json:"ms"`
}

// WorstFrame is one of the costliest frames with the messages behind it.
type WorstFrame struct {
	Window   string         `json:"window"`
	StartMs  R2             `json:"start_ms"`
	CostMs   R2             `json:"cost_ms"`
	Dropped  int64          `json:"dropped"`
	Messages []FrameMessage `json:"messages"`
	// Sections are the slowest atrace sections that ran in the frame, Blame who
	// FrameTimeline says missed (Perfetto traces only).
	Sections []FrameSectionReport `json:"sections,omitempty"`
	Blame    []string             `json:"blame,omitempty"`
}

// Report is the headless JSON report (DESIGN §7). Keys a source cannot fill are null, never
// missing. Times are ms unless a key says otherwise; rates are fps.
type Report struct {
	FpstopVersion string            `json:"fpstop_version"`
	Source        string            `json:"source"`
	CostBasis     string            `json:"cost_basis"`
	Device        *DeviceReport     `json:"device"`
	Package       *string           `json:"package"`
	RefreshHz     *R2               `json:"refresh_hz"`
	DurationS     R2                `json:"duration_s"`
	Frames        int64             `json:"frames"`
	JankyFrames   int64             `json:"janky_frames"`
	JankyDeadline *int64            `json:"janky_deadline"`
	JankyLegacy   *int64            `json:"janky_legacy"`
	JankPct       *R2               `json:"jank_pct"`
	FPS           *R2               `json:"fps"`
	FPSWall       *R2               `json:"fps_wall"`
	FPSLow1Pct    *R2               `json:"fps_low_1pct"`
	IdleS         R2                `json:"idle_s"`
	ActivePct     *R2               `json:"active_pct"`
	DropLevels    DropLevels        `json:"drop_levels"`
	PercentilesMs *Percentiles      `json:"percentiles_ms"`
	HistogramMs   []HistogramBucket `json:"histogram_ms"`
	PerfDog       PerfDog           `json:"perfdog"`
	FlaggedFrames int64             `json:"flagged_frames"`
	FramesLost    *int64            `json:"frames_lost"`
	Windows       []WindowReport    `json:"windows"`
	// Layers are the SurfaceFlinger layers measured (source surfaceflinger, the simulator's
	// game scenarios), the measured one first; empty for other sources.
	Layers []LayerReport `json:"layers"`
	// Measured lists what the run measured and from when, when that changed during the run
	// (auto: the app's windows, its SurfaceView layer while that is what draws, and back).
	Measured []MeasuredChange `json:"measured,omitempty"`
	// AndroidProcesses is dumpsys gfxinfo's process-wide summary per process, as printed (an
	// extension of DESIGN §7's keys: plain dumps without framestats carry only these).
	AndroidProcesses []ProcessAndroid    `json:"android_processes"`
	SlowMessages     []SlowMessageReport `json:"slow_messages"`
	Messages         MessagesReport      `json:"messages"`
	SkippedFrames    SkippedReport       `json:"skipped_frames"`
	SlowLooper       []SlowLooperReport  `json:"slow_looper"`
	SlowLooperTotal  int64               `json:"slow_looper_total"`
	WorstFrames      []WorstFrame        `json:"worst_frames"`
	// Blame and PresentTypes: FrameTimeline's verdict on the run's frames (DESIGN §4b), null
	// when the source has no FrameTimeline; SlowSections: atrace sections grouped by name
	// (Perfetto traces), as slow_messages groups Looper messages.
	Blame        *Blame              `json:"blame"`
	PresentTypes *PresentTypes       `json:"present_types"`
	SlowSections []SlowSectionReport `json:"slow_sections"`
	Warnings     []string            `json:"warnings"`
}

// ReportMeta is what the caller knows that the events do not: the version, and the wall-clock
// duration of a live run (0 = use the span of the events, as for an input file).
type ReportMeta struct {
	Version   string
	WallNs    int64
	SourceArg string // overrides the session's source kind when set (e.g. "gfxinfo+logcat")
}
