package ui

import (
	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
)

// KeyMap are the dashboard's global keys, handled by the root model. Panel keys live with
// their panels (g frame-time graph, s/↑/↓/enter messages, w windows, replay keys).
type KeyMap struct {
	Quit    key.Binding
	Help    key.Binding
	Close   key.Binding
	Pause   key.Binding
	Record  key.Binding
	Devices key.Binding
	Apps    key.Binding
	Layers  key.Binding
	// Source switches the app's source (Perfetto and back) when the session offers one.
	Source key.Binding
	Theme  key.Binding
	Clear  key.Binding
	// Focus moves the focus between the panels enter acts on (messages table, frame-time graph).
	Focus key.Binding
	// Panels are the number keys 1-7: each shows or hides one panel (btop-style).
	Panels key.Binding
}

// DefaultKeyMap returns the global keys in the style of top/btop/k9s.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Quit:    key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
		Help:    key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		Close:   key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "close overlay")),
		Pause:   key.NewBinding(key.WithKeys("p", " "), key.WithHelp("p/space", "pause the screen")),
		Record:  key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "start/stop recording")),
		Devices: key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "device picker")),
		Apps:    key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "app picker")),
		Layers:  key.NewBinding(key.WithKeys("l"), key.WithHelp("l", "SurfaceFlinger layer picker")),
		Source:  key.NewBinding(key.WithKeys("P"), key.WithHelp("P", "Perfetto on/off: each janky frame's work and blame")),
		Theme:   key.NewBinding(key.WithKeys("t"), key.WithHelp("t", "next theme")),
		Clear:   key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "clear statistics")),
		Focus:   key.NewBinding(key.WithKeys("tab", "shift+tab"), key.WithHelp("tab", "focus for enter: messages ↔ graph")),
		Panels: key.NewBinding(key.WithKeys("1", "2", "3", "4", "5", "6", "7"),
			key.WithHelp("1-7", "show/hide panels (1 FPS … 7 worst)")),
	}
}

// ShortHelp implements help.KeyMap: the footer's hints, help first (the footer is cut on the
// right when the terminal is narrow, and `? help` must stay).
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Help, hint(k.Quit, "q", "quit"), hint(k.Pause, "p", "pause"), hint(k.Record, "r", "rec"),
		hint(k.Theme, "t", "theme"), hint(k.Clear, "c", "clear"), hint(k.Devices, "d", "device"),
		hint(k.Apps, "a", "app"), hint(k.Layers, "l", "layer"), hint(k.Source, "P", "perfetto"), hint(k.Panels, "1-7", "panels")}
}

// hint is b as a footer hint: the same keys (so a hint can never offer a key the map does not
// bind) under a short label.
func hint(b key.Binding, keyLabel, desc string) key.Binding {
	b.SetHelp(keyLabel, desc)
	return b
}

// joined is one hint for several bindings (e.g. ←/→ seek): their keys under one label.
func joined(keyLabel, desc string, bs ...key.Binding) key.Binding {
	var ks []string
	for _, b := range bs {
		ks = append(ks, b.Keys()...)
	}
	return key.NewBinding(key.WithKeys(ks...), key.WithHelp(keyLabel, desc))
}

// sameKeys reports whether a and b are bound to the same keys (a hint and its binding).
func sameKeys(a, b key.Binding) bool {
	ak, bk := a.Keys(), b.Keys()
	if len(ak) != len(bk) {
		return false
	}
	for i := range ak {
		if ak[i] != bk[i] {
			return false
		}
	}
	return true
}

// FullHelp implements help.KeyMap.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Quit, k.Help, k.Close},
		{k.Pause, k.Record, k.Clear, k.Theme, k.Devices, k.Apps, k.Layers, k.Source, k.Focus, k.Panels},
	}
}

// Every key map feeds bubbles/help (footer hints, the help overlay).
var (
	_ help.KeyMap = KeyMap{}
	_ help.KeyMap = frameTimeKeyMap{}
	_ help.KeyMap = messagesKeyMap{}
	_ help.KeyMap = windowsKeyMap{}
	_ help.KeyMap = replayKeyMap{}
	_ help.KeyMap = pickerKeyMap{}
	_ help.KeyMap = appPickerKeyMap{}
	_ help.KeyMap = layerPickerKeyMap{}
)
