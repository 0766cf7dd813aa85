package ui

import (
	"fmt"
	"math"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/fpstop/fpstop/internal/hwui"
	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/themes"
)

// histogramModel is the frame-time histogram in Android's gfxinfo buckets, trimmed to the
// buckets in use and condensed (adjacent buckets merged) to fit the width. Bars are coloured by
// how their frame time compares with the frame budget.
type histogramModel struct {
	st      *themes.Styles
	w, h    int
	buckets []metrics.HistogramBucket
	budget  float64
	window  string
	lines   []string
	row     cellRow
}

func newHistogram(st *themes.Styles) histogramModel { return histogramModel{st: st} }

// SetSize sets the panel's outer size.
func (m histogramModel) SetSize(w, h int) histogramModel { m.w, m.h = w, h; return m.render() }

// SetStyles changes the theme.
func (m histogramModel) SetStyles(st *themes.Styles) histogramModel { m.st = st; return m.render() }

// Update applies a dataMsg.
func (m histogramModel) Update(msg tea.Msg) (histogramModel, tea.Cmd) {
	if d, ok := msg.(dataMsg); ok && d.snap != nil {
		m.buckets, m.window = dense(d.snap.Histogram), ""
		if w := windowOf(d.snap, d.window); w != nil {
			m.buckets, m.window = dense(w.Histogram), w.Name
		}
		m.budget = 0
		if d.snap.RefreshHz > 0 {
			m.budget = 1000 / d.snap.RefreshHz
		}
		return m.render(), nil
	}
	return m, nil
}

// View returns the cached panel.
func (m histogramModel) View() []string { return m.lines }

// dense spreads bs (the snapshot lists only non-empty buckets) over every Android bucket, so
// neighbouring columns are neighbouring buckets and empty buckets inside the range show as gaps.
func dense(bs []metrics.HistogramBucket) []metrics.HistogramBucket {
	if len(bs) == 0 {
		return nil
	}
	out := make([]metrics.HistogramBucket, hwui.NumBuckets)
	for i := range out {
		out[i].Ms = hwui.BucketMs(i)
	}
	for _, b := range bs {
		if i, ok := bucketAt[b.Ms]; ok {
			out[i].Count += b.Count
		}
	}
	return out
}

// bucketAt maps a bucket label (ms) to its index.
var bucketAt = func() map[int]int {
	at := make(map[int]int, hwui.NumBuckets)
	for i := range hwui.NumBuckets {
		at[hwui.BucketMs(i)] = i
	}
	return at
}()

// group is condensed buckets: frames from loMs up to hiMs (bucket labels); tail marks the
// group of every bucket past the cap.
type group struct {
	loMs, hiMs int
	n          int64
	tail       bool
}

// condense trims empty buckets at both ends, lumps every bucket above capMs into one tail group
// and merges neighbours so at most cols groups remain.
func condense(bs []metrics.HistogramBucket, cols int, capMs int) []group {
	first, last := -1, -1
	for i, b := range bs {
		if b.Count > 0 {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 || cols <= 0 {
		return nil
	}
	bs = bs[first : last+1]
	var tail *group
	for i, b := range bs {
		if b.Ms > capMs && i > 0 {
			tail = &group{loMs: b.Ms, tail: true}
			for _, t := range bs[i:] {
				tail.n += t.Count
				tail.hiMs = t.Ms
			}
			bs = bs[:i]
			cols--
			break
		}
	}
	cols = max(cols, 1)
	k := (len(bs) + cols - 1) / cols
	var out []group
	for i := 0; i < len(bs); i += k {
		g := group{loMs: bs[i].Ms}
		for j := i; j < min(i+k, len(bs)); j++ {
			g.n += bs[j].Count
			g.hiMs = bs[j].Ms
		}
		out = append(out, g)
	}
	if tail != nil {
		out = append(out, *tail)
	}
	return out
}

func (m histogramModel) render() histogramModel {
	if m.w <= 0 || m.h <= 0 {
		m.lines = nil
		return m
	}
	st := m.st
	inner, ih := m.w-4, m.h-2
	title := "Frame-time histogram"
	if m.window != "" {
		title += " · " + shortClass(m.window)
	}
	right := ""
	if width(title)+8+width("frames per bucket") <= m.w {
		right = st.Muted.Render("frames per bucket")
	}
	gh := ih - 1
	if gh < 1 {
		m.lines = box(st, title, right, nil, m.w, m.h)
		return m
	}
	budget := m.budget
	if budget <= 0 {
		budget = 1000.0 / 60
	}
	gs := condense(m.buckets, inner, int(math.Ceil(4*budget)))
	if len(gs) == 0 {
		m.lines = box(st, title, right, []string{st.Muted.Render("no frames yet")}, m.w, m.h)
		return m
	}
	cw := max(1, min(3, inner/len(gs)))
	bar := cw
	if cw > 1 {
		bar = cw - 1
	}
	var top int64
	var total int64
	for _, g := range gs {
		top = max(top, g.n)
		total += g.n
	}
	// Buckets hold frame times, not frames' lateness (a 20 ms frame can be on time with a
	// 20 ms deadline): one neutral colour, so only the frame-time graph and the worst frames
	// speak the lateness scale.
	table := brushes(st.GraphLine)
	var body []string
	for r := 0; r < gh; r++ {
		m.row.reset(inner)
		bottom := (gh - 1 - r) * 8
		for i, g := range gs {
			e := int(math.Round(float64(g.n) / float64(top) * float64(gh*8)))
			if e == 0 && g.n > 0 {
				e = 1
			}
			fill := min(e-bottom, 8)
			if fill <= 0 {
				continue
			}
			for c := 0; c < bar; c++ {
				m.row.set(i*cw+c, blocks[fill-1], 0)
			}
		}
		body = append(body, m.row.render(table))
	}
	body = append(body, st.Muted.Render(histAxis(gs, cw, inner, budget)))
	m.lines = box(st, title, right, body, m.w, m.h)
	return m
}

// histAxis labels the first group, the group holding the frame budget and the last group
// under their columns, skipping labels that would overlap.
func histAxis(gs []group, cw, w int, budget float64) string {
	line := []rune(strings.Repeat(" ", w))
	end := -1
	put := func(col int, s string) {
		r := []rune(s)
		col = max(0, min(col, w-len(r)))
		if col <= end || col+len(r) > w {
			return
		}
		copy(line[col:], r)
		end = col + len(r)
	}
	put(0, fmt.Sprintf("≤%dms", gs[0].hiMs))
	l := gs[len(gs)-1]
	last := fmt.Sprintf("%dms", l.hiMs)
	if l.tail {
		last = fmt.Sprintf("all >%dms↑", l.loMs-1) // the last column collects every slower frame
		if len(gs)*cw < 3*len([]rune(last)) {
			last = fmt.Sprintf(">%dms↑", l.loMs-1)
		}
	}
	for i, g := range gs {
		if !g.tail && float64(g.loMs) <= budget && budget <= float64(g.hiMs)+1 && i > 0 {
			// ↑ under the column holding the frame budget; "budget" when it leaves room
			lab := fmt.Sprintf("↑%dms budget", g.hiMs)
			if i*cw+len([]rune(lab)) >= len(gs)*cw-len([]rune(last)) {
				lab = fmt.Sprintf("↑%dms", g.hiMs)
			}
			put(i*cw, lab)
			break
		}
	}
	put(len(gs)*cw-len([]rune(last)), last)
	return string(line)
}
