package surfaceflinger

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fpstop/fpstop/device"
	"github.com/fpstop/fpstop/internal/testkit/fakeadb"
	"github.com/fpstop/fpstop/source"
)

const gamePkg = "com.example.game"

// fakeDev is the device layer's shape over a fake SurfaceFlinger, building the same commands
// (validated and quoted by package device) and running them through the fake's shell parser.
type fakeDev struct {
	sf   *fakeadb.SurfaceFlinger
	mu   sync.Mutex
	cmds []string
}

func (f *fakeDev) run(cmd string) []byte {
	f.mu.Lock()
	f.cmds = append(f.cmds, cmd)
	f.mu.Unlock()
	var b bytes.Buffer
	_ = f.sf.Serve(context.Background(), cmd, &b)
	return b.Bytes()
}

func (f *fakeDev) SFList(ctx context.Context) ([]byte, error) {
	return f.run("dumpsys SurfaceFlinger --list"), nil
}

func (f *fakeDev) SFLatency(ctx context.Context, layer string) ([]byte, error) {
	cmd, err := device.LayerLatencyCommand(layer)
	if err != nil {
		return nil, err
	}
	return f.run(cmd), nil
}

func (f *fakeDev) SFTimestats(ctx context.Context, op string) ([]byte, error) {
	return f.run("dumpsys SurfaceFlinger --timestats " + op), nil
}

// clock is virtual time; Sleep advances it and lets the game present its frames up to then.
type clock struct {
	t       time.Time
	onSleep func(now time.Time)
}

func (c *clock) Now() time.Time { return c.t }
func (c *clock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.t = c.t.Add(d)
	c.onSleep(c.t)
	return nil
}

// game presents a frame every `every` refreshes of a display of period periodNs.
type game struct {
	sf       *fakeadb.SurfaceFlinger
	layer    string
	periodNs int64
	every    int64
	base     int64 // device time at clock zero
	next     int64
	presents []int64
}

func (g *game) until(now int64) {
	if g.next == 0 {
		g.next = g.base
	}
	for ; g.next <= now; g.next += g.every * g.periodNs {
		g.sf.Present(g.layer, g.next-3_000_000, g.next, g.next-5_000_000)
		g.presents = append(g.presents, g.next)
	}
}

type harness struct {
	dev   *fakeDev
	g     *game
	clk   *clock
	start time.Time
}

func newHarness(style fakeadb.SFStyle, hz float64, every int64) *harness {
	sf := fakeadb.NewSurfaceFlinger(style, hz)
	h := &harness{dev: &fakeDev{sf: sf}, start: time.Unix(1_700_000_000, 0)}
	sf.AddLayer("com.example.other", "com.example.other.Main", false)
	name := sf.AddLayer(gamePkg, gamePkg+".GameActivity", true)
	h.g = &game{sf: sf, layer: name, periodNs: int64(1e9/hz + 0.5), every: every, base: 5_000_000_000_000}
	h.clk = &clock{t: h.start}
	sf.SetClock(h.clk.Now)
	h.clk.onSleep = func(now time.Time) { h.g.until(h.g.base + int64(now.Sub(h.start))) }
	h.g.until(h.g.base)
	return h
}

// collect runs the poller until `polls` sleeps have passed and returns its events.
func (h *harness) collect(t *testing.T, cfg Config, d time.Duration) []source.Event {
	t.Helper()
	cfg.Package = gamePkg
	cfg.Now = h.clk.Now
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	end := h.start.Add(d)
	cfg.Sleep = func(c context.Context, dd time.Duration) error {
		if h.clk.t.After(end) {
			cancel()
			return context.Canceled
		}
		return h.clk.Sleep(c, dd)
	}
	out := make(chan []source.Event, 1<<14)
	err := NewPoller(h.dev, cfg).Run(ctx, out)
	if err != nil && !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	close(out)
	var evs []source.Event
	for b := range out {
		evs = append(evs, b...)
	}
	return evs
}

func framesOf(evs []source.Event) (frames []*source.LayerFrame, lost int64, sess *source.Session, warns []string) {
	for _, ev := range evs {
		switch e := ev.(type) {
		case *source.LayerFrame:
			frames = append(frames, e)
		case *source.LayerPoll:
			lost += e.Lost
		case *source.Session:
			sess = e
		case *source.Notice:
			if e.Level == source.LevelWarn {
				warns = append(warns, e.Text)
			}
		}
	}
	return
}

// Every naming style: the layer with the frames is found, every frame presented arrives once,
// in order, and none is lost at the adaptive poll rate of a 120 Hz display.
func TestPollerNamingStyles(t *testing.T) {
	for _, style := range []fakeadb.SFStyle{fakeadb.SFAndroid11, fakeadb.SFAndroid12, fakeadb.SFAndroid14, fakeadb.SFAndroid15} {
		h := newHarness(style, 120, 1)
		evs := h.collect(t, Config{}, 5*time.Second)
		frames, lost, sess, _ := framesOf(evs)
		if sess == nil || sess.Layer != h.g.layer || sess.Source != source.KindSurfaceFlinger {
			t.Fatalf("style %d: session %+v, want layer %q", style, sess, h.g.layer)
		}
		if lost != 0 {
			t.Errorf("style %d: %d frames lost at the adaptive interval", style, lost)
		}
		var listed *source.ListedLayer
		for _, ev := range evs {
			if ll, ok := ev.(*source.LayerList); ok {
				for i := range ll.Layers {
					if ll.Layers[i].Name == h.g.layer {
						listed = &ll.Layers[i]
					}
				}
			}
		}
		if listed == nil || len(listed.PresentsNs) == 0 || listed.Kind == "window" {
			t.Errorf("style %d: the picker's list has %+v for the measured layer", style, listed)
		}
		// Once the presenting layer is known, the other candidates' rings are not read again
		// while it presents, and the layers are listed every relistPresenting only.
		others, lists := 0, 0
		for _, c := range h.dev.cmds {
			switch {
			case strings.Contains(c, "--latency") && !strings.Contains(c, strings.Fields(h.g.layer)[0]):
				others++
			case strings.HasSuffix(c, "--list"):
				lists++
			}
		}
		if others > 2*maxProbe || lists > 2 {
			t.Errorf("style %d: %d reads of other layers' rings and %d listings in 5 s while the game presents", style, others, lists)
		}
		got := map[int64]bool{}
		var prev int64
		for _, f := range frames {
			if got[f.PresentNs] || f.PresentNs <= prev {
				t.Fatalf("style %d: frame at %d repeated or out of order", style, f.PresentNs)
			}
			got[f.PresentNs], prev = true, f.PresentNs
		}
		// every frame presented up to the last poll arrived
		missing := 0
		for _, p := range h.g.presents {
			if p <= prev && !got[p] {
				missing++
			}
		}
		if missing != 0 || len(frames) < 500 {
			t.Errorf("style %d: %d frames, %d presented ones missing", style, len(frames), missing)
		}
	}
}

// A poll slower than the 127-record ring at 120 Hz provably misses frames and says so.
func TestPollerFramesLost(t *testing.T) {
	h := newHarness(fakeadb.SFAndroid14, 120, 1)
	evs := h.collect(t, Config{Interval: 2 * time.Second}, 9*time.Second)
	frames, lost, _, _ := framesOf(evs)
	if lost == 0 {
		t.Fatal("a 2 s poll of a 120 fps layer reported no lost frames")
	}
	// ~2 s between polls, 127 records each: about 113 frames lost per poll
	total := int64(len(frames)) + lost
	want := int64(len(h.g.presents))
	if d := want - total; d < 0 || d > 300 {
		t.Errorf("frames %d + lost %d = %d, presented %d", len(frames), lost, total, want)
	}
}

// A layer name with a quote in --list is refused with a warning and never sent to a shell.
func TestPollerHostileLayerName(t *testing.T) {
	h := newHarness(fakeadb.SFAndroid14, 60, 1)
	hostile := "SurfaceView[" + gamePkg + "/x'; reboot; echo '](BLAST)#9"
	h.dev.sf.AddListLine(hostile)
	evs := h.collect(t, Config{}, 3*time.Second)
	_, _, sess, warns := framesOf(evs)
	if sess == nil || sess.Layer != h.g.layer {
		t.Fatalf("session %+v", sess)
	}
	found := false
	for _, w := range warns {
		found = found || strings.Contains(w, "refused")
	}
	if !found {
		t.Errorf("no warning about the refused name: %q", warns)
	}
	for _, c := range h.dev.cmds {
		if strings.Contains(c, "reboot") {
			t.Fatalf("hostile name reached the shell: %q", c)
		}
	}
}

// When the activity is recreated the new layer is followed, its frames counted once.
func TestPollerFollowsRecreatedLayer(t *testing.T) {
	h := newHarness(fakeadb.SFAndroid14, 60, 1)
	cfg := Config{}
	first := h.g.layer
	old := h.clk.onSleep
	recreated := false
	h.clk.onSleep = func(now time.Time) {
		if !recreated && now.Sub(h.start) > 3*time.Second {
			recreated = true
			h.dev.sf.RemoveLayers(gamePkg)
			h.g.layer = h.dev.sf.AddLayer(gamePkg, gamePkg+".GameActivity", true)
		}
		old(now)
	}
	evs := h.collect(t, cfg, 8*time.Second)
	frames, _, sess, _ := framesOf(evs)
	if sess.Layer == first || sess.Layer != h.g.layer {
		t.Fatalf("still measuring %q, want the new layer %q", sess.Layer, h.g.layer)
	}
	var onNew int
	for _, f := range frames {
		if f.Layer == h.g.layer {
			onNew++
		}
	}
	if onNew < 200 {
		t.Errorf("%d frames from the recreated layer", onNew)
	}
}

// Android 16: --latency prints the period only; timestats is enabled (it was off), sampled,
// and disabled again on exit.
func TestPollerTimestatsFallback(t *testing.T) {
	h := newHarness(fakeadb.SFAndroid16, 120, 2)
	evs := h.collect(t, Config{}, 12*time.Second)
	var frames, dropped int64
	var span int64
	notice := false
	for _, ev := range evs {
		switch e := ev.(type) {
		case *source.LayerSample:
			frames += e.Frames
			dropped += e.Dropped
			span += e.ToNs - e.FromNs
			var hist int64
			for _, b := range e.Present2Present {
				hist += b.Count
				if b.Ms != 16 {
					t.Errorf("60 fps on 120 Hz in bucket %d ms", b.Ms)
				}
			}
			if hist != e.Frames {
				t.Errorf("histogram holds %d frames of %d", hist, e.Frames)
			}
		case *source.Notice:
			notice = notice || strings.Contains(e.Text, "per-interval")
		}
	}
	if !notice {
		t.Error("no notice that the data is per-interval")
	}
	if span == 0 {
		t.Fatal("no timestats samples")
	}
	if fps := float64(frames) / (float64(span) / 1e9); fps < 58 || fps > 62 {
		t.Errorf("timestats fps %.2f, want 60 ± 2", fps)
	}
	if h.dev.sf.TimestatsOn() {
		t.Error("timestats left on although fpstop turned it on")
	}
}

// Timestats already on (statsd uses it): fpstop neither enables nor disables it.
func TestPollerTimestatsAlreadyOn(t *testing.T) {
	h := newHarness(fakeadb.SFAndroid16, 60, 1)
	h.dev.sf.SetTimestats(true)
	h.collect(t, Config{}, 8*time.Second)
	if !h.dev.sf.TimestatsOn() {
		t.Error("fpstop disabled timestats it had not enabled")
	}
	for _, c := range h.dev.cmds {
		if strings.Contains(c, "-enable") || strings.Contains(c, "-disable") {
			t.Errorf("sent %q", c)
		}
	}
}
