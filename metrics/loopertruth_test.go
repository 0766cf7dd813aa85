package metrics_test

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"sort"
	"testing"
	"time"

	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/source"
	"github.com/fpstop/fpstop/source/logcat"
	"github.com/fpstop/fpstop/source/sim"
)

// collect runs a source to its end.
func collect(t *testing.T, src source.Source) []source.Event {
	t.Helper()
	ch := make(chan []source.Event, 16)
	errc := make(chan error, 1)
	go func() { errc <- src.Run(context.Background(), ch); close(ch) }()
	var out []source.Event
	for b := range ch {
		out = append(out, b...)
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	return out
}

// TestLogcatTextAgainstTruth: the simulator's run rendered as logcat text, read back by the real
// parser, gives exactly the simulator's messages, and Looper-derived frames whose main-thread
// cost is within the text's time resolution of the truth for at least 99 % of frames. The
// truth's main-thread cost is Finished − Choreographer's frame time (Phases.Vsync: the intended
// vsync, snapped to the last tick when doFrame started a whole interval late — DESIGN §4's rule
// reconstructs exactly that from the log).
//
// The log carries no vsync timestamps: the grid's phase is learned from the Dispatching times of
// vsync messages that ran promptly, and a prompt message still starts one Looper wake-up after
// its tick (the simulator models 40–260 µs, as on devices). So the tolerance is the text's
// resolution plus that wake-up bound; within it, 99 % of frames must agree.
func TestLogcatTextAgainstTruth(t *testing.T) {
	const wakeUpNs = 260_000
	for _, c := range []struct {
		format sim.LogFormat
		resNs  int64
		hz     float64
		known  bool // the refresh rate is known (a device says it), else learned from the log
	}{
		{sim.FormatMonotonic, 1_000, 120, true},
		{sim.FormatMonotonic, 1_000, 60, false},
		{sim.FormatMonotonic, 1_000, 90, false},
		{sim.FormatThreadtime, 1_000_000, 60, true},
		{sim.FormatThreadtime, 1_000_000, 120, false},
	} {
		t.Run(fmt.Sprintf("%v-%gHz-known=%v", c.format, c.hz, c.known), func(t *testing.T) {
			s, err := sim.New(sim.Config{Scenario: "demo", Hz: c.hz, Seed: 21, Speed: 0, Duration: 60 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			evs := collect(t, s)
			var truthMsgs []*source.Message
			uiTruth := map[int64]int64{} // vsync message Finished → Choreographer frame time
			for _, ev := range evs {
				switch e := ev.(type) {
				case *source.Message:
					truthMsgs = append(truthMsgs, e)
				case *source.Frame:
					v := e.VsyncNs
					if e.Phases != nil && e.Phases.Vsync != 0 {
						v = e.Phases.Vsync
					}
					uiTruth[e.UIDoneNs] = v
				}
			}
			var text bytes.Buffer
			if err := sim.RenderLogcat(&text, evs, c.format, sim.LogcatOptions{NoisePerSecond: 30, NoiseSeed: 3}); err != nil {
				t.Fatal(err)
			}
			parsed := collect(t, logcat.FromReader(&text, logcat.Options{Name: "sim"}))

			// Messages: exact (handler, callback, what; times within the resolution).
			var got []*source.Message
			for _, ev := range parsed {
				if m, ok := ev.(*source.Message); ok {
					got = append(got, m)
				}
			}
			if len(got) != len(truthMsgs) {
				t.Fatalf("%d messages parsed, truth has %d", len(got), len(truthMsgs))
			}
			sort.SliceStable(got, func(i, j int) bool { return got[i].StartNs < got[j].StartNs })
			sort.SliceStable(truthMsgs, func(i, j int) bool { return truthMsgs[i].StartNs < truthMsgs[j].StartNs })
			for i, m := range got {
				w := truthMsgs[i]
				if m.Handler != w.Handler || m.Callback != w.Callback || m.What != w.What {
					t.Fatalf("message %d: %s %s %d, truth %s %s %d", i, m.Handler, m.Callback, m.What, w.Handler, w.Callback, w.What)
				}
			}

			// Frames through the pipeline's own Looper path.
			var T int64
			if c.known {
				T = int64(math.Round(1e9 / c.hz))
			}
			lf := metrics.NewLooperFrames(T)
			var frames []metrics.LooperFrame
			for _, m := range got {
				frames = append(frames, lf.Message(m)...)
			}
			frames = append(frames, lf.Flush()...)
			var vsyncEnds []int64 // truth Finished times of vsync messages, sorted
			for _, m := range truthMsgs {
				if m.IsVsync() {
					vsyncEnds = append(vsyncEnds, m.EndNs)
				}
			}
			sort.Slice(vsyncEnds, func(i, j int) bool { return vsyncEnds[i] < vsyncEnds[j] })
			if len(frames) != len(vsyncEnds) {
				t.Errorf("%d Looper-derived frames, truth has %d vsync messages", len(frames), len(vsyncEnds))
			}
			// threadtime prints wall-clock times: the text's clock is the truth's plus a constant
			base := got[0].StartNs - truthMsgs[0].StartNs
			within, total := 0, 0
			var errs []float64
			for _, f := range frames {
				end := f.UIDoneNs - base
				i := sort.Search(len(vsyncEnds), func(i int) bool { return vsyncEnds[i] > end+c.resNs })
				if i == 0 || end-vsyncEnds[i-1] > c.resNs {
					continue // no vsync message ended within the resolution
				}
				truthEnd := vsyncEnds[i-1]
				truthV, ok := uiTruth[truthEnd]
				if !ok {
					continue
				}
				total++
				e := float64((f.UIDoneNs - f.VsyncNs) - (truthEnd - truthV))
				errs = append(errs, e)
				if math.Abs(e) <= float64(c.resNs+wakeUpNs) {
					within++
				}
			}
			if total < len(frames)*95/100 {
				t.Fatalf("only %d of %d frames matched a truth frame", total, len(frames))
			}
			sort.Float64s(errs)
			share := float64(within) / float64(total)
			t.Logf("%d frames, %d matched; cost error p1 %.3f ms, median %.3f ms, p99 %.3f ms; %.2f %% within %.3f ms",
				len(frames), total, errs[len(errs)/100]/1e6, errs[len(errs)/2]/1e6, errs[len(errs)*99/100]/1e6,
				share*100, float64(c.resNs+wakeUpNs)/1e6)
			if share < 0.99 {
				t.Errorf("only %.2f %% of frames within the text's resolution (+ wake-up) of the truth", share*100)
			}

			// And the pipeline report: main-thread cost basis, every message, no invented numbers.
			p := metrics.NewPipeline(metrics.Config{})
			p.AddBatch(parsed)
			r := p.Report(metrics.ReportMeta{})
			if r.CostBasis != source.CostMainThread || r.Messages.Paired != int64(len(truthMsgs)) || r.Messages.Unpaired != 0 || r.Frames != int64(len(frames)) {
				t.Errorf("report: basis %q, messages %+v, frames %d (want %d)", r.CostBasis, r.Messages, r.Frames, len(frames))
			}
		})
	}
}
