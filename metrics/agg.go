package metrics

import (
	"maps"
	"math"
	"slices"

	"github.com/fpstop/fpstop/internal/hwui"
	"github.com/fpstop/fpstop/source"
)

// PerfDog's thresholds: two and three film frames at 24 fps.
const (
	perfdogJankNs    int64 = 83_333_333  // two film frames at 24 fps: 83.33 ms
	perfdogBigJankNs int64 = 125_000_000 // three film frames: 125 ms
	maxDisplayKeys         = 4096
)

// slice is one time slice's accumulators.
type slice struct {
	idx       int64 // absolute slice index since the origin; -1 = empty ring cell
	frames    int32
	janky     int32
	displayNs int64 // Σ (dropped+1)·T
	// stalled: a late frame's span (its vsync to its completion) covered the slice: it was not
	// idle even without a frame of its own (DESIGN §4: frozen, not idle).
	stalled bool
	// unseen: a gap (the device disconnected, the adb server down) covered the slice: fpstop
	// could not see what the app did, so it is not drawn as the app's idle time.
	unseen bool
}

// sliceRing keeps the last n slices, addressed by absolute index.
type sliceRing struct {
	cells []slice
}

func newSliceRing(n int) sliceRing {
	r := sliceRing{cells: make([]slice, n)}
	for i := range r.cells {
		r.cells[i].idx = -1
	}
	return r
}

// at returns the cell for idx, recycling an older one; nil when idx is older than the ring.
func (r *sliceRing) at(idx int64) *slice {
	c := &r.cells[idx%int64(len(r.cells))]
	if c.idx > idx {
		return nil // that cell already holds a newer slice: idx fell out of the ring
	}
	if c.idx < idx {
		*c = slice{idx: idx}
	}
	return c
}

// get returns the cell for idx if the ring still holds it.
func (r *sliceRing) get(idx int64) *slice {
	if idx < 0 {
		return nil
	}
	c := &r.cells[idx%int64(len(r.cells))]
	if c.idx == idx {
		return c
	}
	return nil
}

// countFrame is aggregation, the stage after classification: frame f of window w, done at
// end, with its verdict ff, moves the session clock and is counted in its window's aggregate
// and the run's, or in its window's only while a layer is measured (measured.go).
func (p *Pipeline) countFrame(f *source.Frame, w *windowState, ff *frameFacts, end int64) {
	if f.Timeline != nil {
		p.addTimeline(f, w)
	}
	vsync := f.VsyncNs
	if !f.History {
		// A frame drawn before a live session started is history: it sets neither the
		// session's origin nor a slice (DESIGN §4).
		p.touch(vsync)
		p.touch(end)
		p.main.noteFrame(f, vsync, end)
	}
	idx := p.sliceOf(vsync)
	ff.endIdx = idx
	if ff.dropped >= 1 {
		ff.endIdx = p.sliceOf(end)
	}
	if ff.late {
		p.keepLate(w, f, ff, idx, end) // before it counts: PerfDog's previous frames as it saw them
	}
	// While a layer is measured, a window's frames are the window's only (measured.go).
	measured := p.session.Layer == ""
	w.agg.add(ff, idx, vsync)
	if measured {
		p.total.add(ff, idx, vsync)
		if !ff.history {
			w.agg.bursts.add(vsync, vsync+ff.cost, ff.interval)
		}
	}
	if !f.History {
		// A frame occupies its refresh: the slice it falls in is at least that long for
		// fps_wall, so a rate never exceeds R in a slice the session is still in.
		slotEnd := vsync + ff.interval - p.originNs
		if measured {
			p.total.slotEnd = max(p.total.slotEnd, slotEnd)
		}
		w.agg.slotEnd = max(w.agg.slotEnd, slotEnd)
	}
}

// sliceOf is the index of the slice at (device time) falls in; 0 at or before the origin.
func (p *Pipeline) sliceOf(at int64) int64 {
	if at <= p.originNs {
		return 0
	}
	return (at - p.originNs) / p.cfg.SliceNs
}

// agg aggregates frames: the whole run, or one window.
type agg struct {
	frames, janky, flagged int64
	// rateFrames are the frames that count in rates: all but history frames (DESIGN §4).
	rateFrames int64
	// histFrames and histNs are the history frames and their Σ (dropped + 1)·T: the first
	// figure a live screen can show at once, labelled as history, never in fps (DESIGN §4)
	histFrames, histNs int64
	// refreshes, for the run's aggregate only (slots != nil): display refreshes on which at least
	// one window showed a new frame — two windows drawing on the same vsync count once, so the
	// run's fps_wall can never exceed the refresh rate (DESIGN §4).
	slots     *slotSet
	refreshes int64
	// slotEnd is the end of the newest rate frame's refresh (vsync + T), from the origin.
	slotEnd       int64
	jankyDeadline int64
	hasDeadline   bool
	// Android's legacy rule, over frames with a completion time (not Looper-derived ones)
	jankyLegacy int64
	legacyKnown bool
	// levels counts frames per drop level, indexed by Level (Classify's 0..4); dropLevels
	// names them.
	levels    [len(Levels)]int64
	displayNs int64 // Σ (dropped+1)·T
	hist      hwui.Histogram
	dropped   int64 // Σ dropped
	histSumNs int64 // Σ of the frame times counted in hist
	// display time → count, for the exact 1 % low (values are few: multiples of T).
	display map[int64]int64

	// PerfDog: the previous three frame times.
	prev     [3]int64
	nprev    int
	jank     int64
	bigJank  int64
	stutterN int64 // Σ frame time of jank frames

	// slices
	ring        sliceRing
	nonIdle     int64 // slices that had at least one frame
	lastFrameNs int64

	// bursts: a window's active time, its fps_wall's denominator (windows only: countFrame)
	bursts bursts
}

func newAgg(seriesLen int) *agg {
	return &agg{display: make(map[int64]int64, 8), ring: newSliceRing(seriesLen)}
}

// add counts frame ff in a: every frame in the counts, a rate frame (not history) in the rates
// and the slices too.
func (a *agg) add(ff *frameFacts, sliceIdx int64, vsync int64) {
	a.frames++
	if ff.dropped >= 1 {
		a.janky++
	}
	if ff.flagged {
		a.flagged++
	}
	if ff.android.HasDeadline {
		a.hasDeadline = true
		if ff.android.DeadlineJanky {
			a.jankyDeadline++
		}
	}
	if ff.legacyKnown {
		a.legacyKnown = true
		if ff.android.LegacyJanky {
			a.jankyLegacy++
		}
	}
	a.levels[ff.level]++
	a.dropped += ff.dropped
	if af := ff.android; af.Counted {
		a.hist.Add(af.DurationNs)
		a.histSumNs += af.DurationNs
	}
	a.lastFrameNs = max(a.lastFrameNs, vsync)
	if ff.history {
		a.histFrames++ // never in a rate or a slice
		a.histNs += ff.displayNs
		return
	}
	a.rateFrames++
	a.displayNs += ff.displayNs
	if a.slots != nil && a.slots.add(vsync/vsyncKeyNs) {
		a.refreshes++ // the run's only: windows drawing for one refresh count it once
	}
	a.addDisplay(ff.displayNs)
	a.perfDog(ff.displayNs)
	if ff.dropped >= 1 && ff.endIdx > sliceIdx {
		a.markStalled(sliceIdx+1, ff.endIdx)
	}
	a.addSlice(sliceIdx, ff.dropped >= 1, ff.displayNs)
}

// addDisplay counts a rate frame's display time ns for the 1 % low. Past maxDisplayKeys
// distinct times (a pathological spread of frame intervals) a new time is folded into the
// nearest larger key, so the map stays bounded and the 1 % low conservative.
func (a *agg) addDisplay(ns int64) {
	key := ns
	if len(a.display) >= maxDisplayKeys {
		if _, ok := a.display[key]; !ok {
			key = foldKey(a.display, key)
		}
	}
	a.display[key]++
}

// perfDog counts a rate frame of display time ft in PerfDog's jank.
func (a *agg) perfDog(ft int64) {
	if jank, big := perfDogJank(ft, a.prev, a.nprev); jank {
		a.jank++
		a.stutterN += ft
		a.bigJank += b2i(big)
	}
	a.prev[0], a.prev[1], a.prev[2] = a.prev[1], a.prev[2], ft
	a.nprev = min(a.nprev+1, 3)
}

// perfDogJank is PerfDog's rule for a frame time ft after the n (up to three) frame times prev:
// jank when over 2× the mean of the previous three and over 83.33 ms, big jank over 125 ms.
func perfDogJank(ft int64, prev [3]int64, n int) (jank, big bool) {
	if ft <= perfdogJankNs || n < 3 {
		return false, false
	}
	jank = ft > 2*(prev[0]+prev[1]+prev[2])/3
	return jank, jank && ft > perfdogBigJankNs
}

// addSlice counts a rate frame in the slice sliceIdx.
func (a *agg) addSlice(sliceIdx int64, janky bool, displayNs int64) {
	c := a.ring.at(sliceIdx)
	if c == nil {
		return // older than the ring
	}
	if c.frames == 0 && !c.stalled {
		a.nonIdle++
	}
	c.frames++
	c.displayNs += displayNs
	if janky {
		c.janky++
	}
}

// markStalled marks slices from..to as covered by a late frame: not idle.
func (a *agg) markStalled(from, to int64) {
	a.eachSlice(from, to, func(c *slice) {
		if !c.stalled && c.frames == 0 {
			a.nonIdle++
		}
		c.stalled = true
	})
}

// markUnseen marks slices from..to as covered by a gap. They stay out of the rates as idle
// slices do.
func (a *agg) markUnseen(from, to int64) { a.eachSlice(from, to, func(c *slice) { c.unseen = true }) }

// eachSlice calls fn with the cells of slices from..to (inclusive, at most the ring's length).
func (a *agg) eachSlice(from, to int64, fn func(*slice)) {
	for i := max(from, to-int64(len(a.ring.cells))+1, 0); i <= to; i++ {
		if c := a.ring.at(i); c != nil {
			fn(c)
		}
	}
}

// foldKey is the key of m a new value v is counted under once m is full: the smallest key at
// or above v, else the largest key.
func foldKey(m map[int64]int64, v int64) int64 {
	above, top := int64(math.MaxInt64), int64(math.MinInt64)
	for k := range m {
		if k >= v {
			above = min(above, k)
		}
		top = max(top, k)
	}
	if above == math.MaxInt64 {
		return top
	}
	return above
}

// dropLevels is levels as the reports name them (what DropLevels.add would have counted).
func (a *agg) dropLevels() DropLevels {
	return DropLevels{
		Best: a.levels[LevelBest], Normal: a.levels[LevelNormal], Middle: a.levels[LevelMiddle],
		High: a.levels[LevelHigh], Frozen: a.levels[LevelFrozen],
	}
}

// fps is frames / Σ(dropped+1)·T, NaN without frames.
func (a *agg) fps() float64 {
	if a.rateFrames == 0 || a.displayNs == 0 {
		return math.NaN()
	}
	return float64(a.rateFrames) * 1e9 / float64(a.displayNs)
}

// low1pct is 1000 / (99th percentile of (dropped+1)·T in ms), nearest rank.
func (a *agg) low1pct() float64 {
	if a.rateFrames == 0 {
		return math.NaN()
	}
	rank := int64(math.Ceil(0.99 * float64(a.rateFrames))) // 1-based nearest rank
	var cum int64
	for _, k := range slices.Sorted(maps.Keys(a.display)) {
		cum += a.display[k]
		if cum >= rank {
			return 1e12 / float64(k) / 1e3 // 1000 / (k ns / 1e6 ms)
		}
	}
	return math.NaN()
}

// percentiles are nil with no frames, and with none in the histogram: frames made from Looper
// messages have no frame time, and an empty histogram's 4950 ms (what Android prints for a
// window without frames) would read as every frame taking five seconds.
func (a *agg) percentiles() *Percentiles {
	if a.frames == 0 || a.hist.Total == 0 {
		return nil
	}
	return &Percentiles{
		P50: R2(a.hist.Percentile(50)), P90: R2(a.hist.Percentile(90)),
		P95: R2(a.hist.Percentile(95)), P99: R2(a.hist.Percentile(99)),
	}
}

// histogram is the non-empty buckets (never nil: a report prints [] without frames).
func (a *agg) histogram() []HistogramBucket {
	out := []HistogramBucket{}
	for i, c := range a.hist.Counts {
		if c > 0 {
			out = append(out, HistogramBucket{Ms: hwui.BucketMs(i), Count: c})
		}
	}
	return out
}

// nonIdleNs is the total length of slices with frames: whole slices, except the last one,
// which is as long as the run has reached into it.
func (a *agg) nonIdleNs(lastIdx, lastLen, sliceNs int64) int64 {
	n := a.nonIdle * sliceNs
	if c := a.ring.get(lastIdx); c != nil && (c.frames > 0 || c.stalled) {
		n -= sliceNs - lastLen
	}
	return n
}

// fpsWall is frames per second of active time: for a window, its rate frames over its bursts;
// for the run (and a layer), display refreshes with a new frame over the non-idle slices.
func (a *agg) fpsWall(lastIdx, lastLen, sliceNs int64) float64 {
	if a.bursts.n > 0 && a.slots == nil {
		if d := a.bursts.activeNs(); a.rateFrames > 0 && d > 0 {
			return float64(a.rateFrames) * 1e9 / float64(d)
		}
		return math.NaN()
	}
	// The slice the session is in lasts at least to the end of its newest frame's refresh.
	if l := a.slotEnd - lastIdx*sliceNs; l > lastLen && lastIdx >= 0 {
		lastLen = min(l, sliceNs)
	}
	d := a.nonIdleNs(lastIdx, lastLen, sliceNs)
	if a.rateFrames == 0 || d <= 0 {
		return math.NaN()
	}
	n := a.rateFrames
	if a.slots != nil {
		n = a.refreshes
	}
	return float64(n) * 1e9 / float64(d)
}

// androidJank returns Android's two janky counts computed from the rows: the Android 12+
// deadline rule (nil when no frame carried a deadline) and the legacy rule (nil when no frame
// had a completion time, e.g. Looper-derived frames only).
func (a *agg) androidJank() (deadline, legacy *int64) {
	if a.hasDeadline {
		n := a.jankyDeadline
		deadline = &n
	}
	if a.legacyKnown {
		n := a.jankyLegacy
		legacy = &n
	}
	return deadline, legacy
}

func (a *agg) jankPct() float64 {
	if a.frames == 0 {
		return math.NaN()
	}
	return float64(a.janky) * 100 / float64(a.frames)
}

// series returns the last n slices up to last (inclusive) that the ring still holds. Slices
// from openIdx on (≥ 0: a main-thread dispatch has been open since then) are frozen.
func (a *agg) series(last int64, sliceNs, originNs int64, n int, openIdx int64) []SlicePoint {
	if last < 0 {
		return nil
	}
	first := max(last-int64(n)+1, 0)
	out := make([]SlicePoint, 0, last-first+1)
	for i := first; i <= last; i++ {
		sp := SlicePoint{StartNs: originNs + i*sliceNs, FPS: math.NaN(), Partial: i == last}
		c := a.ring.get(i)
		switch {
		case c != nil && c.frames > 0:
			sp.Frames = int(c.frames)
			sp.Janky = int(c.janky)
			sp.FPS = float64(c.frames) * 1e9 / float64(c.displayNs)
		case c != nil && c.stalled, openIdx >= 0 && i >= openIdx:
			sp.Frozen = true
		default:
			sp.Idle = true
			sp.Gap = c != nil && c.unseen
		}
		out = append(out, sp)
	}
	return out
}

func (a *agg) totals(lastIdx, lastLen, sliceNs int64, series []SlicePoint) Totals {
	t := Totals{
		Frames: a.frames, Janky: a.janky,
		FPS: a.fps(), FPSWall: a.fpsWall(lastIdx, lastLen, sliceNs), JankPct: a.jankPct(),
		DropLevels: a.dropLevels(), Percentiles: a.percentiles(),
		Dropped: a.dropped, HistSumNs: a.histSumNs,
		MinFPS: math.NaN(), AvgFPS: math.NaN(), MaxFPS: math.NaN(), HistoryFPS: math.NaN(),
	}
	if a.histFrames > 0 && a.histNs > 0 {
		t.HistoryFPS = float64(a.histFrames) * 1e9 / float64(a.histNs)
	}
	var sum float64
	var n int
	for _, s := range series {
		if s.Idle || s.Frozen || s.Partial {
			continue
		}
		if n == 0 || s.FPS < t.MinFPS {
			t.MinFPS = s.FPS
		}
		if n == 0 || s.FPS > t.MaxFPS {
			t.MaxFPS = s.FPS
		}
		sum += s.FPS
		n++
	}
	if n > 0 {
		t.AvgFPS = sum / float64(n)
	}
	return t
}

// vsyncKeyNs: frames of different windows drawn for the same vsync carry the same intended vsync
// timestamp; keys at 1 ms resolution (well under the 6.9 ms period at 144 Hz) tolerate rounding.
const vsyncKeyNs = 1_000_000

// slotSet remembers the last slotKeys vsync keys seen, so frames of several windows for one
// refresh count once; memory stays bounded over any run (frames arrive in near time order).
type slotSet struct {
	ring  [slotKeys]int64 // the keys in the order added, the oldest overwritten
	added int64           // keys added so far
	held  map[int64]bool  // the keys ring holds (each once)
}

const slotKeys = 256

func newSlotSet() *slotSet { return &slotSet{held: make(map[int64]bool, slotKeys)} }

// add records key and reports whether it was new.
func (s *slotSet) add(key int64) bool {
	if s.held[key] {
		return false
	}
	i := s.added % slotKeys
	if s.added >= slotKeys {
		delete(s.held, s.ring[i])
	}
	s.ring[i], s.held[key] = key, true
	s.added++
	return true
}
