package ui

import (
	"context"
	"errors"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/fpstop/fpstop/themes"
)

// AppItem is one installed or running app as the app picker shows it.
type AppItem struct {
	Package string
	// Label is a human name when known ("" otherwise).
	Label string
	// Foreground marks the app on screen now: it is listed first.
	Foreground bool
	// Running marks apps with a live process.
	Running bool
}

var errNoDevices = errors.New("device listing is not available in this mode")

// appsMsg carries the result of an Apps call.
type appsMsg struct {
	gen   int
	items []AppItem
	err   error
}

// pickAppMsg says an app was chosen.
type pickAppMsg struct{ serial, pkg string }

// appPickerKeyMap are the app picker's keys: the list's and erase; letters type into the
// filter (so no vi keys here).
type appPickerKeyMap struct {
	listKeyMap
	Erase key.Binding
}

func defaultAppPickerKeys() appPickerKeyMap {
	return appPickerKeyMap{
		listKeyMap: defaultListKeys(),
		Erase:      key.NewBinding(key.WithKeys("backspace"), key.WithHelp("⌫", "erase filter")),
	}
}

// ShortHelp implements help.KeyMap.
func (k appPickerKeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Up, k.Down, k.Pick, k.Erase, k.Close}
}

// FullHelp implements help.KeyMap.
func (k appPickerKeyMap) FullHelp() [][]key.Binding { return [][]key.Binding{k.ShortHelp()} }

// appPickerModel lists a device's apps (foreground app first) fetched by the Apps callback
// inside a Cmd; typing filters the list.
type appPickerModel struct {
	st      *themes.Styles
	keys    appPickerKeyMap
	fetch   func(ctx context.Context, serial string) ([]AppItem, error)
	serial  string
	gen     int
	loading bool
	// pending: enter was pressed while the list was loading; the row under the cursor (the
	// foreground app, listed first) is picked as soon as the list arrives, so a quick
	// `d ↓ enter enter` is not lost to a slow device.
	pending bool
	// chosen is the app picked, taken by the dashboard in the same Update (take).
	chosen *pickAppMsg
	items  []AppItem
	err    error
	filter string
	shown  []int // indexes into items of the rows the filter lets through
	list   listModel
	w, h   int
}

func newAppPicker(st *themes.Styles, fetch func(ctx context.Context, serial string) ([]AppItem, error)) appPickerModel {
	keys := defaultAppPickerKeys()
	list := newList()
	list.keys = keys.listKeyMap
	return appPickerModel{st: st, keys: keys, fetch: fetch, list: list}
}

// SetSize sets the overlay's outer size.
func (m appPickerModel) SetSize(w, h int) appPickerModel { m.w, m.h = w, h; return m }

// SetStyles changes the theme.
func (m appPickerModel) SetStyles(st *themes.Styles) appPickerModel { m.st = st; return m }

// Load starts fetching serial's apps.
func (m appPickerModel) Load(serial string) (appPickerModel, tea.Cmd) {
	m.gen++
	m.serial, m.filter, m.items, m.shown = serial, "", nil, nil
	m.list = m.list.Reset().SetLen(0)
	m.loading, m.err, m.pending, m.chosen = true, nil, false, nil
	fetch, gen := m.fetch, m.gen
	if fetch == nil {
		m.loading, m.err = false, errors.New("app listing is not available in this mode")
		return m, nil
	}
	return m, func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), PickerTimeout)
		defer cancel()
		items, err := fetch(ctx, serial)
		return appsMsg{gen: gen, items: items, err: err}
	}
}

// Update handles the list result, typing and the picker keys.
func (m appPickerModel) Update(msg tea.Msg) (appPickerModel, tea.Cmd) {
	switch msg := msg.(type) {
	case appsMsg:
		if msg.gen == m.gen {
			m.loading, m.err = false, msg.err
			// Foreground apps first, otherwise the callback's order; the caller's slice is
			// copied, never reordered.
			m.items = make([]AppItem, 0, len(msg.items))
			for _, a := range msg.items {
				if a.Foreground {
					m.items = append(m.items, a)
				}
			}
			for _, a := range msg.items {
				if !a.Foreground {
					m.items = append(m.items, a)
				}
			}
			m.refilter()
			if m.pending {
				m.pending = false
				m = m.choose()
			}
		}
	case tea.KeyMsg:
		var act listAction
		m.list, act = m.list.Update(msg)
		switch act {
		case listClosed:
			return m, func() tea.Msg { return closePickerMsg{} }
		case listPicked:
			return m.choose(), nil
		case listMoved:
			if m.loading && key.Matches(msg, m.keys.Pick) {
				m.pending = true
			}
			return m, nil
		}
		switch {
		case key.Matches(msg, m.keys.Erase):
			if r := []rune(m.filter); len(r) > 0 {
				m.filter = string(r[:len(r)-1])
				m.refilter()
			}
		case msg.Type == tea.KeyRunes:
			m.filter += string(msg.Runes)
			m.refilter()
		}
	}
	return m, nil
}

// choose picks the row under the cursor (nothing when no row is shown).
func (m appPickerModel) choose() appPickerModel {
	if i, ok := m.list.Selected(); ok {
		m.chosen = &pickAppMsg{serial: m.serial, pkg: m.items[m.shown[i]].Package}
	}
	return m
}

// take returns the app picked (nil when none) and forgets it.
func (m appPickerModel) take() (appPickerModel, *pickAppMsg) {
	c := m.chosen
	m.chosen = nil
	return m, c
}

func (m *appPickerModel) refilter() {
	f := strings.ToLower(m.filter)
	m.shown = m.shown[:0]
	for i, a := range m.items {
		if f == "" || strings.Contains(strings.ToLower(a.Package), f) || strings.Contains(strings.ToLower(a.Label), f) {
			m.shown = append(m.shown, i)
		}
	}
	m.list = m.list.SetLen(len(m.shown))
}

// View renders the picker as a box of its size.
func (m appPickerModel) View() []string {
	st, w, h := m.st, m.w, m.h
	inner := w - 4
	body := []string{st.Text.Render("filter: ") + st.Accent.Render(m.filter+"▏")}
	switch {
	case m.loading:
		if m.pending {
			body = append(body, st.Muted.Render("listing apps… enter picks the first once listed"))
		} else {
			body = append(body, st.Muted.Render("listing apps…"))
		}
	case m.err != nil:
		for _, l := range wrap("✕ "+m.err.Error(), inner) {
			body = append(body, st.Bad.Render(l))
		}
	case len(m.shown) == 0:
		body = append(body, st.Muted.Render("no app matches"))
	}
	sel, _ := m.list.Selected()
	start, end := m.list.Window(h - 4)
	for i := start; i < end; i++ {
		a := m.items[m.shown[i]]
		tag := ""
		switch {
		case a.Foreground:
			tag = "foreground"
		case a.Running:
			tag = "running"
		}
		name := a.Package
		if a.Label != "" {
			name += " (" + a.Label + ")"
		}
		line := spread(name, tag, inner)
		if i == sel {
			body = append(body, st.Selected.Render(line))
		} else if a.Foreground {
			body = append(body, st.Good.Render(line))
		} else {
			body = append(body, st.Text.Render(line))
		}
	}
	for len(body) < h-3 {
		body = append(body, "")
	}
	body = append(body[:min(len(body), h-3)], st.Muted.Render("type to filter · ↑/↓ choose · enter pick · esc close"))
	title := "Apps"
	if m.serial != "" {
		title += " on " + m.serial
	}
	return box(st, title, "", body, w, h)
}
