package ui

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/fpstop/fpstop/internal/testkit/fixture"
	"github.com/fpstop/fpstop/metrics"
)

// layerSession is a device session that can switch layers.
type layerSession struct {
	snap   *metrics.Snapshot
	picked []string
}

func (s *layerSession) Latest() *metrics.Snapshot { return s.snap }
func (s *layerSession) Clear()                    {}
func (s *layerSession) SwitchLayer(_ context.Context, layer string) (string, error) {
	s.picked = append(s.picked, layer)
	return layer, nil
}

// `l` lists the app's layers with their live rates, the measured one marked; enter measures
// the chosen one.
func TestLayerPicker(t *testing.T) {
	snap := fixture.Live(1)
	snap.LayerChoices = []metrics.LayerChoice{
		{Name: "SurfaceView[com.example.game/com.example.game.GameActivity]@0#401", Kind: "SurfaceView", FPS: math.NaN()},
		{Name: "SurfaceView[com.example.game/com.example.game.GameActivity]@0(BLAST)#402", Kind: "SurfaceView (BLAST)", FPS: 60, Measured: true},
		{Name: "com.example.game/com.example.game.GameActivity#400", Kind: "window", FPS: 0},
	}
	s := &layerSession{snap: snap}
	o := topts{Options: Options{Now: fixture.Now, Refresh: time.Hour, After: pendingTimer, Session: s}}
	m := dashboard(t, o, 120, 34, snap)
	if !strings.Contains(m.View(), "l layer") {
		t.Errorf("footer offers no layer picker:\n%s", m.View())
	}
	m = run(t, m, keyMsg("l"))
	if sel, _ := m.layers.list.Selected(); m.overlay != overlayLayers || sel != 1 {
		t.Fatalf("overlay %d selection %d: want the layer picker on the measured layer", m.overlay, sel)
	}
	v := m.View()
	for _, want := range []string{"SurfaceFlinger layers", "● 60 fps", "not presenting", "no frames", "(BLAST)#402"} {
		if !strings.Contains(v, want) {
			t.Errorf("picker lacks %q:\n%s", want, v)
		}
	}
	m = run(t, m, keyMsg("down"))
	m = run(t, m, keyMsg("enter"))
	if m.overlay != overlayNone || len(s.picked) != 1 || s.picked[0] != "com.example.game/com.example.game.GameActivity#400" {
		t.Fatalf("overlay %d picked %q", m.overlay, s.picked)
	}
}

// Without a layer-switching session, `l` says so.
func TestLayerPickerUnavailable(t *testing.T) {
	o := testOpts()
	m := dashboard(t, o, 120, 34, fixture.Live(1))
	m = run(t, m, keyMsg("l"))
	if m.overlay == overlayLayers {
		t.Fatal("layer picker opened without a layer-switching session")
	}
}

// TestLayerKeyOutsideSurfaceFlinger: l on a gfxinfo session that lists no layers says where
// layers come from instead of opening an empty picker (a dead end).
func TestLayerKeyOutsideSurfaceFlinger(t *testing.T) {
	snap := fixture.Live(1)
	s := &layerSession{snap: snap}
	o := topts{Options: Options{Now: fixture.Now, Refresh: time.Hour, After: pendingTimer, Session: s}}
	m := dashboard(t, o, 120, 40, snap)
	m = run(t, m, keyMsg("l"))
	v := m.View()
	if m.overlay == overlayLayers || !strings.Contains(v, "--source surfaceflinger") {
		t.Errorf("l on gfxinfo+logcat: overlay %v\n%s", m.overlay, v)
	}
}
