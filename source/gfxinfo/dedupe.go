package gfxinfo

import (
	"fmt"
	"slices"
	"strings"

	"github.com/fpstop/fpstop/source"
)

// Per-window dedupe: a dumped window is matched to what the tracker remembers of the app's
// windows by its view-root id, then by its rows, and only then by its title, so a damaged title
// never starts an empty memory (which would count the whole ring again). A row is new unless
// its vsync id (IntendedVsync in layouts without one) or its FrameCompleted is one of a frame
// already emitted (one damaged field does not make a known frame new).

// keep is how many emitted frames a window remembers: two rings.
const keep = 2 * ringFrames

// winState is what the tracker remembers of one window of one process, bounded whatever the
// session's length: the newest IntendedVsync emitted (high-water mark), the identities of the
// last two rings of frames emitted, and the unreadable rows it credited at the last poll.
type winState struct {
	title string // the name its events carry, fixed when first seen
	root  string // its view-root id
	hwm   int64  // newest IntendedVsync emitted
	// baseNs: frames completed by then were counted before this window's first counter.
	baseNs int64
	// ring holds the identities of the last keep frames emitted, oldest at head once full;
	// ids, vsyncs and dones map each identity (a vsync id > 0, IntendedVsync, FrameCompleted)
	// to the slot of the newest frame given it. An entry whose slot has since been taken by a
	// frame without that identity is forgotten (known checks the slot), so a frame leaving the
	// ring costs no deletes; the maps are rebuilt from the ring when they outgrow it (add).
	ring               [keep]frameID
	newest             frameID // the largest identity of each kind given so far
	head               int     // next slot to write
	n                  int
	ids, vsyncs, dones map[int64]int
	total              counter
	acct               int   // frames accounted since the last accepted counter
	gaps               []gap // unreadable rows credited, expected back in the next dump
	polls              int
	seen               int64 // procTable poll number when last seen
	short              int   // polls in a row whose rows fell short of the counter (rowsShort)
	// countedHwm: the newest IntendedVsync emitted by the poll of the last accepted counter
	// (the frames that counter counted are at or before it).
	countedHwm int64
	deferred   *deferredCounter // the last counter, when deferred (nil once one is reported)
	// firstDeferred is the window's first counter when it came before any was accepted and
	// was deferred (with the frames accounted up to it): the base of the first accepted one.
	firstDeferred *deferredCounter
	// used is the tracker's matchRound when a window of the process block being read was
	// matched to it (a set per block was a map made per block and dump).
	used int64
}

// gap is n unreadable rows between two readable rows' IntendedVsync (lo, hi); reported is set
// once a reported counter has been credited with them.
type gap struct {
	lo, hi   int64
	n        int
	reported bool
	age      int // dumps it has been carried through
}

// maxGapAge is how many more dumps an unreadable row is waited for: a ring row is printed by
// two or three successive polls, no more.
const maxGapAge = 2

// has reports whether f is a frame already emitted: one remembered completed at its
// FrameCompleted, or has its vsync id (IntendedVsync in layouts without one; two frames of
// one window can share an IntendedVsync, never a vsync id).
func (ws *winState) has(f *source.Frame) bool {
	if ws.hasDone(f.DoneNs) {
		return true
	}
	if f.VsyncID > 0 {
		return ws.hasID(f.VsyncID)
	}
	return ws.known(ws.vsyncs, keyVsync, f.VsyncNs)
}

// hasDone reports whether a remembered frame completed at done.
func (ws *winState) hasDone(done int64) bool { return ws.known(ws.dones, keyDone, done) }

// hasID reports whether a remembered frame has vsync id id (> 0).
func (ws *winState) hasID(id int64) bool { return ws.known(ws.ids, keyID, id) }

// known reports whether a remembered frame has identity k of kind (keyID...): none when k is
// above every one given (a new frame, mostly); else m's entry for k names the slot of the
// newest frame given it, which still holds it unless that frame (and so every older one) was
// forgotten.
func (ws *winState) known(m map[int64]int, kind int, k int64) bool {
	if k > ws.newest[kind] {
		return false
	}
	slot, ok := m[k]
	return ok && ws.ring[slot][kind] == k
}

// stale reports whether f is older than every frame remembered while the memory is full: a
// row that old was emitted long ago (its identity damaged) or cannot be placed.
func (ws *winState) stale(f *source.Frame) bool {
	return ws.n == keep && f.VsyncNs < ws.ring[ws.head][keyVsync]
}

// countIn returns how many remembered frames have an IntendedVsync in (lo, hi).
func (ws *winState) countIn(lo, hi int64) int {
	n := 0
	for i := 0; i < ws.n; i++ {
		if v := ws.ring[i][keyVsync]; v > lo && v < hi {
			n++
		}
	}
	return n
}

// The identities of a frame, in a frameID.
const (
	keyID    = iota // FrameTimelineVsyncId: only an id > 0 identifies a frame
	keyVsync        // IntendedVsync
	keyDone         // FrameCompleted
)

// frameID is what identifies a row across dumps.
type frameID [3]int64

// add remembers f, forgetting the oldest frame when full.
func (ws *winState) add(f *source.Frame) {
	if ws.ids == nil {
		ws.ids, ws.vsyncs, ws.dones = map[int64]int{}, map[int64]int{}, map[int64]int{}
	}
	slot := ws.head
	ws.n = min(ws.n+1, keep)
	ws.ring[slot] = frameID{f.VsyncID, f.VsyncNs, f.DoneNs}
	for k, v := range ws.ring[slot] {
		ws.newest[k] = max(ws.newest[k], v)
	}
	ws.head = (slot + 1) % keep
	if f.VsyncID > 0 {
		ws.ids[f.VsyncID] = slot
	}
	ws.vsyncs[f.VsyncNs] = slot
	ws.dones[f.DoneNs] = slot
	ws.hwm = max(ws.hwm, f.VsyncNs)
	if len(ws.dones) > maxIdentities || len(ws.vsyncs) > maxIdentities || len(ws.ids) > maxIdentities {
		ws.rebuild()
	}
}

// maxIdentities bounds each identity map: forgotten entries are dropped once it holds three
// times what the ring remembers (a rebuild per two rings of new frames).
const maxIdentities = 3 * keep

// rebuild makes the identity maps hold the remembered frames' identities only.
func (ws *winState) rebuild() {
	clear(ws.ids)
	clear(ws.vsyncs)
	clear(ws.dones)
	for i := keep - ws.n; i < keep; i++ { // oldest first: the newest frame with an identity wins
		slot := (ws.head + i) % keep
		id := ws.ring[slot]
		if id[keyID] > 0 {
			ws.ids[id[keyID]] = slot
		}
		ws.vsyncs[id[keyVsync]] = slot
		ws.dones[id[keyDone]] = slot
	}
}

// counter validates a "Total frames rendered" counter across polls.
type counter struct {
	v, at   int64
	known   bool
	rejects int
	credit  int // frames accounted beyond the counter's growth, kept for the next polls
}

// newRows returns what to report as the frames accounted for by a counter that grew by delta
// since the last one: metrics charges delta less it, never below 0 per poll. What was accounted
// beyond delta (a row credited and recovered a poll apart) is kept as credit instead of lost,
// so the charges over a run add up whatever poll they fall in.
func (c *counter) newRows(acct int, delta int64, reset bool) int {
	if reset {
		return acct
	}
	a := acct + c.credit
	c.credit = 0
	if int64(a) > delta {
		c.credit = min(a-int(delta), keep)
		return int(delta)
	}
	return a
}

// Counter verdicts.
const (
	counterSkip   = iota // damaged or not printed: not reported, its frames carried to the next
	counterOK            // reported; the delta may be charged
	counterRebase        // reported, but its jump is not charged (the earlier value was wrong)
)

// maxRatePeriodNs is the shortest frame period a counter's growth is held against.
const maxRatePeriodNs = 4_000_000

// check judges counter value v printed at device time at. minFrames is what the dump's rows
// prove (a counter below them is damaged); a counter never goes down (reset mode aside) and
// never grows faster than frames can be drawn by windows windows (1 for a window's counter; a
// process counter sums all its windows). Three rejections in a row re-base it.
func (c *counter) check(v, at int64, minFrames, windows int, reset bool) int {
	if v < 0 {
		return counterSkip
	}
	if reset {
		c.v, c.at, c.known = v, at, true
		return counterOK
	}
	if !c.known {
		if v < int64(minFrames)-2 && c.rejects < 2 {
			c.rejects++
			return counterSkip // fewer than the rows it printed: damaged
		}
		c.v, c.at, c.known = v, at, true
		return counterOK
	}
	// No display refreshes faster than every 4 ms (250 Hz), and a window draws at most once a
	// refresh; a quarter more and a few frames of slack for the dumps' timing.
	elapsed := at - c.at
	ok := v >= c.v && (v == c.v || (elapsed > 0 && v-c.v <= (elapsed/maxRatePeriodNs*5/4+4)*int64(max(windows, 1))))
	if !ok && c.rejects < 2 {
		c.rejects++
		return counterSkip
	}
	verdict := counterOK
	if !ok {
		verdict = counterRebase
	}
	c.v, c.at, c.rejects = v, at, 0
	return verdict
}

// dedupeProcess matches pr's windows to ps's and adds their new frames, polls and summaries
// to asm. When a window is held back (its title damaged, its rows matching nothing) or its
// PROFILEDATA block was destroyed, the rows it should have shown may belong to any window of
// the process: every counter of the process is deferred to the next dump (the frames it
// accounted for are carried to it). So are the counters of a stale block (an older copy of
// the process in the same dump).
func (t *tracker) dedupeProcess(asm *assembly, ps *procState, pr *Process, stale bool) {
	if ps.name == "" {
		ps.name = pr.Name
	}
	if asm.at != ps.at {
		// The dump's first block of this process: lastAt moves to the previous dump's time
		// (not this one's, which a later block of the same dump would take for the last poll
		// and so count none of a new window's frames).
		ps.lastAt, ps.at = max(ps.lastAt, ps.at), asm.at
		ps.polledBefore = ps.polls > 0
	}
	t.matchRound++
	used := t.matchRound
	var pairs []pair
	damaged, heldBack := false, false
	ps.roots = ps.roots[:0]
	for wi := range pr.Windows {
		if r := pr.Windows[wi].Root; r != "" && !pr.Windows[wi].TitleSuspect {
			ps.roots = append(ps.roots, r)
		}
	}
	for wi := range pr.Windows {
		w := &pr.Windows[wi]
		if w.Rows == 0 && w.Summary == nil && len(w.torn) == 0 {
			continue // a view root without framestats (plain dump or nothing drawn)
		}
		ws := ps.match(w, used, asm)
		heldBack = heldBack || ws == nil
		if ws == nil || (len(w.Frames) == 0 && len(w.torn) > 0) {
			damaged = true
		}
		if ws != nil {
			ws.used = used
			pairs = append(pairs, pair{w: w, ws: ws})
		}
	}
	damaged = damaged || stale
	procRows := 0
	for i := range pairs {
		p := &pairs[i]
		p.acct, p.first = t.windowRows(asm, ps, p.ws, p.w)
		procRows += p.w.Rows
		damaged = p.ws.rowsShort(p.w, t.reset) || damaged
	}
	procAcct, procDeferred := 0, damaged
	for _, p := range pairs {
		procAcct += p.acct
		// A window counter not reported (damaged) defers the process's too: reported later,
		// the window's would charge again what the process's charged meanwhile.
		// (A window held back may be an older copy of one matched: its rows and counters
		// are of an earlier dump run into this one.)
		deferred := damaged && (stale || heldBack || !p.ws.firstBase(ps, asm.at))
		procDeferred = !asm.windowPoll(t, ps, p.ws, p.w, p.acct, p.first, deferred) || procDeferred
	}
	ps.polls++
	ps.acct += procAcct
	if pr.Summary != nil {
		asm.processPoll(t, ps, pr, procRows, procDeferred)
	}
}

// pair is a window of a dump and the memory it was matched to (dedupeProcess).
type pair struct {
	w     *Window
	ws    *winState
	acct  int   // frames its rows account for
	first int64 // its earliest row's IntendedVsync
}

// firstBase reports whether ws is first seen at this dump (at) with none of its frames new to
// its counters: all completed by the dump's time, its process running before the session. Its
// first counter is then a base to count from whatever rows of the dump could not be read or
// placed; deferred, the base would be a later counter, and the frames drawn in between that
// no dump showed would be neither seen nor lost. (The last block of the process in the dump
// only, when dumps ran together: an older block's counter is of an earlier time than at.)
func (ws *winState) firstBase(ps *procState, at int64) bool {
	return !ws.total.known && !ps.fresh && at > 0 && ws.baseNs == at
}

// shortSlack is how many rows a window's block may lack against its counter's growth:
// frames completing while the dump is printed are in one and not yet the other.
const shortSlack = 3

// rowsShort reports whether w's rows, readable and unreadable (those credited as new: torn
// rows among frames already seen are old ones), are fewer than the frames its counter grew by
// since the last one accepted: the ring prints every frame drawn after the newest row of that
// poll (up to its size), so rows went missing without a torn row to say so (lines run
// together, a PROFILEDATA header lost). Charging the counter now would charge rows the next dump shows; it
// is deferred instead, at most twice in a row (then the rows are lost after all).
func (ws *winState) rowsShort(w *Window, reset bool) bool {
	if reset || !ws.total.known || w.TotalFrames <= ws.total.v {
		ws.short = 0
		return false
	}
	want := min(w.TotalFrames-ws.total.v, ringFrames) - shortSlack
	var n int64
	for _, g := range ws.gaps {
		if !g.reported {
			n += int64(g.n) // unreadable rows credited since the last reported counter
		}
	}
	// (Counted from the newest row back, and only until there are enough: the rows after
	// countedHwm are the dump's last ones.)
	for i := len(w.Frames) - 1; i >= 0 && n < want; i-- {
		if w.Frames[i].VsyncNs > ws.countedHwm {
			n++
		}
	}
	if n >= want || ws.short >= 2 {
		ws.short = 0
		return false
	}
	ws.short++
	return true
}

// match finds the remembered window w is: by view-root id, by rows, then by a trusted title;
// a window with a trusted title and nothing remembered is new. It returns nil for a window
// whose title is suspect and whose rows match nothing (held back, with a counted warning).
// A window printed twice in one dump (two dumps run together when the line between them was
// damaged) is matched to the same memory: its known rows are not new.
func (ps *procState) match(w *Window, used int64, asm *assembly) *winState {
	if w.Title == "" && w.Root == "" && !w.named && !w.TitleSuspect {
		// A process that titles none of its windows (Google's documentation samples, a
		// tool's bare block): its rows are the process's window, unless its process line was
		// read (a pid) but its name was unreadable: nothing to call the window.
		if w.Title = ps.name; ps.name == "" && ps.pid != 0 {
			w.TitleSuspect = true
		}
	}
	ws := ps.byRoot(w.Root)
	if ws == nil {
		ws = ps.byRows(w)
	}
	if ws == nil && (w.TitleSuspect || (w.Root == "" && ps.rooted())) {
		// (A window without its view-root line in a process whose windows have theirs: its
		// title, unconfirmed, may be any line run into a "Window:" line.)
		switch {
		case !asm.final:
			asm.warn("gfxinfo: rows of a window with a damaged title held back (read from the next dump)")
			return nil
		case w.Title != "" || ps.polledBefore:
			// (Untitled rows after earlier dumps may be a remembered window's whose title
			// lines were hit: as a window of their own they could count its frames twice.)
			asm.warn("gfxinfo: rows of a window with a damaged title skipped (no dump follows to read them from)")
			return nil
		}
		// No title in a capture's only dump of the process: no dump follows to name the
		// window, and its rows are the process's: they are read as the process's window.
		if ps.name == "" {
			// (A process line damaged past reading, in a dump that titles its windows: there
			// is nothing to name them after.)
			asm.warn("gfxinfo: rows of a window with no title skipped (its process's name is unreadable)")
			return nil
		}
		asm.warn("gfxinfo: rows of a window with no title read as the process's window")
		w.Title = ps.name
	}
	if ws == nil {
		ws = ps.byTitle(w, used)
	}
	if ws == nil {
		ws = &winState{title: ps.newTitle(w.Title), root: w.Root}
		ps.addWindow(ws)
	} else if w.Title != ws.title && !strings.HasPrefix(ws.title, w.Title+"#") {
		asm.warn("gfxinfo: window title differs from its rows' window (damaged); kept " + fmt.Sprintf("%q", clip(ws.title)))
	}
	if ws.root == "" && !w.TitleSuspect {
		ws.root = w.Root
	}
	return ws
}

// rooted reports whether a remembered window of the process has a view-root id.
func (ps *procState) rooted() bool {
	for _, s := range ps.wins {
		if s.root != "" {
			return true
		}
	}
	return false
}

func (ps *procState) byRoot(root string) *winState {
	if root == "" {
		return nil
	}
	for _, s := range ps.wins {
		if s.root == root {
			return s
		}
	}
	return nil
}

// byRows returns the remembered window most of w's rows are frames of.
func (ps *procState) byRows(w *Window) *winState {
	var ws *winState
	best := 0
	for _, s := range ps.wins {
		n := 0
		for i := range w.Frames {
			if s.hasDone(w.Frames[i].DoneNs) {
				n++
			}
		}
		if n > best {
			ws, best = s, n
		}
	}
	return ws
}

// byTitle returns the remembered window titled as w (a trusted title). One already matched in
// this dump is w again unless both have a view root (then w is another window).
func (ps *procState) byTitle(w *Window, used int64) *winState {
	var again *winState
	for _, s := range ps.wins {
		if s.title != w.Title && !strings.HasPrefix(s.title, w.Title+"#") {
			continue
		}
		if s.used == used {
			again = s
			continue
		}
		newRoot := w.Root != "" && s.root != "" && w.Root != s.root
		if newRoot && slices.Contains(ps.roots, s.root) {
			// s is another window of this very dump (a dialog titled as its activity, printed
			// before it): w is a window of its own, never s with its counter gone down
			continue
		}
		renewed := newRoot && (len(w.Frames) >= minNewRootRows || restarted(w, s))
		if s.title != w.Title && !renewed {
			continue // (an earlier window of the title, "title#2", is taken over only when it went)
		}
		if renewed {
			// A new view root under the same title (the activity was recreated, a popup shown
			// again; its rows are none of the memory's, or byRows would have matched): its
			// counters start again. A block with hardly a readable row cannot tell that from a
			// damaged view-root id, unless its counter started again with it.
			s.root, s.total, s.gaps, s.firstDeferred = w.Root, counter{}, nil, nil
			ps.replaced = true
		}
		return s
	}
	if again != nil && (w.Root == "" || again.root == "") {
		// (Nor when the one matched has no view root: its line was damaged, so nothing
		// tells w from it, and two memories of one window would count its rows twice.)
		return again
	}
	return nil
}

// restarted reports whether w's counter says it is a new window under s's title: lower than
// s's and no more than the rows w printed (a popup shown again under the same
// "PopupWindow:c9cbcba" title started at 1 with its one row: its old counter stood at 27).
func restarted(w *Window, s *winState) bool {
	return s.total.known && w.TotalFrames >= 0 && w.TotalFrames < s.total.v && w.TotalFrames <= int64(len(w.Frames))
}

// minNewRootRows is how many readable rows, none of them remembered, tell a recreated view
// root from a damaged view-root id.
const minNewRootRows = 3

// newTitle names a new window titled title: "title#2" when the process has one so titled.
func (ps *procState) newTitle(title string) string {
	n := 0
	for _, s := range ps.wins {
		if s.title == title || strings.HasPrefix(s.title, title+"#") {
			n++
		}
	}
	if n > 0 {
		return fmt.Sprintf("%s#%d", title, n+1)
	}
	return title
}

// addWindow remembers ws, forgetting the least recently seen window when full.
func (ps *procState) addWindow(ws *winState) {
	if len(ps.wins) >= maxWindows {
		old := 0
		for i, s := range ps.wins {
			if s.seen < ps.wins[old].seen {
				old = i
			}
		}
		ps.wins = append(ps.wins[:old], ps.wins[old+1:]...)
	}
	ps.wins = append(ps.wins, ws)
}
