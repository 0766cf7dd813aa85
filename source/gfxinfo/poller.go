package gfxinfo

import (
	"context"
	"errors"
	"sync/atomic"
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

// PollerConfig configures NewPoller.
type PollerConfig struct {
	// Package is the app to poll (already validated).
	Package string
	// Interval between polls; 0 = paced by need: the 120-frame ring's time at the rate the app
	// draws now less a quarter (120 fps → 750 ms, 60 fps → 1.5 s, at most 3 s), and while the
	// app draws nothing a counters-only probe every IdleProbeEvery (when the Dumper is a
	// CounterDumper), back to full dumps as soon as it draws again.
	Interval time.Duration
	// Drawn, when set, carries counts of frames another source saw the app draw (the logcat
	// stream's vsync messages): the poller dumps at once when the idle app draws again or the
	// ring is three-quarters full, before it can overflow.
	Drawn <-chan int
	// Reset appends `reset` to every dump (needs a ResetDumper). Off by default: it wipes the
	// app's counters for everyone.
	Reset bool
	// KeepRaw emits each dump's text as a source.Raw event (--record-raw).
	KeepRaw bool
	// Watch, while it holds true, keeps an idle app's counter probes at the watching pace
	// instead of every IdleProbeEvery: `auto` sets it while it measures the app's SurfaceView
	// layer, when the windows drawing nothing is expected and their return must be seen within
	// seconds (menu → game → menu), not at the idle backoff. Nil: never.
	Watch *atomic.Bool
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
	rd, err := p.resetDumper()
	if err != nil {
		return err
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
	gapWhy := ""      // what the gap was: the words of its first failure
	pc := newPacer(p.cfg.Watch)
	cd, canProbe := p.d.(CounterDumper)
	canProbe = canProbe && p.cfg.Interval == 0 && rd == nil
	clock, stop := p.followDrawn(ctx, pc)
	defer stop()
	loop := source.PollLoop{PollClock: clock, BackoffStart: backoffStart, BackoffMax: backoffMax}
	loop.Poll = func(ctx context.Context) (err error) {
		if !pc.fullNext(canProbe) {
			data, err = cd.GfxinfoCounters(ctx, p.cfg.Package)
			return err
		}
		if rd != nil {
			data, err = rd.GfxinfoReset(ctx, p.cfg.Package)
		} else {
			data, err = p.d.Gfxinfo(ctx, p.cfg.Package)
		}
		return err
	}
	loop.Unanswered = func(ctx context.Context, after time.Duration) {
		_ = send(ctx, out, []source.Event{warning(st.lastNs, source.NotRespondingText("`dumpsys gfxinfo`", after))})
	}
	loop.Failed = func(ctx context.Context, err error, first bool) error {
		if !first {
			return nil
		}
		state := source.OutageState(err)
		gapWhy = gapReason(state)
		return send(ctx, out, []source.Event{&source.Notice{AtNs: st.lastNs, Level: source.LevelErr,
			State: state, Text: source.RetryText("gfxinfo", err, backoffMax)}})
	}
	loop.Polled = func(ctx context.Context, start time.Time, back bool) (time.Duration, error) {
		if back {
			gapFrom = st.lastNs
			st.state = "" // the next dump re-announces its state
		}
		if pc.probing {
			if back {
				pc.probe = false
				return 0, nil // a full dump at once: it marks the gap
			}
			wait, evs := pc.probed(st, data)
			if len(evs) > 0 {
				if e := send(ctx, out, evs); e != nil {
					return 0, e
				}
			}
			return wait, nil
		}
		var evs []source.Event
		if p.cfg.KeepRaw {
			evs = append(evs, &source.Raw{AtNs: st.lastNs, Stream: "gfxinfo", Text: data})
		}
		st.wallNs, st.wallEndNs = start.UnixNano(), clock.Now().UnixNano()
		evs = st.apply(evs, data)
		if gapFrom > 0 {
			if st.lastNs > gapFrom {
				evs = append(evs, &source.Gap{FromNs: gapFrom, ToNs: st.lastNs, Reason: gapWhy})
			}
			gapFrom = 0
		}
		if len(evs) > 0 {
			if e := send(ctx, out, evs); e != nil {
				return 0, e
			}
		}
		if p.cfg.Interval > 0 {
			return p.cfg.Interval, nil
		}
		wait := pc.dumped(st, evs, canProbe)
		if pc.probe {
			return wait, nil
		}
		return max(wait-p.cfg.Now().Sub(start), MinInterval), nil
	}
	return loop.Run(ctx)
}

// resetDumper checks the configuration: a package to poll, and a device layer that can reset
// the counters when asked to (nil when not asked).
func (p *Poller) resetDumper() (ResetDumper, error) {
	if p.cfg.Package == "" {
		return nil, errors.New("gfxinfo: no package to poll")
	}
	if !p.cfg.Reset {
		return nil, nil
	}
	rd, ok := p.d.(ResetDumper)
	if !ok {
		return nil, errors.New("gfxinfo: reset requested but the device layer cannot reset")
	}
	return rd, nil
}

// gapReason is what a gap was, from the state its first failure put the source in: an adb
// server outage is said so (the phone may never have gone).
func gapReason(state source.State) string {
	if state == source.StateAdbDown {
		return "adb server down"
	}
	return "device disconnected"
}

// followDrawn starts following cfg.Drawn (when set and the interval is paced) and returns the
// loop's clock, whose Sleep the pacer can cut short, and what stops the following.
func (p *Poller) followDrawn(ctx context.Context, pc *pacer) (source.PollClock, context.CancelFunc) {
	clock := p.cfg.PollClock
	if p.cfg.Drawn == nil || p.cfg.Interval != 0 {
		return clock, func() {}
	}
	fctx, stop := context.WithCancel(ctx)
	go pc.follow(fctx, p.cfg.Drawn)
	clock.Sleep = func(ctx context.Context, d time.Duration) error { return pc.sleep(ctx, d, p.cfg.Sleep) }
	return clock, stop
}

// damagedPolls is how many polls after a dump with damaged text are taken at a quarter of the
// paced interval: every ring row is then printed by several dumps, so a row torn in one is read
// from another, and fewer frames are lost or charged on a damaged counter. Only damaged text
// starts it (a late poll is not damage).
const damagedPolls = 40

// AdaptiveInterval is the poll period for frames of periodNs (0 = unknown): half the time
// the 120-frame ring holds, clamped to [MinInterval, MaxInterval]; DefaultInterval when unknown.
func AdaptiveInterval(periodNs int64) time.Duration {
	if periodNs <= 0 {
		return DefaultInterval
	}
	return min(max(time.Duration(periodNs*ringFrames/2), MinInterval), MaxInterval)
}

func send(ctx context.Context, out chan<- []source.Event, evs []source.Event) error {
	select {
	case out <- evs:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
