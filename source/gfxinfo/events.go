package gfxinfo

import (
	"cmp"
	"math"
	"slices"
	"sort"

	"github.com/fpstop/fpstop/source"
)

// assembly collects one dump's events: every window's new frames (emitted in IntendedVsync
// order), then the polls and summaries, and the damage it met (one notice per kind).
type assembly struct {
	at        int64
	newest    int64 // newest FrameCompleted among the new frames
	newFrames []*source.Frame
	rows      [][]source.Frame // every window's rows (live: for the spacing of rows without a period)
	tail      []source.Event
	warns     []string
	final     bool // the capture's last dump (tracker.final)
}

// warn counts one kind of damage once per dump.
func (a *assembly) warn(text string) {
	for _, w := range a.warns {
		if w == text {
			return
		}
	}
	a.warns = append(a.warns, text)
}

// frames adds the rows at idx of w (new frames of window ws).
func (a *assembly) frames(t *tracker, ps *procState, ws *winState, w *Window, idx []int) {
	frs := frameCopies(w, idx, ws.title, ps.name)
	for i := range frs {
		frs[i].History = t.live && frs[i].VsyncNs < t.startNs
		a.newFrames = append(a.newFrames, &frs[i])
		if frs[i].DoneNs > a.newest {
			a.newest = frs[i].DoneNs
		}
	}
	if t.live {
		a.rows = append(a.rows, w.Frames) // (for spacing)
	}
}

// spacing returns the smallest spacing of consecutive IntendedVsyncs in the dump's rows: for
// rows without a period (before Android 12) it bounds the period, for the poll interval only.
// (Worked out only for a dump whose new frames carry no period.)
func (a *assembly) spacing() int64 {
	best := int64(math.MaxInt64) // (IntendedVsyncs are > 0: no spacing is that large)
	for _, rows := range a.rows {
		if len(rows) < 2 {
			continue
		}
		prev := rows[0].VsyncNs
		for i := 1; i < len(rows); i++ {
			v := rows[i].VsyncNs
			if dv := v - prev; dv < best && dv >= minPeriodNs {
				best = dv
			}
			prev = v
		}
	}
	if best == math.MaxInt64 {
		return 0
	}
	return best
}

// windowPoll adds the Poll (and summary) of window w, matched to ws. acct is the frames this
// poll accounted for, first the IntendedVsync of its earliest row (windowRows); deferred is
// set when rows of the process could not be read or placed (the counter is then not
// reported: the next dump has those rows).
// It reports whether the window's counter was reported (or the window printed none).
func (a *assembly) windowPoll(t *tracker, ps *procState, ws *winState, w *Window, acct int, first int64, deferred bool) bool {
	if ps.fresh && ws.polls == 1 {
		// A window of a process that started during the session counted from 0.
		a.tail = append(a.tail, &source.Poll{AtNs: a.at, Window: ws.title, Pid: ps.pid})
	}
	ws.acct += acct
	total, newRows := int64(-1), acct
	prev := ws.total.v
	verdict := counterSkip
	switch {
	case deferred:
	case !histogramAgrees(w.Summary):
		a.warn(histogramWarning)
	default:
		if a.firstDeferredBase(t, ps, ws, w.TotalFrames) {
			prev = ws.total.v
		}
		verdict = ws.total.check(w.TotalFrames, a.at, len(w.Frames), 1, t.reset)
	}
	if verdict != counterSkip {
		ws.countedHwm, ws.deferred = ws.hwm, nil
	}
	switch {
	case verdict == counterOK:
		total, newRows = w.TotalFrames, ws.total.newRows(ws.acct, w.TotalFrames-prev, t.reset)
		if lost := w.TotalFrames - prev - int64(newRows); prev > 0 && lost > 0 {
			ps.winLost += int(lost)
		}
		ws.acct = 0
		ws.reportGaps()
	case verdict == counterRebase:
		total, newRows, ws.acct, ws.total.credit = w.TotalFrames, max(ws.acct, int(w.TotalFrames-prev)), 0, 0
		ws.reportGaps()
	case deferred && w.TotalFrames >= 0:
		a.warn("gfxinfo: counters deferred to the next dump (rows of the app could not be read or placed)")
		ws.deferred = &deferredCounter{v: w.TotalFrames, at: a.at}
		if !ws.total.known && (ws.firstDeferred == nil || ws.firstDeferred.at == a.at) && histogramProves(w.Summary) {
			// (A later block of the same dump is the newer copy of the window.)
			ws.firstDeferred = &deferredCounter{v: w.TotalFrames, at: a.at, acct: ws.acct, newest: newestDone(w)}
		}
	case w.TotalFrames >= 0:
		a.warn("gfxinfo: a damaged \"Total frames rendered\" counter skipped (its frames are charged at the next good one)")
	}
	a.tail = append(a.tail, &source.Poll{AtNs: a.at, Window: ws.title, Pid: ps.pid, TotalFrames: total,
		Rows: w.Rows, NewRows: newRows, FirstRowVsyncNs: first, Hidden: w.Visibility > 0})
	if w.Summary != nil {
		s := summaryCopy(w.Summary)
		s.AtNs, s.Window, s.Process, s.Pid = a.at, ws.title, ps.name, ps.pid
		a.tail = append(a.tail, s)
	}
	return verdict != counterSkip || w.Summary == nil
}

// processPoll adds the process-wide summary and counter, after its windows' polls. The
// process counter keeps counting the frames of windows that went away between two polls (a
// popup that closed): its delta catches frames no window's counter can. It is deferred when
// one of the process's windows was held back or destroyed (their rows come back later).
func (a *assembly) processPoll(t *tracker, ps *procState, pr *Process, rows int, damaged bool) {
	s := summaryCopy(pr.Summary)
	s.AtNs, s.Process, s.Pid = a.at, ps.name, ps.pid
	a.tail = append(a.tail, s)
	if pr.Summary.TotalFrames == nil {
		return
	}
	v := *pr.Summary.TotalFrames
	if ps.fresh && ps.polls == 1 {
		a.tail = append(a.tail, &source.Poll{AtNs: a.at, Pid: ps.pid, Process: true})
	}
	prev := ps.total.v
	verdict := counterSkip
	closed := ps.replaced || len(pr.Windows) < ps.windows
	ps.replaced, ps.windows = false, len(pr.Windows)
	switch {
	case damaged:
	case !histogramAgrees(pr.Summary):
		a.warn(histogramWarning)
		return
	case !closed && ps.outgrown(v, len(pr.Windows), t.reset):
		a.warn("gfxinfo: a process \"Total frames rendered\" counter that grew beyond its windows' frames deferred (damaged, or a window closed)")
		return
	default:
		verdict = ps.total.check(v, a.at, 0, len(pr.Windows)+1, t.reset) // its windows, and one that closed
	}
	var newRows int
	switch verdict {
	case counterOK:
		newRows = ps.total.newRows(ps.acct, v-prev, t.reset)
	case counterRebase:
		newRows, ps.total.credit = max(ps.acct, int(v-prev)), 0
	case counterSkip:
		if !damaged && v >= 0 {
			a.warn("gfxinfo: a damaged process \"Total frames rendered\" counter skipped")
		}
		return
	}
	ps.acct, ps.winLost, ps.short = 0, 0, 0
	a.tail = append(a.tail, &source.Poll{AtNs: a.at, Pid: ps.pid, Process: true, TotalFrames: v,
		Rows: rows, NewRows: newRows})
}

// outgrown reports whether the process counter v grew by more than its windows account for:
// the frames they showed since the last accepted process counter and those their own counters
// charged as lost. The surplus is frames of a window that closed in between, or a damaged
// digit (2074 read as 2574 charged 500 frames that were never lost); the counter is deferred,
// at most twice in a row (then the surplus is charged after all: a window did close).
func (ps *procState) outgrown(v int64, windows int, reset bool) bool {
	if reset || !ps.total.known || v <= ps.total.v {
		ps.short = 0
		return false
	}
	if v-ps.total.v <= int64(ps.acct+ps.winLost+shortSlack+windows) || ps.short >= 2 {
		ps.short = 0
		return false
	}
	ps.short++
	return true
}

// events appends the dump's events to evs: damage notices, frames in IntendedVsync order (a
// Refresh before the first frame at a new rate), then polls and summaries.
func (a *assembly) events(t *tracker, evs []source.Event) []source.Event {
	for _, w := range a.warns {
		evs = append(evs, warning(a.at, w))
	}
	slices.SortStableFunc(a.newFrames, func(x, y *source.Frame) int { return cmp.Compare(x.VsyncNs, y.VsyncNs) })
	// One allocation for the batch (it goes to the pipeline as it is): the frames, polls and
	// summaries, a Refresh or two and the Tick.
	evs = slices.Grow(evs, len(a.warns)+len(a.newFrames)+len(a.tail)+4)
	havePeriod := false
	for _, f := range a.newFrames {
		if f.IntervalNs > 0 {
			havePeriod = true
			t.rate(&evs, f.IntervalNs, f.VsyncNs) // a Refresh precedes the first frame at a new rate
		}
		evs = append(evs, f)
	}
	evs = append(evs, a.tail...)
	if !havePeriod && t.live {
		// (Only a poller reads periodNs, for its interval.)
		if s := a.spacing(); s > 0 && s <= maxPeriodNs {
			t.periodNs = s
		}
	}
	return evs
}

// reportGaps marks the pending unreadable rows as credited in a reported counter.
func (ws *winState) reportGaps() {
	for i := range ws.gaps {
		ws.gaps[i].reported = true
	}
}

// flush charges what the session's end leaves open: rows credited to a reported counter as
// unreadable and never read since are lost after all (less any credit the counters hold), and
// a window whose last counter was deferred (its rows damaged, expected in a next dump that
// will not come) is charged against it now. The events are Polls with each window's last
// counter.
func (t *tracker) flush() []source.Event {
	pids := make([]int, 0, len(t.procs.byPid))
	for pid := range t.procs.byPid {
		pids = append(pids, pid)
	}
	sort.Ints(pids)
	var evs []source.Event
	for _, pid := range pids {
		ps := t.procs.byPid[pid]
		for _, ws := range ps.wins {
			if p := t.flushDeferred(ps, ws); p != nil {
				evs = append(evs, p)
				continue
			}
			n := -ws.total.credit
			for _, g := range ws.gaps {
				if g.reported {
					n += g.n
				}
			}
			if n > 0 && ws.total.known {
				evs = append(evs, &source.Poll{AtNs: t.lastNs, Window: ws.title, Pid: ps.pid,
					TotalFrames: ws.total.v, NewRows: -n})
				ws.gaps, ws.total.credit = nil, 0
			}
		}
	}
	return evs
}

// deferredCounter is a window's counter left unreported because rows of the dump could not be
// read or placed.
type deferredCounter struct {
	v, at int64
	// For firstDeferred: the window's frames accounted up to it; the newest FrameCompleted of
	// its block's readable rows (0: none), by which it had counted every frame; and the new
	// frames read since that completed after newest but by the window's baseNs (rows not
	// accounted, as older than the base, yet maybe not counted by this counter).
	acct   int
	newest int64
	early  int
}

// firstDeferredBase takes ws's first deferred counter as the base of its first accepted
// counter v, when there is one: frames drawn since then that no dump showed are charged as
// lost rather than being neither seen nor lost. The frames read since it are those accounted
// after it, plus the early ones: its block may be an older copy of the window than its dump's
// time says (dumps run together), and a frame it did count among them only lowers the charge,
// so what is charged is never more than what was drawn and not read. (A window of a process
// that started during the session has its base already: 0.) It reports whether the base was
// taken.
func (a *assembly) firstDeferredBase(t *tracker, ps *procState, ws *winState, v int64) bool {
	base := ws.firstDeferred
	ws.firstDeferred = nil
	if base == nil || base.at >= a.at || ws.total.known || t.reset || ps.fresh || v < base.v {
		return false
	}
	ws.total.check(base.v, base.at, 0, 1, false)
	ws.acct += base.early - min(base.acct, ws.acct)
	a.tail = append(a.tail, &source.Poll{AtNs: a.at, Window: ws.title, Pid: ps.pid, TotalFrames: base.v})
	return true
}

// newestDone returns the newest FrameCompleted among w's readable rows (0 when none).
func newestDone(w *Window) int64 {
	var n int64
	for i := range w.Frames {
		n = max(n, w.Frames[i].DoneNs)
	}
	return n
}

// flushDeferred reports the deferred counter of ws at the session's end (nil when there is
// none, or it fails the counter checks): the frames it counted less those accounted since the
// last reported counter, every unreadable row credited and not read since being lost.
func (t *tracker) flushDeferred(ps *procState, ws *winState) *source.Poll {
	d := ws.deferred
	if d == nil || !ws.total.known || t.reset || ws.total.check(d.v, d.at, 0, 1, false) != counterOK {
		return nil
	}
	newRows := ws.acct + ws.total.credit
	for _, g := range ws.gaps {
		newRows -= g.n
	}
	ws.gaps, ws.total.credit, ws.acct, ws.deferred = nil, 0, 0, nil
	return &source.Poll{AtNs: t.lastNs, Window: ws.title, Pid: ps.pid, TotalFrames: d.v, NewRows: newRows}
}

const histogramWarning = "gfxinfo: a \"Total frames rendered\" counter that disagrees with its HISTOGRAM skipped (damaged)"

// histogramProves reports whether a summary's counter is confirmed by a readable histogram
// that sums to it (a counter trusted with no later one to check it against).
func histogramProves(s *source.AndroidSummary) bool {
	return s != nil && s.TotalFrames != nil && len(s.Histogram) > 0 && histogramSum(s.Histogram) == *s.TotalFrames
}

// histogramAgrees reports whether a summary's counter can be trusted as far as its histogram
// tells: Android's HISTOGRAM counts every frame "Total frames rendered" counts (every real
// capture agrees), so a sum that differs means one of the two lines was damaged. A summary
// without a readable histogram tells nothing.
func histogramAgrees(s *source.AndroidSummary) bool {
	return s == nil || s.TotalFrames == nil || len(s.Histogram) == 0 || histogramProves(s)
}

// histogramSum adds up the buckets' counts.
func histogramSum(h []source.Bucket) int64 {
	var sum int64
	for _, b := range h {
		sum += b.Count
	}
	return sum
}
