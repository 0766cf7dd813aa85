// Package source defines what every fpstop source emits: frames, main-thread Looper messages,
// Choreographer and Looper warnings, Android's own printed summaries, poll counters and notices.
//
// A source turns outside text (dumpsys output, logcat lines, a recording, the simulator's model)
// into these events and nothing else: it never computes FPS, drops or percentiles — that is the
// job of package metrics. Sources never import metrics, ui or record.
//
// All timestamps are device CLOCK_MONOTONIC nanoseconds (or the simulator's virtual clock, which
// starts at an arbitrary positive value). Zero means "unknown" for every optional timestamp.
package source

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// Event is one thing a source saw. The concrete types are the structs in this file; metrics,
// record and ui switch on them.
type Event interface {
	// At is the device time the event refers to, in ns (0 when it has none, e.g. Session).
	At() int64
}

// Kind names a source in reports and recordings ("sim", "gfxinfo", "logcat", "gfxinfo+logcat",
// "replay").
type Kind string

// Source kinds.
const (
	KindSim           Kind = "sim"
	KindGfxinfo       Kind = "gfxinfo"
	KindLogcat        Kind = "logcat"
	KindGfxinfoLogcat Kind = "gfxinfo+logcat"
	KindReplay        Kind = "replay"
)

// Source produces events until ctx is cancelled or its input ends. Run sends batches of events on
// out (a batch keeps channel traffic low at 120 Hz and in virtual time) and returns nil at the
// natural end of its input, ctx.Err() when cancelled, or an error it could not recover from. Run
// never closes out; the caller does after Run returns.
type Source interface {
	Run(ctx context.Context, out chan<- []Event) error
}

// Send hands batch b on to out, unless b is empty; it returns ctx's error if ctx ends first.
func Send(ctx context.Context, out chan<- []Event, b []Event) error {
	if len(b) == 0 {
		return nil
	}
	select {
	case out <- b:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Clock is how a source paces itself: Speed 1 is real time, 2 twice as fast, 0 as fast as
// possible (virtual time: tests and benchmarks never sleep).
type Clock struct {
	Speed float64
}

// Phases are the per-frame timestamps of hwui's FrameInfo (dumpsys gfxinfo framestats), all
// CLOCK_MONOTONIC ns, 0 when the source does not have them. Durations Android prints as
// durations (DequeueBufferDuration, QueueBufferDuration) are in ns too.
type Phases struct {
	Vsync                      int64 `json:"vsync_actual_ns,omitempty"`
	HandleInputStart           int64 `json:"handle_input_start_ns,omitempty"`
	AnimationStart             int64 `json:"animation_start_ns,omitempty"`
	PerformTraversalsStart     int64 `json:"perform_traversals_start_ns,omitempty"`
	DrawStart                  int64 `json:"draw_start_ns,omitempty"`
	SyncQueued                 int64 `json:"sync_queued_ns,omitempty"`
	SyncStart                  int64 `json:"sync_start_ns,omitempty"`
	IssueDrawCommandsStart     int64 `json:"issue_draw_commands_start_ns,omitempty"`
	SwapBuffers                int64 `json:"swap_buffers_ns,omitempty"`
	FrameCompleted             int64 `json:"frame_completed_ns,omitempty"`
	DequeueBufferDuration      int64 `json:"dequeue_buffer_duration_ns,omitempty"`
	QueueBufferDuration        int64 `json:"queue_buffer_duration_ns,omitempty"`
	GpuCompleted               int64 `json:"gpu_completed_ns,omitempty"`
	SwapBuffersCompleted       int64 `json:"swap_buffers_completed_ns,omitempty"`
	DisplayPresentTime         int64 `json:"display_present_ns,omitempty"`
	CommandSubmissionCompleted int64 `json:"command_submission_completed_ns,omitempty"`
	FrameStartTime             int64 `json:"frame_start_ns,omitempty"`
	WorkloadTarget             int64 `json:"workload_target_ns,omitempty"`
}

// Frame flags, as hwui's FrameInfoFlags.
const (
	FlagWindowLayoutChanged int64 = 1 // first frame after a layout/visibility change
	FlagRTAnimation         int64 = 2 // RenderThread animation
	FlagSurfaceCanvas       int64 = 4 // lockHardwareCanvas: JankTracker does not count it
	FlagSkippedFrame        int64 = 8 // skipped: timestamps are garbage, not a frame
)

// Frame is one rendered frame of one window.
type Frame struct {
	Window  string `json:"window"`
	Process string `json:"process,omitempty"`
	// VsyncNs is the frame's intended vsync (gfxinfo IntendedVsync; for Looper-derived frames the
	// vsync tick Choreographer ran the frame on — the log has no other).
	VsyncNs int64 `json:"vsync_ns"`
	// DoneNs is when the frame was complete (gfxinfo FrameCompleted). 0 when only the main-thread
	// part is known (Looper-derived frames).
	DoneNs int64 `json:"done_ns,omitempty"`
	// UIDoneNs is the end of the frame's main-thread part (the vsync message's Finished; gfxinfo
	// SyncStart is its closest equivalent). 0 when unknown.
	UIDoneNs int64 `json:"ui_done_ns,omitempty"`
	// IntervalNs is the frame interval that applied to this frame when the source knows it
	// (Android 12+ rows carry it; the simulator knows it). 0 = unknown: metrics falls back to
	// the refresh rate.
	IntervalNs int64 `json:"interval_ns,omitempty"`
	Flags      int64 `json:"flags,omitempty"`
	// DeadlineNs is Android 12+'s FrameDeadline (0 unknown).
	DeadlineNs int64 `json:"deadline_ns,omitempty"`
	// VsyncID is Android 12+'s FrameTimelineVsyncId (0 unknown; -1 invalid as Android prints it).
	VsyncID int64 `json:"vsync_id,omitempty"`
	// StartVsyncNs is the vsync the frame actually started on (gfxinfo Vsync) when it differs
	// from VsyncNs: the main thread was busy and Choreographer ran the frame late. 0 = on time
	// or unknown (Phases.Vsync carries it for gfxinfo rows).
	StartVsyncNs int64 `json:"start_vsync_ns,omitempty"`
	// PresentNs is when the display showed the frame (DisplayPresentTime; the simulator knows
	// it). 0 unknown. Real devices print stale and garbage values: a cross-check only.
	PresentNs int64 `json:"present_ns,omitempty"`
	// History marks a frame drawn before the live session started (the first poll's backlog):
	// it counts in frames, jank, drop levels and the histogram, never in a rate.
	History bool `json:"history,omitempty"`
	// Logged marks a frame known only because Android logged it as slow (hwui's "Davey!" line,
	// 700 ms and more): the frames around it were not logged, so it counts in frames, jank,
	// drop levels, the histogram and the worst frames, never in a rate.
	Logged bool    `json:"logged,omitempty"`
	Phases *Phases `json:"phases,omitempty"`
	// Timeline is SurfaceFlinger's account of the frame (Perfetto traces only).
	Timeline *FrameTimeline `json:"timeline,omitempty"`
	// Sections are the slowest atrace sections that ran in the frame, slowest first
	// (Perfetto traces only). A pointer keeps Frame comparable.
	Sections *FrameSections `json:"sections,omitempty"`
}

// At implements Event.
func (f *Frame) At() int64 { return f.VsyncNs }

// Message is one main-thread (or other Looper thread) message: a Dispatching/Finished pair.
type Message struct {
	Pid    int    `json:"pid,omitempty"`
	Tid    int    `json:"tid,omitempty"`
	Thread string `json:"thread,omitempty"`
	// Handler is the handler's class (from "Handler (<class>) {<hash>}"), or the whole target
	// text when the handler overrides toString.
	Handler string `json:"handler"`
	// Callback is the Runnable's toString as printed ("null" when none), not normalised.
	Callback string `json:"callback"`
	What     int    `json:"what"`
	StartNs  int64  `json:"start_ns"`
	// EndNs is the Finished time; 0 when the duration is unknown (text without timestamps).
	EndNs int64 `json:"end_ns"`
}

// At implements Event.
func (m *Message) At() int64 { return m.StartNs }

// IsVsync reports whether the message is Choreographer's vsync frame message.
func (m *Message) IsVsync() bool {
	return m.What == 0 && (m.Handler == "android.view.Choreographer$FrameHandler" ||
		hasPrefix(m.Callback, "android.view.Choreographer$FrameDisplayEventReceiver"))
}

func hasPrefix(s, p string) bool { return len(s) >= len(p) && s[:len(p)] == p }

// Dispatch is a Looper message that began (a Dispatching line, or the simulator starting a
// message) and has not finished yet: while it runs the main thread can draw nothing, so a
// screen can say FROZEN and name it instead of calling the silence idle. The Message event
// with the same StartNs and Tid closes it.
//
// A live source re-sends it while the message stays open, each time with SeenNs, its estimate
// of the device's time now (the source's clock): metrics has no clock of its own, and the
// frames and Ticks that move its time can lag the device by a second or more — a freeze of
// 800 ms would end before they showed it had lasted 250 ms.
type Dispatch struct {
	Pid      int    `json:"pid,omitempty"`
	Tid      int    `json:"tid,omitempty"`
	Thread   string `json:"thread,omitempty"`
	Handler  string `json:"handler"`
	Callback string `json:"callback"`
	What     int    `json:"what"`
	StartNs  int64  `json:"start_ns"`
	// SeenNs is when the message was seen still open (0: at StartNs, or unknown).
	SeenNs int64 `json:"seen_ns,omitempty"`
}

// At implements Event: when the message was seen open.
func (d *Dispatch) At() int64 { return max(d.StartNs, d.SeenNs) }

// UnpairedLine is a Dispatching or Finished line that could not be paired (another Looper's
// line in between, a missing Finished, a Finished with no Dispatching). Counted, never guessed.
type UnpairedLine struct {
	AtNs   int64  `json:"at_ns"`
	Tid    int    `json:"tid,omitempty"`
	Reason string `json:"reason"`
}

// At implements Event.
func (u *UnpairedLine) At() int64 { return u.AtNs }

// Skipped is a Choreographer "Skipped N frames!" line.
type Skipped struct {
	AtNs   int64 `json:"at_ns"`
	Pid    int   `json:"pid,omitempty"`
	Frames int   `json:"frames"`
}

// At implements Event.
func (s *Skipped) At() int64 { return s.AtNs }

// SlowLooper is a Looper "Slow dispatch/delivery took" line or a vendor "Slow Looper main:" line.
type SlowLooper struct {
	AtNs int64 `json:"at_ns"`
	// Kind is "dispatch", "delivery", "drained", "doframe_late", "long_msg", "activity_late",
	// "motion_event_late" or "other".
	Kind    string `json:"kind"`
	Ms      int64  `json:"ms"`
	Thread  string `json:"thread,omitempty"`
	Handler string `json:"handler,omitempty"`
	// Callback is the message's callback, empty when it has none (printed "c=null").
	Callback string `json:"callback,omitempty"`
	What     *int   `json:"what,omitempty"`
	Text     string `json:"text,omitempty"`
	// Truncated marks a line cut off before its duration (Ms 0: unknown) or inside its
	// details (handler and callback unknown when the cut ran through them).
	Truncated bool `json:"truncated,omitempty"`
}

// At implements Event.
func (s *SlowLooper) At() int64 { return s.AtNs }

// AndroidSummary is what dumpsys gfxinfo printed for a window or a process, as printed. Fields
// Android did not print are nil.
type AndroidSummary struct {
	AtNs    int64  `json:"at_ns"`
	Window  string `json:"window,omitempty"` // empty for the process-wide summary
	Process string `json:"process,omitempty"`
	Pid     int    `json:"pid,omitempty"`

	TotalFrames  *int64   `json:"total_frames"`
	JankyFrames  *int64   `json:"janky_frames"`
	JankyLegacy  *int64   `json:"janky_legacy"`
	P50Ms        *float64 `json:"p50_ms"`
	P90Ms        *float64 `json:"p90_ms"`
	P95Ms        *float64 `json:"p95_ms"`
	P99Ms        *float64 `json:"p99_ms"`
	MissedVsync  *int64   `json:"missed_vsync,omitempty"`
	HighInput    *int64   `json:"high_input_latency,omitempty"`
	SlowUIThread *int64   `json:"slow_ui_thread,omitempty"`
	SlowBitmap   *int64   `json:"slow_bitmap_uploads,omitempty"`
	SlowIssue    *int64   `json:"slow_issue_draw_commands,omitempty"`
	DeadlineMiss *int64   `json:"frame_deadline_missed,omitempty"`
	// Histogram is the HISTOGRAM line: bucket lower bound in ms → count, in printed order.
	Histogram []Bucket `json:"histogram,omitempty"`
}

// Bucket is one histogram bucket: frames of at most Ms (Android's bucket label) and their count.
type Bucket struct {
	Ms    int   `json:"ms"`
	Count int64 `json:"count"`
}

// At implements Event.
func (a *AndroidSummary) At() int64 { return a.AtNs }

// Poll is what one gfxinfo poll saw of one window: Android's "Total frames rendered" counter and
// how many rows were new (not seen in an earlier poll). metrics turns the deltas into frames_lost.
// A Poll with Process set is the process-wide counter (which keeps counting the frames of
// windows that went away between polls), sent after the polls of that process's windows.
type Poll struct {
	AtNs   int64  `json:"at_ns"`
	Window string `json:"window"`
	Pid    int    `json:"pid,omitempty"`
	// Process marks the process-wide counter (Window is then empty).
	Process bool `json:"process,omitempty"`
	// TotalFrames is the window's "Total frames rendered" counter, -1 when not printed or not
	// to be trusted this poll (damaged text; the next good counter covers the frames).
	TotalFrames int64 `json:"total_frames"`
	Rows        int   `json:"rows"`
	// NewRows is the frames this poll accounts for against the counter's growth since the
	// source's previous reported counter: rows not seen before (not the first poll's backlog),
	// rows unreadable in damaged text credited until the next dump shows them (taken off again,
	// even below 0, when it does not), never more than the growth (the excess is carried).
	// metrics charges the growth less NewRows as frames_lost.
	NewRows int `json:"new_rows"`
	// FirstRowVsyncNs is the oldest row's IntendedVsync; when it is newer than the newest row seen
	// by the previous poll, the ring overflowed in between.
	FirstRowVsyncNs int64 `json:"first_row_vsync_ns,omitempty"`
	// Hidden is set when the window's view root is not visible (gfxinfo's "(visibility=4)"
	// INVISIBLE or "(visibility=8)" GONE): its frames are kept, the window is marked.
	Hidden bool `json:"hidden,omitempty"`
}

// At implements Event.
func (p *Poll) At() int64 { return p.AtNs }

// Refresh is the display's refresh rate, at start and whenever it changes.
type Refresh struct {
	AtNs int64   `json:"at_ns"`
	Hz   float64 `json:"hz"`
}

// At implements Event.
func (r *Refresh) At() int64 { return r.AtNs }

// Tick says the source's clock reached NowNs: nothing else happened up to then. It lets metrics
// close idle time slices while the app draws nothing.
type Tick struct {
	NowNs int64 `json:"now_ns"`
}

// At implements Event.
func (t *Tick) At() int64 { return t.NowNs }

// Gap is time the source could not see (device disconnected, stream cut).
type Gap struct {
	FromNs int64  `json:"from_ns"`
	ToNs   int64  `json:"to_ns"`
	Reason string `json:"reason"`
	// Layer names the SurfaceFlinger layer whose frames were lost (its --latency history
	// overran between two polls): FromNs is the last present seen, ToNs the next; Lost is how
	// many frames were overwritten between them. The frame at ToNs is counted, never judged.
	Layer string `json:"layer,omitempty"`
	Lost  int64  `json:"lost,omitempty"`
}

// At implements Event.
func (g *Gap) At() int64 { return g.FromNs }

// State is the source's connection state, shown in the header.
type State string

// Source states.
const (
	StateLive         State = "live"
	StateIdle         State = "idle"
	StateWaiting      State = "waiting"      // waiting for the app to start / for a device
	StateDisconnected State = "disconnected" // device gone, retrying
	StateAdbDown      State = "adb_down"     // no adb server answers, retrying
	StateEnded        State = "ended"        // input finished
	// States the pipeline derives (never sent by a source): the main thread is blocked or a
	// frame is overdue (frozen), and no frame for a while where the source cannot tell idle
	// from frozen (no_frames: plain gfxinfo polling).
	StateFrozen   State = "frozen"
	StateNoFrames State = "no_frames"
)

// Outage reports whether the state is a lost connection (the device or the adb server gone):
// the numbers on screen are stale and the screen says how old.
func (s State) Outage() bool { return s == StateDisconnected || s == StateAdbDown }

// OutageState is the state a source that failed with err is in: adb server down when no adb
// server answered (the error has a ServerDown method saying so), else disconnected.
func OutageState(err error) State {
	var sd interface{ ServerDown() bool }
	if errors.As(err, &sd) && sd.ServerDown() {
		return StateAdbDown
	}
	return StateDisconnected
}

// Level is a notice's severity.
type Level string

// Notice levels.
const (
	LevelInfo Level = "info"
	LevelWarn Level = "warn"
	LevelErr  Level = "error"
)

// Notice is a state change or a warning worth showing and reporting.
type Notice struct {
	AtNs  int64  `json:"at_ns"`
	Level Level  `json:"level"`
	State State  `json:"state,omitempty"` // set when the notice changes the source state
	Text  string `json:"text"`
}

// At implements Event.
func (n *Notice) At() int64 { return n.AtNs }

// Notef makes a Notice with a formatted text.
func Notef(at int64, level Level, format string, args ...any) *Notice {
	return &Notice{AtNs: at, Level: level, Text: fmt.Sprintf(format, args...)}
}

// Device describes the phone (empty for the simulator and for file inputs that do not say).
type Device struct {
	Serial  string `json:"serial"`
	Model   string `json:"model"`
	Android string `json:"android"`
	SDK     int    `json:"sdk,omitempty"`
}

// Session is what a source knows about the run; sent first, and again when it changes (a new
// device or package, a process restart).
type Session struct {
	Source    Kind    `json:"source"`
	Device    Device  `json:"device"`
	Package   string  `json:"package"`
	Pid       int     `json:"pid,omitempty"`
	RefreshHz float64 `json:"refresh_hz,omitempty"`
	// CostBasis is "frame" (frame completion known) or "main_thread" (Looper-derived frames).
	CostBasis string `json:"cost_basis"`
	// StartMonoNs is the device monotonic time the session started at (0 unknown).
	StartMonoNs int64  `json:"start_mono_ns,omitempty"`
	Scenario    string `json:"scenario,omitempty"`
	Seed        int64  `json:"seed,omitempty"`
	// WorkScale is the simulator's --work-scale when it is not 1 (0: 1, the scenario as
	// written): a recording of a deliberately slowed build says so.
	WorkScale float64 `json:"work_scale,omitempty"`
	// Input is the file the events came from, when not a live device.
	Input string `json:"input,omitempty"`
	// Layer is the SurfaceFlinger layer the session measures (source surfaceflinger): the
	// run-level frames, fps and jank are that layer's.
	Layer string `json:"layer,omitempty"`
	// LayerKind says what the layer is, for the header ("SurfaceView (BLAST)", "SurfaceView",
	// "window").
	LayerKind string `json:"layer_kind,omitempty"`
}

// At implements Event.
func (s *Session) At() int64 { return s.StartMonoNs }

// Cost bases.
const (
	CostFrame      = "frame"
	CostMainThread = "main_thread"
)

// Raw is a piece of the source's raw text (one framestats dump, a run of logcat lines), emitted
// only when the source was asked to keep raw text (--record-raw). metrics ignores it; the
// recorder writes it beside the recording so a later fpstop can re-analyse it.
type Raw struct {
	AtNs   int64  `json:"at_ns"`
	Stream string `json:"stream"` // "gfxinfo" or "logcat"
	Text   []byte `json:"-"`
}

// At implements Event.
func (r *Raw) At() int64 { return r.AtNs }

// Restart says the source starts over from its beginning (a replay seeking backwards): the
// consumer drops what it computed so far. It is not written to recordings.
type Restart struct {
	AtNs int64
}

// At implements Event.
func (r *Restart) At() int64 { return r.AtNs }

// Trouble is implemented by device errors that can say in a few plain words what happened
// ("phone disconnected"): a status line shows those, not the adb command that failed.
type Trouble interface{ Trouble() string }

// RetryText is the status line of a source that lost its device and retries every `every`:
// "phone disconnected — waiting for it; fpstop retries every 5 s". Errors that cannot say what
// happened keep their text, after the stream's name.
func RetryText(stream string, err error, every time.Duration) string {
	var t Trouble
	if errors.As(err, &t) {
		return fmt.Sprintf("%s — waiting for it; fpstop retries every %s", t.Trouble(), retrySeconds(every))
	}
	return fmt.Sprintf("%s: %v (fpstop retries every %s)", stream, err, retrySeconds(every))
}

func retrySeconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + " s"
}
