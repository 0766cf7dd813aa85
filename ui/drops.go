package ui

import (
	"fmt"
	"github.com/charmbracelet/lipgloss"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/themes"
)

// dropsModel is the five drop-level bars (best, normal, middle, high, frozen) with counts and
// shares of all frames. Drawn with lipgloss: ntcharts' barchart has no value labels and a
// label-width bug in horizontal mode.
type dropsModel struct {
	st     *themes.Styles
	w, h   int
	totals metrics.Totals
	window string
	lost   int64    // frames provably missed between polls (run-wide)
	thr    [4]int64 // NORMAL..FROZEN thresholds in dropped vsyncs (zero: unknown)
	hz     float64
	pace   float64 // a measured layer's pace the drops count at (0: the display's vsyncs)
	lines  []string
}

func newDrops(st *themes.Styles) dropsModel { return dropsModel{st: st} }

// SetSize sets the panel's outer size.
func (m dropsModel) SetSize(w, h int) dropsModel { m.w, m.h = w, h; return m.render() }

// SetStyles changes the theme.
func (m dropsModel) SetStyles(st *themes.Styles) dropsModel { m.st = st; return m.render() }

// Update applies a dataMsg.
func (m dropsModel) Update(msg tea.Msg) (dropsModel, tea.Cmd) {
	if d, ok := msg.(dataMsg); ok && d.snap != nil {
		m.window = d.window
		m.totals = d.snap.Totals
		m.thr, m.hz, m.pace = d.snap.DropThresholds, d.snap.RefreshHz, d.snap.DropPaceFPS
		m.lost = 0
		if d.snap.LostKnown {
			m.lost = d.snap.FramesLost
		}
		if w := windowOf(d.snap, d.window); w != nil {
			m.totals = w.Totals
		}
		return m.render(), nil
	}
	return m, nil
}

// View returns the cached panel.
func (m dropsModel) View() []string { return m.lines }

func (m dropsModel) render() dropsModel {
	if m.w <= 0 || m.h <= 0 {
		m.lines = nil
		return m
	}
	st := m.st
	inner := m.w - 4
	t := m.totals
	var total int64
	for _, l := range metrics.Levels {
		total += t.DropLevels.Get(l)
	}
	const cw, pw = 7, 7
	labels, lw := m.labels(inner - cw - pw)
	bw := inner - lw - cw - pw
	var body []string
	for i, l := range metrics.Levels {
		n := t.DropLevels.Get(l)
		frac, pct := 0.0, "—"
		if total > 0 {
			frac = float64(n) / float64(total)
			pct = fmt.Sprintf("%.1f%%", frac*100)
		}
		ls := levelStyle(st, l)
		line := ls.Render(fit(labels[i], lw))
		if bw > 0 {
			line += ls.Render(hbar(frac, bw))
		}
		line += st.Text.Render(alignRight(count(n), cw)) + st.Muted.Render(alignRight(pct, pw))
		body = append(body, line)
	}
	if m.h-2 > len(body) {
		jank := "—"
		if t.Frames > 0 {
			jank = num(t.JankPct, 1) + "%"
		}
		line := fmt.Sprintf("frames %s · janky %s (%s)", count(t.Frames), count(t.Janky), jank)
		if width(line) > inner {
			line = fmt.Sprintf("janky %s of %s (%s)", count(t.Janky), count(t.Frames), jank)
		}
		body = append(body, st.Muted.Render(line))
	}
	if m.lost > 0 && m.h-2 > len(body) {
		body = append(body, st.Warn.Render(fmt.Sprintf("%s frames lost between polls", count(m.lost))))
	}
	title := "Drop levels"
	if m.window != "" {
		title += " · " + shortClass(m.window)
	}
	// Say what the threshold numbers count, as room allows.
	right := ""
	if labels[1] != metrics.LevelNormal.String() {
		var say []string
		what := "vsyncs dropped"
		switch {
		case m.pace > 0: // a measured layer's frames, at its own pace
			what = "frames dropped"
			say = append(say, fmt.Sprintf("frames dropped at its %.0f fps pace", m.pace), fmt.Sprintf("dropped at %.0f fps pace", m.pace))
		case m.hz > 0:
			say = append(say, fmt.Sprintf("vsyncs dropped at %.0f Hz", m.hz))
		}
		for _, r := range append(say, what) {
			if width(title)+width(r)+8 <= m.w {
				right = st.Muted.Render(r)
				break
			}
		}
	}
	m.lines = box(st, title, right, body, m.w, m.h)
	return m
}

// labels are the level names with their thresholds in dropped vsyncs ("best <6", "normal ≥6",
// …, at 120 Hz) and the column width, keeping at least 3 cells of bar in avail; names alone
// when the thresholds are unknown or do not fit.
func (m dropsModel) labels(avail int) ([len(metrics.Levels)]string, int) {
	var out [len(metrics.Levels)]string
	lw := 7
	for i, l := range metrics.Levels {
		out[i] = l.String()
	}
	if m.thr[0] <= 0 {
		return out, lw
	}
	with := out
	w := 0
	for i := range with {
		with[i] = fmt.Sprintf("%-6s", with[i]) // names are at most 6 cells: thresholds line up
		if i == 0 {
			with[i] += fmt.Sprintf(" <%d", m.thr[0])
		} else {
			with[i] += fmt.Sprintf(" ≥%d", m.thr[i-1])
		}
		w = max(w, width(with[i])+1)
	}
	if avail-w < 3 {
		return out, lw
	}
	return with, max(w, lw)
}

// Want is the panel's height with every line: five levels, the janky line, the lost-frames line
// when frames were lost.
func (m dropsModel) Want() int {
	if m.lost > 0 {
		return 9
	}
	return 8
}

// levelStyle colours a drop level on the one lateness scale (metrics.Lateness): normal is
// late, middle and high very late, frozen frozen. Best (fewer than the NORMAL threshold of
// refreshes dropped) holds on-time frames and frames late by a refresh or two, so it takes no
// colour of the scale (muted).
func levelStyle(st *themes.Styles, l metrics.Level) lipgloss.Style {
	if l == metrics.LevelBest {
		return st.Muted
	}
	return st.Late[metrics.LatenessOf(1, l)]
}
