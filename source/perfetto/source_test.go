package perfetto

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fpstop/fpstop/internal/realdata"
	"github.com/fpstop/fpstop/source"
)

// runSource runs a trace source to its end and returns its events.
func runSource(t *testing.T, src source.Source) []source.Event {
	t.Helper()
	out := make(chan []source.Event, 16)
	errc := make(chan error, 1)
	go func() { errc <- src.Run(context.Background(), out); close(out) }()
	var evs []source.Event
	for b := range out {
		evs = append(evs, b...)
	}
	if err := <-errc; err != nil {
		t.Fatalf("Run: %v", err)
	}
	return evs
}

func framesOf(evs []source.Event) []*source.Frame {
	var fs []*source.Frame
	for _, e := range evs {
		if f, ok := e.(*source.Frame); ok {
			fs = append(fs, f)
		}
	}
	return fs
}

// TestSourceFrameTimeline: the app frames of Perfetto's FrameTimeline test trace, each
// measured against its expected frame, with SurfaceFlinger's verdict carried along.
func TestSourceFrameTimeline(t *testing.T) {
	dir := realdata.Dir(t, filepath.Join("perfetto", "ft_events"))
	f, err := os.Open(filepath.Join(dir, "trace.pftrace"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fs := framesOf(runSource(t, FromReader(f, Options{Name: "ft_events"})))
	byToken := map[int64][]*source.Frame{}
	for _, fr := range fs {
		byToken[fr.Timeline.Token] = append(byToken[fr.Timeline.Token], fr)
	}
	// the actual surface frames that finished: tokens 1, 5, 7, 14 (two layers), 16
	if len(fs) != 6 || len(byToken[14]) != 2 {
		t.Fatalf("frames %d (by token %v), want 6 with two of token 14", len(fs), len(byToken))
	}
	f5 := byToken[5][0]
	// expected 41 +15, actual 41 +33: late by the deadline, the app's own jank
	if f5.VsyncNs != 41 || f5.DeadlineNs != 56 || f5.DoneNs != 74 || f5.Timeline.JankType != JankAppDeadline ||
		f5.Window != "Layer1" || f5.Process != "pid 1000" {
		t.Errorf("token 5: %+v %+v", f5, f5.Timeline)
	}
	if f16 := byToken[16][0]; !f16.Timeline.NoExpected || f16.VsyncNs != 80 || f16.DoneNs != 190 {
		t.Errorf("token 16 (no expected frame): %+v %+v", f16, f16.Timeline)
	}
	if a, b := byToken[14][0].Timeline, byToken[14][1].Timeline; a.SameToken == b.SameToken || a.Layer == b.Layer {
		t.Errorf("token 14's two layers: %+v %+v", a, b)
	}
}

// TestSourcePackageFilter: -p keeps only that app's frames and says so when it has none.
func TestSourcePackageFilter(t *testing.T) {
	dir := realdata.Dir(t, filepath.Join("perfetto", "doframe_depth"))
	for _, c := range []struct {
		pkg    string
		frames int
	}{{"com.android.systemui", 4}, {"com.example.other", 0}} {
		f, err := os.Open(filepath.Join(dir, "trace.pftrace"))
		if err != nil {
			t.Fatal(err)
		}
		evs := runSource(t, FromReader(f, Options{Name: "doframe", Package: c.pkg}))
		f.Close()
		if n := len(framesOf(evs)); n != c.frames {
			t.Errorf("-p %s: %d frames, want %d", c.pkg, n, c.frames)
		}
		var said bool
		for _, e := range evs {
			if n, ok := e.(*source.Notice); ok && strings.Contains(n.Text, "no FrameTimeline") {
				said = true
			}
		}
		if !said {
			t.Errorf("-p %s: no notice that the trace has no FrameTimeline", c.pkg)
		}
	}
}
