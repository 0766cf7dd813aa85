package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/source"
)

func blameSnap() *metrics.Snapshot {
	secs := []metrics.FrameSectionReport{{Name: "Choreographer#doFrame 4711", Thread: "main", Ms: 45},
		{Name: "RV OnBindView", Thread: "main", Depth: 2, Ms: 31.5}, {Name: "traversal", Thread: "main", Depth: 1, Ms: 9}}
	return &metrics.Snapshot{Session: source.Session{Source: source.KindPerfetto}, OriginNs: 1e9,
		Blame: &metrics.Blame{App: 7, SurfaceFlinger: 2, BufferStuffing: 1},
		Windows: []metrics.WindowSnapshot{
			{Name: "com.example.feed/.Main", Visible: true, Totals: metrics.Totals{Frames: 300}, Blame: &metrics.Blame{App: 7, SurfaceFlinger: 2}},
			{Name: "com.example.feed/.Popup", Visible: true, Totals: metrics.Totals{Frames: 30}, Blame: &metrics.Blame{SurfaceFlinger: 4}},
		},
		Worst: []metrics.WorstFrame{{Window: "com.example.feed/.Main", StartMs: 500, CostMs: 48, Dropped: 2,
			Sections: secs, Blame: []string{"app"}}},
		History: []metrics.FrameMark{
			{Window: "com.example.feed/.Main", VsyncNs: 1e9 + 500e6, CostNs: 48e6, Dropped: 2, Level: metrics.LevelMiddle},
			{Window: "com.example.feed/.Main", VsyncNs: 1e9 + 900e6, CostNs: 20e6, Dropped: 1, Level: metrics.LevelNormal,
				Detail: &metrics.FrameDetail{Blame: []string{"surfaceflinger"}, Sections: secs[2:]}},
		},
	}
}

// TestBlameOnScreen (issue 33): with FrameTimeline, the worst frames panel names each frame's
// blame and slowest sections and the run's blame; the windows panel has a blame column; the
// timeline's cursor names its frame's blame and sections.
func TestBlameOnScreen(t *testing.T) {
	snap := blameSnap()
	w := newWorst(pickerStyles()).SetSize(90, 10)
	w, _ = w.Update(dataMsg{snap: snap})
	v := ansi.Strip(strings.Join(w.View(), "\n"))
	for _, want := range []string{"blame: app 7 · SF 2 · stuffing 1", "· app", "RV OnBindView", "31.5"} {
		if !strings.Contains(v, want) {
			t.Errorf("worst frames lack %q:\n%s", want, v)
		}
	}
	if strings.Contains(v, "Choreographer#doFrame") || strings.Contains(v, "traversal") {
		t.Errorf("worst frames list the wrappers every frame has:\n%s", v)
	}
	wn := newWindows(pickerStyles()).SetSize(100, 6)
	wn, _ = wn.Update(dataMsg{snap: snap})
	v = ansi.Strip(strings.Join(wn.View(), "\n"))
	for _, want := range []string{"blame", "app 7", "SF 4"} {
		if !strings.Contains(v, want) {
			t.Errorf("windows lack %q:\n%s", want, v)
		}
	}
	tl := timelineModel{st: pickerStyles(), snap: snap, frames: snap.History, cursor: 0}
	if l := ansi.Strip(tl.cursorLine()); !strings.Contains(l, "blame app") {
		t.Errorf("cursor line %q lacks the worst frame's blame", l)
	}
	if l := ansi.Strip(tl.messagesLine()); !strings.Contains(l, "sections: RV OnBindView 31.5") {
		t.Errorf("cursor's sections line %q", l)
	}
	tl.cursor = 1
	if l := ansi.Strip(tl.cursorLine()); !strings.Contains(l, "blame SurfaceFlinger") {
		t.Errorf("cursor line %q lacks the history's blame", l)
	}
	if l := ansi.Strip(tl.messagesLine()); !strings.Contains(l, "sections: traversal") {
		t.Errorf("cursor's sections line %q", l)
	}
	// without FrameTimeline nothing of it shows
	snap.Blame, snap.Windows[0].Blame, snap.Windows[1].Blame = nil, nil, nil
	wn, _ = wn.Update(dataMsg{snap: snap})
	if v := ansi.Strip(strings.Join(wn.View(), "\n")); strings.Contains(v, "blame") {
		t.Errorf("blame column without FrameTimeline:\n%s", v)
	}
}
