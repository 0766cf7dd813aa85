package gfxinfo

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/fpstop/fpstop/source"
)

// Dumper runs `dumpsys gfxinfo <pkg> framestats` on a device and returns its output. The
// device layer implements it; pkg has been validated by the caller.
type Dumper interface {
	Gfxinfo(ctx context.Context, pkg string) ([]byte, error)
}

// ResetDumper is a Dumper that can also run `dumpsys gfxinfo <pkg> framestats reset` (dump,
// then clear the app's counters and rows). The poller uses it only when PollerConfig.Reset is
// set: a reset wipes the app's statistics for everyone else reading them.
type ResetDumper interface {
	Dumper
	GfxinfoReset(ctx context.Context, pkg string) ([]byte, error)
}

// DumperFunc adapts a function to Dumper.
type DumperFunc func(ctx context.Context, pkg string) ([]byte, error)

// Gfxinfo implements Dumper.
func (f DumperFunc) Gfxinfo(ctx context.Context, pkg string) ([]byte, error) { return f(ctx, pkg) }

// Args is the dumpsys command line a Dumper runs for pkg: `dumpsys gfxinfo <pkg> framestats`,
// plus `reset` only when reset is true.
func Args(pkg string, reset bool) []string {
	a := []string{"dumpsys", "gfxinfo", pkg, "framestats"}
	if reset {
		a = append(a, "reset")
	}
	return a
}

// PollerConfig configures NewPoller.
type PollerConfig struct {
	// Package is the app to poll (already validated).
	Package string
	// Interval between polls; 0 = adaptive: under half the 120-frame ring's time at the
	// current refresh rate (120 Hz → 500 ms, 60 Hz → 1 s), never below MinInterval.
	Interval time.Duration
	// Reset appends `reset` to every dump (needs a ResetDumper). Off by default: it wipes the
	// app's counters for everyone.
	Reset bool
	// KeepRaw emits each dump's text as a source.Raw event (--record-raw).
	KeepRaw bool
	// Device is reported in the Session event.
	Device source.Device
	// PollClock replaces the wall clock in tests (nil fields = time.Now and a timer).
	source.PollClock
}

// Poll timing limits.
const (
	MinInterval     = 100 * time.Millisecond
	DefaultInterval = 500 * time.Millisecond
	MaxInterval     = time.Second
	backoffStart    = 250 * time.Millisecond
	backoffMax      = 5 * time.Second
	ringFrames      = 120
)

// Poller is a source.Source that polls a device's gfxinfo framestats.
type Poller struct {
	d   Dumper
	cfg PollerConfig
}

// NewPoller returns a source polling d for cfg.Package.
func NewPoller(d Dumper, cfg PollerConfig) *Poller {
	cfg.PollClock = cfg.PollClock.OrWall()
	return &Poller{d: d, cfg: cfg}
}

// Run polls until ctx is cancelled. Dumper errors are retried with backoff (250 ms doubling to
// 5 s) and reported as Notices (disconnected, then live again); an app that is not running is
// waited for; a restarted app (new pid) is reported and its windows' dedupe state reset.
func (p *Poller) Run(ctx context.Context, out chan<- []source.Event) error {
	if p.cfg.Package == "" {
		return errors.New("gfxinfo: no package to poll")
	}
	var rd ResetDumper
	if p.cfg.Reset {
		var ok bool
		if rd, ok = p.d.(ResetDumper); !ok {
			return errors.New("gfxinfo: reset requested but the device layer cannot reset")
		}
	}
	st := newTracker(p.cfg.Package, "")
	st.device, st.reset, st.live = p.cfg.Device, p.cfg.Reset, true
	defer func() {
		// The run is over (ctx ended): the final accounting goes out if the reader still
		// has room for it, never blocking.
		if evs := st.flush(); len(evs) > 0 {
			select {
			case out <- evs:
			default:
			}
		}
	}()
	var data []byte
	var gapFrom int64 // device time last seen before a disconnection
	loop := source.PollLoop{PollClock: p.cfg.PollClock, BackoffStart: backoffStart, BackoffMax: backoffMax}
	loop.Poll = func(ctx context.Context) (err error) {
		if rd != nil {
			data, err = rd.GfxinfoReset(ctx, p.cfg.Package)
		} else {
			data, err = p.d.Gfxinfo(ctx, p.cfg.Package)
		}
		return err
	}
	loop.Failed = func(ctx context.Context, err error, first bool) error {
		if !first {
			return nil
		}
		return send(ctx, out, []source.Event{&source.Notice{AtNs: st.lastNs, Level: source.LevelErr,
			State: source.OutageState(err), Text: source.RetryText("gfxinfo", err, backoffMax)}})
	}
	loop.Polled = func(ctx context.Context, start time.Time, back bool) (time.Duration, error) {
		if back {
			gapFrom = st.lastNs
			st.state = "" // the next dump re-announces its state
		}
		var evs []source.Event
		if p.cfg.KeepRaw {
			evs = append(evs, &source.Raw{AtNs: st.lastNs, Stream: "gfxinfo", Text: data})
		}
		st.wallNs = start.UnixNano()
		evs = st.apply(evs, data)
		if gapFrom > 0 {
			if st.lastNs > gapFrom {
				evs = append(evs, &source.Gap{FromNs: gapFrom, ToNs: st.lastNs, Reason: "device disconnected"})
			}
			gapFrom = 0
		}
		if len(evs) > 0 {
			if e := send(ctx, out, evs); e != nil {
				return 0, e
			}
		}
		return p.wait(st, evs, start), nil
	}
	return loop.Run(ctx)
}

// damagedPolls is how many polls after a damaged dump are taken at a quarter of the adaptive
// interval.
const damagedPolls = 40

// wait returns how long to sleep before the next poll: the configured interval, else the
// adaptive one less the time this poll took. While the output is damaged (a flaky cable, a full
// buffer: the last damaged dump was under damagedPolls polls ago) it is a quarter of that, so
// every ring row is printed by some eight dumps instead of two: a row torn in one is read from
// another, and fewer frames are lost or charged on a damaged counter.
func (p *Poller) wait(st *tracker, evs []source.Event, start time.Time) time.Duration {
	if p.cfg.Interval > 0 {
		return p.cfg.Interval
	}
	st.damaged = max(st.damaged-1, 0)
	for _, e := range evs {
		if n, ok := e.(*source.Notice); ok && n.Level == source.LevelWarn && strings.HasPrefix(n.Text, "gfxinfo: ") {
			st.damaged = damagedPolls
			break
		}
	}
	wait := AdaptiveInterval(st.periodNs)
	if st.damaged > 0 {
		wait /= 4
	}
	return max(wait-p.cfg.Now().Sub(start), MinInterval)
}

// AdaptiveInterval is the poll period for frames of periodNs (0 = unknown): half the time
// the 120-frame ring holds, clamped to [MinInterval, MaxInterval]; DefaultInterval when unknown.
func AdaptiveInterval(periodNs int64) time.Duration {
	if periodNs <= 0 {
		return DefaultInterval
	}
	d := time.Duration(periodNs * ringFrames / 2)
	if d > MaxInterval {
		d = MaxInterval
	}
	if d < MinInterval {
		d = MinInterval
	}
	return d
}

func send(ctx context.Context, out chan<- []source.Event, evs []source.Event) error {
	select {
	case out <- evs:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
