// Package eventgen makes deterministic event streams for the tests of recordings and of what
// reads them (record, report, report/trace): every event type a source sends, at a chosen
// refresh rate and length. It is a test harness: no product package imports it.
package eventgen

import (
	"math/rand"
	"time"

	"github.com/fpstop/fpstop/source"
)

// Batches makes a deterministic session of every event type: frames of two windows at hz
// (with phases, janks and a freeze), a vsync message per frame plus app messages, Skipped and
// Slow Looper lines, polls, an Android summary, a refresh change, ticks, a gap and notices.
// Batches are what a source would send (one per ~100 ms of device time).
func Batches(seed int64, hz float64, dur time.Duration) [][]source.Event {
	var batches [][]source.Event
	Stream(seed, hz, dur, true, func(b []source.Event) { batches = append(batches, b) })
	return batches
}

// Stream is Batches handing each batch to emit as it is made (idle: whether the session
// has its idle stretches).
func Stream(seed int64, hz float64, dur time.Duration, idle bool, emit func([]source.Event)) {
	rng := rand.New(rand.NewSource(seed))
	T := int64(1e9 / hz)
	t0 := int64(5_000_000_000_000) // device monotonic ~83 min after boot
	end := t0 + int64(dur)
	batch := []source.Event{&source.Session{Source: source.KindSim, Package: "com.example.app",
		RefreshHz: hz, CostBasis: source.CostFrame, StartMonoNs: t0, Scenario: "demo", Seed: seed,
		Device: source.Device{Serial: "emulator-5554", Model: "sdk_gphone64", Android: "14", SDK: 34}},
		&source.Refresh{AtNs: t0, Hz: hz}}
	flush := func() {
		if len(batch) > 0 {
			emit(batch)
			batch = nil
		}
	}
	windows := []string{"com.example.app/com.example.app.MainActivity", "PopupWindow:3f2a1b"}
	what := 159
	nextBatch := t0 + 100e6
	for v := t0; v < end; v += T {
		if v >= nextBatch {
			batch = append(batch, &source.Tick{NowNs: v})
			flush()
			nextBatch += 100e6
		}
		// Idle stretches: no frames for 2 s every 20 s.
		if idle && (v-t0)%(20e9) > 18e9 {
			continue
		}
		cost := T/2 + rng.Int63n(T/2)
		switch r := rng.Intn(1000); {
		case r < 30:
			cost = T + rng.Int63n(3*T)
		case r < 33:
			cost = 10*T + rng.Int63n(30*T)
		case r == 999:
			cost = 80 * T
		}
		w := windows[0]
		if rng.Intn(20) == 0 {
			w = windows[1]
		}
		ui := cost * 2 / 5
		f := &source.Frame{Window: w, Process: "com.example.app", VsyncNs: v, DoneNs: v + cost,
			UIDoneNs: v + ui, IntervalNs: T, DeadlineNs: v + 2*T, VsyncID: (v - t0) / T}
		if rng.Intn(50) == 0 {
			f.Flags = source.FlagWindowLayoutChanged
		}
		f.Phases = &source.Phases{Vsync: v + 1000, HandleInputStart: v + 50_000, AnimationStart: v + 100_000,
			PerformTraversalsStart: v + 200_000, DrawStart: v + ui/2, SyncQueued: v + ui - 10_000,
			SyncStart: v + ui, IssueDrawCommandsStart: v + ui + 100_000, SwapBuffers: v + cost - 300_000,
			FrameCompleted: v + cost, DequeueBufferDuration: 20_000, QueueBufferDuration: 30_000,
			GpuCompleted: v + cost - 100_000}
		batch = append(batch,
			&source.Message{Pid: 4242, Tid: 4242, Thread: "main", Handler: "android.view.Choreographer$FrameHandler",
				Callback: "android.view.Choreographer$FrameDisplayEventReceiver", What: 0, StartNs: v + 20_000, EndNs: v + ui},
			f)
		if rng.Intn(4) == 0 {
			s := v + ui + 100_000
			d := int64(200_000 + rng.Intn(3_000_000))
			if rng.Intn(40) == 0 {
				d = int64(20e6 + rng.Intn(300e6))
			}
			batch = append(batch, &source.Message{Pid: 4242, Tid: 4242, Thread: "main",
				Handler: "android.app.ActivityThread$H", Callback: "null", What: 159, StartNs: s, EndNs: s + d})
		}
		if cost > 10*T {
			batch = append(batch, &source.Skipped{AtNs: v + cost, Pid: 4242, Frames: int(cost / T)},
				&source.SlowLooper{AtNs: v + cost, Kind: "dispatch", Ms: cost / 1e6, Thread: "main",
					Handler: "android.app.ActivityThread$H", Callback: "null", What: &what})
		}
		if rng.Intn(2000) == 0 {
			batch = append(batch, &source.UnpairedLine{AtNs: v, Tid: 4242, Reason: "finished without dispatching"})
		}
		if (v-t0)%int64(time.Second) < T {
			total := (v - t0) / T
			batch = append(batch, &source.Poll{AtNs: v, Window: windows[0], Pid: 4242, TotalFrames: total,
				Rows: 120, NewRows: int(hz), FirstRowVsyncNs: v - 120*T})
		}
	}
	n, p50 := int64(1234), 7.5
	batch = append(batch,
		&source.Gap{FromNs: end - 1e9, ToNs: end - 5e8, Reason: "device disconnected"},
		&source.Notice{AtNs: end - 5e8, Level: source.LevelInfo, State: source.StateLive, Text: "reconnected"},
		&source.AndroidSummary{AtNs: end, Window: windows[0], Process: "com.example.app", Pid: 4242,
			TotalFrames: &n, JankyFrames: &n, P50Ms: &p50, Histogram: []source.Bucket{{Ms: 5, Count: 3}, {Ms: 6, Count: 9}}},
		&source.Tick{NowNs: end})
	flush()
}

// Flatten joins batches into one slice of events.
func Flatten(b [][]source.Event) []source.Event {
	var out []source.Event
	for _, x := range b {
		out = append(out, x...)
	}
	return out
}
