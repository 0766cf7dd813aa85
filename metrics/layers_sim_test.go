package metrics

import (
	"bytes"
	"context"
	"math"
	"testing"
	"time"

	"github.com/fpstop/fpstop/source"
	"github.com/fpstop/fpstop/source/sim"
)

// runScenario runs a simulator scenario in virtual time into a pipeline and returns it with
// the truth's layer frames.
func runScenario(t *testing.T, scenario string, hz float64, d time.Duration) (*Pipeline, []*source.LayerFrame) {
	t.Helper()
	s, err := sim.New(sim.Config{Scenario: scenario, Hz: hz, Seed: 7, Duration: d})
	if err != nil {
		t.Fatal(err)
	}
	var truth bytes.Buffer
	s.SetTruth(&truth)
	out := make(chan []source.Event, 16)
	errc := make(chan error, 1)
	go func() { errc <- s.Run(context.Background(), out); close(out) }()
	p := NewPipeline(Config{})
	for b := range out {
		p.AddBatch(b)
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	var frames []*source.LayerFrame
	for _, line := range bytes.Split(truth.Bytes(), []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		_, ev, err := source.ParseLine(line)
		if err != nil {
			t.Fatal(err)
		}
		if f, ok := ev.(*source.LayerFrame); ok {
			frames = append(frames, f)
		}
	}
	return p, frames
}

// The game scenario at 120 Hz through the pipeline: every frame counted, janky exactly where
// the truth says a frame came late (stutter, the loading freeze), 60 fps in the steady phase.
func TestLayerSimGameTruth(t *testing.T) {
	for _, hz := range []float64{60, 120} {
		p, truth := runScenario(t, "game", hz, 65*time.Second)
		r := p.Report(ReportMeta{})
		var janky, frozen int64
		for _, f := range truth {
			if f.Dropped >= 1 {
				janky++
			}
			if f.Dropped >= Thresholds(DefaultDropLevels, 60)[3] { // the game's pace: 60
				frozen++
			}
		}
		if len(r.Layers) != 1 || r.Source != "sim" {
			t.Fatalf("%v Hz: layers %+v source %s", hz, r.Layers, r.Source)
		}
		l := r.Layers[0]
		if l.Frames != int64(len(truth)) || l.JankyFrames != janky || l.DropLevels.Frozen != frozen || frozen != 2 {
			t.Errorf("%v Hz: frames %d janky %d frozen %d; truth %d, %d, %d (2 freezes)", hz, l.Frames, l.JankyFrames, l.DropLevels.Frozen, len(truth), janky, frozen)
		}
		if janky < 20 {
			t.Errorf("%v Hz: only %d janky frames in the truth: no stutter phase?", hz, janky)
		}
		if l.CadenceRefreshes != int64(hz/60) || r.Frames != l.Frames || r.JankyFrames != l.JankyFrames {
			t.Errorf("%v Hz: cadence %d; run frames %d janky %d", hz, l.CadenceRefreshes, r.Frames, r.JankyFrames)
		}
	}
}

// The steady phase alone: 60 fps and nothing janky.
func TestLayerSimGameSteady(t *testing.T) {
	p, truth := runScenario(t, "game", 120, time.Duration(sim.GameSteadyEndNs))
	l := p.Report(ReportMeta{}).Layers[0]
	if l.JankyFrames != 0 || math.Abs(float64(*l.FPS)-60) > 0.01 || l.Frames != int64(len(truth)) {
		t.Errorf("steady: frames %d (truth %d) janky %d fps %v", l.Frames, len(truth), l.JankyFrames, *l.FPS)
	}
	if *l.FPSP90 < 59 || *l.FPSStabilityPct != 100 || *l.P90FPS != *l.FPSP90 {
		t.Errorf("fps_p90 %v (alias %v) stability %v", *l.FPSP90, *l.P90FPS, *l.FPSStabilityPct)
	}
}

// Flutter-like at 120 Hz: full rate, cadence 1, its 6 s pause idle rather than frozen.
func TestLayerSimFlutter(t *testing.T) {
	p, truth := runScenario(t, "flutter", 120, 45*time.Second)
	r := p.Report(ReportMeta{})
	l := r.Layers[0]
	var janky int64
	for _, f := range truth {
		if f.Dropped >= 1 {
			janky++
		}
	}
	if l.CadenceRefreshes != 1 || l.JankyFrames != janky || l.DropLevels.Frozen != 0 {
		t.Errorf("cadence %d janky %d (truth %d) frozen %d", l.CadenceRefreshes, l.JankyFrames, janky, l.DropLevels.Frozen)
	}
	if *l.FPS < 115 || float64(r.IdleS) < 8 {
		t.Errorf("fps %v idle %v s", *l.FPS, r.IdleS)
	}
}
