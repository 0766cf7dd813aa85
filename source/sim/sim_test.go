package sim

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/fpstop/fpstop/internal/testkit/reference"
	"github.com/fpstop/fpstop/internal/testkit/sourcetest"
	"github.com/fpstop/fpstop/source"
)

// collect runs cfg (speed 0) to the end and returns the events, batch by batch, and the truth.
func collect(t testing.TB, cfg Config) ([][]source.Event, []byte) {
	t.Helper()
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return collectSim(t, s)
}

// collectSim runs s to the end; see collect.
func collectSim(t testing.TB, s *Sim) ([][]source.Event, []byte) {
	t.Helper()
	var truth bytes.Buffer
	s.SetTruth(&truth)
	return sourcetest.Batches(t, s), truth.Bytes()
}

func flatten(batches [][]source.Event) []source.Event {
	var all []source.Event
	for _, b := range batches {
		all = append(all, b...)
	}
	return all
}

// emitTime is the documented emission time of an event.
func emitTime(ev source.Event) int64 {
	switch ev := ev.(type) {
	case *source.Frame:
		return ev.DoneNs
	case *source.Message:
		return ev.EndNs
	case *source.Skipped:
		return -1 // sent with its vsync message: checked there
	case *source.Dispatch:
		return ev.StartNs + announceAfter
	}
	return ev.At()
}

func frames(evs []source.Event) []*source.Frame {
	var fs []*source.Frame
	for _, ev := range evs {
		if f, ok := ev.(*source.Frame); ok {
			fs = append(fs, f)
		}
	}
	return fs
}

func TestNewValidates(t *testing.T) {
	for _, hz := range []float64{60, 90, 120, 144, 30, 240, 75.5} {
		if _, err := New(Config{Hz: hz}); err != nil {
			t.Errorf("Hz %g: %v", hz, err)
		}
	}
	for _, hz := range []float64{29, 241, -60} {
		if _, err := New(Config{Hz: hz}); err == nil {
			t.Errorf("Hz %g accepted", hz)
		}
	}
	_, err := New(Config{Scenario: "nope"})
	if err == nil {
		t.Fatal("unknown scenario accepted")
	}
	for _, name := range Scenarios {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("error %q does not list %q", err, name)
		}
		if ScenarioHelp[name] == "" {
			t.Errorf("scenario %q has no help", name)
		}
	}
	if _, err := New(Config{Speed: -1}); err == nil {
		t.Error("negative speed accepted")
	}
	s, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	c := s.Config()
	if c.Scenario != "demo" || c.Hz != 60 || c.Package != "com.example.feed" || c.Pid == 0 {
		t.Errorf("defaults not filled: %+v", c)
	}
	if s.IntervalNs() != 16_666_667 {
		t.Errorf("IntervalNs = %d", s.IntervalNs())
	}
}

func TestDeterministic(t *testing.T) {
	cfg := Config{Scenario: "demo", Hz: 120, Seed: 7, Duration: 20 * time.Second}
	_, a := collect(t, cfg)
	_, b := collect(t, cfg)
	if len(a) == 0 {
		t.Fatal("empty truth")
	}
	if !bytes.Equal(a, b) {
		t.Fatal("same seed gave different truth")
	}
	cfg.Seed = 8
	_, c := collect(t, cfg)
	if bytes.Equal(a, c) {
		t.Fatal("different seeds gave identical truth")
	}
}

// TestDeterministicAcrossSpeed: pacing (batch boundaries) must not change what is simulated.
func TestDeterministicAcrossSpeed(t *testing.T) {
	cfg := Config{Scenario: "janky", Hz: 90, Seed: 3, Duration: 300 * time.Millisecond}
	_, a := collect(t, cfg)
	cfg.Speed = 4
	_, b := collect(t, cfg)
	if !bytes.Equal(a, b) {
		t.Fatal("speed 4 and speed 0 simulated different runs")
	}
}

func TestTruthMatchesEvents(t *testing.T) {
	batches, truth := collect(t, Config{Scenario: "demo", Seed: 1, Duration: 10 * time.Second})
	var want []byte
	for _, ev := range flatten(batches) {
		switch ev.(type) {
		case *source.Frame, *source.Message:
			var err error
			want, err = source.AppendLine(want, ev)
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, '\n')
		}
	}
	if !bytes.Equal(want, truth) {
		t.Fatal("truth differs from the frames and messages sent")
	}
	// and it parses back
	lines := bytes.Split(bytes.TrimSpace(truth), []byte("\n"))
	for _, l := range lines[:min(len(lines), 50)] {
		typ, ev, err := source.ParseLine(l)
		if err != nil || ev == nil || (typ != "frame" && typ != "message") {
			t.Fatalf("line %s: %s %v %v", l, typ, ev, err)
		}
	}
}

// TestOrderingAndShape checks the documented stream: Session, Refresh first; emission times
// never decrease; Ticks at least every 100 ms; every frame and message complete and consistent.
func TestOrderingAndShape(t *testing.T) {
	for _, sc := range Scenarios {
		for _, hz := range []float64{60, 90, 120, 144} {
			t.Run(fmt.Sprintf("%s/%g", sc, hz), func(t *testing.T) {
				checkRun(t, Config{Scenario: sc, Hz: hz, Seed: 42, Duration: 30 * time.Second})
			})
		}
	}
	for _, hz := range []float64{30, 75.5, 240} {
		t.Run(fmt.Sprintf("demo/%g", hz), func(t *testing.T) {
			checkRun(t, Config{Scenario: "demo", Hz: hz, Seed: 43, Duration: 30*time.Second + 50*time.Millisecond})
		})
	}
	for _, hz := range []float64{60, 120} {
		t.Run(fmt.Sprintf("janky-pre12/%g", hz), func(t *testing.T) {
			checkRun(t, Config{Scenario: "janky", Hz: hz, Seed: 44, Duration: 30 * time.Second, Pre12: true})
		})
	}
}

// checkPipelined checks a frame's pipeline fields: the vsync it started on, the deadline as
// Android 12+ prints it (the start vsync + the base, or hwui's stuffing extension: a later
// vsync + the base; a few µs of jitter) or none before Android 12, and the present time (a
// little before a vsync tick after the frame completed).
func checkPipelined(t *testing.T, cfg Config, f *source.Frame) {
	t.Helper()
	T, ph := f.IntervalNs, f.Phases
	start := f.VsyncNs
	if f.StartVsyncNs != 0 {
		start = f.StartVsyncNs
		if f.StartVsyncNs == f.VsyncNs || f.StartVsyncNs != ph.Vsync {
			t.Fatalf("start vsync %d, intended %d, row Vsync %d", f.StartVsyncNs, f.VsyncNs, ph.Vsync)
		}
	} else if ph.Vsync != f.VsyncNs {
		t.Fatalf("row Vsync %d but no start vsync: %+v", ph.Vsync, f)
	}
	if cfg.Pre12 {
		if f.DeadlineNs != 0 {
			t.Fatalf("pre-12 frame with a deadline: %+v", f)
		}
	} else {
		// Unstuffed: the start vsync + the base. Stuffed: JankTracker's next unstuffed start (a
		// vsync more than 0.1 periods after IntendedVsync, which for a frame started late can be
		// before the vsync it started on) + the base.
		base := BaseDeadlineNs(T)
		ext := f.DeadlineNs - f.VsyncNs - base
		if ext < 0 || ext%T >= 30*us || (ext < T && f.DeadlineNs < start+base) {
			t.Fatalf("deadline %d: intended %d start %d + base %d + %d", f.DeadlineNs, f.VsyncNs, start, base, ext)
		}
	}
	if f.PresentNs <= f.DoneNs || ph.DisplayPresentTime != f.PresentNs {
		t.Fatalf("present %d before completion %d", f.PresentNs, f.DoneNs)
	}
	if off := T - (f.PresentNs-StartNs)%T; off > 120*us {
		t.Fatalf("present %d is %d ns before a tick", f.PresentNs, off)
	}
}

func checkRun(t *testing.T, cfg Config) {
	batches, _ := collect(t, cfg)
	evs := flatten(batches)
	if len(evs) < 3 {
		t.Fatal("too few events")
	}
	ses, ok := evs[0].(*source.Session)
	if !ok || ses.Source != source.KindSim || ses.CostBasis != source.CostFrame || ses.RefreshHz != cfg.Hz ||
		ses.Device.Model != "fpstop simulator" || ses.Package != "com.example.feed" || ses.Pid == 0 ||
		ses.Scenario != cfg.Scenario || ses.Seed != cfg.Seed {
		t.Fatalf("first event %#v", evs[0])
	}
	if r, ok := evs[1].(*source.Refresh); !ok || r.Hz != cfg.Hz {
		t.Fatalf("second event %#v", evs[1])
	}
	T := int64(1e9/cfg.Hz + 0.5)
	end := StartNs + int64(cfg.Duration)
	var last, lastTick int64 = StartNs, StartNs
	var lastMsgEnd int64
	nFrames := 0
	for i, ev := range evs[2:] {
		at := emitTime(ev)
		if at == -1 {
			next, ok := evs[i+3].(*source.Message)
			if !ok || !next.IsVsync() || ev.At() < next.StartNs || ev.At() > next.EndNs {
				t.Fatalf("Skipped %+v not followed by its vsync message: %#v", ev, evs[i+3])
			}
			at = last
		}
		if at < last {
			t.Fatalf("event %d (%T) emitted at %d before %d", i+2, ev, at, last)
		}
		if at > end {
			t.Fatalf("event %T at %d after the end %d", ev, at, end)
		}
		last = at
		switch ev := ev.(type) {
		case *source.Tick:
			if ev.NowNs-lastTick > int64(TickEvery) {
				t.Fatalf("tick gap %d", ev.NowNs-lastTick)
			}
			lastTick = ev.NowNs
		case *source.Frame:
			nFrames++
			if !(ev.DoneNs >= ev.UIDoneNs && ev.UIDoneNs >= ev.VsyncNs && ev.VsyncNs > 0) {
				t.Fatalf("frame times out of order: %+v", ev)
			}
			ph := ev.Phases
			if ev.Window == "" || ev.Process != "com.example.feed" || ev.IntervalNs != T ||
				ph == nil || (ev.Flags != 0 && ev.Flags != 1) {
				t.Fatalf("frame fields: %+v", ev)
			}
			if (ph.Vsync-ev.VsyncNs)%T != 0 || ph.Vsync < ev.VsyncNs {
				t.Fatalf("Vsync %d not on the grid after IntendedVsync %d", ph.Vsync, ev.VsyncNs)
			}
			checkPipelined(t, cfg, ev)
			seq := []int64{ph.FrameStartTime, ph.HandleInputStart, ph.AnimationStart, ph.PerformTraversalsStart,
				ph.DrawStart, ph.SyncQueued, ph.SyncStart, ph.IssueDrawCommandsStart, ph.SwapBuffers}
			for k := 1; k < len(seq); k++ {
				if seq[k] < seq[k-1] || seq[k] == 0 {
					t.Fatalf("phase %d out of order: %+v", k, ph)
				}
			}
			if ph.Vsync > ph.FrameStartTime || ph.FrameStartTime-ph.Vsync >= T {
				t.Fatalf("frame time %d not the last tick before the start %d", ph.Vsync, ph.FrameStartTime)
			}
			if ph.FrameCompleted != ev.DoneNs || ph.GpuCompleted != ev.DoneNs || ph.GpuCompleted < ph.SwapBuffersCompleted ||
				ph.SwapBuffersCompleted < ph.SwapBuffers || ph.CommandSubmissionCompleted != ph.SwapBuffers ||
				ph.DequeueBufferDuration <= 0 || ph.QueueBufferDuration <= 0 {
				t.Fatalf("render phases: %+v", ph)
			}
		case *source.Message:
			if ev.Pid == 0 || ev.Tid != ev.Pid || ev.Thread != "main" || ev.Handler == "" || ev.Callback == "" ||
				ev.EndNs < ev.StartNs {
				t.Fatalf("message: %+v", ev)
			}
			if ev.StartNs < lastMsgEnd {
				t.Fatalf("main thread ran two messages at once: %+v starts before %d", ev, lastMsgEnd)
			}
			lastMsgEnd = ev.EndNs
		case *source.Skipped:
			if ev.Frames < 30 {
				t.Fatalf("skipped %d < 30", ev.Frames)
			}
		}
	}
	if last := evs[len(evs)-1]; last.(*source.Notice).State != source.StateEnded {
		t.Fatalf("last event %#v", last)
	}
	if lastTick != end {
		t.Fatalf("last tick %d, end %d", lastTick, end)
	}
	if nFrames == 0 {
		t.Fatal("no frames")
	}
	// Skipped lines exactly for the vsyncs whose doFrame started ≥ 30 intervals late
	late := map[int64]int64{}
	nSkipped := 0
	for _, ev := range evs {
		switch ev := ev.(type) {
		case *source.Frame:
			if n := (ev.Phases.FrameStartTime - ev.VsyncNs) / T; n >= 30 {
				late[ev.VsyncNs] = n
			}
		case *source.Skipped:
			nSkipped++
		}
	}
	if nSkipped != len(late) {
		t.Fatalf("%d Skipped events, %d late doFrames", nSkipped, len(late))
	}
}

// cost is what the user waited for a frame.
func cost(f *source.Frame) int64 { return f.DoneNs - f.VsyncNs }

// TestSmoothSteady: the smooth scenario is a steady pipelined scroll at every rate: each frame
// takes more than one period from its vsync to GPU completion (9–13 ms at 120 Hz), none is
// late by the rule (DESIGN §4, internal/testkit/reference), and no vsync is missed.
func TestSmoothSteady(t *testing.T) {
	for _, hz := range []float64{60, 90, 120, 144} {
		for seed := int64(1); seed <= 2; seed++ {
			batches, truth := collect(t, Config{Scenario: "smooth", Hz: hz, Seed: seed, Duration: 30 * time.Second})
			fs := frames(flatten(batches))
			ref, err := reference.FromTruth(bytes.NewReader(truth), false)
			if err != nil {
				t.Fatal(err)
			}
			T := fs[0].IntervalNs
			var lo, hi int64 = math.MaxInt64, 0
			for i, f := range fs {
				lo, hi = min(lo, cost(f)), max(hi, cost(f))
				if i > 0 && f.VsyncNs-fs[i-1].VsyncNs != T {
					t.Errorf("%g Hz seed %d: frame %d %d ns after the previous one", hz, seed, i, f.VsyncNs-fs[i-1].VsyncNs)
					break
				}
			}
			R := math.Round(1e9 / float64(T))
			if ref.Janky != 0 || ref.FPS < R-0.5 || len(fs) < int(25*R) || lo <= T {
				t.Errorf("%g Hz seed %d: %d frames, %d janky, fps %.2f, cost %d–%d ns", hz, seed, len(fs), ref.Janky, ref.FPS, lo, hi)
			}
			if hz == 120 && (lo < 9*ms || hi > 13*ms) {
				t.Errorf("seed %d: frames take %.2f–%.2f ms at 120 Hz, want 9–13", seed, float64(lo)/1e6, float64(hi)/1e6)
			}
		}
	}
}

func TestFrozenHasFreeze(t *testing.T) {
	for _, hz := range []float64{60, 120} {
		batches, _ := collect(t, Config{Scenario: "frozen", Hz: hz, Seed: 5, Duration: 20 * time.Second})
		evs := flatten(batches)
		var worst int64
		for _, f := range frames(evs) {
			worst = max(worst, cost(f))
		}
		if worst < 700*ms {
			t.Errorf("%g Hz: worst frame %d ms, want a frozen frame ≥ 700 ms", hz, worst/ms)
		}
		skipped := 0
		for _, ev := range evs {
			if _, ok := ev.(*source.Skipped); ok {
				skipped++
			}
		}
		if skipped == 0 {
			t.Errorf("%g Hz: no Skipped frames line", hz)
		}
	}
}

func TestJankyIsJankier(t *testing.T) {
	share := func(sc string) float64 {
		_, truth := collect(t, Config{Scenario: sc, Hz: 60, Seed: 9, Duration: 30 * time.Second})
		ref, err := reference.FromTruth(bytes.NewReader(truth), false)
		if err != nil {
			t.Fatal(err)
		}
		return float64(ref.Janky) / float64(ref.Frames)
	}
	sm, dm, jk := share("smooth"), share("demo"), share("janky")
	if !(sm < dm && dm < jk && jk > 0.2) {
		t.Errorf("janky shares smooth %.3f demo %.3f janky %.3f", sm, dm, jk)
	}
}

// TestIdleAndPopup: idle gaps have no frames but Ticks keep coming; the popup window appears
// (first frame flagged) and goes.
func TestIdleAndPopup(t *testing.T) {
	batches, _ := collect(t, Config{Scenario: "demo", Hz: 60, Seed: 11, Duration: 60 * time.Second})
	evs := flatten(batches)
	fs := frames(evs)
	// longest gap between consecutive frames' vsyncs, and ticks inside it
	var gapFrom, gapTo int64
	for i := 1; i < len(fs); i++ {
		if d := fs[i].VsyncNs - fs[i-1].VsyncNs; d > gapTo-gapFrom {
			gapFrom, gapTo = fs[i-1].DoneNs, fs[i].VsyncNs
		}
	}
	if gapTo-gapFrom < 500*ms {
		t.Fatalf("no idle gap ≥ 500 ms (longest %d ms)", (gapTo-gapFrom)/ms)
	}
	ticks := 0
	for _, ev := range evs {
		if tk, ok := ev.(*source.Tick); ok && tk.NowNs > gapFrom && tk.NowNs < gapTo {
			ticks++
		}
	}
	if ticks < int((gapTo-gapFrom)/int64(TickEvery))-1 {
		t.Fatalf("idle gap of %d ms has %d ticks", (gapTo-gapFrom)/ms, ticks)
	}
	// windows
	first := map[string]int{}
	count := map[string]int{}
	var popupFirst, popupLast int64
	for _, f := range fs {
		count[f.Window]++
		if f.Flags&source.FlagWindowLayoutChanged != 0 {
			first[f.Window]++
		}
		if strings.HasPrefix(f.Window, "PopupWindow:") {
			if popupFirst == 0 {
				popupFirst = f.VsyncNs
			}
			popupLast = f.VsyncNs
		}
	}
	act := "com.example.feed/com.example.feed.FeedActivity"
	if count[act] == 0 || first[act] != 1 {
		t.Fatalf("activity frames %d, first-frame flags %d", count[act], first[act])
	}
	if len(count) < 2 || popupFirst == 0 {
		t.Fatalf("no popup window: %v", count)
	}
	for w, n := range first {
		if strings.HasPrefix(w, "PopupWindow:") && n < 1 {
			t.Fatalf("popup %s without first-frame flag", w)
		}
	}
	// the popup comes and goes: frames of the activity after the popup's last frame, long after
	var after bool
	for _, f := range fs {
		if f.Window == act && f.VsyncNs > popupLast+2*int64(time.Second) {
			after = true
		}
	}
	if !after && popupLast > StartNs+50*int64(time.Second) {
		t.Skip("popup shown until the end of this seed")
	}
	if !after {
		t.Fatalf("popup never went away (last popup frame at +%d ms)", (popupLast-StartNs)/ms)
	}
}

func TestMessagesLookReal(t *testing.T) {
	batches, _ := collect(t, Config{Scenario: "demo", Hz: 60, Seed: 2, Duration: 40 * time.Second})
	seen := map[string]int{}
	lambdaHashes := map[string]bool{}
	var slowClick, vsync int
	for _, ev := range flatten(batches) {
		m, ok := ev.(*source.Message)
		if !ok {
			continue
		}
		switch {
		case m.IsVsync():
			vsync++
			if m.Callback[:len("android.view.Choreographer$FrameDisplayEventReceiver@")] != "android.view.Choreographer$FrameDisplayEventReceiver@" {
				t.Fatalf("vsync callback %q", m.Callback)
			}
		case m.Handler == "android.app.ActivityThread$H":
			if m.Callback != "null" {
				t.Fatalf("lifecycle callback %q", m.Callback)
			}
			seen[fmt.Sprintf("H:%d", m.What)]++
		case strings.HasPrefix(m.Callback, "com.example.feed.ImageLoader$$ExternalSyntheticLambda0@"):
			lambdaHashes[m.Callback] = true
		case strings.HasPrefix(m.Callback, "android.view.View$PerformClick@"):
			if m.EndNs-m.StartNs >= 100*ms {
				slowClick++
			}
		case m.Callback == "com.example.feed.FeedActivity$3@1f2e3d":
			seen["feed3"]++
		}
	}
	for _, k := range []string{"H:110", "H:159", "H:114", "H:115", "feed3"} {
		if seen[k] == 0 {
			t.Errorf("no %s message", k)
		}
	}
	if vsync < 500 || len(lambdaHashes) < 20 || slowClick == 0 {
		t.Errorf("vsync %d, distinct lambda instances %d, slow clicks %d", vsync, len(lambdaHashes), slowClick)
	}
}

func TestStressManyWindows(t *testing.T) {
	batches, _ := collect(t, Config{Scenario: "stress", Hz: 120, Seed: 4, Duration: 10 * time.Second})
	evs := flatten(batches)
	wins := map[string]int{}
	for _, f := range frames(evs) {
		wins[f.Window]++
	}
	if len(wins) < 4 {
		t.Fatalf("windows %v", wins)
	}
	act := wins["com.example.feed/com.example.feed.FeedActivity"]
	if act < 1000 { // ~9 s of scrolling at 120 Hz after startup
		t.Fatalf("activity frames %d at 120 Hz in 10 s", act)
	}
}

func TestCancel(t *testing.T) {
	for _, speed := range []float64{0, 1} {
		s, err := New(Config{Speed: speed}) // endless
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		out := make(chan []source.Event)
		errc := make(chan error, 1)
		go func() { errc <- s.Run(ctx, out) }()
		<-out
		<-out
		cancel()
		// nobody reads out any more: Run must still return
		select {
		case err := <-errc:
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("speed %g: Run returned %v", speed, err)
			}
		case <-time.After(10 * time.Second): // a hang guard, not a timing assertion
			t.Fatalf("speed %g: Run did not return after cancel", speed)
		}
		if err := s.Run(context.Background(), out); err == nil {
			t.Fatal("second Run accepted")
		}
	}
}

func BenchmarkSim120Hz60s(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		s, err := New(Config{Scenario: "demo", Hz: 120, Seed: int64(i), Duration: 60 * time.Second})
		if err != nil {
			b.Fatal(err)
		}
		out := make(chan []source.Event, 16)
		done := make(chan int)
		go func() {
			n := 0
			for batch := range out {
				n += len(batch)
			}
			done <- n
		}()
		if err := s.Run(context.Background(), out); err != nil {
			b.Fatal(err)
		}
		close(out)
		if n := <-done; n < 5000 {
			b.Fatalf("only %d events", n)
		}
	}
}

// TestLongMessagesAnnounced: every main-thread message longer than 100 ms is announced by a
// Dispatch (same start, same names) 100 ms after it started, before its Message and only once;
// shorter ones never are. The frozen scenario's freezes (0.8–2.5 s) are among them.
func TestLongMessagesAnnounced(t *testing.T) {
	batches, _ := collect(t, Config{Scenario: "frozen", Hz: 60, Seed: 5, Duration: 40 * time.Second})
	open := map[int64]*source.Dispatch{}
	long := 0
	var lastStart int64
	for _, ev := range flatten(batches) {
		switch ev := ev.(type) {
		case *source.Dispatch:
			if open[ev.StartNs] != nil || ev.Tid != ev.Pid || ev.Thread != "main" {
				t.Fatalf("dispatch %+v announced twice or not on the main thread", ev)
			}
			open[ev.StartNs] = ev
		case *source.Message:
			d := open[ev.StartNs]
			delete(open, ev.StartNs)
			lastStart = ev.StartNs
			if ev.EndNs-ev.StartNs <= announceAfter {
				if d != nil {
					t.Fatalf("a %d ms message was announced", (ev.EndNs-ev.StartNs)/ms)
				}
				continue
			}
			if d == nil || d.Handler != ev.Handler || d.Callback != ev.Callback || d.What != ev.What {
				t.Fatalf("message %+v: announced as %+v", ev, d)
			}
			if ev.EndNs-ev.StartNs >= 800*ms {
				long++
			}
		}
	}
	for _, d := range open { // only the message still running when the run ended
		if len(open) > 1 || d.StartNs < lastStart {
			t.Fatalf("%d announced messages never finished, one at %d before the last message at %d", len(open), d.StartNs, lastStart)
		}
	}
	if long < 3 {
		t.Fatalf("%d messages of 800 ms or more, want ≥ 3", long)
	}
}

// TestWorkScale: --work-scale makes frames slower (the same seed's frames cost more on average)
// and leaves scale 1 identical to the scenario as written; out-of-range scales are refused.
func TestWorkScale(t *testing.T) {
	meanCost := func(scale float64) (float64, int) {
		batches, _ := collect(t, Config{Scenario: "janky", Hz: 120, Seed: 3, Duration: 10 * time.Second, WorkScale: scale})
		var sum float64
		n := 0
		for _, b := range batches {
			for _, ev := range b {
				if f, ok := ev.(*source.Frame); ok {
					sum += float64(f.DoneNs - f.VsyncNs)
					n++
				}
			}
		}
		return sum / float64(max(n, 1)), n
	}
	base, n1 := meanCost(0)
	one, n2 := meanCost(1)
	slow, _ := meanCost(1.2)
	if base != one || n1 != n2 {
		t.Errorf("scale 1 differs from the scenario as written: %v/%d vs %v/%d", one, n2, base, n1)
	}
	if slow <= base*1.1 {
		t.Errorf("×1.2 work: mean cost %.2f ms, ×1 %.2f ms", slow/1e6, base/1e6)
	}
	for scale, want := range map[float64]float64{0: 0, 1: 0, 1.05: 1.05} {
		batches, _ := collect(t, Config{Scenario: "janky", Hz: 120, Seed: 3, Duration: time.Second, WorkScale: scale})
		if s, ok := batches[0][0].(*source.Session); !ok || s.WorkScale != want {
			t.Errorf("×%g: first event %+v, want a Session with work_scale %g", scale, batches[0][0], want)
		}
	}
	for _, bad := range []float64{0.1, 5, math.NaN()} {
		if _, err := New(Config{WorkScale: bad}); err == nil {
			t.Errorf("work scale %v accepted", bad)
		}
	}
}
