package ui

import (
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest"

	"github.com/fpstop/fpstop/internal/testkit/fixture"
	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/source"
)

// messagesBody is the messages panel's text lines between its borders, trimmed, blank lines
// and the line counts' footer left out.
func messagesBody(t *testing.T, m messagesModel, w int) []string {
	t.Helper()
	v := m.View()
	var body []string
	for _, l := range v[1 : len(v)-1] {
		if cw := ansi.StringWidth(l); cw != w {
			t.Errorf("width %d: a line of %d columns: %q", w, cw, ansi.Strip(l))
		}
		l = strings.TrimSpace(strings.Trim(ansi.Strip(l), "│"))
		if l != "" && !(m.counts != "" && strings.HasPrefix(m.counts, strings.TrimSuffix(l, "…"))) {
			body = append(body, l)
		}
	}
	return body
}

// TestMessagesPointAtPerfetto: where auto offers Perfetto (Android 12+, the app logs no Looper
// messages) the messages panel's first line is the key that shows what it cannot — `P` for
// each janky frame's slowest sections — and its second the other way (the Looper printer
// line); at every width the layouts use each is one line that starts with the key. With no
// offer the panel says what it said before: nothing of P.
func TestMessagesPointAtPerfetto(t *testing.T) {
	gfx := fixture.GfxinfoOnly()
	// gfxinfo+logcat reading an app that logs no Looper messages: the hint's case
	hinted := fixture.GfxinfoOnly()
	hinted.Session.Source = source.KindGfxinfoLogcat
	hinted.LooperHint = true
	for _, c := range []struct {
		name   string
		snap   *metrics.Snapshot
		w      int
		first  string
		second string
	}{
		{"gfxinfo wide", gfx, 120, "press P for Perfetto: the slowest sections of each janky frame, no change to the app", "gfxinfo cannot see messages: --source gfxinfo+logcat"},
		{"gfxinfo 120x40", gfx, 72, "press P for Perfetto: the slowest sections of each janky frame", "gfxinfo cannot see them: --source gfxinfo+logcat + setMessageLogging"},
		{"gfxinfo narrow", gfx, 60, "P: Perfetto shows each janky frame's slowest sections", "--source gfxinfo+logcat"},
		{"gfxinfo narrower", gfx, 50, "P: Perfetto, each janky frame's sections", "--source gfxinfo+logcat"},
		{"gfxinfo narrowest", gfx, 30, "press P for Perfetto", "--source gfxinfo+logcat"},
		{"no Looper lines wide", hinted, 130, "press P for Perfetto", "or, for its Looper messages, in the app: " + LooperHintCode},
		{"no Looper lines 120 wide", hinted, 120, "press P for Perfetto", "or, for its Looper messages, in the app: Looper.getMainLooper().setMessageLogging(…)"},
		{"no Looper lines 120x40", hinted, 72, "press P for Perfetto", "or, for Looper messages, in the app: Looper.setMessageLogging"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := newMessages(pickerStyles()).SetSize(c.w, 8)
			m, _ = m.Update(dataMsg{snap: c.snap})
			m, _ = m.Update(offerMsg{perfetto: true})
			body := messagesBody(t, m, c.w)
			if len(body) != 2 || !strings.HasPrefix(body[0], c.first) || !strings.Contains(body[1], c.second) {
				t.Fatalf("width %d: the panel reads\n%s\nwant first %q, then %q", c.w, strings.Join(body, "\n"), c.first, c.second)
			}
			if m.Want() < 2+2 {
				t.Errorf("Want %d: the two lines and the borders do not fit", m.Want())
			}
			// the offer withdrawn (P switched, or the app's Looper lines were found): no P
			m, _ = m.Update(offerMsg{perfetto: false})
			for _, l := range messagesBody(t, m, c.w) {
				if strings.Contains(l, "Perfetto") {
					t.Errorf("no offer, yet the panel says %q", l)
				}
			}
		})
	}
	// messages shown: the table, never the note (the offer does not hide what is there)
	m := newMessages(pickerStyles()).SetSize(72, 8)
	m, _ = m.Update(dataMsg{snap: fixture.Live(1)})
	m, _ = m.Update(offerMsg{perfetto: true})
	if body := strings.Join(messagesBody(t, m, 72), "\n"); strings.Contains(body, "press P") || !strings.Contains(body, "handler") {
		t.Errorf("a panel with messages shows the note:\n%s", body)
	}
}

// TestPerfettoNoteFlow: in a real Bubble Tea program on a gfxinfo session that offers
// Perfetto, the messages panel points at P; P switches (the offer becomes the way back) and
// the panel no longer offers it; P again goes back, and the panel points at P again.
func TestPerfettoNoteFlow(t *testing.T) {
	tm, f, wait := perfettoOfferProgram(t)
	const note = "the slowest sections of each janky frame"
	wait(note)
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("P")})
	wait("P back to gfxinfo")
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("P")})
	wait(note)
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("P")})
	wait("P back to gfxinfo")
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("q")})
	fm, ok := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(Model)
	if !ok {
		t.Fatalf("final model is not a ui.Model")
	}
	if v := fm.View(); strings.Contains(v, note) || !strings.Contains(v, "gfxinfo cannot see") {
		t.Errorf("switched to Perfetto, the messages panel still offers it:\n%s", v)
	}
	if len(f.asked) != 3 {
		t.Errorf("asked %v, want [perfetto auto perfetto]", f.asked)
	}
}
