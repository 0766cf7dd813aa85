package surfaceflinger

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"sync/atomic"
	"time"

	"github.com/fpstop/fpstop/device"
	"github.com/fpstop/fpstop/source"
)

// Device runs the SurfaceFlinger dumps. The device layer (device.Target) implements it and
// validates every layer name before it reaches a shell.
type Device interface {
	SFList(ctx context.Context) ([]byte, error)
	SFLatency(ctx context.Context, layer string) ([]byte, error)
	SFTimestats(ctx context.Context, op string) ([]byte, error)
}

// Config configures NewPoller.
type Config struct {
	// Package is the app whose layers are measured (already validated).
	Package string
	// Layer fixes the layer (the picker's choice); "" finds the package's presenting layer.
	Layer string
	// Interval between polls; 0 = adaptive: half the 127-frame ring's time at the refresh rate
	// (120 Hz → 529 ms, 60 Hz → 1 s), never below MinInterval.
	Interval time.Duration
	// KeepRaw emits each dump as a source.Raw event (--record-raw).
	KeepRaw bool
	// SurfaceViewsOnly measures only the app's SurfaceView layers (auto: its windows are
	// measured by gfxinfo).
	SurfaceViewsOnly bool
	// NoTimestats: where --latency prints only the period (Android 16), say so and stop
	// instead of turning the global timestats on (auto, which never changes device state).
	NoTimestats bool
	// Device is reported in the Session event.
	Device source.Device
	// PollClock replaces the wall clock in tests (nil fields = time.Now and a timer).
	source.PollClock
}

// Poll timing.
const (
	MinInterval     = 100 * time.Millisecond
	DefaultInterval = 500 * time.Millisecond
	MaxInterval     = time.Second
	// RingRecords is how many records `--latency` prints (a ring of 128 minus the slot in progress).
	RingRecords = 127
	relistEvery = 2 * time.Second
	// relistPresenting is how often the layers are listed while the measured one presents:
	// rarely (a better layer that appears beside it is found then), and its candidates' rings
	// are read again only when the list changed.
	relistPresenting = 10 * time.Second
	staleAfter       = time.Second
	probeGap         = 150 * time.Millisecond
	maxProbe         = 8
	periodOnlyN      = 3 // period-only polls of a presenting layer before the timestats fallback
	backoffStart     = 250 * time.Millisecond
	backoffMax       = 5 * time.Second
)

// AdaptiveInterval is the poll period for a display period (0 unknown): half the time the
// 127-record ring holds, clamped to [MinInterval, MaxInterval].
func AdaptiveInterval(periodNs int64) time.Duration {
	if periodNs <= 0 {
		return DefaultInterval
	}
	d := time.Duration(periodNs * RingRecords / 2)
	return max(MinInterval, min(MaxInterval, d))
}

// Poller is a source.Source polling one app's SurfaceFlinger layer.
type Poller struct {
	d   Device
	cfg Config
}

// NewPoller returns a source polling d for cfg.Package.
func NewPoller(d Device, cfg Config) *Poller {
	cfg.PollClock = cfg.PollClock.OrWall()
	return &Poller{d: d, cfg: cfg}
}

// run is one Run's state.
type run struct {
	p   *Poller
	evs []source.Event

	layer    Layer            // the layer measured ("" none yet)
	last     map[string]int64 // newest actual present emitted, per layer
	newest   int64            // newest actual present emitted on any layer
	probe    map[string]int64 // newest actual present seen when probing, per layer
	periodNs int64
	hz       float64
	// device clock ≈ host clock + offset (learned from present times, which are never in
	// the future); start anchors host time
	start     time.Time
	offset    int64
	hasOffset bool

	lastList    time.Time
	listed      []string // the candidates the last LayerList told of
	lastAdvance time.Time
	periodOnly  int
	// probePeriodOnly counts probes whose --latency printed the period only (auto's Android 16 hint)
	probePeriodOnly int
	ts              *tsState
	refused         map[string]bool
}

// Run polls until ctx is cancelled. Device errors are retried with backoff and reported as
// Notices; a package with no layer yet is waited for.
func (p *Poller) Run(ctx context.Context, out chan<- []source.Event) error {
	if p.cfg.Package == "" {
		return errors.New("surfaceflinger: no package to poll")
	}
	r := &run{p: p, last: map[string]int64{}, probe: map[string]int64{}, refused: map[string]bool{}, start: p.cfg.Now()}
	defer r.restoreTimestats()
	r.session()
	if err := source.Send(ctx, out, r.flush()); err != nil {
		return err
	}
	loop := source.PollLoop{PollClock: p.cfg.PollClock, BackoffStart: backoffStart, BackoffMax: backoffMax,
		Poll: r.step}
	// The device time of the last good poll, for the not-responding notice: that notice is sent
	// from a goroutine of its own while a poll waits, so it must not read the run's state.
	var lastAt atomic.Int64
	loop.Unanswered = func(ctx context.Context, after time.Duration) {
		_ = source.Send(ctx, out, []source.Event{&source.Notice{AtNs: lastAt.Load(), Level: source.LevelWarn,
			Text: source.NotRespondingText("`dumpsys SurfaceFlinger`", after)}})
	}
	loop.Failed = func(ctx context.Context, err error, first bool) error {
		if errors.Is(err, errPeriodOnly) {
			return err
		}
		if first {
			r.evs = append(r.evs, &source.Notice{AtNs: r.now(), Level: source.LevelErr,
				State: source.OutageState(err), Text: source.RetryText("surfaceflinger", err, backoffMax)})
		}
		return source.Send(ctx, out, r.flush())
	}
	loop.Polled = func(ctx context.Context, begin time.Time, back bool) (time.Duration, error) {
		if back {
			r.evs = append(r.evs, &source.Notice{AtNs: r.now(), Level: source.LevelInfo, State: source.StateLive,
				Text: "surfaceflinger: device back"})
		}
		if err := source.Send(ctx, out, r.flush()); err != nil {
			return 0, err
		}
		lastAt.Store(r.now())
		return r.wait(begin), nil
	}
	err := loop.Run(ctx)
	if errors.Is(err, errPeriodOnly) {
		_ = source.Send(ctx, out, r.flush())
		return nil
	}
	return err
}

func (r *run) wait(begin time.Time) time.Duration {
	w := r.p.cfg.Interval
	if w <= 0 {
		w = AdaptiveInterval(r.periodNs)
		if r.ts != nil {
			w = time.Second
		}
		w -= r.p.cfg.Now().Sub(begin)
	}
	return max(w, MinInterval)
}

func (r *run) flush() []source.Event {
	evs := r.evs
	r.evs = nil
	return evs
}

// now is the device's monotonic time, estimated from the host clock and the present times seen.
func (r *run) now() int64 {
	host := int64(r.p.cfg.Now().Sub(r.start))
	if !r.hasOffset {
		return 0
	}
	return host + r.offset
}

// observe learns the device clock from a present time just read (it is in the past).
func (r *run) observe(presentNs int64) {
	host := int64(r.p.cfg.Now().Sub(r.start))
	if off := presentNs - host; !r.hasOffset || off > r.offset {
		r.offset, r.hasOffset = off, true
	}
}

func (r *run) session() {
	r.evs = append(r.evs, &source.Session{Source: source.KindSurfaceFlinger, Device: r.p.cfg.Device,
		Package: r.p.cfg.Package, CostBasis: source.CostFrame, RefreshHz: r.hz,
		Layer: r.layer.Name, LayerKind: layerKind(r.layer)})
}

func layerKind(l Layer) string {
	if l.Name == "" {
		return ""
	}
	return l.Kind.String()
}

// step is one poll: (re)find the layer when due, then read its latency ring.
func (r *run) step(ctx context.Context) error {
	now := r.p.cfg.Now()
	if r.ts != nil {
		return r.stepTimestats(ctx)
	}
	every := relistEvery
	if r.presenting() {
		every = relistPresenting
	}
	due := r.layer.Name == "" || now.Sub(r.lastList) >= every
	if due {
		if err := r.discover(ctx); err != nil {
			return err
		}
	}
	if r.layer.Name == "" {
		return nil
	}
	data, err := r.p.d.SFLatency(ctx, r.layer.Name)
	if err != nil {
		if errors.Is(err, device.ErrInvalid) {
			r.refuse(r.layer.Name, err)
			r.layer = Layer{}
			return nil
		}
		return err
	}
	if r.p.cfg.KeepRaw {
		r.evs = append(r.evs, &source.Raw{AtNs: r.now(), Stream: "surfaceflinger", Text: data})
	}
	l := ParseLatency(data)
	r.apply(l)
	if r.periodOnly >= periodOnlyN {
		if r.p.cfg.NoTimestats {
			r.evs = append(r.evs, &source.Notice{AtNs: r.now(), Level: source.LevelWarn,
				Text: "auto: the app's SurfaceView layer prints no --latency frames here (Android 16): --source surfaceflinger measures it with --timestats"})
			return errPeriodOnly
		}
		return r.startTimestats(ctx)
	}
	return nil
}

// errPeriodOnly ends a poller that may not fall back to timestats.
var errPeriodOnly = errors.New("surfaceflinger: --latency prints the period only")

// presenting reports whether the measured layer presented a frame lately.
func (r *run) presenting() bool {
	return r.layer.Name != "" && r.p.cfg.Now().Sub(r.lastAdvance) < staleAfter
}

// apply turns one latency dump of the measured layer into events.
func (r *run) apply(l *Latency) {
	r.setPeriod(l.PeriodNs)
	if l.PeriodOnly() {
		r.periodOnly++
	} else {
		r.periodOnly = 0
	}
	if l.Bad > 0 {
		r.evs = append(r.evs, source.Notef(r.now(), source.LevelWarn, "surfaceflinger: %d --latency lines not understood", l.Bad))
	}
	name := r.layer.Name
	last, seen := r.last[name]
	fresh := freshRecords(l.Records, last)
	var lost int64
	if seen && last > 0 && l.Zero == 0 && len(fresh) == len(l.Records) && len(fresh) > 1 {
		// every slot of the ring is written and all of it is new: everything between the last
		// record seen and the ring's oldest was overwritten before this poll
		lost = missed(last, fresh)
	}
	if lost > 0 {
		// frames fpstop never saw: lost, never late — the frame after them is not judged
		r.evs = append(r.evs, &source.Gap{FromNs: last, ToNs: fresh[0].Actual, Layer: name, Lost: lost,
			Reason: "surfaceflinger --latency history overran between polls"})
	}
	for _, rec := range fresh {
		r.evs = append(r.evs, &source.LayerFrame{Layer: name, DesiredNs: rec.Desired, PresentNs: rec.Actual,
			ReadyNs: rec.Ready, PeriodNs: l.PeriodNs})
		r.observe(rec.Actual)
	}
	if n := len(fresh); n > 0 {
		r.last[name] = fresh[n-1].Actual
		r.newest = max(r.newest, fresh[n-1].Actual)
		r.lastAdvance = r.p.cfg.Now()
	}
	r.evs = append(r.evs, &source.LayerPoll{AtNs: r.now(), Layer: name, Records: len(l.Records), NewRecords: len(fresh), Lost: lost})
	if at := r.now(); at > 0 {
		r.evs = append(r.evs, &source.Tick{NowNs: at})
	}
}

// freshRecords returns the records presented after last, by present time, each present once.
func freshRecords(recs []Record, last int64) []Record {
	fresh := make([]Record, 0, len(recs))
	for _, rec := range recs {
		if rec.Actual > last {
			fresh = append(fresh, rec)
		}
	}
	sort.Slice(fresh, func(i, j int) bool { return fresh[i].Actual < fresh[j].Actual })
	out := fresh[:0]
	for i, rec := range fresh {
		if i == 0 || rec.Actual != fresh[i-1].Actual {
			out = append(out, rec)
		}
	}
	return out
}

// missed estimates the frames overwritten between last and the ring's oldest record: the gap
// in median present intervals, less the one that is the oldest record itself (0 when the
// oldest record is the frame right after last).
func missed(last int64, fresh []Record) int64 {
	d := make([]int64, 0, len(fresh)-1)
	for i := 1; i < len(fresh); i++ {
		d = append(d, fresh[i].Actual-fresh[i-1].Actual)
	}
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	med := d[len(d)/2]
	if med <= 0 {
		return 0
	}
	n := int64(math.Round(float64(fresh[0].Actual-last)/float64(med))) - 1
	return max(n, 0)
}

func (r *run) setPeriod(periodNs int64) {
	if periodNs < 1_000_000 || periodNs > 100_000_000 {
		return
	}
	r.periodNs = periodNs
	hz := math.Round(1e11/float64(periodNs)) / 100
	if math.Abs(hz-r.hz) >= 0.5 {
		r.hz = hz
		r.evs = append(r.evs, &source.Refresh{AtNs: r.now(), Hz: hz})
	}
}

func (r *run) refuse(name string, err error) {
	if r.refused[name] {
		return
	}
	r.refused[name] = true
	r.evs = append(r.evs, source.Notef(r.now(), source.LevelWarn, "surfaceflinger: layer name refused, not sent to the device: %v", err))
}

// Describe says which layer is measured, for logs and the picker.
func (l Layer) Describe() string { return fmt.Sprintf("%s (%s)", l.Name, l.Kind) }
