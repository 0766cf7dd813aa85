package ui

import (
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/fpstop/fpstop/internal/testkit/fixture"
)

// TestHeaderClockIsWallTime: the header clock of a live session keeps wall time whatever the
// device's time estimate does (a late logcat line once ran it at 2× wall time): 10 s of wall
// time while the device time moves 20 s read 10 s later on the clock; after `c` (a new origin)
// it counts from the new origin's span.
func TestHeaderClockIsWallTime(t *testing.T) {
	m := New(testOpts().build())
	t0 := fixture.Clock
	first := fixture.Live(1) // 91 s since the origin
	m = update(t, m, tea.WindowSizeMsg{Width: 120, Height: 40}, tick(t0, first))
	if h := headerLine(m); !strings.Contains(h, "01:31") {
		t.Fatalf("first header: %q", h)
	}
	fast := fixture.Live(2)
	fast.NowNs = first.NowNs + 20e9 // the device's estimate ran ahead
	m = update(t, m, tick(t0.Add(10*time.Second), fast))
	if h := headerLine(m); !strings.Contains(h, "01:41") {
		t.Errorf("after 10 s of wall time: %q, want 01:41", h)
	}
	// p freezes the screen, its clock too
	m = update(t, m, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("p")}, tick(t0.Add(10500*time.Millisecond), fast))
	if h := headerLine(m); !strings.Contains(h, "01:41") || !strings.Contains(h, "PAUSED") {
		t.Errorf("paused: %q, want 01:41", h)
	}
	m = update(t, m, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("p")})
	cleared := fixture.Live(3)
	cleared.OriginNs = cleared.NowNs - 2e9
	m = update(t, m, tick(t0.Add(11*time.Second), cleared), tick(t0.Add(14*time.Second), cleared))
	if h := headerLine(m); !strings.Contains(h, "00:05") {
		t.Errorf("3 s after a clear that left a 2 s span: %q, want 00:05", h)
	}
}
