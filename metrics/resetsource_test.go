package metrics

import (
	"strings"
	"testing"

	"github.com/fpstop/fpstop/source"
)

// TestResetSourceIsANewDevice: switching to another phone (ResetSource, then the new source's
// Refresh and Session) is not "refresh rate changed 120 → 60 Hz", and the old phone's state
// text does not linger; Reset (the c key, same device) still keeps the rate it knows.
func TestResetSourceIsANewDevice(t *testing.T) {
	p := NewPipeline(Config{})
	p.AddBatch([]source.Event{
		&source.Refresh{AtNs: 1e9, Hz: 120},
		&source.Session{Source: source.KindGfxinfo, Device: source.Device{Serial: "A"}, Package: "com.a", CostBasis: source.CostFrame},
		&source.Notice{AtNs: 2e9, Level: source.LevelErr, State: source.StateDisconnected, Text: "phone A disconnected"},
	})
	p.Reset()
	if s := p.Snapshot(); s.RefreshHz != 120 || s.State != source.StateDisconnected {
		t.Fatalf("Reset (clear) forgot the device: %g Hz, state %q", s.RefreshHz, s.State)
	}
	p.ResetSource()
	p.AddBatch([]source.Event{
		&source.Refresh{AtNs: 5e9, Hz: 60},
		&source.Session{Source: source.KindGfxinfo, Device: source.Device{Serial: "B"}, Package: "com.b", CostBasis: source.CostFrame},
	})
	s := p.Snapshot()
	for _, w := range s.Warnings {
		if strings.Contains(w, "refresh rate changed") {
			t.Errorf("switching phones warned %q", w)
		}
	}
	if s.RefreshHz != 60 || s.Session.Device.Serial != "B" || s.StateText != "" || s.State == source.StateDisconnected {
		t.Errorf("after the switch: %g Hz, device %q, state %q %q", s.RefreshHz, s.Session.Device.Serial, s.State, s.StateText)
	}
	// the same device changing its rate is still a change worth saying
	p.Add(&source.Refresh{AtNs: 6e9, Hz: 90})
	if w := p.Snapshot().Warnings; len(w) == 0 || !strings.Contains(w[len(w)-1], "60 Hz → 90 Hz") {
		t.Errorf("a rate change on one device: warnings %q", w)
	}
}

// TestClearIsNotIdle (issue 27): c (Reset) in the middle of a logcat session whose main thread
// has been seen: the state is live ("waiting" on screen) until the next frames, never idle at
// once, and live again when they come; idle only after a second with nothing drawn.
func TestClearIsNotIdle(t *testing.T) {
	p := NewPipeline(Config{})
	p.Add(&source.Session{Source: source.KindLogcat, RefreshHz: 60})
	v := steady(p, 1e9, 120) // 2 s of frames
	p.Add(&source.Message{Pid: 7, Tid: 7, Handler: "android.os.Handler", StartNs: v - 5*ms, EndNs: v - 4*ms})
	p.Reset()
	p.Add(&source.Tick{NowNs: v + 100*ms})
	if s := p.Snapshot(); s.State != source.StateLive || s.Totals.Frames != 0 {
		t.Fatalf("just cleared: state %q, %d frames", s.State, s.Totals.Frames)
	}
	v = steady(p, v+200*ms, 30)
	if s := p.Snapshot(); s.State != source.StateLive || s.Totals.Frames != 30 {
		t.Errorf("frames after the clear: state %q, %d frames", s.State, s.Totals.Frames)
	}
	p.Add(&source.Tick{NowNs: v + 1500*ms})
	if s := p.Snapshot(); s.State != source.StateIdle {
		t.Errorf("1.5 s without frames after the clear: state %q, want idle", s.State)
	}
}
