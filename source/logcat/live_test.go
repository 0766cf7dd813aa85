package logcat

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fpstop/fpstop/source"
)

// fakeStreamer plays a device: each Stream call gets the next script step, which decides from
// the arguments what the "device" answers.
type fakeStreamer struct {
	mu    sync.Mutex
	calls [][]string
	step  func(n int, args []string) (io.ReadCloser, error)
}

func (f *fakeStreamer) Stream(ctx context.Context, args []string) (io.ReadCloser, error) {
	f.mu.Lock()
	f.calls = append(f.calls, args)
	n := len(f.calls) - 1
	f.mu.Unlock()
	return f.step(n, args)
}

func (f *fakeStreamer) call(n int) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if n < len(f.calls) {
		return f.calls[n]
	}
	return nil
}

func text(s string) io.ReadCloser { return io.NopCloser(strings.NewReader(s)) }

// liveRun starts src and returns a function that waits (up to 10 s, a failure deadline, not a
// timing assertion) for an event matching pred, returning everything seen so far.
func liveRun(t *testing.T, src source.Source) (wait func(desc string, pred func(source.Event) bool) []source.Event, stop func()) {
	out := make(chan []source.Event, 256)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- src.Run(ctx, out) }()
	var seen []source.Event
	next := 0 // the first event not yet looked at by a wait
	wait = func(desc string, pred func(source.Event) bool) []source.Event {
		t.Helper()
		deadline := time.After(10 * time.Second)
		for {
			for next < len(seen) {
				next++
				if pred(seen[next-1]) {
					return seen[:next]
				}
			}
			select {
			case b := <-out:
				seen = append(seen, b...)
			case <-deadline:
				t.Fatalf("timed out waiting for %s; saw %d events", desc, len(seen))
			}
		}
	}
	stop = func() {
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Errorf("Run returned %v", err)
		}
	}
	return wait, stop
}

func isNotice(sub string) func(source.Event) bool {
	return func(ev source.Event) bool {
		n, ok := ev.(*source.Notice)
		return ok && strings.Contains(n.Text, sub)
	}
}

func TestLiveFallbackAndPairs(t *testing.T) {
	pr, pw := io.Pipe()
	fs := &fakeStreamer{step: func(n int, args []string) (io.ReadCloser, error) {
		joined := strings.Join(args, " ")
		switch {
		case strings.Contains(joined, "monotonic"):
			return text("logcat: Unknown option 'monotonic'\nUsage: logcat [options] [filterspecs]\n"), nil
		case strings.Contains(joined, "--pid"):
			return text("unrecognized option '--pid=4242'\n"), nil
		}
		return pr, nil
	}}
	src := NewLive(fs, LiveOptions{Package: "com.example", Pid: func(context.Context) (int, error) { return 4242, nil }})
	wait, stop := liveRun(t, src)
	defer stop()
	go func() {
		io.WriteString(pw, "08-27 17:57:09.765  4242  4242 D Looper  : >>>>> Dispatching to "+vsyncTarget+": 0\n")
		io.WriteString(pw, "08-27 17:57:09.766  999  999 D Looper  : >>>>> Dispatching to "+hTarget+": 1\n") // other app
		io.WriteString(pw, "08-27 17:57:09.769  4242  4242 D Looper  : <<<<< Finished to "+vsyncTarget+"\n")
	}()
	seen := wait("a message", func(ev source.Event) bool { _, ok := ev.(*source.Message); return ok })
	want := [][]string{
		{"-v", "monotonic", "-v", "usec", "--pid=4242", "-T", "1"},
		{"-v", "threadtime", "--pid=4242", "-T", "1"},
		{"-v", "threadtime", "-T", "1"},
	}
	for i, w := range want {
		if got := strings.Join(fs.call(i), " "); got != strings.Join(w, " ") {
			t.Errorf("call %d: %q, want %q", i, got, strings.Join(w, " "))
		}
	}
	var rejected, wall, session int
	for _, ev := range seen {
		switch e := ev.(type) {
		case *source.Notice:
			if strings.Contains(e.Text, "rejected") {
				rejected++
			}
			if strings.Contains(e.Text, "wall-clock") {
				wall++
			}
		case *source.Session:
			session++
			if e.Pid != 4242 || e.Package != "com.example" || e.CostBasis != source.CostMainThread {
				t.Errorf("session %+v", e)
			}
		case *source.UnpairedLine:
			t.Errorf("the other process's line was not filtered: %+v", e)
		}
	}
	if rejected != 2 || wall != 1 || session != 1 {
		t.Errorf("rejected notices %d, wall-clock notices %d, sessions %d", rejected, wall, session)
	}
	pw.Close()
	wait("disconnected", func(ev source.Event) bool {
		n, ok := ev.(*source.Notice)
		return ok && n.State == source.StateDisconnected
	})
}

func TestLivePidChangeReconnectAndHelp(t *testing.T) {
	var pid atomic.Int64
	pid.Store(100)
	streams := make(chan *io.PipeWriter, 8)
	fs := &fakeStreamer{step: func(n int, args []string) (io.ReadCloser, error) {
		if n == 0 {
			return nil, errors.New("device offline")
		}
		pr, pw := io.Pipe()
		streams <- pw
		return pr, nil
	}}
	src := NewLive(fs, LiveOptions{
		Pid: func(context.Context) (int, error) {
			p := pid.Load()
			if p == 0 {
				return 0, errors.New("not running")
			}
			return int(p), nil
		},
		PidEvery:       20 * time.Millisecond,
		NoPrinterAfter: 50 * time.Millisecond,
		MaxBackoff:     50 * time.Millisecond,
	})
	wait, stop := liveRun(t, src)
	defer stop()
	wait("disconnected after a failed Stream", isNotice("device offline"))
	w1 := <-streams
	go io.WriteString(w1, "  100.000100   100   100 I Foo     : nothing to see\n")
	wait("live", func(ev source.Event) bool { n, ok := ev.(*source.Notice); return ok && n.State == source.StateLive })
	wait("help", isNotice("setMessageLogging"))
	// A Dispatching left open when the app restarts becomes unpaired.
	go io.WriteString(w1, "  100.001000   100   100 D Looper  : >>>>> Dispatching to "+hTarget+": 1\n")
	wait("the Dispatching decoded", func(ev source.Event) bool { tk, ok := ev.(*source.Tick); return ok && tk.NowNs >= 100_001_000_000 })
	pid.Store(200)
	wait("restart notice", isNotice("pid 100 → 200"))
	w2 := <-streams
	if got := strings.Join(fs.call(2), " "); !strings.Contains(got, "--pid=200") {
		t.Errorf("stream after restart: %q", got)
	}
	go func() {
		io.WriteString(w2, "  101.000000   200   200 D Looper  : >>>>> Dispatching to "+vsyncTarget+": 0\n")
		io.WriteString(w2, "  101.004000   200   200 D Looper  : <<<<< Finished to "+vsyncTarget+"\n")
		w2.Close() // the stream ends: reconnect
	}()
	seen := wait("a message", func(ev source.Event) bool { _, ok := ev.(*source.Message); return ok })
	var unp, sessions int
	for _, ev := range seen {
		switch e := ev.(type) {
		case *source.UnpairedLine:
			unp++
			if e.Reason != ReasonProcessChanged {
				t.Errorf("unpaired %+v", e)
			}
		case *source.Session:
			sessions++
		case *source.Message:
			if e.Pid != 200 || e.EndNs-e.StartNs != 4e6 || e.StartNs != 101e9 {
				t.Errorf("message %+v", e)
			}
		}
	}
	if unp != 1 || sessions != 2 {
		t.Errorf("unpaired %d, sessions %d", unp, sessions)
	}
	wait("reconnecting", isNotice("stream ended"))
	<-streams // reconnected
}

// TestLiveIdleTicks: while the app logs nothing, Ticks keep advancing past the last line.
func TestLiveIdleTicks(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	fs := &fakeStreamer{step: func(int, []string) (io.ReadCloser, error) { return pr, nil }}
	src := NewLive(fs, LiveOptions{Pid: func(context.Context) (int, error) { return 7, nil }, FlushEvery: 10 * time.Millisecond})
	src.(*liveSource).tickLag = time.Millisecond
	wait, stop := liveRun(t, src)
	defer stop()
	go io.WriteString(pw, "  100.000000     7     7 I Foo     : one line, then silence\n")
	wait("the line's tick", func(ev source.Event) bool { tk, ok := ev.(*source.Tick); return ok && tk.NowNs == 100e9 })
	wait("an extrapolated tick", func(ev source.Event) bool { tk, ok := ev.(*source.Tick); return ok && tk.NowNs > 100e9 })
}

// TestLiveSilentRejection: with stderr kept apart, a rejected command line just ends at once;
// after two such ends in a row the live source drops the monotonic modifiers.
func TestLiveSilentRejection(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	fs := &fakeStreamer{step: func(n int, args []string) (io.ReadCloser, error) {
		if strings.Contains(strings.Join(args, " "), "monotonic") {
			return text(""), nil
		}
		return pr, nil
	}}
	src := NewLive(fs, LiveOptions{Pid: func(context.Context) (int, error) { return 5, nil }, MaxBackoff: 20 * time.Millisecond})
	wait, stop := liveRun(t, src)
	defer stop()
	wait("the fallback", isNotice("rejected"))
	go io.WriteString(pw, "08-27 17:57:09.765     5     5 I Choreographer: Skipped 30 frames!  x\n")
	wait("a skipped line", func(ev source.Event) bool { _, ok := ev.(*source.Skipped); return ok })
	if got := strings.Join(fs.call(2), " "); got != "-v threadtime --pid=5 -T 1" {
		t.Errorf("third call %q", got)
	}
}

// TestLiveAnnouncesWithoutTickLag: a main-thread Dispatching line followed by silence (the app
// is stuck) is announced as a Dispatch once it has been open 100 ms by the host clock — not
// held back by the Ticks' lag (here an hour: before, the freeze was named only after the lag).
func TestLiveAnnouncesWithoutTickLag(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	fs := &fakeStreamer{step: func(int, []string) (io.ReadCloser, error) { return pr, nil }}
	src := NewLive(fs, LiveOptions{Pid: func(context.Context) (int, error) { return 7, nil }, FlushEvery: 10 * time.Millisecond})
	src.(*liveSource).tickLag = time.Hour
	wait, stop := liveRun(t, src)
	defer stop()
	go io.WriteString(pw, "  100.000000     7     7 D Looper  : >>>>> Dispatching to "+hTarget+": 1\n")
	seen := wait("the open dispatch announced", func(ev source.Event) bool { _, ok := ev.(*source.Dispatch); return ok })
	d := seen[len(seen)-1].(*source.Dispatch)
	if d.StartNs != 100e9 || d.Tid != 7 || d.What != 1 {
		t.Errorf("dispatch %+v", d)
	}
	for _, ev := range seen {
		if tk, ok := ev.(*source.Tick); ok && tk.NowNs > 100e9 {
			t.Errorf("a Tick past the last line despite the hour of lag: %d", tk.NowNs)
		}
	}
}

// TestLiveGapClosesOpenDispatch: a message open when the stream lost the device is closed as
// unpaired at the gap; the Finished line after the reconnect is never paired with it (before,
// every unplug/replug invented a message as long as the outage).
func TestLiveGapClosesOpenDispatch(t *testing.T) {
	streams := make(chan *io.PipeWriter, 8)
	fs := &fakeStreamer{step: func(int, []string) (io.ReadCloser, error) {
		pr, pw := io.Pipe()
		streams <- pw
		return pr, nil
	}}
	src := NewLive(fs, LiveOptions{Pid: func(context.Context) (int, error) { return 7, nil }, MaxBackoff: 20 * time.Millisecond})
	wait, stop := liveRun(t, src)
	defer stop()
	w1 := <-streams
	go func() {
		io.WriteString(w1, "  100.000000     7     7 D Looper  : >>>>> Dispatching to "+vsyncTarget+": 0\n")
		w1.Close() // unplugged mid-message
	}()
	wait("the gap's unpaired line", func(ev source.Event) bool {
		u, ok := ev.(*source.UnpairedLine)
		return ok && u.Reason == ReasonGap && u.AtNs == 100e9
	})
	w2 := <-streams
	go io.WriteString(w2, "  111.000000     7     7 D Looper  : <<<<< Finished to "+vsyncTarget+"\n"+
		"  111.001000     7     7 D Looper  : >>>>> Dispatching to "+vsyncTarget+": 0\n"+
		"  111.005000     7     7 D Looper  : <<<<< Finished to "+vsyncTarget+"\n")
	seen := wait("the message after the reconnect", func(ev source.Event) bool { _, ok := ev.(*source.Message); return ok })
	for _, ev := range seen {
		if m, ok := ev.(*source.Message); ok && m.EndNs-m.StartNs != 4e6 {
			t.Errorf("a message spans the gap: %+v", m)
		}
	}
}
