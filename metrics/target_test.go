package metrics

import (
	"testing"

	"github.com/fpstop/fpstop/source"
)

// TestAutoTarget: the FPS target defaults to 92 % of the refresh rate in use, rounded; a
// configured target wins; an unknown rate falls back to 55.
func TestAutoTarget(t *testing.T) {
	for _, c := range []struct {
		hz, cfg, want float64
	}{
		{60, 0, 55}, {90, 0, 83}, {120, 0, 110}, {144, 0, 132}, {120, 58, 58}, {60, 30, 30},
	} {
		p := NewPipeline(Config{TargetFPS: c.cfg})
		p.Add(&source.Session{Source: source.KindGfxinfo, RefreshHz: c.hz})
		T := int64(1e9 / c.hz)
		for i := int64(0); i < 30; i++ {
			v := 1e9 + i*T
			p.Add(&source.Frame{Window: "w", VsyncNs: v, DoneNs: v + T/2, IntervalNs: T})
		}
		if got := p.Snapshot().TargetFPS; got != c.want {
			t.Errorf("%v Hz, --target-fps %v: target %v, want %v", c.hz, c.cfg, got, c.want)
		}
	}
	if got := AutoTarget(0); got != 55 {
		t.Errorf("unknown rate: %v, want 55", got)
	}
}
