package ui

import (
	"fmt"
	"math"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/themes"
)

// frameTimeKeyMap are the frame-time panel's keys.
type frameTimeKeyMap struct {
	Mode key.Binding
}

func defaultFrameTimeKeys() frameTimeKeyMap {
	return frameTimeKeyMap{Mode: key.NewBinding(key.WithKeys("g"), key.WithHelp("g", "graph: frame time / phases"))}
}

// ShortHelp implements help.KeyMap.
func (k frameTimeKeyMap) ShortHelp() []key.Binding { return []key.Binding{k.Mode} }

// FullHelp implements help.KeyMap.
func (k frameTimeKeyMap) FullHelp() [][]key.Binding { return [][]key.Binding{k.ShortHelp()} }

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
	lines  []string
	row    cellRow
}

func newFrameTime(st *themes.Styles) frameTimeModel {
	return frameTimeModel{st: st, keys: defaultFrameTimeKeys()}
}

// SetSize sets the panel's outer size.
func (m frameTimeModel) SetSize(w, h int) frameTimeModel { m.w, m.h = w, h; return m.render() }

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
	gh := ih - 1
	if gh < 1 || cols <= 0 {
		m.lines = box(st, title, "", nil, m.w, m.h)
		return m
	}
	budget := 1000.0 / 60
	worst := 0.0
	for _, f := range fs {
		if f.IntervalMs > 0 {
			budget = f.IntervalMs
		}
		worst = math.Max(worst, f.CostMs)
	}
	// Scale: at least twice the budget, up to 8× to keep spikes visible without flattening
	// (4× for phases, whose proportions need the height).
	top := 8.0
	if phases {
		top = 4
	}
	scale := math.Max(2*budget, math.Min(worst, top*budget))
	scale = math.Ceil(scale/budget) * budget
	b8 := int(budget / scale * float64(gh*8))
	brow := gh - 1 - min(b8/8, gh-1) // row (from top) holding the budget line
	styles := make([]lipgloss.Style, 0, 16)
	styles = append(styles, st.DropLevel[:]...)               // 0..4 levels
	styles = append(styles, st.Budget, st.Bad, st.PhaseDelay) // 5 budget, 6 clipped, 7 delay
	styles = append(styles, st.Phase[:]...)                   // 8.. phases
	table := brushes(styles...)
	// Half-block cells of two phases (lower fg, upper bg) get brushes on first use.
	pairBase := len(table)
	table = append(table, make([]brush, 7*8)...)
	var pairs [7 * 8]bool
	phaseGlyph := []rune{'█', '█', '█', '█', '█', '█', '█'}
	if st.Mono {
		phaseGlyph = []rune{'·', '▒', '▓', '█', '▚', '▞', '░'}
	}
	var body []string
	for r := 0; r < gh; r++ {
		m.row.reset(cols)
		off := cols - len(fs)
		bottom := (gh - 1 - r) * 8
		for i, f := range fs {
			x := off + i
			e := int(math.Round(f.CostMs / scale * float64(gh*8)))
			clipped := e > gh*8
			if clipped {
				e = gh * 8
			}
			if e <= 0 && f.CostMs > 0 {
				e = 1
			}
			fill := e - bottom
			switch {
			case fill <= 0:
				if r == brow {
					m.row.set(x, '─', 5)
				}
			case phases && f.Phases != nil:
				if clipped && r == 0 {
					m.row.set(x, '↑', 6)
					continue
				}
				lo := float64(gh-1-r) / float64(gh) * scale
				step := scale / float64(gh)
				p := f.Phases
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
					if r == brow {
						m.row.set(x, '─', 5)
					}
				case st.Mono:
					m.row.set(x, phaseGlyph[low], 7+low)
				case up == low:
					m.row.set(x, '█', 7+low)
				default:
					k := pairBase + low*8 + up + 1
					if !pairs[k-pairBase] {
						pairs[k-pairBase] = true
						table[k] = brushes(st.HalfBlock(low, up))[0]
					}
					m.row.set(x, '▄', k)
				}
			default:
				ch := '█'
				if fill < 8 {
					ch = blocks[fill-1]
				}
				s := int(f.Level)
				if clipped && r == 0 {
					ch, s = '↑', 6
				}
				m.row.set(x, ch, s)
			}
		}
		label := ""
		switch r {
		case 0:
			label = ms(scale)
		case brow:
			label = ms(budget)
		}
		ls := st.Muted
		if r == brow {
			ls = st.Budget
		}
		body = append(body, ls.Render(alignRight(label, gw-1)+"┤")+m.row.render(table))
	}
	// Legend.
	var legend string
	switch {
	case phases:
		legend = ""
		for i, n := range themes.PhaseNames {
			if i > 0 {
				legend += " "
			}
			legend += st.Phase[i].Render(string(phaseGlyph[i+1])) + st.Muted.Render(n)
		}
	case len(fs) == 0:
		legend = st.Muted.Render("no frames yet")
	default:
		legend = st.Budget.Render("─") + st.Muted.Render(fmt.Sprintf(" budget %s ms · last %d frames · worst %s ms",
			ms(budget), len(fs), ms(worst)))
		if m.phases {
			legend += st.Muted.Render(" · no phase data")
		}
	}
	body = append(body, fit(legend, inner))
	m.lines = box(st, title, "", body, m.w, m.h)
	return m
}
