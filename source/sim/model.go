package sim

import (
	"container/heap"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/fpstop/fpstop/source"
)

// The model is a discrete-event simulation in virtual time:
//
//   - the display's vsync grid: tick k is at t0 + k·T, T = round(1e9/Hz);
//   - the main Looper: one queue of messages ordered by (when, post order), run one at a time;
//     a message starts at max(when + wake-up latency, end of the previous one + loop overhead);
//   - Choreographer: while a window animates (scroll, fling, popup animation) or is invalidated, a
//     vsync is requested at the end of each main-thread item; the vsync event arrives at the first
//     tick strictly after the request and posts the FrameHandler message (what 0) with that tick as
//     its `when`, so it waits behind messages posted earlier: a frame whose vsync arrives while
//     the main thread is busy (a GC pause, a slow callback, a freeze) starts late on it.
//     (Real Choreographer requests the next vsync from the animation callbacks inside doFrame, so
//     a doFrame longer than a period also makes the next frame start late; the model requests it
//     at the end of doFrame, which the Looper-derived frames of metrics/looper.go assume — see
//     DESIGN §4 — and which a long doFrame turns into skipped vsyncs instead);
//   - doFrame: jitter correction as Choreographer does (a start ≥ one interval late snaps the frame
//     time to the last tick at or before the start, IntendedVsync keeps the original tick, and a
//     start ≥ 30 intervals late logs "Skipped N frames!"), then input, animation and, per window to
//     draw, traversal (measure/layout, draw) and the sync with the RenderThread, which must have
//     finished the previous frame's work (SwapBuffersCompleted) before it can sync;
//   - the RenderThread, the buffer queue, the GPU, SurfaceFlinger's presentation and hwui's
//     JankTracker are in pipeline.go: they run in parallel with the main thread's next work (Android
//     12+ pipelines frames), and the deadline each row prints is in jankTracker;
//   - GC pauses are unlogged main-thread stalls; other messages are lifecycle (ActivityThread$H),
//     app handlers with callbacks and click handlers, some of which change windows.
//
// When several windows draw in one doFrame, each frame's completion is moved to after the vsync
// message's end (the GPU composes the doFrame's buffers after the last window synced), so that
// DoneNs ≥ UIDoneNs ≥ VsyncNs holds for every frame.

const (
	us = int64(1_000)
	ms = int64(1_000_000)

	never = int64(math.MaxInt64 / 4)

	handlerChoreographer = "android.view.Choreographer$FrameHandler"
	handlerActivityH     = "android.app.ActivityThread$H"
	handlerMain          = "android.os.Handler"
	handlerViewRoot      = "android.view.ViewRootImpl$ViewRootHandler"

	// ActivityThread$H what codes.
	whatBindApplication   = 110
	whatCreateService     = 114
	whatServiceArgs       = 115
	whatExecuteTransation = 159

	skipWarningFrames = 30 // debug.choreographer.skipwarning

	// announceAfter: a main-thread message still running this long after it started is sent
	// as a source.Dispatch at that moment (the logcat live source's threshold too).
	announceAfter = 100 * ms
)

type msgKind uint8

const (
	kMessage msgKind = iota // a printed Looper message with a known duration
	kVsync                  // Choreographer's FrameHandler message
	kTrigger                // unprinted zero-length main-thread work (input delivery, window removal)
	kStall                  // unprinted main-thread stall (GC pause)
)

// qmsg is one item of the main thread's queue.
type qmsg struct {
	when     int64
	seq      uint64
	kind     msgKind
	lat      int64 // wake-up latency when the thread was idle
	gap      int64 // loop overhead when the thread was busy
	handler  string
	callback string
	what     int
	dur      int64
	fn       func(e *engine, start, end int64)
}

// window is one ViewRootImpl of the app.
type window struct {
	title      string
	vri        string // ViewRootImpl identity hash (hex)
	weight     float64
	attached   bool
	animUntil  int64
	touchUntil int64
	dirty      bool
	pending    bool // the requested vsync draws this window
	first      bool
	spikes     bool // heavy traversal spikes apply to this window

	pipe pipeState // the window's surface: buffer queue, presents, hwui's JankTracker
}

// outItem is something that becomes observable at `at`: an event, or a window change for an
// attached gfxinfo dump.
type outItem struct {
	at  int64
	seq uint64
	ev  source.Event
	win *winChange
}

type winChange struct {
	title    string
	vri      string
	attached bool
}

type outHeap []outItem

func (h outHeap) Len() int { return len(h) }
func (h outHeap) Less(i, j int) bool {
	if h[i].at != h[j].at {
		return h[i].at < h[j].at
	}
	return h[i].seq < h[j].seq
}
func (h outHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *outHeap) Push(x any)   { *h = append(*h, x.(outItem)) }
func (h *outHeap) Pop() any {
	old := *h
	it := old[len(old)-1]
	*h = old[:len(old)-1]
	return it
}

// engine holds the model's state.
type engine struct {
	prof *profile
	rng  *rand.Rand
	T    int64
	t0   int64
	pkg  string
	pid  int

	vsyncIDBase int64
	mainFree    int64
	q           []*qmsg
	seq         uint64
	vsyncQueued bool
	rtFree      int64 // RenderThread free (previous frame swapped)
	gpuFree     int64 // GPU free (previous frame's work done)
	pre12       bool  // Android ≤ 11: no FrameDeadline
	baseNs      int64 // the base FrameDeadline − Vsync Choreographer prints

	activity *window
	popup    *window
	wins     []*window

	dir *director

	out    outHeap
	outSeq uint64

	receiverCB string
}

func newEngine(cfg Config, prof *profile, t0 int64) *engine {
	T := int64(math.Round(1e9 / cfg.Hz))
	e := &engine{
		prof:        prof,
		rng:         rand.New(rand.NewPCG(uint64(cfg.Seed), 0x6670_7374_6f70_0002)),
		T:           T,
		t0:          t0,
		pkg:         cfg.Package,
		pid:         cfg.Pid,
		mainFree:    t0,
		rtFree:      t0,
		gpuFree:     t0,
		pre12:       cfg.Pre12,
		baseNs:      BaseDeadlineNs(T),
		vsyncIDBase: 4_000_000 + int64(uint64(cfg.Seed)%1_000_000),
	}
	e.receiverCB = "android.view.Choreographer$FrameDisplayEventReceiver@" + e.hash()
	e.activity = e.newWindow(cfg.Package+"/com.example.feed.FeedActivity", 1, true)
	e.popup = e.newWindow("PopupWindow:"+e.hash(), 0.35, false)
	e.dir = newDirector(cfg, prof, e, t0)
	return e
}

// hash returns a 7-digit lowercase hex identity hash.
func (e *engine) hash() string { return hashFrom(e.rng) }

func hashFrom(r *rand.Rand) string {
	return fmt.Sprintf("%x", 0x1000000+r.Uint32()%0xeffffff)
}

// uniform returns a value in [lo, hi).
func uniform(r *rand.Rand, lo, hi int64) int64 {
	if hi <= lo {
		return lo
	}
	return lo + r.Int64N(hi-lo)
}

// noise is a multiplicative log-normal factor exp(σ·N(0,1)), clamped to [0.25, 4].
func noise(r *rand.Rand, sigma float64) float64 {
	f := math.Exp(sigma * r.NormFloat64())
	return min(max(f, 0.25), 4)
}

func (e *engine) newWindow(title string, weight float64, spikes bool) *window {
	return &window{title: title, vri: e.hash(), weight: weight, spikes: spikes}
}

// post queues a main-thread item.
func (e *engine) post(m *qmsg) {
	e.seq++
	m.seq = e.seq
	if m.lat == 0 {
		m.lat = uniform(e.rng, 40*us, 260*us)
	}
	if m.gap == 0 {
		m.gap = uniform(e.rng, 4*us, 30*us)
	}
	// insertion keeps (when, seq) order; the queue is short
	i := len(e.q)
	e.q = append(e.q, m)
	for i > 0 && e.q[i-1].when > m.when {
		e.q[i] = e.q[i-1]
		i--
	}
	e.q[i] = m
}

func (e *engine) startOf(m *qmsg) int64 {
	return max(m.when+m.lat, e.mainFree+m.gap)
}

// head returns the next main-thread item and its start time, applying every director action due
// by then. It never returns nil: the director always has more to do.
func (e *engine) head() (*qmsg, int64) {
	for {
		var h *qmsg
		cand := never
		if len(e.q) > 0 {
			h = e.q[0]
			cand = e.startOf(h)
		}
		if e.dir.peek() <= cand {
			e.dir.apply()
			continue
		}
		return h, cand
	}
}

// advance runs every main-thread item that starts at or before target.
func (e *engine) advance(target int64) {
	for {
		h, s := e.head()
		if s > target {
			return
		}
		e.q = e.q[1:]
		e.run(h, s)
	}
}

// popUpTo moves every output item observable at or before target to dst.
func (e *engine) popUpTo(target int64, fn func(outItem)) {
	for len(e.out) > 0 && e.out[0].at <= target {
		fn(heap.Pop(&e.out).(outItem))
	}
}

func (e *engine) emit(at int64, ev source.Event) {
	e.outSeq++
	heap.Push(&e.out, outItem{at: at, seq: e.outSeq, ev: ev})
}

func (e *engine) emitWindow(at int64, w *window, attached bool) {
	e.outSeq++
	heap.Push(&e.out, outItem{at: at, seq: e.outSeq, win: &winChange{title: w.title, vri: w.vri, attached: attached}})
}

func (e *engine) run(m *qmsg, s int64) {
	switch m.kind {
	case kTrigger:
		e.mainFree = max(e.mainFree, s)
		if m.fn != nil {
			m.fn(e, s, s)
		}
	case kStall:
		e.mainFree = s + m.dur
	case kMessage:
		end := s + m.dur
		e.mainFree = end
		if m.dur > announceAfter {
			// the simulator knows its main thread: a long message is announced while it runs,
			// as logcat's live source announces an open Dispatching line, so the screen says
			// FROZEN and names it instead of calling the silence idle
			e.emit(s+announceAfter, &source.Dispatch{Pid: e.pid, Tid: e.pid, Thread: "main",
				Handler: m.handler, Callback: m.callback, What: m.what, StartNs: s})
		}
		e.emit(end, &source.Message{Pid: e.pid, Tid: e.pid, Thread: "main", Handler: m.handler,
			Callback: m.callback, What: m.what, StartNs: s, EndNs: end})
		if m.fn != nil {
			m.fn(e, s, end)
		}
	case kVsync:
		e.vsyncQueued = false
		e.doFrame(m, s)
	}
	if e.needsFrame(e.mainFree) {
		e.requestVsync(e.mainFree)
	}
}

func (e *engine) needsFrame(now int64) bool {
	for _, w := range e.wins {
		if w.attached && (w.dirty || w.animUntil > now) {
			return true
		}
	}
	return false
}

// requestVsync schedules the vsync message at the first tick strictly after now.
func (e *engine) requestVsync(now int64) {
	if e.vsyncQueued {
		return
	}
	k := (now-e.t0)/e.T + 1
	e.vsyncQueued = true
	for _, w := range e.wins {
		w.pending = w.dirty || w.animUntil > now
	}
	e.post(&qmsg{when: e.t0 + k*e.T, kind: kVsync, handler: handlerChoreographer, callback: e.receiverCB})
}

func (e *engine) attach(w *window, at int64, animFor int64) {
	if !w.attached {
		w.attached = true
		w.first = true
		w.vri = e.hash()     // a new ViewRootImpl each time the window is added
		w.pipe = pipeState{} // with a new surface and a new JankTracker
		e.wins = append(e.wins, w)
		e.emitWindow(at, w, true)
	}
	w.dirty = true
	w.animUntil = max(w.animUntil, at+animFor)
}

func (e *engine) detach(w *window, at int64) {
	if !w.attached {
		return
	}
	w.attached = false
	w.dirty = false
	w.pending = false
	w.animUntil = 0
	for i, x := range e.wins {
		if x == w {
			e.wins = append(e.wins[:i:i], e.wins[i+1:]...)
			break
		}
	}
	e.emitWindow(at, w, false)
}
