package metrics_test

import (
	"bytes"
	"math"
	"testing"
	"time"

	"github.com/fpstop/fpstop/internal/testkit"
	"github.com/fpstop/fpstop/internal/testkit/simtext"
	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/source"
	"github.com/fpstop/fpstop/source/perfetto"
	"github.com/fpstop/fpstop/source/sim"
)

// simTrace runs the simulator and returns its events and the Perfetto trace a phone would have
// recorded of the same run.
func simTrace(t *testing.T, scenario string, hz float64, d time.Duration, o simtext.TraceOptions) ([]source.Event, []byte, simtext.TraceFacts) {
	t.Helper()
	evs := testkit.SimEvents(t, sim.Config{Scenario: scenario, Hz: hz, Seed: 32, Speed: 0, Duration: d})
	var buf bytes.Buffer
	facts, err := simtext.RenderTrace(&buf, evs, o)
	if err != nil {
		t.Fatal(err)
	}
	return evs, buf.Bytes(), facts
}

func reportOfEvents(evs []source.Event) *metrics.Report {
	p := metrics.NewPipeline(metrics.Config{})
	p.AddBatch(evs)
	return p.Report(metrics.ReportMeta{})
}

// TestSimTraceAgreesWithGfxinfo (issue 32): the fake phone's run written as a Perfetto trace
// (FrameTimeline + atrace, packets out of time order, BOOTTIME clock) gives the same frames,
// fps, janky count and drop levels as its gfxinfo rows; blame names exactly the frames the fake
// made late (app) and those it made SurfaceFlinger miss; the janky frames list the work that
// made them late.
func TestSimTraceAgreesWithGfxinfo(t *testing.T) {
	for _, c := range []struct {
		scenario string
		hz       float64
	}{{"janky", 60}, {"demo", 120}} {
		evs, trace, facts := simTrace(t, c.scenario, c.hz, 20*time.Second, simtext.TraceOptions{SFJankEvery: 25, BootOffsetNs: 7_000_000_000})
		rows := []source.Event{&source.Session{Source: source.KindGfxinfo, RefreshHz: c.hz, CostBasis: source.CostFrame}}
		var frames []source.Event
		for _, e := range evs {
			if _, ok := e.(*source.Frame); ok {
				frames = append(frames, e)
			}
		}
		want := reportOfEvents(append(rows, frames...))
		got := reportOfEvents(collect(t, perfetto.FromReader(bytes.NewReader(trace), perfetto.Options{Name: "sim"})))
		if got.Frames != want.Frames || got.JankyFrames != want.JankyFrames || got.DropLevels != want.DropLevels {
			t.Errorf("%s: trace frames %d janky %d levels %+v; gfxinfo frames %d janky %d levels %+v", c.scenario,
				got.Frames, got.JankyFrames, got.DropLevels, want.Frames, want.JankyFrames, want.DropLevels)
		}
		if got.FPS == nil || want.FPS == nil || math.Abs(float64(*got.FPS-*want.FPS)) >= 0.005 {
			t.Errorf("%s: fps %v, gfxinfo %v (refresh %v / %v)", c.scenario, *got.FPS, *want.FPS, *got.RefreshHz, *want.RefreshHz)
		}
		var app, sf int64
		for _, w := range got.Windows {
			if w.Blame != nil {
				app += w.Blame.App
				sf += w.Blame.SurfaceFlinger
			}
		}
		if app != int64(facts.AppJank) || sf != int64(facts.SFJank) || facts.SFJank == 0 || facts.AppJank == 0 {
			t.Errorf("%s: blame app %d surfaceflinger %d, injected %d and %d", c.scenario, app, sf, facts.AppJank, facts.SFJank)
		}
		listed := 0
		for _, wf := range got.WorstFrames {
			if wf.Dropped == 0 {
				continue
			}
			if len(wf.Sections) == 0 {
				t.Errorf("%s: janky frame at %.2f ms (%d dropped) lists no sections", c.scenario, wf.StartMs, wf.Dropped)
				continue
			}
			listed++
			if slow := float64(wf.Sections[0].Ms); wf.Dropped >= 2 && slow < 1000/c.hz {
				// the work that made the frame miss two refreshes is longer than one
				t.Errorf("%s: frame at %.2f ms dropped %d, slowest section %.2f ms", c.scenario, wf.StartMs, wf.Dropped, slow)
			}
			t.Logf("%s: %.1f ms frame: %+v", c.scenario, wf.CostMs, wf.Sections[:min(3, len(wf.Sections))])
		}
		if listed == 0 {
			t.Errorf("%s: no janky frame with its sections", c.scenario)
		}
	}
}
