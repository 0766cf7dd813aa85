package e2e

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/fpstop/fpstop/internal/cli"
	"github.com/fpstop/fpstop/internal/testkit/fakeadb"
	"github.com/fpstop/fpstop/internal/testkit/recordtest"
	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/source"
	"github.com/fpstop/fpstop/source/sim"
)

// presented keeps the frames the fake SurfaceFlinger presented: the truth fpstop is held to.
type presented struct {
	mu     sync.Mutex
	frames []source.LayerFrame
}

func (p *presented) add(f source.LayerFrame) {
	p.mu.Lock()
	p.frames = append(p.frames, f)
	p.mu.Unlock()
}

// truth is the layer's fps and janky count over the frames presented: frames / (their span +
// one frame at the pace, the first frame's), pauses over 5 s counted as one frame at the pace
// (fpstop cannot tell those from idle, DESIGN §4a); janky: frames the simulator made late.
func (p *presented) truth(paceNs int64) (n int, fps float64, janky int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	n = len(p.frames)
	if n == 0 {
		return 0, 0, 0
	}
	span := paceNs
	for i := 1; i < n; i++ {
		d := p.frames[i].PresentNs - p.frames[i-1].PresentNs
		if d > 5_000_000_000 {
			d = paceNs
		}
		span += d
	}
	for _, f := range p.frames[1:] {
		if f.Dropped >= 1 {
			janky++
		}
	}
	return n, float64(n) * 1e9 / float64(span), janky
}

func layerByName(r metrics.Report, name string) *metrics.LayerReport {
	for i := range r.Layers {
		if r.Layers[i].Name == name {
			return &r.Layers[i]
		}
	}
	return nil
}

// switchTimes reads a recording's Sessions after the first: what each one measures and the
// newest device time fpstop had seen when it came (a window frame's vsync, a present, a tick).
func switchTimes(t *testing.T, path string) (layers []string, at []int64) {
	t.Helper()
	_, evs, err := recordtest.ReadAll(path)
	if err != nil {
		t.Fatal(err)
	}
	var seen int64
	first := true
	for _, ev := range evs {
		switch e := ev.(type) {
		case *source.Frame:
			seen = max(seen, e.VsyncNs)
		case *source.LayerFrame:
			seen = max(seen, e.PresentNs)
		case *source.Tick:
			seen = max(seen, e.NowNs)
		case *source.Session:
			if !first {
				layers, at = append(layers, e.Layer), append(at, seen)
			}
			first = false
		}
	}
	return layers, at
}

// A game with a menu (issue 26; the fake phone's scenario fakeadb.MenuGame): the menu activity's window draws at 60 fps for 7 s, then the
// game's SurfaceView layer (60 fps on a 120 Hz display, its stutter phase and 2.5 s loading
// freeze) while the window draws nothing, then the menu again from 21 s. Headless `auto` over a
// real adb server measures the window, switches to the layer within 3 s of the game starting
// and back within 3 s of the menu's return; the layer's fps is within 2 % of what the fake
// presented and its janky count within 10 %; the report's measured[] lists the three phases.
func TestAutoMenuGameMenu(t *testing.T) {
	t.Parallel() // waits on real time mostly: overlapped with the other parallel tests
	const (
		hz     = 120
		period = int64(8_333_333)
	)
	var truth presented
	game := fakeadb.NewMenuGame(pkg, period) // the fake phone's menu → game → menu scenario
	menu, gameFrom, gameUntil := game.Menu, game.GameFromNs, game.GameUntilNs
	g := startGamePhoneWith(t, hz, "game", fakeadb.SFAndroid14, func(g *gamePhone, f *source.LayerFrame) bool {
		if game.Frame(f, g.dump) {
			truth.add(*f)
			return true
		}
		return false
	})
	env := g.env(t)
	rec := filepath.Join(t.TempDir(), "menu-game-menu.jsonl")
	// the simulator started before the adb server: run until 27 s of its time
	left := time.Duration(27_000_000_000-(g.sim.Now()-sim.StartNs)) * time.Nanosecond
	r, errs, code := fpstop(t, env, "-p", pkg, "--headless", "--json", "--duration", left.Round(time.Second).String(), "--record", rec)
	g.stop()
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	layers, at := switchTimes(t, rec)
	if len(layers) < 2 || layers[0] != g.layer || layers[len(layers)-1] != "" {
		t.Fatalf("measured %q at %v: want the layer, then the windows", layers, at)
	}
	toLayer, toMenu := at[0]-sim.StartNs, at[len(at)-1]-sim.StartNs
	t.Logf("switched to the layer %.2f s after the game started, back %.2f s after the menu returned (%d switches)",
		float64(toLayer-gameFrom)/1e9, float64(toMenu-gameUntil)/1e9, len(layers))
	// back within 3 s too: while the layer is measured, the menu's quiet window is probed at
	// the watching pace (gfxinfo.PollerConfig.Watch), not at the 4 s idle backoff
	if toLayer < gameFrom || toLayer > gameFrom+3_000_000_000 || toMenu < gameUntil || toMenu > gameUntil+3_000_000_000 || len(layers) != 2 {
		t.Errorf("switches at +%.2f s and +%.2f s (%d), want within 3 s after %d s and after %d s, once each",
			float64(toLayer)/1e9, float64(toMenu)/1e9, len(layers), gameFrom/1_000_000_000, gameUntil/1_000_000_000)
	}
	if len(r.Measured) != 3 || r.Measured[1].What != "layer" || r.Measured[2].What != "windows" ||
		r.Measured[1].Source != "surfaceflinger" || r.Measured[2].Source == "surfaceflinger" {
		t.Errorf("report measured %+v", r.Measured)
	}
	if r.Source != "gfxinfo+surfaceflinger" && r.Source != "gfxinfo+logcat+surfaceflinger" {
		t.Errorf("report source %q: want the windows' source and surfaceflinger", r.Source)
	}
	l := layerByName(r, g.layer)
	n, fps, janky := truth.truth(2 * period)
	if l == nil || l.FPS == nil {
		t.Fatalf("layers %+v", r.Layers)
	}
	t.Logf("layer: %d frames (truth %d), fps %v (truth %.2f), janky %d (truth %d); run frames %d",
		l.Frames, n, *l.FPS, fps, l.JankyFrames, janky, r.Frames)
	if math.Abs(float64(*l.FPS)-fps) > 0.02*fps || math.Abs(float64(l.JankyFrames-int64(janky))) > 0.1*float64(janky) || janky < 10 {
		t.Errorf("layer fps %v janky %d; truth %.2f, %d", *l.FPS, l.JankyFrames, fps, janky)
	}
	// the run's numbers are what was measured: the menu's frames and the game's, each once
	var menuFrames int64
	for _, w := range r.Windows {
		if w.Name == menu {
			menuFrames = w.Frames
		}
	}
	if menuFrames < 300 || r.Frames >= menuFrames+l.Frames || r.Frames < l.Frames {
		t.Errorf("run frames %d: the menu drew %d, the layer presented %d", r.Frames, menuFrames, l.Frames)
	}
}

// A Flutter app (a FlutterSurfaceView at the display's full rate, 60 and 120 Hz, rare late
// frames, a 6 s idle pause from 14 s): headless auto measures the layer, fps within 2 % and
// janky within 10 % of what the fake presented, and the idle pause is never a freeze.
func TestAutoFlutter(t *testing.T) {
	t.Parallel()
	for _, hz := range []float64{60, 120} {
		t.Run(fmt.Sprintf("%gHz", hz), func(t *testing.T) {
			t.Parallel()
			testAutoFlutter(t, hz)
		})
	}
}

func testAutoFlutter(t *testing.T, hz float64) {
	var truth presented
	g := startGamePhoneWith(t, hz, "flutter", fakeadb.SFAndroid15, func(g *gamePhone, f *source.LayerFrame) bool {
		truth.add(*f)
		return true
	})
	env := g.env(t)
	r, errs, code := fpstop(t, env, "-p", pkg, "--headless", "--json", "--duration", "24s")
	g.stop()
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	l := layerByName(r, g.layer)
	if l == nil || !l.Measured || l.FPS == nil {
		t.Fatalf("layers %+v", r.Layers)
	}
	// the truth over what fpstop saw: from its first frame on (it starts a second or two late;
	// the ring's backlog reaches back 1 s)
	truth.mu.Lock()
	var from int
	for from < len(truth.frames) && l.Frames < int64(len(truth.frames)-from) {
		from++
	}
	truth.frames = truth.frames[from:]
	truth.mu.Unlock()
	n, fps, janky := truth.truth(int64(math.Round(1e9 / hz)))
	t.Logf("flutter at %g Hz: %d frames (truth %d), fps %v (truth %.2f), janky %d (truth %d), frozen %d, lost %d, pauses %+v",
		hz, l.Frames, n, *l.FPS, fps, l.JankyFrames, janky, l.DropLevels.Frozen, l.FramesLost, l.Pauses)
	if math.Abs(float64(*l.FPS)-fps) > 0.02*fps || math.Abs(float64(l.JankyFrames-int64(janky))) > math.Max(1, 0.1*float64(janky)) {
		t.Errorf("fps %v janky %d; truth %.2f, %d", *l.FPS, l.JankyFrames, fps, janky)
	}
	if l.DropLevels.Frozen != 0 || len(l.Pauses) != 1 || l.Pauses[0].Class == metrics.PauseStall {
		t.Errorf("frozen %d pauses %+v: the 6 s idle pause is no freeze", l.DropLevels.Frozen, l.Pauses)
	}
}

// A smooth 120 Hz layer (a frame on every refresh) polled on a loaded machine (four CPU
// burners, the adb server stalled 1.2 s every 4 s so that polls come too late for the
// 127-record history): 0 frozen, 0 janky, fps within 1 % of 120, and what the stalls hid is in
// frames_lost (seen + lost = presented, within 1 %). FPSTOP_SMOOTH_NO_STALL=1 leaves the load
// only, to measure how often polls overrun by themselves.
func TestSurfaceFlingerSmooth120Loaded(t *testing.T) {
	const period = int64(8_333_333)
	var truth presented
	var next int64
	g := startGamePhoneWith(t, 120, "flutter", fakeadb.SFAndroid14, func(g *gamePhone, f *source.LayerFrame) bool {
		if next == 0 {
			next = f.PresentNs
		}
		for ; next <= f.PresentNs; next += period { // every refresh, whatever the simulator's stutter
			g.sf.Present(g.layer, next-period, next, next-period/2)
			truth.add(source.LayerFrame{PresentNs: next})
		}
		return false
	})
	env := g.env(t)
	burnCPU(t, 4, true)
	stop := make(chan struct{})
	var stalls int
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(4 * time.Second):
				if os.Getenv("FPSTOP_SMOOTH_NO_STALL") == "1" {
					continue // load only: how often polls overrun by themselves
				}
				if env.Stall(1200*time.Millisecond) == nil {
					stalls++
				}
			}
		}
	}()
	rec := filepath.Join(t.TempDir(), "smooth.jsonl")
	r, errs, code := fpstop(t, env, "--source", "sf", "-p", pkg, "--headless", "--json", "--duration", "11s", "--record", rec)
	close(stop)
	g.stop()
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	l := layerByName(r, g.layer)
	if l == nil || l.FPS == nil {
		t.Fatalf("layers %+v", r.Layers)
	}
	_, evs, err := recordtest.ReadAll(rec)
	if err != nil {
		t.Fatal(err)
	}
	var polls, overran int
	var first, last int64
	for _, ev := range evs {
		switch e := ev.(type) {
		case *source.LayerPoll:
			polls++
			if e.Lost > 0 {
				overran++
			}
		case *source.LayerFrame:
			if first == 0 {
				first = e.PresentNs
			}
			last = e.PresentNs
		}
	}
	var inSpan int64
	truth.mu.Lock()
	for _, f := range truth.frames {
		if f.PresentNs >= first && f.PresentNs <= last {
			inSpan++
		}
	}
	truth.mu.Unlock()
	t.Logf("smooth 120 Hz, load %s: %d stalls, %d of %d polls overran; frames %d + lost %d = %d (presented %d); fps %v; frozen %d janky %d",
		loadavg(), stalls, overran, polls, l.Frames, l.FramesLost, l.Frames+l.FramesLost, inSpan, *l.FPS, l.DropLevels.Frozen, l.JankyFrames)
	if l.DropLevels.Frozen != 0 || l.JankyFrames != 0 || math.Abs(float64(*l.FPS)-120) > 1.2 {
		t.Errorf("frozen %d janky %d fps %v: a smooth 120 Hz layer", l.DropLevels.Frozen, l.JankyFrames, *l.FPS)
	}
	if seen := l.Frames + l.FramesLost; math.Abs(float64(seen-inSpan)) > 0.01*float64(inSpan) {
		t.Errorf("frames %d + lost %d = %d, presented %d", l.Frames, l.FramesLost, seen, inSpan)
	}
	if stalls > 0 && overran == 0 {
		t.Errorf("%d stalls of 1.2 s and no poll overran the history: the test did not test", stalls)
	}
}
