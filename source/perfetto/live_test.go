package perfetto

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fpstop/fpstop/internal/testkit"
	"github.com/fpstop/fpstop/internal/testkit/simtext"
	"github.com/fpstop/fpstop/source"
	"github.com/fpstop/fpstop/source/sim"
)

// simEvents runs the simulator (as fast as it goes) and returns copies of its frames and
// messages.
func simEvents(t *testing.T, scenario string, hz float64, d time.Duration) []source.Event {
	t.Helper()
	return testkit.SimEvents(t, sim.Config{Scenario: scenario, Hz: hz, Seed: 33, Duration: d})
}

func renderTrace(t *testing.T, evs []source.Event) []byte {
	t.Helper()
	var buf bytes.Buffer
	if _, err := simtext.RenderTrace(&buf, evs, simtext.TraceOptions{Package: "com.example.feed", BootOffsetNs: 3_000_000_000}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestStreamSplitAnywhere: a trace fed in pieces cut at arbitrary byte offsets (inside tags,
// lengths and packets) gives exactly the events of the whole file read at once.
func TestStreamSplitAnywhere(t *testing.T) {
	trace := renderTrace(t, simEvents(t, "demo", 60, 5*time.Second))
	want := collectPipeline(t, func(p *Parser) { p.ReadAll(context.Background(), bytes.NewReader(trace)) })
	if len(framesOf(want)) < 50 {
		t.Fatalf("only %d frames in the whole trace", len(framesOf(want)))
	}
	for seed := int64(1); seed <= 5; seed++ {
		rng := rand.New(rand.NewSource(seed))
		got := collectPipeline(t, func(p *Parser) {
			st := NewStream(p)
			for rest := trace; len(rest) > 0; {
				n := min(len(rest), rng.Intn(700))
				if _, err := st.Write(rest[:n]); err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
				rest = rest[n:]
				if st.Pending() > maxPacket {
					t.Fatalf("pending %d bytes", st.Pending())
				}
			}
			if st.Off != int64(len(trace)) || st.Pending() != 0 {
				t.Fatalf("seed %d: decoded %d of %d bytes, %d pending", seed, st.Off, len(trace), st.Pending())
			}
			p.Finish()
		})
		if a, b := fmt.Sprint(eventLines(want)), fmt.Sprint(eventLines(got)); a != b {
			t.Fatalf("seed %d: split stream differs from the whole file:\n%.600s\nvs\n%.600s", seed, b, a)
		}
	}
}

// TestStreamRefusesGarbage: bytes that cannot be a trace are an error, not a buffer that grows.
func TestStreamRefusesGarbage(t *testing.T) {
	st := NewStream(NewParser())
	huge := []byte{0x0a, 0xff, 0xff, 0xff, 0xff, 0x7f} // a packet claiming 32 GB
	if _, err := st.Write(huge); !errors.Is(err, ErrNotTrace) {
		t.Fatalf("err %v, want ErrNotTrace", err)
	}
	st = NewStream(NewParser())
	if _, err := st.Write([]byte{0x0f, 1, 2, 3}); !errors.Is(err, ErrNotTrace) { // wire type 7
		t.Fatalf("err %v, want ErrNotTrace", err)
	}
}

func collectPipeline(t *testing.T, feed func(*Parser)) []source.Event {
	t.Helper()
	var evs []source.Event
	p, j := pipeline("com.example.feed", func(e source.Event) { evs = append(evs, e) })
	feed(p)
	j.finish()
	return evs
}

func eventLines(evs []source.Event) []string {
	var out []string
	for _, e := range evs {
		b, err := source.AppendLine(nil, e)
		if err != nil {
			out = append(out, fmt.Sprintf("%T", e))
			continue
		}
		out = append(out, string(b))
	}
	return out
}

// fakeTracer is a phone serving perfetto sessions on a fake clock: each session's file holds
// the simulator's frames from its start to its end, written as time passes (or, with
// atEnd, only once the session is over), and a read returns what was written, cut wherever.
type fakeTracer struct {
	mu       sync.Mutex
	t        *testing.T
	evs      []source.Event
	epoch    time.Time
	now      time.Time
	step     time.Duration
	base     int64 // trace time (mono) at epoch
	rng      *rand.Rand
	atEnd    bool
	refuse   error
	sessions []*fakeSession
	running  map[string]bool // unique session names now running
	cancel   bool
	// offFrom–offTo (from the epoch) the phone does not answer (a pulled cable)
	offFrom, offTo time.Duration
	// dropAt: the start (counted from 1) after which the phone stops answering for dropFor,
	// once perfetto printed its pid; starts counts them
	dropAt, starts int
	dropFor        time.Duration
}

var errOffline = errors.New("device offline")

// offline reports whether the phone is unplugged now.
func (f *fakeTracer) offline() bool {
	d := f.now.Sub(f.epoch)
	return f.offTo > 0 && d >= f.offFrom && d < f.offTo
}

type fakeSession struct {
	path, name, config string
	pid                int
	from, to           time.Time
	data               []byte
	tokens             map[int64]bool
	stopped, removed   bool
	stoppedBeforeEnd   bool
	atCancel           bool // stopped once the run was being cancelled
}

func newFakeTracer(t *testing.T, evs []source.Event) *fakeTracer {
	epoch := time.Unix(1_000_000, 0)
	first := int64(0)
	for _, e := range evs {
		if f, ok := e.(*source.Frame); ok {
			first = f.VsyncNs
			break
		}
	}
	return &fakeTracer{t: t, evs: evs, epoch: epoch, now: epoch, step: 20 * time.Millisecond, base: first,
		rng: rand.New(rand.NewSource(7)), running: map[string]bool{}}
}

func (f *fakeTracer) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

func (f *fakeTracer) mono(t time.Time) int64 { return f.base + int64(t.Sub(f.epoch)) }

func (f *fakeTracer) PerfettoStart(ctx context.Context, config, path string) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.refuse != nil {
		return 0, f.refuse
	}
	if f.offline() {
		return 0, errOffline
	}
	name := between(config, "unique_session_name: \"", "\"")
	if f.running[name] {
		return 0, fmt.Errorf("a session named %s is already running", name)
	}
	var ms int
	if _, err := fmt.Sscanf(between(config, "duration_ms: ", "\n"), "%d", &ms); err != nil || ms > 30000 {
		return 0, fmt.Errorf("bad duration_ms in %q", config)
	}
	s := &fakeSession{path: path, name: name, config: config, pid: 1000 + len(f.sessions), from: f.now,
		to: f.now.Add(time.Duration(ms) * time.Millisecond), tokens: map[int64]bool{}}
	var in []source.Event
	lo, hi := f.mono(s.from), f.mono(s.to)
	for _, e := range f.evs {
		switch v := e.(type) {
		case *source.Frame:
			if v.VsyncNs >= lo && v.DoneNs < hi {
				in = append(in, e)
				s.tokens[v.VsyncID] = true
			}
		case *source.Message:
			if v.StartNs >= lo && v.EndNs < hi {
				in = append(in, e)
			}
		}
	}
	s.data = renderTrace(f.t, in)
	f.running[name] = true
	f.sessions = append(f.sessions, s)
	if f.starts++; f.starts == f.dropAt {
		f.offFrom = f.now.Sub(f.epoch)
		f.offTo = f.offFrom + f.dropFor
		return s.pid, fmt.Errorf("checking that the tracing session (pid %d) runs: %w", s.pid, errOffline)
	}
	return s.pid, nil
}

func between(s, a, b string) string {
	i := strings.Index(s, a)
	if i < 0 {
		return ""
	}
	s = s[i+len(a):]
	if j := strings.Index(s, b); j >= 0 {
		return s[:j]
	}
	return s
}

// PerfettoRead advances the fake clock: the phone's time runs with the reads.
func (f *fakeTracer) PerfettoRead(ctx context.Context, path string, off int64) ([]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.now = f.now.Add(f.step)
	if f.offline() {
		return nil, errOffline
	}
	for _, s := range f.sessions {
		if s.path != path || s.removed {
			continue
		}
		if !f.now.Before(s.to) {
			delete(f.running, s.name)
		}
		written := int64(len(s.data))
		if f.now.Before(s.to) && !s.stopped {
			if f.atEnd {
				return nil, fmt.Errorf("open %s: %w", path, fs.ErrNotExist)
			}
			frac := float64(f.now.Sub(s.from)) / float64(s.to.Sub(s.from))
			written = int64(frac*float64(len(s.data))) - int64(f.rng.Intn(300))
		}
		written = max(0, min(written, int64(len(s.data))))
		if off >= written {
			return nil, nil
		}
		return append([]byte(nil), s.data[off:written]...), nil
	}
	return nil, fmt.Errorf("open %s: %w", path, fs.ErrNotExist)
}

func (f *fakeTracer) PerfettoStop(ctx context.Context, pid int, path string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.offline() {
		f.now = f.now.Add(f.step) // the phone's time runs on while fpstop waits
		return errOffline
	}
	for _, s := range f.sessions {
		if s.path != path || s.removed {
			continue
		}
		if pid == 0 { // the file alone, as device.PerfettoStop does: the session runs on
			s.removed = true
			return nil
		}
		if s.pid == pid {
			s.stoppedBeforeEnd = f.now.Before(s.to)
			s.atCancel = f.cancel
			s.stopped, s.removed = true, true
			delete(f.running, s.name)
			return nil
		}
	}
	if pid == 0 { // rm -f of a file that is not there
		return nil
	}
	return fmt.Errorf("no session %d", pid)
}

// runLive runs the live source until the fake clock reaches until, then cancels it.
func runLive(t *testing.T, f *fakeTracer, opts LiveOptions, until time.Duration) ([]source.Event, error) {
	t.Helper()
	opts.Package, opts.ID, opts.Now, opts.Poll = "com.example.feed", "t33", f.Now, time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := make(chan []source.Event, 64)
	errc := make(chan error, 1)
	go func() { errc <- NewLive(f, opts).Run(ctx, out) }()
	var evs []source.Event
	for {
		select {
		case b := <-out:
			evs = append(evs, b...)
			if f.Now().Sub(f.epoch) >= until {
				f.mu.Lock()
				f.cancel = true
				f.mu.Unlock()
				cancel()
			}
		case err := <-errc:
			for {
				select {
				case b := <-out:
					evs = append(evs, b...)
				default:
					return evs, err
				}
			}
		case <-time.After(100 * time.Millisecond):
			if f.Now().Sub(f.epoch) >= until {
				f.mu.Lock()
				f.cancel = true
				f.mu.Unlock()
				cancel()
			}
		}
	}
}

// TestLiveStitchesSessions: overlapping bounded sessions under alternating names, their
// frames each sent once; every frame of a session that ended is there; cancelling stops the
// sessions still running and removes every file.
func TestLiveStitchesSessions(t *testing.T) {
	evs := simEvents(t, "janky", 60, 25*time.Second)
	f := newFakeTracer(t, evs)
	got, err := runLive(t, f, LiveOptions{SessionMs: 3000, OverlapMs: 1000}, 14*time.Second)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run: %v, want context.Canceled", err)
	}
	if len(f.sessions) < 5 {
		t.Fatalf("%d sessions, want at least 5 in 14 s of 3 s sessions", len(f.sessions))
	}
	seen := map[int64]int{}
	for _, fr := range framesOf(got) {
		seen[fr.VsyncID]++
		if fr.Timeline == nil || fr.DeadlineNs == 0 {
			t.Fatalf("frame %d without FrameTimeline or deadline", fr.VsyncID)
		}
	}
	overlap := 0
	for i, s := range f.sessions {
		if !strings.Contains(s.config, fmt.Sprintf("unique_session_name: \"fpstop_t33_%c\"", "ab"[i%2])) {
			t.Errorf("session %d config names it wrong:\n%s", i, s.config)
		}
		if !s.stopped || !s.removed {
			t.Errorf("session %d (%s) not stopped and removed", i, s.path)
		}
		if i > 0 {
			for tok := range s.tokens {
				if f.sessions[i-1].tokens[tok] {
					overlap++
				}
			}
		}
		if s.stoppedBeforeEnd && i < len(f.sessions)-2 {
			t.Errorf("session %d stopped before its end though a later one ran", i)
		}
		if s.stoppedBeforeEnd || s.atCancel {
			continue
		}
		for tok := range s.tokens {
			if seen[tok] == 0 {
				t.Errorf("frame %d of session %d (ended) never sent", tok, i)
			}
		}
	}
	if overlap == 0 {
		t.Fatal("the sessions never overlapped: de-duplication untested")
	}
	for tok, n := range seen {
		if n != 1 {
			t.Errorf("frame %d sent %d times", tok, n)
		}
	}
	if !liveNotice(got, "perfetto: streaming") {
		t.Errorf("no streaming notice in %v", notices(got))
	}
}

// TestLiveRefused: a phone that refuses the first session is an error wrapping ErrRefused
// that says the phone's reason, and nothing is left to stop.
func TestLiveRefused(t *testing.T) {
	f := newFakeTracer(t, nil)
	f.refuse = errors.New("perfetto is not available before Android 12 (this phone runs Android 11)")
	_, err := runLive(t, f, LiveOptions{}, time.Second)
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "Android 11") {
		t.Fatalf("err %v, want ErrRefused with the phone's reason", err)
	}
}

// TestLiveFallback: a phone whose file shows nothing until the session ends: the source says
// so, and runs short sessions read at their end, whose frames arrive.
func TestLiveFallback(t *testing.T) {
	evs := simEvents(t, "demo", 120, 30*time.Second)
	f := newFakeTracer(t, evs)
	f.atEnd = true
	got, err := runLive(t, f, LiveOptions{SessionMs: 20000, FallbackMs: 2000}, 16*time.Second)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run: %v", err)
	}
	if !liveNotice(got, "perfetto: fallback") {
		t.Fatalf("no fallback notice in %v", notices(got))
	}
	short := 0
	for _, s := range f.sessions[1:] {
		if strings.Contains(s.config, "duration_ms: 2000\n") {
			short++
		}
	}
	if short < 3 || len(framesOf(got)) < 500 {
		t.Fatalf("%d short sessions, %d frames", short, len(framesOf(got)))
	}
	for _, s := range f.sessions {
		if !s.removed {
			t.Errorf("%s not removed", s.path)
		}
	}
}

func liveNotice(evs []source.Event, prefix string) bool {
	for _, n := range notices(evs) {
		if strings.HasPrefix(n, prefix) {
			return true
		}
	}
	return false
}

func notices(evs []source.Event) []string {
	var out []string
	for _, e := range evs {
		if n, ok := e.(*source.Notice); ok {
			out = append(out, n.Text)
		}
	}
	return out
}

// TestConfigRefusesBadText: nothing but a package name reaches the phone's config.
func TestConfigRefusesBadText(t *testing.T) {
	for _, pkg := range []string{"", "com.x\" } data_sources {", "a;rm -rf /", "com..x"} {
		if _, err := Config(pkg, "fpstop_t_a", 1000, 250); err == nil {
			t.Errorf("Config(%q) accepted", pkg)
		}
	}
	c, err := Config("com.example.feed", "fpstop_t_a", 30000, 250)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"android.surfaceflinger.frametimeline", `atrace_apps: "com.example.feed"`, "write_into_file: true",
		"file_write_period_ms: 250", "duration_ms: 30000", `unique_session_name: "fpstop_t_a"`, "linux.process_stats"} {
		if !strings.Contains(c, want) {
			t.Errorf("config lacks %q:\n%s", want, c)
		}
	}
}

// TestLiveDisconnect: a phone that stops answering for 4 s in the middle of a session. The
// source says disconnected (not a fallback, not an error ending the run) and marks the time not
// seen as a gap, stops that session
// and removes its file as soon as the phone answers again (well before its duration_ms), says
// it is back, and traces on with a new session; no frame is sent twice.
func TestLiveDisconnect(t *testing.T) {
	evs := simEvents(t, "janky", 60, 25*time.Second)
	f := newFakeTracer(t, evs)
	f.offFrom, f.offTo = 5*time.Second, 9*time.Second
	got, err := runLive(t, f, LiveOptions{SessionMs: 20000}, 14*time.Second)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run: %v, want context.Canceled", err)
	}
	var states []source.State
	for _, e := range got {
		if n, ok := e.(*source.Notice); ok && n.State != "" {
			states = append(states, n.State)
		}
	}
	if len(states) != 2 || states[0] != source.StateDisconnected || states[1] != source.StateLive {
		t.Errorf("states %v, want disconnected then live (notices %q)", states, notices(got))
	}
	var gaps []*source.Gap
	for _, e := range got {
		if g, ok := e.(*source.Gap); ok {
			gaps = append(gaps, g)
		}
	}
	if len(gaps) != 1 || gaps[0].ToNs-gaps[0].FromNs < int64(time.Second) || gaps[0].ToNs-gaps[0].FromNs > int64(6*time.Second) {
		t.Errorf("gaps %v, want one of 1–6 s (the phone was away 4 s; the fake writes its file by bytes, not by time)", gapText(gaps))
	}
	if liveNotice(got, "perfetto: fallback") {
		t.Errorf("an outage taken for an old tracing service: %q", notices(got))
	}
	if len(f.sessions) < 2 {
		t.Fatalf("%d sessions: none started after the phone came back", len(f.sessions))
	}
	first, next := f.sessions[0], f.sessions[1]
	if !first.stopped || !first.removed || !first.stoppedBeforeEnd {
		t.Errorf("the session of the outage: stopped %v, removed %v, before its end %v", first.stopped, first.removed, first.stoppedBeforeEnd)
	}
	if d := next.from.Sub(f.epoch); d < f.offTo || d > f.offTo+time.Second {
		t.Errorf("the next session started %s after the epoch, want just after the phone came back at %s", d, f.offTo)
	}
	seen := map[int64]bool{}
	after := 0
	for _, fr := range framesOf(got) {
		if seen[fr.VsyncID] {
			t.Errorf("frame %d sent twice", fr.VsyncID)
		}
		seen[fr.VsyncID] = true
		if next.tokens[fr.VsyncID] {
			after++
		}
	}
	if after == 0 {
		t.Error("no frame of the session after the outage")
	}
	for _, s := range f.sessions {
		if !s.removed {
			t.Errorf("%s left on the phone", s.path)
		}
	}
}

func gapText(gs []*source.Gap) []string {
	var out []string
	for _, g := range gs {
		out = append(out, fmt.Sprintf("%s %.2f s", g.Reason, float64(g.ToNs-g.FromNs)/1e9))
	}
	return out
}

// TestLiveStartDropped: the phone stops answering just after perfetto printed the next
// session's pid (the start's check that it runs fails). That session runs on the phone, so it
// is stopped as soon as the phone answers again, before its duration_ms ends, its file removed,
// and tracing goes on under its name with a new session; nothing is left at the end.
func TestLiveStartDropped(t *testing.T) {
	evs := simEvents(t, "janky", 60, 40*time.Second)
	f := newFakeTracer(t, evs)
	f.dropAt, f.dropFor = 2, 2*time.Second
	got, err := runLive(t, f, LiveOptions{SessionMs: 10000}, 25*time.Second)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run: %v, want context.Canceled", err)
	}
	if len(f.sessions) < 3 {
		t.Fatalf("%d sessions: none started after the phone came back (notices %q)", len(f.sessions), notices(got))
	}
	dropped, after := f.sessions[1], f.sessions[2]
	if !dropped.stopped || !dropped.removed || !dropped.stoppedBeforeEnd {
		t.Errorf("the session whose start was cut: stopped %v, removed %v, before its end %v", dropped.stopped, dropped.removed, dropped.stoppedBeforeEnd)
	}
	if after.name != dropped.name || after.path != dropped.path {
		t.Errorf("the next session is %s %s, want the cut one's name and file again (%s %s)", after.name, after.path, dropped.name, dropped.path)
	}
	if d := after.from.Sub(f.epoch); d < f.offTo {
		t.Errorf("the next session started at %s, before the phone came back at %s", d, f.offTo)
	}
	for _, s := range f.sessions {
		if !s.removed {
			t.Errorf("%s left on the phone", s.path)
		}
	}
	if len(framesOf(got)) == 0 {
		t.Error("no frames")
	}
}

// TestLiveFirstStartDropped: the phone stops answering just after perfetto printed the first
// session's pid. The start fails (nothing was traced), but the session runs on the phone: it
// is stopped and its file removed once the phone answers within the bound; a phone that stays
// away is named in the error, which says the session ends by itself.
func TestLiveFirstStartDropped(t *testing.T) {
	for _, away := range []time.Duration{2 * time.Second, time.Minute} {
		t.Run(away.String(), func(t *testing.T) {
			f := newFakeTracer(t, simEvents(t, "janky", 60, 5*time.Second))
			f.dropAt, f.dropFor = 1, away
			_, err := runLive(t, f, LiveOptions{SessionMs: 10000}, time.Hour)
			if !errors.Is(err, ErrRefused) {
				t.Fatalf("Run: %v, want ErrRefused", err)
			}
			if len(f.sessions) != 1 {
				t.Fatalf("%d sessions started, want the cut one alone", len(f.sessions))
			}
			s := f.sessions[0]
			left := strings.Contains(err.Error(), "ends by itself within its duration_ms") && strings.Contains(err.Error(), s.path)
			if away < firstStopBound {
				if !s.stopped || !s.removed || !s.stoppedBeforeEnd || left {
					t.Errorf("phone back: stopped %v, removed %v, before its end %v; err %v", s.stopped, s.removed, s.stoppedBeforeEnd, err)
				}
				return
			}
			if s.stopped || !left {
				t.Errorf("phone away: stopped %v; err %v, want it to name %s and say it ends by itself", s.stopped, err, s.path)
			}
		})
	}
}
