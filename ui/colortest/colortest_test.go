// Package colortest renders the dashboard with real colour profiles. It is separate from package
// ui's tests, which draw without colour, so the process-global lipgloss profile never mixes
// within one test binary. Tests here run one after another (no t.Parallel).
package colortest_test

import (
	"os"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/muesli/termenv"

	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/themes"
	"github.com/fpstop/fpstop/ui"
	"github.com/fpstop/fpstop/ui/internal/fixture"
)

func TestMain(m *testing.M) {
	lipgloss.SetColorProfile(termenv.TrueColor)
	lipgloss.SetHasDarkBackground(true)
	os.Exit(m.Run())
}

// render draws a dashboard of w×h showing snap with theme name.
func render(tb testing.TB, theme string, w, h int, snap *metrics.Snapshot) (tea.Model, string) {
	tb.Helper()
	th, err := themes.Get(theme)
	if err != nil {
		tb.Fatal(err)
	}
	var m tea.Model = ui.New(ui.Options{Theme: th, Now: fixture.Now})
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

// TestNoColor: NO_COLOR (or --color never) gives a profile that draws no escape codes at all,
// and the layout is the same as with colour.
func TestNoColor(t *testing.T) {
	defer lipgloss.SetColorProfile(termenv.TrueColor)
	_, coloured := render(t, "dark", 120, 40, fixture.Live(1))
	env := func(k string) string {
		if k == "NO_COLOR" {
			return "1"
		}
		return ""
	}
	for _, c := range []struct {
		mode string
		env  func(string) string
	}{{"auto", env}, {"never", func(string) string { return "" }}} {
		p, err := themes.ColorProfile(c.mode, c.env, termenv.TrueColor)
		if err != nil {
			t.Fatal(err)
		}
		lipgloss.SetColorProfile(p)
		m, v := render(t, "dark", 120, 40, fixture.Live(1))
		if strings.Contains(v, "\x1b[") {
			t.Fatalf("--color %s / NO_COLOR: escape codes in the output", c.mode)
		}
		if v != stripANSI(coloured) {
			t.Fatalf("--color %s: the layout differs from the coloured one", c.mode)
		}
		m, _ = m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("?")})
		if strings.Contains(m.View(), "\x1b[") {
			t.Fatalf("--color %s: escape codes in the help overlay", c.mode)
		}
		lipgloss.SetColorProfile(termenv.TrueColor)
	}
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
