package metrics

import (
	"strings"

	"github.com/fpstop/fpstop/source"
)

// A freeze is the worst state there is, and "idle" the most reassuring label: a screen must
// never show the second for the first (DESIGN §4). The pipeline derives what the source cannot
// say in one notice — whether the silence is idle, frozen or unknown — from what it has seen:
// an open main-thread Looper dispatch, the main thread's last free moment, the time since the
// last frame and the poll rhythm of a source that cannot see the main thread at all.

const (
	// frozenAfterNs: a main-thread dispatch open this long is a freeze in progress (DESIGN §4).
	frozenAfterNs = 250_000_000
	// idleAfterNs: IDLE only once the main thread has been free this long.
	idleAfterNs = 1_000_000_000
)

// mainState is what the pipeline knows of the app's main thread and frame flow.
type mainState struct {
	open     *source.Dispatch // the main thread's dispatch in progress, nil when none
	openAt   int64            // its start on the session clock (logcat's clock shifted)
	freeNs   int64            // when the main thread last finished a message (session clock)
	seesMain bool             // the source sees the main thread (Looper lines, the simulator)
	lastDone int64            // newest completion of a rate frame
	// vsyncs are the intended vsyncs of the two newest window frames (newest first): two
	// frames begun after a dispatch opened prove the main thread has been free since
	vsyncs    [2]int64
	lastPoll  int64 // the last poll's device time (gfxinfo)
	pollEvery int64 // the last interval between two polls
	// busyFrom, busyTo: the main thread's latest message that ran 250 ms or more (session
	// clock), the evidence that a layer's pause was the app stuck
	busyFrom, busyTo int64
}

// isMain reports whether a Looper thread id is the app's main thread (tid = pid, or named so).
func isMain(pid, tid int, thread string) bool {
	return thread == "main" || tid == 0 || tid == pid
}

func (p *Pipeline) addDispatch(d *source.Dispatch) {
	d = visibleDispatch(d)
	if !isMain(d.Pid, d.Tid, d.Thread) {
		return
	}
	shift, _ := p.msgShift()
	cp := *d
	p.main.open, p.main.openAt, p.main.seesMain = &cp, d.StartNs+shift, true
	p.touch(d.StartNs + shift)
	if d.SeenNs > d.StartNs {
		// a live source's "still open at" is the device's time now: the session clock follows
		// it, so a freeze shows as it lasts, not once frames or lagging Ticks catch up
		p.touch(d.SeenNs + shift)
	}
}

// closeDispatch is called for every paired message (shift: logcat → session clock): it ends
// the open dispatch it matches.
func (p *Pipeline) closeDispatch(m *source.Message, shift int64) {
	if !isMain(m.Pid, m.Tid, m.Thread) {
		return
	}
	p.main.seesMain = true
	if o := p.main.open; o != nil && (o.StartNs == m.StartNs || m.EndNs >= o.StartNs && m.StartNs <= o.StartNs) {
		p.main.open = nil
	}
	if e := m.EndNs + shift; m.EndNs > 0 && e > p.main.freeNs {
		p.main.freeNs = e
	}
	if m.EndNs-m.StartNs >= frozenAfterNs && m.StartNs > 0 {
		p.main.busyFrom, p.main.busyTo = m.StartNs+shift, m.EndNs+shift
	}
}

// noteFrame notes a window frame drawn live: its completion, and its intended vsync unless it
// is an RT animation's (flagged) frame, which needs no main thread.
func (m *mainState) noteFrame(f *source.Frame, v, end int64) {
	m.lastDone = max(m.lastDone, end)
	if f.Flags != 0 {
		return
	}
	switch {
	case v > m.vsyncs[0]:
		m.vsyncs[1], m.vsyncs[0] = m.vsyncs[0], v
	case v > m.vsyncs[1] && v < m.vsyncs[0]:
		m.vsyncs[1] = v
	}
}

// closeUnpaired ends the open dispatch a source closed without its Finished line (at a gap,
// a process restart, the end of the input): what it was doing after that is unknown, and an
// unknown is never a freeze that goes on growing.
func (p *Pipeline) closeUnpaired(u *source.UnpairedLine) {
	if o := p.main.open; o != nil && u.AtNs == o.StartNs && (u.Tid == 0 || isMain(o.Pid, u.Tid, "")) {
		p.main.open = nil
	}
}

// openStale reports whether the open dispatch is contradicted by the frames: the main thread
// runs one message at a time, so two window frames begun after the dispatch opened mean it has
// ended, whatever its Finished line's delay (a starved host delivers logcat late).
func (m *mainState) openStale() bool {
	return m.open != nil && m.vsyncs[1] > m.openAt
}

func (p *Pipeline) notePoll(at int64) {
	if at <= 0 {
		return
	}
	if p.main.lastPoll > 0 && at > p.main.lastPoll {
		p.main.pollEvery = at - p.main.lastPoll
	}
	p.main.lastPoll = at
}

// liveState refines a live source's state at device time now: FROZEN while a main-thread
// dispatch has been open for 250 ms (named, with how long it has run); IDLE only when the main
// thread has been free for a second and nothing was drawn for a slice; NO FRAMES (with how
// long) when the source cannot see the main thread and two poll intervals passed without a new
// frame. It returns the state, the text to show with it and the duration it has lasted.
func (p *Pipeline) liveState(now int64) (source.State, string, int64) {
	m := &p.main
	if m.openStale() {
		m.open = nil
	}
	if o := m.open; o != nil && now-m.openAt >= frozenAfterNs {
		return source.StateFrozen, shortName(o.Handler, o.Callback), now - m.openAt
	}
	if st, text, since, ok := p.layerLiveState(now); ok {
		return st, text, since
	}
	since := now - m.lastDone
	if m.lastDone == 0 {
		since = now - p.originNs
	}
	if p.cfg.SliceNs > since || m.open != nil {
		return source.StateLive, "", 0
	}
	// a layer's presents say nothing of why they stopped (a loading freeze or a pause): the
	// simulator's game scenarios are no better placed to call it idle than a device
	if m.seesMain || p.session.Source == source.KindSim && p.session.Layer == "" {
		// a poll that saw frames lately is newer evidence than a silent logcat stream (a
		// starved host delivers it late): idle only once a poll a second after the last
		// frame saw nothing new
		polled := m.lastPoll == 0 || m.lastPoll-m.lastDone >= idleAfterNs
		if now-max(m.freeNs, m.lastDone) >= idleAfterNs && polled {
			return source.StateIdle, "", since
		}
		return source.StateLive, "", 0
	}
	every := m.pollEvery
	if every <= 0 {
		every = p.cfg.SliceNs
	}
	if since >= 2*every {
		return source.StateNoFrames, "", since
	}
	return source.StateLive, "", 0
}

// shortName is the busy message as a person reads it: the callback's class (or the handler's)
// without its package and object hash — "FeedActivity$3".
func shortName(handler, callback string) string {
	n := callback
	if n == "" || n == "null" {
		n = handler
	}
	if i := strings.IndexByte(n, '@'); i > 0 {
		n = n[:i]
	}
	if i := strings.LastIndexByte(n, '.'); i >= 0 && i < len(n)-1 {
		n = n[i+1:]
	}
	return n
}

// ResetSource is Reset for a new source (another phone or app picked on screen): besides the
// statistics it forgets the refresh rate, the session and its state, so the new device's rate
// is not "a change" of the old one's and the old device's state and text do not linger.
func (p *Pipeline) ResetSource() {
	p.Reset()
	p.refreshHz = 0
	p.session, p.hasSession, p.connecting = source.Session{}, false, false
	p.state, p.stateText = "", ""
	p.main = mainState{}
	p.looper, p.aligner = nil, nil // set up again for the new session's source
}

// Connecting shows s (the picked device and app, no source yet) as the session while a new
// source starts after ResetSource, in the waiting state with text: a source that first decides
// what to read (auto: gfxinfo or SurfaceFlinger) sends its own Session only seconds later, and
// the screen should name the phone picked meanwhile, not nothing. The source's Session (or a
// state Notice) replaces it; once a source has said what it reads, Connecting does nothing.
func (p *Pipeline) Connecting(s source.Session, text string) {
	if p.hasSession || p.state != "" {
		return
	}
	p.session, p.hasSession, p.connecting = s, false, true
	p.state, p.stateText = source.StateWaiting, text
	p.seq++
}
