package ui

import (
	"fmt"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/themes"
)

// windowsKeyMap are the per-window table's keys.
type windowsKeyMap struct {
	Filter key.Binding
}

func defaultWindowsKeys() windowsKeyMap {
	return windowsKeyMap{Filter: key.NewBinding(key.WithKeys("w"), key.WithHelp("w", "window filter (all → each)"))}
}

// ShortHelp implements help.KeyMap.
func (k windowsKeyMap) ShortHelp() []key.Binding {
	return []key.Binding{hint(k.Filter, "w", "window")}
}

// FullHelp implements help.KeyMap.
func (k windowsKeyMap) FullHelp() [][]key.Binding { return [][]key.Binding{{k.Filter}} }

// windowsModel is the per-window table (name, visible, frames, fps, jank%, p90) and owns the
// window filter: `w` cycles all → each window → all. The root passes the filter to the other
// panels.
type windowsModel struct {
	st      *themes.Styles
	keys    windowsKeyMap
	w, h    int
	windows []metrics.WindowSnapshot
	layer   bool // a SurfaceFlinger layer is measured: no window is read
	filter  string
	lines   []string
}

func newWindows(st *themes.Styles) windowsModel {
	return windowsModel{st: st, keys: defaultWindowsKeys()}
}

// SetSize sets the panel's outer size.
func (m windowsModel) SetSize(w, h int) windowsModel { m.w, m.h = w, h; return m.render() }

// SetStyles changes the theme.
func (m windowsModel) SetStyles(st *themes.Styles) windowsModel { m.st = st; return m.render() }

// Filter is the selected window ("" = all windows).
func (m windowsModel) Filter() string { return m.filter }

// Update applies data and the `w` key.
func (m windowsModel) Update(msg tea.Msg) (windowsModel, tea.Cmd) {
	switch msg := msg.(type) {
	case dataMsg:
		if msg.snap != nil {
			m.windows = msg.snap.Windows
			m.layer = msg.snap.Session.Layer != ""
		}
		return m.render(), nil
	case tea.KeyMsg:
		if key.Matches(msg, m.keys.Filter) {
			m.filter = m.next()
			return m.render(), nil
		}
	}
	return m, nil
}

// next is the filter after the current one: all → windows in table order → all.
func (m windowsModel) next() string {
	if len(m.windows) == 0 {
		return ""
	}
	if m.filter == "" {
		return m.windows[0].Name
	}
	for i, w := range m.windows {
		if w.Name == m.filter {
			if i+1 < len(m.windows) {
				return m.windows[i+1].Name
			}
			return ""
		}
	}
	return ""
}

// View returns the cached panel.
func (m windowsModel) View() []string { return m.lines }

func (m windowsModel) render() windowsModel {
	if m.w <= 0 || m.h <= 0 {
		m.lines = nil
		return m
	}
	st := m.st
	inner := m.w - 4
	const fw, pw, jw, p9 = 6, 5, 6, 6
	vw := 3
	bw := 0 // the blame column, when FrameTimeline blames (Perfetto) and there is room
	for _, w := range m.windows {
		if w.Blame != nil {
			bw = 11
		}
	}
	nw := inner - (vw + fw + pw + jw + p9 + 5)
	if bw > 0 && nw-bw-1 >= 16 {
		nw -= bw + 1
	} else {
		bw = 0
	}
	if nw < 12 { // narrow: hidden windows are told apart by their muted rows only
		nw += vw + 1
		vw = 0
	}
	row := func(n, v, f, fps, j, p, b string) string {
		s := fit(n, nw) + " "
		if vw > 0 {
			s += center(v, vw) + " "
		}
		s += alignRight(f, fw) + " " + alignRight(fps, pw) + " " + alignRight(j, jw) + " " + alignRight(p, p9)
		if bw > 0 {
			s += " " + alignRight(fit(b, bw), bw)
		}
		return s
	}
	body := []string{st.TableHead.Render(row("window", "vis", "frames", "fps", "jank %", "p90 ms", "blame"))}
	switch {
	case len(m.windows) == 0 && m.layer:
		// not "yet": a layer's presents say nothing of the app's windows
		body = append(body, st.Muted.Render(fit("none: a layer is measured, not windows", inner)))
	case len(m.windows) == 0:
		body = append(body, st.Muted.Render("no windows yet"))
	}
	for _, w := range m.windows {
		vis := "✓"
		if !w.Visible {
			vis = "-"
		}
		p90 := "—"
		if w.Totals.Percentiles != nil {
			p90 = msCell(float64(w.Totals.Percentiles.P90))
		}
		jank := "—"
		if w.Totals.Frames > 0 {
			jank = num(w.Totals.JankPct, 1)
		}
		name := shortClass(w.Name)
		if w.Name == m.filter {
			name = "▸ " + name
		}
		line := row(name, vis, count(w.Totals.Frames), num(w.Totals.FPS, 1), jank, p90, blameTop(w.Blame))
		switch {
		case w.Name == m.filter:
			line = st.Selected.Render(fit(line, inner))
		case !w.Visible:
			line = st.Muted.Render(line)
		default:
			line = st.Text.Render(line)
		}
		body = append(body, line)
	}
	right := st.Muted.Render("filter: all")
	if m.filter != "" {
		right = st.Accent.Render(fmt.Sprintf("filter: %s", shortClass(m.filter)))
	}
	m.lines = box(st, "Windows", right, body, m.w, m.h)
	return m
}

// Want is the panel's height with every window listed.
func (m windowsModel) Want() int { return max(len(m.windows), 1) + 3 }
