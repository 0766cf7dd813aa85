package metrics

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/fpstop/fpstop/source"
)

const (
	maxWindows   = 256
	otherWindows = "(other windows)"
	maxWarnings  = 100
	worstKeep    = 20
	// frame intervals outside 1–100 ms are not believed (garbage or a timestamp in the wrong column)
	minIntervalNs = 1_000_000
	maxIntervalNs = 100_000_000
)

// windowState is one Android window.
type windowState struct {
	name, process string
	visible       bool
	agg           *agg
	android       *source.AndroidSummary
	lastVsync     int64
	lastTotal     int64       // last "Total frames rendered" seen in a poll; -1 none
	budgets       budgetTally // budgets of the window's on-time Android 12+ frames
	late          []lateFrame // frames charged against a budget not their own, for Report to settle
	// lateOver counts the late-started frames past maxLateFrames by the budget they were
	// charged against (latestart.go): Report tells whether that was the final one
	lateOver map[int64]int64
	timeline *timelineTally
}

// worstItem is one of the costliest frames.
type worstItem struct {
	window               string
	vsync, mainEnd, cost int64
	dropped              int64
	msgs                 []FrameMessage
	sections             []FrameSectionReport
	blame                []string
	attributed           bool
	// shift is the clock shift of its last attribution (attributeAll looks it up again once
	// the shift has moved)
	shift int64
}

// warnTable keeps distinct warnings in order of first appearance, with repeat counts.
type warnTable struct {
	order  []string
	counts map[string]int64
	extra  int64
}

func (w *warnTable) add(s string) {
	s = source.Visible(s) // a warning may quote a name the app chose
	if w.counts == nil {
		w.counts = make(map[string]int64)
	}
	if _, ok := w.counts[s]; ok {
		w.counts[s]++
		return
	}
	if len(w.order) >= maxWarnings-1 {
		w.extra++
		return
	}
	w.order = append(w.order, s)
	w.counts[s] = 1
}

func (w *warnTable) list() []string {
	out := make([]string, 0, len(w.order)+1)
	for _, s := range w.order {
		if n := w.counts[s]; n > 1 {
			out = append(out, fmt.Sprintf("%s (×%d)", s, n))
		} else {
			out = append(out, s)
		}
	}
	if w.extra > 0 {
		out = append(out, fmt.Sprintf("%d more warnings not listed", w.extra))
	}
	return out
}

// Pipeline holds all metric state. It is not safe for concurrent use: one goroutine (a Runner)
// owns it; other goroutines read Snapshots.
type Pipeline struct {
	cfg Config

	session    source.Session
	hasSession bool
	// connecting: session is the picked device shown while its source starts (Connecting),
	// until the source's own Session or a state Notice arrives
	connecting bool
	refreshHz  float64

	originNs  int64
	hasOrigin bool
	endNs     int64

	state     source.State
	stateText string

	// total is the run's aggregate: the measured windows' frames, or the measured layer's
	total   *agg
	windows map[string]*windowState

	msgs *messageTable

	recent []recentFrame
	rhead  int
	rlen   int

	worst []worstItem
	// timeline and sections: what Perfetto traces add (nil until a trace frame or section)
	timeline *timelineTally
	sections *sectionTable
	hist     history

	warn       warnTable
	framesLost int64
	lostKnown  bool
	// process-wide "Total frames rendered" per pid, and the window-level loss counted since
	// that process's last poll
	procTotals map[int]int64
	windowLost map[int]int64

	// frame-interval learning when neither rows nor the device say (modal spacing of vsyncs,
	// 0.1 ms buckets from 4 to 44 ms)
	spacing     [400]int32
	spacingSum  [400]int64
	spacingN    int
	spacingMode int // the fullest bucket (the lowest of equals), kept as buckets fill
	learnedT    int64
	assumedWarn bool

	// Looper-derived frames (cost basis main_thread) and the logcat→gfxinfo clock alignment
	// (gfxinfo+logcat); nil when the session does not need them.
	looper  *LooperFrames
	aligner *ClockAligner

	onFrame func(ClassifiedFrame)

	// SurfaceFlinger layers (layers.go)
	layers       map[string]*layerState
	layerChoices []LayerChoice
	// measured: what the run measured and from when (measured.go)
	measured []measuredRec

	// the latest process-wide summary dumpsys printed, per process
	procAndroid map[procKey]*source.AndroidSummary

	// the main thread and frame flow, for frozen / idle / no-frames (state.go)
	main mainState

	seq uint64
}

// procKey identifies a process in dumpsys output.
type procKey struct {
	name string
	pid  int
}

// ClassifiedFrame is one frame as the pipeline counted it (DESIGN §4): the interval T that
// applied, its cost, the vsyncs it dropped and its drop level.
type ClassifiedFrame struct {
	// Frame is the frame (for Looper-derived frames, the one derived from the vsync message).
	Frame      source.Frame
	IntervalNs int64
	CostNs     int64
	Dropped    int64
	Level      Level
}

// OnFrame sets a function called, in order, for every frame the pipeline counts, right after
// it is classified — how exports (CSV, traces) show frames with exactly the report's numbers,
// including frames derived from Looper messages. nil removes it.
func (p *Pipeline) OnFrame(fn func(ClassifiedFrame)) { p.onFrame = fn }

// NewPipeline returns an empty pipeline.
func NewPipeline(cfg Config) *Pipeline {
	p := &Pipeline{cfg: cfg.withDefaults()}
	p.Reset()
	return p
}

// Reset clears all statistics (the screen's `c`), keeping the session and refresh rate.
func (p *Pipeline) Reset() {
	p.hasOrigin = false
	p.originNs, p.endNs = 0, 0
	p.total = newAgg(p.cfg.SeriesLen)
	p.total.slots = newSlotSet()
	p.windows = make(map[string]*windowState)
	p.layers = make(map[string]*layerState)
	if n := len(p.measured); n > 0 { // what is measured now, from the new start
		last := p.measured[n-1]
		last.at = 0
		p.measured = []measuredRec{last}
	}
	p.msgs = newMessageTable()
	p.recent = make([]recentFrame, p.cfg.RecentLen)
	p.rhead, p.rlen = 0, 0
	p.worst, p.hist = nil, history{max: p.cfg.HistoryLen}
	p.warn = warnTable{}
	p.framesLost, p.lostKnown = 0, false
	p.procTotals, p.windowLost = map[int]int64{}, map[int]int64{}
	p.procAndroid = map[procKey]*source.AndroidSummary{}
	p.main = mainState{seesMain: p.main.seesMain}
	p.spacing = [400]int32{}
	p.spacingSum = [400]int64{}
	p.spacingN, p.spacingMode, p.learnedT = 0, 0, 0
	p.seq++
}

// AddBatch applies a batch of events in order.
func (p *Pipeline) AddBatch(evs []source.Event) {
	for _, ev := range evs {
		p.Add(ev)
	}
}

// maxRefreshHz bounds a refresh rate: no display refreshes faster (phones reach 144 Hz,
// monitors 540 Hz).
const maxRefreshHz = 1000

// plausibleHz reports whether hz is 0 (unknown) or a refresh rate a display can have; another
// value (a damaged or hostile recording's 1e308, NaN, a negative rate) is refused with a
// warning, never used.
func (p *Pipeline) plausibleHz(hz float64) bool {
	if hz == 0 || hz >= 1 && hz <= maxRefreshHz {
		return true
	}
	p.warn.add(fmt.Sprintf("refresh rates out of range ignored (%g Hz)", hz))
	return false
}

// addRefresh applies a refresh-rate change (an implausible rate is refused with a warning).
func (p *Pipeline) addRefresh(e *source.Refresh) {
	if !p.plausibleHz(e.Hz) {
		return
	}
	if e.Hz > 0 {
		if p.refreshHz > 0 && math.Abs(p.refreshHz-e.Hz) >= 0.5 {
			p.warn.add(fmt.Sprintf("refresh rate changed: %.0f Hz → %.0f Hz", p.refreshHz, e.Hz))
		}
		p.refreshHz = e.Hz
		if p.looper != nil {
			p.looper.SetInterval(int64(math.Round(1e9 / e.Hz)))
		}
	}
	p.touch(e.AtNs)
}

// Add applies one event.
func (p *Pipeline) Add(ev source.Event) {
	switch e := ev.(type) {
	case *source.Frame:
		p.addFrame(e, -1)
	case *source.Message:
		p.addMessage(e)
	case *source.Section:
		p.addSection(e)
	case *source.Dispatch:
		p.addDispatch(e)
	case *source.UnpairedLine:
		p.msgs.unpaired++
		p.closeUnpaired(e)
		p.touch(e.AtNs)
	case *source.Skipped:
		p.msgs.skipped.Events++
		p.msgs.skipped.Frames += int64(e.Frames)
		p.touch(e.AtNs)
	case *source.SlowLooper:
		e = visibleSlow(e)
		p.msgs.addSlow(e)
		if e.Truncated && e.Ms == 0 {
			p.warn.add("slow Looper lines cut off before their duration (kept, duration unknown)")
		}
		p.touch(e.AtNs)
	case *source.AndroidSummary:
		cp := *e
		cp.Histogram = nil // (not used here)
		if e.Window != "" {
			p.window(e.Window, e.Process).android = &cp
		} else {
			p.procAndroid[procKey{e.Process, e.Pid}] = &cp
		}
	case *source.Poll:
		p.addPoll(e)
	case *source.Refresh:
		p.addRefresh(e)
	case *source.Tick:
		p.touch(e.NowNs)
		if p.looper != nil {
			p.addLooperFrames(p.looper.Advance(e.NowNs))
		}
	case *source.Gap:
		p.addGap(e)
	case *source.Notice:
		if e.State != "" {
			p.connecting = false
			if p.state.Outage() && e.State == source.StateLive {
				p.warn.add(fmt.Sprintf("resumed after a disconnection (%s)", e.Text))
			}
			p.state = e.State
			p.stateText = e.Text
			if e.State == source.StateEnded {
				p.flushLooper()
			}
		}
		if e.Level == source.LevelWarn || e.Level == source.LevelErr {
			p.warn.add(e.Text)
		}
		p.touch(e.AtNs)
	case *source.Session:
		p.noteMeasured(e)
		if p.connecting && p.state == source.StateWaiting {
			p.state, p.stateText = "", "" // connected: the source's state from here on
		}
		p.session, p.hasSession, p.connecting = *e, true, false
		if !p.plausibleHz(e.RefreshHz) {
			p.session.RefreshHz = 0
		} else if e.RefreshHz > 0 && p.refreshHz == 0 {
			p.refreshHz = e.RefreshHz
		}
		p.setupSources()
		if p.state == "" {
			p.state = source.StateLive
		}
	case *source.LayerFrame:
		p.addLayerFrame(e)
	case *source.LayerSample:
		p.addLayerSample(e)
	case *source.LayerPoll:
		p.addLayerPoll(e)
	case *source.LayerList:
		p.addLayerList(e)
	case *source.Restart:
		p.Reset()
	case *source.Raw:
		// raw text is for the recorder only
	default:
		return
	}
	p.seq++
}

// addGap notes time the source could not see: a SurfaceFlinger layer's frames lost between
// polls (layers.go), or a stretch of the session.
func (p *Pipeline) addGap(e *source.Gap) {
	if e.Layer != "" {
		p.addLayerGap(e)
		return
	}
	p.warn.add(fmt.Sprintf("gap: %s (%.1f s not seen)", e.Reason, float64(e.ToNs-e.FromNs)/1e9))
	p.touch(e.FromNs)
	p.touch(e.ToNs)
	if e.ToNs <= e.FromNs || e.FromNs <= 0 {
		return
	}
	from, to := p.sliceOf(max(e.FromNs, p.originNs)), p.sliceOf(e.ToNs)
	p.total.markUnseen(from, to)
	for _, w := range p.windows {
		w.agg.markUnseen(from, to)
	}
}

// touch moves the session clock: the first timed event sets the origin, every event the end.
func (p *Pipeline) touch(at int64) {
	if at <= 0 {
		return
	}
	if !p.hasOrigin {
		p.originNs, p.endNs, p.hasOrigin = at, at, true
		return
	}
	if at > p.endNs {
		p.endNs = at
	}
}

// window is the window named name, made on its first frame, poll or summary. Past maxWindows
// windows the rest share one.
func (p *Pipeline) window(name, process string) *windowState {
	w := p.windows[name]
	if w == nil && len(p.windows) >= maxWindows {
		if w = p.windows[otherWindows]; w != nil {
			return w
		}
		name = otherWindows
		p.warn.add(fmt.Sprintf("more than %d windows: the rest are counted as %q", maxWindows, otherWindows))
	}
	if w == nil {
		// keyed by the name as sent, shown with its invisible characters escaped (a window
		// named with a right-to-left override cannot pose as another)
		w = &windowState{name: source.Visible(name), process: source.Visible(process), visible: true,
			agg: newAgg(p.cfg.SeriesLen), lastTotal: -1}
		p.windows[name] = w
	}
	if w.process == "" {
		// a window first seen in a Poll (which names no process) keeps the process its
		// summary or frames were printed under
		w.process = source.Visible(process)
	}
	return w
}

// mainEnd is the end of a frame's main-thread part: SyncStart when known, else the vsync
// message's Finished, else the frame's completion.
func mainEnd(f *source.Frame) int64 {
	if f.Phases != nil && f.Phases.SyncStart > 0 {
		return f.Phases.SyncStart
	}
	if f.UIDoneNs > 0 {
		return f.UIDoneNs
	}
	return f.DoneNs
}

// msgShift is what to add to a message time to put it on the frame clock: 0 when both come
// from one clock, minus the estimated logcat offset for gfxinfo or Perfetto with logcat (ok
// false until known).
func (p *Pipeline) msgShift() (int64, bool) {
	if p.aligner == nil {
		return 0, true
	}
	off, ok := p.aligner.Offset()
	return -off, ok
}

// setupSources prepares what the session's source needs: Looper-derived frames when it has no
// frame source, clock alignment when frames and messages come from two clocks.
func (p *Pipeline) setupSources() {
	switch {
	case p.session.Source.TwoClocks():
		if p.aligner == nil {
			p.aligner = NewClockAligner()
		}
		p.looper = nil
	case p.session.CostBasis == source.CostMainThread:
		p.setupLooper()
	}
}

func (p *Pipeline) addMessage(m *source.Message) {
	m = visibleMessage(m)
	if m.StartNs < 0 || (m.EndNs != 0 && (m.EndNs < m.StartNs || m.EndNs-m.StartNs > maxMessageNs)) {
		// One flipped byte in a recording made a 3.5-day message (and a 3.5-day session).
		p.warn.add("messages with impossible timestamps ignored")
		return
	}
	shift, ok := p.msgShift()
	if p.aligner != nil {
		p.aligner.ObserveMessage(m)
	}
	if ok {
		p.touch(m.StartNs + shift)
		if m.EndNs > 0 {
			p.touch(m.EndNs + shift)
		}
	}
	p.closeDispatch(m, shift)
	p.msgs.add(m, p.originNs-shift)
	if p.looper != nil {
		p.addLooperFrames(p.looper.Message(m))
	}
	// Worst frames that arrived before their messages (all or some of them) are attributed
	// late.
	if ok {
		for i := range p.worst {
			it := &p.worst[i]
			if m.EndNs+shift > it.vsync && m.StartNs+shift < it.mainEnd {
				p.attribute(it)
			}
		}
	}
}

// maxMessageNs is the longest main-thread message taken as real: a message of a day is damage
// (Android kills an app whose main thread does not answer input for 5 s).
const maxMessageNs = 24 * 3600 * 1e9

// addPoll turns "Total frames rendered" deltas into frames_lost: per window, the counter's
// growth less the rows not seen before; per process (Process set), the same over all its windows,
// which also catches the frames of windows that closed between two polls. A poll's loss is the
// larger of its windows' sum and its process's; a counter that goes down (app restarted) is
// re-based, and a loss is never negative (rows can outnumber the counter).
func (p *Pipeline) addPoll(e *source.Poll) {
	p.touch(e.AtNs)
	if !e.Process {
		p.notePoll(e.AtNs)
	}
	if e.TotalFrames < 0 {
		return
	}
	p.lostKnown = true
	if e.Process {
		last, ok := p.procTotals[e.Pid]
		if ok && e.TotalFrames >= last {
			if lost := (e.TotalFrames - last) - int64(e.NewRows); lost > p.windowLost[e.Pid] {
				p.framesLost += lost - p.windowLost[e.Pid]
			}
		}
		p.procTotals[e.Pid] = e.TotalFrames
		p.windowLost[e.Pid] = 0
		return
	}
	w := p.window(e.Window, "")
	w.visible = !e.Hidden
	if w.lastTotal >= 0 && e.TotalFrames >= w.lastTotal {
		if lost := (e.TotalFrames - w.lastTotal) - int64(e.NewRows); lost > 0 {
			p.framesLost += lost
			p.windowLost[e.Pid] += lost
		}
	}
	w.lastTotal = e.TotalFrames
}

// lastSlice returns the index of the slice the session end falls in and how long that slice
// is so far (a slice that ends exactly at the end counts as whole).
func (p *Pipeline) lastSlice() (idx, length int64) {
	if !p.hasOrigin {
		return -1, 0
	}
	span := p.endNs - p.originNs
	idx = span / p.cfg.SliceNs
	length = span - idx*p.cfg.SliceNs
	if length == 0 && idx > 0 {
		idx--
		length = p.cfg.SliceNs
	}
	return idx, length
}

// sortedWindows is the windows, most frames first.
func (p *Pipeline) sortedWindows() []*windowState {
	return slices.SortedFunc(maps.Values(p.windows), func(a, b *windowState) int {
		return cmp.Or(cmp.Compare(b.agg.frames, a.agg.frames), cmp.Compare(a.name, b.name))
	})
}

// SlowMs is the threshold a message signature's max must reach to be listed.
func (p *Pipeline) SlowMs() float64 {
	if p.cfg.SlowMs > 0 {
		return p.cfg.SlowMs
	}
	return float64(p.currentInterval()) / 1e6
}

func (p *Pipeline) hasLogcat() bool {
	return p.session.Source == source.KindLogcat || p.session.Source.TwoClocks()
}
