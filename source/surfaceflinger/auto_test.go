package surfaceflinger

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/fpstop/fpstop/internal/fakeadb"
	"github.com/fpstop/fpstop/source"
)

// gfxStub is a gfxinfo source sending one batch, then waiting.
type gfxStub struct{ batch []source.Event }

func (g gfxStub) Run(ctx context.Context, out chan<- []source.Event) error {
	select {
	case out <- g.batch:
	case <-ctx.Done():
		return ctx.Err()
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
			cancel()
			return context.Canceled
		}
		return h.clk.Sleep(c, d)
	}}}
	a := &Auto{Gfx: gfx, SF: NewPoller(h.dev, cfg), Window: 50 * time.Millisecond}
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

func sessionKinds(evs []source.Event) (kinds []source.Kind, notes []string) {
	for _, ev := range evs {
		switch e := ev.(type) {
		case *source.Session:
			kinds = append(kinds, e.Source)
		case *source.Notice:
			notes = append(notes, e.Text)
		}
	}
	return
}

// Windows that only hold old rows and a presenting SurfaceView: auto measures the layer, and
// none of gfxinfo's held-back events get through.
func TestAutoSwitchesToLayer(t *testing.T) {
	h := newHarness(fakeadb.SFAndroid15, 120, 2)
	gfx := gfxStub{[]source.Event{&source.Session{Source: source.KindGfxinfo, Package: gamePkg},
		&source.Frame{Window: "w", VsyncNs: 1, DoneNs: 2, History: true}}}
	kinds, _ := sessionKinds(runAuto(t, h, gfx))
	if len(kinds) == 0 || kinds[0] != source.KindSurfaceFlinger {
		t.Fatalf("sessions %v, want surfaceflinger only", kinds)
	}
	for _, k := range kinds {
		if k != source.KindSurfaceFlinger {
			t.Fatalf("sessions %v: gfxinfo's held events leaked", kinds)
		}
	}
}

// A window drawing a new frame keeps gfxinfo.
func TestAutoKeepsGfxinfo(t *testing.T) {
	h := newHarness(fakeadb.SFAndroid15, 120, 2)
	gfx := gfxStub{[]source.Event{&source.Session{Source: source.KindGfxinfo, Package: gamePkg},
		&source.Frame{Window: "w", VsyncNs: 1, DoneNs: 2}}}
	kinds, _ := sessionKinds(runAuto(t, h, gfx))
	if len(kinds) != 1 || kinds[0] != source.KindGfxinfo {
		t.Fatalf("sessions %v, want gfxinfo", kinds)
	}
}

// Android 16: the SurfaceView's --latency prints the period only; auto stays with gfxinfo and
// says what to run instead.
func TestAutoAndroid16Hint(t *testing.T) {
	h := newHarness(fakeadb.SFAndroid16, 120, 2)
	gfx := gfxStub{[]source.Event{&source.Session{Source: source.KindGfxinfo, Package: gamePkg}}}
	kinds, notes := sessionKinds(runAuto(t, h, gfx))
	if len(kinds) != 1 || kinds[0] != source.KindGfxinfo {
		t.Fatalf("sessions %v, want gfxinfo", kinds)
	}
	if len(notes) == 0 || !strings.Contains(strings.Join(notes, "\n"), "--source surfaceflinger") {
		t.Errorf("no hint: %q", notes)
	}
}
