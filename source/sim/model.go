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
//     its `when`, so it waits behind messages posted earlier;
//   - doFrame: jitter correction as Choreographer does (a start ≥ one interval late snaps the frame
//     time to the last tick at or before the start, IntendedVsync keeps the original tick, and a
//     start ≥ 30 intervals late logs "Skipped N frames!"), then input, animation and, per window to
//     draw, traversal (measure/layout, draw) and the sync with the RenderThread, which must have
//     finished the previous frame's work (SwapBuffersCompleted) before it can sync;
//   - the RenderThread issues draw commands, dequeues/queues the buffer and swaps; the GPU finishes
//     after the swap; the frame is complete at max(GPU done, swap done). RenderThread and GPU run in
//     parallel with the main thread's next work;
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
	rtFree      int64

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
		w.vri = e.hash() // a new ViewRootImpl each time the window is added
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

// doFrame runs Choreographer's frame for the vsync message m starting at s.
func (e *engine) doFrame(m *qmsg, s int64) {
	r, p, T := e.rng, e.prof, e.T
	tf := float64(T)
	intended := m.when
	startNanos := s + uniform(r, 2*us, 8*us)
	frameTime := intended
	var skippedEv *source.Skipped
	if jitter := startNanos - intended; jitter >= T {
		skipped := jitter / T
		frameTime = startNanos - jitter%T
		if skipped >= skipWarningFrames {
			skippedEv = &source.Skipped{AtNs: startNanos, Pid: e.pid, Frames: int(skipped)}
		}
	}
	touching, animating := false, false
	var draw []*window
	for _, w := range e.wins {
		// a window draws when it needed the frame at the request (an animation that ended
		// while the vsync message waited still draws its last frame) or was invalidated since
		if !w.attached || !(w.pending || w.dirty) {
			continue
		}
		w.pending = false
		draw = append(draw, w)
		if w.touchUntil > intended {
			touching = true
		}
		if w.animUntil > intended {
			animating = true
		}
	}
	his := startNanos + uniform(r, 2*us, 5*us)
	inputDur := uniform(r, 1*us, 3*us)
	if touching {
		inputDur = int64(tf * 0.03 * noise(r, p.sigma))
	}
	as := his + inputDur
	animDur := uniform(r, 1*us, 3*us)
	if animating {
		animDur = int64(tf * 0.04 * noise(r, p.sigma))
	}
	cur := as + animDur
	frames := make([]*source.Frame, 0, len(draw))
	for _, w := range draw {
		pts := cur
		trav := int64(tf * p.trav * w.weight * noise(r, p.sigma))
		if w.spikes && p.spikeP > 0 && r.Float64() < p.spikeP {
			trav += int64(tf * (p.spikeLo + r.Float64()*(p.spikeHi-p.spikeLo)))
		}
		ds := pts + trav
		sq := ds + int64(tf*p.draw*w.weight*noise(r, p.sigma))
		ss := max(sq+uniform(r, 5*us, 40*us), e.rtFree)
		idc := ss + int64(tf*0.025*noise(r, p.sigma)) + 20*us
		cur = idc + uniform(r, 10*us, 60*us) // main thread resumes after the sync
		sb := idc + int64(tf*p.issue*w.weight*noise(r, p.sigma))
		deq := uniform(r, 8*us, 45*us)
		if p.stuffP > 0 && r.Float64() < p.stuffP {
			deq += int64(tf * (0.3 + r.Float64()))
		}
		que := uniform(r, 120*us, 380*us)
		sbc := sb + deq + que + uniform(r, 30*us, 120*us)
		gpu := sb + int64(tf*p.gpu*w.weight*noise(r, p.sigma))
		e.rtFree = sbc
		var flags int64
		if w.first {
			flags = source.FlagWindowLayoutChanged
			w.first = false
		}
		w.dirty = false
		f := &source.Frame{
			Window:     w.title,
			Process:    e.pkg,
			VsyncNs:    intended,
			IntervalNs: T,
			Flags:      flags,
			DeadlineNs: intended + T,
			VsyncID:    e.vsyncIDBase + (intended-e.t0)/T,
			Phases: &source.Phases{
				Vsync:                      frameTime,
				HandleInputStart:           his,
				AnimationStart:             as,
				PerformTraversalsStart:     pts,
				DrawStart:                  ds,
				SyncQueued:                 sq,
				SyncStart:                  ss,
				IssueDrawCommandsStart:     idc,
				SwapBuffers:                sb,
				DequeueBufferDuration:      deq,
				QueueBufferDuration:        que,
				GpuCompleted:               gpu,
				SwapBuffersCompleted:       sbc,
				CommandSubmissionCompleted: sb,
				FrameStartTime:             startNanos,
			},
		}
		frames = append(frames, f)
	}
	end := cur + uniform(r, 15*us, 50*us)
	e.mainFree = end
	if skippedEv != nil {
		// sent with its vsync message, so a logcat rendered batch by batch stays in order
		e.emit(end, skippedEv)
	}
	e.emit(end, &source.Message{Pid: e.pid, Tid: e.pid, Thread: "main", Handler: m.handler,
		Callback: m.callback, What: 0, StartNs: s, EndNs: end})
	for _, f := range frames {
		ph := f.Phases
		if len(frames) > 1 && ph.GpuCompleted <= end {
			ph.GpuCompleted = end + uniform(r, 100*us, 600*us)
		}
		ph.FrameCompleted = max(ph.GpuCompleted, ph.SwapBuffersCompleted)
		f.DoneNs = ph.FrameCompleted
		f.UIDoneNs = end
		e.emit(f.DoneNs, f)
	}
}
