package metrics

import (
	"slices"

	"github.com/fpstop/fpstop/source"
)

// ClockAligner estimates, for `--source gfxinfo+logcat`, the offset between the logcat clock and
// the gfxinfo clock (DESIGN §3): logd stamps lines with its own estimate of the time, which can
// be off by a few ms (more after clock changes, and by days for wall-clock formats), so the two
// are matched on the frames themselves. Each vsync message's Dispatching time (logcat clock) is
// paired with the gfxinfo frame whose HandleInputStart (IntendedVsync when absent) is nearest
// once shifted by the current estimate; the offset is the median of the most recent 32 matched
// differences.
//
// When there is no estimate yet, when fewer than half of the recent messages that the frames
// cover still match (the clock stepped), and on every 8th estimate anyway (a step of nearly a
// whole number of frames still matches locally, on the wrong frames), a global search runs.
// Every vsync lies on one grid, so periodic rendering makes offsets a whole number of frames
// apart look alike; idle gaps and dropped frames tell them apart. So it first matches only the
// messages and frames that start a run (after a gap longer than 1.5 frames): the densest cluster
// of their differences wins if it holds 4 and 3 more than any other. Failing that, every
// difference between one of the last 64 messages and one of the last 512 frames is a candidate,
// and the densest cluster (alignToleranceNs wide) wins if it is clearly denser than any other.
// Offset reports ok=false until a winner matches at least alignMinMatches messages. Not safe
// for concurrent use.
type ClockAligner struct {
	msgs   []int64 // recent vsync Dispatching times (logcat clock), sorted
	frames []int64 // recent frame HandleInputStart/IntendedVsync (gfxinfo clock), sorted
	dirty  int
	est    int64
	ok     bool
	// the schedule, on the gfxinfo clock (the newest frame seen): once an estimate exists it is
	// refined at most every alignLocalEveryNs and searched globally every alignSearchEveryNs,
	// not on every batch — the global search is the costly part of a live gfxinfo+logcat run.
	lastLocal, lastSearch int64
	tried                 bool // an estimate was attempted (lastLocal is set)
}

// alignToleranceNs is how far a shifted Dispatching time may be from its frame.
const alignToleranceNs int64 = 2_000_000

const (
	// alignMinMatches is how many matched messages a first estimate needs.
	alignMinMatches    = 8
	alignLocalEveryNs  = 500_000_000
	alignSearchEveryNs = 4_000_000_000
	// the messages cover the frames' seconds and the second or more by which logcat runs
	// ahead of the gfxinfo polls, at 120 Hz too
	alignMsgRing   = 1024
	alignFrameRing = 512
	alignSearchMsg = 64
	alignMedianN   = 32
	// searchRunStarts: the run starts it matches, and the matches it needs
	alignRunStartMsgs   = 64
	alignRunStartFrames = 256
	alignRunStartMin    = 4
)

// NewClockAligner returns an aligner with no estimate yet.
func NewClockAligner() *ClockAligner { return &ClockAligner{} }

// ObserveMessage records a message; only timed vsync messages are used.
func (a *ClockAligner) ObserveMessage(m *source.Message) {
	if m == nil || m.StartNs == 0 || !m.IsVsync() {
		return
	}
	a.msgs = alignInsertSorted(a.msgs, m.StartNs, alignMsgRing)
	a.dirty++
}

// ObserveFrame records a gfxinfo frame (skipped frames, whose timestamps are garbage, are not).
func (a *ClockAligner) ObserveFrame(f *source.Frame) {
	if f == nil || f.Flags&source.FlagSkippedFrame != 0 {
		return
	}
	t := f.VsyncNs
	if f.Phases != nil && f.Phases.HandleInputStart != 0 {
		t = f.Phases.HandleInputStart
	}
	if t == 0 {
		return
	}
	a.frames = alignInsertSorted(a.frames, t, alignFrameRing)
	a.dirty++
}

// Offset returns logcat time − gfxinfo time for the same instant, in ns: subtract it from a
// logcat time to get the gfxinfo (CLOCK_MONOTONIC) time. Until a first estimate exists it is
// re-estimated whenever at least 8 messages or frames arrived; after that on a schedule of the
// device's time (a local refinement every 0.5 s, a global search every 4 s), so it is cheap to
// call per event. ok is false until enough messages have matched frames; once true it stays
// true, keeping the last good estimate while the data are ambiguous.
func (a *ClockAligner) Offset() (ns int64, ok bool) {
	if a.dirty < 8 || len(a.frames) == 0 {
		return a.est, a.ok
	}
	now := a.frames[len(a.frames)-1]
	if a.tried && now-a.lastLocal < alignLocalEveryNs && now >= a.lastLocal {
		// also before a first estimate: a stream that stays ambiguous (periodic frames) would
		// otherwise run a global search every 8 events
		return a.est, a.ok
	}
	a.estimate(now)
	a.dirty = 0
	a.lastLocal, a.tried = now, true
	return a.est, a.ok
}

// alignInsertSorted inserts v into the sorted ring s, dropping the oldest (smallest) beyond max.
func alignInsertSorted(s []int64, v int64, max int) []int64 {
	i, _ := slices.BinarySearch(s, v)
	s = slices.Insert(s, i, v)
	if len(s) > max {
		s = slices.Delete(s, 0, len(s)-max)
	}
	return s
}

// nearest returns the frame time nearest to t and whether one is within tol.
func (a *ClockAligner) nearest(t, tol int64) (int64, bool) {
	i, _ := slices.BinarySearch(a.frames, t)
	best, found := int64(0), false
	for _, j := range [2]int{i - 1, i} {
		if j >= 0 && j < len(a.frames) {
			if d := lfAbs(a.frames[j] - t); d <= tol && (!found || d < lfAbs(best-t)) {
				best, found = a.frames[j], true
			}
		}
	}
	return best, found
}

// local matches recent messages at the estimate est; it returns the median of the most recent
// matched differences, how many covered messages matched and how many the frames cover. It
// needs a frame (estimate checks).
func (a *ClockAligner) local(est int64) (median int64, matched, covered int) {
	tol := alignToleranceNs
	lo, hi := a.frames[0]-tol, a.frames[len(a.frames)-1]+tol
	var diffs []int64
	for i := len(a.msgs) - 1; i >= 0 && covered < alignSearchMsg; i-- {
		g := a.msgs[i] - est // the message's time on the gfxinfo clock
		if g < lo || g > hi {
			continue
		}
		covered++
		if f, ok := a.nearest(g, tol); ok {
			matched++
			if len(diffs) < alignMedianN {
				diffs = append(diffs, a.msgs[i]-f)
			}
		}
	}
	if len(diffs) == 0 {
		return 0, 0, covered
	}
	slices.Sort(diffs)
	return diffs[len(diffs)/2], matched, covered
}

func (a *ClockAligner) estimate(now int64) {
	if len(a.msgs) == 0 || len(a.frames) == 0 {
		return
	}
	if a.ok {
		med, matched, covered := a.local(a.est)
		if covered == 0 {
			return
		}
		due := now-a.lastSearch >= alignSearchEveryNs
		if matched*2 >= covered && !due {
			a.est = med
			return
		}
		// On schedule, or when matching degrades, look globally: a clock step close to a
		// whole number of frames still "matches" locally, on the wrong frames.
		if matched*2 >= covered {
			a.est = med
		}
	}
	a.lastSearch = now
	c, ok := a.search()
	if !ok {
		return
	}
	if a.ok && lfAbs(c-a.est) <= 2*alignToleranceNs {
		return
	}
	if med, matched, _ := a.local(c); matched >= alignMinMatches {
		a.est, a.ok = med, true
	}
}

// search finds the offset from recent messages: first from the starts of their runs (runStarts),
// then, when those do not decide, as the densest cluster of message − frame differences.
func (a *ClockAligner) search() (int64, bool) {
	if c, ok := a.searchRunStarts(); ok {
		return c, true
	}
	c, n, second := a.densest(a.candidates())
	if n < alignMinMatches || n < second+max(3, second/16) {
		return 0, false // ambiguous: periodic frames with nothing to tell the offsets apart
	}
	return c, true
}

// searchRunStarts matches the messages and frames that start a run — the first after an idle
// gap or a dropped vsync — and nothing else. Every vsync lies on one grid, so every message −
// frame difference is near the offset plus a whole number of frames, and a steady scroll
// matches the offset one frame (or fifty) off as well as the right one: the densest cluster of
// all differences can name a wrong one, or none for seconds (a gfxinfo+logcat run that never
// attributed a frame). The starts of runs are the pattern only the right offset lines up.
func (a *ClockAligner) searchRunStarts() (int64, bool) {
	period := a.period()
	if period <= 0 {
		return 0, false
	}
	gap := period + period/2
	var cands []int64
	for _, m := range runStarts(a.msgs, gap, alignRunStartMsgs) {
		for _, f := range runStarts(a.frames, gap, alignRunStartFrames) {
			cands = append(cands, m-f)
		}
	}
	slices.Sort(cands)
	c, n, second := a.densest(cands)
	if n < alignRunStartMin || n < second+3 {
		return 0, false
	}
	return c, true
}

// runStarts is the last (at most n) times of the sorted ts that follow a gap longer than gap,
// the newest first.
func runStarts(ts []int64, gap int64, n int) []int64 {
	var dst []int64
	for i := len(ts) - 1; i >= 1 && len(dst) < n; i-- {
		if ts[i]-ts[i-1] > gap {
			dst = append(dst, ts[i])
		}
	}
	return dst
}

// period is the frames' usual spacing: the median of the gaps under 50 ms between consecutive
// recent frames (0 when there are none).
func (a *ClockAligner) period() int64 {
	fs := a.frames[max(0, len(a.frames)-65):]
	var gaps []int64
	for i := 1; i < len(fs); i++ {
		if d := fs[i] - fs[i-1]; d > 0 && d < 50_000_000 {
			gaps = append(gaps, d)
		}
	}
	if len(gaps) == 0 {
		return 0
	}
	slices.Sort(gaps)
	return gaps[len(gaps)/2]
}

// densest returns the centre of the densest window (the tolerance wide) of the sorted cands, how
// many it holds, and how many the densest window that does not overlap it holds.
func (a *ClockAligner) densest(cands []int64) (c int64, n, second int) {
	if len(cands) == 0 {
		return 0, 0, 0
	}
	w := alignToleranceNs
	type win struct{ i, n int }
	var best win
	j := 0
	counts := make([]int, len(cands)) // the window ending at i holds counts[i], from starts[i]
	starts := make([]int, len(cands))
	for i := range cands {
		for cands[i]-cands[j] > w {
			j++
		}
		counts[i], starts[i] = i-j+1, j
		if counts[i] > best.n {
			best = win{j, counts[i]}
		}
	}
	lo, hi := cands[best.i], cands[best.i+best.n-1]
	for i := range cands {
		if cands[i] < lo-w/2 || cands[starts[i]] > hi+w/2 {
			second = max(second, counts[i])
		}
	}
	return cands[best.i+best.n/2], best.n, second
}

// candidates returns every difference between one of the last alignSearchMsg messages and one
// of the frames, in ascending order.
func (a *ClockAligner) candidates() []int64 {
	msgs := a.msgs[max(0, len(a.msgs)-alignSearchMsg):]
	cands := make([]int64, 0, len(msgs)*len(a.frames))
	for _, m := range msgs {
		for _, f := range a.frames {
			cands = append(cands, m-f)
		}
	}
	slices.Sort(cands)
	return cands
}
