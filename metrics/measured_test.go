package metrics

import (
	"testing"

	"github.com/fpstop/fpstop/source"
)

// auto's menu → game → menu: the run counts the window's frames while the windows are measured
// and the layer's while it is, never a window's frame drawn during the layer's turn; windows[]
// and layers[] keep everything each drew; measured[] lists the three turns.
func TestMeasuredWindowsLayerWindows(t *testing.T) {
	const t60 = int64(16_666_667)
	p := NewPipeline(Config{})
	gfx := source.Session{Source: source.KindGfxinfo, Package: "g", RefreshHz: 60}
	at := int64(1_000_000_000_000)
	win := func(n int) {
		for i := 0; i < n; i++ {
			at += t60
			p.Add(&source.Frame{Window: "g/g.Menu", VsyncNs: at, DoneNs: at + 5_000_000, IntervalNs: t60})
		}
	}
	p.Add(&gfx)
	win(120)
	game := gfx
	game.Layer, game.LayerKind = "SurfaceView[g/g.Game]@0(BLAST)#1", "SurfaceView (BLAST)"
	p.Add(&game)
	for i := 0; i < 120; i++ {
		at += t60
		p.Add(&source.LayerFrame{Layer: game.Layer, PresentNs: at, PeriodNs: t60})
		if i%4 == 0 { // a HUD window frame now and then: the window's, not the run's
			p.Add(&source.Frame{Window: "g/g.Menu", VsyncNs: at - 1, DoneNs: at + 5_000_000, IntervalNs: t60})
		}
	}
	p.Add(&gfx)
	win(60)
	r := p.Report(ReportMeta{})
	if r.Frames != 120+120+60 || len(r.Windows) != 1 || r.Windows[0].Frames != 120+30+60 || len(r.Layers) != 1 || r.Layers[0].Frames != 120 {
		t.Errorf("run frames %d, windows %+v, layers %d", r.Frames, r.Windows, len(r.Layers))
	}
	if len(r.Measured) != 3 || r.Measured[0].What != "windows" || r.Measured[1].What != "layer" || r.Measured[1].Layer != game.Layer ||
		r.Measured[2].What != "windows" || !(r.Measured[1].FromMs > 1900 && r.Measured[1].FromMs < 2100) {
		t.Errorf("measured %+v", r.Measured)
	}
	// what measured each turn, and the run's source names both
	if len(r.Measured) == 3 && (r.Measured[0].Source != "gfxinfo" || r.Measured[1].Source != "surfaceflinger" || r.Measured[2].Source != "gfxinfo") {
		t.Errorf("measured sources %+v", r.Measured)
	}
	if r.Source != "gfxinfo+surfaceflinger" {
		t.Errorf("source %q, want gfxinfo+surfaceflinger", r.Source)
	}
	if r := p.Report(ReportMeta{SourceArg: "surfaceflinger"}); r.Source != "surfaceflinger" {
		t.Errorf("source %q: --source's name wins", r.Source)
	}
}

// A simulated game measures its layer from the start: its source stays the simulator's.
func TestMeasuredSimLayerSource(t *testing.T) {
	p := NewPipeline(Config{})
	p.Add(&source.Session{Source: source.KindSim, Package: "g", RefreshHz: 60, Layer: "SurfaceView[g/g.Game]@0(BLAST)#1"})
	at := int64(1_000_000_000_000)
	for i := 0; i < 60; i++ {
		at += 16_666_667
		p.Add(&source.LayerFrame{Layer: "SurfaceView[g/g.Game]@0(BLAST)#1", PresentNs: at, PeriodNs: 16_666_667})
	}
	if r := p.Report(ReportMeta{}); r.Source != "sim" || r.Measured != nil {
		t.Errorf("source %q measured %+v", r.Source, r.Measured)
	}
}
