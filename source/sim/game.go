package sim

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/fpstop/fpstop/source"
)

// Game scenarios: an app drawing into a SurfaceView (a GL/Vulkan game, Flutter's default
// embedding) whose frames only SurfaceFlinger sees. The simulator emits them as
// source.LayerFrame events of one layer, each carrying its truth (Dropped: frames at the app's
// own pace it came late by), and its gfxinfo window draws nothing.
type gameScript struct {
	help string
	// fps is the app's own pace (0: the display's rate)
	fps float64
	// cycle is the script's length; it repeats
	cycle int64
	// stutterFrom/To: a phase where frames come late (stutterP one refresh, stutter2P two)
	stutterFrom, stutterTo int64
	stutterP, stutter2P    float64
	// freezeAt/freezeNs: a loading freeze (no frame) once per cycle
	freezeAt, freezeNs int64
	// idleAt/idleNs: a pause long enough to be idle (the app stops drawing)
	idleAt, idleNs int64
	activity       string
}

var gameScripts = map[string]*gameScript{
	"game": {
		help:        "a 60 fps SurfaceView game (steady 10 s, a 5 s stutter phase, a 2.5 s loading freeze, steady again; 30 s cycle) measured through SurfaceFlinger; the app's gfxinfo window draws nothing",
		fps:         60,
		cycle:       30_000 * ms,
		stutterFrom: 10_000 * ms, stutterTo: 15_000 * ms, stutterP: 0.15, stutter2P: 0.05,
		freezeAt: 16_000 * ms, freezeNs: 2_500 * ms,
		activity: "GameActivity",
	},
	"flutter": {
		help:        "a Flutter-like app drawing at the display's full rate into a FlutterSurfaceView (rare late frames, an idle pause of 6 s every 20 s) measured through SurfaceFlinger",
		cycle:       20_000 * ms,
		stutterFrom: 0, stutterTo: 14_000 * ms, stutterP: 0.01,
		idleAt: 14_000 * ms, idleNs: 6_000 * ms,
		activity: "MainActivity",
	},
}

// GameTruth describes a game scenario's truth for tests.
const (
	// GameSteadyEndNs is when the game scenario's first steady phase ends (after StartNs).
	GameSteadyEndNs = 10_000 * ms
)

// GameScenarios lists the scenarios that draw through SurfaceFlinger (kept apart from
// Scenarios, whose apps draw through hwui windows).
var GameScenarios = []string{"game", "flutter"}

func init() {
	for _, name := range GameScenarios {
		ScenarioHelp[name] = gameScripts[name].help
		profiles[name] = &profile{}
	}
}

// IsGame reports whether a scenario draws through SurfaceFlinger (layer frames).
func IsGame(scenario string) bool { return gameScripts[scenario] != nil }

// GameLayer is the SurfaceFlinger layer name the game scenarios present on (Android 14 naming).
func GameLayer(pkg, scenario string) string {
	g := gameScripts[scenario]
	if g == nil {
		return ""
	}
	return fmt.Sprintf("SurfaceView[%s/%s.%s]@0(BLAST)#0", pkg, pkg, g.activity)
}

// GameActivity is the activity of a game scenario's layer and window.
func GameActivity(pkg, scenario string) string {
	if g := gameScripts[scenario]; g != nil {
		return pkg + "." + g.activity
	}
	return ""
}

// SetLayerSink makes Run call fn with every layer frame it sends, at its present time (a fake
// device's SurfaceFlinger keeps them). fn runs on Run's goroutine. Call before Run.
func (s *Sim) SetLayerSink(fn func(*source.LayerFrame)) { s.layerSink = fn }

// gameModel generates the frames of a game script.
type gameModel struct {
	g       *gameScript
	rng     *rand.Rand
	t       int64 // display period
	cadence int64 // refreshes per frame at the app's pace
	layer   string
	next    int64 // the next frame's present time
	late    int64 // refreshes the next frame is late by
}

func newGameModel(cfg Config, g *gameScript, t0 int64) *gameModel {
	t := int64(math.Round(1e9 / cfg.Hz))
	c := int64(1)
	if g.fps > 0 {
		c = max(1, int64(math.Round(cfg.Hz/g.fps)))
	}
	m := &gameModel{g: g, rng: rand.New(rand.NewPCG(uint64(cfg.Seed), 0x9a3e)), t: t, cadence: c,
		layer: GameLayer(cfg.Package, cfg.Scenario)}
	m.next = t0 + c*t
	return m
}

// frames returns the frames presented up to target, in order.
func (m *gameModel) frames(t0, target int64, out []source.Event) []source.Event {
	for m.next <= target {
		present := m.next
		phase := (present - t0) % m.g.cycle
		late := m.late
		m.late = 0
		// truth in frames at the app's pace (DESIGN §4a): round((cadence + late) / cadence) − 1
		dropped := (2*(m.cadence+late)+m.cadence)/(2*m.cadence) - 1
		ev := &source.LayerFrame{Layer: m.layer, DesiredNs: present - late*m.t, PresentNs: present,
			ReadyNs: present - m.t/2, PeriodNs: m.t, Dropped: dropped}
		out = append(out, ev)
		step := m.cadence * m.t
		nextPhase := phase + step
		switch {
		case m.g.freezeNs > 0 && phase < m.g.freezeAt && nextPhase >= m.g.freezeAt:
			late := (m.g.freezeNs + m.t - 1) / m.t
			m.late = late
			step += late * m.t
		case m.g.idleNs > 0 && phase < m.g.idleAt && nextPhase >= m.g.idleAt:
			step += (m.g.idleNs + m.t - 1) / m.t * m.t // idle: the frame after it is not late
		case phase >= m.g.stutterFrom && phase < m.g.stutterTo:
			if r := m.rng.Float64(); r < m.g.stutter2P {
				m.late = 2
			} else if r < m.g.stutter2P+m.g.stutterP {
				m.late = 1
			}
			step += m.late * m.t
		}
		m.next = present + step
	}
	return out
}

// runGame is Run for the game scenarios: a session naming the layer, the layer's frames, ticks.
// Run's deferred flush completes the truth.
func (s *Sim) runGame(ctx context.Context, out chan<- []source.Event, g *gameScript) error {
	cfg := s.cfg
	t0 := StartNs
	m := newGameModel(cfg, g, t0)
	if s.dump != nil {
		s.dump.SetWindow(cfg.Package+"/"+GameActivity(cfg.Package, cfg.Scenario), "", true, t0)
	}
	end := s.endNs(t0)
	nextTick := t0 + int64(TickEvery)
	return s.pace(ctx, out, t0, end, s.header(t0, m.layer, "SurfaceView (BLAST)"), func(target int64, last bool, b []source.Event) ([]source.Event, error) {
		n := len(b)
		b = m.frames(t0, target, b)
		if err := s.observeLayer(b[n:]); err != nil {
			return nil, err
		}
		for ; nextTick <= target; nextTick += int64(TickEvery) {
			b = append(b, &source.Tick{NowNs: nextTick})
		}
		if last {
			b = append(b, &source.Tick{NowNs: end}) // even when a tick fell on end, as recorded runs have it
		}
		return b, nil
	})
}

// observeLayer passes new layer frames to the sink and the truth.
func (s *Sim) observeLayer(evs []source.Event) error {
	var line []byte
	var err error
	for _, ev := range evs {
		f, ok := ev.(*source.LayerFrame)
		if !ok {
			continue
		}
		if s.layerSink != nil {
			s.layerSink(f)
		}
		if s.truth != nil {
			if line, err = source.AppendLine(line[:0], f); err != nil {
				return fmt.Errorf("writing truth: %w", err)
			}
			if _, err = s.truth.Write(append(line, '\n')); err != nil {
				return fmt.Errorf("writing truth: %w", err)
			}
		}
	}
	return nil
}
