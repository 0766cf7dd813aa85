package ui

import (
	"fmt"
	"math"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/source"
	"github.com/fpstop/fpstop/themes"
)

// fpsModel is the FPS panel: the current value coloured against the target, min/avg/max, fps
// and fps_wall, and a sparkline of the per-slice FPS series whose ceiling is the refresh rate.
// Idle slices are drawn as a dim '·', never as 0 fps; frozen slices (the app was stuck) as a
// full-height '┃' in the bad colour, never as idle; seconds a gap left unseen (disconnected,
// adb server down) as a muted '┆', never as idle either.
type fpsModel struct {
	st     *themes.Styles
	w, h   int
	series []metrics.SlicePoint
	totals metrics.Totals
	hz     float64
	target float64
	window string
	sliceS float64
	// state is the session's one state (the header badge's): the headline reads it, never
	// the series' own marks, so the two cannot disagree
	state source.State
	// historyFPS is the first dump's backlog rate, shown until a slice of the session's own
	// frames is complete (NaN: none)
	historyFPS float64
	src        source.Kind
	lines      []string
	row        cellRow
}

func newFPS(st *themes.Styles, target float64) fpsModel {
	return fpsModel{st: st, target: target, sliceS: 1}
}

// SetSize sets the panel's outer size.
func (m fpsModel) SetSize(w, h int) fpsModel { m.w, m.h = w, h; return m.render() }

// SetStyles changes the theme.
func (m fpsModel) SetStyles(st *themes.Styles) fpsModel { m.st = st; return m.render() }

// Update applies a dataMsg.
func (m fpsModel) Update(msg tea.Msg) (fpsModel, tea.Cmd) {
	if d, ok := msg.(dataMsg); ok && d.snap != nil {
		s := d.snap
		m.hz = s.RefreshHz
		if s.TargetFPS > 0 {
			m.target = s.TargetFPS
		}
		m.window = d.window
		m.state, m.src = s.State, s.Session.Source
		m.series, m.totals = s.Series, s.Totals
		if w := windowOf(s, d.window); w != nil {
			m.series, m.totals = w.Series, w.Totals
		}
		m.historyFPS = m.totals.HistoryFPS
		m.sliceS = 1
		if s.SliceNs > 0 {
			m.sliceS = float64(s.SliceNs) / 1e9
		}
		return m.render(), nil
	}
	return m, nil
}

// View returns the cached panel.
func (m fpsModel) View() []string { return m.lines }

// current is the newest complete slice with frames, when it is one of the last three slices
// (the partial one counts only while it is the only one).
func (m fpsModel) current() (p metrics.SlicePoint, ok bool) {
	for i := len(m.series) - 1; i >= 0 && i >= len(m.series)-3; i-- {
		p := m.series[i]
		if p.Partial && i > 0 || p.Idle || p.Frozen || math.IsNaN(p.FPS) {
			continue
		}
		return p, true
	}
	return metrics.SlicePoint{}, false
}

// headline is the panel's first item, from the session's one state: frozen, idle and "no
// frames" as the badge says them; live, the newest second's figure, else the first dump's
// history figure (labelled so), else "waiting" — never "idle" while the badge says live.
func (m fpsModel) headline() string {
	st := m.st
	cp, ok := m.current()
	switch m.state {
	case source.StateFrozen:
		return st.Bad.Bold(true).Render("frozen") + st.Muted.Render(" (the app is stuck)")
	case source.StateIdle:
		return st.Idle.Render("idle") + st.Muted.Render(" (no frames drawn)")
	case source.StateNoFrames:
		who := "gfxinfo"
		if m.src == source.KindSurfaceFlinger {
			who = "SurfaceFlinger"
		}
		return st.Warn.Render("no frames") + st.Muted.Render(" (idle or stuck: "+who+" cannot tell)")
	case source.StateDisconnected, source.StateAdbDown:
		switch {
		case ok:
			return st.Muted.Render("last " + num(cp.FPS, 1) + " fps (stale)")
		case !math.IsNaN(m.historyFPS) && m.historyFPS > 0 && !m.hasCompleteSlice():
			return st.Muted.Render("last " + num(m.historyFPS, 1) + " fps (history, stale)")
		}
		return st.Muted.Render("no data (connection lost)")
	}
	switch {
	case ok:
		return st.Muted.Render("now ") + fpsStyle(st, cp.FPS, m.target).Bold(true).Render(num(cp.FPS, 1)+" fps")
	case !math.IsNaN(m.historyFPS) && m.historyFPS > 0 && !m.hasCompleteSlice():
		return st.Muted.Render("now ") + fpsStyle(st, m.historyFPS, m.target).Bold(true).Render(num(m.historyFPS, 1)+" fps") +
			st.Muted.Render(" (history)")
	case m.state == source.StateEnded:
		return st.Muted.Render("no frames")
	}
	if m.state == source.StateLive {
		return st.Muted.Render("waiting (no frames polled yet)")
	}
	return st.Muted.Render("waiting")
}

// shows reports whether one of the newest n slices (those drawn) is one that is.
func (m fpsModel) shows(n int, is func(metrics.SlicePoint) bool) bool {
	for i := max(0, len(m.series)-n); i < len(m.series); i++ {
		if is(m.series[i]) {
			return true
		}
	}
	return false
}

// hasCompleteSlice reports whether the session has a complete slice of its own.
func (m fpsModel) hasCompleteSlice() bool {
	for i := len(m.series) - 1; i >= 0; i-- {
		if !m.series[i].Partial {
			return true
		}
	}
	return false
}

func (m fpsModel) render() fpsModel {
	if m.w <= 0 || m.h <= 0 {
		m.lines = nil
		return m
	}
	st := m.st
	inner, ih := m.w-4, m.h-2
	title := "FPS"
	if m.window != "" {
		title = "FPS · " + shortClass(m.window)
	}
	var body []string
	// Line 1: the current value and the aggregates.
	head := m.headline()
	t := m.totals
	// Every number says what it is: now (this slice), the target, the run's rendering and wall
	// rates, the per-second min/avg/max. They are packed on one line, or two when the panel
	// is tall enough; what fits nowhere is left out rather than shown unlabelled.
	items := []string{
		head,
		st.Muted.Render("target " + num(m.target, 0)),
		st.Text.Render(fmt.Sprintf("run %s fps rendering, %s wall", num(t.FPS, 1), num(t.FPSWall, 1))),
		st.Muted.Render(fmt.Sprintf("per second min %s avg %s max %s", num(t.MinFPS, 1), num(t.AvgFPS, 1), num(t.MaxFPS, 1))),
	}
	lines := 1
	if ih >= 5 {
		lines = 2
	}
	body = append(body, packLines(items, inner, lines)...)
	// The sparkline fills the rest; an axis line when there is room.
	sh := ih - len(body)
	axis := sh >= 5
	if axis {
		sh--
	}
	if sh > 0 {
		body = append(body, m.spark(inner, sh)...)
	}
	if axis {
		gw := 4
		cols := inner - gw
		n := min(cols, len(m.series))
		l := st.Muted.Render(fmt.Sprintf("%*s", gw, "")) + st.Muted.Render(fmt.Sprintf("-%.0fs", float64(n)*m.sliceS))
		// The marks under the bars: idle seconds (nothing drawn), frozen ones (a frame overdue)
		// and, where there are any, seconds a gap left unseen.
		marks := st.Idle.Render("·") + st.Muted.Render(" idle  ") + st.Bad.Render("┃") + st.Muted.Render(" frozen")
		r := st.Muted.Render("now")
		if gap := marks + st.Muted.Render("  ┆ not seen"); m.shows(n, func(p metrics.SlicePoint) bool { return p.Gap }) &&
			width(l)+width(gap)+width(r)+4 <= inner {
			marks = gap
		}
		if width(l)+width(marks)+width(r)+4 <= inner {
			l += strings.Repeat(" ", (inner-width(l)-width(marks)-width(r))/2) + marks
		}
		body = append(body, spread(l, r, inner))
	}
	right := ""
	if m.hz > 0 {
		right = st.Muted.Render(fmt.Sprintf("max %.0f Hz", m.hz))
	}
	m.lines = box(st, title, right, body, m.w, m.h)
	return m
}

// spark draws the series, newest on the right, one column per slice, h rows, scaled 0..hz.
func (m *fpsModel) spark(w, h int) []string {
	st := m.st
	gw := 4
	cols := w - gw
	if cols <= 0 {
		return blank(w, h)
	}
	top := m.hz
	if top <= 0 {
		top = 60
	}
	table := brushes(st.Good, st.Warn, st.Bad, st.Idle, st.Muted)
	pts := m.series
	if len(pts) > cols {
		pts = pts[len(pts)-cols:]
	}
	off := cols - len(pts)
	out := make([]string, h)
	for r := 0; r < h; r++ {
		m.row.reset(cols)
		bottom := (h - 1 - r) * 8 // eighths below this row
		for i, p := range pts {
			x := off + i
			if p.Frozen {
				// a freeze: a full-height bad column, never the idle marker
				m.row.set(x, '┃', 2)
				continue
			}
			if p.Gap {
				// a second fpstop could not see (disconnected, adb down): a broken column,
				// never the idle marker
				m.row.set(x, '┆', 4)
				continue
			}
			if p.Idle || math.IsNaN(p.FPS) {
				if r == h-1 {
					m.row.set(x, '·', 3)
				}
				continue
			}
			e := int(math.Round(p.FPS / top * float64(h*8)))
			if e > h*8 {
				e = h * 8
			}
			if e <= 0 {
				e = 1 // frames were drawn: never look idle
			}
			fill := e - bottom
			if fill <= 0 {
				continue
			}
			if fill > 8 {
				fill = 8
			}
			si := 0
			switch {
			case p.FPS >= m.target:
			case p.FPS >= m.target*0.8:
				si = 1
			default:
				si = 2
			}
			m.row.set(x, blocks[fill-1], si)
		}
		label := ""
		switch r {
		case 0:
			label = fmt.Sprintf("%.0f", top)
		case h - 1:
			label = "0"
		}
		out[r] = st.Muted.Render(alignRight(label, gw-1)+"┤") + m.row.render(table)
	}
	return out
}

// findWindow returns the named window of s, nil for "" or an unknown name.
func findWindow(s *metrics.Snapshot, name string) *metrics.WindowSnapshot {
	if name == "" || s == nil {
		return nil
	}
	for i := range s.Windows {
		if s.Windows[i].Name == name {
			return &s.Windows[i]
		}
	}
	return nil
}

// windowOf is what the panels show for the window filter: nil for all windows, else the named
// window, or an empty one when the snapshot has no window by that name (just after `c`, after
// a backward seek in a replay, after switching apps), so a panel titled with a window never
// shows the whole run's numbers.
func windowOf(s *metrics.Snapshot, name string) *metrics.WindowSnapshot {
	if name == "" || s == nil {
		return nil
	}
	if w := findWindow(s, name); w != nil {
		return w
	}
	nan := math.NaN()
	return &metrics.WindowSnapshot{Name: name, Totals: metrics.Totals{
		FPS: nan, FPSWall: nan, JankPct: nan, MinFPS: nan, AvgFPS: nan, MaxFPS: nan,
	}}
}

// packLines puts items on at most n lines of w cells, in order, two spaces apart; an item that
// fits on no line is left out (the first is always kept, cut to fit).
func packLines(items []string, w, n int) []string {
	out := make([]string, 0, n)
	cur := ""
	for i, it := range items {
		switch {
		case cur == "":
			cur = it
		case width(cur)+2+width(it) <= w:
			cur += "  " + it
		case len(out)+1 < n && width(it) <= w:
			out = append(out, cur)
			cur = it
		}
		if i == 0 && width(cur) > w {
			cur = fit(cur, w)
		}
	}
	return append(out, cur)
}
