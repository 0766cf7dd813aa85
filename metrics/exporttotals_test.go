package metrics

import (
	"testing"

	"github.com/fpstop/fpstop/source"
)

// TestTotalsDroppedAndHistSum pins the two sums exports need (Prometheus counters, the
// histogram's _sum): Σ dropped = 0+0+1+3+9+42+25 = 80 from TestFixture60Hz's hand-worked table,
// and the histogram sum is Σ frame durations: 10+16.666667+17+51+160+710+420+5·8 ms.
func TestTotalsDroppedAndHistSum(t *testing.T) {
	p := NewPipeline(Config{})
	p.Add(&source.Session{Source: source.KindSim, CostBasis: source.CostFrame, RefreshHz: 60})
	const T = 16_666_667
	feed(p, T,
		[]float64{10, 16.666667, 17, 51, 160, 710, 420, 8, 8, 8, 8, 8},
		[]int64{0, 0, 1, 3, 9, 42, 25, 0, 0, 0, 0, 0})
	s := p.Snapshot()
	if s.Totals.Dropped != 80 {
		t.Errorf("Totals.Dropped = %d, want 80", s.Totals.Dropped)
	}
	near(t, "HistSumNs (ms)", float64(s.Totals.HistSumNs)/1e6, 1424.666667, 0.001)
	if len(s.Windows) != 1 || s.Windows[0].Totals.Dropped != 80 || s.Windows[0].Totals.HistSumNs != s.Totals.HistSumNs {
		t.Errorf("window totals %+v, want the run's sums", s.Windows)
	}
}
