package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/fpstop/fpstop/internal/testkit/fixture"
)

// TestBlindNoteOneLine: with a source that cannot see main-thread messages (gfxinfo alone) the
// messages panel says so on ONE line with the literal way to get them — `--source
// gfxinfo+logcat` and the Looper printer line — at every panel width the layouts use (68
// columns inside at 120×40, wider on wider terminals), dropping words before the literals as
// the panel narrows.
func TestBlindNoteOneLine(t *testing.T) {
	snap := fixture.GfxinfoOnly()
	for _, c := range []struct {
		w    int
		want []string
	}{
		{200, []string{"gfxinfo cannot see messages", "--source gfxinfo+logcat", LooperHintCode}},
		{110, []string{"gfxinfo cannot see messages", "--source gfxinfo+logcat", "Looper.getMainLooper().setMessageLogging(…)"}},
		{84, []string{"gfxinfo cannot see messages", "--source gfxinfo+logcat", "Looper.setMessageLogging"}},
		{80, []string{"gfxinfo cannot see them", "--source gfxinfo+logcat", "Looper.setMessageLogging"}},
		{72, []string{"gfxinfo cannot see them", "--source gfxinfo+logcat", "setMessageLogging"}},
		{64, []string{"not in gfxinfo", "--source gfxinfo+logcat", "setMessageLogging"}},
		{56, []string{"--source gfxinfo+logcat + Looper.setMessageLogging"}},
		{30, []string{"--source gfxinfo+logcat"}},
		{20, []string{"--source gfx"}},
	} {
		m := newMessages(pickerStyles()).SetSize(c.w, 8)
		m, _ = m.Update(dataMsg{snap: snap})
		v := m.View()
		inner := c.w - 4
		var body []string
		for _, l := range v[1 : len(v)-1] {
			l = strings.TrimSpace(strings.Trim(ansi.Strip(l), "│"))
			if l != "" && !(m.counts != "" && strings.HasPrefix(m.counts, strings.TrimSuffix(l, "…"))) { // the line counts' footer aside
				body = append(body, l)
			}
			if w := ansi.StringWidth(ansi.Strip(l)); w > c.w {
				t.Errorf("width %d: a line of %d columns: %q", c.w, w, l)
			}
		}
		if len(body) != 1 {
			t.Errorf("width %d (inner %d): the note takes %d lines, want 1:\n%s", c.w, inner, len(body), strings.Join(body, "\n"))
			continue
		}
		for _, s := range c.want {
			if !strings.Contains(body[0], s) {
				t.Errorf("width %d: the note %q lacks %q", c.w, body[0], s)
			}
		}
	}
}
