package source

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestPollUnanswered (issue 31): a poll that waits longer than UnansweredAfter calls
// Unanswered (the phone is not responding) before the poll's answer is handled; a poll answered
// in time does not.
func TestPollUnanswered(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	told := make(chan time.Duration, 4)
	polls := 0
	stop := errors.New("stop")
	var order []string
	l := PollLoop{PollClock: PollClock{}.OrWall(), BackoffStart: time.Millisecond, BackoffMax: time.Millisecond,
		UnansweredAfter: 20 * time.Millisecond}
	l.Unanswered = func(_ context.Context, after time.Duration) { order = append(order, "unanswered"); told <- after }
	l.Poll = func(ctx context.Context) error {
		polls++
		if polls == 1 {
			<-told // the first poll hangs until the notice is out
			told <- 0
		}
		return nil
	}
	l.Polled = func(context.Context, time.Time, bool) (time.Duration, error) {
		order = append(order, "polled")
		if polls == 2 {
			return 0, stop
		}
		return 0, nil
	}
	l.Failed = func(context.Context, error, bool) error { return nil }
	if err := l.Run(ctx); err != stop {
		t.Fatal(err)
	}
	if got := strings.Join(order, ","); got != "unanswered,polled,polled" {
		t.Errorf("order %s, want unanswered,polled,polled", got)
	}
	if s := NotRespondingText("`dumpsys gfxinfo`", 3*time.Second); !strings.Contains(s, "not responding") || !strings.Contains(s, "3 s") {
		t.Errorf("text %q", s)
	}
}
