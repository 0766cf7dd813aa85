package cli

import (
	"context"
	"fmt"

	"github.com/fpstop/fpstop/source"
	"github.com/fpstop/fpstop/source/perfetto"
)

// perfettoSource opens --source perfetto: the first session is started here, so that a phone
// refusing it (Android 11 or older, tracing busy) ends fpstop at once with one line (exit 3)
// instead of a dashboard without frames.
func (a *app) perfettoSource(ctx context.Context, t *target) (*opened, error) {
	live := perfetto.NewLive(t.dev(), perfetto.LiveOptions{Package: t.pkg, Device: t.sessionDevice(),
		KeepRaw: a.opts.RecordRaw})
	if err := live.Start(ctx); err != nil {
		return nil, runtimeErr(fmt.Errorf("--source perfetto: %w", err))
	}
	var pre []source.Event
	if t.refresh > 0 {
		pre = append(pre, &source.Refresh{Hz: t.refresh})
	}
	return &opened{src: source.Prefixed(pre, live), kind: "perfetto", live: true,
		device: source.Session{Device: t.sessionDevice(), Package: t.pkg}}, nil
}

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
