package metrics

import (
	"math"
	"slices"

	"github.com/fpstop/fpstop/source"
)

// Pauses of a layer (DESIGN §4a). SurfaceFlinger sees only presents, never why they stop, so a
// pause is read by what the layer was doing before it: a layer that presented on nearly every
// slot of its pace (a game loop, a video) stopping is a stall; any other layer stopping is idle,
// as an app that draws on demand does. A second source (an open main-thread dispatch in logcat)
// overrides either.

const (
	// layerPauseNs: a present interval this long is a pause (Android vitals' frozen frame;
	// FROZEN at every pace).
	layerPauseNs = 700_000_000
	// layerCannotTellNs: a continuous layer silent this long may be stuck or paused:
	// SurfaceFlinger cannot tell.
	layerCannotTellNs = 5_000_000_000
	// continuityWindowNs is how much of the layer's recent drawing continuity is judged over;
	// continuityMinNs the least it needs to be judged at all.
	continuityWindowNs = 10_000_000_000
	continuityMinNs    = 1_000_000_000
	continuityShare    = 0.75
	// presence chunks: ~100 ms of drawing each, enough for the continuity window
	presenceChunkNs = 100_000_000
	presenceChunks  = 128
	// maxPausesKept bounds the report's list (the longest are kept).
	maxPausesKept = 100
)

// Pause classes, as the report names them.
const (
	PauseStall = "stall" // a continuous layer stopped (≤ 5 s): its next frame is judged
	PauseIdle  = "idle"  // a layer that draws on demand stopped: its next frame is not judged
	// PauseUnknown: a continuous layer stopped for more than 5 s with nothing to say why.
	PauseUnknown = "idle_or_stuck"
)

// LayerPause is one pause that ended, in the report.
type LayerPause struct {
	StartMs  float64 `json:"start_ms"`
	LengthMs float64 `json:"length_ms"`
	Class    string  `json:"class"`
}

// presence keeps a layer's recent drawing as chunks of about 100 ms of active time (present
// intervals shorter than a pause) with the frames presented in them, lost ones included.
type presence struct {
	chunks [presenceChunks]struct{ ns, n int64 }
	head   int // the chunk being filled
	used   int
}

func (pr *presence) add(intervalNs, frames int64) {
	c := &pr.chunks[pr.head]
	if pr.used == 0 {
		pr.used = 1
	} else if c.ns >= presenceChunkNs {
		pr.head = (pr.head + 1) % presenceChunks
		pr.used = min(pr.used+1, presenceChunks)
		c = &pr.chunks[pr.head]
		c.ns, c.n = 0, 0
	}
	c.ns += intervalNs
	c.n += frames
}

// continuous reports whether the layer presented on ≥ 75 % of its pace's slots (tp) over the
// last 10 s in which it drew (its pauses left out), judged on at least 1 s of drawing.
func (pr *presence) continuous(tp int64) bool {
	var ns, n int64
	for i := 0; i < pr.used && ns < continuityWindowNs; i++ {
		c := pr.chunks[(pr.head-i+presenceChunks)%presenceChunks]
		ns += c.ns
		n += c.n
	}
	if ns < continuityMinNs || tp <= 0 {
		return false
	}
	return float64(n) >= continuityShare*float64(ns)/float64(tp)
}

// pauseClass classifies a pause of interval ns that ended at present.
func (p *Pipeline) pauseClass(l *layerState, present, interval, tp int64) string {
	start := present - interval
	if p.mainStuck(start, present) {
		return PauseStall
	}
	if !l.seen.continuous(tp) {
		return PauseIdle
	}
	if interval > layerCannotTellNs {
		return PauseUnknown
	}
	return PauseStall
}

// mainStuck reports whether logcat saw the main thread busy for most of [from, to): a dispatch
// still open since before the middle of it, or a finished one covering half of it.
func (p *Pipeline) mainStuck(from, to int64) bool {
	m := &p.main
	if m.open != nil && m.openAt <= from+(to-from)/2 {
		return true
	}
	lo, hi := max(from, m.busyFrom), min(to, m.busyTo)
	return hi > lo && 2*(hi-lo) >= to-from
}

// pauseRec is one ended pause as kept: start and length in ns.
type pauseRec struct {
	start, length int64
	class         string
}

// notePause lists a pause that ended, keeping the longest maxPausesKept in time order.
func (l *layerState) notePause(start, length int64, class string) {
	l.pausesTotal++
	ps := pauseRec{start: start, length: length, class: class}
	if len(l.pauses) < maxPausesKept {
		l.pauses = append(l.pauses, ps)
		return
	}
	shortest := 0
	for i := range l.pauses {
		if l.pauses[i].length < l.pauses[shortest].length {
			shortest = i
		}
	}
	if length > l.pauses[shortest].length {
		l.pauses = append(slices.Delete(l.pauses, shortest, shortest+1), ps)
	}
}

// pauseReport is the kept pauses, their start in ms from the session's origin.
func (l *layerState) pauseReport(origin int64) []LayerPause {
	out := make([]LayerPause, len(l.pauses))
	for i, ps := range l.pauses {
		out[i] = LayerPause{StartMs: math.Round(float64(ps.start-origin)/1e4) / 100,
			LengthMs: math.Round(float64(ps.length)/1e4) / 100, Class: ps.class}
	}
	return out
}

// layerLiveState is the live state of the measured layer silent since its last present (DESIGN
// §4a): a continuous layer is FROZEN from 700 ms and "cannot tell" after 5 s; any other layer
// is idle after a second. ok is false when no layer is measured.
func (p *Pipeline) layerLiveState(now int64) (st source.State, text string, since int64, ok bool) {
	l := p.layers[p.session.Layer]
	if p.session.Layer == "" || l == nil || l.lastPresent == 0 {
		return "", "", 0, false
	}
	since = now - l.lastPresent
	tp := max(l.cadence, 1) * p.layerPeriod(l.periodNs)
	switch {
	case !l.seen.continuous(tp):
		if since >= idleAfterNs {
			return source.StateIdle, "", since, true
		}
	case since > layerCannotTellNs:
		return source.StateNoFrames, "idle or stuck: SurfaceFlinger cannot tell", since, true
	case since >= layerPauseNs:
		return source.StateFrozen, "layer stalled", since, true
	}
	return source.StateLive, "", 0, true
}
