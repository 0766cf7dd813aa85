package cli

import (
	"fmt"

	"github.com/fpstop/fpstop/source"
)

// perfettoHint is auto's word on Perfetto: on Android 12+ with an app that does not log its
// Looper messages, `--source perfetto` is what names the work behind each janky frame; on an
// older phone, why gfxinfo is all there is. auto does not start tracing by itself
// (docs/perfetto.md says why): it says so once.
func perfettoHint(s source.Session) string {
	if s.Package == "" {
		return ""
	}
	if s.Device.SDK > 0 && s.Device.SDK < 31 {
		return fmt.Sprintf("Android %s: reading gfxinfo — Perfetto's FrameTimeline (each janky frame's work and blame) needs Android 12+",
			orSDK(s.Device))
	}
	if s.Device.SDK < 31 {
		return ""
	}
	return "Android 12+: --source perfetto shows each janky frame's work and blame"
}

// orSDK names a phone's Android release, or its SDK level when the release is unknown.
func orSDK(d source.Device) string {
	if d.Android != "" {
		return d.Android
	}
	return fmt.Sprintf("SDK %d", d.SDK)
}
