package metrics_test

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/fpstop/fpstop/internal/reference"
	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/source"
	"github.com/fpstop/fpstop/source/sim"
)

// TestPipelineEqualsTruth runs every scenario at 60/90/120/144 Hz through the pipeline and
// holds the results against the reference implementation computed from the truth file.
func TestPipelineEqualsTruth(t *testing.T) {
	for _, sc := range sim.Scenarios {
		for _, hz := range []float64{60, 90, 120, 144} {
			t.Run(fmt.Sprintf("%s-%gHz", sc, hz), func(t *testing.T) {
				s, err := sim.New(sim.Config{Scenario: sc, Hz: hz, Seed: 7, Speed: 0, Duration: 45 * time.Second})
				if err != nil {
					t.Fatal(err)
				}
				var truth bytes.Buffer
				s.SetTruth(&truth)
				p := metrics.NewPipeline(metrics.Config{})
				ch := make(chan []source.Event, 16)
				errc := make(chan error, 1)
				go func() { errc <- s.Run(context.Background(), ch); close(ch) }()
				for b := range ch {
					p.AddBatch(b)
				}
				if err := <-errc; err != nil {
					t.Fatal(err)
				}
				ref, err := reference.FromTruth(&truth, false)
				if err != nil {
					t.Fatal(err)
				}
				r := p.Report(metrics.ReportMeta{})
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
				if r.FPS == nil || math.Abs(float64(*r.FPS)-ref.FPS) > 0.01 {
					t.Errorf("fps %v; truth says %.4f", r.FPS, ref.FPS)
				}
				for _, w := range r.Windows {
					if ref.Windows[w.Name] != w.Frames {
						t.Errorf("window %s: %d frames; truth says %d", w.Name, w.Frames, ref.Windows[w.Name])
					}
				}
				if len(r.Windows) != len(ref.Windows) {
					t.Errorf("%d windows; truth has %d", len(r.Windows), len(ref.Windows))
				}
				if r.Messages.Paired != ref.Messages {
					t.Errorf("%d messages; truth has %d", r.Messages.Paired, ref.Messages)
				}
			})
		}
	}
}
