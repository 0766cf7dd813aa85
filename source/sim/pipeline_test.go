package sim

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/fpstop/fpstop/source"
)

func TestBaseDeadline(t *testing.T) {
	for _, c := range []struct {
		hz   float64
		want int64
	}{{60, 20_000_000}, {90, 13_333_333}, {120, 8_333_333}, {144, 6_944_444}} {
		T := int64(1e9/c.hz + 0.5)
		if got := BaseDeadlineNs(T); got != c.want {
			t.Errorf("%g Hz: base deadline %d, want %d", c.hz, got, c.want)
		}
	}
}

// TestBackPressure: a GPU slower than the display (1.6 periods per frame) fills the three-buffer
// queue; the RenderThread then waits in dequeueBuffer for a buffer SurfaceFlinger has not
// released, the main thread waits in the sync for the RenderThread, and frames come out at the
// GPU's pace, never two on one vsync, each presented on its own refresh.
func TestBackPressure(t *testing.T) {
	s, err := New(Config{Scenario: "smooth", Hz: 120, Seed: 4, Duration: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	prof := *s.prof
	prof.gpu = 1.6
	s.prof = &prof
	batches, _ := collectSim(t, s)
	fs := frames(flatten(batches))
	T := s.IntervalNs()
	var deq, stall []int64
	for i, f := range fs {
		ph := f.Phases
		deq = append(deq, ph.DequeueBufferDuration)
		stall = append(stall, ph.SyncStart-ph.SyncQueued)
		if i > 0 {
			p := fs[i-1]
			if f.Phases.GpuCompleted-p.Phases.GpuCompleted < int64(1.6*float64(T))*8/10 || f.PresentNs-p.PresentNs < T*9/10 {
				t.Fatalf("frame %d: GPU done %d ns, presented %d ns after the previous one", i,
					f.Phases.GpuCompleted-p.Phases.GpuCompleted, f.PresentNs-p.PresentNs)
			}
		}
	}
	slices.Sort(deq)
	slices.Sort(stall)
	rate := float64(len(fs)) / 10
	t.Logf("%d frames (%.1f/s); median dequeue wait %.2f ms, median sync stall %.2f ms", len(fs), rate,
		float64(deq[len(deq)/2])/1e6, float64(stall[len(stall)/2])/1e6)
	if deq[len(deq)/2] < T/5 || stall[len(stall)/2] < T/5 {
		t.Errorf("no back-pressure: median dequeue wait %d ns, median sync stall %d ns", deq[len(deq)/2], stall[len(stall)/2])
	}
	if want := 120 / 1.6; rate < want*0.9 || rate > want*1.05 {
		t.Errorf("%.1f frames/s, want the GPU's pace %.1f", rate, want)
	}
}

// TestJankTrackerStuffing follows hwui's JankTracker::finishFrame by hand at 120 Hz (base
// deadline one period): a first frame of 11 ms misses its deadline (IntendedVsync + T); the
// next unstuffed start becomes the vsync after its GPU completion + one period, so the next
// frames are "triple buffered" and print IntendedVsync + 2T; a frame that misses even that
// moves the next unstuffed start again; after a pause the pipeline is unstuffed.
func TestJankTrackerStuffing(t *testing.T) {
	const T = 8_333_333
	e := &engine{T: T, baseNs: T, rng: rand.New(rand.NewPCG(1, 2))}
	w := &window{}
	v0 := int64(1_000_000_000)
	for i, c := range []struct {
		iv, start, gpu int64 // relative to v0
		want           int64 // printed deadline − v0, within the 30 µs jitter
	}{
		{0, 0, 11 * ms, T},                        // unstuffed, missed: next unstuffed = 2T
		{T, T, T + 11*ms, 3 * T},                  // stuffed: 2T + base
		{2 * T, 2 * T, 2*T + 12*ms, 4 * T},        // stuffed, hit: next unstuffed += T
		{3 * T, 3 * T, 3*T + 30*ms, 5 * T},        // stuffed, missed: next = 6T (the tick after its GPU) + T = 7T
		{4 * T, 6 * T, 6*T + 9*ms, 8 * T},         // started late on 6T, stuffed (next 7T): deadline 8T
		{100 * T, 100 * T, 100*T + 7*ms, 101 * T}, // after a pause: unstuffed, on time
		{101 * T, 101 * T, 101*T + 7*ms, 102 * T}, // still unstuffed
	} {
		f := &source.Frame{VsyncNs: v0 + c.iv, Phases: &source.Phases{GpuCompleted: v0 + c.gpu}}
		if c.start != c.iv {
			f.StartVsyncNs = v0 + c.start
		}
		e.jankTracker(w, f)
		if d := f.DeadlineNs - v0 - c.want; d < 0 || d >= 30*us {
			t.Errorf("frame %d: deadline %+.3f ms, want %+.3f ms", i, float64(f.DeadlineNs-v0)/1e6, float64(c.want)/1e6)
		}
	}
}
