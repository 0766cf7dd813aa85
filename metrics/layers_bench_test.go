package metrics

import (
	"testing"

	"github.com/fpstop/fpstop/source"
)

// One presented frame of the measured layer through the pipeline (cadence, slices, run totals).
func BenchmarkLayerFrame(b *testing.B) {
	p := NewPipeline(Config{})
	p.Add(&source.Session{Source: source.KindSurfaceFlinger, Layer: "L", RefreshHz: 120})
	at := int64(1_000_000_000_000)
	f := &source.LayerFrame{Layer: "L", PeriodNs: t120}
	b.ReportAllocs()
	for b.Loop() {
		at += 2 * t120
		f.PresentNs = at
		p.Add(f)
	}
}
