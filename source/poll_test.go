package source

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestPollLoop: failed polls wait a backoff that doubles up to its ceiling and starts again
// after a good poll; only the first failure after a good poll is "first", only the first good
// poll after failures is "back"; good polls wait what Polled says; the loop ends with ctx's
// error once ctx ends, and with a hook's error at once.
func TestPollLoop(t *testing.T) {
	// f = fail, g = good; the loop is cancelled when the script runs out
	script := "ffffffffggfg"
	var log []string
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	base := time.Unix(100, 0)
	clock := base
	i := 0
	l := &PollLoop{
		PollClock: PollClock{
			Now: func() time.Time { return clock },
			Sleep: func(ctx context.Context, d time.Duration) error {
				log = append(log, "sleep "+d.String())
				clock = clock.Add(d)
				return ctx.Err()
			},
		},
		BackoffStart: 250 * time.Millisecond, BackoffMax: 5 * time.Second,
		Poll: func(ctx context.Context) error {
			if i == len(script) {
				cancel()
				return errors.New("after cancel")
			}
			i++
			if script[i-1] == 'f' {
				return fmt.Errorf("fail %d", i)
			}
			return nil
		},
		Failed: func(_ context.Context, err error, first bool) error {
			log = append(log, fmt.Sprintf("failed %v first=%v", err, first))
			return nil
		},
		Polled: func(_ context.Context, start time.Time, back bool) (time.Duration, error) {
			log = append(log, fmt.Sprintf("polled at %v back=%v", start.Sub(base), back))
			return 300 * time.Millisecond, nil
		},
	}
	if err := l.Run(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Run = %v, want context.Canceled", err)
	}
	want := []string{
		"failed fail 1 first=true", "sleep 250ms",
		"failed fail 2 first=false", "sleep 500ms",
		"failed fail 3 first=false", "sleep 1s",
		"failed fail 4 first=false", "sleep 2s",
		"failed fail 5 first=false", "sleep 4s",
		"failed fail 6 first=false", "sleep 5s",
		"failed fail 7 first=false", "sleep 5s",
		"failed fail 8 first=false", "sleep 5s",
		"polled at 22.75s back=true", "sleep 300ms",
		"polled at 23.05s back=false", "sleep 300ms",
		"failed fail 11 first=true", "sleep 250ms",
		"polled at 23.6s back=true", "sleep 300ms",
	}
	if !reflect.DeepEqual(log, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(log, "\n"), strings.Join(want, "\n"))
	}

	// a hook's error ends the loop with it
	stop := errors.New("reader gone")
	i = 0
	l.Failed = func(context.Context, error, bool) error { return stop }
	if err := l.Run(context.Background()); err != stop {
		t.Errorf("Run with a failing hook = %v, want %v", err, stop)
	}
}

// TestSleep: an ended context stops the wait with its error, also for a wait of zero.
func TestSleep(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("Sleep(cancelled, 1h) = %v", err)
	}
	if err := Sleep(ctx, 0); !errors.Is(err, context.Canceled) {
		t.Errorf("Sleep(cancelled, 0) = %v", err)
	}
	if err := Sleep(context.Background(), 0); err != nil {
		t.Errorf("Sleep(live, 0) = %v", err)
	}
}

// TestClockOrWall: nil stands for the wall clock; a given clock is kept.
func TestClockOrWall(t *testing.T) {
	c := PollClock{}.OrWall()
	if c.Now == nil || c.Sleep == nil || c.Now().IsZero() {
		t.Fatal("PollClock{}.OrWall() did not give the wall clock")
	}
	fixed := time.Unix(7, 0)
	slept := time.Duration(0)
	c = PollClock{Now: func() time.Time { return fixed }, Sleep: func(_ context.Context, d time.Duration) error { slept = d; return nil }}.OrWall()
	if !c.Now().Equal(fixed) || c.Sleep(context.Background(), time.Hour) != nil || slept != time.Hour {
		t.Errorf("OrWall did not keep the given clock: now %v, slept %v", c.Now(), slept)
	}
}
