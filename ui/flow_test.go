package ui

import (
	"bytes"
	"sync/atomic"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"

	"github.com/fpstop/fpstop/internal/testkit/fixture"
	"github.com/fpstop/fpstop/metrics"
)

// TestFlow drives the dashboard as a person would, in a real Bubble Tea program: snapshots
// with frames arrive → p pauses (PAUSED shown, newer snapshots not applied while collection
// goes on) → ? opens help → esc closes it → q quits. It asserts on the final model.
func TestFlow(t *testing.T) {
	var latest atomic.Pointer[metrics.Snapshot]
	var reads atomic.Int64
	latest.Store(fixture.Live(1))
	o := testOpts()
	o.Refresh = 5 * time.Millisecond
	o.After = tea.Tick // a real program: real timers
	o.Snapshots = func() *metrics.Snapshot { reads.Add(1); return latest.Load() }

	tm := teatest.NewTestModel(t, New(o.build()), teatest.WithInitialTermSize(120, 40))
	wait := func(s string) {
		t.Helper()
		teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte(s)) },
			teatest.WithDuration(10*time.Second), teatest.WithCheckInterval(5*time.Millisecond))
	}
	wait("59.7 fps")
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("p")})
	wait("PAUSED")

	// Newer data keeps arriving while paused; wait until the program has read it a few times.
	latest.Store(fixture.Live(2))
	seen := reads.Load()
	deadline := time.Now().Add(10 * time.Second)
	for reads.Load() < seen+3 {
		if time.Now().After(deadline) {
			t.Fatalf("the refresh loop stopped while paused")
		}
		time.Sleep(5 * time.Millisecond)
	}

	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("?")})
	wait("esc or ? closes")
	tm.Send(tea.KeyMsg{Type: tea.KeyEsc})
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("q")})

	fm, ok := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(Model)
	if !ok {
		t.Fatalf("final model is not a ui.Model")
	}
	if !fm.Quitting() {
		t.Errorf("q did not quit")
	}
	if !fm.Paused() {
		t.Errorf("the final model is not paused")
	}
	if got := fm.Snapshot().Seq; got != 1 {
		t.Errorf("a snapshot (seq %d) was applied while paused", got)
	}
	if fm.HelpOpen() {
		t.Errorf("esc did not close help")
	}
}
