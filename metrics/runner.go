package metrics

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/fpstop/fpstop/source"
)

// Runner owns a Pipeline on one goroutine: it applies event batches as they arrive, hands every
// batch to an optional tap first (the recorder), and publishes a Snapshot at most once per
// refresh period, only when data changed — or at once when the state (live, frozen, idle…)
// changed, which it also signals on Changes. Other goroutines read Latest and call Do.
type Runner struct {
	p       *Pipeline
	refresh time.Duration
	snap    atomic.Pointer[Snapshot]
	ctl     chan ctlReq
	tap     func([]source.Event)
	changes chan struct{}
	// the published state and busy message
	state source.State
	busy  string
}

// NewRunner wraps p; refresh is how often a changed state is published (default 250 ms).
func NewRunner(p *Pipeline, refresh time.Duration) *Runner {
	if refresh <= 0 {
		refresh = 250 * time.Millisecond
	}
	r := &Runner{p: p, refresh: refresh, ctl: make(chan ctlReq), changes: make(chan struct{}, 1)}
	r.store(p.Snapshot())
	return r
}

// Latest returns the newest published Snapshot (never nil).
func (r *Runner) Latest() *Snapshot { return r.snap.Load() }

// Changes receives a value whenever a Snapshot with another state or busy message than the one
// before was published (at most one is pending): a freeze is the worst state there is, and a
// screen that waits for its next poll shows it up to a poll period late.
func (r *Runner) Changes() <-chan struct{} { return r.changes }

func (r *Runner) store(s *Snapshot) {
	r.snap.Store(s)
	if s.State != r.state || s.Busy != r.busy {
		r.state, r.busy = s.State, s.Busy
		select {
		case r.changes <- struct{}{}:
		default:
		}
	}
}

// stateChanged reports whether the pipeline's state differs from the published one.
func (r *Runner) stateChanged() bool {
	st, busy, _ := r.p.State()
	return st != r.state || busy != r.busy
}

// SetTap sets a function that sees every batch before the pipeline does. Call it before Run, or
// through Do while running.
func (r *Runner) SetTap(fn func([]source.Event)) { r.tap = fn }

// Do runs fn on the pipeline's goroutine and waits for it and for the snapshot that shows its
// effect to be published (clear, report, tap changes, a switch's reset). It
// returns false when the runner has stopped or ctx ended first.
func (r *Runner) Do(ctx context.Context, fn func(*Pipeline)) bool {
	done := make(chan struct{})
	select {
	case r.ctl <- ctlReq{fn: fn, done: done}:
	case <-ctx.Done():
		return false
	}
	select {
	case <-done:
		return true
	case <-ctx.Done():
		return false
	}
}

// ctlReq is a Do: fn to run on the runner's goroutine, done closed once its effect is published.
type ctlReq struct {
	fn   func(*Pipeline)
	done chan struct{}
}

// drain applies the batches queued in in now, not those sent later (a busy source cannot
// hold it up). A closed channel's queued batches are all still there to receive.
func (r *Runner) drain(in <-chan []source.Event) {
	for n := len(in); n > 0; n-- {
		r.apply(<-in)
	}
}

// apply hands a batch to the tap, then to the pipeline.
func (r *Runner) apply(batch []source.Event) {
	if r.tap != nil {
		r.tap(batch)
	}
	r.p.AddBatch(batch)
}

// earlyEvery is the shortest time between two publishes for a change of state.
const earlyEvery = 50 * time.Millisecond

// Run applies batches from in until in is closed or ctx ends, then publishes a final Snapshot.
func (r *Runner) Run(ctx context.Context, in <-chan []source.Event) error {
	t := time.NewTicker(r.refresh)
	defer t.Stop()
	dirty := false
	var early time.Time // the last publish ahead of the ticker
	publish := func() {
		if dirty {
			r.store(r.p.Snapshot())
			dirty = false
		}
	}
	for {
		select {
		case <-ctx.Done():
			publish()
			return ctx.Err()
		case batch, ok := <-in:
			if !ok {
				dirty = true
				publish()
				return nil
			}
			r.apply(batch)
			dirty = true
			// a new state is published at once, though not more often than every 50 ms (a
			// fast replay can change state on every batch)
			if r.stateChanged() && time.Since(early) >= earlyEvery {
				early = time.Now()
				publish()
			}
		case req := <-r.ctl:
			// Batches already queued were sent before fn was asked for: apply them first, so
			// a Switch's reset is not followed by the old source's last frames and rate (they
			// would show as the new phone's, and its rate as "refresh rate changed").
			r.drain(in)
			req.fn(r.p)
			dirty = true
			publish()
			close(req.done) // after the publish: Latest shows fn's effect once Do returns
		case <-t.C:
			publish()
		}
	}
}
