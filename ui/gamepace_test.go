package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/fpstop/fpstop/internal/testkit/fixture"
	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/source"
)

// TestGameAtItsPaceGolden: a steady 60 fps game measured on its SurfaceView layer of a 120 Hz
// display. The FPS panel colours it against the target metrics derived from the layer's pace
// (55), so every bar and the headline are good, never red against 110; drop levels and worst
// frames count at its 60 fps pace (a 33.3 ms frame drops 1, not 2 vsyncs); the windows panel
// says none are read; golden View().
func TestGameAtItsPaceGolden(t *testing.T) {
	s := fixture.Live(1)
	s.Session.Source, s.Session.Layer = source.KindSurfaceFlinger, "SurfaceView[com.example.game/com.example.game.GameActivity]@0(BLAST)#402"
	s.Session.LayerKind, s.Session.Package = "SurfaceView (BLAST)", "com.example.game"
	s.RefreshHz, s.TargetFPS = 120, 55
	for i := range s.Series {
		p := &s.Series[i]
		p.Idle, p.Frozen, p.FPS, p.Frames = false, false, 60, 60
	}
	pace := metrics.R2(60)
	s.Layers = []metrics.LayerReport{{Name: s.Session.Layer, Measured: true, PaceFPS: &pace}}
	s.Windows, s.Messages, s.Worst = nil, nil, nil
	// metrics judges the layer's frames at its pace: drops and their thresholds at 60 fps
	s.DropPaceFPS, s.DropThresholds = 60, metrics.Thresholds(metrics.DefaultDropLevels, 60)
	s.Worst = []metrics.WorstFrame{{StartMs: 1200, CostMs: 33.3, Dropped: 1, Window: s.Session.Layer}}
	m := dashboard(t, testOpts(), 120, 40, s)
	if d := ansi.Strip(strings.Join(m.drops.View(), "\n")); !strings.Contains(d, "dropped at 60 fps pace") || strings.Contains(d, "at 120 Hz") {
		t.Errorf("drop levels panel:\n%s", d)
	}
	if w := ansi.Strip(strings.Join(m.worst.View(), "\n")); !strings.Contains(w, "33.3 ms   1 dropped") {
		t.Errorf("worst frames panel:\n%s", w)
	}
	fps := strings.Join(m.fps.View(), "\n")
	if !strings.Contains(fps, "now 60.0 fps") || !strings.Contains(fps, "target 55") {
		t.Errorf("FPS panel:\n%s", fps)
	}
	// no window is read while a layer is measured: not "no windows yet", as if some were coming
	if w := ansi.Strip(strings.Join(m.wins.View(), "\n")); strings.Contains(w, "yet") || !strings.Contains(w, "a layer is measured") {
		t.Errorf("windows panel:\n%s", w)
	}
	if fpsStyle(m.st, 60, 55).Render("x") != m.st.Good.Render("x") {
		t.Errorf("60 fps against a target of 55 is not drawn good")
	}
	golden.RequireEqual(t, []byte(m.View()))
}

// TestLayerMessagesSaidPlainly: a measured SurfaceFlinger layer (here the simulator's game, a
// source that is neither surfaceflinger nor blind by name) with no Looper lines says that
// SurfaceFlinger cannot see messages, never "No main-thread message has taken … yet" as if
// there were data and none was slow.
func TestLayerMessagesSaidPlainly(t *testing.T) {
	s := fixture.Live(1)
	s.Session.Source, s.Session.Layer = source.KindSim, "SurfaceView[com.example.game/com.example.game.GameActivity]@0(BLAST)#402"
	s.Messages, s.Paired, s.Unpaired, s.SlowLooper = nil, 0, 0, nil
	m := newMessages(pickerStyles()).SetSize(100, 8)
	m, _ = m.Update(dataMsg{snap: s})
	v := ansi.Strip(strings.Join(m.View(), "\n"))
	if !strings.Contains(v, "SurfaceFlinger cannot see messages") || strings.Contains(v, "No main-thread message") {
		t.Errorf("messages panel:\n%s", v)
	}
}
