package metrics

import (
	"math/rand"
	"testing"

	"github.com/fpstop/fpstop/source"
)

const looperMs = int64(1_000_000)

func looperVsyncMsg(pid, startUs, endUs int64) *source.Message {
	return &source.Message{Pid: int(pid), Tid: int(pid), Thread: "main", Handler: "android.view.Choreographer$FrameHandler",
		Callback: "android.view.Choreographer$FrameDisplayEventReceiver@1589ea03", What: 0,
		StartNs: startUs * 1000, EndNs: endUs * 1000}
}

func looperOtherMsg(pid, startUs, endUs int64) *source.Message {
	return &source.Message{Pid: int(pid), Tid: int(pid), Thread: "main", Handler: "android.app.ActivityThread$H",
		Callback: "null", What: 159, StartNs: startUs * 1000, EndNs: endUs * 1000}
}

// TestLooperFramesHandComputed pins DESIGN §4's Looper-derived intended vsync with T = 16 ms.
func TestLooperFramesHandComputed(t *testing.T) {
	l := NewLooperFrames(16 * looperMs)
	type step struct {
		m          *source.Message
		wantVsync  int64 // µs; -1: no frame
		wantUIDone int64 // µs
	}
	steps := []step{
		// A lifecycle message: not a frame, but it makes the thread's history.
		{looperOtherMsg(100, 990_000, 995_000), -1, 0},
		// F1 dispatched 5.5 ms after the thread went idle: prompt. The only phase sample is its
		// own dispatch time, so the grid is 1000.5 + k·16 ms and the frame's vsync is 1000.5.
		{looperVsyncMsg(100, 1_000_500, 1_008_000), 1_000_500, 1_008_000},
		// F2 prompt (idle since 1008): samples {1000.5, 1016.5} fold to one phase: 1016.5.
		{looperVsyncMsg(100, 1_016_500, 1_020_000), 1_016_500, 1_020_000},
		// A 19 ms message; F3 waits behind it (dispatched at its end: not prompt).
		{looperOtherMsg(100, 1_021_000, 1_040_000), -1, 0},
		// tick ≤ 1040 = 1032.5; first tick ≥ previous frame's Finished (1020) = 1032.5 → 1032.5
		// (cost 12.5 ms).
		{looperVsyncMsg(100, 1_040_000, 1_045_000), 1_032_500, 1_045_000},
		// F4 prompt (idle 3.6 ms): samples 1000.5, 1016.5, 1048.6 fold around 1048.6 to offsets
		// −0.1, −0.1, 0 ms; the 10th percentile is −0.1 → grid 1048.5 + k·16. Vsync 1048.5,
		// cost 41.5 ms.
		{looperVsyncMsg(100, 1_048_600, 1_090_000), 1_048_500, 1_090_000},
		// F5 runs 0.2 ms after F4 (not prompt): tick ≤ 1090.2 = 1080.5, but the previous frame
		// finished at 1090, whose first tick at or after is 1096.5: the later one, 1096.5
		// (cost 3.5 ms: F4's overrun is charged to F4 alone).
		{looperVsyncMsg(100, 1_090_200, 1_100_000), 1_096_500, 1_100_000},
	}
	for i, s := range steps {
		got := l.Message(s.m)
		if s.wantVsync < 0 {
			if len(got) != 0 {
				t.Fatalf("step %d: frames %+v, want none", i, got)
			}
			continue
		}
		if len(got) != 1 {
			t.Fatalf("step %d: %d frames, want 1", i, len(got))
		}
		f := got[0]
		want := source.Frame{Window: "main thread", VsyncNs: s.wantVsync * 1000, UIDoneNs: s.wantUIDone * 1000, IntervalNs: 16 * looperMs}
		if f != want {
			t.Errorf("step %d: frame %+v, want %+v", i, f, want)
		}
	}
	if fl := l.Flush(); len(fl) != 0 {
		t.Errorf("flush released %d frames, want 0", len(fl))
	}
}

// TestLooperFramesNames checks window naming per process and thread.
func TestLooperFramesNames(t *testing.T) {
	l := NewLooperFrames(16 * looperMs)
	l.SetProcessName(300, "com.example.app")
	a := l.Message(looperVsyncMsg(200, 1_000_000, 1_001_000))[0]
	b := l.Message(looperVsyncMsg(300, 1_000_100, 1_002_000))[0]
	c := l.Message(looperVsyncMsg(400, 1_000_200, 1_003_000))[0]
	m := looperVsyncMsg(200, 1_000_300, 1_004_000)
	m.Tid = 201
	d := l.Message(m)[0]
	got := []string{a.Window, b.Window, b.Process, c.Window, d.Window}
	want := []string{"main thread", "com.example.app", "com.example.app", "main thread (pid 400)", "thread 201 (pid 200)"}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("names %q, want %q", got, want)
			break
		}
	}
}

// TestLooperFramesUntimed: messages without timestamps (durations unknown) make no frames.
func TestLooperFramesUntimed(t *testing.T) {
	l := NewLooperFrames(0)
	for i := 0; i < 100; i++ {
		m := looperVsyncMsg(1, 0, 0)
		if f := l.Message(m); len(f) != 0 {
			t.Fatal("frame from an untimed message")
		}
	}
	if f := l.Flush(); len(f) != 0 {
		t.Fatal("frame from an untimed message")
	}
}

// looperTruthModel runs a main Looper on a true vsync grid: each vsync message is dispatched at its
// tick + latency when the thread is idle, or right after the message in front of it, and the
// truth follows DESIGN §4's rule on the true grid.
type looperTruthModel struct {
	msgs  []*source.Message
	truth []int64 // true intended vsync of each vsync message, in order
}

func buildLooperModel(seed int64, T int64, n int, usec bool) looperTruthModel {
	r := rand.New(rand.NewSource(seed))
	var lm looperTruthModel
	phase := int64(7_777_777)
	busyUntil := int64(0)
	prevFrameEnd := int64(0)
	q := func(t int64) int64 {
		if usec {
			return t / 1000 * 1000
		}
		return t / looperMs * looperMs
	}
	for k := int64(10); len(lm.truth) < n; k++ {
		tick := phase + k*T
		// Sometimes an app message runs across the vsync.
		if r.Intn(6) == 0 {
			s := tick - T/3 + int64(r.Intn(int(T/4)))
			if s > busyUntil {
				e := s + int64(r.Intn(int(T)))
				if r.Intn(10) == 0 {
					e += 3 * T
				}
				lm.msgs = append(lm.msgs, &source.Message{Pid: 1, Tid: 1, Handler: "android.os.Handler", Callback: "x", What: 1,
					StartNs: q(s), EndNs: q(e)})
				busyUntil = e
			}
		}
		if tick < busyUntil && r.Intn(2) == 0 {
			continue // this vsync was not requested
		}
		lat := int64(200_000 + r.Intn(300_000))
		start := tick + lat
		if busyUntil > start {
			start = busyUntil + 30_000
		}
		dur := int64(1_000_000 + r.Intn(int(T/2)))
		if r.Intn(20) == 0 {
			dur += int64(r.Intn(int(4 * T)))
		}
		end := start + dur
		// Truth: the later of the tick at or before dispatch and the first tick ≥ previous Finished.
		iv := phase + lfFloorDiv(start-phase, T)*T
		if prevFrameEnd != 0 {
			if t := phase - lfFloorDiv(phase-prevFrameEnd, T)*T; t > iv {
				iv = t
			}
		}
		// Round the way the log will: the printer times are quantised.
		lm.msgs = append(lm.msgs, &source.Message{Pid: 1, Tid: 1, Handler: "android.view.Choreographer$FrameHandler",
			Callback: "android.view.Choreographer$FrameDisplayEventReceiver@1", StartNs: q(start), EndNs: q(end)})
		lm.truth = append(lm.truth, iv)
		prevFrameEnd = q(end)
		busyUntil = end
		// Idle stretches.
		if r.Intn(40) == 0 {
			k += int64(5 + r.Intn(60))
		}
	}
	return lm
}

// TestLooperFramesLearnsGrid: with T unknown and µs timestamps, the learned period is within
// 10 µs of the truth and every frame's vsync is within the dispatch latency of the true tick.
func TestLooperFramesLearnsGrid(t *testing.T) {
	for _, c := range []struct {
		name string
		T    int64
		usec bool
		tol  int64
	}{
		{"60Hz usec", 16_666_667, true, 600_000},
		{"120Hz usec", 8_333_333, true, 600_000},
		{"90Hz ms", 11_111_111, false, 1_100_000},
	} {
		t.Run(c.name, func(t *testing.T) {
			lm := buildLooperModel(42, c.T, 2000, c.usec)
			l := NewLooperFrames(0)
			var frames []source.Frame
			for _, m := range lm.msgs {
				frames = append(frames, l.Message(m)...)
			}
			frames = append(frames, l.Flush()...)
			if len(frames) != len(lm.truth) {
				t.Fatalf("%d frames, want %d", len(frames), len(lm.truth))
			}
			T, learned := l.IntervalNs(1, 1)
			if !learned || lfAbs(T-c.T) > 10_000 {
				t.Fatalf("T = %d (learned %v), want %d", T, learned, c.T)
			}
			// The learned grid sits on the earliest prompt dispatches, a little after the true
			// ticks (the dispatch latency). A previous frame that finished inside that sliver
			// makes the "first tick at or after" rule pick ticks one period apart: allowed for at
			// most 2 % of frames, and never more than one period.
			bad, edge := 0, 0
			for i, f := range frames {
				d := f.VsyncNs - lm.truth[i]
				tol := c.tol
				if i < 64 {
					tol *= 2 // warm-up: T is still being refined
				}
				if d >= -tol && d <= tol {
					continue
				}
				if lfAbs(d-c.T) <= tol || lfAbs(d+c.T) <= tol {
					edge++
					continue
				}
				bad++
				if bad < 5 {
					t.Errorf("frame %d: vsync %d, truth %d (%+.3f ms)", i, f.VsyncNs, lm.truth[i], float64(d)/1e6)
				}
			}
			for i, f := range frames {
				if i > 100 && lfAbs(f.IntervalNs-c.T) > 20_000 {
					t.Fatalf("frame %d interval %d, want %d", i, f.IntervalNs, c.T)
				}
			}
			if bad > 0 || edge*50 > len(frames) {
				t.Errorf("%d of %d frames off the true grid, %d one tick off", bad, len(frames), edge)
			}
		})
	}
}
