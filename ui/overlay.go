package ui

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
	return composite(base, ov, m.w, m.h, m.st.Reset())
}
