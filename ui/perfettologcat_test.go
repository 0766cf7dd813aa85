package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/source"
)

// TestPerfettoLogcatOnScreen (issue 33): --source perfetto that took on the app's logcat: the
// header says perfetto+logcat, the worst frames panel names a janky frame's slowest section and
// the Looper message that ran in it, and the messages panel lists sections beside the messages.
func TestPerfettoLogcatOnScreen(t *testing.T) {
	snap := blameSnap()
	snap.Session = source.Session{Source: source.KindPerfettoLogcat, Package: "com.example.feed"}
	snap.Worst[0].Messages = []metrics.FrameMessage{{Handler: "android.os.Handler", Callback: "com.example.feed.ImageLoader$1", Ms: 28}}
	snap.Messages = []metrics.MessageSnapshot{{Handler: "android.os.Handler", Callback: "com.example.feed.ImageLoader$1",
		Count: 3, MaxMs: 28, TotalMs: 60, P95Ms: 28, Worst: []metrics.Occurrence{{StartMs: 500, Ms: 28}}}}
	snap.Sections = []metrics.SlowSectionReport{{Name: "RV OnBindView", Thread: "main", Count: 2, MaxMs: 31.5, TotalMs: 50,
		Worst: []metrics.Occurrence{{StartMs: 505, Ms: 31.5}}}}
	h := newHeader(pickerStyles()).SetSize(160, 1)
	h, _ = h.Update(dataMsg{snap: snap})
	if line := ansi.Strip(h.View()); !strings.Contains(line, "perfetto+logcat · FrameTimeline") {
		t.Errorf("header %q does not say perfetto+logcat", line)
	}
	w := newWorst(pickerStyles()).SetSize(90, 10)
	w, _ = w.Update(dataMsg{snap: snap})
	v := ansi.Strip(strings.Join(w.View(), "\n"))
	for _, want := range []string{"RV OnBindView", "ImageLoader$1", "· app"} {
		if !strings.Contains(v, want) {
			t.Errorf("worst frames lack %q:\n%s", want, v)
		}
	}
	m := newMessages(pickerStyles()).SetSize(120, 8)
	m, _ = m.Update(dataMsg{snap: snap})
	v = ansi.Strip(strings.Join(m.View(), "\n"))
	for _, want := range []string{"RV OnBindView", "ImageLoader$1"} {
		if !strings.Contains(v, want) {
			t.Errorf("messages panel lacks %q:\n%s", want, v)
		}
	}
}
