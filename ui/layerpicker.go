package ui

import (
	"fmt"
	"math"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/source"
	"github.com/fpstop/fpstop/themes"
)

// pickLayerMsg says a SurfaceFlinger layer was chosen.
type pickLayerMsg struct{ layer string }

// layerPickerKeyMap are the layer picker's keys: the list's, with vi's j/k, and l closes too.
type layerPickerKeyMap struct{ listKeyMap }

func defaultLayerPickerKeys() layerPickerKeyMap {
	l := defaultListKeys()
	l.Up.SetKeys("up", "k")
	l.Down.SetKeys("down", "j")
	l.Pick.SetHelp("enter", "measure this layer")
	l.Close.SetKeys("esc", "l")
	return layerPickerKeyMap{l}
}

// ShortHelp implements help.KeyMap.
func (k layerPickerKeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Up, k.Down, k.Pick, k.Close}
}

// FullHelp implements help.KeyMap.
func (k layerPickerKeyMap) FullHelp() [][]key.Binding { return [][]key.Binding{k.ShortHelp()} }

// layerPickerModel lists the app's SurfaceFlinger layers with their live rates (from the
// snapshot: the source lists them every 2 s) and picks the one to measure.
type layerPickerModel struct {
	st    *themes.Styles
	keys  layerPickerKeyMap
	items []metrics.LayerChoice
	list  listModel
	moved bool // the user moved the selection: new lists keep it
	w, h  int
}

func newLayerPicker(st *themes.Styles) layerPickerModel {
	keys := defaultLayerPickerKeys()
	list := newList()
	list.keys = keys.listKeyMap
	return layerPickerModel{st: st, keys: keys, list: list}
}

// SetSize sets the overlay's outer size.
func (m layerPickerModel) SetSize(w, h int) layerPickerModel { m.w, m.h = w, h; return m }

// SetStyles changes the theme.
func (m layerPickerModel) SetStyles(st *themes.Styles) layerPickerModel { m.st = st; return m }

// Open shows the snapshot's layers, the measured one selected.
func (m layerPickerModel) Open(s *metrics.Snapshot) layerPickerModel {
	m.moved, m.list = false, m.list.Reset()
	return m.set(s)
}

func (m layerPickerModel) set(s *metrics.Snapshot) layerPickerModel {
	if s == nil {
		return m
	}
	m.items = s.LayerChoices
	m.list = m.list.SetLen(len(m.items))
	if !m.moved {
		for i, c := range m.items {
			if c.Measured {
				m.list = m.list.Select(i)
			}
		}
	}
	return m
}

// Update refreshes the rates (dataMsg) and handles the picker keys.
func (m layerPickerModel) Update(msg tea.Msg) (layerPickerModel, tea.Cmd) {
	switch msg := msg.(type) {
	case dataMsg:
		return m.set(msg.snap), nil
	case tea.KeyMsg:
		var act listAction
		m.list, act = m.list.Update(msg)
		switch act {
		case listClosed:
			return m, func() tea.Msg { return closePickerMsg{} }
		case listMoved:
			m.moved = true
		case listPicked:
			i, _ := m.list.Selected()
			name := m.items[i].Name
			return m, func() tea.Msg { return pickLayerMsg{layer: name} }
		}
	}
	return m, nil
}

// rate is a layer's live rate as the picker prints it.
func rate(c metrics.LayerChoice) string {
	switch {
	case math.IsNaN(c.FPS):
		return "no frames"
	case c.FPS == 0:
		return "not presenting"
	}
	return fmt.Sprintf("%.0f fps", c.FPS)
}

// View renders the picker as a box of its size.
func (m layerPickerModel) View() []string {
	st, w, h := m.st, m.w, m.h
	inner := w - 4
	var body []string
	if len(m.items) == 0 {
		body = append(body, st.Muted.Render("no SurfaceFlinger layers listed yet (--source surfaceflinger lists them)"))
	}
	sel, _ := m.list.Selected()
	start, end := m.list.Window((h - 4) / 2)
	for i := start; i < end; i++ {
		c := m.items[i]
		tag := rate(c)
		if c.Measured {
			tag = "● " + tag
		}
		kind := spread("  "+c.Kind, tag, inner)
		name := truncate(source.Visible(c.Name), inner) // an app names its own layers
		switch {
		case i == sel:
			body = append(body, st.Selected.Render(spread(name, "", inner)), st.Selected.Render(kind))
		case c.Measured:
			body = append(body, st.Good.Render(name), st.Good.Render(kind))
		default:
			body = append(body, st.Text.Render(name), st.Muted.Render(kind))
		}
	}
	for len(body) < h-3 {
		body = append(body, "")
	}
	body = append(body[:min(len(body), h-3)], st.Muted.Render("↑/↓ choose · enter measure it · esc close"))
	return box(st, "SurfaceFlinger layers", "", body, w, h)
}

// truncate shortens s to n cells with an ellipsis.
func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n || n < 2 {
		return s
	}
	return string(r[:n-1]) + "…"
}
