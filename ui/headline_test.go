package ui

import (
	"math"
	"strings"
	"testing"

	"github.com/fpstop/fpstop/internal/testkit/fixture"
	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/source"
)

// fpsHead is the FPS panel's first body line.
func fpsHead(t *testing.T, s *metrics.Snapshot) string {
	t.Helper()
	v := dashboard(t, testOpts(), 120, 40, s).fps.View()
	if len(v) < 2 {
		t.Fatalf("FPS panel: %q", v)
	}
	return v[1]
}

// TestHeadlineReadsTheState: the FPS headline says what the header badge says — frozen only
// when the state is frozen, idle only when it is idle — never the series' own marks: a live
// state over a newest slice without polled frames shows the last figure, not "idle"; a
// frozen state over slices full of frames says frozen.
func TestHeadlineReadsTheState(t *testing.T) {
	s := fixture.Live(1)
	n := len(s.Series)
	// the newest complete slice had no polled frames yet: live, not idle
	s.Series[n-2].Idle, s.Series[n-2].FPS, s.Series[n-2].Frames = true, math.NaN(), 0
	h := fpsHead(t, s)
	if !strings.Contains(h, "now ") || strings.Contains(h, "idle") {
		t.Errorf("live over an empty slice: %q", h)
	}
	s = fixture.Live(1)
	s.State, s.StateForNs, s.Busy = source.StateFrozen, 3e8, "FeedActivity$3"
	if h := fpsHead(t, s); !strings.Contains(h, "frozen") {
		t.Errorf("frozen state: %q", h)
	}
	s = fixture.Live(1)
	s.Series[n-2].Frozen = true // a past freeze's slice, the app drawing again
	if h := fpsHead(t, s); strings.Contains(h, "frozen") {
		t.Errorf("live state over a frozen slice: %q", h)
	}
}

// TestFirstFigureFromHistory: before the session has a complete slice of its own, the first
// dump's backlog gives a figure at once, labelled as history; without one the panel says
// "waiting", never "idle".
func TestFirstFigureFromHistory(t *testing.T) {
	s := fixture.Live(1)
	s.Series = []metrics.SlicePoint{{StartNs: s.OriginNs, Partial: true, Idle: true, FPS: math.NaN()}}
	s.Totals.HistoryFPS = 119.6
	h := fpsHead(t, s)
	if !strings.Contains(h, "now 119.6 fps (history)") {
		t.Errorf("first dump: %q", h)
	}
	s.Totals.HistoryFPS = math.NaN()
	if h := fpsHead(t, s); !strings.Contains(h, "waiting") || strings.Contains(h, "idle") {
		t.Errorf("no frames yet: %q", h)
	}
}
