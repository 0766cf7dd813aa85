package ui

import (
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// TestReplayRecordRefused: r during a replay starts no recording (before, a paused replay
// wrote an empty recording to the working directory) and says why.
func TestReplayRecordRefused(t *testing.T) {
	o := testOpts()
	started := false
	o.OnRecord = func(bool) (string, error) { started = true; return "x.jsonl.gz", nil }
	opts := o.build()
	opts.Replay = &fakeReplay{total: time.Minute, speed: 1}
	m := New(opts)
	m = update(t, m, tea.WindowSizeMsg{Width: 120, Height: 40})
	_, cmd := m.Update(keyMsg("r"))
	if cmd != nil {
		if msg := cmd(); msg != nil {
			update(t, m, msg)
		}
	}
	if started {
		t.Errorf("r in a replay started a recording")
	}
}
