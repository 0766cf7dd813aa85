package metrics

import (
	"math"
	"testing"

	"github.com/fpstop/fpstop/source"
)

const ms = int64(1_000_000)

// steady adds n 60 Hz frames from vsync v (10 ms each) and returns the next vsync.
func steady(p *Pipeline, v int64, n int) int64 {
	const T = 16_666_667
	for i := 0; i < n; i++ {
		p.Add(&source.Frame{Window: "w", VsyncNs: v, DoneNs: v + 10*ms, IntervalNs: T})
		v += T
	}
	return v
}

// TestFrozenIsNeverIdle: a main-thread dispatch open for 250 ms or more is FROZEN, named, with
// how long it has run; IDLE shows only after the main thread has been free for a second.
func TestFrozenIsNeverIdle(t *testing.T) {
	p := NewPipeline(Config{})
	p.Add(&source.Session{Source: source.KindLogcat, RefreshHz: 60})
	v := steady(p, 1e9, 60) // 1 s of frames
	block := v
	p.Add(&source.Dispatch{Pid: 7, Tid: 7, Handler: "android.os.Handler",
		Callback: "com.example.feed.FeedActivity$3@1a2b3c", StartNs: block})
	for _, c := range []struct {
		at    int64
		state source.State
	}{
		{block + 100*ms, source.StateLive},
		{block + 260*ms, source.StateFrozen},
		{block + 1200*ms, source.StateFrozen},
		{block + 1900*ms, source.StateFrozen},
	} {
		p.Add(&source.Tick{NowNs: c.at})
		s := p.Snapshot()
		if s.State != c.state {
			t.Fatalf("%d ms into the block: state %q, want %q", (c.at-block)/ms, s.State, c.state)
		}
		if c.state == source.StateFrozen && (s.Busy != "FeedActivity$3" || s.StateForNs != c.at-block) {
			t.Errorf("frozen: busy %q for %d ms", s.Busy, s.StateForNs/ms)
		}
	}
	// The series marks the blocked slice frozen, not idle.
	s := p.Snapshot()
	last := s.Series[len(s.Series)-1]
	if last.Idle || !last.Frozen {
		t.Errorf("slice during the block: %+v", last)
	}
	// The block ends; frames flow again, then stop with the main thread free.
	p.Add(&source.Message{Pid: 7, Tid: 7, Handler: "android.os.Handler", Callback: "com.example.feed.FeedActivity$3@1a2b3c",
		StartNs: block, EndNs: block + 2000*ms})
	v = steady(p, block+2000*ms, 30)
	for _, c := range []struct {
		after int64
		state source.State
	}{{500 * ms, source.StateLive}, {990 * ms, source.StateLive}, {1100 * ms, source.StateIdle}} {
		p.Add(&source.Tick{NowNs: v + c.after})
		if s := p.Snapshot(); s.State != c.state {
			t.Errorf("%d ms after the last frame: %q, want %q", c.after/ms, s.State, c.state)
		}
	}
}

// TestGfxinfoSaysNoFramesNotIdle: plain gfxinfo polling cannot tell idle from frozen: after
// two poll intervals without a new frame the state is NO FRAMES with its duration, never IDLE.
func TestGfxinfoSaysNoFramesNotIdle(t *testing.T) {
	p := NewPipeline(Config{})
	p.Add(&source.Session{Source: source.KindGfxinfo, RefreshHz: 60})
	v := steady(p, 1e9, 30)
	last := v - 16_666_667 + 10*ms
	for i := int64(1); i <= 8; i++ {
		at := last + i*500*ms
		p.Add(&source.Poll{AtNs: at, Window: "w", TotalFrames: 30, Rows: 30})
		p.Add(&source.Tick{NowNs: at})
		s := p.Snapshot()
		if s.State == source.StateIdle {
			t.Fatalf("%d ms without frames: IDLE from a source that cannot tell", i*500)
		}
		want := source.StateLive
		if i*500*ms >= 2*500*ms && i*500*ms >= p.cfg.SliceNs {
			want = source.StateNoFrames
		}
		if s.State != want || (want == source.StateNoFrames && s.StateForNs != i*500*ms) {
			t.Errorf("%d ms without frames: %q for %d ms, want %q", i*500, s.State, s.StateForNs/ms, want)
		}
	}
}

// TestLateFrameSlicesAreFrozen: a frame held up 2.5 s spans three slices with no frame of their
// own: they are frozen, not idle, and do not count in idle_s.
func TestLateFrameSlicesAreFrozen(t *testing.T) {
	p := NewPipeline(Config{})
	p.Add(&source.Session{Source: source.KindGfxinfo, RefreshHz: 60})
	v := steady(p, 1e9, 30) // slice 0
	p.Add(&source.Frame{Window: "w", VsyncNs: v, DoneNs: v + 2500*ms, IntervalNs: 16_666_667})
	steady(p, v+2500*ms+16_666_667, 60)
	s := p.Snapshot()
	var frozen, idle int
	for _, sp := range s.Series {
		if sp.Frozen {
			frozen++
		}
		if sp.Idle {
			idle++
		}
	}
	if frozen != 2 || idle != 0 {
		t.Errorf("series: %d frozen, %d idle slices; want 2 frozen (no frame of their own), 0 idle", frozen, idle)
	}
	if r := p.Report(ReportMeta{}); r.IdleS != 0 {
		t.Errorf("idle_s %v: a freeze is not idle", r.IdleS)
	}
}

// TestOpenDispatchSeenMovesTheClock: with gfxinfo+logcat the frames come a poll late and the
// logcat Ticks a second late; a live source re-sends the open dispatch with when it saw it
// open, and that alone shows FROZEN from 250 ms — named, with how long it has run — while no
// frame or Tick has moved past the block's start.
func TestOpenDispatchSeenMovesTheClock(t *testing.T) {
	p := NewPipeline(Config{})
	p.Add(&source.Session{Source: source.KindGfxinfoLogcat, RefreshHz: 60})
	block := steady(p, 1e9, 60)
	d := source.Dispatch{Pid: 7, Tid: 7, Handler: "android.os.Handler",
		Callback: "com.example.feed.FeedActivity$3@1a2b3c", StartNs: block}
	for _, c := range []struct {
		seen  int64
		state source.State
	}{
		{block + 100*ms, source.StateLive},
		{block + 200*ms, source.StateLive},
		{block + 300*ms, source.StateFrozen},
		{block + 800*ms, source.StateFrozen},
	} {
		d.SeenNs = c.seen
		cp := d
		p.Add(&cp)
		s := p.Snapshot()
		if s.State != c.state {
			t.Fatalf("seen open %d ms into the block: state %q, want %q", (c.seen-block)/ms, s.State, c.state)
		}
		if c.state == source.StateFrozen && (s.Busy != "FeedActivity$3" || s.StateForNs != c.seen-block) {
			t.Errorf("frozen: busy %q for %d ms, want %d ms", s.Busy, s.StateForNs/ms, (c.seen-block)/ms)
		}
	}
	// Its Finished line: not frozen, and not idle either (the main thread was busy until now).
	p.Add(&source.Message{Pid: 7, Tid: 7, Handler: d.Handler, Callback: d.Callback, StartNs: block, EndNs: block + 850*ms})
	if s := p.Snapshot(); s.State != source.StateLive {
		t.Errorf("right after the block: %q, want live", s.State)
	}
}

// TestFramesEndAnOpenDispatch: an announced main-thread dispatch whose Finished line has not
// arrived (a starved host delivers logcat late) is no freeze once two frames begun after it
// have been drawn — the main thread runs one message at a time — and a dispatch closed
// unpaired at a gap ends the freeze at once.
func TestFramesEndAnOpenDispatch(t *testing.T) {
	p := NewPipeline(Config{})
	p.Add(&source.Session{Source: source.KindGfxinfoLogcat, CostBasis: source.CostFrame})
	p.Add(&source.Refresh{AtNs: 1e9, Hz: 120})
	const T = 8_333_333
	v := int64(1e9)
	for ; v < 2e9; v += T {
		p.Add(&source.Frame{Window: "w", VsyncNs: v, DoneNs: v + 6e6})
	}
	p.Add(&source.Dispatch{Pid: 7, Tid: 7, Thread: "main", Handler: "h", StartNs: v, SeenNs: v + 5e8})
	if st, _, _ := p.State(); st != source.StateFrozen {
		t.Fatalf("an open dispatch of 500 ms: %s, want frozen", st)
	}
	for i := 0; i < 2; i++ {
		v += T
		p.Add(&source.Frame{Window: "w", VsyncNs: v, DoneNs: v + 6e6})
	}
	if st, _, _ := p.State(); st == source.StateFrozen {
		t.Errorf("frozen although two frames were begun after the dispatch opened")
	}
	p.Add(&source.Dispatch{Pid: 7, Tid: 7, Thread: "main", Handler: "h", StartNs: v + T, SeenNs: v + 6e8})
	if st, _, _ := p.State(); st != source.StateFrozen {
		t.Fatalf("a second open dispatch: %s, want frozen", st)
	}
	p.Add(&source.UnpairedLine{AtNs: v + T, Tid: 7, Reason: "gap"})
	if st, _, _ := p.State(); st == source.StateFrozen {
		t.Errorf("frozen after the dispatch was closed unpaired at a gap")
	}
}

// TestHistoryFPS: the first dump's backlog (history frames) gives a figure of its own at once,
// and never counts in fps.
func TestHistoryFPS(t *testing.T) {
	p := NewPipeline(Config{})
	p.Add(&source.Session{Source: source.KindGfxinfo, CostBasis: source.CostFrame})
	p.Add(&source.Refresh{AtNs: 1e9, Hz: 120})
	const T = 8_333_333
	for i := int64(0); i < 120; i++ {
		v := 1e9 + i*T
		p.Add(&source.Frame{Window: "w", VsyncNs: v, DoneNs: v + 6e6, IntervalNs: T, History: true})
	}
	s := p.Snapshot()
	if h := s.Totals.HistoryFPS; h < 119 || h > 121 {
		t.Errorf("HistoryFPS %v, want ~120", h)
	}
	if !math.IsNaN(s.Totals.FPS) {
		t.Errorf("fps %v counts history frames", s.Totals.FPS)
	}
}
