package ui

import (
	"fmt"

	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/source"
)

// stateWord is the session's one state (metrics decides it: Snapshot.State) in a few plain
// words, for the places that have no room for the header's badge: the overview's STATE column.
// It reads the same value the badge and the FPS headline read, so none of them can disagree.
func stateWord(s *metrics.Snapshot) string {
	if s == nil {
		return "connecting"
	}
	switch s.State {
	case "", source.StateWaiting:
		if s.Session.Source == "" && s.Session.Device.Serial != "" {
			return "connecting"
		}
		return "waiting"
	case source.StateFrozen:
		return fmt.Sprintf("frozen %.1f s", float64(s.StateForNs)/1e9)
	case source.StateNoFrames:
		return "no frames"
	case source.StateAdbDown:
		return "adb down"
	}
	return string(s.State)
}

// notDrawing reports whether the state says the app draws nothing now (idle, frozen, no
// frames): no current figure may stand beside it.
func notDrawing(s source.State) bool {
	return s == source.StateIdle || s == source.StateFrozen || s == source.StateNoFrames
}
