package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fpstop/fpstop/internal/cli"
	"github.com/fpstop/fpstop/internal/testkit/adbtest"
	"github.com/fpstop/fpstop/internal/testkit/fakeadb"
	"github.com/fpstop/fpstop/internal/testkit/recordtest"
	"github.com/fpstop/fpstop/internal/testkit/simtext"
	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/source"
	"github.com/fpstop/fpstop/source/sim"
)

// gamePhone is a phone running the simulator's game scenario: its frames reach the fake
// SurfaceFlinger (in the given Android naming style) at their present times, its gfxinfo
// window draws nothing.
type gamePhone struct {
	*phone
	sf    *fakeadb.SurfaceFlinger
	layer string
}

func startGamePhone(t testing.TB, hz float64, scenario string, style fakeadb.SFStyle) *gamePhone {
	t.Helper()
	return startGamePhoneWith(t, hz, scenario, style, nil)
}

// startGamePhoneWith is startGamePhone with present deciding, for each of the game's frames
// (on the simulator's goroutine, at its present time), whether SurfaceFlinger presents it.
func startGamePhoneWith(t testing.TB, hz float64, scenario string, style fakeadb.SFStyle, present func(*gamePhone, *source.LayerFrame) bool) *gamePhone {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end test over adb: skipped with -short")
	}
	s, err := sim.New(sim.Config{Scenario: scenario, Hz: hz, Seed: 5, Speed: 1, Duration: 10 * time.Minute, Package: pkg})
	if err != nil {
		t.Fatal(err)
	}
	g := &gamePhone{phone: &phone{sim: s, hz: hz, done: make(chan struct{})},
		sf: fakeadb.NewSurfaceFlinger(style, hz)}
	g.sf.AddLayer("com.example.other", "com.example.other.Main", false)
	g.layer = g.sf.AddLayer(pkg, sim.GameActivity(pkg, scenario), true)
	g.pid.Store(int64(s.Config().Pid))
	g.dump = simtext.NewGfxinfoDump(pkg, s.Config().Pid, 0)
	s.SetGfxinfo(g.dump)
	s.SetTruth(&g.truth)
	var mu sync.Mutex
	s.SetLayerSink(func(f *source.LayerFrame) {
		mu.Lock()
		layer := g.layer
		mu.Unlock()
		if present != nil && !present(g, f) {
			return
		}
		g.sf.Present(layer, f.DesiredNs, f.PresentNs, f.ReadyNs)
	})
	ctx, cancel := context.WithCancel(context.Background())
	g.cancel = cancel
	ch := make(chan []source.Event, 64)
	go func() {
		_ = s.Run(ctx, ch)
		close(ch)
	}()
	go func() {
		defer close(g.done)
		for range ch {
		}
	}()
	t.Cleanup(g.stop)
	return g
}

func (g *gamePhone) handler(ctx context.Context, cmd string, w io.Writer) error {
	if strings.HasPrefix(cmd, "dumpsys SurfaceFlinger") {
		return g.sf.Serve(ctx, cmd, w)
	}
	return g.phone.handler(ctx, cmd, w)
}

func (g *gamePhone) env(t *testing.T) *adbtest.Env {
	return adbtest.Start(t, fakeadb.Config{Handler: g.handler, Model: "Pixel 8", Android: "14", SDK: 34})
}

// truthFrames reads the game's truth: its layer frames, by present time.
func (g *gamePhone) truthFrames(t *testing.T) map[int64]*source.LayerFrame {
	t.Helper()
	out := map[int64]*source.LayerFrame{}
	for _, line := range bytes.Split(g.truth.Bytes(), []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		_, ev, err := source.ParseLine(line)
		if err != nil {
			t.Fatal(err)
		}
		if f, ok := ev.(*source.LayerFrame); ok {
			out[f.PresentNs] = f
		}
	}
	return out
}

// classified replays a recording through the pipeline and returns each counted layer frame's
// dropped refreshes by present time.
func classified(t *testing.T, path string) map[int64]int64 {
	t.Helper()
	_, evs, err := recordtest.ReadAll(path)
	if err != nil {
		t.Fatal(err)
	}
	p := metrics.NewPipeline(metrics.Config{})
	out := map[int64]int64{}
	p.OnFrame(func(c metrics.ClassifiedFrame) { out[c.Frame.PresentNs] = c.Dropped })
	p.AddBatch(evs)
	return out
}

// A 60 fps game on a 120 Hz display, Android 14 naming, for 24 s: 10 s steady, a stutter
// phase, a 2.5 s loading freeze. fps within 0.5 of the truth's, nothing janky in the steady
// phase, every stutter and freeze frame dropped exactly what the truth says.
func TestSurfaceFlingerGameAgainstTruth(t *testing.T) {
	t.Parallel()
	g := startGamePhone(t, 120, "game", fakeadb.SFAndroid14)
	env := g.env(t)
	rec := filepath.Join(t.TempDir(), "game.jsonl")
	r, errs, code := fpstop(t, env, "--source", "sf", "-p", pkg, "--headless", "--json", "--duration", "24s", "--record", rec)
	g.stop()
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if r.Source != "surfaceflinger" || len(r.Layers) == 0 || r.Layers[0].Name != g.layer || !r.Layers[0].Measured {
		t.Fatalf("source %q layers %+v, want layer %q", r.Source, r.Layers, g.layer)
	}
	l := r.Layers[0]
	if l.CadenceRefreshes != 2 || r.Frames != l.Frames || r.JankyFrames != l.JankyFrames || r.FramesLost == nil || *r.FramesLost != 0 {
		t.Errorf("cadence %d; run frames %d janky %d lost %v; layer frames %d janky %d", l.CadenceRefreshes, r.Frames, r.JankyFrames, r.FramesLost, l.Frames, l.JankyFrames)
	}
	// fpstop report on the recording gives the live run's numbers
	var rb, eb bytes.Buffer
	if code := cli.Main(context.Background(), []string{"report", rec}, cli.Env{Stdin: strings.NewReader(""), Stdout: &rb, Stderr: &eb,
		Getenv: func(string) string { return "" }}); code != cli.ExitOK {
		t.Fatalf("report: exit %d: %s", code, eb.String())
	}
	var rr metrics.Report
	if err := json.Unmarshal(rb.Bytes(), &rr); err != nil {
		t.Fatal(err)
	}
	if len(rr.Layers) != len(r.Layers) || rr.Frames != r.Frames || rr.JankyFrames != r.JankyFrames || rr.Source != "surfaceflinger" ||
		*rr.Layers[0].FPS != *l.FPS || *rr.Layers[0].P90FPS != *l.P90FPS || rr.Layers[0].CadenceRefreshes != l.CadenceRefreshes {
		t.Errorf("report of the recording %+v differs from the live run's %+v", rr.Layers, r.Layers)
	}
	truth := g.truthFrames(t)
	got := classified(t, rec)
	var first, last int64
	var steadyJanky, compared, stutter int
	for present, dropped := range got {
		tf := truth[present]
		if tf == nil {
			t.Fatalf("frame at %d is not in the truth", present)
		}
		if first == 0 || present < first {
			first = present
		}
		last = max(last, present)
		if present-sim.StartNs < sim.GameSteadyEndNs && dropped != 0 {
			steadyJanky++
		}
		if tf.Dropped > 0 {
			stutter++
		}
		if dropped != tf.Dropped && present != first {
			t.Errorf("frame at +%.3f s dropped %d, truth %d", float64(present-sim.StartNs)/1e9, dropped, tf.Dropped)
		}
		compared++
	}
	if steadyJanky != 0 || stutter < 10 || compared < 1000 {
		t.Errorf("%d janky in the steady phase; %d late frames; %d compared", steadyJanky, stutter, compared)
	}
	// truth fps over what fpstop saw: frames / Σ present intervals
	var n int
	for present := range truth {
		if present > first && present <= last {
			n++
		}
	}
	want := float64(n) / (float64(last-first) / 1e9)
	if r.FPS == nil || math.Abs(float64(*r.FPS)-want) > 0.5 {
		t.Fatalf("fps %v, truth %.2f", r.FPS, want)
	}
	if l.P90FPS == nil || l.P99FPS == nil || l.FPSStabilityPct == nil {
		t.Fatalf("p90 %v stability %v", l.P90FPS, l.FPSStabilityPct)
	}
	t.Logf("fps %v (truth %.3f), frames %d, janky %d (%d late frames in the truth, all matched), compared %d, p90 %v p99 %v stability %v",
		*r.FPS, want, r.Frames, r.JankyFrames, stutter, compared, *l.P90FPS, *l.P99FPS, *l.FPSStabilityPct)
}

// Every naming style: the layer with the frames is found and measured at 60 fps.
func TestSurfaceFlingerNamingStyles(t *testing.T) {
	t.Parallel() // waits on real time mostly: overlapped with the other parallel tests
	for _, c := range []struct {
		name  string
		style fakeadb.SFStyle
	}{{"android11", fakeadb.SFAndroid11}, {"android12", fakeadb.SFAndroid12}, {"android14", fakeadb.SFAndroid14}, {"android15", fakeadb.SFAndroid15}} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			g := startGamePhone(t, 120, "game", c.style)
			env := g.env(t)
			r, errs, code := fpstop(t, env, "--source", "surfaceflinger", "-p", pkg, "--headless", "--json", "--duration", "5s")
			if code != cli.ExitOK {
				t.Fatalf("exit %d: %s", code, errs)
			}
			if len(r.Layers) == 0 || r.Layers[0].Name != g.layer {
				t.Fatalf("layers %+v, want %q", r.Layers, g.layer)
			}
			if r.FPS == nil || math.Abs(float64(*r.FPS)-60) > 0.5 || r.JankyFrames != 0 {
				t.Errorf("fps %v janky %d", r.FPS, r.JankyFrames)
			}
		})
	}
}

// Android 16: --latency prints the period only; fpstop falls back to timestats (which it
// enables, and disables again at the end) with fps within 2 of the truth's 60.
func TestSurfaceFlingerAndroid16Timestats(t *testing.T) {
	t.Parallel()
	g := startGamePhone(t, 120, "game", fakeadb.SFAndroid16)
	env := g.env(t)
	r, errs, code := fpstop(t, env, "--source", "sf", "-p", pkg, "--headless", "--json", "--duration", "9s")
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if len(r.Layers) == 0 || !r.Layers[0].PerInterval || r.FPS == nil || math.Abs(float64(*r.FPS)-60) > 2 {
		t.Fatalf("layers %+v fps %v", r.Layers, r.FPS)
	}
	t.Logf("Android 16 timestats fallback: fps %v over %d frames", *r.FPS, r.Frames)
	said := false
	for _, w := range r.Warnings {
		said = said || strings.Contains(w, "per-interval")
	}
	if !said {
		t.Errorf("the report does not say the data is per-interval: %q", r.Warnings)
	}
	if g.sf.TimestatsOn() {
		t.Error("timestats left enabled")
	}
	var enabled bool
	for _, c := range env.Fake.Commands() {
		enabled = enabled || strings.Contains(c, "--timestats -enable")
	}
	if !enabled {
		t.Error("timestats was never enabled")
	}
}

// --source auto with -p: the game's gfxinfo window draws nothing, its layer presents, so
// fpstop measures the layer by itself (the run-level numbers are the layer's).
func TestSurfaceFlingerAutoPicksLayer(t *testing.T) {
	t.Parallel()
	g := startGamePhone(t, 120, "game", fakeadb.SFAndroid15)
	env := g.env(t)
	r, errs, code := fpstop(t, env, "-p", pkg, "--headless", "--json", "--duration", "6s")
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	// the run counts the layer's frames from when auto measured it (its history before that
	// is the layer's only)
	if len(r.Layers) == 0 || r.Layers[0].Name != g.layer || !r.Layers[0].Measured || r.Frames > r.Layers[0].Frames || r.Frames == 0 ||
		len(r.Measured) != 2 || r.Measured[1].Layer != g.layer {
		t.Fatalf("source %q frames %d layers %+v, want %q measured", r.Source, r.Frames, r.Layers, g.layer)
	}
}

// A hostile layer name in --list is refused with a warning and never reaches the device.
func TestSurfaceFlingerHostileLayerName(t *testing.T) {
	t.Parallel()
	g := startGamePhone(t, 60, "game", fakeadb.SFAndroid14)
	g.sf.AddListLine("SurfaceView[" + pkg + "/x'; reboot; echo '](BLAST)#1")
	g.sf.AddListLine("SurfaceView[" + pkg + "/y`reboot`](BLAST)#2")
	env := g.env(t)
	r, errs, code := fpstop(t, env, "--source", "sf", "-p", pkg, "--headless", "--json", "--duration", "4s")
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	refused := 0
	for _, w := range r.Warnings {
		if strings.Contains(w, "refused") {
			refused++
		}
	}
	if refused != 2 {
		t.Errorf("warnings %q: want the two names refused", r.Warnings)
	}
	for _, c := range env.Fake.Commands() {
		if strings.Contains(c, "reboot") {
			t.Fatalf("a hostile layer name reached the device: %q", c)
		}
	}
	if len(r.Layers) == 0 || r.Layers[0].Name != g.layer {
		t.Errorf("layers %+v", r.Layers)
	}
}

// A poll slower than the 127-record ring (2 s at 120 fps) provably misses frames: counted.
func TestSurfaceFlingerSlowPollLosesFrames(t *testing.T) {
	t.Parallel()
	g := startGamePhone(t, 120, "flutter", fakeadb.SFAndroid14)
	env := g.env(t)
	r, errs, code := fpstop(t, env, "--source", "sf", "-p", pkg, "--headless", "--json", "--duration", "8s", "--interval", "2s")
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if r.FramesLost == nil || *r.FramesLost < 100 {
		t.Fatalf("frames_lost %v with a 2 s poll of a 120 fps layer", r.FramesLost)
	}
}
