package gfxinfo

import (
	"bytes"
	"context"
	"regexp"
	"testing"
	"time"

	"github.com/fpstop/fpstop/internal/testkit/simtext"
	"github.com/fpstop/fpstop/source"
	"github.com/fpstop/fpstop/source/sim"
)

// TestSimulatedLiveDumpsHaveNoWarnings polls the simulator's dump the way the e2e fake phone
// serves it (the simulator attaching and removing its windows, a popup shown and dismissed
// again and again) every 500 ms and feeds the tracker: undamaged dumps must give no damage
// warning. A popup's last frame completes after its window is removed; the fake dump once
// attached a phantom window for it, under a view-root id derived from the title, which the next
// popup took over, so the counter under that id went 28 → 1 and a live janky run at 120 Hz
// warned twice of a damaged window counter and twice of a deferred process counter (the first
// popup shown again came after ~20 s, so shorter runs did not see it).
func TestSimulatedLiveDumpsHaveNoWarnings(t *testing.T) {
	reRoot := regexp.MustCompile(`\tPopupWindow:\S+/android\.view\.ViewRootImpl@(\w+)`)
	for _, sc := range []string{"janky", "demo", "stress"} {
		for _, hz := range []float64{60, 120} {
			dumps := simLiveDumps(t, sc, hz, 40*time.Second, 500*time.Millisecond)
			popups := map[string]bool{}
			tr := newTracker(pkg, "")
			tr.live = true
			var evs []source.Event
			for _, d := range dumps {
				for _, m := range reRoot.FindAllSubmatch(d, -1) {
					popups[string(m[1])] = true
				}
				evs = tr.apply(evs, d)
			}
			evs = append(evs, tr.flush()...)
			frames := 0
			for _, e := range evs {
				switch e := e.(type) {
				case *source.Notice:
					if e.Level != source.LevelInfo {
						t.Errorf("%s %v Hz: %s at %.3f s", sc, hz, e.Text, float64(e.AtNs-sim.StartNs)/1e9)
					}
				case *source.Frame:
					frames++
				}
			}
			if frames < 500 {
				t.Errorf("%s %v Hz: %d frames", sc, hz, frames)
			}
			if sc == "janky" && hz == 120 && len(popups) < 2 {
				// The case the test is for: the popup shown a second time.
				t.Errorf("janky 120 Hz: %d popups shown, want 2 or more", len(popups))
			}
		}
	}
}

// simLiveDumps runs the simulator (scenario sc at hz, seed 7) for d of virtual time with its
// gfxinfo dump attached, as the fake phone does, and renders the dump every poll: the text a
// live session reads.
func simLiveDumps(t *testing.T, sc string, hz float64, d, poll time.Duration) [][]byte {
	t.Helper()
	s, err := sim.New(sim.Config{Scenario: sc, Hz: hz, Seed: 7, Speed: 0, Duration: d, Package: pkg})
	if err != nil {
		t.Fatal(err)
	}
	dump := simtext.NewGfxinfoDump(pkg, s.Config().Pid, 0)
	s.SetGfxinfo(dump)
	ch := make(chan []source.Event) // unbuffered: the simulator is at most one batch ahead
	errc := make(chan error, 1)
	go func() { errc <- s.Run(context.Background(), ch); close(ch) }()
	var dumps [][]byte
	next := sim.StartNs + int64(poll)
	for range ch {
		// The dump's time is the simulator's, as the fake phone prints it.
		now := s.Now()
		if now < next {
			continue
		}
		var b bytes.Buffer
		if err := dump.Render(&b, now, simtext.LayoutAndroid13); err != nil {
			t.Fatal(err)
		}
		dumps = append(dumps, b.Bytes())
		for next <= now {
			next += int64(poll)
		}
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if len(dumps) == 0 {
		t.Fatalf("%s %v Hz: no dumps", sc, hz)
	}
	return dumps
}
