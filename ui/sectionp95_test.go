package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/source"
)

// A trace's section groups keep no p95: the table and the detail say "—", never 0.0 ms beside a
// 105 ms max.
func TestSectionRowHasNoP95(t *testing.T) {
	rows := sectionRows([]metrics.SlowSectionReport{{Name: "traversal", Thread: "main", Count: 237, MaxMs: 104, TotalMs: 3303}})
	if len(rows) != 1 {
		t.Fatalf("%d rows, want 1", len(rows))
	}
	if got := msCell(rows[0].P95Ms); got != "—" {
		t.Errorf("p95 cell %q, want —", got)
	}
	if got := msu(rows[0].P95Ms); got != "—" {
		t.Errorf("p95 detail %q, want —", got)
	}
	if got := msCell(rows[0].MaxMs); got != "104" {
		t.Errorf("max cell %q, want 104", got)
	}
}

// Under perfetto+logcat the panel lists Looper messages beside the sections: its title says both.
func TestSectionsAndMessagesTitle(t *testing.T) {
	secs := []metrics.SlowSectionReport{{Name: "inflate", Thread: "main", Count: 18, MaxMs: 90.5, TotalMs: 679}}
	view := func(src source.Kind, msgs []metrics.MessageSnapshot) string {
		snap := &metrics.Snapshot{Session: source.Session{Source: src}, SlowMs: 16.7, Sections: secs, Messages: msgs}
		m := newMessages(pickerStyles()).SetSize(100, 8)
		m, _ = m.Update(dataMsg{snap: snap})
		return ansi.Strip(strings.Join(m.View(), "\n"))
	}
	both := view(source.KindPerfetto, []metrics.MessageSnapshot{{Handler: "android.view.Choreographer$FrameHandler", Count: 3, MaxMs: 40}})
	if !strings.Contains(both, "Slow messages and sections (trace)") {
		t.Errorf("title does not name both:\n%s", both)
	}
	if alone := view(source.KindPerfetto, nil); !strings.Contains(alone, "Slow sections (trace)") || strings.Contains(alone, "messages and") {
		t.Errorf("a trace alone should say sections only:\n%s", alone)
	}
}
