package ui

import (
	"math"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/fpstop/fpstop/internal/testkit/fixture"
	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/source"
)

// tick is the refresh tick at wall time at, carrying snap.
func tick(at time.Time, snap *metrics.Snapshot) tickMsg { return tickMsg{now: at, snap: snap} }

// headerLine is the view's first line.
func headerLine(m Model) string { return strings.SplitN(m.View(), "\n", 2)[0] }

// TestStaleWhileDisconnected: the phone goes away 12 s before the screen is read. The header
// says DISCONNECTED with how old the numbers are, its clock went on (01:31 when the numbers
// were seen, 01:43 now: no freeze, and no jump when the device's time comes back), the status
// line has the plain sentence, not an adb command; golden View() snapshot.
func TestStaleWhileDisconnected(t *testing.T) {
	o := testOpts()
	m := New(o.build())
	t0 := fixture.Clock
	live := fixture.Live(1)
	live.Warnings = nil // the status line, not a warning's flash
	m = update(t, m, tea.WindowSizeMsg{Width: 120, Height: 40}, tick(t0, live))
	if h := headerLine(m); !strings.Contains(h, "LIVE") || !strings.Contains(h, "01:31") {
		t.Fatalf("live header: %q", h)
	}
	m = update(t, m, tick(t0.Add(4*time.Second), fixture.Disconnected()), tick(t0.Add(12*time.Second), fixture.Disconnected()))
	v := m.View()
	checkFrame(t, v, 120, 40)
	h := headerLine(m)
	if !strings.Contains(h, "DISCONNECTED · last seen 12 s ago") || !strings.Contains(h, "01:43") {
		t.Errorf("disconnected header: %q", h)
	}
	if !strings.Contains(v, "phone disconnected — waiting for it; fpstop retries every 5 s") || strings.Contains(v, "adb shell") {
		t.Errorf("status line:\n%s", v)
	}
	golden.RequireEqual(t, []byte(v))

	// Back: the device's time moved on by the gap, the clock with it; the badge is LIVE again.
	back := fixture.Live(3)
	back.NowNs = fixture.Live(1).NowNs + 14e9
	m = update(t, m, tick(t0.Add(14*time.Second), back))
	if h := headerLine(m); !strings.Contains(h, "LIVE") || !strings.Contains(h, "01:45") || strings.Contains(h, "last seen") {
		t.Errorf("header after the resume: %q", h)
	}
}

// TestStaleAfterOneDump: the phone goes away right after fpstop's first dump, whose frames span
// no session time yet (device time 0 or the origin itself). The header still says how old the
// numbers are, and its clock runs from that first snapshot (it showed neither, so a user could
// not tell a fresh outage from an old one).
func TestStaleAfterOneDump(t *testing.T) {
	for _, nowNs := range []int64{0, fixture.Live(1).OriginNs} {
		m := New(testOpts().build())
		t0 := fixture.Clock
		first := fixture.Live(1)
		first.NowNs = nowNs
		gone := fixture.Disconnected()
		gone.NowNs = nowNs
		m = update(t, m, tea.WindowSizeMsg{Width: 120, Height: 40}, tick(t0, first))
		m = update(t, m, tick(t0.Add(4*time.Second), gone), tick(t0.Add(12*time.Second), gone))
		if h := headerLine(m); !strings.Contains(h, "DISCONNECTED · last seen 12 s ago") || !strings.Contains(h, "00:12") {
			t.Errorf("device time %d: disconnected header %q, want last seen 12 s ago and the clock at 00:12", nowNs, h)
		}
	}
}

// TestDisconnectWarningsExpire: the warnings a disconnection leaves (the error said while
// disconnected, the resume, the gap) stay while the phone is away and leave the status line
// warningLinger (5 s) after the later of the phone's return and their arrival, on a plain tick
// too (no new snapshot); other warnings stay. (A gap warning stayed 47 s after the replug.)
func TestDisconnectWarningsExpire(t *testing.T) {
	m := New(testOpts().build())
	t0 := fixture.Clock
	live := fixture.Live(1)
	live.Warnings = []string{"refresh rate changed: 60 Hz → 90 Hz"}
	m = update(t, m, tea.WindowSizeMsg{Width: 200, Height: 40}, tick(t0, live))
	gone := fixture.Disconnected()
	gone.Warnings = append(live.Warnings, "phone disconnected — waiting for it; fpstop retries every 5 s")
	m = update(t, m, tick(t0.Add(time.Second), gone), tick(t0.Add(9*time.Second), gone))
	if s := m.status(); !strings.Contains(s, "2 warnings, latest: phone disconnected") {
		t.Errorf("status 8 s into the outage: %q", s)
	}
	back := fixture.Live(4)
	back.Warnings = append(gone.Warnings, "resumed after a disconnection (live)")
	m = update(t, m, tick(t0.Add(10*time.Second), back))
	if s := m.status(); !strings.Contains(s, "3 warnings, latest: resumed after a disconnection") {
		t.Errorf("status just after the resume: %q", s)
	}
	// the gap is told a little later, once the source has read the phone again
	gap := fixture.Live(5)
	gap.Warnings = append(back.Warnings, "gap: device disconnected (9.0 s not seen)")
	m = update(t, m, tick(t0.Add(12*time.Second), gap))
	if s := m.status(); !strings.Contains(s, "4 warnings, latest: gap: device disconnected") {
		t.Errorf("status when the gap is told: %q", s)
	}
	m = update(t, m, tick(t0.Add(16*time.Second), gap)) // the same snapshot: only time moved
	if s := m.status(); !strings.Contains(s, "2 warnings, latest: gap: device disconnected") {
		t.Errorf("status 6 s after the resume, 4 s after the gap was told: %q", s)
	}
	m = update(t, m, tick(t0.Add(17*time.Second), gap))
	if s := m.status(); s != "⚠ refresh rate changed: 60 Hz → 90 Hz" {
		t.Errorf("status 5 s after the gap was told: %q, want only the rate warning", s)
	}
	m = update(t, m, clearFlashMsg{id: m.flash.id}) // the gap's flash (6 s) ran out too
	if !strings.Contains(m.View(), "refresh rate changed") || strings.Contains(m.View(), "gap: device") {
		t.Errorf("the screen still tells the gap:\n%s", m.View())
	}
}

// TestNotRespondingWarningClears: "the phone is not responding" stays while the phone is silent
// (its device time stands still), however long, and leaves the status line warningLinger after
// the phone answers again (device time moves); it stayed all session.
func TestNotRespondingWarningClears(t *testing.T) {
	m := New(testOpts().build())
	t0 := fixture.Clock
	m = update(t, m, tea.WindowSizeMsg{Width: 200, Height: 40}, tick(t0, fixture.Live(1)))
	stalled := *fixture.Live(1)
	stalled.Seq = 2
	stalled.Warnings = append(stalled.Warnings, source.NotRespondingText("`dumpsys gfxinfo`", 3*time.Second))
	m = update(t, m, tick(t0.Add(4*time.Second), &stalled), tick(t0.Add(20*time.Second), &stalled))
	if s := m.status(); !strings.Contains(s, "the phone is not responding") {
		t.Errorf("status 16 s into the silence: %q", s)
	}
	answered := fixture.Live(3)
	answered.Warnings = stalled.Warnings
	m = update(t, m, tick(t0.Add(21*time.Second), answered), tick(t0.Add(25*time.Second), answered))
	if s := m.status(); !strings.Contains(s, "the phone is not responding") {
		t.Errorf("status 4 s after the phone answered: %q, want the warning still", s)
	}
	m = update(t, m, tick(t0.Add(26*time.Second), answered))
	if s := m.status(); strings.Contains(s, "not responding") {
		t.Errorf("status 5 s after the phone answered: %q, want the warning gone", s)
	}
}

// TestPickClearsNote: the note that said a device must be chosen goes once one is.
func TestPickClearsNote(t *testing.T) {
	o := testOpts()
	o.Note = "device 127.0.0.1:9999 is not connected: choose a device"
	m := dashboard(t, o, 120, 40, fixture.GfxinfoOnly())
	if !strings.Contains(m.status(), "choose a device") {
		t.Fatalf("status %q", m.status())
	}
	m = run(t, m, switchedMsg{what: "com.example.feed on R5CT"})
	if s := m.status(); strings.Contains(s, "choose a device") {
		t.Errorf("the note stays after a device was chosen: %q", s)
	}
	if v := m.View(); !strings.Contains(v, "now reading com.example.feed on R5CT") {
		t.Errorf("no flash for the switch:\n%s", v)
	}
}

// TestReplayTellsReplay: a replay's status line says replay, never the recorded source's
// "logcat live"; the header shows PAUSED when the replay is paused with space.
func TestReplayTellsReplay(t *testing.T) {
	o := testOpts()
	fr := &fakeReplay{cur: 42 * time.Second, total: 3 * time.Minute, speed: 1}
	o.Replay = fr
	m := New(o.build())
	m = run(t, m, tea.WindowSizeMsg{Width: 120, Height: 40})
	s := fixture.GfxinfoOnly()
	s.StateText = "logcat live"
	m = update(t, m, SnapshotMsg{s})
	if st := m.status(); strings.Contains(st, "logcat live") || !strings.Contains(st, "replay") {
		t.Errorf("replay status %q", st)
	}
	if h := headerLine(m); !strings.Contains(h, "REPLAY") {
		t.Fatalf("replay header %q", h)
	}
	m = run(t, m, keyMsg(" "))
	if !fr.paused {
		t.Fatal("space did not pause the replay")
	}
	if h := headerLine(m); !strings.Contains(h, "PAUSED") {
		t.Errorf("paused replay header %q", h)
	}
}

// TestGapDrawnAsGap (issue 27): seconds a disconnection left unseen are drawn as a broken
// column (┆, "not seen" under the chart), never as the idle marker; idle seconds the phone was
// seen in keep theirs.
func TestGapDrawnAsGap(t *testing.T) {
	s := fixture.Live(1)
	n := len(s.Series)
	for i := n - 8; i < n-4; i++ {
		s.Series[i] = metrics.SlicePoint{StartNs: s.Series[i].StartNs, FPS: math.NaN(), Idle: true, Gap: true}
	}
	v := dashboard(t, testOpts(), 120, 40, s).fps.View()
	chart := strings.Join(v, "\n")
	bottom := ""
	for _, l := range v {
		if strings.Contains(l, "0┤") {
			bottom = l
		}
	}
	// the fixture's eight idle seconds keep their dots; the four unseen ones have none
	if !strings.Contains(bottom, "┆┆┆┆") || strings.Count(bottom, "·") != 8 {
		t.Errorf("gap slices not drawn as a gap:\n%s", chart)
	}
	if !strings.Contains(chart, "┆ not seen") {
		t.Errorf("no legend for the gap mark:\n%s", chart)
	}
	if v := dashboard(t, testOpts(), 120, 40, fixture.Live(1)).fps.View(); strings.Contains(strings.Join(v, "\n"), "not seen") {
		t.Errorf("a gap legend without a gap:\n%s", strings.Join(v, "\n"))
	}
}
