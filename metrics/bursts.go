package metrics

// burstGapNs: a window that drew nothing for this long after a frame's completion has ended a
// burst (DESIGN §4).
const burstGapNs = 1_000_000_000

// bursts is a window's drawing time (DESIGN §4, per-window fps_wall): each burst runs from its
// first frame's intended vsync to its last frame's completion plus one period, and a burst
// ends where the window drew nothing for a second. A dialog that drew 240 frames in 4 s at
// 60 Hz is active 4 s, not the five 1 s slices it touched.
type bursts struct {
	n          int64 // frames counted
	start, end int64 // the open burst: first intended vsync, last completion + T
	lastDone   int64 // the latest completion in the open burst
	closedNs   int64 // Σ length of the bursts before it
}

// add counts a frame of intended vsync vsync, completed at done, period t.
func (b *bursts) add(vsync, done, t int64) {
	if b.n == 0 || vsync-b.lastDone >= burstGapNs {
		if b.n > 0 {
			b.closedNs += b.end - b.start
		}
		b.start, b.end, b.lastDone = vsync, done+t, done
	} else {
		b.start = min(b.start, vsync)
		b.end = max(b.end, done+t)
		b.lastDone = max(b.lastDone, done)
	}
	b.n++
}

// activeNs is the bursts' total length so far.
func (b *bursts) activeNs() int64 {
	if b.n == 0 {
		return 0
	}
	return b.closedNs + b.end - b.start
}
