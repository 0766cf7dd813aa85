package record

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fpstop/fpstop/internal/testkit/eventgen"
	"github.com/fpstop/fpstop/source"
)

// fakeClock is virtual time: After advances it at once, recording how long the replay slept.
type fakeClock struct {
	mu    sync.Mutex
	t     time.Time
	slept time.Duration
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) After(d time.Duration) (<-chan time.Time, func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
	c.slept += d
	ch := make(chan time.Time, 1)
	ch <- c.t
	return ch, func() {}
}

func (c *fakeClock) Slept() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.slept
}

// secondEvents is a recording without a session line: one tick per second for n seconds.
func secondEvents(n int) []source.Event {
	var evs []source.Event
	for i := 0; i < n; i++ {
		evs = append(evs, &source.Tick{NowNs: 1e12 + int64(i)*1e9})
	}
	return evs
}

func newTestReplay(t *testing.T, evs []source.Event, opts ReplayOptions) (*Replay, *fakeClock) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "r.jsonl")
	writeRecording(t, path, [][]source.Event{evs})
	rp, err := NewReplay(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	fc := &fakeClock{t: time.Unix(1000, 0)}
	rp.clock = fc
	return rp, fc
}

// collect runs rp to its end and returns every event; onEvent may act on the control.
func collect(t *testing.T, rp *Replay, onEvent func(ev source.Event)) []source.Event {
	t.Helper()
	out := make(chan []source.Event)
	errc := make(chan error, 1)
	go func() { errc <- rp.Run(context.Background(), out); close(out) }()
	var got []source.Event
	for b := range out {
		for _, ev := range b {
			got = append(got, ev)
			if onEvent != nil {
				onEvent(ev)
			}
		}
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	return got
}

// data drops the replay's own session, seek and end notices.
func data(evs []source.Event) []source.Event {
	var out []source.Event
	for _, ev := range evs {
		switch e := ev.(type) {
		case *source.Session, *source.Restart:
			continue
		case *source.Notice:
			if _, ok := IsSeek(e); ok || e.State == source.StateEnded {
				continue
			}
		}
		out = append(out, ev)
	}
	return out
}

func TestReplayVirtualTime(t *testing.T) {
	evs := eventgen.Flatten(eventgen.Batches(11, 120, 3*time.Second))
	rp, fc := newTestReplay(t, evs, ReplayOptions{Speed: 0})
	got := collect(t, rp, nil)
	if fc.Slept() != 0 {
		t.Errorf("speed 0 slept %v", fc.Slept())
	}
	// The recording starts with its own session: sent once, with the input named.
	s, ok := got[0].(*source.Session)
	if !ok || s.Input != rp.path || s.Source != source.KindSim {
		t.Fatalf("first event %#v", got[0])
	}
	want := append([]source.Event{}, evs...)
	want[0] = s
	if !reflect.DeepEqual(got[:len(got)-1], want) {
		t.Fatalf("replayed %d events, want %d in order", len(got)-1, len(want))
	}
	if n, ok := got[len(got)-1].(*source.Notice); !ok || n.State != source.StateEnded {
		t.Fatalf("last event %#v, want the end notice", got[len(got)-1])
	}
	cur, total := rp.Control().Position()
	if cur != total || total <= 2*time.Second {
		t.Errorf("position %v / %v", cur, total)
	}
}

func TestReplaySessionFromHeader(t *testing.T) {
	rp, _ := newTestReplay(t, secondEvents(3), ReplayOptions{})
	got := collect(t, rp, nil)
	s, ok := got[0].(*source.Session)
	if !ok {
		t.Fatalf("first event %#v, want a session from the header", got[0])
	}
	want := testHeader().Session()
	want.Input = rp.path
	if !reflect.DeepEqual(s, want) {
		t.Errorf("session %+v, want %+v", s, want)
	}
	if d := data(got); len(d) != 3 {
		t.Errorf("got %d data events", len(d))
	}
}

func TestReplayPacing(t *testing.T) {
	for _, speed := range []float64{1, 2, 0.5, 100} {
		rp, fc := newTestReplay(t, secondEvents(10), ReplayOptions{Speed: speed})
		got := data(collect(t, rp, nil))
		if len(got) != 10 {
			t.Fatalf("speed %v: %d events", speed, len(got))
		}
		eff := clampSpeed(speed)
		want := time.Duration(float64(9*time.Second) / eff)
		if d := fc.Slept() - want; d < -time.Millisecond || d > time.Millisecond {
			t.Errorf("speed %v: slept %v of virtual time, want %v", speed, fc.Slept(), want)
		}
	}
}

func TestReplaySeekBackRestarts(t *testing.T) {
	evs := secondEvents(10)
	rp, _ := newTestReplay(t, evs, ReplayOptions{Speed: 1})
	done := false
	got := collect(t, rp, func(ev source.Event) {
		if tk, ok := ev.(*source.Tick); ok && !done && tk.NowNs >= 1e12+5e9 {
			done = true
			rp.Control().Seek(-2 * time.Second)
		}
	})
	var marker = -1
	for i, ev := range got {
		if s, ok := IsSeek(ev); ok {
			if marker >= 0 {
				t.Fatal("two seek markers")
			}
			marker = i
			if !s.Restart || s.To < 3*time.Second || s.To > 7*time.Second {
				t.Errorf("seek marker %+v", s)
			}
		}
	}
	if marker < 0 {
		t.Fatal("no seek marker")
	}
	if _, ok := got[marker+1].(*source.Restart); !ok {
		t.Fatalf("after the marker of a backward seek comes a Restart, got %#v", got[marker+1])
	}
	after := got[marker+2:]
	if _, ok := after[0].(*source.Session); !ok {
		t.Fatalf("after a restart the session comes first, got %#v", after[0])
	}
	if !reflect.DeepEqual(data(after), evs) {
		t.Fatalf("after the restart: %d events, want all %d from the start", len(data(after)), len(evs))
	}
}

func TestReplaySeekForwardSkipsWaiting(t *testing.T) {
	rp, fc := newTestReplay(t, secondEvents(10), ReplayOptions{Speed: 1})
	rp.Control().Seek(5 * time.Second)
	got := collect(t, rp, nil)
	if len(data(got)) != 10 {
		t.Fatalf("%d events", len(data(got)))
	}
	// Events before 5 s go out at once; only the last 4 s are paced.
	if fc.Slept() != 4*time.Second {
		t.Errorf("slept %v, want 4s", fc.Slept())
	}
	s, ok := IsSeek(got[0])
	if !ok || s.Restart || s.To != 5*time.Second {
		t.Errorf("first event %#v", got[0])
	}
}

func TestReplayPauseAndControls(t *testing.T) {
	rp, _ := newTestReplay(t, secondEvents(5), ReplayOptions{Speed: 0})
	c := rp.Control()
	if !c.TogglePause() || !c.Paused() {
		t.Fatal("not paused")
	}
	out := make(chan []source.Event)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errc := make(chan error, 1)
	go func() { errc <- rp.Run(ctx, out) }()
	select {
	case b := <-out:
		t.Fatalf("paused replay sent %v", b)
	case <-time.After(50 * time.Millisecond):
	}
	c.SetSpeed(100)
	if c.Speed() != MaxSpeed {
		t.Errorf("speed %v, want clamped to %v", c.Speed(), MaxSpeed)
	}
	c.SetSpeed(0.01)
	if c.Speed() != MinSpeed {
		t.Errorf("speed %v, want clamped to %v", c.Speed(), MinSpeed)
	}
	c.SetSpeed(0)
	if c.TogglePause() {
		t.Fatal("still paused")
	}
	n := 0
	for n < 7 { // session + 5 ticks + end notice
		b := <-out
		n += len(b)
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	// Run is single-use.
	if err := rp.Run(ctx, out); err == nil {
		t.Error("second Run succeeded")
	}
}

func TestReplayStayAtEndThenSeekBack(t *testing.T) {
	rp, _ := newTestReplay(t, secondEvents(4), ReplayOptions{Speed: 0, StayAtEnd: true})
	out := make(chan []source.Event)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- rp.Run(ctx, out) }()
	ended, restarted := 0, false
	for ended < 2 {
		for _, ev := range <-out {
			if n, ok := ev.(*source.Notice); ok && n.State == source.StateEnded {
				ended++
				if ended == 1 {
					rp.Control().Seek(-10 * time.Second)
				}
			}
			if s, ok := IsSeek(ev); ok && s.Restart && s.To == 0 {
				restarted = true
			}
		}
	}
	if !restarted {
		t.Error("no restart after seeking back from the end")
	}
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("Run = %v", err)
	}
}

func TestReplayFollowGrowingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "live.jsonl")
	w, err := Create(path, testHeader(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	evs := secondEvents(20)
	w.Write(evs[:5])
	w.Flush()
	rp, err := NewReplay(path, ReplayOptions{Speed: 0, Follow: true})
	if err != nil {
		t.Fatal(err)
	}
	out := make(chan []source.Event, 100)
	errc := make(chan error, 1)
	go func() { errc <- rp.Run(context.Background(), out) }()
	var got []source.Event
	wait := func(n int) {
		for len(data(got)) < n {
			got = append(got, <-out...)
		}
	}
	wait(5)
	// Half a line first: the reader must wait for the rest.
	w.Write(evs[5:12])
	w.Flush()
	wait(12)
	w.Write(evs[12:])
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	wait(20)
	if err := <-errc; err != nil {
		t.Fatalf("follow ended with %v", err)
	}
	if !reflect.DeepEqual(data(got), evs) {
		t.Fatalf("followed events differ")
	}
}

func TestReplayFollowStopsAtContext(t *testing.T) {
	path := filepath.Join(t.TempDir(), "live.jsonl")
	w, err := Create(path, testHeader(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.Write(secondEvents(2))
	w.Flush()
	rp, err := NewReplay(path, ReplayOptions{Follow: true})
	if err != nil {
		t.Fatal(err)
	}
	out := make(chan []source.Event, 10)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- rp.Run(ctx, out) }()
	n := 0
	for n < 3 {
		n += len(<-out)
	}
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("Run = %v", err)
	}
}

func TestIsSeek(t *testing.T) {
	for _, s := range []SeekInfo{{To: 0, Restart: true}, {To: 90 * time.Second}, {To: 1500 * time.Millisecond, Restart: true}} {
		got, ok := IsSeek(seekNotice(s))
		if !ok || got != s {
			t.Errorf("IsSeek(seekNotice(%+v)) = %+v %v", s, got, ok)
		}
	}
	for _, ev := range []source.Event{&source.Tick{}, &source.Notice{Level: source.LevelInfo, Text: "replay: seek to nowhere"},
		&source.Notice{Level: source.LevelWarn, Text: SeekPrefix + "1s"}} {
		if _, ok := IsSeek(ev); ok {
			t.Errorf("IsSeek(%#v) = true", ev)
		}
	}
}

func TestReplayFollowGzipWarns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.jsonl.gz")
	writeRecording(t, path, [][]source.Event{secondEvents(3)})
	rp, err := NewReplay(path, ReplayOptions{Follow: true})
	if err != nil {
		t.Fatal(err)
	}
	got := collect(t, rp, nil)
	if _, ok := got[0].(*source.Session); !ok {
		t.Fatalf("first event %#v, want the session", got[0])
	}
	n, ok := got[1].(*source.Notice)
	if !ok || n.Level != source.LevelWarn || !strings.Contains(n.Text, "cannot be followed") {
		t.Fatalf("second event %#v", got[1])
	}
	if len(data(got)) != 4 { // the warning and 3 ticks
		t.Fatalf("events %d", len(data(got)))
	}
}

// TestReplaySeekWhilePaused: a seek while paused moves to the target (the screen shows the new
// position) and then holds until resumed.
func TestReplaySeekWhilePaused(t *testing.T) {
	rp, _ := newTestReplay(t, secondEvents(10), ReplayOptions{Speed: 1})
	c := rp.Control()
	c.TogglePause()
	c.Seek(3 * time.Second)
	out := make(chan []source.Event)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errc := make(chan error, 1)
	go func() { errc <- rp.Run(ctx, out); close(out) }()
	var got []source.Event
	for len(data(got)) < 4 { // ticks at 0, 1, 2 and 3 s
		got = append(got, <-out...)
	}
	select {
	case b := <-out:
		if d := data(b); len(d) > 1 {
			t.Fatalf("paused replay went on: %v", d)
		}
		got = append(got, b...)
	case <-time.After(50 * time.Millisecond):
	}
	if cur, _ := c.Position(); cur < 3*time.Second || cur > 4*time.Second {
		t.Errorf("position %v, want 3s", cur)
	}
	c.TogglePause()
	for b := range out {
		got = append(got, b...)
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(data(got), secondEvents(10)) {
		t.Errorf("got %d events, want all 10 in order", len(data(got)))
	}
}

// IsSeek reports whether ev is a replay's seek marker and what it says.
func IsSeek(ev source.Event) (SeekInfo, bool) {
	n, ok := ev.(*source.Notice)
	if !ok || n.Level != source.LevelInfo || !strings.HasPrefix(n.Text, SeekPrefix) {
		return SeekInfo{}, false
	}
	rest := strings.TrimPrefix(n.Text, SeekPrefix)
	restart := strings.HasSuffix(rest, restartSuffix)
	d, err := time.ParseDuration(strings.TrimSuffix(rest, restartSuffix))
	if err != nil {
		return SeekInfo{}, false
	}
	return SeekInfo{To: d, Restart: restart}, true
}
