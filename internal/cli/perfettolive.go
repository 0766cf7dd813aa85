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
// Looper messages, `--source perfetto` is what names the work behind each janky frame. auto
// does not start tracing by itself (docs/perfetto.md says why): it says so once.
func perfettoHint(s source.Session) string {
	if s.Device.SDK < 31 || s.Package == "" {
		return ""
	}
	return "Android 12+: --source perfetto shows each janky frame's work and blame"
}
