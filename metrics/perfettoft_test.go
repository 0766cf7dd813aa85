package metrics_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/fpstop/fpstop/internal/testkit/realdata"
	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/source/perfetto"
)

// TestFrameTimelineVerdicts holds fpstop's verdict on each app frame of Perfetto's FrameTimeline
// test trace against Perfetto's jank_tag (ft_events/expected/test_actual_frame_timeline_events.csv),
// saying beside each row where fpstop deliberately differs. fpstop calls a frame janky by its
// own app-side rule (the work's end against the deadline, DESIGN §4b); SurfaceFlinger's verdict
// is counted as blame.
func TestFrameTimelineVerdicts(t *testing.T) {
	dir := realdata.Dir(t, filepath.Join("perfetto", "ft_events"))
	f, err := os.Open(filepath.Join(dir, "trace.pftrace"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p := metrics.NewPipeline(metrics.Config{})
	got := map[string]int64{}
	p.OnFrame(func(c metrics.ClassifiedFrame) {
		got[c.Frame.Window+"/"+itoa64(c.Frame.Timeline.Token)] = c.Dropped
	})
	p.AddBatch(collect(t, perfetto.FromReader(f, perfetto.Options{Name: "ft_events"})))
	for _, c := range []struct {
		key      string
		janky    bool
		perfetto string
	}{
		// expected 21+15 = 36, the work ended at 37: 1 ns past the deadline. Perfetto: "No Jank"
		// (SurfaceFlinger marked it on time). fpstop differs on purpose: work that ends after
		// its deadline is late, whatever the synthetic trace's on_time_finish says.
		{"Layer1/1", true, "No Jank"},
		{"Layer1/5", true, "Self Jank"},   // ended 74 against a deadline of 56: the app's jank, both agree
		{"Layer1/7", false, "Other Jank"}, // on time for the app; SurfaceFlinger's jank: blame.surfaceflinger
		{"Layer1/14", false, "No Jank"},
		{"Layer2/14", false, "No Jank"},
		// no expected frame (expired prediction): Perfetto "Self Jank" (Unknown Jank). fpstop
		// differs on purpose: no deadline, no drops; its UNKNOWN bit counts in blame.app.
		{"Layer1/16", false, "Self Jank"},
	} {
		d, ok := got[c.key]
		if !ok {
			t.Errorf("%s: no frame", c.key)
			continue
		}
		if (d > 0) != c.janky {
			t.Errorf("%s (Perfetto: %s): dropped %d, want janky=%v", c.key, c.perfetto, d, c.janky)
		}
	}
	if len(got) != 6 {
		t.Errorf("%d frames, want the 6 finished app frames: %v", len(got), got)
	}
	r := p.Report(metrics.ReportMeta{})
	if r.Blame == nil || r.Blame.App != 2 || r.Blame.SurfaceFlinger != 1 || r.PresentTypes.Unknown != 1 || r.PresentTypes.Early != 1 {
		t.Errorf("blame %+v present %+v", r.Blame, r.PresentTypes)
	}
}

func itoa64(v int64) string {
	if v == 0 {
		return "0"
	}
	var b []byte
	for ; v > 0; v /= 10 {
		b = append([]byte{byte('0' + v%10)}, b...)
	}
	return string(b)
}
