package surfaceflinger

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/fpstop/fpstop/source"
)

// AutoWindow is how long Auto watches the app's gfxinfo windows before deciding.
const AutoWindow = 2 * time.Second

// Auto is `--source auto` on a device: it runs the gfxinfo source and, when the app's windows
// draw nothing new during the first AutoWindow (rows already in the ring from before do not
// count) while one of its SurfaceView layers is presenting, switches to the SurfaceFlinger
// source for good. Otherwise it stays with gfxinfo, with every event it held back delivered.
type Auto struct {
	Gfx source.Source
	SF  *Poller
	// Window overrides AutoWindow (tests).
	Window time.Duration
}

// Run implements source.Source.
func (a *Auto) Run(ctx context.Context, out chan<- []source.Event) error {
	gctx, gcancel := context.WithCancel(ctx)
	defer gcancel()
	gch := make(chan []source.Event, 64)
	var gerr error
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		gerr = a.Gfx.Run(gctx, gch)
		close(gch)
	}()
	window := a.Window
	if window <= 0 {
		window = AutoWindow
	}
	held, drew, open := watch(ctx, gch, window)
	if ctx.Err() != nil {
		gcancel()
		wg.Wait()
		return ctx.Err()
	}
	var hint []source.Event
	if !drew {
		presenting, periodOnly, err := a.SF.surfaceViewPresenting(ctx)
		if err == nil && periodOnly {
			hint = []source.Event{&source.Notice{Level: source.LevelWarn,
				Text: "auto: the app's windows draw nothing and its SurfaceView layer prints no --latency frames here (Android 16): --source surfaceflinger measures it with --timestats"}}
		}
		if err == nil && presenting {
			gcancel()
			drain(gch) // so the gfxinfo source can end
			wg.Wait()
			note := []source.Event{&source.Notice{Level: source.LevelInfo,
				Text: "auto: the app's windows draw nothing and its SurfaceView layer presents: measuring the layer through SurfaceFlinger"}}
			if err := send(ctx, out, note); err != nil {
				return err
			}
			return a.SF.Run(ctx, out)
		}
	}
	if hint != nil {
		held = append(held, hint)
	}
	for _, b := range held {
		if err := send(ctx, out, b); err != nil {
			gcancel()
			wg.Wait()
			return err
		}
	}
	for open {
		b, ok := <-gch
		if !ok {
			break
		}
		if err := send(ctx, out, b); err != nil {
			gcancel()
			wg.Wait()
			return err
		}
	}
	wg.Wait()
	if gerr != nil && !errors.Is(gerr, context.Canceled) {
		return gerr
	}
	return ctx.Err()
}

// watch holds gfxinfo's batches until a window draws a new frame (drew) or the window of
// time passes; open is false when the source ended.
func watch(ctx context.Context, gch <-chan []source.Event, window time.Duration) (held [][]source.Event, drew, open bool) {
	timer := time.NewTimer(window)
	defer timer.Stop()
	for {
		select {
		case b, ok := <-gch:
			if !ok {
				return held, drew, false
			}
			held = append(held, b)
			if drawing(b) {
				return held, true, true
			}
		case <-timer.C:
			return held, false, true
		case <-ctx.Done():
			return held, false, true
		}
	}
}

// drawingNowNs: a window whose newest ring row completed this close before the dump was taken
// is drawing now, backlog or not.
const drawingNowNs = 250_000_000

// drawing reports whether a gfxinfo batch shows the app's windows drawing: a frame drawn since
// the source started, or a backlog row completed just before its dump (a 120 Hz app's first
// dump already says so: deciding then, not a poll later, puts the first figure on screen at
// once). A game's menu window, drawn long before, still does not count.
func drawing(b []source.Event) bool {
	var newest, polled int64
	for _, ev := range b {
		switch e := ev.(type) {
		case *source.Frame:
			if !e.History {
				return true
			}
			newest = max(newest, e.DoneNs)
		case *source.Poll:
			polled = max(polled, e.AtNs)
		}
	}
	return newest > 0 && polled > 0 && polled-newest < drawingNowNs
}

// surfaceViewPresenting reports whether one of the package's SurfaceView layers presents now
// (its newest present time moves between two probes); periodOnly, when it has SurfaceView
// layers whose --latency prints only the period (Android 16): auto cannot tell from here.
func (p *Poller) surfaceViewPresenting(ctx context.Context) (presenting, periodOnly bool, err error) {
	list, err := p.d.SFList(ctx)
	if err != nil {
		return false, false, err
	}
	cands, _ := Candidates(list, p.cfg.Package)
	r := &run{p: p, last: map[string]int64{}, probe: map[string]int64{}, refused: map[string]bool{}, start: p.cfg.Now()}
	var svs []Layer
	for _, c := range cands {
		if c.Kind <= KindSurfaceView && len(svs) < maxProbe {
			svs = append(svs, c)
		}
	}
	if len(svs) == 0 {
		return false, false, nil
	}
	first := make([]int64, len(svs))
	for i, c := range svs {
		if first[i], err = r.newestPresent(ctx, c.Name); err != nil {
			return false, false, err
		}
	}
	if err := p.cfg.Sleep(ctx, 3*probeGap); err != nil {
		return false, false, err
	}
	for i, c := range svs {
		n, err := r.newestPresent(ctx, c.Name)
		if err != nil {
			return false, false, err
		}
		if n > first[i] {
			return true, false, nil
		}
	}
	return false, r.probePeriodOnly == 2*len(svs), nil
}

func drain(ch <-chan []source.Event) {
	for range ch {
	}
}
