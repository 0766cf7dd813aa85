package logcat

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/fpstop/fpstop/source"
)

// TestExtrapolatedTicksDoNotRunAhead: a live stream that falls silent past the Ticks' lag and
// then delivers its lines late (a busy host: adb and logcat get the CPU in bursts) must keep
// its Ticks at the device's pace. Before, once an extrapolated Tick was ahead of the late
// lines, the extrapolation stacked the host time since the last advance on top of each newer
// line time: the clock ran at twice wall time, and an open doFrame (opened and closed every
// 8 ms) was announced with an age that grew with wall time — FROZEN while frames flowed.
func TestExtrapolatedTicksDoNotRunAhead(t *testing.T) {
	out := make(chan []source.Event, 1024)
	p := newPump(out, false, 0)
	host := time.Unix(1000, 0)
	p.now = func() time.Time { return host }
	p.extrapolate = true
	p.d.SetPid(7)
	ctx := context.Background()
	dev := int64(100e9) // the device's time now
	feed := func(lineNs int64, open bool) {
		s := fmt.Sprintf("%11.6f     7     7 D Looper  : <<<<< Finished to "+hTarget+"\n", float64(lineNs)/1e9)
		if open {
			s = fmt.Sprintf("%11.6f     7     7 D Looper  : >>>>> Dispatching to "+hTarget+": 1\n", float64(lineNs)/1e9)
		}
		p.feedLive([]byte(s))
	}
	var ticks []int64
	var worstAge int64
	drain := func() {
		for {
			select {
			case b := <-out:
				for _, ev := range b {
					switch e := ev.(type) {
					case *source.Tick:
						ticks = append(ticks, e.NowNs)
					case *source.Dispatch:
						worstAge = max(worstAge, e.SeenNs-e.StartNs)
					}
				}
			default:
				return
			}
		}
	}
	step := func(d time.Duration) {
		host = host.Add(d)
		dev += int64(d)
	}
	// Lines on time for a second.
	for i := 0; i < 10; i++ {
		feed(dev, true)
		feed(dev+4e6, false)
		step(100 * time.Millisecond)
		if err := p.flush(ctx); err != nil {
			t.Fatal(err)
		}
	}
	// Three seconds without a line: the Ticks are extrapolated.
	for i := 0; i < 30; i++ {
		step(100 * time.Millisecond)
		p.flush(ctx)
	}
	// Then a minute of lines that arrive 2.5 s late, a doFrame every 8 ms, none open long.
	lateNs := int64(2500 * time.Millisecond)
	startHost, startTick := host, int64(0)
	drain()
	startTick = ticks[len(ticks)-1]
	for i := 0; i < 600; i++ {
		for k := int64(0); k < 100e6; k += 8e6 {
			feed(dev-lateNs+k, true)
			feed(dev-lateNs+k+4e6, false)
		}
		feed(dev-lateNs+96e6, true) // a frame in progress when the batch is flushed
		step(100 * time.Millisecond)
		p.flush(ctx)
		drain()
	}
	wall := host.Sub(startHost)
	clock := time.Duration(ticks[len(ticks)-1] - startTick)
	if clock > wall+wall/50 {
		t.Errorf("Ticks advanced %v over %v of host time: the clock runs ahead of the device", clock, wall)
	}
	if last := ticks[len(ticks)-1]; last > dev {
		t.Errorf("last Tick %.3f s is past the device's time now %.3f s", float64(last)/1e9, float64(dev)/1e9)
	}
	if worstAge > int64(400*time.Millisecond) {
		t.Errorf("an 8 ms doFrame was announced open for %v", time.Duration(worstAge))
	}
}
