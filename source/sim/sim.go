// Package sim is fpstop's built-in vsync simulator: a deterministic model of a display's vsync
// grid, Choreographer, the app's main Looper and its RenderThread (see model.go for the model),
// driven by a scenario script. It emits the same events as the real sources, writes its ground
// truth as JSON lines, and feeds a gfxinfo store as it runs (SetGfxinfo). The tests' harness
// internal/testkit/simtext renders its events as the text a phone prints (gfxinfo, logcat, a
// Perfetto trace), so the real parsers can be tested against known truth and a fake device
// can serve live output.
//
// # Event order
//
// Events are sent in the order they became observable in virtual time, their emission time:
// a Frame at its DoneNs (frame complete), a Message at its EndNs (the Finished line), a Tick at
// its NowNs, a Notice at its AtNs, a Dispatch 100 ms after its StartNs (only main-thread
// messages that run longer than that: the message is still running, as logcat's live source
// announces an open Dispatching line), and a Skipped just before the vsync Message whose late
// doFrame logged it (its AtNs is the doFrame start, inside that message). Emission times never decrease
// across the stream; ties keep the order the model produced them (a vsync message before its
// frames, a frame or message before a Tick of the same time). Because the main thread runs one
// message at a time, logcat text rendered batch by batch (simtext.RenderLogcat) stays in time order. So a Frame's
// At() (its IntendedVsync) can be older than an earlier Tick: a Tick at NowNs means every frame
// completed and every message finished by NowNs has been sent, not that no frame is in flight.
// The first batch starts with the Session, the Refresh and a "live" Notice, all at the virtual
// start time; the last batch (when Duration is set) ends with an "ended" Notice and a Tick at the
// end. Frames and messages not finished by the end are never sent (and not in the truth).
package sim

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fpstop/fpstop/source"
)

// Defaults.
const (
	DefaultPackage  = "com.example.feed"
	DefaultPid      = 23817
	DefaultHz       = 60
	DefaultScenario = "demo"

	// StartNs is the virtual monotonic clock at the start of every run (about 3.5 days of
	// uptime, so timestamps look like a real device's).
	StartNs int64 = 301_234_567_890_123

	// TickEvery is the virtual time between Ticks.
	TickEvery = 100 * time.Millisecond

	virtualBatch = 100 * ms              // virtual time per batch at speed 0
	wallBatch    = 25 * time.Millisecond // wall time between batches at speed > 0
)

// Config configures a simulator run.
type Config struct {
	// Scenario is one of Scenarios ("" = "demo").
	Scenario string
	// Hz is the display refresh rate: 60, 90, 120, 144 or anything from 30 to 240 (0 = 60).
	Hz float64
	// Seed makes the run reproducible: the same Config gives byte-identical events.
	Seed int64
	// Speed paces the run: 1 real time, 2 twice as fast, 0 as fast as possible (no sleeping).
	Speed float64
	// Duration is the virtual length of the run; 0 runs until the context is cancelled.
	Duration time.Duration
	// Package is the app's package ("" = "com.example.feed").
	Package string
	// Pid is the app's pid (0 = DefaultPid).
	Pid int
	// Pre12 models a device before Android 12: the same pipeline, but frames carry no
	// FrameDeadline (render them with a layout before simtext.LayoutAndroid13, which has no deadline
	// column). The default is Android 12+: Choreographer's deadline with hwui's stuffing
	// extension, as real 12+ devices print it.
	Pre12 bool
	// WorkScale multiplies every frame's work (input, animation, traversal, draw, the sync,
	// issue, GPU and spikes; not GC pauses, freezes, buffer stuffing or other messages) by this
	// factor (0 = 1): a build whose frames are a few percent slower, so comparisons can be
	// checked for finding a known regression (docs/compare.md). Game scenarios ignore it.
	WorkScale float64
}

// Sim is a configured simulator; it implements source.Source. A Sim runs once.
type Sim struct {
	cfg   Config
	prof  *profile
	truth *bufio.Writer
	dump  Gfxinfo
	// layerSink receives the game scenarios' layer frames (game.go)
	layerSink func(*source.LayerFrame)

	mu  sync.Mutex
	ran bool
	now atomic.Int64
}

// New validates cfg, fills its defaults and returns a simulator.
func New(cfg Config) (*Sim, error) {
	if cfg.Scenario == "" {
		cfg.Scenario = DefaultScenario
	}
	_, ok := profiles[cfg.Scenario]
	if !ok {
		return nil, fmt.Errorf("unknown scenario %q (valid: %s)", cfg.Scenario, strings.Join(append(Scenarios[:len(Scenarios):len(Scenarios)], GameScenarios...), ", "))
	}
	if cfg.Hz == 0 {
		cfg.Hz = DefaultHz
	}
	if math.IsNaN(cfg.Hz) || cfg.Hz < 30 || cfg.Hz > 240 {
		return nil, fmt.Errorf("refresh rate %g Hz out of range (60, 90, 120, 144 or any rate from 30 to 240)", cfg.Hz)
	}
	if math.IsNaN(cfg.Speed) || math.IsInf(cfg.Speed, 0) || cfg.Speed < 0 {
		return nil, fmt.Errorf("speed %g must be 0 (as fast as possible) or positive", cfg.Speed)
	}
	if cfg.Duration < 0 {
		return nil, fmt.Errorf("duration %v must not be negative", cfg.Duration)
	}
	if cfg.Package == "" {
		cfg.Package = DefaultPackage
	}
	if cfg.Pid == 0 {
		cfg.Pid = DefaultPid
	}
	if cfg.Pid < 0 {
		return nil, fmt.Errorf("pid %d must be positive", cfg.Pid)
	}
	if cfg.WorkScale == 0 {
		cfg.WorkScale = 1
	}
	if math.IsNaN(cfg.WorkScale) || cfg.WorkScale < 0.25 || cfg.WorkScale > 4 {
		return nil, fmt.Errorf("work scale %g out of range (0.25 to 4; 1 is the scenario as written)", cfg.WorkScale)
	}
	prof := profiles[cfg.Scenario]
	if prof != nil && cfg.WorkScale != 1 {
		p := *prof
		p.trav, p.draw, p.issue, p.gpu = p.trav*cfg.WorkScale, p.draw*cfg.WorkScale, p.issue*cfg.WorkScale, p.gpu*cfg.WorkScale
		p.spikeLo, p.spikeHi = p.spikeLo*cfg.WorkScale, p.spikeHi*cfg.WorkScale
		p.work = cfg.WorkScale
		prof = &p
	}
	return &Sim{cfg: cfg, prof: prof}, nil
}

// Config returns the configuration with defaults filled in.
func (s *Sim) Config() Config { return s.cfg }

// IntervalNs returns the frame interval T = round(1e9/Hz) the simulator uses.
func (s *Sim) IntervalNs() int64 { return int64(math.Round(1e9 / s.cfg.Hz)) }

// SetTruth makes Run write the ground truth to w: one JSON line (source.AppendLine) per frame
// and per message, in emission order, exactly as sent. Writes are buffered and flushed when Run
// returns. Call before Run.
func (s *Sim) SetTruth(w io.Writer) { s.truth = bufio.NewWriterSize(w, 64<<10) }

// Gfxinfo is what SetGfxinfo feeds: hwui's per-process frame store as a fake phone prints it
// (internal/testkit/simtext.GfxinfoDump, a test harness kept out of the binary).
type Gfxinfo interface {
	Reset(pkg string, pid int, sinceNs int64)
	SetWindow(title, vri string, attached bool, atNs int64)
	AddFrame(f *source.Frame)
}

// SetGfxinfo makes Run feed d as it goes: every frame it sends and every window it attaches or
// removes, at the frame's or change's emission time, so d shows what a device would print at
// that moment. d's package, pid and "Stats since" are set from the simulator. d may be read
// from another goroutine while Run feeds it. Call before Run.
func (s *Sim) SetGfxinfo(d Gfxinfo) {
	d.Reset(s.cfg.Package, s.cfg.Pid, StartNs)
	s.dump = d
}

// Now returns the virtual monotonic time the run has reached (every event up to it has been
// put in a batch): StartNs before Run starts. Safe to call from any goroutine, e.g. by a fake
// device printing "Uptime:" beside a GfxinfoDump.
func (s *Sim) Now() int64 {
	if n := s.now.Load(); n != 0 {
		return n
	}
	return StartNs
}

// Run implements source.Source.
func (s *Sim) Run(ctx context.Context, out chan<- []source.Event) (err error) {
	s.mu.Lock()
	if s.ran {
		s.mu.Unlock()
		return errors.New("sim: Run called twice")
	}
	s.ran = true
	s.mu.Unlock()
	defer func() {
		if s.truth != nil {
			if ferr := s.truth.Flush(); ferr != nil && err == nil {
				err = fmt.Errorf("writing truth: %w", ferr)
			}
		}
	}()

	if g := gameScripts[s.cfg.Scenario]; g != nil {
		return s.runGame(ctx, out, g)
	}
	t0 := StartNs
	end := s.endNs(t0)
	rn := &runner{s: s, e: newEngine(s.cfg, s.prof, t0), nextTick: t0 + int64(TickEvery)}
	return s.pace(ctx, out, t0, end, s.header(t0, "", ""), func(target int64, last bool, b []source.Event) ([]source.Event, error) {
		rn.batch = b
		if err := rn.collect(target); err != nil {
			return nil, err
		}
		// the engine emits the model's ticks in time order; end gets one unless one fell on it
		if last && rn.nextTick-int64(TickEvery) != end {
			rn.batch = append(rn.batch, &source.Tick{NowNs: end})
		}
		return rn.batch, nil
	})
}

// endNs is when a run started at t0 ends: after Duration, or never.
func (s *Sim) endNs(t0 int64) int64 {
	if s.cfg.Duration > 0 {
		return t0 + int64(s.cfg.Duration)
	}
	return math.MaxInt64
}

// header is a run's first batch: the session (naming the layer a game scenario draws on), the
// refresh rate and the notice that the simulator is live.
func (s *Sim) header(t0 int64, layer, layerKind string) []source.Event {
	cfg := s.cfg
	scale := cfg.WorkScale
	if scale == 1 || IsGame(cfg.Scenario) {
		scale = 0 // the scenario as written (game scenarios ignore the knob)
	}
	return []source.Event{
		&source.Session{Source: source.KindSim, Device: source.Device{Model: "fpstop simulator"},
			Package: cfg.Package, Pid: cfg.Pid, RefreshHz: cfg.Hz, CostBasis: source.CostFrame,
			StartMonoNs: t0, Scenario: cfg.Scenario, Seed: cfg.Seed, WorkScale: scale, Layer: layer, LayerKind: layerKind},
		&source.Refresh{AtNs: t0, Hz: cfg.Hz},
		&source.Notice{AtNs: t0, Level: source.LevelInfo, State: source.StateLive,
			Text: fmt.Sprintf("simulator: scenario %s at %g Hz, seed %d%s", cfg.Scenario, cfg.Hz, cfg.Seed, scaleText(scale))},
	}
}

// scaleText is the notice's mention of a work scale (0: none).
func scaleText(scale float64) string {
	if scale == 0 {
		return ""
	}
	return fmt.Sprintf(", frame work ×%g (--work-scale)", scale)
}

// pace advances a run's virtual time until end or until ctx ends, in virtualBatch steps or, when
// Speed > 0, with the wall clock times Speed (a step every wallBatch). Each step gen moves all
// that happened up to target into the batch (ticks included; last says target is end) and pace
// sends it, with the end-of-run notice after the last. The Looper model and the game scenarios
// share it so that both pace, end and hand over batches alike; empty batches are not sent.
func (s *Sim) pace(ctx context.Context, out chan<- []source.Event, t0, end int64, batch []source.Event,
	gen func(target int64, last bool, b []source.Event) ([]source.Event, error)) error {
	speed := s.cfg.Speed
	var wallStart time.Time
	var ticker *time.Ticker
	if speed > 0 {
		wallStart = time.Now()
		ticker = time.NewTicker(wallBatch)
		defer ticker.Stop()
	}
	target := t0
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		if speed > 0 {
			target = t0 + int64(float64(time.Since(wallStart))*speed)
		} else {
			target += virtualBatch
		}
		last := target >= end
		target = min(target, end)
		var err error
		if batch, err = gen(target, last, batch); err != nil {
			return err
		}
		s.now.Store(target)
		if last {
			batch = append(batch, &source.Notice{AtNs: end, Level: source.LevelInfo, State: source.StateEnded,
				Text: "simulator: end of run"})
		}
		if len(batch) > 0 {
			select {
			case out <- batch:
				batch = make([]source.Event, 0, cap(batch))
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		if last {
			return nil
		}
		if ticker != nil {
			select {
			case <-ticker.C:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	}
}

// runner is one run of the Looper model: the engine, the batch being filled and the truth line
// buffer.
type runner struct {
	s        *Sim
	e        *engine
	batch    []source.Event
	line     []byte
	nextTick int64
}

// collect runs the model up to target and moves everything observable by then into the batch
// (and the attached gfxinfo dump and truth).
func (rn *runner) collect(target int64) error {
	s, e := rn.s, rn.e
	e.advance(target)
	for ; rn.nextTick <= target; rn.nextTick += int64(TickEvery) {
		e.emit(rn.nextTick, &source.Tick{NowNs: rn.nextTick})
	}
	var werr error
	e.popUpTo(target, func(it outItem) {
		if it.win != nil {
			if s.dump != nil {
				s.dump.SetWindow(it.win.title, it.win.vri, it.win.attached, it.at)
			}
			return
		}
		rn.batch = append(rn.batch, it.ev)
		switch ev := it.ev.(type) {
		case *source.Frame:
			if s.dump != nil {
				s.dump.AddFrame(ev)
			}
		case *source.Message:
		default:
			return
		}
		if s.truth != nil && werr == nil {
			rn.line, werr = source.AppendLine(rn.line[:0], it.ev)
			if werr == nil {
				rn.line = append(rn.line, '\n')
				_, werr = s.truth.Write(rn.line)
			}
		}
	})
	if werr != nil {
		return fmt.Errorf("writing truth: %w", werr)
	}
	return nil
}
