package surfaceflinger

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/fpstop/fpstop/internal/testkit/fakeadb"
	"github.com/fpstop/fpstop/source"
)

// gfxStub is a window source sending its batches, then waiting.
type gfxStub struct{ batches [][]source.Event }

func (g gfxStub) Run(ctx context.Context, out chan<- []source.Event) error {
	for _, b := range g.batches {
		select {
		case out <- b:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	<-ctx.Done()
	return ctx.Err()
}

func runAuto(t *testing.T, h *harness, gfx source.Source) []source.Event {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	polls := 0
	cfg := Config{Package: gamePkg, PollClock: source.PollClock{Now: h.clk.Now, Sleep: func(c context.Context, d time.Duration) error {
		if polls++; polls > 12 {
			<-c.Done()
			return c.Err()
		}
		return h.clk.Sleep(c, d)
	}}}
	a := &Auto{Gfx: gfx, SF: NewPoller(h.dev, cfg)}
	out := make(chan []source.Event, 1<<12)
	go func() {
		time.Sleep(1500 * time.Millisecond)
		cancel()
	}()
	if err := a.Run(ctx, out); err != nil && !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	close(out)
	var evs []source.Event
	for b := range out {
		evs = append(evs, b...)
	}
	return evs
}

// sessions lists the sessions' layers ("" for the windows), their sources and the notices.
func sessions(evs []source.Event) (layers []string, kinds []source.Kind, notes []string) {
	for _, ev := range evs {
		switch e := ev.(type) {
		case *source.Session:
			layers = append(layers, e.Layer)
			kinds = append(kinds, e.Source)
		case *source.Notice:
			notes = append(notes, e.Text)
		}
	}
	return
}

// far is a device time beyond every present: the window source has reported up to it.
const far = int64(1) << 60

// Windows that draw nothing and a presenting SurfaceView: auto measures the layer, under the
// window source's session (its logcat stays attached), and says so.
func TestAutoSwitchesToLayer(t *testing.T) {
	t.Parallel() // each waits 1.5 s of real time for auto to decide
	h := newHarness(fakeadb.SFAndroid15, 120, 2)
	gfx := gfxStub{[][]source.Event{{&source.Session{Source: source.KindGfxinfoLogcat, Package: gamePkg},
		&source.Frame{Window: "w", VsyncNs: 1, DoneNs: 2, History: true}, &source.Tick{NowNs: far}}}}
	layers, kinds, notes := sessions(runAuto(t, h, gfx))
	if len(layers) != 2 || layers[0] != "" || layers[1] != h.g.layer {
		t.Fatalf("sessions %q, want the windows then %q", layers, h.g.layer)
	}
	for _, k := range kinds {
		if k != source.KindGfxinfoLogcat {
			t.Errorf("sessions %v: not the window source's", kinds)
		}
	}
	if !strings.Contains(strings.Join(notes, "\n"), "measuring the layer") {
		t.Errorf("notes %q", notes)
	}
}

// Windows drawing more frames than the layer presents keep the windows measured.
func TestAutoKeepsWindows(t *testing.T) {
	t.Parallel()                                 // each waits 1.5 s of real time for auto to decide
	h := newHarness(fakeadb.SFAndroid15, 120, 2) // 60 fps layer
	var frames []source.Event
	frames = append(frames, &source.Session{Source: source.KindGfxinfo, Package: gamePkg})
	for at := h.g.base - 2_000_000_000; at < h.g.base+4_000_000_000; at += 8_333_333 { // 120 fps
		frames = append(frames, &source.Frame{Window: "w", VsyncNs: at, DoneNs: at + 4_000_000})
	}
	frames = append(frames, &source.Tick{NowNs: h.g.base + 4_000_000_000})
	layers, _, _ := sessions(runAuto(t, h, gfxStub{[][]source.Event{frames}}))
	if len(layers) != 1 || layers[0] != "" {
		t.Fatalf("sessions %q, want the windows only", layers)
	}
}

// Android 16: the SurfaceView's --latency prints the period only; auto stays with the windows,
// says what to run instead and never turns timestats on.
func TestAutoAndroid16Hint(t *testing.T) {
	t.Parallel() // each waits 1.5 s of real time for auto to decide
	h := newHarness(fakeadb.SFAndroid16, 120, 2)
	gfx := gfxStub{[][]source.Event{{&source.Session{Source: source.KindGfxinfo, Package: gamePkg}, &source.Tick{NowNs: far}}}}
	layers, _, notes := sessions(runAuto(t, h, gfx))
	if len(layers) != 1 || layers[0] != "" {
		t.Fatalf("sessions %q, want the windows only", layers)
	}
	if !strings.Contains(strings.Join(notes, "\n"), "--source surfaceflinger") {
		t.Errorf("no hint: %q", notes)
	}
	if h.dev.sf.TimestatsOn() {
		t.Error("auto turned timestats on")
	}
}

// A window source that never reports a time (an app without hwui windows, a NativeActivity
// game): the presenting layer is measured once the poller is 3 s ahead of it.
func TestAutoSilentWindows(t *testing.T) {
	t.Parallel() // each waits 1.5 s of real time for auto to decide
	h := newHarness(fakeadb.SFAndroid14, 60, 1)
	gfx := gfxStub{[][]source.Event{{&source.Session{Source: source.KindGfxinfo, Package: gamePkg}}}}
	layers, _, _ := sessions(runAuto(t, h, gfx))
	if len(layers) != 2 || layers[1] != h.g.layer {
		t.Fatalf("sessions %q, want the windows then %q", layers, h.g.layer)
	}
}
