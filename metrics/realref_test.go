package metrics_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/fpstop/fpstop/internal/testkit/realdata"
	"github.com/fpstop/fpstop/internal/testkit/reference"
	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/source"
	"github.com/fpstop/fpstop/source/gfxinfo"
)

// TestRealCapturesEqualReference: on every real Android 12+ capture with framestats rows, each
// window's numbers from the pipeline (read as `--input FILE` reads it) equal DESIGN §4's rule
// applied to the window's rows by internal/testkit/reference, which shares no code with metrics:
// frames, janky, drop levels, Android's deadline jank exactly, fps to 0.5 %.
func TestRealCapturesEqualReference(t *testing.T) {
	dir := realdata.Dir(t, "gfxinfo")
	for _, name := range []string{
		"choi890-soundviz-android13plus-120hz-framestats-scroll.txt",
		"choi890-soundviz-android13plus-120hz-framestats-stay.txt",
		"anavmode-topicon-t865-android13plus-framestats-allprocs.txt",
		"yuvaupdate-android14plus-framestats-utf8.txt",
	} {
		t.Run(name, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			// the reference reads the frames the source sends, window by window, in order
			calcs := map[[2]string]*reference.Calc{}
			p := metrics.NewPipeline(metrics.Config{})
			ch := make(chan []source.Event, 16)
			errc := make(chan error, 1)
			go func() { errc <- gfxinfo.FromReader(bytes.NewReader(b), name).Run(context.Background(), ch); close(ch) }()
			for batch := range ch {
				for _, ev := range batch {
					if f, ok := ev.(*source.Frame); ok {
						k := [2]string{f.Process, f.Window}
						if calcs[k] == nil {
							calcs[k] = reference.NewCalc()
						}
						calcs[k].Add(lineOf(f, 0))
					}
				}
				p.AddBatch(batch)
			}
			if err := <-errc; err != nil {
				t.Fatal(err)
			}
			r := p.Report(metrics.ReportMeta{})
			checked := 0
			for _, w := range r.Windows {
				c := calcs[[2]string{w.Process, w.Name}]
				if c == nil {
					continue
				}
				ref := c.Numbers()
				checked++
				got := [5]int64{w.DropLevels.Best, w.DropLevels.Normal, w.DropLevels.Middle, w.DropLevels.High, w.DropLevels.Frozen}
				if w.Frames != ref.Frames || w.JankyFrames != ref.Janky || got != ref.Levels {
					t.Errorf("%s %s: frames %d janky %d levels %v; the rule says %d, %d, %v",
						w.Process, w.Name, w.Frames, w.JankyFrames, got, ref.Frames, ref.Janky, ref.Levels)
				}
				if w.JankyDeadline == nil || *w.JankyDeadline != ref.JankyDeadline {
					t.Errorf("%s %s: janky_deadline %s; Android's rule on the rows says %d", w.Process, w.Name, i64(w.JankyDeadline), ref.JankyDeadline)
				}
				if w.FPS == nil || abs(float64(*w.FPS)-ref.FPS) > 0.005*ref.FPS {
					t.Errorf("%s %s: fps %s; the rule says %.3f", w.Process, w.Name, r2(w.FPS), ref.FPS)
				}
			}
			if checked == 0 {
				t.Fatal("no window with frames")
			}
		})
	}
}

func i64(p *int64) string {
	if p == nil {
		return "null"
	}
	return strconv.FormatInt(*p, 10)
}

func r2(p *metrics.R2) string {
	if p == nil {
		return "null"
	}
	return strconv.FormatFloat(float64(*p), 'f', 2, 64)
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
