package gfxinfo

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/fpstop/fpstop/source"
)

// Damage that runs dumps together or moves the clock, found by the 30 % damage runs over
// the simulator (internal/testkit/e2e TestDamagedCapture): each case once counted frames twice or
// charged frames_lost for frames the dumps showed.

// charged returns what metrics charges as frames_lost for evs' polls (the same rule as
// metrics.Pipeline.addPoll: per window the counter's growth less NewRows, per process the
// same topped up beyond its windows' charge).
func charged(evs []source.Event) int64 {
	winLast, procLast, winLost := map[string]int64{}, map[int]int64{}, map[int]int64{}
	var lost int64
	for _, e := range evs {
		p, ok := e.(*source.Poll)
		if !ok || p.TotalFrames < 0 {
			continue
		}
		if p.Process {
			if last, ok := procLast[p.Pid]; ok && p.TotalFrames >= last {
				if l := p.TotalFrames - last - int64(p.NewRows); l > winLost[p.Pid] {
					lost += l - winLost[p.Pid]
				}
			}
			procLast[p.Pid], winLost[p.Pid] = p.TotalFrames, 0
			continue
		}
		if last, ok := winLast[p.Window]; ok && p.TotalFrames >= last {
			if l := p.TotalFrames - last - int64(p.NewRows); l > 0 {
				lost += l
				winLost[p.Pid] += l
			}
		}
		winLast[p.Window] = p.TotalFrames
	}
	return lost
}

// onceEach fails when a frame is emitted twice and returns how many were emitted.
func onceEach(t *testing.T, evs []source.Event) int {
	t.Helper()
	seen := map[string]bool{}
	for _, f := range frames(evs) {
		k := fmt.Sprint(f.Window, f.VsyncID)
		if seen[k] {
			t.Errorf("frame %s emitted twice", k)
		}
		seen[k] = true
	}
	return len(seen)
}

// tearRows damages the rows with vsync ids from..to (a garbage byte in a number).
func tearRows(d []byte, from, to int64) []byte {
	for id := from; id <= to; id++ {
		key := []byte(fmt.Sprintf(",%d,", id))
		i := bytes.Index(d, key)
		d = append(d[:i+len(key)+1:i+len(key)+1], append([]byte("x"), d[i+len(key)+1:]...)...)
	}
	return d
}

// runTogether joins dumps whose "Applications Graphics Acceleration Info:" line between them
// was damaged: one dump to the parser.
func runTogether(ds ...[]byte) []byte {
	var b []byte
	for i, d := range ds {
		if i > 0 {
			d = bytes.Replace(d, []byte("Acceleration Info:"), []byte("Acceleration Infl:"), 1)
		}
		b = append(b, d...)
	}
	return b
}

// Two dumps run together, the first copy's pid line joined to its Uptime line: the block
// without a pid is an older copy of the process beside it, not a process of its own (whose
// memory would make the rows it held new again to the real pid's memory), with -p and without
// (a capture read with --input).
func TestPidlessCopyBesideItsProcess(t *testing.T) {
	a := dumpAt(10_080, 5, win(5, 10, 1, 5))
	a = bytes.Replace(a, []byte("\n\n** Graphics info"), []byte("** Graphics info"), 1)
	b := tearRows(dumpAt(10_200, 5, win(12, 10, 1, 12)), 3, 5) // rows 3–5 readable in a only
	c := dumpAt(10_500, 5, win(30, 10, 1, 30))
	for _, p := range []string{pkg, ""} {
		tr := newTracker(p, "")
		var evs []source.Event
		for _, d := range [][]byte{runTogether(a, b), c} { // the session's first dump
			evs = tr.apply(evs, d)
		}
		evs = append(evs, tr.flush()...)
		if n := onceEach(t, evs); n != 30 {
			t.Errorf("-p %q: %d frames, want 30", p, n)
		}
		if l := charged(evs); l != 0 {
			t.Errorf("-p %q: %d frames charged as lost, want 0", p, l)
		}
		var pids []int
		for _, e := range evs {
			if s, ok := e.(*source.Session); ok {
				pids = append(pids, s.Pid)
			}
		}
		if fmt.Sprint(pids) != "[5]" {
			t.Errorf("-p %q: sessions of pids %v, want [5]", p, pids)
		}
		if w := strings.Join(notices(evs), "\n"); !strings.Contains(w, "damaged pid line") {
			t.Errorf("-p %q: the damage is not counted:\n%s", p, w)
		}
	}
}

// A window that first appears in the last of two copies of its process run together (a popup
// opened between them) counts its frames: the process's last poll is the previous dump, not
// the first copy of this one.
func TestNewWindowInLaterCopy(t *testing.T) {
	main := func(rows int, total int64) synthWin { return win(rows, 10, 1, total) }
	popup := synthWin{title: pkg + "/Popup", rows: 10, start: 11_700_000_000, period: 16_666_667, firstID: 5000, total: 10}
	d1 := dumpAt(11_000, 5, main(60, 60))
	older := dumpAt(11_500, 5, main(90, 90))
	newer := synthDump(nil, 23, 12_000, 5, pkg, []synthWin{main(120, 120), popup})
	evs := feed(t, d1, runTogether(older, newer))
	if n := onceEach(t, evs); n != 130 {
		t.Errorf("%d frames, want 130", n)
	}
	if l := charged(evs); l != 0 {
		t.Errorf("%d frames charged as lost, want 0", l)
	}
}

// A damaged Uptime that jumps ahead of the Realtime printed beside it (one flipped digit:
// 60 s ahead) is skipped: it would move the session clock, and with it every later dump
// without a readable Uptime line.
func TestUptimeAheadOfRealtime(t *testing.T) {
	d1 := dumpAt(11_000, 5, win(60, 10, 1, 60))
	d2 := dumpAt(11_500, 5, win(90, 10, 1, 90))
	d2 = bytes.Replace(d2, []byte("Uptime: 11500"), []byte("Uptime: 71500"), 1)
	d3 := dumpAt(12_000, 5, win(120, 10, 1, 120))
	d4 := dumpAt(12_500, 5, win(120, 10.5, 31, 150))
	d4 = bytes.Replace(d4, []byte("Uptime: 12500"), []byte("Uptim\x02: 12500"), 1)
	evs := feed(t, d1, d2, d3, d4)
	for _, e := range evs {
		if tk, ok := e.(*source.Tick); ok && tk.NowNs > 12_500_000_000 {
			t.Errorf("clock moved to %d ms", tk.NowNs/1e6)
		}
	}
	if n := onceEach(t, evs); n != 150 {
		t.Errorf("%d frames, want 150", n)
	}
	if w := strings.Join(notices(evs), "\n"); !strings.Contains(w, "damaged Uptime") {
		t.Errorf("the damage is not counted:\n%s", w)
	}
	var c uptimeCheck
	for i, s := range []struct {
		up, rt int64
		want   bool
	}{
		{1000e6, 5000e6, true},
		{1500e6, 5500e6, true},
		{9500e6, 6000e6, false}, // ahead of Realtime
		{2000e6, 6000e6, true},
		{2500e6, 90_000e6, true}, // Realtime jumped (deep sleep, or its own digit): no verdict
		{3000e6, 0, true},        // Realtime not readable
	} {
		if got := c.accept(s.up, s.rt, 0, 0); got != s.want {
			t.Errorf("step %d: accept(%d, %d) = %v", i, s.up, s.rt, got)
		}
	}
}

// A phone that hung for 15 s answers the poll asked before the hang with an Uptime 15 s past
// the last one: against the wall clock from the last dump's request to this dump's arrival
// that is no damage (against the request alone it was a false "damaged Uptime"); an Uptime
// ahead of even the arrival is still refused.
func TestUptimeAfterAHang(t *testing.T) {
	const s = int64(1e9)
	var c uptimeCheck
	if !c.accept(100*s, 500*s, 1000*s, 1000*s+s/10) {
		t.Fatal("the first Uptime refused")
	}
	if !c.accept(116*s, 516*s, 1001*s, 1016*s) {
		t.Error("the dump answered after a 15 s hang refused as damaged")
	}
	if c.accept(150*s, 550*s, 1017*s, 1018*s) {
		t.Error("an Uptime 32 s ahead of a 2 s wall-clock step accepted")
	}
}

// A pid line cut inside its number ("pid 2" of "pid 23817") or with a garbage byte in it is
// not read as a pid: the session's first dump made pid 2 the app's, and every later block of
// the real pid a "damaged" copy of it.
func TestCutPidLine(t *testing.T) {
	for _, cut := range []string{"pid 2\n", "pid 23x17 [" + pkg + "] **\n", "pid 2381"} {
		d1 := dumpAt(10_100, 23817, win(6, 10, 1, 6))
		d1 = bytes.Replace(d1, []byte("pid 23817 ["+pkg+"] **\n"), []byte(cut), 1)
		var p Parser
		d, err := p.Parse(d1)
		if err != nil || len(d.Processes) != 1 || d.Processes[0].Pid != 0 ||
			!strings.Contains(strings.Join(d.Warnings, "\n"), "unreadable pid") {
			t.Fatalf("%q: %v %+v", cut, err, d)
		}
		tr := newTracker("", "")
		var evs []source.Event
		for _, d := range [][]byte{d1, dumpAt(10_300, 23817, win(18, 10, 1, 18))} {
			evs = tr.apply(evs, d)
		}
		if n := onceEach(t, evs); n != 18 || tr.pid != 23817 {
			t.Errorf("%q: %d frames, pid %d; want 18 of pid 23817", cut, n, tr.pid)
		}
	}
}

// The session's first dump with its view-root line cut, an empty "Window:" line and the view
// hierarchy damaged: nothing confirms a title, and an empty one is never real. Its rows are
// held back (read from the next dump), never a window named "".
func TestEmptyWindowLine(t *testing.T) {
	d1 := dumpAt(10_100, 5, win(6, 10, 1, 6))
	d1 = bytes.Replace(d1, []byte("\t"+pkg+"/.Main/android.view.ViewRootImpl@1a2b30 (visibility=0)\n"), []byte("\tcom.ex\n"), 1)
	d1 = bytes.Replace(d1, []byte("Window: "+pkg+"/.Main\n"), []byte("Window:\n"), 1)
	d1 = bytes.Replace(d1, []byte("  "+pkg+"/.Main/android.view"), []byte("  "+pkg+"/.Main/a8droid.view"), 1)
	evs := feed(t, d1, dumpAt(10_300, 5, win(18, 10, 1, 18)))
	for _, f := range frames(evs) {
		if f.Window != pkg+"/.Main" {
			t.Fatalf("frame %d in window %q", f.VsyncID, f.Window)
		}
	}
	if n := onceEach(t, evs); n != 18 {
		t.Errorf("%d frames, want 18", n)
	}
	if w := strings.Join(notices(evs), "\n"); !strings.Contains(w, "held back") {
		t.Errorf("the damage is not counted:\n%s", w)
	}
}

// An Uptime line is read only whole: a garbage byte anywhere in it may have changed a digit.
func TestUptimeLine(t *testing.T) {
	for _, c := range []struct {
		line   string
		up, rt int64
	}{
		{"Uptime: 301234867 Realtime: 1406565376", 301234867e6, 1406565376e6},
		{"Uptime: 6127679 Realtime: 6127679\r", 6127679e6, 6127679e6},
		{"Uptime: 6127679", 6127679e6, 0},
		{"Uptime: 331235067 Realtime:\xef1406565576", 0, 0},
		{"Uptime: 3012\x0067 Realtime: 1406565576", 0, 0},
		{"Uptime: 301234867 Realtime: 1406565376** Graphics info for pid 5 [x] **", 0, 0},
		{"Uptime: 301234867 Realtime: 14065", 301234867e6, 14065e6}, // cut: the clocks check it
		{"Uptime: -5 Realtime: 1", 0, 0},
	} {
		up, rt, _ := uptimeLine([]byte(c.line[len("Uptime:"):]))
		if up != c.up || rt != c.rt {
			t.Errorf("%q: %d %d, want %d %d", c.line, up, rt, c.up, c.rt)
		}
	}
}

// feedCharged runs dumps through a live tracker and returns the frames emitted (each once) and
// what metrics would charge as lost.
func feedCharged(t *testing.T, dumps ...[]byte) (int, int64) {
	t.Helper()
	evs := feed(t, dumps...)
	return onceEach(t, evs), charged(evs)
}

// dropRows removes the lines of the rows with vsync ids from..to without a trace (lines run
// together with a neighbour that was itself dropped, a buffer cut).
func dropRows(d []byte, from, to int64) []byte {
	for id := from; id <= to; id++ {
		i := bytes.Index(d, []byte(fmt.Sprintf(",%d,", id)))
		if i < 0 {
			continue // out of the ring
		}
		s := bytes.LastIndexByte(d[:i], '\n') + 1
		e := i + bytes.IndexByte(d[i:], '\n') + 1
		d = append(d[:s:s], d[e:]...)
	}
	return d
}

// Rows that vanish without a torn row to say so (the counter grew by 30, 10 rows show): the
// counter is deferred, not charged; the next dump shows the rows.
func TestVanishedRowsDeferCounter(t *testing.T) {
	d1 := dumpAt(11_000, 5, win(60, 10, 1, 60))
	d2 := dropRows(dumpAt(11_500, 5, win(90, 10, 1, 90)), 61, 80)
	d3 := dumpAt(12_000, 5, win(120, 10, 1, 120))
	if n, lost := feedCharged(t, d1, d2, d3); n != 120 || lost != 0 {
		t.Errorf("%d frames, %d charged as lost; want 120 and 0", n, lost)
	}
	// The session ends on the deferred counter: no next dump shows the rows, they are lost.
	if n, lost := feedCharged(t, d1, d2); n != 70 || lost != 20 {
		t.Errorf("ending on the deferred counter: %d frames, %d charged as lost; want 70 and 20", n, lost)
	}
	// Rows that never come back are lost after all, at most two dumps later.
	d3 = dropRows(d3, 61, 80)
	d4 := dropRows(dumpAt(12_500, 5, win(120, 10.5, 31, 150)), 61, 80)
	d5 := dropRows(dumpAt(13_000, 5, win(120, 11, 61, 180)), 61, 80)
	d6 := dumpAt(13_500, 5, win(120, 11.5, 91, 210))
	if n, lost := feedCharged(t, d1, d2, d3, d4, d5, d6); n != 190 || lost != 20 {
		t.Errorf("%d frames, %d charged as lost; want 190 and 20", n, lost)
	}
}

// A view-root id damaged in a block with hardly a readable row is not a recreated activity:
// the window's counter is not started again (its first value after would be a baseline that
// credits every unreadable row as new).
func TestDamagedRootIDKeepsCounter(t *testing.T) {
	d1 := dumpAt(11_000, 5, win(60, 10, 1, 60))
	d2 := tearRows(dumpAt(11_500, 5, win(90, 10, 1, 90)), 1, 89) // one row readable, a new one
	// the new ones' torn lines duplicated, thrice
	for id := int64(61); id <= 89; id++ {
		i := bytes.Index(d2, []byte(fmt.Sprintf(",%d,", id)))
		s := bytes.LastIndexByte(d2[:i], '\n') + 1
		e := i + bytes.IndexByte(d2[i:], '\n') + 1
		d2 = append(d2[:s:s], append(bytes.Repeat(d2[s:e:e], 3), d2[e:]...)...)
	}
	d2 = bytes.Replace(d2, []byte("ViewRootImpl@1a2b30 (vis"), []byte("ViewRootImpl@1a2\x00 (vis"), 1)
	d2 = bytes.Replace(d2, []byte("  "+pkg+"/.Main/android"), []byte("  "+pkg+"/.Main/xndroid"), 1)
	d3 := dumpAt(12_000, 5, win(120, 10, 1, 120))
	d4 := dumpAt(12_500, 5, win(120, 10.5, 31, 150))
	if n, lost := feedCharged(t, d1, d2, d3, d4); n != 150 || lost != 0 {
		t.Errorf("%d frames, %d charged as lost; want 150 and 0", n, lost)
	}
}

// The session's first dump without a readable Uptime, the app not drawing yet (its counter at
// 0): every frame after it is the session's, none history, none charged as lost.
func TestFirstDumpWithoutUptimeAppNotDrawnYet(t *testing.T) {
	d1 := synthDump(nil, 23, 9_900, 5, pkg, nil) // the process, no window yet
	d1 = bytes.Replace(d1, []byte("Uptime: 9900"), []byte("Uptime: 99\x0000"), 1)
	d2 := dumpAt(10_400, 5, win(20, 10, 1, 20))
	evs := feed(t, d1, d2)
	for _, f := range frames(evs) {
		if f.History {
			t.Fatalf("frame %d is history", f.VsyncID)
		}
	}
	if n, lost := onceEach(t, evs), charged(evs); n != 20 || lost != 0 {
		t.Errorf("%d frames, %d charged as lost; want 20 and 0", n, lost)
	}
}

// A window counter damaged while its process's counter reads fine: the process's counter waits
// for the window's, or the frames lost meanwhile are charged twice (by the process's counter
// now, by the window's when it is next reported).
func TestDamagedWindowCounterDefersProcess(t *testing.T) {
	d1 := dumpAt(11_000, 5, win(60, 10, 1, 60))
	d2 := dropRows(dumpAt(11_500, 5, win(90, 10, 1, 90)), 61, 70) // frames 61–70 never shown
	i := bytes.LastIndex(d2, []byte("Total frames rendered: 90"))
	d2 = append(d2[:i:i], append([]byte("Total frames rend\x01red: 90"), d2[i+len("Total frames rendered: 90"):]...)...)
	dumps := [][]byte{d1, d2}
	for k := 0; k < 4; k++ {
		n := int64(120 + 30*k)
		dumps = append(dumps, dropRows(dumpAt(12_000+500*int64(k), 5, win(120, 10+0.5*float64(k), n-119, n)), 61, 70))
	}
	if n, lost := feedCharged(t, dumps...); n != 200 || lost != 10 {
		t.Errorf("%d frames, %d charged as lost; want 200 and 10", n, lost)
	}
}

// While the output is damaged the paced poll interval is a quarter (every row printed by
// several dumps); clean output keeps it: 60 frames a second → 1.5 s, damaged → 375 ms.
func TestDamagedOutputPollsFaster(t *testing.T) {
	w := func(n int64) synthWin { return win(120, 10+float64(n-120)/60, n-119, n) }
	d2 := tearRows(dumpAt(12_000, 5, w(180)), 150, 150)
	s := &script{steps: []step{{out: dumpAt(11_000, 5, w(120))}, {out: d2}, {out: dumpAt(13_000, 5, w(240))}}}
	_, sleeps := run(t, s, s, PollerConfig{})
	if sleeps[0] != time.Second || sleeps[1] != 375*time.Millisecond || sleeps[2] > 375*time.Millisecond {
		t.Errorf("sleeps %v, want 1s (clean), then at most 375ms while damaged", sleeps)
	}
}

// Rows with impossible values (a negative FrameCompleted, one far after the dump's Uptime) are
// dropped and counted in the warnings, as other dropped rows are.
func TestImpossibleRowsCounted(t *testing.T) {
	d := dumpAt(11_000, 5, win(5, 10, 1, 5))
	col := -1
	for i, n := range layoutNames[23] {
		if n == "FrameCompleted" {
			col = i
		}
	}
	for id, v := range map[int64]string{2: "-5", 3: "71000000000"} {
		i := bytes.Index(d, []byte(fmt.Sprintf(",%d,", id)))
		s := bytes.LastIndexByte(d[:i], '\n') + 1
		e := i + bytes.IndexByte(d[i:], '\n')
		f := strings.Split(string(d[s:e]), ",")
		f[col] = v
		d = append(d[:s:s], append([]byte(strings.Join(f, ",")), d[e:]...)...)
	}
	var p Parser
	dump, err := p.Parse(d)
	if err != nil {
		t.Fatal(err)
	}
	w := dump.Processes[0].Windows[0]
	warns := strings.Join(dump.Warnings, "\n")
	if len(w.Frames) != 3 || !strings.Contains(warns, "2× PROFILEDATA row with an impossible FrameCompleted") {
		t.Errorf("%d rows kept, warnings %q", len(w.Frames), warns)
	}
	evs := feed(t, d)
	if n := strings.Join(notices(evs), "\n"); !strings.Contains(n, "impossible FrameCompleted") {
		t.Errorf("not in the notices:\n%s", n)
	}
}

// heldBackCopy is dump d with the window's title damaged (its view-root line cut, an empty
// "Window:" line, the view hierarchy damaged) and its rows from..to torn: held back.
func heldBackCopy(d []byte, from, to int64) []byte {
	d = tearRows(d, from, to)
	d = bytes.Replace(d, []byte("\t"+pkg+"/.Main/android.view.ViewRootImpl@1a2b30 (visibility=0)\n"), []byte("\tcom.ex\n"), 1)
	d = bytes.Replace(d, []byte("Window: "+pkg+"/.Main\n"), []byte("Window:\n"), 1)
	return bytes.Replace(d, []byte("  "+pkg+"/.Main/android.view"), []byte("  "+pkg+"/.Main/a8droid.view"), 1)
}

// Two dumps run together, the newer copy held back: the older copy's counter (60) is deferred
// as the window's first, at the newer copy's time, and is the base of the next dump's counter.
// Frames of the ring that completed between the two copies (61–120) and are read at the next
// dump are not lost (as older than the window's first dump they were not counted as read, and
// were charged as lost as well: 60 too many). Frames no dump showed are lost (the older copy's
// rows torn too, the next dump two seconds on: 61–120 are never read).
func TestFirstDeferredCounterOfAnOlderCopy(t *testing.T) {
	for _, c := range []struct {
		older  []byte
		next   synthWin
		frames int
		lost   int64
	}{
		{dumpAt(11_000, 5, win(60, 10, 1, 60)), win(120, 11, 61, 180), 180, 0},
		{tearRows(dumpAt(11_000, 5, win(60, 10, 1, 60)), 1, 60), win(120, 12, 121, 240), 120, 60},
	} {
		newer := heldBackCopy(dumpAt(12_000, 5, win(120, 10, 1, 120)), 1, 120)
		evs := feed(t, runTogether(c.older, newer), dumpAt(14_000, 5, c.next))
		if n := onceEach(t, evs); n != c.frames {
			t.Errorf("%d frames, want %d", n, c.frames)
		}
		if l := charged(evs); l != c.lost {
			t.Errorf("%d frames charged as lost, want %d: %v", l, c.lost, polls(evs))
		}
	}
}
