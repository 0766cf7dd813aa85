package source

import (
	"context"
	"errors"
	"time"
)

// Joining runs Base and, once Ready says so, Extra beside it, merged as Merged(Kind, Base,
// Extra) would be from then on: auto's gfxinfo that takes on the app's logcat when the app
// turns out to print Looper lines. A single look at the start is not enough: it may come before
// the app has logged anything, fail on a busy phone or host, or the app may turn its printer on
// later. So Ready is asked again and again while Base runs: First after the start (the caller
// has just looked once), then twice as long after each no, up to Max.
type Joining struct {
	Kind  Kind // the sessions' source once Extra runs
	Base  Source
	Extra func() Source
	// Ready looks (attempt counts from 1); an error is a look that could not tell.
	Ready      func(ctx context.Context, attempt int) (bool, error)
	First, Max time.Duration
	// Sleep waits between looks (nil: Sleep, real time).
	Sleep func(ctx context.Context, d time.Duration) error
	// Note is the info Notice sent when Extra joins (none when empty).
	Note string
	// Progress, when set, hears every answer (from the looking goroutine): the user is told
	// what auto is doing while it does it.
	Progress func(JoinProgress)
}

// JoinProgress is one answer of Joining's Ready.
type JoinProgress struct {
	Attempt int
	Err     error         // the look failed (nil: it answered)
	Joined  bool          // Extra runs from now on
	Next    time.Duration // the wait until the next look (when not Joined)
}

// Run implements Source. It ends when Base ends (Extra is stopped then); the first of them to
// fail stops the other and its error is returned.
func (j *Joining) Run(ctx context.Context, out chan<- []Event) error {
	rctx, cancel := context.WithCancel(ctx)
	bch, ech := make(chan []Event, 16), make(chan []Event, 16)
	berr, eerr := make(chan error, 1), make(chan error, 1)
	go func() {
		berr <- j.Base.Run(rctx, bch)
		close(bch)
	}()
	found := make(chan struct{})
	looked := make(chan struct{})
	go func() {
		defer close(looked)
		j.look(rctx, found)
	}()
	started := false
	err := j.forward(rctx, out, bch, ech, eerr, found, func() {
		started = true
		go func() {
			eerr <- j.Extra().Run(rctx, ech)
			close(ech)
		}()
	})
	// everything started here ends before Run returns; when Base ended, what Extra had sent
	// still goes out
	cancel()
	for range bch {
	}
	if started {
		for b := range ech {
			if err == nil {
				relabel(j.Kind, b)
				_ = Send(ctx, out, b)
			}
		}
	}
	<-looked
	if err == nil {
		err = <-berr
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return ctx.Err()
}

// forward sends Base's batches, and Extra's once start has run it, until Base ends (nil), a
// source fails or ctx ends (the error).
func (j *Joining) forward(ctx context.Context, out chan<- []Event, bch, ech <-chan []Event, eerr <-chan error,
	found <-chan struct{}, start func()) error {
	st := joinState{kind: j.Kind}
	var extra <-chan []Event // nil until Extra runs
	for {
		var batch []Event
		select {
		case b, ok := <-bch:
			if !ok {
				return nil
			}
			batch = st.fromBase(b)
		case b, ok := <-extra:
			if !ok {
				extra = nil // Extra ended by itself: Base goes on alone
				continue
			}
			relabel(j.Kind, b)
			batch = b
		case <-found:
			found = nil
			batch = st.join(j.Note)
			extra = ech
			start()
		case err := <-eerr:
			if err != nil && !errors.Is(err, context.Canceled) {
				return err
			}
			continue
		case <-ctx.Done():
			return ctx.Err()
		}
		if err := Send(ctx, out, batch); err != nil {
			return err
		}
	}
}

// look asks Ready, First after Run starts (the caller has just looked), until it says yes (then
// closes found) or ctx ends.
func (j *Joining) look(ctx context.Context, found chan<- struct{}) {
	sleep := j.Sleep
	if sleep == nil {
		sleep = Sleep
	}
	wait := j.First
	for attempt := 1; ; attempt++ {
		if sleep(ctx, wait) != nil {
			return
		}
		ok, err := j.Ready(ctx, attempt)
		if ctx.Err() != nil {
			return
		}
		wait = min(2*wait, j.Max)
		p := JoinProgress{Attempt: attempt, Err: err, Joined: ok && err == nil, Next: wait}
		if j.Progress != nil {
			j.Progress(p)
		}
		if p.Joined {
			close(found)
			return
		}
	}
}

// joinState is what Run remembers of Base's stream: its last session (said again under Kind
// when Extra joins) and its newest device time (when the join is noted).
type joinState struct {
	kind   Kind
	joined bool
	last   *Session
	nowNs  int64
}

func (st *joinState) fromBase(b []Event) []Event {
	for i, ev := range b {
		st.nowNs = max(st.nowNs, ev.At())
		if s, ok := ev.(*Session); ok {
			cp := *s
			st.last = &cp
			if st.joined {
				b[i] = relabeled(st.kind, s)
			}
		}
	}
	return b
}

// join is the batch that starts the merged stream: the note, and Base's session under kind.
func (st *joinState) join(note string) []Event {
	st.joined = true
	var b []Event
	if note != "" {
		b = append(b, &Notice{AtNs: st.nowNs, Level: LevelInfo, Text: note})
	}
	if st.last != nil {
		b = append(b, relabeled(st.kind, st.last))
	}
	return b
}
