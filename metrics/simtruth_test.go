package metrics_test

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/fpstop/fpstop/internal/testkit/reference"
	"github.com/fpstop/fpstop/internal/testkit/simtext"
	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/source"
	"github.com/fpstop/fpstop/source/sim"
)

// simCase is one simulator run of the truth tests.
type simCase struct {
	scenario string
	hz       float64
	pre12    bool
	layout   simtext.Layout // the gfxinfo text the rows are rendered in
}

func (c simCase) String() string {
	s := fmt.Sprintf("%s-%gHz", c.scenario, c.hz)
	if c.pre12 {
		s += "-pre12-" + c.layout.String()
	}
	return s
}

// simCases: every scenario at 60/90/120/144 Hz as Android 12+ (Android 13's text), and every
// scenario at 60 and 120 Hz as Android ≤ 11 (no deadlines), whose text takes each older layout
// in turn.
func simCases() []simCase {
	var cs []simCase
	old := simtext.Layouts[1:]
	if testing.Short() {
		// -short: every scenario once and every rate at least once (rotating), one pre-12 run
		// (the full matrix, every older layout included, runs in the full suite).
		rates := []float64{60, 90, 120, 144}
		for i, sc := range sim.Scenarios {
			cs = append(cs, simCase{sc, rates[i%len(rates)], false, simtext.LayoutAndroid13})
		}
		return append(cs, simCase{sim.Scenarios[0], 60, true, old[0]})
	}
	for _, sc := range sim.Scenarios {
		for _, hz := range []float64{60, 90, 120, 144} {
			cs = append(cs, simCase{sc, hz, false, simtext.LayoutAndroid13})
		}
		for _, hz := range []float64{60, 120} {
			cs = append(cs, simCase{sc, hz, true, old[len(cs)%len(old)]})
		}
	}
	return cs
}

// simDuration is how much virtual time each truth test simulates (less under -short, which
// must stay quick on a shared machine).
func simDuration(full time.Duration) time.Duration {
	if testing.Short() {
		return full / 3
	}
	return full
}

// runSim runs c for d of virtual time, handing every batch to each, and returns the truth.
func runSim(t *testing.T, c simCase, d time.Duration, dump *simtext.GfxinfoDump, each func([]source.Event)) *bytes.Buffer {
	t.Helper()
	s, err := sim.New(sim.Config{Scenario: c.scenario, Hz: c.hz, Seed: 7, Speed: 0, Duration: d, Pre12: c.pre12})
	if err != nil {
		t.Fatal(err)
	}
	var truth bytes.Buffer
	s.SetTruth(&truth)
	if dump != nil {
		s.SetGfxinfo(dump)
	}
	ch := make(chan []source.Event) // unbuffered: the simulator is at most one batch ahead
	errc := make(chan error, 1)
	go func() { errc <- s.Run(context.Background(), ch); close(ch) }()
	for b := range ch {
		each(b)
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	return &truth
}

// checkAgainst holds a report against the reference numbers: frames, janky and drop levels
// exactly, fps to 0.5 %, and with deadlineRule Android's deadline jank exactly.
func checkAgainst(t *testing.T, r *metrics.Report, ref reference.Numbers, deadlineRule bool) {
	t.Helper()
	if ref.Frames == 0 {
		t.Fatalf("scenario produced no frames")
	}
	if r.Frames != ref.Frames || r.JankyFrames != ref.Janky {
		t.Errorf("frames %d janky %d; truth says %d and %d", r.Frames, r.JankyFrames, ref.Frames, ref.Janky)
	}
	got := [5]int64{r.DropLevels.Best, r.DropLevels.Normal, r.DropLevels.Middle, r.DropLevels.High, r.DropLevels.Frozen}
	if got != ref.Levels {
		t.Errorf("drop levels %v; truth says %v", got, ref.Levels)
	}
	if r.FPS == nil || math.Abs(float64(*r.FPS)-ref.FPS) > 0.005*ref.FPS {
		t.Errorf("fps %v; truth says %.4f", r.FPS, ref.FPS)
	}
	if ref.Deadlines > 0 && deadlineRule {
		if r.JankyDeadline == nil {
			t.Errorf("janky_deadline null; Android's rule on the printed rows says %d", ref.JankyDeadline)
		} else if *r.JankyDeadline != ref.JankyDeadline {
			t.Errorf("janky_deadline %d; Android's rule on the printed rows says %d", *r.JankyDeadline, ref.JankyDeadline)
		}
	}
	for _, w := range r.Windows {
		if ref.Windows[w.Name] != w.Frames {
			t.Errorf("window %s: %d frames; truth says %d", w.Name, w.Frames, ref.Windows[w.Name])
		}
	}
	if len(r.Windows) != len(ref.Windows) {
		t.Errorf("%d windows; truth has %d", len(r.Windows), len(ref.Windows))
	}
}

// TestPipelineEqualsTruth runs every scenario through the pipeline, directly from the
// simulator's events, and holds the results against the reference implementation computed
// from the truth file.
func TestPipelineEqualsTruth(t *testing.T) {
	for _, c := range simCases() {
		t.Run(c.String(), func(t *testing.T) {
			p := metrics.NewPipeline(metrics.Config{})
			truth := runSim(t, c, simDuration(45*time.Second), nil, p.AddBatch)
			ref, err := reference.FromTruth(truth, false)
			if err != nil {
				t.Fatal(err)
			}
			r := p.Report(metrics.ReportMeta{})
			checkAgainst(t, r, ref, true)
			if r.Messages.Paired != ref.Messages {
				t.Errorf("%d messages; truth has %d", r.Messages.Paired, ref.Messages)
			}
		})
	}
}

// TestSmooth120 is DESIGN §5's promise for the smooth scenario at 120 Hz: a steady pipelined
// scroll whose frames take 9–13 ms (more than the 8.33 ms period) is reported at full rate with
// no janky frame, directly and through the rendered gfxinfo text.
func TestSmooth120(t *testing.T) {
	c := simCase{"smooth", 120, false, simtext.LayoutAndroid13}
	p := metrics.NewPipeline(metrics.Config{})
	rows := newRowCollector(t, c)
	runSim(t, c, simDuration(30*time.Second), rows.dump, func(b []source.Event) {
		p.AddBatch(b)
		rows.poll()
	})
	for name, r := range map[string]*metrics.Report{"events": p.Report(metrics.ReportMeta{}), "gfxinfo text": rows.report()} {
		if r.FPS == nil || *r.FPS < 119.5 || r.JankyFrames != 0 || r.Frames < 1000 {
			t.Errorf("%s: %d frames, fps %v, %d janky; want ≥ 119.5 fps and none janky", name, r.Frames, r.FPS, r.JankyFrames)
		}
	}
}
