// Package colortest renders the dashboard with real colour profiles. It is separate from package
// ui's tests, which draw without colour, so the process-global lipgloss profile never mixes
// within one test binary. Tests here run one after another (no t.Parallel).
package colortest_test

import (
	"os"
	"regexp"
	"strconv"
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
	"github.com/fpstop/fpstop/themes"
	"github.com/fpstop/fpstop/ui"
)

func TestMain(m *testing.M) {
	lipgloss.SetColorProfile(termenv.TrueColor)
	lipgloss.SetHasDarkBackground(true)
	os.Exit(m.Run())
}

// render draws a dashboard of w×h showing snap with theme name.
func render(tb testing.TB, theme string, w, h int, snap *metrics.Snapshot) (tea.Model, string) {
	return renderOn(tb, theme, false, w, h, snap)
}

// renderOn is render on a terminal with a light (or dark) background.
func renderOn(tb testing.TB, theme string, light bool, w, h int, snap *metrics.Snapshot) (tea.Model, string) {
	tb.Helper()
	th, err := themes.Get(theme)
	if err != nil {
		tb.Fatal(err)
	}
	var m tea.Model = ui.New(ui.Options{Theme: th, LightBackground: light, Now: fixture.Now})
	m, _ = m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	m, _ = m.Update(ui.SnapshotMsg{Snapshot: snap})
	return m, m.View()
}

// TestDarkTrueColor pins the dark theme's colours at 120×40 (escape codes shown quoted in
// diffs; the file holds the raw ANSI and doubles as a screenshot source).
func TestDarkTrueColor(t *testing.T) {
	_, v := render(t, "dark", 120, 40, fixture.Live(1))
	if !strings.Contains(v, "\x1b[38;2;") {
		t.Fatalf("no TrueColor escape codes in the dark theme")
	}
	golden.RequireEqualEscape(t, []byte(v), true)
}

// TestThemeGoldens pins every built-in theme on a dark and on a light terminal at 80×24.
func TestThemeGoldens(t *testing.T) {
	for _, name := range themes.Names() {
		for _, bg := range []string{"dark", "light"} {
			t.Run(name+"_on_"+bg, func(t *testing.T) {
				_, v := renderOn(t, name, bg == "light", 80, 24, fixture.Live(1))
				golden.RequireEqualEscape(t, []byte(v), true)
			})
		}
	}
}

// TestNoColorGolden pins NO_COLOR on a terminal at 120×40: attributes (bold titles, the
// selected row reversed with its ▶) and no colour.
func TestNoColorGolden(t *testing.T) {
	noColor := func(k string) string {
		if k == "NO_COLOR" {
			return "1"
		}
		return ""
	}
	if _, err := themes.Setup(themes.ColorAuto, noColor, termenv.TrueColor, true); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if _, err := themes.Setup(themes.ColorAlways, func(string) string { return "truecolor" }, termenv.TrueColor, true); err != nil {
			t.Fatal(err)
		}
	}()
	_, v := render(t, "dark", 120, 40, fixture.Live(1))
	golden.RequireEqualEscape(t, []byte(v), true)
}

// TestThemesDiffer checks every built-in theme renders, with its own colours.
func TestThemesDiffer(t *testing.T) {
	seen := map[string]string{}
	for _, name := range themes.Names() {
		_, v := render(t, name, 120, 40, fixture.Live(1))
		for other, ov := range seen {
			if ov == v {
				t.Errorf("themes %s and %s render identically", name, other)
			}
		}
		seen[name] = v
	}
}

// TestNoColor: NO_COLOR (or --color never) removes colour, not attributes: on a terminal the
// titles stay bold and the selected messages row reversed, marked with ▶; off a terminal
// nothing but text is drawn. The layout is the same as with colour.
func TestNoColor(t *testing.T) {
	defer func() {
		if _, err := themes.Setup("always", func(string) string { return "truecolor" }, termenv.TrueColor, true); err != nil {
			t.Fatal(err)
		}
	}()
	_, coloured := render(t, "dark", 120, 40, fixture.Live(1))
	env := func(k string) string {
		if k == "NO_COLOR" {
			return "1"
		}
		return ""
	}
	for _, c := range []struct {
		mode     string
		env      func(string) string
		terminal bool
	}{{"auto", env, true}, {"never", func(string) string { return "" }, true}, {"auto", env, false}} {
		if _, err := themes.Setup(c.mode, c.env, termenv.TrueColor, c.terminal); err != nil {
			t.Fatal(err)
		}
		m, v := render(t, "dark", 120, 40, fixture.Live(1))
		if i := colourEscape(v); i >= 0 {
			t.Fatalf("--color %s / NO_COLOR: a colour escape at %d: %q", c.mode, i, v[max(0, i-20):min(len(v), i+20)])
		}
		if a, b := shape(stripANSI(v)), shape(stripANSI(coloured)); a != b {
			t.Fatalf("--color %s: the layout differs from the coloured one (line widths %s, coloured %s)", c.mode, a, b)
		}
		sel := selectedRow(v)
		if !strings.Contains(sel, "▶") {
			t.Fatalf("--color %s: the selected messages row has no ▶ cursor: %q", c.mode, sel)
		}
		if c.terminal && (!strings.Contains(sel, "\x1b[1;7m") || !strings.Contains(v, "\x1b[1m")) {
			t.Fatalf("--color %s on a terminal: the selected row is not bold+reverse or titles not bold: %q", c.mode, sel)
		}
		if !c.terminal && strings.Contains(v, "\x1b[") {
			t.Fatalf("NO_COLOR off a terminal: escape codes in the output")
		}
		m, _ = m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("?")})
		if i := colourEscape(m.View()); i >= 0 {
			t.Fatalf("--color %s: a colour escape in the help overlay", c.mode)
		}
	}
}

// colourEscape is the index of the first SGR sequence that sets a colour (30-49, 90-107, or
// 38;/48; forms), -1 when there is none.
func colourEscape(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] != 0x1b || i+1 >= len(s) || s[i+1] != '[' {
			continue
		}
		j := i + 2
		for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
			j++
		}
		if j >= len(s) || s[j] != 'm' {
			continue
		}
		for _, p := range strings.Split(s[i+2:j], ";") {
			if n, err := strconv.Atoi(p); err == nil && (n >= 30 && n <= 49 || n >= 90 && n <= 107) {
				return i
			}
		}
	}
	return -1
}

// shape is the layout of a screen: each line's width in cells (the text may differ: without
// colour the frame-time bars show the lateness scale by shade).
func shape(v string) string {
	var ws []string
	for _, l := range strings.Split(v, "\n") {
		ws = append(ws, strconv.Itoa(ansi.StringWidth(l)))
	}
	return strings.Join(ws, ",")
}

// selectedRow is the line holding the messages table's ▶ cursor ("" when none).
func selectedRow(v string) string {
	for _, l := range strings.Split(v, "\n") {
		if strings.Contains(l, "▶") {
			return l
		}
	}
	return ""
}

// stripANSI removes SGR escape sequences.
func stripANSI(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '[' {
			j := i + 2
			for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
				j++
			}
			i = j
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// BenchmarkViewUnchangedTrueColor is View at 200×60 with no new data, with colour.
func BenchmarkViewUnchangedTrueColor(b *testing.B) {
	m, _ := render(b, "dark", 200, 60, fixture.Live(1))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_ = m.View()
	}
}

// BenchmarkViewRedrawTrueColor is a new snapshot at 200×60 with colour: panels redraw, then View.
func BenchmarkViewRedrawTrueColor(b *testing.B) {
	m, _ := render(b, "dark", 200, 60, fixture.Live(1))
	base := [2]*metrics.Snapshot{fixture.Live(2), fixture.Live(3)}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s := *base[i%2]
		s.Seq = uint64(i + 10)
		m, _ = m.Update(ui.SnapshotMsg{Snapshot: &s})
		_ = m.View()
	}
}

// TestPhaseHalfBlocks: in colour, phase bars show two phases per cell (▄ with the lower phase
// in the foreground and the upper one in the background).
func TestPhaseHalfBlocks(t *testing.T) {
	m, _ := render(t, "dark", 120, 40, fixture.Live(1))
	m, _ = m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("g")})
	v := m.View()
	if !strings.Contains(v, "Frame phases") || !strings.Contains(v, "▄") || !strings.Contains(v, ";48;2;") {
		t.Fatalf("no half-block phase cells in colour")
	}
}

// TestStaleIsDim: while the phone is disconnected every panel line is drawn in the one stale
// style (no level, FPS or table colour passes the old numbers off as current); live, the
// panels use many colours.
func TestStaleIsDim(t *testing.T) {
	sgr := regexp.MustCompile("\x1b\\[[0-9;:]*m")
	styles := func(v string) map[string]bool {
		set := map[string]bool{}
		lines := strings.Split(v, "\n")
		for _, l := range lines[2 : len(lines)-1] { // the panels: not the header, status or footer
			for _, s := range sgr.FindAllString(l, -1) {
				if s != "\x1b[0m" && s != "\x1b[m" {
					set[s] = true
				}
			}
		}
		return set
	}
	_, live := render(t, "dark", 120, 40, fixture.Live(1))
	_, gone := render(t, "dark", 120, 40, fixture.Disconnected())
	if n := len(styles(live)); n < 5 {
		t.Fatalf("the live panels use %d styles, want many", n)
	}
	if s := styles(gone); len(s) != 1 {
		t.Errorf("the disconnected panels use %d styles, want the one stale style: %v", len(s), s)
	}
}

// TestOverviewStaleRowGolden: in the multi-device overview a disconnected phone's row is drawn
// in the theme's one Stale style from end to end (the same dim the single-device screen uses),
// and the live phone's row is not; golden with the escapes.
func TestOverviewStaleRowGolden(t *testing.T) {
	th, err := themes.Get("dark")
	if err != nil {
		t.Fatal(err)
	}
	live := fixture.Live(3)
	gone := fixture.Disconnected()
	gone.Session.Device.Serial = "R5CT1"
	list := func() []ui.LabDevice {
		return []ui.LabDevice{
			{Serial: live.Session.Device.Serial, Session: fixedSession{live}},
			{Serial: "R5CT1", Session: fixedSession{gone}},
		}
	}
	now := fixture.Clock
	var o tea.Model = ui.NewOverview(ui.Options{Theme: th, Now: func() time.Time { return now },
		After: func(time.Duration, func(time.Time) tea.Msg) tea.Cmd { return nil }}, list)
	o, _ = o.Update(tea.WindowSizeMsg{Width: 140, Height: 8})
	o, _ = o.Update(o.Init()())
	now = now.Add(7 * time.Second)
	o, _ = o.Update(o.Init()())
	v := o.View()
	st := themes.NewStyles(th, true)
	want := strings.TrimSuffix(st.Stale.Render("x"), "x\x1b[0m")
	if want == "" {
		t.Fatal("the Stale style draws nothing")
	}
	var staleRow, liveRow string
	for _, l := range strings.Split(v, "\n") {
		switch {
		case strings.Contains(l, "R5CT1"):
			staleRow = l
		case strings.Contains(l, live.Session.Device.Serial):
			liveRow = l
		}
	}
	if !strings.HasPrefix(staleRow, want) || strings.Count(staleRow, "\x1b[") != 2 || !strings.Contains(staleRow, "last seen 7 s ago") {
		t.Errorf("the stale row is not one Stale run (%q) saying last seen 7 s ago:\n%q", want, staleRow)
	}
	if strings.Contains(liveRow, want) {
		t.Errorf("the live row is drawn stale:\n%q", liveRow)
	}
	golden.RequireEqualEscape(t, []byte(v), true)
}

// fixedSession is a ui.Session that returns one snapshot.
type fixedSession struct{ s *metrics.Snapshot }

func (f fixedSession) Latest() *metrics.Snapshot { return f.s }
func (f fixedSession) Clear()                    {}

// TestOverviewHelpGolden: the help overlay over the multi-device overview is the dashboard's
// help box in the theme's styles (border, titles, keys), composited the same way, and a light
// theme on a dark terminal paints its own background behind every line of the overview and the
// overlay, as on one device's screen; golden with the escapes.
func TestOverviewHelpGolden(t *testing.T) {
	th, err := themes.Get("light")
	if err != nil {
		t.Fatal(err)
	}
	live := fixture.Live(3)
	list := func() []ui.LabDevice {
		return []ui.LabDevice{{Serial: live.Session.Device.Serial, Session: fixedSession{live}}}
	}
	var o tea.Model = ui.NewOverview(ui.Options{Theme: th, Now: fixture.Now,
		After: func(time.Duration, func(time.Time) tea.Msg) tea.Cmd { return nil }}, list)
	o, _ = o.Update(tea.WindowSizeMsg{Width: 100, Height: 16})
	o, _ = o.Update(o.Init()())
	o, _ = o.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'?'}})
	v := o.View()
	st := themes.NewStyles(th, true)
	if st.Canvas == "" {
		t.Fatal("the light theme on a dark terminal has no canvas to paint")
	}
	lines := strings.Split(v, "\n")
	for i, l := range lines {
		if !strings.HasPrefix(l, st.Canvas) {
			t.Errorf("line %d is not on the theme's canvas: %q", i, l)
		}
	}
	for name, s := range map[string]lipgloss.Style{"Border": st.Border, "HelpKey": st.HelpKey, "Title": st.Title} {
		esc := strings.TrimSuffix(s.Render("x"), "x\x1b[0m")
		if esc == "" || !strings.Contains(v, esc+"╭") && name == "Border" || !strings.Contains(v, esc) {
			t.Errorf("the help overlay does not use the theme's %s style %q", name, esc)
		}
	}
	if !strings.Contains(stripANSI(v), "Keys") || !strings.Contains(stripANSI(v), "next theme") {
		t.Errorf("no help box listing the overview's keys:\n%s", stripANSI(v))
	}
	golden.RequireEqualEscape(t, []byte(v), true)
}
