package ui

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/muesli/termenv"

	"github.com/fpstop/fpstop/internal/testkit/fixture"
	"github.com/fpstop/fpstop/metrics"
)

// TestMain draws without colour: the goldens here pin layout and text. The TrueColor golden
// lives in package ui/colortest so profiles never mix in one test binary.
func TestMain(m *testing.M) {
	lipgloss.SetColorProfile(termenv.Ascii)
	os.Exit(m.Run())
}

// testOpts are Options with the fixed clock and callbacks that do nothing (so the footer
// shows every hint); tests that exercise a callback replace it.
func testOpts() topts {
	return topts{
		Options:  Options{Now: fixture.Now, Refresh: time.Hour, After: pendingTimer},
		OnClear:  func() {},
		OnRecord: func(bool) (string, error) { return "fpstop.jsonl.gz", nil },
		Devices:  func(context.Context) ([]DeviceItem, error) { return nil, nil },
		Apps:     func(context.Context, string) ([]AppItem, error) { return nil, nil },
	}
}

// update feeds msgs to m and returns the concrete model; Cmds are not run.
func update(t testing.TB, m Model, msgs ...tea.Msg) Model {
	t.Helper()
	for _, msg := range msgs {
		nm, _ := m.Update(msg)
		m = nm.(Model)
	}
	return m
}

// run feeds msg and runs the Cmds it returns back into the model, recursively (a few levels),
// skipping timers (their messages never arrive in a test without a program).
func run(t testing.TB, m Model, msg tea.Msg) Model {
	t.Helper()
	return runDepth(t, m, msg, 4)
}

func runDepth(t testing.TB, m Model, msg tea.Msg, depth int) Model {
	nm, cmd := m.Update(msg)
	m = nm.(Model)
	if depth == 0 {
		return m
	}
	for _, r := range runCmd(t, cmd) {
		m = runDepth(t, m, r, depth-1)
	}
	return m
}

// timerMsg is what a timer Cmd returns in these tests: the timer is noted, never waited for.
type timerMsg struct{ d time.Duration }

// pendingTimer is Options.After for tests: its Cmd returns a timerMsg at once.
func pendingTimer(d time.Duration, _ func(time.Time) tea.Msg) tea.Cmd {
	return func() tea.Msg { return timerMsg{d} }
}

// cmdLimit bounds one Cmd in runCmd: a Cmd that blocks this long is a bug (a hung callback),
// not something to skip.
const cmdLimit = 10 * time.Second

// runCmd runs cmd (and a Batch's Cmds) to completion and returns their messages, without the
// timerMsgs of timers (models built with testOpts schedule every timer through pendingTimer).
func runCmd(t testing.TB, cmd tea.Cmd) []tea.Msg {
	t.Helper()
	if cmd == nil {
		return nil
	}
	done := make(chan tea.Msg, 1)
	go func() { done <- cmd() }()
	var msg tea.Msg
	select {
	case msg = <-done:
	case <-time.After(cmdLimit):
		t.Fatalf("a Cmd did not return within %v (a real timer? build the model with testOpts)", cmdLimit)
	}
	switch msg := msg.(type) {
	case nil, timerMsg:
		return nil
	case tea.BatchMsg:
		var out []tea.Msg
		for _, c := range msg {
			out = append(out, runCmd(t, c)...)
		}
		return out
	}
	return []tea.Msg{msg}
}

func keyMsg(s string) tea.KeyMsg {
	switch s {
	case "esc":
		return tea.KeyMsg{Type: tea.KeyEsc}
	case "enter":
		return tea.KeyMsg{Type: tea.KeyEnter}
	case "tab":
		return tea.KeyMsg{Type: tea.KeyTab}
	case " ":
		return tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}}
	case "left":
		return tea.KeyMsg{Type: tea.KeyLeft}
	case "right":
		return tea.KeyMsg{Type: tea.KeyRight}
	case "home":
		return tea.KeyMsg{Type: tea.KeyHome}
	case "end":
		return tea.KeyMsg{Type: tea.KeyEnd}
	case "down":
		return tea.KeyMsg{Type: tea.KeyDown}
	case "up":
		return tea.KeyMsg{Type: tea.KeyUp}
	case "backspace":
		return tea.KeyMsg{Type: tea.KeyBackspace}
	case "ctrl+c":
		return tea.KeyMsg{Type: tea.KeyCtrlC}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)}
}

// dashboard returns a model of size w×h showing snap.
func dashboard(t testing.TB, o topts, w, h int, snap *metrics.Snapshot) Model {
	t.Helper()
	opts := o.build()
	if opts.After == nil {
		opts.After = pendingTimer
	}
	m := New(opts)
	return update(t, m, tea.WindowSizeMsg{Width: w, Height: h}, SnapshotMsg{snap})
}

// checkFrame asserts the view is exactly h lines of at most w cells.
func checkFrame(t *testing.T, view string, w, h int) {
	t.Helper()
	lines := strings.Split(view, "\n")
	if len(lines) != h {
		t.Fatalf("view has %d lines, want %d", len(lines), h)
	}
	for i, l := range lines {
		if lw := ansi.StringWidth(l); lw > w {
			t.Fatalf("line %d is %d cells wide, want at most %d: %q", i, lw, w, l)
		}
	}
}

func TestGolden(t *testing.T) {
	cases := []struct {
		name string
		w, h int
		snap *metrics.Snapshot
		opts func(*Options)
		keys []string
		// clear removes the flash (the fixture's warning) to show the status line.
		clear bool
	}{
		{name: "120x40", w: 120, h: 40, snap: fixture.Live(1)},
		{name: "80x24", w: 80, h: 24, snap: fixture.Live(1)},
		{name: "60x16", w: 60, h: 16, snap: fixture.Live(1)},
		{name: "200x60", w: 200, h: 60, snap: fixture.Live(1)},
		{name: "too_small", w: 50, h: 12, snap: fixture.Live(1)},
		{name: "help", w: 120, h: 40, snap: fixture.Live(1), keys: []string{"?"}},
		{name: "paused", w: 80, h: 24, snap: fixture.Live(1), keys: []string{"p"}, clear: true},
		{name: "idle", w: 120, h: 40, snap: fixture.Idle()},
		{name: "frozen", w: 120, h: 40, snap: fixture.Frozen()},
		{name: "no_frames", w: 120, h: 40, snap: fixture.NoFrames()},
		{name: "gfxinfo_only", w: 120, h: 40, snap: fixture.GfxinfoOnly()},
		{name: "slow_dispatch_only", w: 120, h: 40, snap: fixture.SlowDispatchOnly()},
		{name: "phases", w: 120, h: 40, snap: fixture.Live(1), keys: []string{"g"}},
		{name: "phases_80x24", w: 80, h: 24, snap: fixture.Live(1), keys: []string{"g"}},
		{name: "filter_typing", w: 120, h: 40, snap: fixture.Live(1), keys: []string{"/", "c", "h", "o"}},
		{name: "window_filter", w: 120, h: 40, snap: fixture.Live(1), keys: []string{"w"}},
		{name: "sort_count", w: 80, h: 24, snap: fixture.Live(1), keys: []string{"s", "s"}},
		{name: "detail", w: 120, h: 40, snap: fixture.Live(1), keys: []string{"down", "enter"}},
		{name: "long_names_200", w: 200, h: 60, snap: fixture.LongNames()},
		{name: "long_names_80", w: 80, h: 24, snap: fixture.LongNames()},
		{name: "connecting", w: 120, h: 40, snap: fixture.Connecting()},
		{name: "focus_graph", w: 120, h: 40, snap: fixture.Live(1), keys: []string{"tab"}},
		{name: "simulator", w: 80, h: 24, snap: fixture.Sim(1), opts: func(o *Options) {
			o.Note = "no device found: showing the simulator"
		}},
		{name: "replay", w: 120, h: 40, snap: fixture.Live(1), opts: func(o *Options) {
			o.Replay = &fakeReplay{cur: 42 * time.Second, total: 3 * time.Minute, speed: 2}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := testOpts()
			if c.opts != nil {
				c.opts(&o.Options)
			}
			m := New(o.build())
			m = update(t, m, tea.WindowSizeMsg{Width: c.w, Height: c.h})
			if o.Replay != nil {
				m = run(t, m, m.Init()()) // one poll: reads the replay position
			}
			m = update(t, m, SnapshotMsg{c.snap})
			for _, k := range c.keys {
				m = update(t, m, keyMsg(k))
			}
			if c.clear {
				m = update(t, m, clearFlashMsg{id: m.flash.id})
			}
			v := m.View()
			checkFrame(t, v, c.w, c.h)
			golden.RequireEqual(t, []byte(v))
		})
	}
}

// fakeReplay is a ReplayControl that records calls.
type fakeReplay struct {
	cur, total time.Duration
	speed      float64
	paused     bool
	seeks      []time.Duration
}

func (f *fakeReplay) Seek(d time.Duration) {
	f.seeks = append(f.seeks, d)
	f.cur = max(0, min(f.total, f.cur+d))
}
func (f *fakeReplay) SetSpeed(s float64)                   { f.speed = s }
func (f *fakeReplay) Speed() float64                       { return f.speed }
func (f *fakeReplay) Position() (cur, total time.Duration) { return f.cur, f.total }
func (f *fakeReplay) TogglePause() bool                    { f.paused = !f.paused; return f.paused }
func (f *fakeReplay) Paused() bool                         { return f.paused }

func TestDevicePickerUnauthorized(t *testing.T) {
	o := testOpts()
	o.Devices = func(ctx context.Context) ([]DeviceItem, error) {
		return []DeviceItem{
			{Serial: "2A141FDH2000XY", Model: "Pixel 7", Android: "14", State: "device"},
			{Serial: "R58M12ABCDE", Model: "", Android: "", State: "unauthorized"},
			{Serial: "emulator-5554", Model: "sdk_gphone64", Android: "15", State: "offline"},
		}, nil
	}
	m := dashboard(t, o, 100, 30, fixture.Live(1))
	m = run(t, m, keyMsg("d"))
	m = update(t, m, keyMsg("down"))
	v := m.View()
	checkFrame(t, v, 100, 30)
	if !strings.Contains(v, "Allow USB debugging") {
		t.Fatalf("no help for the unauthorized device:\n%s", v)
	}
	if !strings.Contains(v, "device · in use") {
		t.Errorf("the phone on screen is not marked in use:\n%s", v)
	}
	golden.RequireEqual(t, []byte(v))
	// An unauthorized device cannot be picked.
	nm, cmd := m.Update(keyMsg("enter"))
	if cmd != nil {
		t.Fatalf("picking an unauthorized device returned a command")
	}
	m = nm.(Model)
	// esc closes.
	m = run(t, m, keyMsg("esc"))
	if m.overlay != overlayNone {
		t.Fatalf("esc did not close the picker")
	}
}

func TestZeroSize(t *testing.T) {
	m := New(testOpts().build())
	if v := m.View(); v != "" {
		t.Fatalf("view before the first WindowSizeMsg = %q, want empty", v)
	}
	m = update(t, m, SnapshotMsg{fixture.Live(1)})
	if v := m.View(); v != "" {
		t.Fatalf("view with data but no size = %q, want empty", v)
	}
	m = update(t, m, tea.WindowSizeMsg{Width: 0, Height: 0})
	_ = m.View()
}

// TestEverySizeFits renders many sizes and checks no line is wider than the terminal and the
// frame has exactly the terminal's height.
func TestEverySizeFits(t *testing.T) {
	for _, w := range []int{1, 20, 59, 60, 61, 79, 80, 99, 100, 101, 119, 120, 160, 200, 240} {
		for _, h := range []int{1, 10, 15, 16, 17, 20, 24, 33, 34, 40, 60} {
			for _, snap := range []*metrics.Snapshot{fixture.Live(1), fixture.Idle(), {}} {
				m := dashboard(t, testOpts(), w, h, snap)
				checkFrame(t, m.View(), w, h)
				m = update(t, m, keyMsg("?"))
				checkFrame(t, m.View(), w, h)
			}
		}
	}
}
