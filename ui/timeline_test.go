package ui

import (
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/fpstop/fpstop/internal/testkit/fixture"
	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/source"
)

// TestTimelineGolden pins the timeline view: the whole run following the newest frame, zoomed
// and panned onto the freeze, and at the smallest full layout.
func TestTimelineGolden(t *testing.T) {
	cases := []struct {
		name string
		w, h int
		keys []string
	}{
		{name: "whole_run", w: 120, h: 40, keys: []string{"f"}},
		{name: "zoomed_on_freeze", w: 120, h: 40, keys: []string{"f", "+", "+", "left", "left", "left", "left"}},
		{name: "80x24", w: 80, h: 24, keys: []string{"f"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := dashboard(t, testOpts(), c.w, c.h, fixture.Timeline())
			for _, k := range c.keys {
				m = update(t, m, keyMsg(k))
			}
			v := m.View()
			checkFrame(t, v, c.w, c.h)
			golden.RequireEqual(t, []byte(v))
		})
	}
}

// cursorTo presses key until the cursor line contains want (at most n times).
func cursorTo(t *testing.T, m Model, key, want string, n int) Model {
	t.Helper()
	for range n {
		if strings.Contains(m.tl.cursorLine(), want) {
			return m
		}
		m = update(t, m, keyMsg(key))
	}
	t.Fatalf("the cursor never reached %q pressing %q %d times: %s", want, key, n, m.tl.cursorLine())
	return m
}

// TestTimelineFreeze: walking the janky frames back from the newest reaches the freeze; it is
// shown as a freeze (its line says FROZEN, the strip has █ under its columns, the caret is in
// them) with the message the worst-frames list attributes to it.
func TestTimelineFreeze(t *testing.T) {
	m := dashboard(t, testOpts(), 120, 40, fixture.Timeline())
	m = update(t, m, keyMsg("f"))
	if m.overlay != overlayTimeline || !m.tl.IsOpen() {
		t.Fatal("f did not open the timeline")
	}
	m = cursorTo(t, m, "[", "FROZEN", 200)
	if f := m.tl.frames[m.tl.cursor]; f.VsyncNs != fixture.FreezeVsyncNs {
		t.Fatalf("cursor on %+v, want the freeze at %d", f, fixture.FreezeVsyncNs)
	}
	cur := m.tl.cursorLine()
	if !strings.Contains(cur, "00:52.300") || !strings.Contains(cur, "2.4 s") {
		t.Errorf("cursor line %q, want the freeze's time 00:52.300 and its 2.4 s", cur)
	}
	msgs := m.tl.messagesLine()
	if !strings.HasPrefix(strings.TrimSpace(msgs), "messages:") || !strings.Contains(msgs, "ActivityThread$H") || !strings.Contains(msgs, "412") {
		t.Errorf("messages line %q, want the worst frame's own message (ActivityThread$H, 412 ms)", msgs)
	}
	lines := strings.Split(m.View(), "\n")
	strip, caret := lines[len(lines)-5], lines[len(lines)-4]
	at := strings.Index(caret, "^")
	if at < 0 {
		t.Fatalf("no caret under the chart: %q", caret)
	}
	if r := []rune(strip); at >= len(r) || r[at] != '█' {
		t.Errorf("strip %q has no █ above the caret at %d", strip, at)
	}
}

// TestTimelineKeysStayInside: while the timeline is open, ← → + - zoom and pan it and never
// reach the replay; space still plays and pauses it; esc closes and the keys seek again.
func TestTimelineKeysStayInside(t *testing.T) {
	o := testOpts()
	fr := &fakeReplay{cur: 60 * time.Second, total: 3 * time.Minute, speed: 1}
	o.Replay = fr
	m := dashboard(t, o, 120, 40, fixture.Timeline())
	m = update(t, m, keyMsg("f"))
	for _, k := range []string{"+", "+", "left", "right", "-"} {
		m = run(t, m, keyMsg(k))
	}
	if len(fr.seeks) != 0 || fr.speed != 1 {
		t.Errorf("inside the timeline the replay got seeks %v, speed %v; want none, 1", fr.seeks, fr.speed)
	}
	if m.tl.zoom != 1 || m.tl.follow {
		t.Errorf("zoom %d, following %v; want zoom 1 (+ + -), not following after a pan", m.tl.zoom, m.tl.follow)
	}
	m = run(t, m, keyMsg(" "))
	if !fr.paused {
		t.Error("space inside the timeline did not pause the replay")
	}
	m = update(t, m, keyMsg("esc"))
	if m.overlay != overlayNone || m.tl.IsOpen() || m.tl.View() != nil {
		t.Fatal("esc did not close the timeline")
	}
	m = run(t, m, keyMsg("left"))
	if len(fr.seeks) != 1 || fr.seeks[0] != -SeekStep {
		t.Errorf("outside the timeline ← gave seeks %v, want [%v]", fr.seeks, -SeekStep)
	}
}

// TestTimelineFollowsNewest: while following, the cursor is on the newest frame of each new
// snapshot (the playhead in a replay); after the cursor moves it stays on its frame; 0 follows
// again.
func TestTimelineFollowsNewest(t *testing.T) {
	s := fixture.Timeline()
	cut := len(s.History) / 2
	early := *s
	early.Seq, early.History, early.NowNs = 1, s.History[:cut], s.History[cut-1].VsyncNs
	m := dashboard(t, testOpts(), 120, 40, &early)
	m = update(t, m, keyMsg("f"))
	if m.tl.cursor != cut-1 {
		t.Fatalf("cursor %d, want the newest frame %d", m.tl.cursor, cut-1)
	}
	later := *s
	later.Seq = 2
	m = update(t, m, SnapshotMsg{&later})
	if want := len(s.History) - 1; m.tl.cursor != want {
		t.Errorf("after a newer snapshot the cursor is %d, want the newest frame %d", m.tl.cursor, want)
	}
	m = update(t, m, keyMsg(","), keyMsg(","))
	held := m.tl.frames[m.tl.cursor].VsyncNs
	again := *s
	again.Seq = 3
	m = update(t, m, SnapshotMsg{&again})
	if got := m.tl.frames[m.tl.cursor].VsyncNs; got != held || m.tl.follow {
		t.Errorf("a moved cursor went to %d (following %v), want it held on %d", got, m.tl.follow, held)
	}
	m = update(t, m, keyMsg("0"))
	if !m.tl.follow || m.tl.cursor != len(s.History)-1 || m.tl.zoom != 0 {
		t.Errorf("0: following %v, cursor %d, zoom %d; want following the newest at zoom 0", m.tl.follow, m.tl.cursor, m.tl.zoom)
	}
}

// TestColumnPoints: many frames become at most two points a column, the slowest kept; a
// frozen frame is a plateau to its end; a gap in the frames cuts the line.
func TestColumnPoints(t *testing.T) {
	var fs []metrics.FrameMark
	for i := range int64(1000) {
		cost := int64(8e6)
		if i == 500 {
			cost = 90e6
		}
		fs = append(fs, metrics.FrameMark{VsyncNs: i * 1e6, CostNs: cost})
	}
	ps := columnPoints(fs, 0, 1000e6, 10, 50)
	if len(ps) != 20 {
		t.Fatalf("%d points for 1000 frames in 10 columns, want 20", len(ps))
	}
	if ps[10].ms != 50 || ps[10].t != 500e6 {
		t.Errorf("column 5's slowest point %+v, want the 90 ms frame at 500 ms clipped to 50", ps[10])
	}
	freeze := []metrics.FrameMark{
		{VsyncNs: 0, CostNs: 8e6},
		{VsyncNs: 16e6, CostNs: 2e9, Level: metrics.LevelFrozen},
		{VsyncNs: 2.1e9, CostNs: 8e6},
		{VsyncNs: 5e9, CostNs: 8e6}, // after 2.9 s idle
	}
	segs := splitAtGaps(columnPoints(freeze, 0, 6e9, 100, 100), 250e6, 32)
	if len(segs) != 3 || len(segs[0]) != 2 || len(segs[1]) != 1 || len(segs[2]) != 1 {
		t.Fatalf("segments %+v, want the line cut after the freeze's start and before the frame after the idle gap", segs)
	}
}

// TestFreezes: a freeze is a frozen-level frame, or a stretch without frames that a frozen
// slice of the FPS series overlaps (Choreographer skipped the vsyncs), or one still going on;
// a stretch without frames and without a frozen slice is idle, not a freeze.
func TestFreezes(t *testing.T) {
	fs := []metrics.FrameMark{
		{VsyncNs: 0, CostNs: 8e6},
		{VsyncNs: 16e6, CostNs: 2e9, Level: metrics.LevelFrozen}, // 1: frozen by its own cost
		{VsyncNs: 2.1e9, CostNs: 8e6},
		{VsyncNs: 5e9, CostNs: 8e6}, // 3: after 2.9 s without frames, slices 3–4 frozen
		{VsyncNs: 5.1e9, CostNs: 8e6},
		{VsyncNs: 8e9, CostNs: 8e6}, // 5: after 2.9 s idle (no frozen slice)
		{VsyncNs: 8.1e9, CostNs: 8e6},
	}
	series := make([]metrics.SlicePoint, 12)
	for i := range series {
		series[i] = metrics.SlicePoint{StartNs: int64(i) * 1e9, Frozen: i == 3 || i == 4 || i >= 10}
	}
	got := freezes(fs, series, 1e9, 11.5e9)
	want := []freezeSpan{{16e6, 2016e6, 1}, {2108e6, 5e9, 3}, {8108e6, 11.5e9, -1}}
	if len(got) != len(want) {
		t.Fatalf("freezes %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("freeze %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	m := timelineModel{frames: fs, freezes: got}
	if s := m.freezeText(3); !strings.Contains(s, "FROZEN 2.9 s") {
		t.Errorf("frame 3's text %q, want it to end a FROZEN stretch of 2.9 s", s)
	}
	if m.freezeText(5) != "" {
		t.Errorf("frame 5 (after an idle stretch) reads %q, want no freeze", m.freezeText(5))
	}
	plat := m.freezePlateaus(1e9, 6e9, 100, 32)
	if len(plat) != 2 || plat[0][0] != (chartPoint{1e9, 100}) || plat[0][1] != (chartPoint{2016e6, 100}) {
		t.Errorf("plateaus %+v, want the first from the view's start (1 s) to 2.016 s at 100, found from a view starting inside it", plat)
	}
}

// TestClickOpensTimeline: a left click inside the frame-time panel opens the timeline; one on
// another panel does not.
func TestClickOpensTimeline(t *testing.T) {
	m := dashboard(t, testOpts(), 120, 40, fixture.Timeline())
	lines := strings.Split(m.View(), "\n")
	ftY, fpsY := -1, -1
	for y, l := range lines {
		if ftY < 0 && strings.Contains(l, "Frame time") {
			ftY = y
		}
		if fpsY < 0 && strings.Contains(l, "FPS") {
			fpsY = y
		}
	}
	if ftY < 0 || fpsY < 0 {
		t.Fatalf("no frame-time or FPS panel title on screen:\n%s", strings.Join(lines, "\n"))
	}
	click := func(y int) tea.MouseMsg {
		return tea.MouseMsg{X: 5, Y: y + 2, Action: tea.MouseActionPress, Button: tea.MouseButtonLeft}
	}
	if m2 := update(t, m, click(fpsY)); m2.overlay == overlayTimeline {
		t.Errorf("a click in the FPS panel (line %d) opened the timeline", fpsY+2)
	}
	if m2 := update(t, m, click(ftY)); m2.overlay != overlayTimeline || !m2.tl.IsOpen() {
		t.Errorf("a click in the frame-time panel (line %d) did not open the timeline", ftY+2)
	}
}

// TestTimelineEverySizeFits: at every size from the minimum up, open or filtered to one window,
// with frames or none, the timeline fills the screen exactly, never wider.
func TestTimelineEverySizeFits(t *testing.T) {
	snaps := map[string]*metrics.Snapshot{"frames": fixture.Timeline(), "no frames": fixture.NoFrames()}
	for name, s := range snaps {
		for _, w := range []int{MinWidth, 61, 80, 99, 120, 161, 200} {
			for _, h := range []int{MinHeight, 17, 24, 33, 40, 60} {
				m := dashboard(t, testOpts(), w, h, s)
				m = update(t, m, keyMsg("f"))
				checkFrame(t, m.View(), w, h)
				m = update(t, m, keyMsg("+"), keyMsg("left"), keyMsg("["))
				checkFrame(t, m.View(), w, h)
				if m.overlay != overlayTimeline {
					t.Fatalf("%s at %d×%d: the timeline closed", name, w, h)
				}
			}
		}
	}
	m := dashboard(t, testOpts(), 120, 40, fixture.Timeline())
	m = update(t, m, keyMsg("w"), keyMsg("f"))
	for _, f := range m.tl.frames {
		if f.Window != m.tl.window || m.tl.window == "" {
			t.Fatalf("filtered to %q, the timeline has a frame of %q", m.tl.window, f.Window)
		}
	}
	checkFrame(t, m.View(), 120, 40)
}

// TestTimelineNarrowest: + stops at the narrowest span and the title says so.
func TestTimelineNarrowest(t *testing.T) {
	m := dashboard(t, testOpts(), 120, 40, fixture.Timeline())
	m = update(t, m, keyMsg("f"))
	for range 20 {
		m = update(t, m, keyMsg("+"))
	}
	lo, hi := m.tl.viewRange()
	if hi-lo < minTimelineSpanNs || hi-lo >= 2*minTimelineSpanNs {
		t.Errorf("after 20 × + the view is %d ms, want the narrowest: 500 ms to 1 s", (hi-lo)/1e6)
	}
	if title := strings.Split(m.View(), "\n")[0]; !strings.Contains(title, "narrowest") {
		t.Errorf("title %q does not say the zoom is at its narrowest", title)
	}
	m = update(t, m, keyMsg("-"))
	if title := strings.Split(m.View(), "\n")[0]; strings.Contains(title, "narrowest") {
		t.Errorf("after - the title still says narrowest: %q", title)
	}
}

// TestTimelineDisconnected: while the device is disconnected the timeline says so instead of
// claiming to follow the newest frame.
func TestTimelineDisconnected(t *testing.T) {
	s := fixture.Timeline()
	s.State = source.StateDisconnected
	m := dashboard(t, testOpts(), 120, 40, s)
	m = update(t, m, keyMsg("f"))
	title := strings.Split(m.View(), "\n")[0]
	if !strings.Contains(title, "DISCONNECTED") || strings.Contains(title, "following") {
		t.Errorf("title %q, want DISCONNECTED and no claim to follow", title)
	}
	checkFrame(t, m.View(), 120, 40)
}

// TestEnterOnFocusedGraph: enter acts on the panel with the focus: the messages table's details
// at first, the timeline once tab gave the graph the focus (and back to details after another
// tab, or after esc closed the timeline and tab moved on); the footer offers the graph's enter
// only while it has the focus, and the help lists tab.
func TestEnterOnFocusedGraph(t *testing.T) {
	m := dashboard(t, testOpts(), 120, 40, fixture.Timeline())
	if m2 := update(t, m, keyMsg("enter")); m2.overlay != overlayDetail {
		t.Fatalf("enter without tab: overlay %v, want the message details", m2.overlay)
	}
	if strings.Contains(m.View(), "enter timeline") {
		t.Errorf("the footer offers enter for the timeline before the graph has the focus")
	}
	m = update(t, m, keyMsg("tab"))
	v := m.View()
	if !strings.Contains(v, "enter timeline") {
		t.Errorf("graph focused: the footer does not offer enter for the timeline:\n%s", v)
	}
	if !strings.Contains(v, focusMark+"Frame time") {
		t.Errorf("graph focused: its title does not show the focus mark %q:\n%s", focusMark, v)
	}
	m = update(t, m, keyMsg("enter"))
	if m.overlay != overlayTimeline || !m.tl.IsOpen() {
		t.Fatalf("tab enter: overlay %v, want the timeline", m.overlay)
	}
	m = update(t, m, keyMsg("esc"), keyMsg("enter"))
	if m.overlay != overlayTimeline {
		t.Fatalf("esc enter: overlay %v, want the timeline again (the graph keeps the focus)", m.overlay)
	}
	m = update(t, m, keyMsg("esc"), keyMsg("tab"), keyMsg("enter"))
	if m.overlay != overlayDetail {
		t.Errorf("tab back to the messages, enter: overlay %v, want the message details", m.overlay)
	}
	if !strings.Contains(update(t, m, keyMsg("esc"), keyMsg("?")).View(), "tab") {
		t.Errorf("the help overlay does not list tab")
	}
}
