package metrics

import (
	"math/rand"
	"slices"
	"testing"

	"github.com/fpstop/fpstop/source"
)

// alignFakeDevice renders bursts of frames on a 60 Hz grid (scrolls with dropped vsyncs, idle
// gaps). For each frame it yields the gfxinfo frame (HandleInputStart = vsync + latency on the
// device clock) and the logcat vsync message, whose Dispatching time is 50 µs before
// HandleInputStart on the device clock, then shifted by the logcat clock's offset and truncated
// to the log's resolution.
type alignFakeDevice struct {
	r      *rand.Rand
	T      int64
	k      int64
	resNs  int64
	offset func(devNs int64) int64 // logcat − device at device time t
	// smooth: a steady scroll, as the simulator draws it — a dropped vsync one frame in 100,
	// idle one in 300, and HandleInputStart a fixed 500 µs after its vsync
	smooth bool
}

func (d *alignFakeDevice) next() (source.Frame, *source.Message) {
	d.k++
	drop, idle := 8, 90
	if d.smooth {
		drop, idle = 100, 300
	}
	if d.r.Intn(drop) == 0 {
		d.k += 1 + int64(d.r.Intn(2)) // a dropped vsync or two
	}
	if d.r.Intn(idle) == 0 {
		d.k += int64(20 + d.r.Intn(60)) // idle
	}
	vsync := 1_000_000_000_000 + d.k*d.T
	his := vsync + 500_000
	if !d.smooth {
		his = vsync + int64(200_000+d.r.Intn(1_500_000))
	}
	f := source.Frame{Window: "w", VsyncNs: vsync, Phases: &source.Phases{HandleInputStart: his}}
	dispatch := his - 50_000 + d.offset(his)
	dispatch = dispatch / d.resNs * d.resNs
	m := &source.Message{Pid: 1, Tid: 1, Handler: "android.view.Choreographer$FrameHandler",
		Callback: "android.view.Choreographer$FrameDisplayEventReceiver@1", StartNs: dispatch, EndNs: dispatch + 3_000_000}
	return f, m
}

// alignFeed runs n frames the way the pipeline sees them: logcat messages at once, gfxinfo frames
// in polls of ~1 s that lag behind; it returns the offset estimates after each poll.
func alignFeed(a *ClockAligner, d *alignFakeDevice, n int, check func(i int, off int64, ok bool)) {
	var pendingFrames []source.Frame
	for i := 0; i < n; i++ {
		f, m := d.next()
		a.ObserveMessage(m)
		pendingFrames = append(pendingFrames, f)
		if len(pendingFrames) == 60 {
			for j := range pendingFrames {
				a.ObserveFrame(&pendingFrames[j])
			}
			pendingFrames = pendingFrames[:0]
			off, ok := a.Offset()
			check(i, off, ok)
		}
	}
}

func TestClockAlignerFindsOffsetAndStep(t *testing.T) {
	for _, res := range []int64{1_000, 1_000_000} { // -v usec, and millisecond threadtime
		stepped := false
		d := &alignFakeDevice{r: rand.New(rand.NewSource(7)), T: 16_666_667, resNs: res, offset: func(t int64) int64 {
			if !stepped {
				return 37_500_000
			}
			return -12_300_000
		}}
		a := NewClockAligner()
		// Expected estimate: the offset minus the 50 µs between Dispatching and HandleInputStart
		// (and minus up to the resolution: the log truncates).
		within := func(off, want int64) bool { return lfAbs(off-want) <= 1_000_000 }
		if _, ok := a.Offset(); ok {
			t.Fatal("ok before any data")
		}
		firstOK := -1
		alignFeed(a, d, 6000, func(i int, off int64, ok bool) {
			if ok && firstOK < 0 {
				firstOK = i
			}
			if ok && !within(off, 37_500_000-50_000) {
				t.Errorf("res %d: frame %d: offset %d, want 37.5 ms ± 1 ms", res, i, off)
			}
		})
		if firstOK < 0 || firstOK > 600 {
			t.Fatalf("res %d: offset not found within 600 frames (first ok at %d)", res, firstOK)
		}
		// After the step (−49.8 ms: nearly three frames) the estimate must move to the new
		// offset within 600 frames.
		stepped = true
		last := int64(0)
		alignFeed(a, d, 3000, func(i int, off int64, ok bool) {
			if !ok {
				t.Errorf("res %d: lost the estimate after the step", res)
			}
			if i >= 600 && !within(off, -12_300_000-50_000) {
				t.Errorf("res %d: %d frames after the step: offset %d, want −12.3 ms ± 1 ms", res, i, off)
			}
			last = off
		})
		if !within(last, -12_350_000) {
			t.Errorf("res %d: final offset %d", res, last)
		}
	}
}

// TestClockAlignerSteadyScroll: every vsync lies on one grid, so in a steady scroll every
// message − frame difference is the offset plus a whole number of frames, and the last second of
// messages matches the offset one frame (or fifty) off as well as the right one. The pipeline
// asks for the offset on every message, while the frames come in polls a second behind. The
// offset must still be found, within 10 s, and never a wrong one: a gfxinfo+logcat run whose
// aligner stayed undecided for its 30 s attributed none of its worst frames.
func TestClockAlignerSteadyScroll(t *testing.T) {
	for seed := int64(1); seed <= 20; seed++ {
		d := &alignFakeDevice{r: rand.New(rand.NewSource(seed)), T: 16_666_667, resNs: 1_000, smooth: true,
			offset: func(int64) int64 { return 37_500_000 }}
		a := NewClockAligner()
		var pending []source.Frame
		firstOK := -1
		for i := 0; i < 1800; i++ {
			f, m := d.next()
			a.ObserveMessage(m)
			if off, ok := a.Offset(); ok {
				if firstOK < 0 {
					firstOK = i
				}
				if lfAbs(off-(37_500_000-50_000)) > 1_000_000 {
					t.Fatalf("seed %d, frame %d: offset %.2f ms, want 37.45 ms", seed, i, float64(off)/1e6)
				}
			}
			pending = append(pending, f)
			if len(pending) == 60 {
				for j := range pending {
					a.ObserveFrame(&pending[j])
				}
				pending = pending[:0]
			}
		}
		if firstOK < 0 || firstOK > 600 {
			t.Errorf("seed %d: offset not found within 600 frames (first at %d)", seed, firstOK)
		}
	}
}

// TestClockAlignerAmbiguous: a perfectly periodic stream, with no gap or drop, cannot tell an
// offset from the same offset ± one frame: ok stays false.
func TestClockAlignerAmbiguous(t *testing.T) {
	a := NewClockAligner()
	T := int64(16_666_667)
	for k := int64(0); k < 600; k++ {
		v := 5_000_000_000 + k*T
		f := source.Frame{VsyncNs: v, Phases: &source.Phases{HandleInputStart: v + 500_000}}
		a.ObserveFrame(&f)
		a.ObserveMessage(&source.Message{Handler: "android.view.Choreographer$FrameHandler", StartNs: v + 450_000 + 3*T + 2_000_000})
		if _, ok := a.Offset(); ok {
			t.Fatalf("frame %d: ok on an ambiguous stream", k)
		}
	}
}

// TestClockAlignerIgnores: non-vsync and untimed messages, skipped frames.
func TestClockAlignerIgnores(t *testing.T) {
	a := NewClockAligner()
	a.ObserveMessage(&source.Message{Handler: "android.os.Handler", StartNs: 5})
	a.ObserveMessage(&source.Message{Handler: "android.view.Choreographer$FrameHandler"})
	a.ObserveFrame(&source.Frame{VsyncNs: 9, Flags: source.FlagSkippedFrame})
	if len(a.msgs) != 0 || len(a.frames) != 0 {
		t.Fatalf("kept %d messages, %d frames", len(a.msgs), len(a.frames))
	}
}

// TestClockAlignerCandidatesInOrder: the merged runs are every message − frame difference in
// ascending order, as a sort of all of them gives, for rings of any length.
func TestClockAlignerCandidatesInOrder(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	for _, sizes := range [][2]int{{1, 1}, {3, 5}, {64, 512}, {100, 37}, {17, 512}} {
		a := NewClockAligner()
		for i := 0; i < sizes[0]; i++ {
			a.ObserveMessage(&source.Message{Handler: "android.view.Choreographer$FrameHandler", StartNs: 1 + r.Int63n(1e10)})
		}
		for i := 0; i < sizes[1]; i++ {
			a.ObserveFrame(&source.Frame{VsyncNs: 1 + r.Int63n(1e10)})
		}
		var want []int64
		msgs := a.msgs[max(0, len(a.msgs)-alignSearchMsg):]
		for _, m := range msgs {
			for _, f := range a.frames {
				want = append(want, m-f)
			}
		}
		slices.Sort(want)
		for round := 0; round < 2; round++ { // the second time on the kept scratch
			if got := a.candidates(); !slices.Equal(got, want) {
				t.Fatalf("%v, round %d: %d candidates not in order (want %d)", sizes, round, len(got), len(want))
			}
		}
	}
}
