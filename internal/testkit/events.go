package testkit

import (
	"testing"

	"github.com/fpstop/fpstop/internal/testkit/sourcetest"
	"github.com/fpstop/fpstop/source"
	"github.com/fpstop/fpstop/source/sim"
)

// SimEvents runs the simulator with cfg (as fast as it goes unless cfg.Speed says otherwise)
// and returns copies of its frames and messages, the rest dropped: what a trace is rendered
// from or a fake tracer replays. Copies, because a source may reuse its events' storage once
// the batch is handed on.
func SimEvents(t testing.TB, cfg sim.Config) []source.Event {
	t.Helper()
	s, err := sim.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var evs []source.Event
	for _, b := range sourcetest.Batches(t, s) {
		evs = append(evs, FramesAndMessages(b)...)
	}
	return evs
}

// FramesAndMessages returns copies of the frames (phases included) and messages in b.
func FramesAndMessages(b []source.Event) []source.Event {
	var evs []source.Event
	for _, e := range b {
		switch v := e.(type) {
		case *source.Frame:
			c := *v
			if v.Phases != nil {
				ph := *v.Phases
				c.Phases = &ph
			}
			evs = append(evs, &c)
		case *source.Message:
			c := *v
			evs = append(evs, &c)
		}
	}
	return evs
}
