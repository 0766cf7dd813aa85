package html

import (
	"github.com/fpstop/fpstop/metrics"
)

// Frame classes of the charts, from on time to frozen. A frame is janky when it dropped at
// least one vsync (the report's janky_frames); its class then follows its drop level, with
// janky frames below Matrix's NORMAL level drawn as NORMAL.
const (
	clsOK = iota
	clsJ1 // janky, below MIDDLE
	clsJ2 // MIDDLE
	clsJ3 // HIGH
	clsFrozen
	numCls
)

var clsNames = [numCls]string{"ok", "j1", "j2", "j3", "fz"}

// clsLabels are the legend's words for each class.
var clsLabels = [numCls]string{"on time", "janky", "janky: middle", "janky: high", "frozen"}

func classOf(dropped int64, l metrics.Level) int {
	switch {
	case l == metrics.LevelFrozen:
		return clsFrozen
	case l == metrics.LevelHigh:
		return clsJ3
	case l == metrics.LevelMiddle:
		return clsJ2
	case dropped > 0 || l == metrics.LevelNormal:
		return clsJ1
	}
	return clsOK
}

// frameRec is one counted frame, as small as the charts need (a 1 h 120 Hz session holds
// 432 000 of them).
type frameRec struct {
	vsync   int64
	costMs  float32
	dropped int32
	cls     uint8
}

// phaseAcc sums the phases of a set of frames.
type phaseAcc struct {
	n   int64
	sum metrics.PhaseMs
}

func (a *phaseAcc) add(p *metrics.PhaseMs) {
	a.n++
	a.sum.Delay += p.Delay
	a.sum.Input += p.Input
	a.sum.Animation += p.Animation
	a.sum.Layout += p.Layout
	a.sum.Draw += p.Draw
	a.sum.Sync += p.Sync
	a.sum.GPU += p.GPU
}

// mean returns the average phases (zero when empty).
func (a *phaseAcc) mean() metrics.PhaseMs {
	if a.n == 0 {
		return metrics.PhaseMs{}
	}
	n := float64(a.n)
	s := a.sum
	return metrics.PhaseMs{Delay: s.Delay / n, Input: s.Input / n, Animation: s.Animation / n,
		Layout: s.Layout / n, Draw: s.Draw / n, Sync: s.Sync / n, GPU: s.GPU / n}
}

// phaseFrame is one of the costliest frames whose phases are known.
type phaseFrame struct {
	vsync  int64
	window string
	costMs float64
	ph     metrics.PhaseMs
}

// maxPhaseFrames is how many of the costliest frames the phase chart shows.
const maxPhaseFrames = 8

// exactFrames is how many frames the page keeps one by one (an hour at 120 Hz fits). Past it
// the frames are summarised into time bins as the recording is read, so a day-long recording is
// drawn in bounded memory; frozen frames and, up to detailJanky, janky frames stay single.
const exactFrames = 1 << 19

// frameSet gathers a recording's frames for drawing.
type frameSet struct {
	frames       []frameRec // every frame while n <= exactFrames, nil once binned
	n            int        // frames added
	bins         *binSet    // the summary once past exactFrames (nil before)
	frozen       []frameRec // frozen frames, kept once binned
	janky        []frameRec // janky, not frozen, once binned: nil when over detailJanky
	jankyOver    bool       // more than detailJanky janky frames were seen once binned
	count        [numCls]int
	minNs, maxNs int64 // earliest vsync, latest vsync + cost
	maxCostMs    float64
	all, jankyPh phaseAcc
	worst        []phaseFrame // costliest first
}

// add records one classified frame (metrics.Pipeline.OnFrame order).
func (fs *frameSet) add(c *metrics.ClassifiedFrame) {
	cls := classOf(c.Dropped, c.Level)
	v := c.Frame.VsyncNs
	rec := frameRec{vsync: v, costMs: float32(float64(c.CostNs) / 1e6), dropped: int32(min(c.Dropped, 1<<30)), cls: uint8(cls)}
	fs.n++
	if fs.bins == nil {
		fs.frames = append(fs.frames, rec)
		if len(fs.frames) > exactFrames {
			fs.toBins()
		}
	} else {
		fs.bin(rec)
	}
	fs.count[cls]++
	if fs.n == 1 || v < fs.minNs {
		fs.minNs = v
	}
	if e := v + max(c.CostNs, 0); fs.n == 1 || e > fs.maxNs {
		fs.maxNs = e
	}
	cost := float64(c.CostNs) / 1e6
	fs.maxCostMs = max(fs.maxCostMs, cost)
	ph := metrics.FramePhases(&c.Frame)
	if ph == nil {
		return
	}
	fs.all.add(ph)
	if cls != clsOK {
		fs.jankyPh.add(ph)
	}
	n := len(fs.worst)
	if n == maxPhaseFrames && cost <= fs.worst[n-1].costMs {
		return
	}
	pf := phaseFrame{vsync: v, window: c.Frame.Window, costMs: cost, ph: *ph}
	i := n
	for i > 0 && fs.worst[i-1].costMs < cost {
		i--
	}
	if n < maxPhaseFrames {
		fs.worst = append(fs.worst, phaseFrame{})
	}
	copy(fs.worst[i+1:], fs.worst[i:])
	fs.worst[i] = pf
}

// jankyCount is the number of janky frames (every class but on time).
func (fs *frameSet) jankyCount() int {
	return fs.n - fs.count[clsOK]
}

// eachFrozen calls fn for every frozen frame in recording order.
func (fs *frameSet) eachFrozen(fn func(f *frameRec)) {
	list := fs.frames
	if fs.bins != nil {
		list = fs.frozen
	}
	for i := range list {
		if list[i].cls == clsFrozen {
			fn(&list[i])
		}
	}
}
