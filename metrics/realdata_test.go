package metrics_test

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	"github.com/fpstop/fpstop/internal/testkit/realdata"
	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/source"
	"github.com/fpstop/fpstop/source/gfxinfo"
)

// captureEvents reads a real gfxinfo capture through the real parser and file source.
func captureEvents(t *testing.T, name string) []source.Event {
	t.Helper()
	path := filepath.Join(realdata.Dir(t, "gfxinfo"), name)
	out := make(chan []source.Event, 64)
	errc := make(chan error, 1)
	go func() { errc <- gfxinfo.FromFile(path).Run(context.Background(), out); close(out) }()
	var evs []source.Event
	for b := range out {
		evs = append(evs, b...)
	}
	if err := <-errc; err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return evs
}

func reportOf(t *testing.T, evs []source.Event) *metrics.Report {
	t.Helper()
	p := metrics.NewPipeline(metrics.Config{})
	p.AddBatch(evs)
	return p.Report(metrics.ReportMeta{Version: "test"})
}

// ruleWindow is DESIGN §4's `dropped`, worked out here from a window's own rows, independently
// of the pipeline: against the printed budget for a frame that started on its intended vsync,
// else against the most common on-time budget of all the window's rows (100 µs steps), else
// one period. The rows are kept (add) and counted once all are in (finish).
type ruleWindow struct {
	budgets map[int64]int
	rows    []*source.Frame
	frames  int
	slots   int64 // Σ (dropped + 1)
	slotNs  float64
	janky   int
}

func onTime(f *source.Frame) bool {
	printed := f.DeadlineNs - f.VsyncNs
	return printed > 0 && printed < 10e9 && f.Phases.Vsync-f.VsyncNs < f.IntervalNs/2
}

func (w *ruleWindow) add(f *source.Frame) {
	w.rows = append(w.rows, f)
	if onTime(f) {
		w.budgets[int64(math.Round(float64(f.DeadlineNs-f.VsyncNs)/1e5))]++
	}
}

func (w *ruleWindow) finish() {
	best, bestN := int64(0), 0
	for q, n := range w.budgets {
		if n > bestN || n == bestN && q < best {
			best, bestN = q, n
		}
	}
	for _, f := range w.rows {
		T := f.IntervalNs
		end := f.Phases.GpuCompleted
		if end == 0 {
			end = f.DoneNs
		}
		budget := best * 1e5
		switch {
		case onTime(f):
			budget = f.DeadlineNs - f.VsyncNs
		case bestN == 0:
			budget = T
		}
		d := int64(0)
		if over := end - f.VsyncNs - budget; over > 0 {
			d = int64(math.Ceil(float64(over) / float64(T)))
		}
		w.frames++
		w.slots += d + 1
		w.slotNs += float64((d + 1) * T)
		if d >= 1 {
			w.janky++
		}
	}
}

// TestRealCaptureScroll120Hz pins the frame-truth rule on the real Android 13, 120 Hz scroll
// (choi890). In the steady scroll each frame completes 9–13 ms after its intended vsync — more
// than one 8.31 ms period — but Android printed a FrameDeadline two periods (16.6 ms) after it
// (one base period + hwui's buffer-stuffing extension), so those frames were on time: 0 dropped.
// The late ones are the first frames after each pause:
//
//	row 28: started on time, printed budget 8.33 ms (not stuffed), GPU done at 77.22 ms
//	        → ⌈(77.22 − 8.33) / 8.313⌉ = ⌈8.29⌉ = 9 dropped
//	row 29: started 41.57 ms late (5 periods: the main thread was busy), so its printed budget
//	        is not its own; the window's usual on-time budget is 16.6 ms (100 µs steps);
//	        GPU done at 55.05 ms → ⌈(55.05 − 16.6) / 8.313⌉ = ⌈4.63⌉ = 5 dropped
//	rows 30/31, 71–74, 118/119 the same pattern: 8, 4, 9, 5, 8, 4, 8, 5
//
// Ten frames dropped 65 refreshes in all: Σ (dropped + 1) = 120 + 65 = 185 periods of
// ≈ 8.3118 ms, so fps = 120 / (185 × 8.3118 ms) = 78.0 — not 48 (the old one-period rule) and
// not 120 (the late first frames really cost refreshes). Android's own rule counts the same ten
// frames janky (GpuCompleted ≥ printed FrameDeadline).
func TestRealCaptureScroll120Hz(t *testing.T) {
	r := reportOf(t, captureEvents(t, "choi890-soundviz-android13plus-120hz-framestats-scroll.txt"))
	if r.Frames != 120 || r.JankyFrames != 10 || r.JankyDeadline == nil || *r.JankyDeadline != 10 {
		t.Fatalf("frames %d janky %d deadline %v; want 120, 10, 10", r.Frames, r.JankyFrames, r.JankyDeadline)
	}
	if r.FPS == nil || math.Abs(float64(*r.FPS)-78.0) > 0.05 {
		t.Errorf("fps %v, want 78.0", r.FPS)
	}
	// 120 Hz levels: NORMAL from 6 dropped, MIDDLE from 18: the five 8–9-drop frames are
	// NORMAL, the 4–5-drop ones BEST.
	want := metrics.DropLevels{Best: 115, Normal: 5}
	if r.DropLevels != want {
		t.Errorf("levels %+v, want %+v", r.DropLevels, want)
	}
	if len(r.Windows) != 1 || r.Windows[0].JankyLegacy == nil || r.Windows[0].JankyDeadline == nil {
		t.Fatalf("windows %+v", r.Windows)
	}
}

// TestRealCapturesFollowTheRule holds every window of the real Android 12+ captures against the
// rule worked out independently above (fps, janky) and against Android's own two rules: the
// deadline rule on the printed rows (GpuCompleted ≥ FrameDeadline; the stuffing extension is
// already printed) and, where the rows cover every frame Android counted, Android's printed
// legacy count.
func TestRealCapturesFollowTheRule(t *testing.T) {
	// Android's printed "Janky frames (legacy)" for the windows whose rows cover all their frames.
	printedLegacy := map[string]int64{
		"com.android.settings/com.android.settings.homepage.SettingsHomepageActivity": 14,
		"com.android.settings/com.android.settings.SubSettings":                       10,
		"InputMethod": 14,
		"com.google.android.apps.docs/com.google.android.apps.docs.drive.app.navigation.NavigationActivity": 30,
		"ScreenDecorOverlay": 4,
	}
	for _, name := range []string{
		"choi890-soundviz-android13plus-120hz-framestats-scroll.txt",
		"choi890-soundviz-android13plus-120hz-framestats-stay.txt",
		"anavmode-topicon-t865-android13plus-framestats-allprocs.txt",
	} {
		t.Run(name, func(t *testing.T) {
			evs := captureEvents(t, name)
			rule := map[string]*ruleWindow{}
			deadline := map[string]int64{}
			for _, ev := range evs {
				f, ok := ev.(*source.Frame)
				if !ok || f.Flags&source.FlagSkippedFrame != 0 {
					continue
				}
				w := rule[f.Window]
				if w == nil {
					w = &ruleWindow{budgets: map[int64]int{}}
					rule[f.Window] = w
				}
				w.add(f)
				if f.Flags&source.FlagSurfaceCanvas == 0 && f.Phases.GpuCompleted >= f.DeadlineNs {
					deadline[f.Window]++
				}
			}
			for _, w := range rule {
				w.finish()
			}
			r := reportOf(t, evs)
			seenLegacy := 0
			for _, wr := range r.Windows {
				w := rule[wr.Name]
				if w == nil {
					if wr.Frames != 0 {
						t.Errorf("%s: %d frames the rule never saw", wr.Name, wr.Frames)
					}
					continue
				}
				wantFPS := float64(w.frames) * 1e9 / w.slotNs
				if wr.Frames != int64(w.frames) || wr.JankyFrames != int64(w.janky) ||
					wr.FPS == nil || math.Abs(float64(*wr.FPS)-wantFPS) > 0.01 {
					t.Errorf("%s: frames %d janky %d fps %v; the rule gives %d, %d, %.2f",
						wr.Name, wr.Frames, wr.JankyFrames, wr.FPS, w.frames, w.janky, wantFPS)
				}
				if wr.JankyDeadline == nil || *wr.JankyDeadline != deadline[wr.Name] {
					t.Errorf("%s: janky_deadline %v, Android's rule on the rows gives %d", wr.Name, wr.JankyDeadline, deadline[wr.Name])
				}
				if want, ok := printedLegacy[wr.Name]; ok {
					seenLegacy++
					if wr.JankyLegacy == nil || *wr.JankyLegacy != want {
						t.Errorf("%s: janky_legacy %v, Android printed %d", wr.Name, wr.JankyLegacy, want)
					}
				}
				if wr.JankyLegacy == nil || len(wr.HistogramMs) == 0 || wr.PercentilesMs == nil {
					t.Errorf("%s: janky_legacy, histogram_ms and percentiles_ms must be filled", wr.Name)
				}
			}
			if name[:4] == "anav" && seenLegacy != len(printedLegacy) {
				t.Errorf("checked %d windows against Android's printed legacy count, want %d", seenLegacy, len(printedLegacy))
			}
			if r.JankyLegacy == nil || r.JankyDeadline == nil {
				t.Errorf("run-level janky_legacy/janky_deadline missing")
			}
		})
	}
}
