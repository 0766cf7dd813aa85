package ui

import (
	"fmt"
	"math"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/themes"
)

// frameTimeKeyMap are the frame-time panel's keys.
type frameTimeKeyMap struct {
	Mode key.Binding
	// Timeline opens the full-screen timeline of the whole run (timeline.go).
	Timeline key.Binding
	// Open is enter while the panel has the focus (tab moves it): the timeline too, as enter
	// opens the selected row's details when the messages table has the focus.
	Open key.Binding
}

func defaultFrameTimeKeys() frameTimeKeyMap {
	return frameTimeKeyMap{
		Mode:     key.NewBinding(key.WithKeys("g"), key.WithHelp("g", "graph: frame time / phases")),
		Timeline: key.NewBinding(key.WithKeys("f"), key.WithHelp("f", "timeline of the run (or click the graph)")),
		Open:     key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "timeline (graph focused)")),
	}
}

// ShortHelp implements help.KeyMap.
func (k frameTimeKeyMap) ShortHelp() []key.Binding {
	return []key.Binding{hint(k.Mode, "g", "graph"), hint(k.Timeline, "f", "timeline")}
}

// FullHelp implements help.KeyMap.
func (k frameTimeKeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Mode, k.Timeline, k.Open}}
}

// FocusHelp is the footer's hint while the panel has the focus.
func (k frameTimeKeyMap) FocusHelp() key.Binding { return hint(k.Open, "enter", "timeline") }

// frameTimeModel is the frame-time graph: one column per recent frame, coloured by drop level,
// with the frame-budget line; `g` switches to Profile-HWUI-style stacked phase bars when the
// frames carry phases.
type frameTimeModel struct {
	st     *themes.Styles
	keys   frameTimeKeyMap
	w, h   int
	frames []metrics.FramePoint
	window string
	phases bool // phase mode asked for
	// focused: the panel has the focus (tab), so enter opens the timeline; its border says so
	focused bool
	lines   []string
	row     cellRow
}

func newFrameTime(st *themes.Styles) frameTimeModel {
	return frameTimeModel{st: st, keys: defaultFrameTimeKeys()}
}

// SetSize sets the panel's outer size.
func (m frameTimeModel) SetSize(w, h int) frameTimeModel { m.w, m.h = w, h; return m.render() }

// SetFocus gives or takes the focus (the root moves it with tab).
func (m frameTimeModel) SetFocus(on bool) frameTimeModel {
	if m.focused == on {
		return m
	}
	m.focused = on
	return m.render()
}

// SetStyles changes the theme.
func (m frameTimeModel) SetStyles(st *themes.Styles) frameTimeModel { m.st = st; return m.render() }

// Update applies data and the `g` key.
func (m frameTimeModel) Update(msg tea.Msg) (frameTimeModel, tea.Cmd) {
	switch msg := msg.(type) {
	case dataMsg:
		if msg.snap != nil {
			m.window = msg.window
			m.frames = filterFrames(msg.snap.Recent, msg.window)
		}
		return m.render(), nil
	case tea.KeyMsg:
		if key.Matches(msg, m.keys.Mode) {
			m.phases = !m.phases
			return m.render(), nil
		}
	}
	return m, nil
}

// View returns the cached panel.
func (m frameTimeModel) View() []string { return m.lines }

// filterFrames returns the frames of window ("" = all). It never modifies frames.
func filterFrames(frames []metrics.FramePoint, window string) []metrics.FramePoint {
	if window == "" {
		return frames
	}
	out := make([]metrics.FramePoint, 0, len(frames))
	for _, f := range frames {
		if f.Window == window {
			out = append(out, f)
		}
	}
	return out
}

func (m frameTimeModel) hasPhases(fs []metrics.FramePoint) bool {
	for _, f := range fs {
		if f.Phases != nil {
			return true
		}
	}
	return false
}

func (m frameTimeModel) render() frameTimeModel {
	if m.w <= 0 || m.h <= 0 {
		m.lines = nil
		return m
	}
	st := m.st
	if m.focused {
		st = focusStyles(st)
	}
	inner, ih := m.w-4, m.h-2
	gw := 5
	cols := inner - gw
	fs := m.frames
	if cols > 0 && len(fs) > cols {
		fs = fs[len(fs)-cols:]
	}
	phases := m.phases && m.hasPhases(fs)
	title := "Frame time (ms)"
	if phases {
		title = "Frame phases (ms)"
	}
	if m.window != "" {
		title += " · " + shortClass(m.window)
	}
	if m.focused {
		title = focusMark + title
	}
	gh := ih - 1
	if gh < 1 || cols <= 0 {
		m.lines = box(st, title, "", nil, m.w, m.h)
		return m
	}
	g := ftGraph{fs: fs, phases: phases, gh: gh, cols: cols}
	g.scale(phases)
	g.brushes(st)
	var body []string
	for r := 0; r < gh; r++ {
		m.row.reset(cols)
		g.drawRow(&m.row, st, r)
		label := ""
		switch r {
		case 0:
			label = ms(g.top)
		case g.brow:
			label = ms(g.budget)
		}
		ls := st.Muted
		if r == g.brow {
			ls = st.Budget
		}
		body = append(body, ls.Render(alignRight(label, gw-1)+"┤")+m.row.render(g.table))
	}
	right := ""
	if !phases {
		right = scaleLegend(st, m.w-width(title)-9)
	}
	legend := m.legend(g)
	if head := " budget " + ms(g.budget) + " ms · "; right == "" && !phases && len(fs) > 0 {
		// No room in the border: the scale takes the place of the frame count and the worst.
		if sc := scaleLegend(st, inner-1-width(head)); sc != "" {
			legend = st.Budget.Render("─") + st.Muted.Render(head) + sc
		}
	}
	body = append(body, fit(legend, inner))
	m.lines = box(st, title, right, body, m.w, m.h)
	return m
}

// ftGraph is one drawing of the frame-time graph: its scale and its brushes.
type ftGraph struct {
	fs     []metrics.FramePoint
	phases bool
	gh     int // graph rows
	cols   int
	budget float64 // ms per frame at the current refresh rate
	worst  float64 // the costliest frame shown, ms
	top    float64 // ms at the top row
	brow   int     // row (from top) holding the budget line
	// Brushes: 0..3 the lateness scale (4 unused), 5 budget, 6 clipped, 7 delay, 8.. phases; then half-block
	// cells of two phases (lower fg, upper bg), made on first use.
	table    []brush
	pairBase int
	pairs    [7 * 8]bool
	glyph    []rune // phase glyphs (distinct shapes in mono)
	late     []rune // full-cell glyphs of the lateness scale (distinct shapes in mono)
}

// scale sets the vertical scale: at least twice the budget, up to 8× to keep spikes visible
// without flattening (4× for phases, whose proportions need the height).
func (g *ftGraph) scale(phases bool) {
	g.budget = 1000.0 / 60
	for _, f := range g.fs {
		if f.IntervalMs > 0 {
			g.budget = f.IntervalMs
		}
		g.worst = math.Max(g.worst, f.CostMs)
	}
	top := 8.0
	if phases {
		top = 4
	}
	g.top = math.Max(2*g.budget, math.Min(g.worst, top*g.budget))
	g.top = math.Ceil(g.top/g.budget) * g.budget
	b8 := int(g.budget / g.top * float64(g.gh*8))
	g.brow = g.gh - 1 - min(b8/8, g.gh-1)
}

func (g *ftGraph) brushes(st *themes.Styles) {
	styles := make([]lipgloss.Style, 0, 16)
	styles = append(styles, st.Late[:]...)
	styles = append(styles, st.Late[metrics.Frozen]) // index 4 unused: budget, clipped, phases follow
	styles = append(styles, st.Budget, st.Bad, st.PhaseDelay)
	styles = append(styles, st.Phase[:]...)
	g.table = brushes(styles...)
	g.pairBase = len(g.table)
	g.table = append(g.table, make([]brush, 7*8)...)
	g.glyph = []rune{'█', '█', '█', '█', '█', '█', '█'}
	g.late = lateGlyphs(st)
	if st.Mono {
		g.glyph = []rune{'·', '▒', '▓', '█', '▚', '▞', '░'}
	}
}

// drawRow draws graph row r (0 = top) into row.
func (g *ftGraph) drawRow(row *cellRow, st *themes.Styles, r int) {
	off := g.cols - len(g.fs)
	bottom := (g.gh - 1 - r) * 8
	for i, f := range g.fs {
		x := off + i
		e := int(math.Round(f.CostMs / g.top * float64(g.gh*8)))
		clipped := e > g.gh*8
		if clipped {
			e = g.gh * 8
		}
		if e <= 0 && f.CostMs > 0 {
			e = 1
		}
		fill := e - bottom
		switch {
		case fill <= 0:
			if r == g.brow {
				row.set(x, '─', 5)
			}
		case g.phases && f.Phases != nil:
			g.phaseCell(row, st, x, r, f.Phases, clipped)
		default:
			s := int(f.Lateness())
			ch := g.late[s]
			if fill < 8 {
				ch = blocks[fill-1]
			}
			if clipped && r == 0 {
				ch, s = '↑', 6
			}
			row.set(x, ch, s)
		}
	}
}

// phaseCell draws the cell of frame phases p at column x, row r: the phase at its lower and
// upper half (a half block when they differ).
func (g *ftGraph) phaseCell(row *cellRow, st *themes.Styles, x, r int, p *metrics.PhaseMs, clipped bool) {
	if clipped && r == 0 {
		row.set(x, '↑', 6)
		return
	}
	lo := float64(g.gh-1-r) / float64(g.gh) * g.top
	step := g.top / float64(g.gh)
	segs := [7]float64{p.Delay, p.Input, p.Animation, p.Layout, p.Draw, p.Sync, p.GPU}
	at := func(v float64) int {
		acc := 0.0
		for j, d := range segs {
			acc += d
			if v < acc {
				return j
			}
		}
		return -1
	}
	low, up := at(lo+step/4), at(lo+3*step/4)
	switch {
	case low < 0:
		if r == g.brow {
			row.set(x, '─', 5)
		}
	case st.Mono:
		row.set(x, g.glyph[low], 7+low)
	case up == low:
		row.set(x, '█', 7+low)
	default:
		k := g.pairBase + low*8 + up + 1
		if !g.pairs[k-g.pairBase] {
			g.pairs[k-g.pairBase] = true
			g.table[k] = brushes(st.HalfBlock(low, up))[0]
		}
		row.set(x, '▄', k)
	}
}

// legend is the line under the graph.
func (m frameTimeModel) legend(g ftGraph) string {
	st := m.st
	switch {
	case g.phases:
		// The grey segment under the phases is the wait between the vsync and the frame's
		// start (input handling began late).
		// Short names when the full ones do not fit, so every segment keeps its legend.
		var legend string
		for _, names := range [][7]string{
			{"delay", "input", "animation", "layout", "draw", "sync", "gpu"},
			{"wait", "in", "anim", "lay", "draw", "sync", "gpu"},
		} {
			legend = st.PhaseDelay.Render(string(g.glyph[0])) + st.Muted.Render(names[0])
			for i := range themes.PhaseNames {
				legend += " " + st.Phase[i].Render(string(g.glyph[i+1])) + st.Muted.Render(names[i+1])
			}
			if width(legend) <= m.w-4 {
				break
			}
		}
		return legend
	case len(g.fs) == 0:
		return st.Muted.Render("no frames yet")
	}
	legend := st.Budget.Render("─") + st.Muted.Render(fmt.Sprintf(" budget %s · last %d frames · worst %s",
		msu(g.budget), len(g.fs), msu(g.worst)))
	if m.phases {
		legend += st.Muted.Render(" · no phase data")
	}
	return legend
}

// scaleLegend explains the frame colours (metrics.Lateness: the refreshes a frame dropped
// against its real deadline) in at most w cells: "█ on time █ late █ very late █ frozen", a
// shorter form, or nothing when even that does not fit. Without colour the scale is told by
// the bars' full cells (█ ▓ ▒ ░).
func scaleLegend(st *themes.Styles, w int) string {
	glyphs := lateGlyphs(st)
	for _, names := range [][4]string{{" on time", " late", " very late", " frozen"}, {" ok", " late", " v.late", " frozen"},
		{"ok", "late", "v.late", "frozen"}} {
		var parts []string
		for i, l := range metrics.Latenesses {
			parts = append(parts, st.Late[l].Render(string(glyphs[l]))+st.Muted.Render(names[i]))
		}
		if s := strings.Join(parts, " "); width(s) <= w {
			return s
		}
	}
	return ""
}

// lateGlyphs are the full-cell glyphs of the lateness scale: one block in colour, four shades
// without colour so the scale survives NO_COLOR.
func lateGlyphs(st *themes.Styles) []rune {
	if st.Mono {
		return []rune{'█', '▓', '▒', '░'}
	}
	return []rune{'█', '█', '█', '█'}
}
