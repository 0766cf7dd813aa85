package ui

import (
	"strings"
	"testing"

	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/source"
)

// TestScreenEscapesInvisibleCharacters (issue 31): names an app chooses (windows, Looper
// handlers, a SurfaceFlinger layer, a notice quoting one) reach the screen with their bidi
// controls and zero-width characters shown as escapes, so a name cannot display as another.
func TestScreenEscapesInvisibleCharacters(t *testing.T) {
	p := metrics.NewPipeline(metrics.Config{})
	T := int64(16_666_667)
	t0 := int64(3_000_000_000_000)
	evs := []source.Event{&source.Session{Source: source.KindGfxinfo, Package: "com.example.app", Pid: 7,
		Device: source.Device{Model: "Pix\u202eel", Serial: "emulator-5554"}}}
	for i := 0; i < 240; i++ {
		v := t0 + int64(i)*T
		cost := T / 2
		if i%20 == 10 {
			cost = 6 * T
		}
		evs = append(evs, &source.Frame{Window: "Pay\u202eyaP.apk", Process: "com.example.app", VsyncNs: v, DoneNs: v + cost, IntervalNs: T},
			&source.LayerFrame{Layer: "Surface\u200bView#3", DesiredNs: v, PresentNs: v + T, PeriodNs: T})
		if i%20 == 10 {
			evs = append(evs, &source.Message{Thread: "main", Handler: "Evil\u202eHandler", Callback: "Cb\u2066x", What: 1, StartNs: v, EndNs: v + 5*T})
		}
	}
	evs = append(evs, &source.Notice{AtNs: t0 + 240*T, Level: source.LevelWarn, State: source.StateNoFrames, Text: "no frames from Pay\u202eyaP.apk"},
		&source.Tick{NowNs: t0 + 241*T})
	p.AddBatch(evs)
	snap := p.Snapshot()
	m := dashboard(t, testOpts(), 200, 60, snap)
	view := m.View()
	if i := strings.IndexFunc(view, func(r rune) bool { return r == 0x202e || r == 0x200b || r == 0x2066 }); i >= 0 {
		t.Errorf("an invisible character reached the screen: %q", view[max(0, i-60):min(len(view), i+60)])
	}
	if !strings.Contains(view, `Pay\u202eyaP.apk`) {
		t.Errorf("the window's name is not shown escaped:\n%s", view)
	}
}
