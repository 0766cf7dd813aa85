package source

import (
	"context"
	"fmt"
	"strconv"
	"time"
)

// PollLoop is the loop of a source that polls a device (gfxinfo dumps, SurfaceFlinger's
// latency): poll, wait, poll again; a failed poll is retried after a backoff that doubles up to
// a ceiling, and the first failure after a good poll and the first good poll after failures
// are told apart so the source can say the device was lost and is back. The pollers share it
// so that their retry timing and disconnect reporting cannot drift apart.
type PollLoop struct {
	// PollClock is the loop's time (tests replace it); its fields must not be nil here.
	PollClock
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
	// Unanswered (optional) is called, on a goroutine of its own, when a poll has been waiting
	// for the device for UnansweredAfter: the phone is not responding — neither damage nor an
	// idle app. The poll goes on; the loop waits for the call to return before the poll's own
	// hooks run, so the two never overlap.
	Unanswered func(ctx context.Context, after time.Duration)
	// UnansweredAfter is how long a poll may wait before Unanswered (default 3 s).
	UnansweredAfter time.Duration
}

// DefaultUnansweredAfter is how long a device command may go unanswered before the phone is
// said to be not responding: dumpsys answers in well under a second on a working phone.
const DefaultUnansweredAfter = 3 * time.Second

// NotRespondingPrefix begins every NotRespondingText, so a reader can tell the notice ends
// once the phone answers again.
const NotRespondingPrefix = "the phone is not responding: "

// NotRespondingText is the notice of a device command unanswered for after: the phone hangs (a
// stuck system_server, a locked-up USB link), which is neither damaged output nor an idle app.
func NotRespondingText(command string, after time.Duration) string {
	return fmt.Sprintf(NotRespondingPrefix+"%s unanswered for %s (fpstop keeps waiting)", command,
		strconv.FormatFloat(after.Seconds(), 'f', -1, 64)+" s")
}

// poll runs Poll, calling Unanswered if it waits too long.
func (l *PollLoop) poll(ctx context.Context) error {
	if l.Unanswered == nil {
		return l.Poll(ctx)
	}
	after := l.UnansweredAfter
	if after <= 0 {
		after = DefaultUnansweredAfter
	}
	done := make(chan struct{})
	t := time.AfterFunc(after, func() { defer close(done); l.Unanswered(ctx, after) })
	err := l.Poll(ctx)
	if !t.Stop() {
		<-done // it fired: let it finish before the poll's hooks run
	}
	return err
}

// Run polls until ctx ends or a hook returns an error, and returns that error.
func (l *PollLoop) Run(ctx context.Context) error {
	backoff := l.BackoffStart
	down := false
	for {
		start := l.Now()
		err := l.poll(ctx)
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

// PollClock is a poller's time, one type for the pollers' configurations and their PollLoop, so
// that a test's clock reaches the loop whole.
type PollClock struct {
	// Now and Sleep replace the wall clock in tests (nil = time.Now and a timer); Sleep returns
	// ctx's error when ctx ends.
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error
}

// OrWall is c with time.Now and Sleep standing in for the fields that are nil: a poller's clock
// unless a test gives it another.
func (c PollClock) OrWall() PollClock {
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Sleep == nil {
		c.Sleep = Sleep
	}
	return c
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
