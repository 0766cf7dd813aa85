package source

import (
	"context"
	"time"
)

// PollLoop is the loop of a source that polls a device (gfxinfo dumps, SurfaceFlinger's
// latency): poll, wait, poll again; a failed poll is retried after a backoff that doubles up to
// a ceiling, and the first failure after a good poll and the first good poll after failures
// are told apart so the source can say the device was lost and is back. The pollers share it
// so that their retry timing and disconnect reporting cannot drift apart.
type PollLoop struct {
	// Now and Sleep are the clock (tests replace them); Sleep returns ctx's error when ctx ends.
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error
	// BackoffStart is the wait after a first failed poll, doubled after each further one up to
	// BackoffMax; a good poll starts it again.
	BackoffStart, BackoffMax time.Duration
	// Poll polls once. Its error is the device's and is retried; when ctx has ended the loop
	// ends with ctx's error whatever Poll returned.
	Poll func(ctx context.Context) error
	// Failed follows every failed poll; first is true when the poll before it was good (or
	// this is the first poll): the time to report the device lost.
	Failed func(ctx context.Context, err error, first bool) error
	// Polled follows every good poll begun at start; back is true when failed polls came
	// before it. It returns how long to wait before the next poll.
	Polled func(ctx context.Context, start time.Time, back bool) (time.Duration, error)
}

// Run polls until ctx ends or a hook returns an error, and returns that error.
func (l *PollLoop) Run(ctx context.Context) error {
	backoff := l.BackoffStart
	down := false
	for {
		start := l.Now()
		err := l.Poll(ctx)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			first := !down
			down = true
			if e := l.Failed(ctx, err, first); e != nil {
				return e
			}
			if e := l.Sleep(ctx, backoff); e != nil {
				return e
			}
			backoff = min(backoff*2, l.BackoffMax)
			continue
		}
		back := down
		down = false
		backoff = l.BackoffStart
		wait, e := l.Polled(ctx, start, back)
		if e != nil {
			return e
		}
		if e := l.Sleep(ctx, wait); e != nil {
			return e
		}
	}
}

// WallClock is now and sleep, with time.Now and Sleep standing in for the ones that are nil: a
// poller's clock unless a test gives it another.
func WallClock(now func() time.Time, sleep func(context.Context, time.Duration) error) (func() time.Time, func(context.Context, time.Duration) error) {
	if now == nil {
		now = time.Now
	}
	if sleep == nil {
		sleep = Sleep
	}
	return now, sleep
}

// Sleep waits d or until ctx ends (then it returns ctx's error); d <= 0 does not wait. It is
// the pollers' Sleep outside tests.
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
