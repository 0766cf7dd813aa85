package metrics

import (
	"math"

	"github.com/fpstop/fpstop/source"
)

// Classification is the first stage of a frame's walk (DESIGN §4): a frame and its window's
// context go in; the interval T in force, the budget it had, the vsyncs it dropped and its drop
// level come out, as a frameFacts that aggregation (agg.go) counts. Every rule that decides a
// frame's verdict is in this file, in the order classify applies it.

// frameFacts is one frame's verdict.
type frameFacts struct {
	cost, interval, dropped, displayNs int64
	// budget is the time after its vsync the frame had before it dropped a refresh (its
	// deadline, for the timeline's cursor); 0 when no single deadline applies (Looper frames)
	budget  int64
	level   Level
	android AndroidFrame // Android's own verdict: its histogram and janky counts
	// legacyKnown: the frame has a completion time, so Android's legacy rule applies to it
	flagged, legacyKnown, history bool
	// late: charged against a budget not its own printed one, which Report settles
	// (latestart.go); charge says which (a budget, lateKeyPeriod or lateKeyNone)
	late   bool
	charge int64
	endIdx int64 // the slice of the frame's completion (set by aggregation)
}

// frameDone is when a frame was done for its cost: FrameCompleted, else (a frame known from
// the main thread only) the vsync message's Finished; ok=false for impossible timestamps.
func frameDone(f *source.Frame) (end int64, ok bool) {
	end = f.DoneNs
	if end == 0 {
		end = f.UIDoneNs
		// A Looper-derived frame's intended vsync (DESIGN §4's rule: at or after the previous
		// frame's Finished) can fall after its own Finished when the previous frame overran:
		// it was on time for the tick it was meant for, so its main-thread cost is 0.
		if end > 0 && end < f.VsyncNs {
			end = f.VsyncNs
		}
	}
	return end, f.VsyncNs > 0 && end > 0 && end >= f.VsyncNs
}

// classify is the verdict on f, a frame of w done at end. looperDropped is the drops
// LooperFrames worked out for a Looper-derived frame (they depend on when the next frame
// started, which only it knows), −1 for every other frame. It updates w's context for the
// frames after: its last vsync and its on-time budgets.
func (p *Pipeline) classify(f *source.Frame, w *windowState, end, looperDropped int64) frameFacts {
	t := p.intervalFor(f, w)
	w.lastVsync = f.VsyncNs
	af := AndroidJank(f, t)
	ff := frameFacts{
		cost: end - f.VsyncNs, interval: t, android: af, flagged: f.Flags != 0, legacyKnown: f.DoneNs > 0,
		// (a frame only known because it was logged as slow counts as history does: not in a rate)
		history: f.History || f.Logged,
	}
	p.dropped(f, w, af, looperDropped, &ff)
	ff.displayNs = (ff.dropped + 1) * t
	ff.level = p.level(ff.dropped, t)
	return ff
}

// intervalFor is T for a frame: the row's own period, else the device's refresh rate, else the
// modal spacing of consecutive intended vsyncs, else 60 Hz with a warning.
func (p *Pipeline) intervalFor(f *source.Frame, w *windowState) int64 {
	// The modal vsync spacing is only needed while the refresh rate is unknown.
	if p.refreshHz <= 0 && w.lastVsync > 0 && f.VsyncNs > w.lastVsync {
		if d := f.VsyncNs - w.lastVsync; d >= 4_000_000 && d < 44_000_000 {
			b := (d - 4_000_000) / 100_000
			p.spacing[b]++
			p.spacingSum[b] += d
			if n, m := p.spacing[b], p.spacing[p.spacingMode]; n > m || n == m && int(b) < p.spacingMode {
				p.spacingMode = int(b)
			}
			p.spacingN++
			if p.spacingN%16 == 0 || p.learnedT == 0 && p.spacingN >= 8 {
				p.learnT()
			}
		}
	}
	if f.IntervalNs >= minIntervalNs && f.IntervalNs <= maxIntervalNs {
		return f.IntervalNs
	}
	if p.refreshHz <= 0 && p.learnedT == 0 && !p.assumedWarn {
		p.assumedWarn = true
		p.warn.add("refresh rate unknown: assuming 60 Hz until the frame spacing shows it")
	}
	return p.currentInterval()
}

// currentInterval is T now: the refresh rate, else the learned spacing, else the default.
func (p *Pipeline) currentInterval() int64 {
	if p.refreshHz > 0 {
		return int64(math.Round(1e9 / p.refreshHz))
	}
	if p.learnedT > 0 {
		return p.learnedT
	}
	return int64(math.Round(1e9 / defaultHz))
}

// defaultHz is the refresh rate assumed, with a warning, while nothing says what it is.
const defaultHz = 60

// learnT takes T as the mean of the fullest spacing bucket (the lowest of equals), once it
// holds four spacings.
func (p *Pipeline) learnT() {
	if best := p.spacingMode; p.spacing[best] >= 4 {
		p.learnedT = p.spacingSum[best] / int64(p.spacing[best])
	}
}

// dropped sets ff's dropped and budget by DESIGN §4's `dropped`: against the budget the frame
// really had on Android 12+ rows, by the era's rule on rows without a deadline (Android's
// JankTracker duration, IntendedVsync → FrameCompleted less the sync stall, in whole periods
// past the first), and from the main thread's own vsync grid for Looper-derived frames. A frame
// the main thread started late is charged against the budget its window's on-time frames most
// often had (windowBudget), and marked late for Report to settle.
func (p *Pipeline) dropped(f *source.Frame, w *windowState, af AndroidFrame, looperDropped int64, ff *frameFacts) {
	if looperDropped >= 0 {
		ff.dropped = looperDropped
		return
	}
	if tl := f.Timeline; tl != nil && (tl.NoExpected || tl.Unseen()) {
		return // no deadline to be late against, or jank no user saw (DESIGN §4b)
	}
	t := ff.interval
	ff.budget = t      // the era's rule: late past one period
	if f.DoneNs == 0 { // main-thread cost only, from elsewhere than LooperFrames
		ff.dropped = Dropped(ff.cost, t)
		return
	}
	if f.DeadlineNs != 0 {
		if b, onTime := onTimeBudget(f, t); onTime {
			w.budgets.add(b)
			ff.budget, ff.dropped = b, overDropped(f, t, b)
			return
		}
		ff.late, ff.charge = true, lateKeyNone
		if b, ok := p.windowBudget(w); ok {
			ff.charge, ff.budget, ff.dropped = b, b, overDropped(f, t, b)
			return
		}
		if saneDeadline(f) { // a late start with no budget known yet: one period
			ff.charge, ff.dropped = lateKeyPeriod, overDropped(f, t, t)
			return
		}
	}
	if af.Counted {
		ff.dropped = Dropped(af.DurationNs, t)
		return
	}
	ff.dropped = Dropped(ff.cost, t)
}

// Android 12+ pipelines frames: the UI thread starts the next frame while RenderThread and the
// GPU finish this one, and Choreographer gives each frame a deadline that is more than one
// period (the real captures print a base of one period at 120 Hz and 20 ms at 60 Hz, plus one
// period when hwui's JankTracker finds the pipeline buffer-stuffed and writes the extension
// back into the row). A frame is late, and the display showed an old frame, only when it
// completed after the budget it really had, not after one period.

// maxSaneBudgetNs: a printed deadline further than this from its vsync is garbage (INT64_MAX is
// Android's "unknown"); such a row is treated as one without a deadline.
const maxSaneBudgetNs = 10_000_000_000

// onTimeBudget is the printed budget FrameDeadline − IntendedVsync of a frame that started on
// its intended vsync (less than t/2 late) with a sane deadline; ok=false for any other frame.
func onTimeBudget(f *source.Frame, t int64) (budget int64, ok bool) {
	if saneDeadline(f) && startVsync(f)-f.VsyncNs < t/2 {
		return f.DeadlineNs - f.VsyncNs, true
	}
	return 0, false
}

// saneDeadline reports whether a frame's printed deadline lies after its intended vsync and
// within reason: a frame with one started late; without one its deadline is garbage.
func saneDeadline(f *source.Frame) bool {
	printed := f.DeadlineNs - f.VsyncNs
	return printed > 0 && printed < maxSaneBudgetNs
}

// startVsync is the vsync a frame actually started on: StartVsyncNs, else the row's Vsync,
// else its intended vsync.
func startVsync(f *source.Frame) int64 {
	if f.StartVsyncNs > 0 {
		return f.StartVsyncNs
	}
	if f.Phases != nil && f.Phases.Vsync > 0 {
		return f.Phases.Vsync
	}
	return f.VsyncNs
}

// overDropped is the refreshes (of period t) by which a frame overran budget.
func overDropped(f *source.Frame, t, budget int64) int64 {
	return droppedOver(frameEnd(f)-f.VsyncNs, t, budget)
}

// frameEnd is when a frame was really done for the display: GpuCompleted where the row has it
// (Android 12+), else FrameCompleted.
func frameEnd(f *source.Frame) int64 {
	if f.Phases != nil && f.Phases.GpuCompleted >= f.VsyncNs && f.Phases.GpuCompleted > 0 {
		return f.Phases.GpuCompleted
	}
	return f.DoneNs
}

// droppedOver is the refreshes of period t a frame that took over ns missed with budget ns
// to make it: ⌈(over − budget) / t⌉, at least 0.
func droppedOver(over, t, budget int64) int64 {
	if d := over - budget; d > 0 && t > 0 {
		return (d-1)/t + 1
	}
	return 0
}

// windowBudget is the budget w's late-started frames are charged against: the mode of its
// on-time frames' budgets, else that of its process's other windows (the app's other windows);
// ok=false when none of them has one.
func (p *Pipeline) windowBudget(w *windowState) (int64, bool) {
	if m, ok := w.budgets.mode(); ok {
		return m, true
	}
	if w.process == "" {
		return 0, false
	}
	var all budgetTally
	for _, o := range p.windows {
		if o != w && o.process == w.process {
			for q, n := range o.budgets.counts {
				all.addSteps(q, n)
			}
		}
	}
	return all.mode()
}

// budgetQuantumNs is the resolution at which the budgets of on-time frames are tallied: printed
// budgets jitter by a few µs (16.64 vs 16.65 ms in the same steady scroll), so the mode is taken
// over 100 µs steps.
const budgetQuantumNs = 100_000

// maxBudgetKeys bounds a window's budget tally: real windows show two or three distinct
// budgets; garbage rows must not grow it.
const maxBudgetKeys = 64

// budgetTally is the per-window tally of the budgets of frames that started on their intended
// vsync, in budgetQuantumNs steps, with its running mode.
type budgetTally struct {
	counts map[int64]int64 // step → frames
	modeQ  int64           // most frequent step; ties go to the smaller step
	modeN  int64
}

// add counts a budget (ns) and keeps the mode current.
func (b *budgetTally) add(budgetNs int64) {
	b.addSteps((budgetNs+budgetQuantumNs/2)/budgetQuantumNs, 1) // (budgets are positive)
}

// addSteps counts n budgets of step q, unless the tally is full and q is new.
func (b *budgetTally) addSteps(q, n int64) {
	if _, ok := b.counts[q]; !ok && len(b.counts) >= maxBudgetKeys {
		return
	}
	if b.counts == nil {
		b.counts = make(map[int64]int64)
	}
	b.counts[q] += n
	if c := b.counts[q]; c > b.modeN || (c == b.modeN && q < b.modeQ) {
		b.modeQ, b.modeN = q, c
	}
}

// mode returns the most frequent budget in ns, ok=false before any on-time frame.
func (b *budgetTally) mode() (int64, bool) {
	if b.modeN == 0 {
		return 0, false
	}
	return b.modeQ * budgetQuantumNs, true
}

// Dropped is the number of vsyncs a frame missed with one period to make it:
// max(0, ceil(cost / T) − 1).
func Dropped(costNs, intervalNs int64) int64 {
	return droppedOver(costNs, intervalNs, intervalNs)
}

// RateHz is R: 1e9 / T rounded to the nearest whole Hz (16.60 ms → 60, 8.31 ms → 120).
func RateHz(intervalNs int64) int64 {
	if intervalNs <= 0 {
		return 0
	}
	return int64(math.Round(1e9 / float64(intervalNs)))
}

// Thresholds scales the 60 Hz drop levels to refresh rate hz: ceil(n × R / 60) vsyncs, with R
// the rate rounded to a whole Hz (60 Hz: 3/9/24/42; 90 Hz: 5/14/36/63; 120 Hz: 6/18/48/84).
func Thresholds(levels [4]int, hz int64) [4]int64 {
	var t [4]int64
	for i, n := range levels {
		t[i] = (int64(n)*hz + 59) / 60
	}
	return t
}

// level is the drop level of a frame that dropped d refreshes of interval t: Matrix's levels,
// scaled to the refresh rate.
func (p *Pipeline) level(d, t int64) Level {
	return Classify(d, Thresholds(p.cfg.DropLevels, RateHz(t)))
}

// Classify returns the drop level of a frame that dropped d vsyncs under thresholds t.
func Classify(d int64, t [4]int64) Level {
	for i := 3; i >= 0; i-- {
		if d >= t[i] {
			return Level(i + 1)
		}
	}
	return LevelBest
}
