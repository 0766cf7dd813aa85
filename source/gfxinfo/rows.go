package gfxinfo

import (
	"math"

	"github.com/fpstop/fpstop/source"
)

// windowRows adds w's new rows (matched to ws) to asm and returns how many frames this poll
// accounts for: the counters' growth less this is what metrics charges as lost. A frame is
// accounted once: when it is first emitted, or — when its row was unreadable after the newest
// frame of the last poll — at once as credit, expecting it back in the next dump; a credited
// row that does not come back is taken off again (it is lost after all), so damaged text never
// charges frames the next dump shows.
//
// It also returns the IntendedVsync of w's earliest row (0 none), for its Poll: this is the
// pass over every row.
func (t *tracker) windowRows(asm *assembly, ps *procState, ws *winState, w *Window) (acct int, first int64) {
	ws.seen = t.procs.polls
	firstSight := ws.polls == 0
	if firstSight && !ps.fresh {
		ws.baseNs = t.firstBaseNs(asm, ps, w)
	}
	prev := max(ws.hwm, ws.baseNs)
	ws.polls++
	resolved := make([]int, len(ws.gaps))
	var fresh []int // the indexes of its new rows
	for i := range w.Frames {
		f := &w.Frames[i]
		if first == 0 || f.VsyncNs < first {
			first = f.VsyncNs
		}
		if ws.has(f) {
			continue
		}
		if ps.elsewhere(ws, f) {
			// The same frame (vsync id and FrameCompleted) already emitted for another window
			// of the process: this block's view-root line was damaged and its rows landed
			// under the window printed before it.
			asm.warn("gfxinfo: a row of another window (its view-root line damaged) skipped")
			continue
		}
		if ws.stale(f) {
			asm.warn("gfxinfo: a row older than every frame remembered skipped (damaged)")
			continue
		}
		ws.add(f)
		fresh = append(fresh, i)
		if len(ws.gaps) > 0 {
			if g := gapOf(ws.gaps, resolved, f.VsyncNs); g >= 0 {
				resolved[g]++ // credited at the last poll
				continue
			}
		}
		if f.Flags&source.FlagSkippedFrame == 0 { // (Android's counter does not count the frames it skipped)
			switch fd := ws.firstDeferred; {
			case f.DoneNs > ws.baseNs:
				acct++
			case fd != nil && f.DoneNs > fd.newest:
				fd.early++ // (firstDeferredBase)
			}
		}
	}
	asm.frames(t, ps, ws, w, fresh)
	var gaps []gap
	for gi, g := range ws.gaps {
		rem := g.n - resolved[gi]
		switch {
		case rem <= 0:
		case tornIn(w, g) && g.age < maxGapAge:
			g.n, g.age = rem, g.age+1
			gaps = append(gaps, g) // still unreadable: still expected
		default:
			acct -= rem // never came back: lost after all
		}
	}
	if !firstSight && ws.baseNs < asm.at {
		// (Not in the dump the window is first seen in, even in a later block of it: every
		// row of that dump completed by its time, the window's base.)
		// Unreadable rows between the same two readable rows are one group: those of them
		// that are old are the remembered frames between those rows; the rest are new.
		for i := 0; i < len(w.torn); {
			j, n := i, 0
			for ; j < len(w.torn) && w.torn[j].pos == w.torn[i].pos; j++ {
				n += w.torn[j].n
			}
			lo, hi := bounds(w, w.torn[i].pos)
			i = j
			if hi <= prev || overlaps(gaps, lo, hi) || len(gaps) >= maxTorn {
				continue // among rows seen before, or already expected
			}
			if n -= ws.countIn(lo, hi); n > 0 {
				gaps = append(gaps, gap{lo: max(lo, prev), hi: hi, n: n})
				acct += n
			}
		}
	}
	ws.gaps = gaps
	return acct, first
}

// firstBaseNs returns the base of window w, first seen in this poll of a process that ran
// before it: frames completed before this poll (the session's backlog) or before the process's
// last poll were counted by earlier counters, never by this window's.
func (t *tracker) firstBaseNs(asm *assembly, ps *procState, w *Window) int64 {
	var base int64
	switch {
	case ps.lastAt > 0:
		base = ps.lastAt
	case ps.polledBefore:
		// Polled in an earlier dump that had no Uptime: its frames after the session's
		// start are new to its counters.
		base = t.startNs
	default:
		base = asm.at
	}
	for i := range w.Frames {
		if base == 0 { // no Uptime: the newest frame tells the time
			base = max(base, w.Frames[i].DoneNs)
		}
	}
	return base
}

// gapOf returns the index of the gap a row at IntendedVsync v fills (one still open), or -1.
func gapOf(gaps []gap, resolved []int, v int64) int {
	for i, g := range gaps {
		if v > g.lo && v < g.hi && resolved[i] < g.n {
			return i
		}
	}
	return -1
}

// bounds returns the IntendedVsync of the readable rows around an unreadable row at pos.
func bounds(w *Window, pos int) (lo, hi int64) {
	lo, hi = math.MinInt64, math.MaxInt64
	if pos > 0 && pos <= len(w.Frames) {
		lo = w.Frames[pos-1].VsyncNs
	}
	if pos < len(w.Frames) {
		hi = w.Frames[pos].VsyncNs
	}
	return lo, hi
}

// tornIn reports whether w has an unreadable row that may lie in g's span.
func tornIn(w *Window, g gap) bool {
	for _, tr := range w.torn {
		if lo, hi := bounds(w, tr.pos); lo < g.hi && hi > g.lo {
			return true
		}
	}
	return false
}

func overlaps(gaps []gap, lo, hi int64) bool {
	for _, g := range gaps {
		if lo < g.hi && hi > g.lo {
			return true
		}
	}
	return false
}

// frameCopies copies the rows at idx of w for events (the parser reuses the dump's storage).
func frameCopies(w *Window, idx []int, title, process string) []source.Frame {
	if len(idx) == 0 {
		return nil
	}
	frs, phs := make([]source.Frame, len(idx)), make([]source.Phases, len(idx))
	for j, i := range idx {
		f, c := &w.Frames[i], &frs[j]
		*c = *f
		c.Window, c.Process = title, process
		if f.Phases != nil {
			phs[j] = *f.Phases
			c.Phases = &phs[j]
		}
	}
	return frs
}

// summaryCopy copies a summary for an event (which sets its time and names); the histogram,
// the parser's no more, is shared.
func summaryCopy(sum *source.AndroidSummary) *source.AndroidSummary {
	c := *sum
	if len(c.Histogram) == 0 {
		c.Histogram = nil
	}
	return &c
}

// elsewhere reports whether f is a frame another window of the process already emitted: the
// same FrameCompleted and vsync id (two windows drawn in one vsync share the id, never the
// completion time).
func (ps *procState) elsewhere(ws *winState, f *source.Frame) bool {
	for _, o := range ps.wins {
		if o != ws && o.hasDone(f.DoneNs) && (f.VsyncID <= 0 || o.hasID(f.VsyncID)) {
			return true
		}
	}
	return false
}
