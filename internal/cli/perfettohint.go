package cli

import (
	"fmt"

	"github.com/fpstop/fpstop/device"
	"github.com/fpstop/fpstop/source"
)

// perfettoHint is auto's word on Perfetto on a phone older than Android 12: why gfxinfo is all
// there is. On Android 12+ the dashboard offers Perfetto instead (`P`, perfettoOffer): auto
// does not start tracing by itself (docs/perfetto.md says why).
func perfettoHint(s source.Session) string {
	if s.Package == "" || s.Device.SDK <= 0 || s.Device.SDK >= device.PerfettoMinSDK {
		return ""
	}
	return fmt.Sprintf("Android %s: reading gfxinfo — Perfetto's FrameTimeline needs Android 12+",
		orSDK(s.Device))
}

// orSDK names a phone's Android release, or its SDK level when the release is unknown.
func orSDK(d source.Device) string {
	if d.Android != "" {
		return d.Android
	}
	return fmt.Sprintf("SDK %d", d.SDK)
}
