package ui

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/x/ansi"

	"github.com/fpstop/fpstop/themes"
)

// The overview's keys, its footer and its help overlay: built from its key map and drawn with
// the theme's styles through the same footer, help box, compositing and canvas as one device's
// dashboard, so that a multi-device run looks like a single-device one.

// overviewKeyMap are the multi-device overview's keys.
type overviewKeyMap struct {
	Up, Down, Open, Help, Close, Theme, Quit key.Binding
}

func defaultOverviewKeys() overviewKeyMap {
	return overviewKeyMap{
		Up:    key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "previous device")),
		Down:  key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "next device")),
		Open:  key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open the device's dashboard (esc comes back)")),
		Help:  key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		Close: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "close overlay")),
		Theme: key.NewBinding(key.WithKeys("t"), key.WithHelp("t", "next theme (the dashboards follow)")),
		Quit:  key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
	}
}

// ShortHelp implements help.KeyMap: the overview's footer, help first.
func (k overviewKeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Help, hint(k.Quit, "q", "quit"), joined("↑/↓", "choose", k.Up, k.Down),
		hint(k.Open, "enter", "open a device (esc comes back)"), hint(k.Theme, "t", "theme")}
}

// FullHelp implements help.KeyMap.
func (k overviewKeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Quit, k.Help, k.Close}, {k.Up, k.Down, k.Open, k.Theme}}
}

// overviewHelpSections are the help overlay's sections over the overview.
func (k overviewKeyMap) sections() []helpSection {
	g := k.FullHelp()
	return []helpSection{{"General", g[0]}, {"Devices", g[1]}}
}

// composite draws the block ov centred over base, a screen of w×h lines; reset ends every
// style around it so that neither leaks into the other.
func composite(base, ov []string, w, h int, reset string) []string {
	if len(ov) == 0 {
		return base
	}
	ow, oh := width(ov[0]), len(ov)
	x0, y0 := (w-ow)/2, (h-oh)/2
	out := append([]string(nil), base...)
	for i, l := range ov {
		y := y0 + i
		if y < 0 || y >= len(out) {
			continue
		}
		b := out[y]
		if bw := width(b); bw < x0 {
			b += strings.Repeat(" ", x0-bw) // a short line (the overview's blank ones)
		}
		out[y] = ansi.Truncate(b, x0, "") + reset + l + reset + ansi.TruncateLeft(b, x0+ow, "")
	}
	return out
}

// paintLines puts the theme's canvas behind every line of a screen w wide (a light theme on a
// dark terminal), as the dashboard does.
func paintLines(st *themes.Styles, lines []string, w int) []string {
	if st.Canvas != "" {
		for i, l := range lines {
			lines[i] = st.Paint(l, width(l), w)
		}
	}
	return lines
}
