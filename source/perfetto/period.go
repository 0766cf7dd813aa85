package perfetto

// periodLearner learns the display's refresh period from SurfaceFlinger's expected display
// frames: it composes on vsync, so the spacing of consecutive display frames is the period (or
// a whole multiple of it when nothing changed). The period is the mean of the fullest 0.1 ms
// bucket of spacings from 4 to 50 ms — FrameTimeline carries no period of its own.
type periodLearner struct {
	last       int64
	count      [460]int32
	sum        [460]int64
	best, seen int
}

const minPeriodSamples = 3

func (l *periodLearner) add(ts int64) {
	d := ts - l.last
	l.last = ts
	if d < 4_000_000 || d >= 50_000_000 {
		return
	}
	b := int((d - 4_000_000) / 100_000)
	l.count[b]++
	l.sum[b] += d
	l.seen++
	if l.count[b] > l.count[l.best] || (l.count[b] == l.count[l.best] && b < l.best) {
		l.best = b
	}
}

// period is the learned period in ns, 0 before enough display frames.
func (l *periodLearner) period() int64 {
	if l.count[l.best] < minPeriodSamples {
		return 0
	}
	return l.sum[l.best] / int64(l.count[l.best])
}
