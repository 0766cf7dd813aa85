package metrics

import (
	"fmt"

	"github.com/fpstop/fpstop/source"
)

// A frame the main thread started late is charged against the budget its window's on-time
// frames most often had (DESIGN §4): for a capture and for every report, that mode is taken
// over all the window's rows, so a frame costs the same wherever it sits in the ring. Live,
// a frame is charged as it arrives against the mode so far (else the app's other windows',
// else one period), and Report settles those charges against the window's final mode: the
// report of a live run and of --input on the same rows see the same rows in the same order,
// so they settle the same way and agree.

// maxLateFrames bounds the late-started frames a window keeps for settling: real windows have
// a handful; past it a frame keeps the budget known when it arrived (a counted warning).
const maxLateFrames = 4096

// lateFrame is a frame charged against a budget other than its printed one, as counted: what
// Report needs to count it again against the window's final budget.
type lateFrame struct {
	vsync    int64
	overNs   int64 // its completion (GpuCompleted, else FrameCompleted) − its intended vsync
	t        int64
	dropped  int64
	level    Level
	lateOK   bool // a sane printed deadline, late start: one period when no mode is known
	history  bool
	inRun    bool  // counted in the run's aggregate too (no layer was measured)
	sliceIdx int64 // the slice of its vsync
	doneNs   int64 // its completion as the slices count it (addFrame's end)
	// PerfDog's previous three frame times, in the window's aggregate and the run's, before it
	wPrev, tPrev [3]int64
	wN, tN       int
}

// keepLate remembers a frame charged against a budget other than its printed one, for Report
// to settle. Called before the frame is counted (PerfDog's previous frames are as it saw them).
func (p *Pipeline) keepLate(w *windowState, f *source.Frame, ff *frameFacts, sliceIdx, doneNs int64) {
	if len(w.late) >= maxLateFrames {
		p.noteUnkept(w, ff.charge)
		return
	}
	w.late = append(w.late, lateFrame{
		vsync: f.VsyncNs, overNs: frameEnd(f) - f.VsyncNs, t: ff.interval, dropped: ff.dropped,
		level: ff.level, lateOK: saneDeadline(f), history: ff.history, inRun: p.session.Layer == "",
		sliceIdx: sliceIdx, doneNs: doneNs,
		wPrev: w.agg.prev, wN: w.agg.nprev, tPrev: p.total.prev, tN: p.total.nprev,
	})
}

// Keys of lateOver besides a budget (a mode, > 0): the frame was charged one period (no mode
// yet), by the pre-12 rule (no budget at all), or against a budget not remembered.
const (
	lateKeyPeriod  = -1
	lateKeyNone    = -2
	lateKeyUnknown = -3
	maxLateKeys    = 64
)

// noteUnkept counts a late-started frame past maxLateFrames under the budget it was charged
// against (key: frameFacts.charge): it keeps that charge, and Report compares it with the
// window's final budget. Memory stays bounded whatever the length of the input; the result is
// exact whenever the window's budget did not change after its first maxLateFrames late frames.
func (p *Pipeline) noteUnkept(w *windowState, key int64) {
	if w.lateOver == nil {
		w.lateOver = map[int64]int64{}
	}
	if _, ok := w.lateOver[key]; !ok && len(w.lateOver) >= maxLateKeys {
		key = lateKeyUnknown
	}
	w.lateOver[key]++
}

// unsettledWarnings says, once per window, how many late-started frames past maxLateFrames
// were charged against a budget other than the window's final one (their drops may be off by
// a refresh); none when every one of them already had the final budget.
func (p *Pipeline) unsettledWarnings() []string {
	var out []string
	for _, w := range p.sortedWindows() {
		if len(w.lateOver) == 0 {
			continue
		}
		mode, haveMode := p.windowBudget(w)
		var off int64
		for key, n := range w.lateOver {
			exact := (haveMode && key == mode) || (!haveMode && (key == lateKeyPeriod || key == lateKeyNone))
			if !exact {
				off += n
			}
		}
		if off > 0 {
			out = append(out, fmt.Sprintf("%s: %d late-started frames past the %d a window keeps to settle were charged against a budget that is not the window's final one (their drops may be off by a refresh)",
				w.name, off, maxLateFrames))
		}
	}
	return out
}

// settleLate counts every kept late-started frame again against its window's final budget
// (DESIGN §4: the mode over all the window's rows), moving what changed in the window's and
// the run's aggregates. Idempotent: a settled frame keeps its new charge.
func (p *Pipeline) settleLate() {
	for _, w := range p.windows {
		if len(w.late) == 0 {
			continue
		}
		mode, haveMode := p.windowBudget(w)
		for i := range w.late {
			lf := &w.late[i]
			budget := mode
			if !haveMode {
				if !lf.lateOK {
					continue // no budget: charged by the pre-12 rule, as it was
				}
				budget = lf.t
			}
			d := droppedOver(lf.overNs, lf.t, budget)
			if d != lf.dropped {
				p.recharge(w, lf, d)
			}
		}
	}
}

// recharge moves lf from its charge to d dropped refreshes in w's and the run's aggregates.
func (p *Pipeline) recharge(w *windowState, lf *lateFrame, d int64) {
	level := p.level(d, lf.t)
	ns0, ns1 := (lf.dropped+1)*lf.t, (d+1)*lf.t
	j0, j1 := lf.dropped >= 1, d >= 1
	endIdx := lf.sliceIdx
	if j1 && lf.doneNs > p.originNs {
		endIdx = (lf.doneNs - p.originNs) / p.cfg.SliceNs
	}
	// move moves the frame in a, where PerfDog's previous three frame times before it were prev
	move := func(a *agg, prev [3]int64, n int) {
		a.levels[lf.level]--
		a.levels[level]++
		a.dropped += d - lf.dropped
		a.janky += b2i(j1) - b2i(j0)
		if lf.history {
			return
		}
		a.displayNs += ns1 - ns0
		a.moveDisplay(ns0, ns1)
		a.movePerfDog(ns0, ns1, prev, n)
		if c := a.ring.get(lf.sliceIdx); c != nil {
			c.displayNs += ns1 - ns0
			c.janky += int32(b2i(j1) - b2i(j0))
		}
		if j1 && !j0 && endIdx > lf.sliceIdx {
			a.markStalled(lf.sliceIdx+1, endIdx)
		}
	}
	move(w.agg, lf.wPrev, lf.wN)
	if lf.inRun {
		move(p.total, lf.tPrev, lf.tN)
	}
	for i := range p.worst {
		if it := &p.worst[i]; !lf.history && it.vsync == lf.vsync && it.window == w.name {
			it.dropped = d
		}
	}
	lf.dropped, lf.level = d, level
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// moveDisplay moves one frame's display time from ns0 to ns1 in the 1 % low's counts.
func (a *agg) moveDisplay(ns0, ns1 int64) {
	key := ns0
	if a.display[key] <= 0 {
		key = foldKey(a.display, ns0)
	}
	if a.display[key] > 0 {
		a.display[key]--
	}
	a.addDisplay(ns1)
}

// movePerfDog counts a frame's PerfDog jank again with display time ns1 instead of ns0, given
// the three frame times before it (the frames after it keep the means they were counted with).
func (a *agg) movePerfDog(ns0, ns1 int64, prev [3]int64, n int) {
	j0, b0 := perfDogJank(ns0, prev, n)
	j1, b1 := perfDogJank(ns1, prev, n)
	if j0 {
		a.jank--
		a.stutterN -= ns0
	}
	if j1 {
		a.jank++
		a.stutterN += ns1
	}
	a.bigJank += b2i(b1) - b2i(b0)
}
