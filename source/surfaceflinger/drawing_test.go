package surfaceflinger

import (
	"testing"

	"github.com/fpstop/fpstop/source"
)

// TestDrawingFromTheFirstDump: a first dump whose newest backlog row completed just before it
// shows the windows drawing (auto decides at once); one whose rows are seconds old (a game's
// menu) does not; a frame drawn since the start always does.
func TestDrawingFromTheFirstDump(t *testing.T) {
	poll := &source.Poll{AtNs: 10e9, Window: "w", TotalFrames: 500}
	for _, c := range []struct {
		name string
		b    []source.Event
		want bool
	}{
		{"backlog up to the dump", []source.Event{&source.Frame{VsyncNs: 9.98e9, DoneNs: 9.99e9, History: true}, poll}, true},
		{"a menu drawn 3 s before", []source.Event{&source.Frame{VsyncNs: 6.98e9, DoneNs: 7e9, History: true}, poll}, false},
		{"a new frame", []source.Event{&source.Frame{VsyncNs: 6.98e9, DoneNs: 7e9}}, true},
		{"no dump time", []source.Event{&source.Frame{VsyncNs: 9.98e9, DoneNs: 9.99e9, History: true}}, false},
	} {
		if got := drawing(c.b); got != c.want {
			t.Errorf("%s: drawing %v, want %v", c.name, got, c.want)
		}
	}
}
