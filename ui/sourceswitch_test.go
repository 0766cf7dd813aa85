package ui

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest"

	"github.com/fpstop/fpstop/internal/testkit/fixture"
	"github.com/fpstop/fpstop/metrics"
)

// fakeSources is a Session that is a SourceSwitcher: it offers Perfetto and answers a switch
// with refuse's error (nil: the switch happens, and the offer becomes the way back).
type fakeSources struct {
	mu     sync.Mutex
	snap   *metrics.Snapshot
	offer  SourceOffer
	refuse error
	asked  []string
}

const offerText = "press P for Perfetto: each janky frame's work and blame"

func newFakeSources(snap *metrics.Snapshot) *fakeSources {
	snap.Warnings = nil // the notice line, not a warning's flash
	return &fakeSources{snap: snap, offer: SourceOffer{Kind: "perfetto", Label: "perfetto", Text: offerText}}
}

func (f *fakeSources) Latest() *metrics.Snapshot { f.mu.Lock(); defer f.mu.Unlock(); return f.snap }
func (f *fakeSources) Clear()                    {}
func (f *fakeSources) SourceOffer() SourceOffer {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.offer
}
func (f *fakeSources) SwitchSource(_ context.Context, kind string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.asked = append(f.asked, kind)
	if f.refuse != nil {
		f.offer.Text = f.refuse.Error() + " · P retries"
		return "", f.refuse
	}
	if kind == "perfetto" {
		f.offer = SourceOffer{Kind: "auto", Label: "back to gfxinfo"}
		return "com.example.feed through Perfetto's FrameTimeline", nil
	}
	f.offer = SourceOffer{Kind: "perfetto", Label: "perfetto", Text: offerText}
	return "com.example.feed through gfxinfo", nil
}

// sourceDashboard is a 120×40 dashboard on f after its first refresh (the offer is read there).
func sourceDashboard(t *testing.T, f *fakeSources) Model {
	t.Helper()
	o := testOpts().Options
	o.Session = f
	m := New(o)
	m = update(t, m, tea.WindowSizeMsg{Width: 120, Height: 40})
	return run(t, m, m.poll(0)())
}

// footerLine is the view's last line (the key hints).
func footerLine(v string) string {
	l := strings.Split(v, "\n")
	return l[len(l)-1]
}

// TestPerfettoOffer: auto on Android 12+ offers Perfetto on the notice line and as `P` in the
// footer; nothing is switched until the key is pressed; golden View().
func TestPerfettoOffer(t *testing.T) {
	f := newFakeSources(fixture.GfxinfoOnly())
	m := sourceDashboard(t, f)
	v := m.View()
	checkFrame(t, v, 120, 40)
	if !strings.Contains(v, "press P for Perfetto") {
		t.Errorf("no offer on the notice line:\n%s", v)
	}
	if !strings.Contains(footerLine(v), "P perfetto") {
		t.Errorf("footer without P: %q", footerLine(v))
	}
	if len(f.asked) != 0 {
		t.Errorf("switched before the key: %v", f.asked)
	}
	golden.RequireEqual(t, []byte(v))
}

// TestPerfettoKeySwitches: P switches to Perfetto (the flash says so, the offer leaves the notice
// line, the footer's P goes back); P again goes back to gfxinfo and the offer returns.
func TestPerfettoKeySwitches(t *testing.T) {
	f := newFakeSources(fixture.GfxinfoOnly())
	m := sourceDashboard(t, f)
	m = run(t, m, keyMsg("P"))
	v := m.View()
	if len(f.asked) != 1 || f.asked[0] != "perfetto" {
		t.Fatalf("P asked %v, want [perfetto]", f.asked)
	}
	if !strings.Contains(v, "now reading com.example.feed through Perfetto's FrameTimeline") || strings.Contains(m.status(), "press P for Perfetto") {
		t.Errorf("after P:\nstatus %q\n%s", m.status(), v)
	}
	if !strings.Contains(footerLine(v), "P back to gfxinfo") {
		t.Errorf("footer after P: %q", footerLine(v))
	}
	m = run(t, m, keyMsg("P"))
	if len(f.asked) != 2 || f.asked[1] != "auto" {
		t.Fatalf("P again asked %v, want [perfetto auto]", f.asked)
	}
	if !strings.Contains(m.status(), "press P for Perfetto") || !strings.Contains(footerLine(m.View()), "P perfetto") {
		t.Errorf("the offer is not back: status %q footer %q", m.status(), footerLine(m.View()))
	}
}

// TestPerfettoRefusedStays: tracing busy: the source stays (nothing else is asked), and the
// notice line says why in one line, with no command text; golden View().
func TestPerfettoRefusedStays(t *testing.T) {
	f := newFakeSources(fixture.GfxinfoOnly())
	f.refuse = errors.New("Perfetto not started: tracing is busy on the phone (another tool's session) — still reading gfxinfo")
	m := sourceDashboard(t, f)
	m = run(t, m, keyMsg("P"))
	m = run(t, m, clearFlashMsg{id: m.flash.id}) // the flash ran out: the notice line stays
	v := m.View()
	checkFrame(t, v, 120, 40)
	if !strings.Contains(m.status(), "tracing is busy on the phone") || !strings.Contains(m.status(), "still reading gfxinfo") {
		t.Errorf("status after a refusal: %q", m.status())
	}
	if strings.Contains(v, "adb ") || strings.Contains(v, "perfetto --") {
		t.Errorf("command text on screen:\n%s", v)
	}
	if !strings.Contains(footerLine(v), "P perfetto") || m.switching {
		t.Errorf("after a refusal P should be offered again: footer %q switching %v", footerLine(v), m.switching)
	}
	golden.RequireEqual(t, []byte(v))
}

// TestNoSourceSwitch: a session that cannot switch sources (simulator, a file) has no P hint,
// and P says why instead of doing nothing.
func TestNoSourceSwitch(t *testing.T) {
	m := dashboard(t, testOpts(), 120, 40, fixture.GfxinfoOnly())
	if strings.Contains(footerLine(m.View()), "P ") {
		t.Errorf("footer offers P: %q", footerLine(m.View()))
	}
	m = run(t, m, keyMsg("P"))
	if !strings.Contains(m.View(), "P: no other source here") {
		t.Errorf("P said nothing:\n%s", m.View())
	}
	// a switcher with nothing on offer (the app logs Looper messages, or Android 11)
	f := newFakeSources(fixture.GfxinfoOnly())
	f.offer = SourceOffer{}
	m = sourceDashboard(t, f)
	m = run(t, m, keyMsg("P"))
	if len(f.asked) != 0 || !strings.Contains(m.View(), "P: nothing to switch to") {
		t.Errorf("P with nothing on offer asked %v:\n%s", f.asked, m.View())
	}
}

// TestPerfettoKeyFlow: in a real Bubble Tea program the offer shows, P switches, and the
// footer then offers the way back.
func TestPerfettoKeyFlow(t *testing.T) {
	tm, f, wait := perfettoOfferProgram(t)
	wait("press P for Perfetto")
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("P")})
	wait("P back to gfxinfo")
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("q")})
	tm.WaitFinished(t, teatest.WithFinalTimeout(10*time.Second))
	if len(f.asked) != 1 || f.asked[0] != "perfetto" {
		t.Errorf("asked %v, want [perfetto]", f.asked)
	}
}

// perfettoOfferProgram runs a real Bubble Tea program on a gfxinfo session that offers
// Perfetto, with the fake sources it switches between and a wait for text on its screen.
func perfettoOfferProgram(t *testing.T) (*teatest.TestModel, *fakeSources, func(string)) {
	f := newFakeSources(fixture.GfxinfoOnly())
	o := testOpts().Options
	o.Session = f
	o.Refresh = 5 * time.Millisecond
	o.After = tea.Tick
	tm := teatest.NewTestModel(t, New(o), teatest.WithInitialTermSize(120, 40))
	wait := func(s string) {
		t.Helper()
		teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte(s)) },
			teatest.WithDuration(10*time.Second), teatest.WithCheckInterval(5*time.Millisecond))
	}
	return tm, f, wait
}
