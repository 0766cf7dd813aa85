package ui

import (
	"fmt"

	"github.com/fpstop/fpstop/metrics"
)

// Freezes on the timeline. A freeze reaches the history in one of two shapes: a frame whose own
// cost spans it (frozen drop level: its vsync waited for the stuck main thread), or — what
// Android's Choreographer does when the main thread was stuck past several vsyncs — no frame at
// all until the thread is free, the next frame starting on a fresh vsync at a normal cost. The
// second shape is told apart from an idle app by the FPS series, which marks a slice frozen
// when a late frame's span or an open main-thread dispatch covered it (metrics). Either way the
// timeline draws the stretch as a plateau at the chart's top (the screen stood still that long)
// with █ under it, and the cursor can stop on the frame that ended it.

// freezeSpan is a stretch of device time the screen stood still: [lo, hi), and the index of
// the frame that ended it (the frozen frame itself, or the first frame after the gap; -1 while
// it lasts).
type freezeSpan struct {
	lo, hi int64
	end    int
}

// freezes finds the freezes in fs: frozen-level frames, and gaps between frames (or after the
// last one, up to the newest time) that overlap a frozen slice of series.
func freezes(fs []metrics.FrameMark, series []metrics.SlicePoint, sliceNs, nowNs int64) []freezeSpan {
	var frozen [][2]int64
	for _, s := range series {
		if !s.Frozen {
			continue
		}
		if n := len(frozen); n > 0 && frozen[n-1][1] >= s.StartNs {
			frozen[n-1][1] = s.StartNs + sliceNs
			continue
		}
		frozen = append(frozen, [2]int64{s.StartNs, s.StartNs + sliceNs})
	}
	overlapsFrozen := func(lo, hi int64) bool {
		for _, f := range frozen {
			if f[0] < hi && f[1] > lo {
				return true
			}
		}
		return false
	}
	var out []freezeSpan
	for i, f := range fs {
		if i > 0 {
			p := fs[i-1]
			if gapLo := p.VsyncNs + p.CostNs; f.VsyncNs-gapLo > sliceNs/4 && overlapsFrozen(gapLo, f.VsyncNs) {
				out = append(out, freezeSpan{gapLo, f.VsyncNs, i})
			}
		}
		if f.Level == metrics.LevelFrozen {
			out = append(out, freezeSpan{f.VsyncNs, f.VsyncNs + f.CostNs, i})
		}
	}
	if n := len(fs); n > 0 {
		last := fs[n-1].VsyncNs + fs[n-1].CostNs
		if nowNs > last && overlapsFrozen(last, nowNs) && len(frozen) > 0 && frozen[len(frozen)-1][1] >= nowNs {
			out = append(out, freezeSpan{last, nowNs, -1})
		}
	}
	return out
}

// freezeEnding returns the freeze frame i ended, if any.
func (m timelineModel) freezeEnding(i int) (freezeSpan, bool) {
	for _, f := range m.freezes {
		if f.end == i {
			return f, true
		}
	}
	return freezeSpan{}, false
}

// freezeText describes the freeze frame i ended ("" when none).
func (m timelineModel) freezeText(i int) string {
	f, ok := m.freezeEnding(i)
	if !ok {
		return ""
	}
	if m.frames[i].Level == metrics.LevelFrozen {
		return fmt.Sprintf("FROZEN: %d vsyncs dropped", m.frames[i].Dropped)
	}
	return fmt.Sprintf("first frame after FROZEN %s without a frame", msu(float64(f.hi-f.lo)/1e6))
}

// freezePlateaus are the freezes overlapping [lo, hi) as lines of their own at top: a freeze
// is a plateau as long as the screen stood still, not a spike. At most most of them.
func (m timelineModel) freezePlateaus(lo, hi int64, top float64, most int) [][]chartPoint {
	var out [][]chartPoint
	for _, f := range m.freezes {
		if f.hi <= lo || f.lo >= hi || len(out) == most {
			continue
		}
		out = append(out, []chartPoint{{t: max(f.lo, lo), ms: top}, {t: min(f.hi, hi), ms: top}})
	}
	return out
}

// freezeColumns marks the columns a freeze covers.
func (m timelineModel) freezeColumns(lo, hi int64, gw int) []bool {
	out := make([]bool, gw)
	for _, f := range m.freezes {
		if f.hi <= lo || f.lo >= hi {
			continue
		}
		for c := column(max(f.lo, lo), lo, hi, gw); c <= column(min(f.hi, hi-1), lo, hi, gw) && c < gw; c++ {
			out[c] = true
		}
	}
	return out
}
