package ui

import (
	"context"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/fpstop/fpstop/internal/testkit/fixture"
	"github.com/fpstop/fpstop/metrics"
)

// lastLine is the view's bottom line.
func lastLine(v string) string {
	ls := strings.Split(v, "\n")
	return ls[len(ls)-1]
}

// TestSmallTerminalsKeepTheCore: at common small sizes the FPS, drop-level and frame-time
// panels stay, hidden panels are named, and the footer's last line starts with `? help`.
func TestSmallTerminalsKeepTheCore(t *testing.T) {
	for _, sz := range [][2]int{{60, 16}, {80, 24}, {100, 30}, {120, 30}, {200, 20}} {
		m := dashboard(t, testOpts(), sz[0], sz[1], fixture.Live(1))
		v := m.View()
		checkFrame(t, v, sz[0], sz[1])
		for _, want := range []string{"FPS", "Drop levels", "Frame time (ms)"} {
			if !strings.Contains(v, want) {
				t.Errorf("%dx%d: no %q panel:\n%s", sz[0], sz[1], want, v)
			}
		}
		if !strings.HasPrefix(lastLine(v), "? help") {
			t.Errorf("%dx%d: last line %q does not start with `? help`", sz[0], sz[1], lastLine(v))
		}
		hidden := 0
		for id := range numPanels {
			if !m.shown[id] {
				hidden++
				if !strings.Contains(v, panelNames[id]) && !strings.Contains(v, " "+string(rune('1'+id))) {
					t.Errorf("%dx%d: hidden panel %s not named", sz[0], sz[1], panelNames[id])
				}
			}
		}
		if hidden > 0 && !strings.Contains(v, "hidden") {
			t.Errorf("%dx%d: %d panels hidden without a word:\n%s", sz[0], sz[1], hidden, v)
		}
		// A row of tables is no taller than its content asks for while a graph takes the rest.
		for _, r := range m.grid {
			if r.colMax(m.wantHeight) > 0 && !strings.Contains(strings.Join(m.column(r.cols[0]), ""), "┤") {
				if want := r.colMax(m.want); r.h > want {
					t.Errorf("%dx%d: a row of %v is %d rows for %d rows of content", sz[0], sz[1], r.cols, r.h, want)
				}
			}
		}
	}
}

// TestTallTerminalsShowEverything: at 120×40 and 200×60 no panel is hidden.
func TestTallTerminalsShowEverything(t *testing.T) {
	for _, sz := range [][2]int{{120, 40}, {200, 60}} {
		m := dashboard(t, testOpts(), sz[0], sz[1], fixture.Live(1))
		for id := range numPanels {
			if !m.shown[id] {
				t.Errorf("%dx%d: %s hidden", sz[0], sz[1], panelNames[id])
			}
		}
		if strings.Contains(m.View(), "hidden") {
			t.Errorf("%dx%d: a hidden-panels line with every panel shown", sz[0], sz[1])
		}
	}
}

// TestNumberKeysTogglePanels: a number key hides its panel and shows it again; a panel hidden
// for lack of room can be asked for, and another gives way.
func TestNumberKeysTogglePanels(t *testing.T) {
	m := dashboard(t, testOpts(), 120, 40, fixture.Live(1))
	m = update(t, m, keyMsg("4"))
	if m.shown[panelHistogram] || strings.Contains(m.View(), "Frame-time histogram") {
		t.Fatalf("4 did not hide the histogram")
	}
	if !strings.Contains(m.View(), "1 panel hidden: 4 histogram") {
		t.Fatalf("the hidden histogram is not named:\n%s", m.View())
	}
	m = update(t, m, keyMsg("4"))
	if !m.shown[panelHistogram] || !strings.Contains(m.View(), "Frame-time histogram") {
		t.Fatalf("4 did not show the histogram again")
	}

	m = dashboard(t, testOpts(), 80, 24, fixture.Live(1))
	if m.shown[panelWindows] {
		t.Fatalf("80x24 shows the windows table; the test expects it hidden for lack of room")
	}
	m = update(t, m, keyMsg("6"))
	if !m.shown[panelWindows] || !strings.Contains(m.View(), "Windows") {
		t.Fatalf("6 did not show the windows table at 80x24:\n%s", m.View())
	}
	checkFrame(t, m.View(), 80, 24)
	if !strings.Contains(m.View(), "Frame time (ms)") || !strings.Contains(m.View(), "Drop levels") {
		t.Fatalf("showing a table dropped a core panel:\n%s", m.View())
	}
	// The core panels can be hidden by hand, and their room goes to the others.
	m = update(t, m, keyMsg("1"))
	if m.shown[panelFPS] {
		t.Fatalf("1 did not hide the FPS panel")
	}
	checkFrame(t, m.View(), 80, 24)
}

// TestPickerFooterShowsItsKeys: with a picker open the footer lists the picker's keys (r
// refreshes there), not the dashboard's.
func TestPickerFooterShowsItsKeys(t *testing.T) {
	o := testOpts()
	o.Devices = func(context.Context) ([]DeviceItem, error) {
		return []DeviceItem{{Serial: "emulator-5554", State: "device"}}, nil
	}
	m := dashboard(t, o, 100, 30, fixture.Live(1))
	m = run(t, m, keyMsg("d"))
	last := lastLine(m.View())
	if !strings.Contains(last, "r refresh") || strings.Contains(last, "rec") || strings.Contains(last, "? help") {
		t.Fatalf("device picker footer = %q, want the picker's keys", last)
	}
	m = run(t, m, keyMsg("esc"))
	if !strings.HasPrefix(lastLine(m.View()), "? help") {
		t.Fatalf("footer after closing the picker = %q", lastLine(m.View()))
	}
}

// TestHistoryFramesMarked: a worst frame from before the session (the backlog read on the first
// poll) says "history", never a negative offset.
func TestHistoryFramesMarked(t *testing.T) {
	s := *fixture.Live(1)
	s.Worst = append([]metrics.WorstFrame(nil), s.Worst...)
	s.Worst[0].StartMs = -2020
	v := dashboard(t, testOpts(), 120, 40, &s).View()
	if strings.Contains(v, "+-") || !strings.Contains(v, "history") {
		t.Fatalf("a frame from before the session is not marked as history:\n%s", v)
	}
}

// TestSlashFiltersMessages: `/` types a filter (q and digits are letters of it, not keys), the
// table keeps the matching rows, enter keeps the filter, esc clears it; PgDn/PgUp page.
func TestSlashFiltersMessages(t *testing.T) {
	m := dashboard(t, testOpts(), 120, 40, fixture.Live(1))
	all := len(m.msgs.rows)
	m = update(t, m, keyMsg("/"))
	if !strings.HasPrefix(lastLine(m.View()), "enter keep filter") {
		t.Fatalf("footer while typing a filter: %q", lastLine(m.View()))
	}
	for _, k := range []string{"i", "m", "a", "g", "e", "q"} {
		m = update(t, m, keyMsg(k))
	}
	if m.quitting {
		t.Fatalf("q quit while typing a filter")
	}
	m = update(t, m, keyMsg("backspace"), keyMsg("enter"))
	v := m.View()
	if len(m.msgs.rows) != 1 || !strings.Contains(v, "/image · 1 of 6") || !strings.Contains(v, "ImageLoader") || strings.Contains(v, "GapWorker") {
		t.Fatalf("filter /image: %d of %d rows:\n%s", len(m.msgs.rows), all, v)
	}
	if !strings.HasPrefix(lastLine(v), "? help") {
		t.Fatalf("footer after enter: %q", lastLine(v))
	}
	m = update(t, m, keyMsg("esc"))
	if len(m.msgs.rows) != all || strings.Contains(m.View(), "/image") {
		t.Fatalf("esc did not clear the filter (%d of %d rows)", len(m.msgs.rows), all)
	}
	// A table taller than its panel pages by PgDn/PgUp.
	m = dashboard(t, testOpts(), 80, 24, fixture.Live(1))
	page := m.msgs.page()
	m = update(t, m, tea.KeyMsg{Type: tea.KeyPgDown})
	if m.msgs.sel != min(page, all-1) {
		t.Fatalf("pgdown: selection %d, want %d", m.msgs.sel, min(page, all-1))
	}
	m = update(t, m, tea.KeyMsg{Type: tea.KeyPgUp})
	if m.msgs.sel != 0 {
		t.Fatalf("pgup: selection %d, want 0", m.msgs.sel)
	}
}
