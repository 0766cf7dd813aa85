package surfaceflinger

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/fpstop/fpstop/internal/testkit/fakeadb"
	"github.com/fpstop/fpstop/source"
)

// flaky is a device whose dumps fail from `from` to `to` on the harness's clock.
type flaky struct {
	*fakeDev
	clk      *clock
	from, to time.Time
}

var errUnplugged = errors.New("device not found")

func (f *flaky) down() bool { return !f.clk.t.Before(f.from) && f.clk.t.Before(f.to) }

func (f *flaky) SFList(ctx context.Context) ([]byte, error) {
	if f.down() {
		return nil, errUnplugged
	}
	return f.fakeDev.SFList(ctx)
}

func (f *flaky) SFLatency(ctx context.Context, layer string) ([]byte, error) {
	if f.down() {
		return nil, errUnplugged
	}
	return f.fakeDev.SFLatency(ctx, layer)
}

// TestPollerDisconnect: while the device's dumps fail the poller says once that it is lost
// (with how often it retries), retries after a backoff doubling from 250 ms to 5 s, says once
// that it is back when a dump works again, and its frames go on arriving after that.
func TestPollerDisconnect(t *testing.T) {
	h := newHarness(fakeadb.SFAndroid14, 60, 1)
	f := &flaky{fakeDev: h.dev, clk: h.clk, from: h.start.Add(2 * time.Second), to: h.start.Add(14 * time.Second)}
	var sleeps []time.Duration
	last := h.start
	onSleep := h.clk.onSleep
	h.clk.onSleep = func(now time.Time) {
		if !last.Before(f.from) && last.Before(f.to) {
			sleeps = append(sleeps, now.Sub(last))
		}
		last = now
		onSleep(now)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := make(chan []source.Event, 1<<14)
	cfg := Config{Package: gamePkg, PollClock: source.PollClock{Now: h.clk.Now, Sleep: func(c context.Context, d time.Duration) error {
		if h.clk.t.After(h.start.Add(20 * time.Second)) {
			cancel()
			return context.Canceled
		}
		return h.clk.Sleep(c, d)
	}}}
	if err := NewPoller(f, cfg).Run(ctx, out); err != nil && !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	close(out)
	var notices []string
	var framesAfter int
	back := false
	for b := range out {
		for _, ev := range b {
			switch e := ev.(type) {
			case *source.Notice:
				if e.State == source.StateDisconnected || e.Text == "surfaceflinger: device back" {
					notices = append(notices, fmt.Sprintf("%s %s", e.State, e.Text))
					back = e.State == source.StateLive
				}
			case *source.LayerFrame:
				if back {
					framesAfter++
				}
			}
		}
	}
	want := []string{
		fmt.Sprintf("%s %s", source.StateDisconnected, source.RetryText("surfaceflinger", errUnplugged, 5*time.Second)),
		fmt.Sprintf("%s surfaceflinger: device back", source.StateLive),
	}
	if fmt.Sprint(notices) != fmt.Sprint(want) {
		t.Errorf("notices %q, want %q", notices, want)
	}
	wantSleeps := []time.Duration{250 * time.Millisecond, 500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second, 5 * time.Second}
	if fmt.Sprint(sleeps) != fmt.Sprint(wantSleeps) {
		t.Errorf("waits begun while the device was gone %v, want %v", sleeps, wantSleeps)
	}
	if framesAfter < 60*4 {
		t.Errorf("%d frames after the device came back, want the ~6 s it presented", framesAfter)
	}
}
