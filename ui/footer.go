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
	return secs
}

// panelKeyMaps are the key maps of the panels with keys of their own, in footer order.
func (m Model) panelKeyMaps() []help.KeyMap {
	return []help.KeyMap{m.wins.keys, m.msgs.keys, m.ft.keys}
}

// footerKeys are the footer's hints: the global keys this session offers (replay's keys in
// place of pause, whose space plays and pauses there), the panels' keys, help last. The help
// overlay still lists every key.
func (m Model) footerKeys() []key.Binding {
	var ks []key.Binding
	global := m.keys.ShortHelp()
	for _, b := range global[:len(global)-1] {
		switch {
		case sameKeys(b, m.keys.Pause) && m.opts.Replay != nil:
			ks = append(ks, m.replay.keys.ShortHelp()...)
		case m.offered(b):
			ks = append(ks, b)
		}
	}
	for _, km := range m.panelKeyMaps() {
		ks = append(ks, km.ShortHelp()...)
	}
	return append(ks, global[len(global)-1])
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
	}
	return true
}
