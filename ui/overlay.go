package ui

import "github.com/charmbracelet/x/ansi"

// Overlays: what covers the dashboard (help, message details, pickers) and how it is
// composited over the dashboard's lines.

// overlay is what covers the dashboard.
type overlay int

const (
	overlayNone overlay = iota
	overlayHelp
	overlayDetail
	overlayDevices
	overlayApps
	overlayLayers
	overlayTimeline // full screen: View shows the timeline instead of the dashboard
)

// drawOverlay draws the open overlay centred over the dashboard lines.
func (m Model) drawOverlay(base []string) []string {
	var ov []string
	switch m.overlay {
	case overlayHelp:
		ov = m.help.View()
	case overlayDetail:
		ov = m.msgs.DetailView(min(m.w-4, 90), min(m.h-2, 22))
	case overlayDevices:
		ov = m.devs.View()
	case overlayApps:
		ov = m.apps.View()
	case overlayLayers:
		ov = m.layers.View()
	}
	if len(ov) == 0 {
		return base
	}
	ow, oh := width(ov[0]), len(ov)
	x0, y0 := (m.w-ow)/2, (m.h-oh)/2
	reset := m.st.Reset()
	out := append([]string(nil), base...)
	for i, l := range ov {
		y := y0 + i
		if y < 0 || y >= len(out) {
			continue
		}
		b := out[y]
		out[y] = ansi.Truncate(b, x0, "") + reset + l + reset + ansi.TruncateLeft(b, x0+ow, "")
	}
	return out
}
