package metrics

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/fpstop/fpstop/source"
)

// Layer metrics (SurfaceFlinger): frames as the display presented them (DESIGN §4a). A frame's
// interval is the time since the layer's previous present; the layer's pace (cadence) is its
// most common interval in display refreshes over the last second (at least 30 frames), so a
// steady 60 fps game on a 120 Hz display has cadence 2 and drops nothing. A frame's dropped is
// counted in frames at the pace: round(interval / T_pace) − 1. Frames lost between polls are
// never judged, nor the first frame after them; pauses are classed in layerpause.go.
const (
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
	shown       string // name as every output shows it (source.Visible)
	agg         *agg
	lastPresent int64
	pending     int64 // a first frame waiting for the next one to show the pace
	perInterval bool  // fed by timestats samples, not single frames
	periodNs    int64 // the display period of its last frame
	// afterGap: frames were lost before its next present, which is counted, not judged
	afterGap bool
	gapLost  int64 // frames lost before its next present
	lost     int64 // frames lost between polls
	seen     presence
	times    frameTimes // judged frame times, for the game figures
	pauses   []pauseRec
	// pausesTotal counts every pause that ended (pauses keeps the longest)
	pausesTotal int64

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
	return &layerState{name: name, shown: source.Visible(name), agg: newAgg(seriesLen), secIdx: -1, perSec: map[int64]int64{}}
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
	for l.ivLen > 0 && now-l.oldestIv().at > cadenceWindowNs {
		l.dropOldestIv()
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

func (l *layerState) oldestIv() layerIv {
	return l.ivs[(l.ivHead-l.ivLen+cadenceRingFrames)%cadenceRingFrames]
}

func (l *layerState) dropOldestIv() {
	l.counts[min(l.oldestIv().k, maxCadenceCounters-1)]--
	l.ivLen--
}

func (l *layerState) noteInterval(at, k int64) {
	if l.ivLen == cadenceRingFrames {
		l.dropOldestIv()
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
	p.countLayerFrame(l, f.PresentNs, f.PresentNs-l.lastPresent, t, l.lastPresent == 0)
}

// countLayerFrame classifies one presented frame, gap ns after the previous one (first: the
// layer's first). A pause ends as a stall (judged) or not; a frame that is not judged — the
// first, one after lost frames, one after an idle pause — has no interval: it is held until
// the next frame shows the pace, then counted as one frame at the pace, on time.
func (p *Pipeline) countLayerFrame(l *layerState, present, gap, t int64, first bool) {
	p.touch(present)
	l.periodNs = t
	if !first && !l.afterGap && gap >= layerPauseNs {
		class := p.pauseClass(l, present, gap, max(l.cadence, 1)*t)
		l.notePause(present-gap, gap, class)
		if class != PauseStall {
			first = true
		}
	}
	if first || l.afterGap {
		if !first { // the interval held the frames lost: they count for the layer's continuity
			l.seen.add(gap, 1+l.gapLost)
		}
		l.afterGap, l.gapLost = false, 0
		if l.pending > 0 {
			tp := max(l.cadence, 1) * t
			p.addLayerFacts(l, l.pending, tp, 0, tp, true)
		}
		l.pending, l.lastPresent = present, present
		return
	}
	k := max(1, int64(math.Round(float64(gap)/float64(t))))
	if l.cadence == 0 {
		l.noteInterval(present, k) // the first interval sets the pace
	}
	tp := l.cadenceK(present) * t
	if l.pending > 0 {
		p.addLayerFacts(l, l.pending, tp, 0, tp, true)
		l.pending = 0
	}
	if gap < layerPauseNs && (l.ivLen == 0 || l.ivs[(l.ivHead-1+cadenceRingFrames)%cadenceRingFrames].at != present) {
		l.noteInterval(present, k)
	}
	dropped := max(0, int64(math.Round(float64(gap)/float64(tp)))-1)
	l.times.add(gap)
	p.addLayerFacts(l, present, gap, dropped, tp, false)
	if gap < layerPauseNs {
		l.seen.add(gap, 1)
	}
	l.lastPresent = present
}

// addLayerGap marks frames lost between two polls: the layer's next frame is counted, not
// judged, and the lost frames count as presented for the layer's continuity.
func (p *Pipeline) addLayerGap(g *source.Gap) {
	p.touch(g.FromNs)
	p.touch(g.ToNs)
	l := p.layer(g.Layer)
	l.afterGap = true
	l.lost += g.Lost
	l.gapLost += g.Lost
	p.warn.add("surfaceflinger: frames lost between polls (the 127-record --latency history overran): counted in frames_lost, the frame after each gap not judged")
}

// addLayerFacts adds one frame, judged at pace t, to the layer and, for the measured layer, the
// run.
func (p *Pipeline) addLayerFacts(l *layerState, present, display, dropped, t int64, first bool) {
	ff := frameFacts{cost: display, interval: t, dropped: dropped, displayNs: display, level: p.level(dropped, t),
		android: AndroidFrame{Counted: true, DurationNs: display}}
	p.touch(present - display)
	idx := p.sliceOf(present)
	// a late frame's wait covered the slices before the one it was presented in: frozen, not idle
	startIdx := idx
	if from := present - display; from > p.originNs {
		startIdx = (from - p.originNs) / p.cfg.SliceNs
	}
	count := func(a *agg) {
		a.add(&ff, idx, present)
		a.slotEnd = max(a.slotEnd, present+t-p.originNs)
		if dropped >= 1 && startIdx < idx {
			a.markStalled(startIdx, idx-1)
		}
	}
	l.secondSlices(idx, first)
	count(l.agg)
	if p.session.Layer != l.name {
		return
	}
	count(p.total)
	p.main.lastDone = max(p.main.lastDone, present)
	p.addRecent(recentFrame{window: l.shown, vsync: present - display, cost: display, interval: t, dropped: dropped, level: ff.level, doneNs: present})
	fr := source.Frame{Window: l.shown, VsyncNs: present - display, DoneNs: present, PresentNs: present, IntervalNs: t}
	p.considerWorst(l.shown, &fr, display, dropped)
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

// stabilityPct is GameBench's FPS stability: the share of one-second slices whose FPS is
// within ±20 % of the median per-second FPS; NaN without whole slices.
func (l *layerState) stabilityPct() float64 {
	vals, n := slices.Sorted(maps.Keys(l.perSec)), l.nSec // frames per second, ascending
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
	// PaceFPS is the layer's own steady rate: the refresh rate / cadence.
	PaceFPS *R2 `json:"pace_fps"`
	// FPSP90 and FPSP99 are 1000 / the 90th and 99th percentile frame time in ms (per frame,
	// nearest rank: CapFrameX's "P10" and "P1" fps).
	FPSP90 *R2 `json:"fps_p90"`
	FPSP99 *R2 `json:"fps_p99"`
	// FPSLow1pctAvg is GameBench's "Low 1 %": the slowest 1 % of frames / their summed time.
	FPSLow1pctAvg *R2 `json:"fps_low_1pct_avg"`
	// P90FPS and P99FPS are deprecated aliases of FPSP90 and FPSP99 (same values).
	P90FPS          *R2   `json:"p90_fps"`
	P99FPS          *R2   `json:"p99_fps"`
	FPSStabilityPct *R2   `json:"fps_stability_pct"`
	SecondsMeasured int64 `json:"seconds_measured"`
	// FramesLost are frames overwritten in the --latency history between two polls.
	FramesLost int64 `json:"frames_lost"`
	// Pauses are the pauses that ended (the longest 100, in time order); PausesTotal all of them.
	Pauses      []LayerPause `json:"pauses"`
	PausesTotal int64        `json:"pauses_total"`
	Series      []SlicePoint `json:"-"`
	Totals      *Totals      `json:"-"`
}

// paceFPS is the display rate over the cadence; NaN before the pace is known.
func (l *layerState) paceFPS() float64 {
	if l.cadence <= 0 || l.periodNs <= 0 {
		return math.NaN()
	}
	return 1e9 / float64(l.periodNs*l.cadence)
}

// LayerPerfDog is PerfDog's jank counts on a layer's present intervals.
type LayerPerfDog struct {
	Jank    int64 `json:"jank"`
	BigJank int64 `json:"big_jank"`
}

// layerReports lists the layers, the measured one first, then by frames.
func (p *Pipeline) layerReports(series bool) []LayerReport {
	ls := slices.SortedFunc(maps.Values(p.layers), func(a, b *layerState) int {
		ma, mb := a.name == p.session.Layer, b.name == p.session.Layer // the measured one first
		return cmp.Or(int(b2i(mb)-b2i(ma)), cmp.Compare(b.agg.frames, a.agg.frames), cmp.Compare(a.name, b.name))
	})
	out := make([]LayerReport, 0, len(ls))
	for _, l := range ls {
		a := l.agg
		lr := LayerReport{Name: l.shown, Measured: l.name == p.session.Layer, PerInterval: l.perInterval,
			Frames: a.frames, FPS: P2(a.fps()), CadenceRefreshes: l.cadence, JankyFrames: a.janky,
			JankPct: P2(a.jankPct()), DropLevels: a.dropLevels(), PercentilesMs: a.percentiles(),
			PerfDog: LayerPerfDog{Jank: a.jank, BigJank: a.bigJank},
			PaceFPS: P2(l.paceFPS()), FPSP90: P2(l.times.fpsAt(0.9)), FPSP99: P2(l.times.fpsAt(0.99)),
			FPSLow1pctAvg: P2(l.times.low1pctAvg()), FPSStabilityPct: P2(l.stabilityPct()),
			SecondsMeasured: l.nSec, FramesLost: l.lost, Pauses: l.pauseReport(p.originNs), PausesTotal: l.pausesTotal}
		lr.P90FPS, lr.P99FPS = lr.FPSP90, lr.FPSP99
		if series {
			var t Totals
			lr.Series, t = p.seriesTotals(a, -1)
			lr.Totals = &t
		}
		out = append(out, lr)
	}
	return out
}
