package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/source"
)

// TestMessagesPanelShowsSections (issue 32): with a Perfetto trace as the source, the messages
// panel lists the trace's slow atrace sections, titled as sections, with their thread.
func TestMessagesPanelShowsSections(t *testing.T) {
	snap := &metrics.Snapshot{Session: source.Session{Source: source.KindPerfetto}, SlowMs: 16.7,
		Sections: []metrics.SlowSectionReport{
			{Name: "RV OnBindView", Thread: "main", Count: 12, MaxMs: 48.5, TotalMs: 120},
			{Name: "Choreographer#doFrame N", Thread: "main", Count: 300, MaxMs: 61, TotalMs: 2000},
		}}
	m := newMessages(pickerStyles()).SetSize(100, 8)
	m, _ = m.Update(dataMsg{snap: snap})
	v := ansi.Strip(strings.Join(m.View(), "\n"))
	for _, want := range []string{"Slow sections", "RV OnBindView", "Choreographer#doFrame N", "main", "48.5"} {
		if !strings.Contains(v, want) {
			t.Errorf("panel lacks %q:\n%s", want, v)
		}
	}
	if strings.Index(v, "Choreographer#doFrame N") > strings.Index(v, "RV OnBindView") {
		t.Errorf("rows not by max, slowest first:\n%s", v)
	}
	snap.Sections = nil
	m, _ = m.Update(dataMsg{snap: snap})
	if v := ansi.Strip(strings.Join(m.View(), "\n")); !strings.Contains(v, "No atrace section") {
		t.Errorf("empty sections panel:\n%s", v)
	}
}
