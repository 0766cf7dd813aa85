package perfetto

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fpstop/fpstop/internal/testkit/realdata"
	"github.com/fpstop/fpstop/internal/testkit/sourcetest"
	"github.com/fpstop/fpstop/source"
	"google.golang.org/protobuf/encoding/protowire"
)

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
	fs := framesOf(sourcetest.Events(t, FromReader(f, Options{Name: "ft_events"})))
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
		evs := sourcetest.Events(t, FromReader(f, Options{Name: "doframe", Package: c.pkg}))
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

// TestExpectedWithoutActual: an expected frame of the app that no actual frame came for is a
// frame the app never produced (DESIGN §4a): not a frame, and said once with its count; the
// expected frames that got their actual one are not counted.
func TestExpectedWithoutActual(t *testing.T) {
	var trace []byte
	ft := func(ts uint64, ev []byte) {
		trace = pbMsg(trace, 1, pbMsg(pbInt(nil, pkTimestamp, ts), pkFrameTimline, ev))
	}
	start := func(kind protowire.Number, cookie, token uint64, actual bool) []byte {
		m := pbStr(pbInt(pbInt(pbInt(pbInt(nil, 1, cookie), 2, token), 3, 1), 4, 100), 5, "TX - app/A#0")
		if actual {
			m = pbInt(pbInt(m, 6, PresentOnTime), 9, JankNone)
		}
		return pbMsg(nil, kind, m)
	}
	end := func(cookie uint64) []byte { return pbMsg(nil, ftFrameEnd, pbInt(nil, 1, cookie)) }
	ms := uint64(1_000_000)
	for i, tok := range []uint64{10, 11, 12, 13} {
		at := 1000*ms + uint64(i)*17*ms
		ft(at, start(protowire.Number(ExpectedSurface), 2*tok, tok, false))
		ft(at+16*ms, end(2*tok))
		if tok != 11 && tok != 12 { // the app never produced frames 11 and 12
			ft(at, start(protowire.Number(ActualSurface), 2*tok+1, tok, true))
			ft(at+10*ms, end(2*tok+1))
		}
	}
	evs := sourcetest.Events(t, FromReader(bytes.NewReader(trace), Options{Name: "orphans"}))
	if n := len(framesOf(evs)); n != 2 {
		t.Errorf("%d frames, want 2 (the two with an actual frame)", n)
	}
	var said []string
	for _, e := range evs {
		if n, ok := e.(*source.Notice); ok && strings.Contains(n.Text, "expected never came") {
			said = append(said, n.Text)
		}
	}
	if len(said) != 1 || !strings.HasPrefix(said[0], "2 app frames SurfaceFlinger expected never came") || !strings.Contains(said[0], "at 1.017 s") {
		t.Errorf("notices %q, want one saying 2 frames, the first at 1.017 s", said)
	}
}
