package html

import (
	"fmt"
	"html/template"
	"math"

	"github.com/fpstop/fpstop/internal/hwui"
	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/report"
)

// maxFPSBars is how many bars the FPS chart draws at most; longer series are grouped, each bar
// then the mean of its slices with a tick at the lowest (so a dip is never averaged away).
const (
	maxFPSBars = 1200
	fpsH       = 220.0
)

// fpsIn is one recording's FPS series, as the FPS charts read it.
type fpsIn struct {
	series   []metrics.SlicePoint
	originNs int64
	sliceNs  int64
}

// fpsGroup is one drawn bar: slices [i, j) of the series.
type fpsGroup struct {
	t0, t1      float64 // seconds from the origin
	mean, lo    float64
	frames      int
	idle, total int
	partial     bool
}

func groupSeries(in fpsIn) []fpsGroup {
	n := len(in.series)
	k := (n + maxFPSBars - 1) / maxFPSBars
	k = max(k, 1)
	slice := float64(max(in.sliceNs, 1)) / 1e9
	var out []fpsGroup
	for i := 0; i < n; i += k {
		g := fpsGroup{t0: float64(in.series[i].StartNs-in.originNs) / 1e9, lo: math.NaN()}
		sum, m := 0.0, 0
		for _, p := range in.series[i:min(i+k, n)] {
			g.total++
			g.t1 = float64(p.StartNs-in.originNs)/1e9 + slice
			g.partial = g.partial || p.Partial
			g.frames += p.Frames
			if p.Idle || math.IsNaN(p.FPS) {
				g.idle++
				continue
			}
			sum += p.FPS
			m++
			if math.IsNaN(g.lo) || p.FPS < g.lo {
				g.lo = p.FPS
			}
		}
		g.mean = math.NaN()
		if m > 0 {
			g.mean = sum / float64(m)
		}
		out = append(out, g)
	}
	return out
}

// fpsChart draws FPS per slice, one bar per slice or group of slices, on the time axis every
// chart of the page shares (span: [lo, hi] seconds from the origin, the timeline's too), so
// their times line up; its part before 0 is shaded as history. Idle slices are short grey
// marks, never zero-height bars that would read as 0 fps.
func fpsChart(in fpsIn, refreshHz, targetFPS float64, span [2]float64) template.HTML {
	groups := groupSeries(in)
	top := refreshHz
	for _, x := range groups {
		if !math.IsNaN(x.mean) {
			top = math.Max(top, x.mean)
		}
	}
	var s svg
	xs, ys := startFPSChart(&s, span[0], span[1], top, "chart fps", "frames per second over the session")
	historyBand(&s, xs, fpsH)
	s.group("bars side0")
	for _, x := range groups {
		drawFPSBar(&s, x, xs, ys, targetFPS)
	}
	s.endGroup()
	if refreshHz > 0 {
		y := ys.at(refreshHz)
		s.line(padLeft, y, chartW-padRight, y, "refresh", fmt.Sprintf("display refresh rate %s Hz", ms2(refreshHz)))
	}
	return s.end()
}

// historyBand shades the part of a time axis before the session started (frames Android drew
// before the first poll, reported in its first dump) and labels it.
func historyBand(s *svg, xs linScale, h float64) {
	if xs.lo >= 0 {
		return
	}
	a, b := xs.at(xs.lo), xs.at(0)
	s.rect(a, padTop, b-a, h-padBottom-padTop, "history", "before the session started: frames from the first poll's backlog (history)")
	if b-a > 60 {
		s.text((a+b)/2, padTop+12, "middle", "history-label", "before the run")
	}
}

// startFPSChart starts an FPS-over-time figure: the time axis from lo to hi seconds and an FPS
// grid up to 8 % above top (60 when nothing is known). The report's bars and the comparison's
// lines share it so both FPS charts have the same frame and read on the same scales.
func startFPSChart(s *svg, lo, hi, top float64, class, title string) (xs, ys linScale) {
	if top <= 0 {
		top = 60
	}
	xs = linScale{lo: lo, hi: hi, a: padLeft, b: chartW - padRight}
	ys = linScale{lo: 0, hi: top * 1.08, a: fpsH - padBottom, b: padTop}
	s.start(chartW, fpsH, class, title)
	timeAxis(s, xs, fpsH)
	s.group("grid")
	for _, v := range linTicks(top*1.08, 5) {
		y := ys.at(v)
		s.line(padLeft, y, chartW-padRight, y, "", "")
		s.text(padLeft-6, y+4, "end", "tick", ms2(v))
	}
	s.endGroup()
	s.text(padLeft-6, padTop-2, "end", "unit", "fps")
	return xs, ys
}

func drawFPSBar(s *svg, g fpsGroup, xs linScale, ys linScale, target float64) {
	a, b := xs.at(g.t0), xs.at(g.t1)
	w := math.Max(b-a-0.4, 0.6)
	span := fmt.Sprintf("%s–%s", secs(g.t0), secs(g.t1))
	if math.IsNaN(g.mean) {
		s.rect(a, ys.a-3, w, 3, "idle", span+": idle (no frames)")
		return
	}
	cls := "fpsbar"
	if g.mean < target {
		cls += " low"
	}
	title := fmt.Sprintf("%s: %s fps, %s", span, ms2(g.mean), report.Plural(g.frames, "frame"))
	if g.total > 1 {
		title = fmt.Sprintf("%s: %s fps on average over %d slices (lowest %s), %s", span, ms2(g.mean), g.total, ms2(g.lo), report.Plural(g.frames, "frame"))
	}
	if g.idle > 0 {
		title += fmt.Sprintf(", %d idle", g.idle)
	}
	if g.partial {
		title += " (last slice, partial)"
	}
	y := ys.at(g.mean)
	s.rect(a, y, w, ys.a-y, cls, title)
	if g.total > 1 && g.lo < g.mean {
		yl := ys.at(g.lo)
		s.line(a, yl, a+w, yl, "fpslow", "")
	}
}

// histIn is one side of the histogram.
type histIn struct {
	buckets []metrics.HistogramBucket
	side    int
	name    string
}

const histH = 230.0

// histogram draws Android's frame-time buckets (the labels dumpsys gfxinfo prints) with the
// count on a log scale, and the refresh period; two sides are drawn as pairs of bars coloured by
// side. Bars are not coloured by drop level: with Android 12+'s pipelining a frame's time alone
// does not say whether it dropped a refresh. Empty buckets up to the last used one keep their place so
// the axis is Android's.
func histogram(sides []histIn, intervalMs float64) template.HTML {
	last, maxC := 0, int64(1)
	for _, in := range sides {
		for _, b := range in.buckets {
			last = max(last, hwui.Index(int64(b.Ms)*1e6))
			maxC = max(maxC, b.Count)
		}
	}
	if intervalMs > 0 {
		last = max(last, min(hwui.Index(int64(intervalMs*2e6)), hwui.NumBuckets-1))
	}
	n := last + 1
	slotW := (chartW - padLeft - padRight) / float64(n)
	yh := func(c int64) float64 {
		return (histH - padBottom - padTop) * math.Log10(1+float64(c)) / math.Log10(1+float64(maxC))
	}
	var s svg
	s.start(chartW, histH, "chart hist", "frame-time histogram in Android's gfxinfo buckets")
	s.group("grid")
	for _, v := range niceTicks(1, float64(maxC)) {
		if v != math.Pow(10, math.Round(math.Log10(v))) {
			continue
		}
		y := histH - padBottom - yh(int64(v))
		s.line(padLeft, y, chartW-padRight, y, "", "")
		s.text(padLeft-6, y+4, "end", "tick", ms2(v))
	}
	s.endGroup()
	s.text(padLeft-6, padTop-2, "end", "unit", "frames")
	s.group("axis")
	s.line(padLeft, histH-padBottom, chartW-padRight, histH-padBottom, "", "")
	// a label wherever there is room (the round values first): Android's buckets above 32 ms
	// (34, 36, … 48, 53, …, 117, 150) hold no round value, and they are where the janks are
	labelled := make([]bool, n)
	for pass := 0; pass < 2; pass++ {
		for i := 0; i < n; i++ {
			x := padLeft + (float64(i)+0.5)*slotW
			ms := hwui.BucketMs(i)
			if labelled[i] || pass == 0 && !isRoundBucket(ms) && i != last || !roomAt(x, labelled, padLeft, slotW, 30) {
				continue
			}
			labelled[i] = true
			s.text(x, histH-padBottom+16, "middle", "tick", fmt.Sprint(ms))
		}
	}
	s.text(chartW-padRight, histH-2, "end", "unit", "ms (Android's bucket label)")
	s.endGroup()
	if intervalMs > 0 {
		x := padLeft + float64(hwui.Index(int64(intervalMs*1e6))+1)*slotW
		s.line(x, padTop, x, histH-padBottom, "budget", fmt.Sprintf("one refresh period, %s ms", ms2(intervalMs)))
	}
	for si, in := range sides {
		var total int64
		for _, b := range in.buckets {
			total += b.Count
		}
		bw := slotW / float64(len(sides))
		s.group(fmt.Sprintf("bars side%d", in.side))
		for _, b := range in.buckets {
			i := hwui.Index(int64(b.Ms) * 1e6)
			x := padLeft + float64(i)*slotW + float64(si)*bw
			h := yh(b.Count)
			cls := "hbar ok"
			if len(sides) > 1 {
				cls = fmt.Sprintf("hbar side%d", in.side) // two sides: colour says which
			}
			name := ""
			if in.name != "" {
				name = in.name + ": "
			}
			s.rect(x+0.3, histH-padBottom-h, bw-0.6, h, cls,
				fmt.Sprintf("%s%d ms bucket: %s (%s)", name, b.Ms, report.Plural(b.Count, "frame"), pct(b.Count, total)))
		}
		s.endGroup()
	}
	return s.end()
}

// roomAt reports whether a label centred at x stays gap pixels from every label placed so far.
func roomAt(x float64, labelled []bool, padLeft, slotW, gap float64) bool {
	for i, l := range labelled {
		if l && math.Abs(padLeft+(float64(i)+0.5)*slotW-x) < gap {
			return false
		}
	}
	return true
}

func isRoundBucket(ms int) bool {
	switch ms {
	case 5, 10, 16, 20, 32, 50, 100, 150, 200, 300, 500, 1000, 2000, 3000, 4950:
		return true
	}
	return false
}
