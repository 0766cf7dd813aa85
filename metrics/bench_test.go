package metrics

import (
	"runtime"
	"testing"

	"github.com/fpstop/fpstop/source"
)

// frames120 builds n frames at 120 Hz over two windows with a realistic mix of costs
// (mostly on time, some janky, rare freezes), deterministic.
func frames120(n int) []source.Frame {
	const T = 8_333_333
	out := make([]source.Frame, n)
	v := int64(1e9)
	x := uint32(12345)
	for i := range out {
		x = x*1664525 + 1013904223
		cost := int64(3_000_000 + x%5_000_000)
		switch {
		case x%97 == 0:
			cost = 40_000_000
		case x%1009 == 0:
			cost = 750_000_000
		}
		w := "com.example/.Main"
		if i%10 == 0 {
			w = "PopupWindow:1"
		}
		out[i] = source.Frame{Window: w, VsyncNs: v, DoneNs: v + cost, UIDoneNs: v + cost/2, IntervalNs: T}
		v += T
	}
	return out
}

// BenchmarkIngest measures frames/s through Pipeline.Add (target ≥ 5 M frames/s on one core).
func BenchmarkIngest(b *testing.B) {
	fs := frames120(1 << 16)
	evs := make([]source.Event, len(fs))
	for i := range fs {
		evs[i] = &fs[i]
	}
	p := NewPipeline(Config{})
	p.Add(&source.Session{Source: source.KindSim, RefreshHz: 120})
	b.ReportAllocs()
	b.ResetTimer()
	shift := int64(0)
	for i := 0; i < b.N; i++ {
		j := i & (len(fs) - 1)
		if j == 0 && i > 0 {
			// keep time moving forward across laps
			shift += int64(len(fs)) * 8_333_333
			for k := range fs {
				fs[k].VsyncNs += int64(len(fs)) * 8_333_333
				fs[k].DoneNs += int64(len(fs)) * 8_333_333
				fs[k].UIDoneNs += int64(len(fs)) * 8_333_333
			}
		}
		p.Add(evs[j])
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds()/1e6, "Mframes/s")
	_ = shift
}

// BenchmarkDay120Hz runs 24 hours of virtual time at 120 Hz (10.4 M frames, a tick a second)
// through one pipeline and reports the live heap at the end and at one hour: bounded memory
// means the two are alike.
func BenchmarkDay120Hz(b *testing.B) {
	for i := 0; i < b.N; i++ {
		p := NewPipeline(Config{})
		p.Add(&source.Session{Source: source.KindSim, RefreshHz: 120})
		const T = 8_333_333
		f := source.Frame{Window: "com.example/.Main", IntervalNs: T}
		var heap1h uint64
		x := uint32(7)
		for s := int64(0); s < 24*3600; s++ {
			for k := int64(0); k < 120; k++ {
				x = x*1664525 + 1013904223
				v := int64(1e9) + s*1e9 + k*T
				f.VsyncNs, f.DoneNs = v, v+int64(2_000_000+x%10_000_000)
				p.Add(&f)
			}
			p.Add(&source.Message{Handler: "android.os.Handler", Callback: "com.x.Task@1", StartNs: int64(1e9) + s*1e9, EndNs: int64(1e9) + s*1e9 + 20e6})
			p.Add(&source.Tick{NowNs: int64(1e9) + (s+1)*1e9})
			if s == 3600 {
				heap1h = liveHeap()
			}
		}
		heap24h := liveHeap()
		_ = p.Snapshot()
		b.ReportMetric(float64(heap1h)/1e6, "MB-heap-1h")
		b.ReportMetric(float64(heap24h)/1e6, "MB-heap-24h")
		if r := p.Report(ReportMeta{}); r.Frames != 24*3600*120 {
			b.Fatalf("frames %d", r.Frames)
		}
	}
}

func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkSnapshot measures building a Snapshot of a busy pipeline (4 per second by default).
func BenchmarkSnapshot(b *testing.B) {
	p := NewPipeline(Config{})
	p.Add(&source.Session{Source: source.KindSim, RefreshHz: 120})
	fs := frames120(120 * 600)
	for i := range fs {
		p.Add(&fs[i])
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_ = p.Snapshot()
	}
}
