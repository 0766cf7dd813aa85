package ui

import (
	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
)

// The footer's hints and the help overlay's sections, built from the components' key maps
// (ShortHelp for the footer, FullHelp for the overlay), so neither can drift from the keys the
// dashboard handles.

// helpSections lists every key for the help overlay.
func (m Model) helpSections() []helpSection {
	g := m.keys.FullHelp()
	var panels []key.Binding
	for _, km := range m.panelKeyMaps() {
		for _, col := range km.FullHelp() {
			panels = append(panels, col...)
		}
	}
	secs := []helpSection{{"General", g[0]}, {"Dashboard", g[1]}, {"Panels", panels}}
	if m.opts.Replay != nil {
		secs = append(secs, helpSection{"Replay", m.replay.keys.FullHelp()[0]})
	}
	// The timeline's keys, as its own footer shows them (joined pairs keep the overlay short).
	return append(secs, helpSection{"Timeline (f)", m.tl.keys.ShortHelp()})
}

// panelKeyMaps are the key maps of the panels with keys of their own, in footer order.
func (m Model) panelKeyMaps() []help.KeyMap {
	return []help.KeyMap{m.wins.keys, m.msgs.keys, m.ft.keys}
}

// footerKeys are the footer's hints, most used first (the footer is cut on the right when the
// terminal is narrow): help, quit, pause (replay's keys in its place, whose space plays and
// pauses there), record, the source switch on offer (P), the panels' keys, then the rest of
// the global keys this session offers, the panel toggles last. The help overlay still lists every key.
func (m Model) footerKeys() []key.Binding {
	global := m.keys.ShortHelp()
	ks := []key.Binding{global[0]}
	var later []key.Binding
	for _, b := range global[1 : len(global)-1] {
		switch {
		case sameKeys(b, m.keys.Pause) && m.opts.Replay != nil:
			ks = append(ks, m.replay.keys.ShortHelp()...)
		case !m.offered(b):
		case sameKeys(b, m.keys.Source):
			// what P switches to now, early: the notice line names the key
			ks = append(ks, hint(b, "P", m.offer.Label))
		case sameKeys(b, m.keys.Quit), sameKeys(b, m.keys.Pause), sameKeys(b, m.keys.Record):
			ks = append(ks, b)
		default:
			later = append(later, b)
		}
	}
	if m.focused() == panelFrameTime {
		ks = append(ks, m.ft.keys.FocusHelp())
	}
	for _, km := range m.panelKeyMaps() {
		ks = append(ks, km.ShortHelp()...)
	}
	return append(append(ks, later...), global[len(global)-1])
}

// footerMode says which hints the footer shows: the open overlay's, the filter's while one is
// typed (-1), else the dashboard's (overlayNone).
func (m Model) footerMode() int {
	if m.overlay == overlayNone && m.msgs.Typing() {
		return -1
	}
	if m.overlay == overlayNone && m.focused() == panelFrameTime {
		return -2 // the dashboard's, with the graph's enter
	}
	return int(m.overlay)
}

// overlayFooter are the footer's hints while an overlay is open: its own keys, never the
// dashboard's (`r` refreshes the device picker, it does not record); while a filter is typed,
// the filter's.
func (m Model) overlayFooter() []key.Binding {
	if m.footerMode() == -1 {
		return m.msgs.keys.TypingHelp()
	}
	switch m.overlay {
	case overlayDevices:
		return m.devs.keys.ShortHelp()
	case overlayApps:
		return m.apps.keys.ShortHelp()
	case overlayLayers:
		return m.layers.keys.ShortHelp()
	case overlayDetail:
		return []key.Binding{m.msgs.keys.Close, m.msgs.keys.Up, m.msgs.keys.Down, hint(m.keys.Quit, "q", "quit")}
	case overlayHelp:
		return []key.Binding{hint(m.keys.Close, "esc/?", "close help"), hint(m.keys.Quit, "q", "quit")}
	}
	return m.footerKeys()
}

// offered reports whether the session has what a global key needs.
func (m Model) offered(b key.Binding) bool {
	switch {
	case sameKeys(b, m.keys.Record):
		return m.be.record != nil
	case sameKeys(b, m.keys.Clear):
		return m.be.clear != nil
	case sameKeys(b, m.keys.Devices):
		return m.be.devs != nil
	case sameKeys(b, m.keys.Apps):
		return m.be.apps != nil
	case sameKeys(b, m.keys.Layers):
		return m.be.layer != nil && m.layerHint
	case sameKeys(b, m.keys.Source):
		return m.be.source != nil && m.offer.Kind != "" && m.offer.Label != ""
	}
	return true
}
