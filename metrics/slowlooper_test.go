package metrics

import (
	"strings"
	"testing"

	"github.com/fpstop/fpstop/source"
)

// TestSlowLooperTruncated: a slow Looper line cut off before its duration is reported as
// truncated (and warned about), never as a 0 ms line that looks complete.
func TestSlowLooperTruncated(t *testing.T) {
	p := NewPipeline(Config{})
	p.AddBatch([]source.Event{
		&source.Session{Source: source.KindLogcat, CostBasis: source.CostMainThread},
		&source.SlowLooper{AtNs: 1e9, Kind: "doframe_late", Ms: 340, Thread: "main", Handler: "android.os.Handler"},
		&source.SlowLooper{AtNs: 2e9, Kind: "activity_late", Thread: "main", Truncated: true},
	})
	r := p.Report(ReportMeta{})
	if len(r.SlowLooper) != 2 || r.SlowLooperTotal != 2 {
		t.Fatalf("slow_looper %+v, total %d", r.SlowLooper, r.SlowLooperTotal)
	}
	if r.SlowLooper[0].Truncated || !r.SlowLooper[1].Truncated {
		t.Errorf("truncated flags %v %v, want false true", r.SlowLooper[0].Truncated, r.SlowLooper[1].Truncated)
	}
	n := 0
	for _, w := range r.Warnings {
		if strings.Contains(w, "cut off before their duration") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("warnings %q: want one about the cut-off line", r.Warnings)
	}
}
