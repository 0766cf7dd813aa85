package ui

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/fpstop/fpstop/internal/testkit/fixture"
	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/themes"
)

func TestPauseStopsApplyingSnapshots(t *testing.T) {
	m := dashboard(t, testOpts(), 120, 40, fixture.Live(1))
	m = update(t, m, keyMsg("p"))
	if !m.Paused() || !strings.Contains(m.View(), "PAUSED") {
		t.Fatalf("p did not pause:\n%s", m.View())
	}
	m = update(t, m, SnapshotMsg{fixture.Live(2)}, tickMsg{snap: fixture.Live(3), now: fixture.Clock})
	if got := m.Snapshot().Seq; got != 1 {
		t.Fatalf("paused screen applied snapshot %d", got)
	}
	m = update(t, m, keyMsg(" "))
	if m.Paused() {
		t.Fatalf("space did not resume")
	}
	m = update(t, m, tickMsg{snap: fixture.Live(3), now: fixture.Clock})
	if got := m.Snapshot().Seq; got != 3 {
		t.Fatalf("resumed screen shows snapshot %d, want 3", got)
	}
}

func TestSameSeqIsNotRedrawn(t *testing.T) {
	m := dashboard(t, testOpts(), 120, 40, fixture.Live(1))
	before := m.View()
	other := fixture.Idle() // different data, same Seq as Live(1)
	m = update(t, m, SnapshotMsg{other})
	if m.View() != before {
		t.Fatalf("a snapshot with an unchanged Seq was redrawn")
	}
}

func TestTickRearmsOnePoll(t *testing.T) {
	calls := 0
	o := testOpts()
	o.Snapshots = func() *metrics.Snapshot { calls++; return fixture.Live(uint64(calls)) }
	m := New(o.build())
	msg := m.Init()()
	if calls != 1 {
		t.Fatalf("Init's poll read %d snapshots, want 1", calls)
	}
	nm, cmd := m.Update(msg)
	if cmd == nil {
		t.Fatalf("a tick did not re-arm the poll")
	}
	if nm.(Model).Snapshot().Seq != 1 {
		t.Fatalf("tick did not apply the snapshot")
	}
}

func TestSnapshotIsNotModified(t *testing.T) {
	snap := fixture.Live(1)
	want := deep(reflect.ValueOf(snap))
	m := dashboard(t, testOpts(), 200, 60, snap)
	for _, k := range []string{"s", "s", "w", "w", "g", "down", "enter", "esc", "t"} {
		m = update(t, m, keyMsg(k))
		_ = m.View()
	}
	if got := deep(reflect.ValueOf(snap)); got != want {
		t.Fatalf("the UI modified the snapshot")
	}
}

func TestWindowFilterCycles(t *testing.T) {
	m := dashboard(t, testOpts(), 120, 40, fixture.Live(1))
	want := []string{fixture.Main, fixture.Popup, ""}
	for _, w := range want {
		m = update(t, m, keyMsg("w"))
		if got := m.wins.Filter(); got != w {
			t.Fatalf("filter = %q, want %q", got, w)
		}
	}
	m = update(t, m, keyMsg("w"), keyMsg("w"))
	v := m.View()
	if !strings.Contains(v, "FPS · PopupWindow") || !strings.Contains(v, "run 52.4 fps rendering, 12.2 wall") {
		t.Fatalf("popup filter not applied to the FPS panel:\n%s", v)
	}
	// The worst-frames list shows only the popup's frame.
	if strings.Contains(v, "430 ms") {
		t.Fatalf("worst frames not filtered:\n%s", v)
	}
}

func TestSortCycles(t *testing.T) {
	m := dashboard(t, testOpts(), 120, 40, fixture.Live(1))
	first := func() string { return m.msgs.rows[0].Handler }
	if !strings.HasSuffix(first(), "ActivityThread$H") {
		t.Fatalf("sort by max: first %s", first())
	}
	m = update(t, m, keyMsg("s"))
	if !strings.HasSuffix(first(), "Choreographer$FrameHandler") {
		t.Fatalf("sort by total: first %s", first())
	}
	m = update(t, m, keyMsg("s"))
	if !strings.HasSuffix(first(), "GapWorker") {
		t.Fatalf("sort by count: first %s", first())
	}
	if !strings.Contains(m.View(), "sort: count") {
		t.Fatalf("sort order not shown")
	}
	m = update(t, m, keyMsg("s"))
	if !strings.HasSuffix(first(), "ActivityThread$H") {
		t.Fatalf("sort did not cycle back to max")
	}
}

func TestDetailOpensAndCloses(t *testing.T) {
	m := dashboard(t, testOpts(), 120, 40, fixture.Live(1))
	m = update(t, m, keyMsg("enter"))
	if m.overlay != overlayDetail || !strings.Contains(m.View(), "EXECUTE_TRANSACTION") ||
		!strings.Contains(m.View(), "+52.300 s") {
		t.Fatalf("enter did not open the details:\n%s", m.View())
	}
	m = update(t, m, keyMsg("esc"))
	if m.overlay != overlayNone || strings.Contains(m.View(), "worst occurrences") {
		t.Fatalf("esc did not close the details")
	}
}

func TestHelpOverlay(t *testing.T) {
	m := dashboard(t, testOpts(), 120, 40, fixture.Live(1))
	m = update(t, m, keyMsg("?"))
	if !m.HelpOpen() {
		t.Fatalf("? did not open help")
	}
	v := m.View()
	for _, k := range []string{"quit", "pause the screen", "start/stop recording", "device picker", "app picker",
		"window filter", "sort messages", "graph: frame time / phases", "next theme", "clear statistics"} {
		if !strings.Contains(v, k) {
			t.Errorf("help lacks %q", k)
		}
	}
	m = update(t, m, keyMsg("esc"))
	if m.HelpOpen() {
		t.Fatalf("esc did not close help")
	}
	m = update(t, m, keyMsg("?"), keyMsg("?"))
	if m.HelpOpen() {
		t.Fatalf("? did not close help")
	}
}

func TestHelpListsReplayKeys(t *testing.T) {
	o := testOpts()
	o.Replay = &fakeReplay{total: time.Minute, speed: 1}
	m := dashboard(t, o, 120, 40, fixture.Live(1))
	m = update(t, m, keyMsg("?"))
	for _, k := range []string{"seek back 10 s", "seek forward 10 s", "faster", "slower", "go to start", "go to end", "pause/resume playback"} {
		if !strings.Contains(m.View(), k) {
			t.Errorf("help lacks %q:\n%s", k, m.View())
		}
	}
}

// TestThemeCycles: t cycles the themes that suit the terminal's background only: never into
// `light` on a dark terminal, never into `dark` on a light one.
func TestThemeCycles(t *testing.T) {
	for _, c := range []struct {
		light bool
		want  []string
	}{
		{false, []string{"high-contrast", "colorblind", "dark"}},
		{true, []string{"high-contrast", "colorblind", "light"}},
	} {
		o := testOpts()
		o.LightBackground = c.light
		if c.light {
			o.Theme, _ = themes.Get("light")
		}
		m := dashboard(t, o, 120, 40, fixture.Live(1))
		for _, want := range c.want {
			m = run(t, m, keyMsg("t"))
			if m.st.Theme.Name != want || !strings.Contains(m.View(), "theme: "+want) {
				t.Fatalf("light background %v: t switched to %s, want %s", c.light, m.st.Theme.Name, want)
			}
		}
	}
}

func TestRecordToggle(t *testing.T) {
	clock := fixture.Clock
	var calls []bool
	o := testOpts()
	o.Now = func() time.Time { return clock }
	o.OnRecord = func(start bool) (string, error) { calls = append(calls, start); return "/tmp/s.jsonl.gz", nil }
	m := dashboard(t, o, 120, 40, fixture.Live(1))
	m = run(t, m, keyMsg("r"))
	if len(calls) != 1 || !calls[0] {
		t.Fatalf("r did not start a recording: %v", calls)
	}
	if v := m.View(); !strings.Contains(v, "● REC") || !strings.Contains(v, "recording to /tmp/s.jsonl.gz") {
		t.Fatalf("no REC badge:\n%s", v)
	}
	clock = clock.Add(65 * time.Second)
	m = update(t, m, tickMsg{now: clock})
	if !strings.Contains(m.View(), "● REC 01:05") {
		t.Fatalf("REC elapsed time not shown:\n%s", m.View())
	}
	m = run(t, m, keyMsg("r"))
	if len(calls) != 2 || calls[1] {
		t.Fatalf("second r did not stop: %v", calls)
	}
	if v := m.View(); strings.Contains(v, "● REC") || !strings.Contains(v, "recording saved: /tmp/s.jsonl.gz") {
		t.Fatalf("recording not stopped on screen:\n%s", v)
	}
}

func TestRecordErrorsFlash(t *testing.T) {
	o := testOpts()
	o.OnRecord = func(bool) (string, error) { return "", errors.New("disk full") }
	m := dashboard(t, o, 120, 40, fixture.Live(1))
	m = run(t, m, keyMsg("r"))
	if v := m.View(); !strings.Contains(v, "recording: disk full") || strings.Contains(v, "● REC") {
		t.Fatalf("record error not shown:\n%s", v)
	}
	// A recorder that reports its own state: recording, then a write error mid-run (issue 13):
	// the error flashes and the REC badge goes away.
	o = testOpts()
	since := fixture.Clock.Add(-10 * time.Second)
	var werr error
	o.Recording = func() (bool, string, time.Time, error) { return true, "/r.jsonl", since, werr }
	m = dashboard(t, o, 120, 40, fixture.Live(1))
	m = run(t, m, m.Init()())
	if v := m.View(); !strings.Contains(v, "● REC 00:10") {
		t.Fatalf("recorder state not shown:\n%s", v)
	}
	werr = errors.New("write failed")
	m = run(t, m, m.poll(0)())
	if v := m.View(); strings.Contains(v, "● REC") || !strings.Contains(v, "recording: write failed") {
		t.Fatalf("a failed recording still shows REC or no error:\n%s", v)
	}
}

func TestClearCallsBack(t *testing.T) {
	n := 0
	o := testOpts()
	o.OnClear = func() { n++ }
	m := dashboard(t, o, 120, 40, fixture.Live(1))
	m = run(t, m, keyMsg("c"))
	if n != 1 || !strings.Contains(m.View(), "statistics cleared") {
		t.Fatalf("c: OnClear called %d times", n)
	}
}

func TestMissingCallbacksFlash(t *testing.T) {
	m := dashboard(t, topts{Options: Options{Now: fixture.Now, Refresh: time.Hour}}, 120, 40, fixture.Live(1))
	if f := m.footer.View(); strings.Contains(f, "rec") || strings.Contains(f, "device") || strings.Contains(f, "clear") {
		t.Errorf("footer offers keys without callbacks: %s", f)
	}
	for k, want := range map[string]string{
		"r": "recording is not available", "c": "clearing is not available",
		"d": "no device picker", "a": "no app picker",
	} {
		mm := run(t, m, keyMsg(k))
		if !strings.Contains(mm.View(), want) {
			t.Errorf("%s: no %q notice", k, want)
		}
	}
}

func TestFlashClears(t *testing.T) {
	m := dashboard(t, testOpts(), 120, 40, fixture.Sim(1))
	nm, cmd := m.Update(FlashMsg{Level: FlashErr, Text: "adb went away"})
	m = nm.(Model)
	if cmd == nil || !strings.Contains(m.View(), "adb went away") {
		t.Fatalf("flash not shown or not armed")
	}
	m = update(t, m, clearFlashMsg{id: m.flash.id - 1})
	if m.flash.Text() == "" {
		t.Fatalf("a stale clear removed the flash")
	}
	m = update(t, m, clearFlashMsg{id: m.flash.id})
	if m.flash.Text() != "" || strings.Contains(m.View(), "adb went away") {
		t.Fatalf("flash not cleared")
	}
}

func TestNewWarningFlashes(t *testing.T) {
	m := dashboard(t, testOpts(), 120, 40, fixture.Live(1))
	s := fixture.Live(2)
	s.Warnings = append(s.Warnings, "gfxinfo: 12 frames lost between polls")
	m = update(t, m, SnapshotMsg{s})
	if !strings.Contains(m.View(), "12 frames lost") {
		t.Fatalf("new warning not flashed")
	}
}

func TestReplayKeys(t *testing.T) {
	r := &fakeReplay{cur: 30 * time.Second, total: 2 * time.Minute, speed: 1}
	o := testOpts()
	o.Replay = r
	m := dashboard(t, o, 120, 40, fixture.Live(1))
	m = run(t, m, keyMsg("right"))
	m = run(t, m, keyMsg("left"))
	m = run(t, m, keyMsg("left"))
	if want := []time.Duration{10 * time.Second, -10 * time.Second, -10 * time.Second}; fmt.Sprint(r.seeks) != fmt.Sprint(want) {
		t.Fatalf("seeks %v, want %v", r.seeks, want)
	}
	m = run(t, m, keyMsg("+"))
	m = run(t, m, keyMsg("+"))
	if r.speed != 4 {
		t.Fatalf("speed %v, want 4", r.speed)
	}
	m = run(t, m, keyMsg("-"))
	if r.speed != 2 {
		t.Fatalf("speed %v, want 2", r.speed)
	}
	m = run(t, m, keyMsg("end"))
	if r.cur != r.total {
		t.Fatalf("end: at %v", r.cur)
	}
	m = run(t, m, keyMsg("home"))
	if r.cur != 0 {
		t.Fatalf("home: at %v", r.cur)
	}
	m = run(t, m, keyMsg(" "))
	if !r.paused || m.Paused() {
		t.Fatalf("space in replay must pause playback, not the screen")
	}
	if !strings.Contains(m.View(), "❚❚ 2× 00:00") {
		t.Fatalf("paused replay not shown:\n%s", m.View())
	}
	m = update(t, m, keyMsg("p"))
	if !m.Paused() {
		t.Fatalf("p must still pause the screen in replay")
	}
}

func TestStepSpeed(t *testing.T) {
	for _, c := range []struct {
		s    float64
		dir  int
		want float64
	}{{1, 1, 2}, {1, -1, 0.5}, {0.25, -1, 0.25}, {32, 1, 32}, {3, 1, 4}, {3, -1, 2}} {
		if got := stepSpeed(c.s, c.dir); got != c.want {
			t.Errorf("stepSpeed(%v, %d) = %v, want %v", c.s, c.dir, got, c.want)
		}
	}
}

func TestPickers(t *testing.T) {
	var picked []string
	o := testOpts()
	o.Devices = func(context.Context) ([]DeviceItem, error) {
		return []DeviceItem{{Serial: "A1", Model: "Pixel 7", Android: "14", State: "device"}}, nil
	}
	o.Apps = func(_ context.Context, serial string) ([]AppItem, error) {
		return []AppItem{
			{Package: "com.android.settings", Running: true},
			{Package: "com.example.feed", Foreground: true},
			{Package: "com.example.camera"},
		}, nil
	}
	o.OnPick = func(serial, pkg string) tea.Cmd {
		picked = append(picked, serial+" "+pkg)
		return nil
	}
	m := dashboard(t, o, 100, 30, fixture.Live(1))
	m = run(t, m, keyMsg("d"))
	m = run(t, m, keyMsg("enter")) // the device → the app picker for it
	if m.overlay != overlayApps || m.apps.serial != "A1" {
		t.Fatalf("picking a device did not open its apps (overlay %d)", m.overlay)
	}
	if got := m.apps.items[m.apps.shown[0]].Package; got != "com.example.feed" {
		t.Fatalf("foreground app not first: %s", got)
	}
	if !strings.Contains(m.View(), "foreground") {
		t.Fatalf("foreground app not marked:\n%s", m.View())
	}
	for _, r := range "cam" {
		m = update(t, m, keyMsg(string(r)))
	}
	if len(m.apps.shown) != 1 {
		t.Fatalf("filter 'cam' shows %d apps", len(m.apps.shown))
	}
	m = update(t, m, keyMsg("backspace"), keyMsg("backspace"), keyMsg("backspace"), keyMsg("z"))
	if len(m.apps.shown) != 0 || !strings.Contains(m.View(), "no app matches") {
		t.Fatalf("filter 'z' shows %d apps", len(m.apps.shown))
	}
	m = update(t, m, keyMsg("backspace"), keyMsg("down"))
	m = run(t, m, keyMsg("enter"))
	m = run(t, m, keyMsg("enter")) // the overlay is closed: enter goes to the messages table
	if len(picked) != 1 || picked[0] != "A1 com.android.settings" {
		t.Fatalf("picked %v", picked)
	}
}

func TestPickerErrors(t *testing.T) {
	o := testOpts()
	o.Devices = func(context.Context) ([]DeviceItem, error) { return nil, errors.New("adb server not running") }
	m := dashboard(t, o, 100, 30, fixture.Live(1))
	m = run(t, m, keyMsg("d"))
	if !strings.Contains(m.View(), "adb server not running") {
		t.Fatalf("device error not shown:\n%s", m.View())
	}
	o.Devices = func(context.Context) ([]DeviceItem, error) { return nil, nil }
	m = dashboard(t, o, 100, 30, fixture.Live(1))
	m = run(t, m, keyMsg("d"))
	if !strings.Contains(m.View(), "No devices") {
		t.Fatalf("empty device list not explained:\n%s", m.View())
	}
}

func TestQuit(t *testing.T) {
	for _, k := range []string{"q", "ctrl+c"} {
		m := dashboard(t, testOpts(), 80, 24, fixture.Live(1))
		nm, cmd := m.Update(keyMsg(k))
		if cmd == nil || !nm.(Model).Quitting() {
			t.Fatalf("%s did not quit", k)
		}
		if _, ok := cmd().(tea.QuitMsg); !ok {
			t.Fatalf("%s: command is not tea.Quit", k)
		}
	}
}

// deep prints v, following pointers, so two equal values print the same.
func deep(v reflect.Value) string {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return "nil"
		}
		return "&" + deep(v.Elem())
	case reflect.Struct:
		var b strings.Builder
		b.WriteString("{")
		for i := 0; i < v.NumField(); i++ {
			b.WriteString(v.Type().Field(i).Name + ":" + deep(v.Field(i)) + " ")
		}
		return b.String() + "}"
	case reflect.Slice, reflect.Array:
		var b strings.Builder
		b.WriteString("[")
		for i := 0; i < v.Len(); i++ {
			b.WriteString(deep(v.Index(i)) + " ")
		}
		return b.String() + "]"
	}
	return fmt.Sprintf("%v", v)
}

func TestMouseWheelScrollsMessages(t *testing.T) {
	m := dashboard(t, testOpts(), 120, 40, fixture.Live(1))
	wheel := func(b tea.MouseButton) tea.MouseMsg {
		return tea.MouseMsg{Button: b, Action: tea.MouseActionPress}
	}
	m = update(t, m, wheel(tea.MouseButtonWheelDown), wheel(tea.MouseButtonWheelDown))
	if m.msgs.sel != 2 {
		t.Fatalf("wheel down: selection %d, want 2", m.msgs.sel)
	}
	m = update(t, m, wheel(tea.MouseButtonWheelUp))
	if m.msgs.sel != 1 {
		t.Fatalf("wheel up: selection %d, want 1", m.msgs.sel)
	}
}
