package metrics

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/fpstop/fpstop/source"
)

// LooperFrames turns Looper messages (logcat printer lines) into main-thread frames when a run
// has no frame source: each vsync message ((*source.Message).IsVsync) is a frame on the vsync
// Choreographer ran it on, costing Finished − that vsync, with the pipelined drops of
// docs/metrics.md (they depend on when the next frame started, so a frame longer than one
// period is held until its thread's next vsync message, a message after its Finished tick,
// Advance past it, or Flush).
//
// The vsync grid has period T — the refresh interval when known, else learned from the spacing
// of vsync dispatches and refined on long baselines between prompt ones — and a phase learned
// from vsync messages dispatched promptly (the thread idle at least PromptGapNs before, so the
// message ran as soon as its vsync came): the 10th percentile of the last 32 prompt dispatch
// times folded onto the grid, so a typical prompt frame maps onto its own tick. The grid's
// ticks so sit up to spread (at most T/64) after the true ones. Until T and the phase are
// known, a thread's vsync messages are held back (at most 64, then 60 Hz is assumed).
//
// Each (pid, tid) thread is its own stream; its frames' Window is the name SetProcessName gave
// its process, else "main thread" for the first process seen, "main thread (pid N)" for other
// processes and "thread T (pid N)" for other Looper threads. Not safe for concurrent use.
type LooperFrames struct {
	intervalNs int64
	names      map[int]string
	streams    map[uint64]*looperStream
	firstPid   int
	out        []LooperFrame
}

// LooperFrame is a frame derived from a vsync message and the display refreshes it cost
// (DESIGN §4's Looper-derived `dropped`, which depends on when the next frame started).
type LooperFrame struct {
	source.Frame
	Dropped int64
}

// LooperIdleReleaseNs is how long after a held frame's Finished Advance assumes no next frame
// started during its overrun and releases it.
const LooperIdleReleaseNs = 1_000_000_000

// PromptGapNs is how long a Looper thread must have been idle before a vsync message for the
// message to count as dispatched promptly (phase learning).
const PromptGapNs = 1_000_000

const (
	looperPromptRing = 32
	looperDeltaRing  = 64
	looperMaxPending = 64
	looperMinDeltas  = 8
	looperBaseRing   = 128
	defaultLooperT   = 16_666_667
)

type looperStream struct {
	pid, tid  int
	haveLast  bool
	lastEnd   int64 // Finished of the previous message of any kind
	lastFrame bool  // the previous message was a vsync message
	prevEnd   int64 // Finished of the previous vsync message (0 none)
	lastVsync int64 // Dispatching of the previous vsync message (0 none)

	fine    bool  // a timestamp finer than a millisecond was seen (not threadtime text)
	T       int64 // 0 until known
	learned bool  // T was learned here (not given)
	refined bool  // the learned T was refined on long baselines
	deltas  []int64
	newD    int     // spacings added since T was last learned
	base    []int64 // prompt dispatch times ≥ 20 ms apart: long baselines for T

	prompt     []int64 // ring of prompt dispatch times
	promptNext int
	// folded is where the prompt times fall within a period of foldT (p mod foldT), sorted, so
	// that placing the grid reads their offsets in order instead of sorting them; foldT is 0
	// until the first placement.
	folded     []int64
	foldT      int64
	anchor     int64 // a tick of the grid
	spread     int64 // how far the earliest prompt dispatches fall before the grid's ticks
	haveAnchor bool

	pending []pendingVsync

	prevStart int64 // vsync of the previous frame (0 none)
	held      LooperFrame
	holding   bool  // held is a frame waiting for its next frame
	heldEnd   int64 // the held frame's Finished
	heldUntil int64 // heldEnd on the grid's ticks (+ spread)

	sc periodScratch // learnPeriod's
}

// periodScratch is learnPeriod's working memory, kept by its stream so that learning T
// allocates nothing.
type periodScratch struct {
	d        []int64
	ns, ests []float64
}

type pendingVsync struct {
	m      *source.Message
	prompt bool
	behind bool // dispatched directly after the previous frame
}

// NewLooperFrames returns a converter. intervalNs is the refresh interval T when known (from the
// device's refresh rate); 0 learns it from the messages.
func NewLooperFrames(intervalNs int64) *LooperFrames {
	return &LooperFrames{intervalNs: intervalNs, names: map[int]string{}, streams: map[uint64]*looperStream{}}
}

// SetInterval sets the refresh interval T (a refresh-rate change); 0 goes back to learning.
func (l *LooperFrames) SetInterval(intervalNs int64) {
	l.intervalNs = intervalNs
	for _, s := range l.streams {
		if intervalNs > 0 {
			if s.T != intervalNs {
				s.T, s.learned = intervalNs, false
				s.recomputeAnchor()
			}
		} else if !s.learned {
			s.T, s.haveAnchor = 0, false
		}
	}
}

// SetProcessName names the frames of process pid (the package or process name).
func (l *LooperFrames) SetProcessName(pid int, name string) {
	l.names[pid] = name
}

// IntervalNs returns the T in use for a thread (0 while unknown) and whether it was learned.
func (l *LooperFrames) IntervalNs(pid, tid int) (int64, bool) {
	s := l.streams[looperKey(pid, tid)]
	if s == nil {
		return l.intervalNs, false
	}
	return s.T, s.learned
}

func looperKey(pid, tid int) uint64 { return uint64(uint32(pid))<<32 | uint64(uint32(tid)) }

// Message takes every paired message of the run, in the order the source emitted them (by
// Finished time per thread), and returns the frames that became known: usually none or the
// message's own frame, more when held-back frames are released. The returned slice is valid
// until the next call.
func (l *LooperFrames) Message(m *source.Message) []LooperFrame {
	l.out = l.out[:0]
	if m == nil || m.EndNs == 0 || m.StartNs == 0 || m.EndNs < m.StartNs {
		return l.out
	}
	s := l.stream(m.Pid, m.Tid)
	s.fine = s.fine || m.StartNs%1_000_000 != 0 || m.EndNs%1_000_000 != 0
	prompt := !s.haveLast || m.StartNs-s.lastEnd >= PromptGapNs
	behind := s.haveLast && s.lastFrame && !prompt
	vsync := m.IsVsync()
	s.haveLast, s.lastEnd, s.lastFrame = true, m.EndNs, vsync
	if !vsync {
		// A message dispatched after the held frame's Finished tick: no frame started during
		// the held frame's overrun.
		if s.holding && s.haveAnchor && m.StartNs >= s.tickAtOrAfter(s.heldEnd) {
			l.releaseHeld(s, s.heldUntil)
		}
		return l.out
	}
	if s.lastVsync != 0 {
		if d := m.StartNs - s.lastVsync; d >= 4_000_000 && d <= 60_000_000 {
			if len(s.deltas) == looperDeltaRing { // the oldest goes, in place
				s.deltas = append(s.deltas[:0], s.deltas[1:]...)
			}
			s.deltas = append(s.deltas, d)
			s.newD++
		}
	}
	s.lastVsync = m.StartNs
	if prompt && (len(s.base) == 0 || m.StartNs-s.base[len(s.base)-1] >= 20*1_000_000) {
		if len(s.base) == looperBaseRing {
			s.base = append(s.base[:0], s.base[1:]...)
		}
		s.base = append(s.base, m.StartNs)
	}
	if l.intervalNs <= 0 && len(s.deltas) >= looperMinDeltas && (s.T == 0 || s.newD >= 16) {
		if t, refined := learnPeriod(s.deltas, s.base, s.T, s.refined, &s.sc); t > 0 {
			t = snapPeriod(t, s.fine)
			changed := s.T == 0 || lfAbs(t-s.T) > 2_000
			s.T, s.learned, s.refined, s.newD = t, true, refined, 0
			if changed {
				s.recomputeAnchor()
			}
		}
	}
	if prompt {
		s.addPrompt(m.StartNs)
	}
	ready := s.T != 0 && s.haveAnchor && (!s.learned || len(s.base) >= 4)
	if !ready || len(s.pending) > 0 {
		s.pending = append(s.pending, pendingVsync{m: m, prompt: prompt, behind: behind})
		if !ready && len(s.pending) < looperMaxPending {
			return l.out
		}
		l.release(s)
		return l.out
	}
	l.frame(s, m, prompt, behind)
	return l.out
}

// stream returns thread (pid, tid)'s stream, new when it has none yet.
func (l *LooperFrames) stream(pid, tid int) *looperStream {
	s := l.streams[looperKey(pid, tid)]
	if s == nil {
		s = &looperStream{pid: pid, tid: tid, T: l.intervalNs}
		l.streams[looperKey(pid, tid)] = s
		if len(l.streams) == 1 {
			l.firstPid = pid
		}
	}
	return s
}

// Flush releases every held-back frame (end of input), assuming 60 Hz where T is still unknown;
// a frame held for its next frame gets none.
func (l *LooperFrames) Flush() []LooperFrame {
	l.out = l.out[:0]
	keys := make([]uint64, 0, len(l.streams))
	for k, s := range l.streams {
		if len(s.pending) > 0 || s.holding {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		s := l.streams[k]
		l.release(s)
		if s.holding {
			l.releaseHeld(s, s.heldUntil)
		}
	}
	return l.out
}

// Advance tells the converter that the source's clock reached nowNs (a Tick): a frame held for
// its next frame is released, as without one, once LooperIdleReleaseNs passed since its
// Finished with no message of its thread — so a long frame before the app goes idle is not held
// until the app draws again. The returned slice is valid until the next call.
func (l *LooperFrames) Advance(nowNs int64) []LooperFrame {
	l.out = l.out[:0]
	var keys []uint64
	for k, s := range l.streams {
		if s.holding && nowNs-s.heldEnd >= LooperIdleReleaseNs {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		s := l.streams[k]
		l.releaseHeld(s, s.heldUntil)
	}
	return l.out
}

// release emits a stream's held-back frames, falling back to 60 Hz and to all dispatch times
// for the phase when learning did not succeed.
func (l *LooperFrames) release(s *looperStream) {
	if len(s.pending) == 0 {
		return
	}
	if s.T == 0 {
		if t, _ := learnPeriod(s.deltas, s.base, 0, false, &s.sc); t > 0 && len(s.deltas) >= 2 {
			s.T, s.learned = snapPeriod(t, s.fine), true
		} else {
			s.T = defaultLooperT
		}
	}
	if !s.haveAnchor {
		for _, p := range s.pending {
			if !p.prompt {
				s.addPrompt(p.m.StartNs)
			}
		}
	}
	s.recomputeAnchor()
	for _, p := range s.pending {
		l.frame(s, p.m, p.prompt, p.behind)
	}
	s.pending = s.pending[:0]
}

// frame places the vsync message m on the grid, settles the held previous frame's drops with
// it, and emits its frame, or holds it when it ran past the next tick. prompt: the thread was
// idle before m; behind: m was dispatched directly after the previous frame.
func (l *LooperFrames) frame(s *looperStream, m *source.Message, prompt, behind bool) {
	v := s.tickAtOrBefore(m.StartNs)
	if prompt {
		// a prompt dispatch is a wake-up on its tick, and the grid sits on the 10th percentile
		// of wake-ups: one that woke sooner than that is on the tick just after it
		v = s.tickAtOrBefore(m.StartNs + s.spread)
	}
	if s.prevStart != 0 {
		// Not before the first tick after the previous frame finished: the grid's phase sits
		// a little after the true ticks (it is learned from dispatch times), and a frame
		// dispatched just after a tick must not fall onto the tick before. Except after an
		// overrun: a frame dispatched directly behind a previous frame that ran past the next
		// tick (next: the tick after the previous frame's, on the current grid — the phase may
		// have moved) started on the vsync Android requested during that frame, at or before
		// its dispatch — unless it was dispatched no earlier before the tick than prompt
		// dispatches fall: then it may as well be a wake-up on that tick.
		g := s.tickAtOrAfter(s.prevEnd)
		if next := s.tickAtOrAfter(s.prevStart + s.T/2); g > next && behind && g-m.StartNs > s.spread {
			g = next
		}
		v = max(v, g)
	}
	s.prevStart, s.prevEnd = v, m.EndNs
	if s.holding {
		l.releaseHeld(s, v)
	}
	lf := LooperFrame{Frame: source.Frame{Window: l.windowName(m), Process: l.names[m.Pid],
		VsyncNs: v, UIDoneNs: m.EndNs, IntervalNs: s.T}}
	// the grid's ticks sit up to spread after the true ones: a Finished that late after a grid
	// tick came after the true tick
	if m.EndNs+s.spread <= v+s.T {
		l.out = append(l.out, lf)
		return
	}
	s.held, s.holding, s.heldEnd, s.heldUntil = lf, true, m.EndNs, m.EndNs+s.spread
}

// releaseHeld emits the held frame with its drops: the ticks strictly between its vsync and the
// earlier of next (the next frame's vsync; heldUntil when there is none) and its own Finished
// (heldUntil: on the grid's ticks).
func (l *LooperFrames) releaseHeld(s *looperStream, next int64) {
	lf := s.held
	until := min(next, s.heldUntil)
	s.holding = false
	lf.Dropped = Dropped(until-lf.VsyncNs, lf.IntervalNs)
	l.out = append(l.out, lf)
}

// windowName is the window the frames of m's thread are counted under: the process's name,
// else "main thread" for the first process seen, and names with the pid and tid for others.
func (l *LooperFrames) windowName(m *source.Message) string {
	if name := l.names[m.Pid]; name != "" {
		return name
	}
	switch {
	case m.Tid != 0 && m.Tid != m.Pid:
		return fmt.Sprintf("thread %d (pid %d)", m.Tid, m.Pid)
	case m.Pid != l.firstPid:
		return fmt.Sprintf("main thread (pid %d)", m.Pid)
	}
	return "main thread"
}

// addPrompt keeps a prompt dispatch time (the newest looperPromptRing) and places the grid.
func (s *looperStream) addPrompt(t int64) {
	if len(s.prompt) < looperPromptRing {
		s.prompt = append(s.prompt, t)
	} else {
		s.unfold(s.prompt[s.promptNext])
		s.prompt[s.promptNext] = t
		s.promptNext = (s.promptNext + 1) % looperPromptRing
	}
	if s.foldT != 0 {
		r := lfMod(t, s.foldT)
		i, _ := slices.BinarySearch(s.folded, r)
		s.folded = slices.Insert(s.folded, i, r)
	}
	s.recomputeAnchor()
}

// unfold drops a prompt time leaving the ring from folded.
func (s *looperStream) unfold(t int64) {
	if s.foldT != 0 {
		i, _ := slices.BinarySearch(s.folded, lfMod(t, s.foldT))
		s.folded = slices.Delete(s.folded, i, i+1)
	}
}

// recomputeAnchor places the grid: around the newest prompt dispatch time, each prompt time is
// folded to its offset in [−T/2, T/2); offsets more than T/4 from their median are dropped
// (a late dispatch wrapped around), and the 10th percentile of the rest is the phase; how far
// the earliest of them falls before it (at most T/64) is the spread.
func (s *looperStream) recomputeAnchor() {
	if s.T <= 0 || len(s.prompt) == 0 {
		return
	}
	newest := s.prompt[len(s.prompt)-1]
	if len(s.prompt) == looperPromptRing {
		newest = s.prompt[(s.promptNext+looperPromptRing-1)%looperPromptRing]
	}
	T := s.T
	if s.foldT != T {
		s.folded, s.foldT = s.folded[:0], T
		for _, p := range s.prompt {
			s.folded = append(s.folded, lfMod(p, T))
		}
		slices.Sort(s.folded)
	}
	// A prompt time's offset is (p − newest + T/2) mod T − T/2, that is (r − c) mod T − T/2
	// with r = p mod T and c = (newest − T/2) mod T: in order, the folded times from c up, then
	// the rest a period later.
	c := lfMod(newest-T/2, T)
	n := len(s.folded)
	k, _ := slices.BinarySearch(s.folded, c)
	off := func(i int) int64 { // the i-th smallest offset
		if i < n-k {
			return s.folded[k+i] - c - T/2
		}
		return s.folded[i-(n-k)] - c + T - T/2
	}
	// The kept offsets, within T/4 of the median, are the i-th in [lo, hi).
	med := off(n / 2)
	lo := sort.Search(n, func(i int) bool { return off(i) >= med-T/4 })
	hi := sort.Search(n, func(i int) bool { return off(i) > med+T/4 })
	p10 := off(lo + (hi-lo)/10)
	s.anchor = newest + p10
	s.spread = min(p10-off(lo), T/64)
	s.haveAnchor = true
}

func (s *looperStream) tickAtOrBefore(t int64) int64 {
	return s.anchor + lfFloorDiv(t-s.anchor, s.T)*s.T
}

func (s *looperStream) tickAtOrAfter(t int64) int64 {
	return s.anchor - lfFloorDiv(s.anchor-t, s.T)*s.T
}

// nominalRates are refresh rates displays run at.
var nominalRates = []float64{24, 30, 48, 50, 60, 72, 75, 90, 96, 100, 120, 144, 165, 240}

// snapPeriod: from millisecond timestamps (threadtime text) a learned period is good to a few
// tenths of a percent only — a frame lands a tick off within a second or two of a busy thread —
// so a period within 1 % of a rate displays run at is taken as that rate. Finer timestamps keep
// what was learned (a display may run at 59.94 Hz).
func snapPeriod(t int64, fine bool) int64 {
	if fine || t <= 0 {
		return t
	}
	for _, hz := range nominalRates {
		if n := 1e9 / hz; math.Abs(float64(t)-n) < 0.01*n {
			return int64(math.Round(n))
		}
	}
	return t
}

// learnPeriod estimates T: first the modal spacing of consecutive vsync dispatch times (the
// mean of the spacings near the densest 2 ms wide cluster), then refined on long baselines
// between prompt dispatch times: the median of span / round(span / T) over the longest half of
// the baselines of at most 25 periods, then 4× as many, and so on — so that millisecond
// timestamps and dispatch jitter still give a period good to a few µs. A previous refined
// estimate close to the mode is the starting point (and is kept when no baseline is usable).
// It returns 0 when the spacings have no clear mode.
func learnPeriod(deltas, base []int64, prev int64, prevRefined bool, sc *periodScratch) (int64, bool) {
	t0 := modalSpacing(deltas, sc)
	if t0 <= 0 {
		return 0, false
	}
	T, maxN, refined := float64(t0), 25.0, false
	if prevRefined && lfAbs(t0-prev)*33 < prev {
		T, maxN, refined = float64(prev), 400, true
	}
	if len(base) < 3 {
		return int64(math.Round(T)), refined
	}
	newest := base[len(base)-1]
	ns := append(sc.ns[:0], make([]float64, len(base))...) // the periods each baseline spans
	ests := sc.ests[:0]
	defer func() { sc.ns, sc.ests = ns, ests }()
	for {
		used, excluded := 0.0, 0
		for i, p := range base {
			n := math.Round(float64(newest-p) / T)
			ns[i] = n
			if n > maxN {
				excluded++
			} else {
				used = max(used, n)
			}
		}
		// The longest half of the usable baselines: jitter matters least there.
		ests = ests[:0]
		for i, p := range base {
			if n := ns[i]; n >= 1 && n <= maxN && n >= used/2 {
				ests = append(ests, float64(newest-p)/n)
			}
		}
		if len(ests) < 3 {
			break
		}
		slices.Sort(ests)
		T, refined = ests[len(ests)/2], true
		if excluded == 0 || maxN >= 1e6 {
			break // every baseline was used
		}
		maxN = 4 * max(used, maxN)
	}
	return int64(math.Round(T)), refined
}

// modalSpacing returns the mean of the densest 2 ms wide cluster of spacings (the modal
// spacing, averaged so that millisecond timestamps still give a sub-millisecond period), or 0
// when the cluster holds fewer than half of them.
func modalSpacing(deltas []int64, sc *periodScratch) int64 {
	if len(deltas) == 0 {
		return 0
	}
	d := append(sc.d[:0], deltas...)
	sc.d = d
	slices.Sort(d)
	const width = 2_000_000
	bestI, bestN := 0, 0
	j := 0
	for i := range d {
		for d[i]-d[j] > width {
			j++
		}
		if n := i - j + 1; n > bestN {
			bestN, bestI = n, j
		}
	}
	if bestN*2 < len(d) && bestN < looperMinDeltas {
		return 0
	}
	// The mean of every spacing within ±15 % of the mode's median: unbiased even when
	// millisecond timestamps split the spacings between two values.
	m := d[bestI+bestN/2]
	var sum, n int64
	for _, v := range d {
		if v*20 >= m*17 && v*20 <= m*23 {
			sum += v
			n++
		}
	}
	return sum / n
}

func lfFloorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func lfMod(a, b int64) int64 {
	m := a % b
	if m < 0 {
		m += b
	}
	return m
}

func lfAbs(a int64) int64 {
	if a < 0 {
		return -a
	}
	return a
}
