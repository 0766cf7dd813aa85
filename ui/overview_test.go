package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/fpstop/fpstop/internal/testkit/fixture"
	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/source"
)

// snapSession is a Session that returns a fixed snapshot.
type snapSession struct{ snap *metrics.Snapshot }

func (s snapSession) Latest() *metrics.Snapshot { return s.snap }
func (s snapSession) Clear()                    {}

// overviewUpdate applies msgs and runs the overview's own read Cmds (no timers).
func overviewUpdate(t *testing.T, o Overview, msgs ...tea.Msg) Overview {
	t.Helper()
	for _, msg := range msgs {
		nm, _ := o.Update(msg)
		o = nm.(Overview)
	}
	return o
}

func TestOverviewListsDrillsAndReturns(t *testing.T) {
	a := fixture.Live(3)
	b := fixture.Live(5)
	b.Session.Device = source.Device{Serial: "R5CT1", Model: "SM-G991B", Android: "13"}
	b.Session.Package = "com.example.lite"
	gone := false
	list := func() []LabDevice {
		return []LabDevice{
			{Serial: a.Session.Device.Serial, Session: snapSession{a}},
			{Serial: "R5CT1", Session: snapSession{b}, Connected: func() bool { return !gone }},
		}
	}
	o := NewOverview(Options{Now: fixture.Now, After: func(time.Duration, func(time.Time) tea.Msg) tea.Cmd { return nil }}, list)
	o = overviewUpdate(t, o, tea.WindowSizeMsg{Width: 140, Height: 30}, o.Init()())
	screen := ansi.Strip(o.View())
	for _, want := range []string{"2 devices", "Pixel 7", "SM-G991B", "com.example.feed", "com.example.lite", "gfxinfo+logcat"} {
		if !strings.Contains(screen, want) {
			t.Errorf("overview lacks %q:\n%s", want, screen)
		}
	}
	// The live FPS and jank % are the snapshot's, as the report would say them.
	fps, _ := lastFPS(b.Series)
	if row := lineWith(screen, "R5CT1"); !strings.Contains(row, fmt.Sprintf("%.1f", fps)) || !strings.Contains(row, fmt.Sprintf("%.1f", b.Totals.JankPct)) {
		t.Errorf("row %q lacks fps %.1f and jank %.1f", row, fps, b.Totals.JankPct)
	}
	// enter on the second row opens that device's dashboard; esc comes back.
	o = overviewUpdate(t, o, keyMsg("down"), keyMsg("enter"))
	if o.open != "R5CT1" {
		t.Fatalf("enter opened %q", o.open)
	}
	m := o.dash["R5CT1"]
	m = update(t, m, SnapshotMsg{Snapshot: b})
	o.dash["R5CT1"] = m
	if s := ansi.Strip(o.View()); !strings.Contains(s, "com.example.lite") || strings.Contains(s, "2 devices") {
		t.Errorf("the drilled-in screen is not the device's dashboard:\n%s", s)
	}
	// esc with the help overlay open closes the overlay, not the dashboard.
	o = overviewUpdate(t, o, keyMsg("?"), keyMsg("esc"))
	if o.open != "R5CT1" {
		t.Fatal("esc closed the dashboard while its help was open")
	}
	o = overviewUpdate(t, o, keyMsg("esc"))
	if o.open != "" || !strings.Contains(ansi.Strip(o.View()), "2 devices") {
		t.Fatalf("esc did not come back to the overview")
	}
	// A device that went away is marked.
	gone = true
	o = overviewUpdate(t, o, o.read(0)())
	if row := lineWith(ansi.Strip(o.View()), "R5CT1"); !strings.Contains(row, "gone") {
		t.Errorf("unplugged device row %q does not say so", row)
	}
	if _, cmd := o.Update(keyMsg("q")); cmd == nil {
		t.Error("q does not quit")
	}
}

func lineWith(screen, s string) string {
	for _, l := range strings.Split(screen, "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}

// TestOverviewStaleDevice: a phone of a multi-device run disconnects. Its row keeps the last
// numbers, drawn in the one stale style (themes' Stale, as the single-device screen dims its
// panels), says how long ago they were current, and its sparkline stays after that; the live
// phone's row is untouched. Golden View() snapshot (no colour here: package colortest pins the
// style itself).
func TestOverviewStaleDevice(t *testing.T) {
	live := fixture.Live(3)
	b := fixture.Live(1)
	b.Session.Device = source.Device{Serial: "R5CT1", Model: "SM-G991B", Android: "13"}
	now := fixture.Clock
	list := func() []LabDevice {
		return []LabDevice{
			{Serial: live.Session.Device.Serial, Session: snapSession{live}},
			{Serial: "R5CT1", Session: snapSession{b}},
		}
	}
	o := NewOverview(Options{Now: func() time.Time { return now }, After: func(time.Duration, func(time.Time) tea.Msg) tea.Cmd { return nil }}, list)
	o = overviewUpdate(t, o, tea.WindowSizeMsg{Width: 140, Height: 8}, o.read(0)())
	if row := lineWith(ansi.Strip(o.View()), "R5CT1"); strings.Contains(row, "last seen") {
		t.Fatalf("a live row says last seen: %q", row)
	}
	// 4 s later the phone is gone: its device time stopped where it was.
	b = fixture.Disconnected()
	b.Session.Device = source.Device{Serial: "R5CT1", Model: "SM-G991B", Android: "13"}
	now = now.Add(4 * time.Second)
	o = overviewUpdate(t, o, o.read(0)())
	now = now.Add(8 * time.Second)
	o = overviewUpdate(t, o, o.read(0)())
	v := o.View()
	row := lineWith(ansi.Strip(v), "R5CT1")
	fps, _ := lastFPS(b.Series)
	if !strings.Contains(row, "✕ last seen 12 s ago") || !strings.Contains(row, fmt.Sprintf("%.1f", fps)) {
		t.Errorf("stale row %q: want its last FPS %.1f and \"last seen 12 s ago\"", row, fps)
	}
	if r := lineWith(ansi.Strip(v), live.Session.Device.Serial); strings.Contains(r, "last seen") {
		t.Errorf("the live row is marked stale: %q", r)
	}
	for _, l := range strings.Split(ansi.Strip(v), "\n") {
		if ansi.StringWidth(l) > 140 {
			t.Errorf("line wider than the terminal (%d): %q", ansi.StringWidth(l), l)
		}
	}
	golden.RequireEqual(t, []byte(v))
}

// TestOverviewHelpAndTheme: ? over the overview opens the help box built from its key map (esc
// closes it; the arrows do not move the selection behind it); t changes the overview's theme and
// a dashboard opened next is drawn in it; a theme chosen in a dashboard is kept by the overview
// on the way back.
func TestOverviewHelpAndTheme(t *testing.T) {
	a := fixture.Live(3)
	b := fixture.Live(5)
	b.Session.Device.Serial = "R5CT1"
	list := func() []LabDevice {
		return []LabDevice{{Serial: a.Session.Device.Serial, Session: snapSession{a}}, {Serial: "R5CT1", Session: snapSession{b}}}
	}
	o := NewOverview(Options{Now: fixture.Now, After: func(time.Duration, func(time.Time) tea.Msg) tea.Cmd { return nil }}, list)
	o = overviewUpdate(t, o, tea.WindowSizeMsg{Width: 120, Height: 20}, o.Init()())
	o = overviewUpdate(t, o, keyMsg("?"), keyMsg("down"))
	if s := ansi.Strip(o.View()); !o.helpOpen || !strings.Contains(s, "Keys") || !strings.Contains(s, "previous device") || o.sel != 0 {
		t.Fatalf("? did not open the overview's help over it (sel %d):\n%s", o.sel, s)
	}
	o = overviewUpdate(t, o, keyMsg("esc"))
	if o.helpOpen || strings.Contains(ansi.Strip(o.View()), "Keys") {
		t.Fatal("esc did not close the help")
	}
	first := o.themes[o.themeIdx].Name
	o = overviewUpdate(t, o, keyMsg("t"))
	second := o.themes[o.themeIdx].Name
	if second == first || o.st.Theme.Name != second {
		t.Fatalf("t on the overview: theme %q → %q (styles %q)", first, second, o.st.Theme.Name)
	}
	o = overviewUpdate(t, o, keyMsg("enter"))
	if d := o.dash[o.open]; d.theme().Name != second || d.st.Theme.Name != second {
		t.Errorf("the dashboard opened after t is drawn in %q, want %q", d.st.Theme.Name, second)
	}
	o = overviewUpdate(t, o, keyMsg("t"))
	third := o.dash[o.open].theme().Name
	o = overviewUpdate(t, o, keyMsg("esc"))
	if o.open != "" || o.st.Theme.Name != third || third == second {
		t.Errorf("back from a dashboard switched to %q: the overview is in %q", third, o.st.Theme.Name)
	}
}

// TestOverviewNoticeClears: a warning flashed on the overview leaves its notice line once it is
// 10 s old — a condition that has gone must not stay all session.
func TestOverviewNoticeClears(t *testing.T) {
	live := fixture.Live(3)
	now := fixture.Clock
	list := func() []LabDevice {
		return []LabDevice{{Serial: live.Session.Device.Serial, Session: snapSession{live}}}
	}
	o := NewOverview(Options{Now: func() time.Time { return now }, After: func(time.Duration, func(time.Time) tea.Msg) tea.Cmd { return nil }}, list)
	o = overviewUpdate(t, o, tea.WindowSizeMsg{Width: 140, Height: 8}, o.read(0)(), FlashMsg{Level: FlashWarn, Text: "gap: device disconnected (14.1 s not seen)"})
	if !strings.Contains(ansi.Strip(o.View()), "gap: device disconnected") {
		t.Fatalf("the notice is not shown:\n%s", ansi.Strip(o.View()))
	}
	now = now.Add(11 * time.Second)
	o = overviewUpdate(t, o, o.read(0)())
	if strings.Contains(ansi.Strip(o.View()), "gap: device disconnected") {
		t.Errorf("the notice is still shown 11 s later:\n%s", ansi.Strip(o.View()))
	}
}

// TestOverviewUsesTheScreen: three phones on a 140×40 terminal share its height: each row's FPS
// chart grows (11 lines each here, a blank line between), with its state and refresh rate in
// their columns, and no more than a few lines stay empty above the notice line; golden View().
func TestOverviewUsesTheScreen(t *testing.T) {
	var snaps []*metrics.Snapshot
	for i, d := range []source.Device{{Serial: "2A141FDH2000XY", Model: "Pixel 7"}, {Serial: "R5CT1", Model: "SM-G991B"}, {Serial: "emulator-5554", Model: "sdk_gphone64"}} {
		s := fixture.Live(uint64(i + 1))
		s.Session.Device = d
		snaps = append(snaps, s)
	}
	snaps[2].State, snaps[2].RefreshHz = source.StateIdle, 120
	list := func() []LabDevice {
		var out []LabDevice
		for _, s := range snaps {
			out = append(out, LabDevice{Serial: s.Session.Device.Serial, Session: snapSession{s}})
		}
		return out
	}
	now := fixture.Clock
	o := NewOverview(Options{Now: func() time.Time { return now }, After: func(time.Duration, func(time.Time) tea.Msg) tea.Cmd { return nil }}, list)
	o = overviewUpdate(t, o, tea.WindowSizeMsg{Width: 140, Height: 40}, o.read(0)())
	v := ansi.Strip(o.View())
	lines := strings.Split(v, "\n")
	if len(lines) != 40 {
		t.Fatalf("%d lines, want 40", len(lines))
	}
	empty := 0
	for _, l := range lines[2 : len(lines)-2] {
		if strings.TrimSpace(l) == "" {
			empty++
		}
	}
	if empty > 4 {
		t.Errorf("%d of 36 lines empty:\n%s", empty, v)
	}
	if !strings.Contains(v, "idle") || !strings.Contains(lineWith(v, "emulator-5554"), "120") {
		t.Errorf("state or Hz missing:\n%s", v)
	}
	// the idle phone's row has no current figure (its newest complete second had frames)
	if f := strings.Fields(lineWith(v, "emulator-5554")); len(f) < 7 || f[5] != "120" || f[6] != "–" {
		t.Errorf("the idle phone's row, HZ and FPS NOW: %q", f)
	}
	golden.RequireEqual(t, []byte(o.View()))
}
