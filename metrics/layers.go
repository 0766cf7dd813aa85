package metrics

import (
	"fmt"
	"math"
	"sort"

	"github.com/fpstop/fpstop/internal/hwui"
	"github.com/fpstop/fpstop/source"
)

// Layer metrics (SurfaceFlinger): frames as the display presented them. A frame's interval is
// the time since the layer's previous present, in display refreshes; the layer's cadence is the
// most common interval over the last second (at least 30 frames), so a steady 60 fps game on a
// 120 Hz display has cadence 2 and drops nothing. A frame's dropped refreshes are its interval
// less the cadence, never below 0. A pause of up to 5 s is a freeze (its refreshes are
// dropped); a longer one is idle (the game is paused or in the background).
const (
	layerFrozenMaxNs   = 5_000_000_000
	cadenceWindowNs    = 1_000_000_000
	cadenceMinFrames   = 30
	maxLayers          = 64
	otherLayers        = "(other layers)"
	cadenceRingFrames  = 512
	maxCadenceCounters = 64
)

// layerIv is one present interval kept for the cadence.
type layerIv struct {
	at int64
	k  int64
}

// layerState is one SurfaceFlinger layer.
type layerState struct {
	name        string
	agg         *agg
	lastPresent int64
	pending     int64 // a first frame waiting for the next one to show the pace
	perInterval bool  // fed by timestats samples, not single frames

	// cadence: the intervals of the last second in a ring, their counts by size
	ivs     [cadenceRingFrames]layerIv
	ivHead  int
	ivLen   int
	counts  [maxCadenceCounters]int32
	cadence int64

	// frames per whole one-second slice, for p90/p99 fps and stability
	secIdx    int64 // slice being filled; -1 none
	secFrames int64
	secSkip   bool // the slice being filled started mid-way (first frame, after idle)
	perSec    map[int64]int64
	nSec      int64
}

func newLayerState(name string, seriesLen int) *layerState {
	return &layerState{name: name, agg: newAgg(seriesLen), secIdx: -1, perSec: map[int64]int64{}}
}

func (p *Pipeline) layer(name string) *layerState {
	if l := p.layers[name]; l != nil {
		return l
	}
	if len(p.layers) >= maxLayers {
		if l := p.layers[otherLayers]; l != nil {
			return l
		}
		p.warn.add(fmt.Sprintf("more than %d layers: the rest are counted as %q", maxLayers, otherLayers))
		name = otherLayers
	}
	l := newLayerState(name, p.cfg.SeriesLen)
	p.layers[name] = l
	return l
}

// cadenceK is the layer's cadence in refreshes: the most common interval of the last second
// when it holds at least 30 frames; before that, the most common so far; at least 1.
func (l *layerState) cadenceK(now int64) int64 {
	for l.ivLen > 0 {
		old := &l.ivs[(l.ivHead-l.ivLen+cadenceRingFrames)%cadenceRingFrames]
		if now-old.at <= cadenceWindowNs {
			break
		}
		l.counts[min(old.k, maxCadenceCounters-1)]--
		l.ivLen--
	}
	if l.ivLen >= cadenceMinFrames || l.cadence == 0 && l.ivLen > 0 {
		best := int64(1)
		for k := 1; k < maxCadenceCounters; k++ {
			if l.counts[k] > l.counts[best] {
				best = int64(k)
			}
		}
		l.cadence = best
	}
	return max(l.cadence, 1)
}

func (l *layerState) noteInterval(at, k int64) {
	if l.ivLen == cadenceRingFrames {
		old := &l.ivs[(l.ivHead-l.ivLen+cadenceRingFrames)%cadenceRingFrames]
		l.counts[min(old.k, maxCadenceCounters-1)]--
		l.ivLen--
	}
	l.ivs[l.ivHead] = layerIv{at: at, k: k}
	l.ivHead = (l.ivHead + 1) % cadenceRingFrames
	l.ivLen++
	l.counts[min(k, maxCadenceCounters-1)]++
}

// layerPeriod is T for a layer frame: the period the dump printed, else the refresh rate.
func (p *Pipeline) layerPeriod(periodNs int64) int64 {
	if periodNs >= minIntervalNs && periodNs <= maxIntervalNs {
		return periodNs
	}
	return p.currentInterval()
}

func (p *Pipeline) addLayerFrame(f *source.LayerFrame) {
	if f.PresentNs <= 0 {
		p.warn.add("layer frames with impossible timestamps ignored")
		return
	}
	l := p.layer(f.Layer)
	if f.PresentNs <= l.lastPresent {
		p.warn.add("layer frames repeated or out of order ignored")
		return
	}
	t := p.layerPeriod(f.PeriodNs)
	gap := f.PresentNs - l.lastPresent
	first := l.lastPresent == 0 || gap > layerFrozenMaxNs
	p.countLayerFrame(l, f.PresentNs, gap, t, first)
}

// countLayerFrame classifies one presented frame (gap ns after the previous one; first: after
// the start or an idle pause). A first frame has no interval yet: it is held until the next
// frame shows the pace, then counted as one cadence on time.
func (p *Pipeline) countLayerFrame(l *layerState, present, gap, t int64, first bool) {
	p.touch(present)
	if first {
		if l.pending > 0 {
			p.addLayerFacts(l, l.pending, max(l.cadence, 1)*t, 0, t, true)
		}
		l.pending, l.lastPresent = present, present
		return
	}
	k := max(1, int64(math.Round(float64(gap)/float64(t))))
	if l.cadence == 0 {
		l.noteInterval(present, k) // the first interval sets the pace
	}
	c := l.cadenceK(present)
	if l.pending > 0 {
		p.addLayerFacts(l, l.pending, c*t, 0, t, true)
		l.pending = 0
	}
	if l.ivLen == 0 || l.ivs[(l.ivHead-1+cadenceRingFrames)%cadenceRingFrames].at != present {
		l.noteInterval(present, k)
	}
	p.addLayerFacts(l, present, gap, max(0, k-c), t, false)
	l.lastPresent = present
}

// addLayerFacts adds one classified frame to the layer and, for the measured layer, the run.
func (p *Pipeline) addLayerFacts(l *layerState, present, display, dropped, t int64, first bool) {
	ff := frameFacts{cost: display, interval: t, dropped: dropped, displayNs: display, histNs: display, inHist: true,
		histIdx: hwui.Index(display)}
	ff.level = Classify(dropped, p.thresholdsFor(RateHz(t)))
	p.touch(present - display)
	idx := int64(0)
	if present > p.originNs {
		idx = (present - p.originNs) / p.cfg.SliceNs
	}
	// a late frame's wait covered the slices before the one it was presented in: frozen, not idle
	startIdx := idx
	if from := present - display; from > p.originNs {
		startIdx = (from - p.originNs) / p.cfg.SliceNs
	}
	l.secondSlices(idx, first)
	l.agg.add(&ff, idx, present)
	slotEnd := present + t - p.originNs
	l.agg.slotEnd = max(l.agg.slotEnd, slotEnd)
	if dropped >= 1 && startIdx < idx {
		l.agg.markStalled(startIdx, idx-1)
	}
	if p.session.Layer != l.name {
		return
	}
	p.total.add(&ff, idx, present)
	p.main.lastDone = max(p.main.lastDone, present)
	p.total.slotEnd = max(p.total.slotEnd, slotEnd)
	if dropped >= 1 && startIdx < idx {
		p.total.markStalled(startIdx, idx-1)
	}
	rf := &p.recent[p.rhead]
	*rf = recentFrame{window: l.name, vsync: present - display, cost: display, interval: t, dropped: dropped, level: ff.level, doneNs: present}
	p.rhead = (p.rhead + 1) % len(p.recent)
	p.rlen = min(p.rlen+1, len(p.recent))
	fr := source.Frame{Window: l.name, VsyncNs: present - display, DoneNs: present, PresentNs: present, IntervalNs: t}
	p.considerWorst(l.name, &fr, display, dropped)
	if p.onFrame != nil {
		p.onFrame(ClassifiedFrame{Frame: fr, IntervalNs: t, CostNs: display, Dropped: dropped, Level: ff.level})
	}
}

// secondSlices counts frames per one-second slice. Slices passed without a frame during a
// freeze count as 0 fps; during an idle pause they are not counted, nor the partial slices a
// run of frames starts in.
func (l *layerState) secondSlices(idx int64, first bool) {
	if l.secIdx < 0 {
		l.secIdx, l.secSkip = idx, true
	}
	if idx > l.secIdx {
		if !l.secSkip {
			l.perSec[l.secFrames]++
			l.nSec++
		}
		if !first {
			l.perSec[0] += idx - l.secIdx - 1
			l.nSec += idx - l.secIdx - 1
		}
		l.secIdx, l.secFrames, l.secSkip = idx, 0, first
	} else if first && l.secFrames == 0 {
		l.secSkip = true
	}
	l.secFrames++
}

// addLayerSample spreads a timestats interval's frames over the interval, one per
// present-to-present histogram count (bucket centre, rounded to whole refreshes).
func (p *Pipeline) addLayerSample(s *source.LayerSample) {
	if s.ToNs <= s.FromNs || s.Frames <= 0 {
		p.touch(s.ToNs)
		return
	}
	l := p.layer(s.Layer)
	l.perInterval = true
	t := p.layerPeriod(s.PeriodNs)
	var gaps []int64
	for _, b := range s.Present2Present {
		g := int64((float64(b.Ms) + 0.5) * 1e6)
		if k := int64(math.Round(float64(g) / float64(t))); k >= 1 {
			g = k * t
		}
		for i := int64(0); i < b.Count && int64(len(gaps)) < s.Frames; i++ {
			gaps = append(gaps, g)
		}
	}
	for int64(len(gaps)) < s.Frames { // frames the histogram did not place: evenly spaced
		gaps = append(gaps, (s.ToNs-s.FromNs)/s.Frames)
	}
	step := (s.ToNs - s.FromNs) / int64(len(gaps))
	for i, g := range gaps {
		at := s.FromNs + int64(i+1)*step
		first := l.lastPresent == 0
		if at <= l.lastPresent {
			at = l.lastPresent + 1
		}
		p.countLayerFrame(l, at, g, t, first)
	}
}

// addLayerPoll adds the frames a poll provably missed to frames_lost.
func (p *Pipeline) addLayerPoll(e *source.LayerPoll) {
	p.touch(e.AtNs)
	p.notePoll(e.AtNs)
	p.lostKnown = true
	if e.Lost > 0 {
		p.framesLost += e.Lost
	}
}

// perSecondFPS returns the one-second slices' frame counts, ascending, with their slice counts.
func (l *layerState) perSecondFPS() (vals []int64, n int64) {
	for v := range l.perSec {
		vals = append(vals, v)
	}
	sort.Slice(vals, func(i, j int) bool { return vals[i] < vals[j] })
	return vals, l.nSec
}

// atRank returns the value at 0-based rank r of the sorted multiset (vals with counts).
func (l *layerState) atRank(vals []int64, r int64) int64 {
	var cum int64
	for _, v := range vals {
		cum += l.perSec[v]
		if cum > r {
			return v
		}
	}
	return 0
}

// pFPS is the per-second FPS that share q (0.9, 0.99) of the one-second slices reach or
// exceed; NaN without whole slices.
func (l *layerState) pFPS(q float64) float64 {
	vals, n := l.perSecondFPS()
	if n == 0 {
		return math.NaN()
	}
	r := n - int64(math.Ceil(q*float64(n)-1e-9))
	return float64(l.atRank(vals, max(r, 0)))
}

// stabilityPct is GameBench's FPS stability: the share of one-second slices whose FPS is
// within ±20 % of the median per-second FPS; NaN without whole slices.
func (l *layerState) stabilityPct() float64 {
	vals, n := l.perSecondFPS()
	if n == 0 {
		return math.NaN()
	}
	med := float64(l.atRank(vals, (n-1)/2))
	if n%2 == 0 {
		med = (med + float64(l.atRank(vals, n/2))) / 2
	}
	var in int64
	for _, v := range vals {
		if math.Abs(float64(v)-med) <= 0.2*med+1e-9 {
			in += l.perSec[v]
		}
	}
	return float64(in) * 100 / float64(n)
}

// LayerReport is one SurfaceFlinger layer's numbers in the report (`layers[]`).
type LayerReport struct {
	Name             string       `json:"name"`
	Measured         bool         `json:"measured"`
	PerInterval      bool         `json:"per_interval"`
	Frames           int64        `json:"frames"`
	FPS              *R2          `json:"fps"`
	CadenceRefreshes int64        `json:"cadence_refreshes"`
	JankyFrames      int64        `json:"janky_frames"`
	JankPct          *R2          `json:"jank_pct"`
	DropLevels       DropLevels   `json:"drop_levels"`
	PercentilesMs    *Percentiles `json:"percentiles_ms"`
	PerfDog          LayerPerfDog `json:"perfdog"`
	P90FPS           *R2          `json:"p90_fps"`
	P99FPS           *R2          `json:"p99_fps"`
	FPSStabilityPct  *R2          `json:"fps_stability_pct"`
	SecondsMeasured  int64        `json:"seconds_measured"`
	Series           []SlicePoint `json:"-"`
	Totals           *Totals      `json:"-"`
}

// LayerPerfDog is PerfDog's jank counts on a layer's present intervals.
type LayerPerfDog struct {
	Jank    int64 `json:"jank"`
	BigJank int64 `json:"big_jank"`
}

// layerReports lists the layers, the measured one first, then by frames.
func (p *Pipeline) layerReports(series bool) []LayerReport {
	ls := make([]*layerState, 0, len(p.layers))
	for _, l := range p.layers {
		ls = append(ls, l)
	}
	sort.Slice(ls, func(i, j int) bool {
		mi, mj := ls[i].name == p.session.Layer, ls[j].name == p.session.Layer
		if mi != mj {
			return mi
		}
		if ls[i].agg.frames != ls[j].agg.frames {
			return ls[i].agg.frames > ls[j].agg.frames
		}
		return ls[i].name < ls[j].name
	})
	lastIdx, lastLen := p.lastSlice()
	out := make([]LayerReport, 0, len(ls))
	for _, l := range ls {
		a := l.agg
		lr := LayerReport{Name: l.name, Measured: l.name == p.session.Layer, PerInterval: l.perInterval,
			Frames: a.frames, FPS: P2(a.fps()), CadenceRefreshes: l.cadence, JankyFrames: a.janky,
			JankPct: P2(a.jankPct()), DropLevels: a.dropLevels(), PercentilesMs: a.percentiles(),
			PerfDog: LayerPerfDog{Jank: a.jank, BigJank: a.bigJank},
			P90FPS:  P2(l.pFPS(0.9)), P99FPS: P2(l.pFPS(0.99)), FPSStabilityPct: P2(l.stabilityPct()),
			SecondsMeasured: l.nSec}
		if series {
			lr.Series = a.series(0, lastIdx, p.cfg.SliceNs, p.originNs, p.cfg.SeriesLen, -1)
			t := a.totals(lastIdx, lastLen, p.cfg.SliceNs, lr.Series)
			lr.Totals = &t
		}
		out = append(out, lr)
	}
	return out
}
