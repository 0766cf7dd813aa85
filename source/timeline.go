package source

// KindPerfetto names the Perfetto source: a trace file (--input) or, later, a live session.
// KindPerfettoLogcat is a live Perfetto session with the app's logcat beside it (an app that
// prints Looper lines): the frames and sections from the trace, the messages from logcat.
const (
	KindPerfetto       Kind = "perfetto"
	KindPerfettoLogcat Kind = "perfetto+logcat"
)

// Traced reports whether the session's frames come from a Perfetto trace (with or without
// logcat beside it): they carry FrameTimeline blame and sections.
func (k Kind) Traced() bool { return k == KindPerfetto || k == KindPerfettoLogcat }

// TwoClocks reports whether the session's frames and messages come from two sources with two
// clocks (gfxinfo or Perfetto, and logcat), which metrics aligns on the frames themselves.
func (k Kind) TwoClocks() bool { return k == KindGfxinfoLogcat || k == KindPerfettoLogcat }

// LineSection is the line type of a Section.
const LineSection = "section"

// FrameTimeline is what SurfaceFlinger's FrameTimeline (a Perfetto trace, Android 12+) said of
// a frame: its vsync token, the layer it was drawn on, how and whether it was presented, and
// the jank bits naming who missed (the trace proto's JankType enum, a bit set — not the
// platform's JankInfo.h bits). metrics turns the bits into blame.
type FrameTimeline struct {
	Token        int64  `json:"token"`
	DisplayToken int64  `json:"display_token,omitempty"`
	Layer        string `json:"layer,omitempty"`
	// PresentType: 1 on time, 2 late, 3 early, 4 dropped, 5 unknown (0 unspecified).
	PresentType int32 `json:"present_type,omitempty"`
	// JankType is the actual surface frame's jank bit set (0 unspecified, 1 none).
	JankType     int64 `json:"jank_type,omitempty"`
	OnTimeFinish bool  `json:"on_time_finish,omitempty"`
	// Prediction: 1 valid, 2 expired, 3 unknown (0 unspecified).
	Prediction int32 `json:"prediction,omitempty"`
	// NoExpected marks an actual frame SurfaceFlinger had no expected frame for (an expired
	// prediction): its deadline, hence its drops, are unknown; its blame still counts.
	NoExpected bool `json:"no_expected,omitempty"`
	// SameToken marks a second frame of one process with a token already seen on another of
	// its layers: run-wide blame counts one per (process, token).
	SameToken bool `json:"same_token,omitempty"`
}

// Jank bits of FrameTimeline.JankType (protos/perfetto/trace/android/frame_timeline_event.proto).
const (
	JankNone           int64 = 1
	JankSFScheduling   int64 = 2
	JankPrediction     int64 = 4
	JankDisplayHAL     int64 = 8
	JankSFCPU          int64 = 16
	JankSFGPU          int64 = 32
	JankAppDeadline    int64 = 64
	JankBufferStuffing int64 = 128
	JankUnknown        int64 = 256
	JankSFStuffing     int64 = 512
	JankDropped        int64 = 1024
	JankNonAnimating   int64 = 2048
	JankAppResynced    int64 = 4096
	JankDisplayNotOn   int64 = 8192
	JankModeChange     int64 = 16384
	JankPowerMode      int64 = 32768
	// JankUnseen is jank no user saw: nothing animated, the display was off or changing mode.
	JankUnseen = JankNonAnimating | JankDisplayNotOn | JankModeChange | JankPowerMode
)

// Unseen reports whether the frame's jank is of a kind no user saw ("Non-perceivable Jank").
func (t *FrameTimeline) Unseen() bool { return t != nil && t.JankType&JankUnseen != 0 }

// FrameSection is one atrace section that ran in a frame (a Perfetto trace): on the main
// thread or RenderThread under the frame's Choreographer#doFrame / DrawFrames, or on another
// of the app's threads while the frame was being made, clipped to the frame.
type FrameSection struct {
	Name   string `json:"name"`
	Thread string `json:"thread,omitempty"`
	Depth  int    `json:"depth"`
	// StartNs is the section's start (clipped to the frame), DurNs its length in the frame.
	StartNs int64 `json:"start_ns"`
	DurNs   int64 `json:"dur_ns"`
}

// FrameSections lists the sections that ran in a frame, slowest first.
type FrameSections []FrameSection

// Section is one closed atrace section of the app's threads (a Perfetto trace): what metrics
// groups by name into slow sections, as it groups Looper messages.
type Section struct {
	Pid    int    `json:"pid,omitempty"`
	Tid    int    `json:"tid,omitempty"`
	Thread string `json:"thread,omitempty"`
	Name   string `json:"name"`
	Depth  int    `json:"depth"`
	// StartNs and EndNs are CLOCK_MONOTONIC ns.
	StartNs int64 `json:"start_ns"`
	EndNs   int64 `json:"end_ns"`
}

// At implements Event.
func (s *Section) At() int64 { return s.StartNs }
