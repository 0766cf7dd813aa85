package surfaceflinger

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/fpstop/fpstop/source"
)

// Auto timing.
const (
	// AutoWindow is the span over which auto compares what the windows drew with what the
	// app's SurfaceView layer presented.
	AutoWindow = 1500 * time.Millisecond
	// autoListEvery is how often auto reads --list until the app has a SurfaceView layer.
	autoListEvery = 2 * time.Second
	// autoSilentNs: a window source this far behind the layer's presents is silent.
	autoSilentNs = int64(3 * time.Second)
	// autoMinLayerFrames: the layer must present at least this many frames in the window
	// (about 5 fps) to be what the app is drawing.
	autoMinLayerFrames = 8
)

// Auto is `--source auto` on a device: it measures what the app draws (DESIGN §4a). The app's
// window source (gfxinfo, with logcat when the app logs its Looper) runs throughout, so its
// windows and main-thread messages are never lost; once `--list` shows a SurfaceView layer of
// the app, the SurfaceFlinger poller runs beside it on that layer. While the layer presents
// more frames than the windows draw (over the last AutoWindow), the layer is measured; when the
// windows draw more, they are again (menu → game → menu). Each change is a Session naming the
// layer (or none), with the window source's own Source, so the header, the report's `layers[]`
// and `measured` say what was measured and from when.
type Auto struct {
	Gfx source.Source
	SF  *Poller
	// Window overrides AutoWindow (tests).
	Window time.Duration
	// Watch, when set, holds whether the layer is measured: the window source's poller reads
	// it (gfxinfo.PollerConfig.Watch) to keep probing the quiet windows promptly, so that the
	// switch back to them comes within seconds, not at the idle backoff.
	Watch *atomic.Bool
}

// autoState is one Run's view of both sources.
type autoState struct {
	window  int64
	gfx     *source.Session // the window source's session (nil: none yet)
	layer   Layer           // the SurfaceFlinger poller's layer
	layerOn bool            // the layer is measured
	winAt   []int64         // recent window frame vsyncs
	layAt   []int64         // recent layer presents
	gfxNow  int64           // newest device time the window source reported
	sfNow   int64           // newest device time the SurfaceFlinger poller reported
}

// Run implements source.Source.
func (a *Auto) Run(ctx context.Context, out chan<- []source.Event) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	gch := make(chan []source.Event, 64)
	sch := make(chan []source.Event, 64)
	gerr, serr := make(chan error, 1), make(chan error, 1)
	go func() {
		gerr <- a.Gfx.Run(ctx, gch)
		close(gch)
	}()
	go func() {
		serr <- a.runSF(ctx, sch)
		close(sch)
	}()
	window := a.Window
	if window <= 0 {
		window = AutoWindow
	}
	st := &autoState{window: int64(window)}
	for gch != nil {
		var batch []source.Event
		select {
		case b, ok := <-gch:
			if !ok {
				gch = nil
				continue
			}
			batch = st.fromGfx(b)
		case b, ok := <-sch:
			if !ok {
				sch = nil // the poller gave up (Android 16 hint) or ended: windows only
				continue
			}
			batch = st.fromSF(b)
		case <-ctx.Done():
			return ctx.Err()
		}
		// what is measured is decided as each source reports: no clock of auto's own
		batch = append(batch, st.decide()...)
		if a.Watch != nil {
			a.Watch.Store(st.layerOn)
		}
		if err := source.Send(ctx, out, batch); err != nil {
			return err
		}
	}
	cancel()
	if err := <-gerr; err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return ctx.Err()
}

// runSF waits (reading --list every autoListEvery) until the app has a SurfaceView layer, then
// runs the poller on the app's SurfaceView layers only.
func (a *Auto) runSF(ctx context.Context, sch chan<- []source.Event) error {
	a.SF.cfg.SurfaceViewsOnly = true
	a.SF.cfg.NoTimestats = true
	for {
		if list, err := a.SF.d.SFList(ctx); err == nil {
			cands, _ := Candidates(list, a.SF.cfg.Package)
			for _, c := range cands {
				if c.Kind <= KindSurfaceView {
					return a.SF.Run(ctx, sch)
				}
			}
		}
		if err := a.SF.cfg.Sleep(ctx, autoListEvery); err != nil {
			return err
		}
	}
}

// fromGfx notes the window source's batch and returns what to forward: everything, its
// Session naming the layer while the layer is measured.
func (st *autoState) fromGfx(b []source.Event) []source.Event {
	for i, ev := range b {
		switch e := ev.(type) {
		case *source.Session:
			cp := *e
			st.gfx = &cp
			if st.layerOn {
				b[i] = st.session()
			}
		case *source.Frame:
			if !e.History {
				st.winAt = append(st.winAt, e.VsyncNs)
				st.gfxNow = max(st.gfxNow, e.DoneNs)
			}
		case *source.Tick:
			st.gfxNow = max(st.gfxNow, e.NowNs)
		case *source.Poll:
			st.gfxNow = max(st.gfxNow, e.AtNs)
		}
	}
	return b
}

// fromSF notes the poller's batch and returns what to forward: its frames and polls; not its
// Session (auto's sessions are the window source's) nor the states of its notices (the
// window source's state is the app's).
func (st *autoState) fromSF(b []source.Event) []source.Event {
	out := b[:0]
	var changed bool
	for _, ev := range b {
		switch e := ev.(type) {
		case *source.Session:
			if e.Layer != st.layer.Name {
				st.layer = Layer{Name: e.Layer}
				if k, ok := ClassifyLayer(e.Layer, e.Package); ok {
					st.layer = k
				}
				st.layAt = st.layAt[:0]
				changed = st.layerOn
			}
			continue
		case *source.Notice:
			if e.State != "" {
				cp := *e
				cp.State = ""
				ev = &cp
			}
		case *source.LayerFrame:
			if e.Layer == st.layer.Name {
				st.layAt = append(st.layAt, e.PresentNs)
			}
		case *source.LayerPoll:
			st.sfNow = max(st.sfNow, e.AtNs)
		case *source.Tick:
			st.sfNow = max(st.sfNow, e.NowNs)
		}
		out = append(out, ev)
	}
	if changed && st.gfx != nil {
		if st.layer.Name == "" {
			st.layerOn = false
		}
		out = append(out, st.session())
	}
	return out
}

// session is the window source's session naming what is measured now.
func (st *autoState) session() *source.Session {
	s := *st.gfx
	s.Layer, s.LayerKind = "", ""
	if st.layerOn {
		s.Layer, s.LayerKind = st.layer.Name, st.layer.Kind.String()
	}
	return &s
}

// decide compares the windows' and the layer's frames over the last window of device time both
// sources have reported, and returns the session and notice of a change of what is measured.
func (st *autoState) decide() []source.Event {
	if st.gfx == nil || st.sfNow == 0 {
		return nil
	}
	to := min(st.gfxNow, st.sfNow)
	if st.sfNow-st.gfxNow > autoSilentNs {
		// the window source reports nothing (no window of the app, or its dumps fail): the
		// windows draw nothing as far as anyone can tell
		to = st.sfNow
	}
	from := to - st.window
	st.winAt = keepAfter(st.winAt, from-st.window)
	st.layAt = keepAfter(st.layAt, from-st.window)
	nw, nl := countIn(st.winAt, from, to), countIn(st.layAt, from, to)
	var text string
	switch {
	case !st.layerOn && st.layer.Name != "" && nl > nw && nl >= autoMinLayerFrames:
		st.layerOn = true
		text = "auto: the app's SurfaceView layer presents more frames than its windows draw: measuring the layer through SurfaceFlinger (" + st.layer.Describe() + "); logcat stays attached"
	case st.layerOn && nw > nl:
		st.layerOn = false
		text = "auto: the app's windows draw more frames than its SurfaceView layer presents: measuring the windows"
	default:
		return nil
	}
	return []source.Event{&source.Notice{AtNs: to, Level: source.LevelInfo, Text: text}, st.session()}
}

// keepAfter drops the times at or before t (times arrive in order per source).
func keepAfter(ts []int64, t int64) []int64 {
	i := 0
	for i < len(ts) && ts[i] <= t {
		i++
	}
	return append(ts[:0], ts[i:]...)
}

func countIn(ts []int64, from, to int64) int {
	n := 0
	for _, t := range ts {
		if t > from && t <= to {
			n++
		}
	}
	return n
}
