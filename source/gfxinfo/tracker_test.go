package gfxinfo

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/fpstop/fpstop/source"
)

// feed runs dumps through a live tracker (as the poller does) and returns all events.
func feed(t *testing.T, dumps ...[]byte) []source.Event {
	t.Helper()
	tr := newTracker(pkg, "")
	tr.live = true
	var evs []source.Event
	for _, d := range dumps {
		evs = tr.apply(evs, d)
	}
	return append(evs, tr.flush()...)
}

func win(rows int, startS float64, firstID, total int64) synthWin {
	return synthWin{title: pkg + "/.Main", rows: rows, start: int64(startS * 1e9), period: 16_666_667, firstID: firstID, total: total}
}

// Process tracking: a restarted app (new pid, new "Stats since", new frames) starts a new
// session, and the frames its new process drew before the first poll of it are lost: a Poll
// with the counter at 0 precedes its first (metrics then charges 339 − 120 = 219).
func TestProcessRestartChargesFramesBeforeFirstPoll(t *testing.T) {
	d1 := dumpAt(11_000, 100, win(10, 10, 1, 10))
	d2 := dumpAt(20_000, 200, win(120, 17.5, 500, 339))
	evs := feed(t, d1, d2)
	var sessions []int
	var ps []string
	for _, e := range evs {
		switch e := e.(type) {
		case *source.Session:
			sessions = append(sessions, e.Pid)
		case *source.Poll:
			ps = append(ps, fmt.Sprintf("%d/%v:%d-%d", e.Pid, e.Process, e.TotalFrames, e.NewRows))
		}
	}
	if fmt.Sprint(sessions) != "[100 200]" {
		t.Errorf("sessions %v", sessions)
	}
	want := "[100/false:10-0 100/true:10-0 200/false:0-0 200/false:339-120 200/true:0-0 200/true:339-120]"
	if fmt.Sprint(ps) != want {
		t.Errorf("polls %v\nwant  %s", ps, want)
	}
	if n := len(frames(evs)); n != 130 {
		t.Errorf("%d frames", n)
	}
}

// An app already running when the session starts has no lost history: no zero Poll.
func TestProcessRunningAtStartHasNoLostHistory(t *testing.T) {
	for _, e := range feed(t, dumpAt(20_000, 200, win(120, 17.5, 500, 339))) {
		if p, ok := e.(*source.Poll); ok && p.TotalFrames == 0 {
			t.Errorf("zero poll %+v for an app running at the start", p)
		}
	}
}

// Process tracking: a damaged pid line (the rows say it is the same process) is not a restart
// and counts nothing twice.
func TestDamagedPidLineIsNotARestart(t *testing.T) {
	d1 := dumpAt(11_000, 23817, win(60, 10, 1, 60))
	d2 := dumpAt(12_000, 23817, win(120, 10, 1, 120))
	d2 = bytes.Replace(d2, []byte("pid 23817 ["), []byte("pid 238 ["), 1)
	evs := feed(t, d1, d2)
	if n := len(frames(evs)); n != 120 {
		t.Errorf("%d frames, want 120", n)
	}
	all := strings.Join(notices(evs), "\n")
	if strings.Contains(all, "restarted") || !strings.Contains(all, "damaged pid line") {
		t.Errorf("notices:\n%s", all)
	}
}

// Per-window dedupe: a damaged title (the Window: line disagrees with the view-root line and
// the hierarchy) is repaired or held back: never a new window, never a frame twice.
func TestDamagedTitleMakesNoWindow(t *testing.T) {
	d1 := dumpAt(11_000, 5, win(60, 10, 1, 60))
	d2 := dumpAt(12_000, 5, win(120, 10, 1, 120))
	d2 = bytes.Replace(d2, []byte("Window: "+pkg+"/.Main\n"), []byte("Window: "+pkg+"/.MainStats since: 12459000000000ns\n"), 1)
	d3 := dumpAt(13_000, 5, win(120, 11, 61, 180))
	// the view-root line and the Window: line both damaged, the hierarchy gone: rows decide
	d3 = bytes.Replace(d3, []byte("\t"+pkg+"/.Main/android"), []byte("\tcom.exam/android"), 1)
	d3 = bytes.Replace(d3, []byte("Window: "+pkg+"/.Main\n"), []byte("Window: '#4'\n"), 1)
	d3 = d3[:bytes.Index(d3, []byte("View hierarchy:"))]
	evs := feed(t, d1, d2, d3)
	fs := frames(evs)
	seen := map[int64]bool{}
	for _, f := range fs {
		if seen[f.VsyncID] || f.Window != pkg+"/.Main" {
			t.Fatalf("frame %d in window %q (twice: %v)", f.VsyncID, f.Window, seen[f.VsyncID])
		}
		seen[f.VsyncID] = true
	}
	for _, p := range polls(evs) {
		if p.Window != pkg+"/.Main" {
			t.Errorf("poll of window %q", p.Window)
		}
	}
	if len(fs) != 180 {
		t.Errorf("%d frames, want 180", len(fs))
	}
	if w := strings.Join(notices(evs), "\n"); !strings.Contains(w, "title") {
		t.Errorf("the damaged titles are not counted:\n%s", w)
	}
}

// Per-window dedupe memory is bounded: 400 dumps (a day is the same) keep two rings of
// identities, and maps of them no more than twice that.
func TestDedupeMemoryBounded(t *testing.T) {
	tr := newTracker(pkg, "")
	for i := 0; i < 400; i++ {
		tr.apply(nil, dumpAt(int64(12_000+1000*i), 5, win(120, float64(10+i), int64(1+60*i), int64(60*(i+2)))))
	}
	ps := tr.procs.byPid[5]
	if ps == nil || len(ps.wins) != 1 {
		t.Fatalf("state %+v", ps)
	}
	ws := ps.wins[0]
	if ws.n != keep || len(ws.ids) > maxIdentities || len(ws.vsyncs) > maxIdentities || len(ws.dones) > maxIdentities || len(ws.gaps) > maxTorn {
		t.Errorf("memory: ring %d ids %d vsyncs %d dones %d gaps %d", ws.n, len(ws.ids), len(ws.vsyncs), len(ws.dones), len(ws.gaps))
	}
}

// A damaged "Total frames rendered" counter (1011 → −1 → 1113, or a digit lost) is not
// charged: the next good counter covers the frames.
func TestCounterChecks(t *testing.T) {
	var c counter
	steps := []struct {
		v, at int64
		want  int
	}{
		{1011, 1e9, counterOK},
		{-1, 2e9, counterSkip},
		{101, 3e9, counterSkip},   // a digit lost: lower
		{1113, 4e9, counterOK},    // 102 frames in 3 s
		{91130, 5e9, counterSkip}, // a digit more: faster than any display
		{1170, 6e9, counterOK},    //
		{50, 7e9, counterSkip},    // lower, once
		{51, 8e9, counterSkip},    // twice
		{52, 9e9, counterRebase},  // three times: the earlier value was the wrong one
		{100, 10e9, counterOK},
	}
	for i, s := range steps {
		if got := c.check(s.v, s.at, 0, 1, false); got != s.want {
			t.Errorf("step %d (%d): verdict %d, want %d", i, s.v, got, s.want)
		}
	}
	// A process counter sums its windows: four windows at 120 Hz add 480 a second, more than
	// one window can draw, and that is no damage (a clean stress capture warned 26 times).
	var proc counter
	proc.check(1000, 1e9, 0, 5, false)
	if got := proc.check(1480, 2e9, 0, 5, false); got != counterOK {
		t.Errorf("a four-window process counter growing 480 in 1 s: verdict %d, want OK", got)
	}
	if got := proc.check(1480+5000, 3e9, 0, 5, false); got != counterSkip {
		t.Errorf("a process counter growing 5000 in 1 s: verdict %d, want skip", got)
	}
	var first counter
	if first.check(20, 1e9, 120, 1, false) != counterSkip {
		t.Error("a first counter below the rows it printed was trusted")
	}
}

// Counters of a poll whose PROFILEDATA block was destroyed are deferred (the rows come back
// in the next dump): nothing is charged for them.
func TestDestroyedBlockDefersCounters(t *testing.T) {
	d1 := dumpAt(11_000, 5, win(60, 10, 1, 60))
	d2 := dumpAt(12_000, 5, win(120, 10, 1, 120))
	d2 = bytes.Replace(d2, []byte("IntendedVsync"), []byte("Intend\x01dVsync"), 1) // header damaged
	d3 := dumpAt(12_500, 5, win(120, 10.5, 31, 150))
	evs := feed(t, d1, d2, d3)
	var lost int64
	var last int64 = -1
	for _, p := range polls(evs) {
		if p.TotalFrames >= 0 {
			if last >= 0 && p.TotalFrames >= last {
				lost += max(0, p.TotalFrames-last-int64(p.NewRows))
			}
			last = p.TotalFrames
		}
	}
	if n := len(frames(evs)); n != 150 || lost != 0 {
		t.Errorf("%d frames, %d charged as lost; want 150 and 0", n, lost)
	}
}

// Event assembly: frames of every window in IntendedVsync order, a Refresh before the first
// frame at a rate, then polls and summaries.
func TestAssemblyOrder(t *testing.T) {
	a := win(5, 10, 1, 5)
	b := a
	b.title, b.start, b.firstID = pkg+"/.Popup", a.start+8_000_000, 100
	evs := feed(t, synthDump(nil, 24, 11_000, 5, pkg, []synthWin{a, b}))
	var kinds []string
	var last int64
	for _, e := range evs {
		switch e := e.(type) {
		case *source.Frame:
			if e.VsyncNs < last {
				t.Fatalf("frames out of order")
			}
			last = e.VsyncNs
			if len(kinds) == 0 || kinds[len(kinds)-1] != "F" {
				kinds = append(kinds, "F")
			}
		case *source.Refresh:
			kinds = append(kinds, "R")
		case *source.Poll:
			if kinds[len(kinds)-1] != "P" {
				kinds = append(kinds, "P")
			}
		}
	}
	if fmt.Sprint(kinds) != "[R F P]" {
		t.Errorf("order %v", kinds)
	}
	if n := len(frames(evs)); n != 10 {
		t.Errorf("%d frames", n)
	}
}

// dropProcessHistogram removes the process block's HISTOGRAM line (the first one), so its
// counter cannot be checked against it, as when that line was damaged too.
func dropProcessHistogram(d []byte) []byte {
	i := bytes.Index(d, []byte("HISTOGRAM:"))
	j := i + bytes.IndexByte(d[i:], '\n')
	return append(d[:i:i], d[j+1:]...)
}

// A damaged digit in the process "Total frames rendered" (180 read as 680) grows it at a
// plausible rate but by far more than its window's frames: it is deferred, not charged as 500
// lost frames; the next good counter is charged as usual (issue 13: seed 41 of the damaged
// capture reported 583 frames lost where 83 were).
func TestDamagedProcessCounterDigitNotCharged(t *testing.T) {
	d1 := dumpAt(10_000, 100, win(60, 9, 1, 60))
	d2 := dumpAt(11_000, 100, win(120, 9, 1, 120))
	d3 := dumpAt(13_000, 100, win(120, 10, 61, 180)) // 2 s later: 500 more is a plausible rate
	d3 = dropProcessHistogram(bytes.Replace(d3, []byte("Total frames rendered: 180"), []byte("Total frames rendered: 680"), 1))
	d4 := dumpAt(14_000, 100, win(120, 11, 121, 240))
	evs := feed(t, d1, d2, d3, d4)
	var lost, last int64 = 0, -1
	for _, p := range procPolls(evs) {
		if last >= 0 && p.TotalFrames >= last {
			lost += p.TotalFrames - last - int64(p.NewRows)
		}
		last = p.TotalFrames
	}
	if lost != 0 || last != 240 {
		t.Errorf("process counters charge %d lost (last %d); want 0 (last 240): %v", lost, last, procPolls(evs))
	}
	if !strings.Contains(strings.Join(notices(evs), "\n"), "grew beyond its windows") {
		t.Errorf("the damage is not warned: %q", notices(evs))
	}
	if n := len(frames(evs)); n != 240 {
		t.Errorf("%d frames, want 240", n)
	}
}

// A window that closed between two polls: the process counter's surplus is charged after two
// deferrals (its frames were drawn and never seen).
func TestProcessCounterSurplusChargedWhenItStays(t *testing.T) {
	var ds [][]byte
	for i := range 5 {
		d := dumpAt(int64(10_000+1000*i), 100, win(60, 9+float64(i), 1+60*int64(i), 60*int64(i+1)))
		if i > 0 {
			// a popup that drew 30 frames and closed before the second poll
			d = dropProcessHistogram(bytes.Replace(d, []byte(fmt.Sprintf("Total frames rendered: %d", 60*(i+1))),
				[]byte(fmt.Sprintf("Total frames rendered: %d", 60*(i+1)+30)), 1))
		}
		ds = append(ds, d)
	}
	evs := feed(t, ds...)
	var lost, last int64 = 0, -1
	for _, p := range procPolls(evs) {
		if last >= 0 && p.TotalFrames >= last {
			lost += p.TotalFrames - last - int64(p.NewRows)
		}
		last = p.TotalFrames
	}
	if lost != 30 {
		t.Errorf("process counters charge %d lost, want 30: %v", lost, procPolls(evs))
	}
}

// The session's first dump has an unreadable pid; the next readable one has rows that do not
// overlap (the ring turned over meanwhile): it is the same process, not a new one whose
// counter starts from nothing (metrics, which follows counters by window, would charge
// 240 − 60 as lost where 60 were).
func TestPidlessFirstDumpThenPid(t *testing.T) {
	d1 := bytes.Replace(dumpAt(10_000, 100, win(60, 9, 1, 60)), []byte("pid 100 ["), []byte("pid ?0 ["), 1)
	d2 := dumpAt(13_000, 100, win(120, 11, 121, 240))
	evs := feed(t, d1, d2)
	last := map[string]int64{}
	var lost int64
	for _, p := range polls(evs) {
		if v, ok := last[p.Window]; ok && p.TotalFrames >= v {
			lost += p.TotalFrames - v - int64(p.NewRows)
		}
		if p.TotalFrames >= 0 {
			last[p.Window] = p.TotalFrames
		}
	}
	if n := len(frames(evs)); n != 180 || lost != 60 {
		t.Errorf("%d frames and %d lost, want 180 and 60: %v", n, lost, polls(evs))
	}
	if s := strings.Join(notices(evs), "\n"); !strings.Contains(s, "unreadable pid") {
		t.Errorf("the damage is not warned: %s", s)
	}
}

// A capture of two dumps run together (the line between them lost) whose second block has both its pid and
// its name damaged: the frames both blocks print tell it is the same process, so none is
// emitted twice (a capture emitted 75 frames twice: the block got a memory of its own).
func TestRunTogetherPidAndNameDamaged(t *testing.T) {
	d1 := dumpAt(10_000, 100, win(60, 9, 1, 60))
	d2 := dumpAt(11_000, 100, win(120, 9, 1, 120))
	d2 = bytes.Replace(d2, []byte("Applications Graphics Acceleration Info:\n"), nil, 1)
	d2 = bytes.Replace(d2, []byte("pid 100 ["+pkg), []byte("pid ?0 [com.xample"), 1)
	d3 := dumpAt(12_000, 100, win(120, 10, 61, 180))
	// (a capture: the first chunk lists two processes, so no package is known from it)
	evs, err := readAllEvents(t, bytes.NewReader(append(append(d1, d2...), d3...)))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int64]int{}
	for _, f := range frames(evs) {
		if seen[f.VsyncID]++; seen[f.VsyncID] == 2 {
			t.Errorf("frame %d emitted twice", f.VsyncID)
		}
	}
	if len(seen) != 180 {
		t.Errorf("%d frames, want 180", len(seen))
	}
}

// A dump whose new rows are missing (no torn row says so) while old rows are torn: the torn
// rows lie among frames already seen, so they are not the missing ones and the counter's
// growth is deferred, not charged; the next dump shows the rows (a damaged capture charged 53
// frames as lost and then emitted them).
func TestTornOldRowsDoNotHideMissingNewOnes(t *testing.T) {
	d1 := dumpAt(11_000, 100, win(120, 9, 1, 120))
	var b []byte
	for _, l := range bytes.SplitAfter(dumpAt(12_000, 100, win(120, 10, 61, 180)), []byte("\n")) {
		var id int
		if _, err := fmt.Sscanf(string(l), "0,%d,", &id); err == nil {
			switch {
			case id > 120:
				continue // the new rows lost
			case id > 61 && id < 120:
				l = append(l[:len(l)/2:len(l)/2], '\n') // old rows torn
			}
		}
		b = append(b, l...)
	}
	d3 := dumpAt(13_000, 100, win(120, 11, 121, 240))
	evs := feed(t, d1, b, d3)
	lost := lostByCounters(evs)
	if n := len(frames(evs)); n != 240 || lost != 0 {
		t.Errorf("%d frames and %d lost, want 240 and 0: %v", n, lost, polls(evs))
	}
}

// The session's first dump has every row torn but a readable counter: none of its frames can
// be new, so that counter is the base (not deferred to a next dump that, the ring having
// turned over, would leave the 60 frames drawn in between neither seen nor lost).
func TestFirstDumpTornRowsCounterIsTheBase(t *testing.T) {
	d1 := halveRows(dumpAt(11_000, 100, win(120, 9, 1, 120)))
	d2 := dumpAt(14_000, 100, win(120, 12, 181, 300))
	evs := feed(t, d1, d2)
	lost := lostByCounters(evs)
	if n := len(frames(evs)); n != 120 || lost != 60 {
		t.Errorf("%d frames and %d lost, want 120 and 60: %v", n, lost, polls(evs))
	}
}

// A "Window:" line with the next line run in ("….MainStats since: …") is its view-root line's
// title: in the session's first dump, where nothing remembered can place its rows, the window
// is not held back, so its counter is the base and the 60 frames no dump showed are lost.
func TestWindowLineRunInRepairedFromViewRoot(t *testing.T) {
	d1 := bytes.Replace(dumpAt(11_000, 100, win(120, 9, 1, 120)), []byte("Window: "+pkg+"/.Main\n"), []byte("Window: "+pkg+"/.Main"), 1)
	d2 := dumpAt(14_000, 100, win(120, 12, 181, 300))
	evs := feed(t, d1, d2)
	for _, p := range polls(evs) {
		if p.Window != pkg+"/.Main" {
			t.Errorf("poll of window %q", p.Window)
		}
	}
	lost := lostByCounters(evs)
	if n := len(frames(evs)); n != 240 || lost != 60 {
		t.Errorf("%d frames and %d lost, want 240 and 60", n, lost)
	}
	if s := strings.Join(notices(evs), "\n"); !strings.Contains(s, "repaired from its view-root line") {
		t.Errorf("no repair warned: %s", s)
	}
}

// The session's first chunk is two dumps run together (the line between them lost), every
// row torn: the last block's counter is the base, and its torn rows are not new (they all
// completed by then), so the 90 frames drawn before the next readable dump and never shown
// are lost (not a base taken at that dump, with nothing lost).
func TestFirstChunkRunTogetherTornCounterIsTheBase(t *testing.T) {
	d0 := halveRows(dumpAt(10_500, 100, win(60, 9.5, 1, 60)))
	d1 := halveRows(dumpAt(11_000, 100, win(90, 9.5, 1, 90)))
	d1 = bytes.Replace(d1, []byte("Applications Graphics Acceleration Info:\n"), nil, 1)
	d2 := dumpAt(14_000, 100, win(120, 12, 181, 300))
	evs := feed(t, append(d0, d1...), d2)
	lost := lostByCounters(evs)
	if n := len(frames(evs)); n != 120 || lost != 90 {
		t.Errorf("%d frames and %d lost, want 120 and 90", n, lost)
	}
}

// A popup shown again is a new view root under the same title ("PopupWindow:c9cbcba"): its
// counter starts again at its one row. That is no damage: no warning, the new counter is
// reported, and the process counter, which outgrows the windows' own when one closed, is not
// deferred (a clean live session at 120 Hz warned of damage twice for each re-shown popup).
func TestPopupShownAgainIsNoDamage(t *testing.T) {
	const p = 16_666_667
	main1 := synthWin{title: pkg + "/.Main", rows: 40, start: 10e9, period: p, firstID: 1, total: 40}
	popup1 := synthWin{title: "PopupWindow:c9cbcba", rows: 27, start: 10e9 + 5e6, period: p, firstID: 1000, total: 27}
	main2 := main1
	main2.start, main2.firstID, main2.total = 10e9+30*p, 31, 70
	popup2 := synthWin{title: "PopupWindow:c9cbcba", rows: 1, start: 10e9 + 60*p + 5e6, period: p, firstID: 2000, total: 1}
	d1 := synthDump(nil, 23, 11_000, 5, pkg, []synthWin{main1, popup1})
	d2 := synthDump(nil, 23, 12_000, 5, pkg, []synthWin{main2, popup2})
	d2 = bytes.ReplaceAll(d2, []byte("ViewRootImpl@1a2b31"), []byte("ViewRootImpl@77e0f1a"))
	evs := feed(t, d1, d2)
	for _, e := range evs {
		if n, ok := e.(*source.Notice); ok && n.Level != source.LevelInfo {
			t.Errorf("notice on clean dumps: %s", n.Text)
		}
	}
	var popupTotals []int64
	procPolls := 0
	for _, e := range evs {
		if p, ok := e.(*source.Poll); ok {
			if p.Window == "PopupWindow:c9cbcba" {
				popupTotals = append(popupTotals, p.TotalFrames)
			}
			if p.Process && p.TotalFrames >= 0 {
				procPolls++
			}
		}
	}
	if fmt.Sprint(popupTotals) != "[27 1]" || procPolls != 2 {
		t.Errorf("popup counters %v (want [27 1]), process counters reported %d (want 2)", popupTotals, procPolls)
	}
}

// The events a dump emits are the consumer's: later dumps (the parser reuses its storage, the
// tracker carves new events from shared slabs) never rewrite its frames, their phases, its
// summaries and their histograms, or its polls.
func TestEmittedFramesNotRewritten(t *testing.T) {
	tr := newTracker(pkg, "")
	type kept struct {
		f  *source.Frame
		cp source.Frame
		ph source.Phases
	}
	var all []kept
	type keptSummary struct {
		s    *source.AndroidSummary
		cp   source.AndroidSummary
		hist []source.Bucket
	}
	var sums []keptSummary
	var ps []*source.Poll
	var pcs []source.Poll
	for i := 0; i < 30; i++ {
		evs := tr.apply(nil, dumpAt(int64(12_000+1000*i), 5, win(120, float64(10+i), int64(1+60*i), int64(60*(i+2)))))
		for _, e := range evs {
			switch e := e.(type) {
			case *source.AndroidSummary:
				sums = append(sums, keptSummary{e, *e, slices.Clone(e.Histogram)})
			case *source.Poll:
				ps, pcs = append(ps, e), append(pcs, *e)
			}
		}
		for _, f := range frames(evs) {
			if f.Phases == nil {
				t.Fatal("frame without phases")
			}
			all = append(all, kept{f, *f, *f.Phases})
		}
	}
	if len(all) < 30*60 {
		t.Fatalf("%d frames", len(all))
	}
	ids := map[int64]bool{}
	for _, k := range all {
		if *k.f != k.cp || *k.f.Phases != k.ph {
			t.Fatalf("frame %d rewritten after it was emitted", k.cp.VsyncID)
		}
		if ids[k.cp.VsyncID] {
			t.Fatalf("frame %d emitted twice", k.cp.VsyncID)
		}
		ids[k.cp.VsyncID] = true
	}
	if len(sums) < 30 || len(ps) < 30 {
		t.Fatalf("%d summaries, %d polls", len(sums), len(ps))
	}
	for _, k := range sums {
		if len(k.hist) == 0 || !slices.Equal(k.s.Histogram, k.hist) || k.s.AtNs != k.cp.AtNs || k.s.TotalFrames != k.cp.TotalFrames {
			t.Fatalf("summary at %d rewritten after it was emitted", k.cp.AtNs)
		}
	}
	for i, p := range ps {
		if *p != pcs[i] {
			t.Fatalf("poll at %d rewritten after it was emitted", pcs[i].AtNs)
		}
	}
}

// lostByCounters is what metrics charges as lost from the polls in evs: each counter's growth
// since the last readable one less the rows that poll accounted for.
func lostByCounters(evs []source.Event) int64 {
	var lost int64
	last := int64(-1)
	for _, p := range polls(evs) {
		if last >= 0 && p.TotalFrames >= last {
			lost += p.TotalFrames - last - int64(p.NewRows)
		}
		if p.TotalFrames >= 0 {
			last = p.TotalFrames
		}
	}
	return lost
}

// halveRows cuts every PROFILEDATA row of dump d (its lines starting "0,") in half.
func halveRows(d []byte) []byte {
	var out []byte
	for _, l := range bytes.SplitAfter(d, []byte("\n")) {
		if bytes.HasPrefix(l, []byte("0,")) {
			l = append(l[:len(l)/2:len(l)/2], '\n')
		}
		out = append(out, l...)
	}
	return out
}
