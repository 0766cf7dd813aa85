// Package e2e runs fpstop end to end over a real adb server (Debian's adb, on a private port)
// against a fake device on 127.0.0.1 whose dumpsys and logcat output is generated live from the
// simulator, so every number can be held against the simulator's truth.
package e2e

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fpstop/fpstop/internal/testkit"
	"github.com/fpstop/fpstop/internal/testkit/fakeadb"
	"github.com/fpstop/fpstop/internal/testkit/simtext"
	"github.com/fpstop/fpstop/source"
	"github.com/fpstop/fpstop/source/sim"
)

const pkg = "com.example.feed"

// phone is a simulated app on a fake device: the simulator runs in real time, feeding a
// gfxinfo dump (the last 120 frames per window, as Android keeps them) and any open logcat
// streams.
type phone struct {
	sim   *sim.Sim
	dump  *simtext.GfxinfoDump
	hz    float64
	truth bytes.Buffer // complete once stop returned

	logOffsetNs int64        // added to logcat times (a logcat clock that disagrees)
	damage      *damager     // damages the gfxinfo and logcat output's lines (nil: none)
	pid         atomic.Int64 // the app's pid (tests change it to act out a restart)
	cutAfter    atomic.Int64 // a logcat stream ends by itself after this many ns (0 never)
	// streamedAt is the simulator's time when a streaming logcat first started (0: none yet):
	// what the app logged before it never reaches that stream (the fake prints no -T backlog)
	streamedAt atomic.Int64
	// printer: the app prints Looper printer lines (Looper.setMessageLogging), as debug builds
	// that call it do; off, its logcat has only Choreographer's Skipped lines, as most apps'.
	printer atomic.Bool
	// dumpStall makes the next `logcat -d` answer only after this many ns: a phone or host too
	// busy to answer a look at the app's recent logcat in time
	dumpStall atomic.Int64

	// tracing is the phone's tracing service (perfetto, its files and processes), fed the
	// app's events as they happen; its Truth has each frame's blame and slow work.
	tracing *fakeadb.Tracing

	// firstDump is when (wall clock, UnixNano) the phone first answered dumpsys gfxinfo for
	// the app: the moment fpstop could first know a figure
	firstDump atomic.Int64

	cancel context.CancelFunc
	done   chan struct{}

	fan    testkit.Fanout // the open logcat streams
	mu     sync.Mutex
	recent []source.Event // the last logged events, for `logcat -d`
}

// The phone's FrameTimeline: every tracingSFJankEvery-th frame token is one SurfaceFlinger
// missed; BOOTTIME is ahead of MONOTONIC by tracingBootOffsetNs (a phone that slept).
const (
	tracingSFJankEvery  = 25
	tracingBootOffsetNs = 3_600_000_000_000
)

// recentLogged is how many logged events the phone keeps for `logcat -d`.
const recentLogged = 2000

func startPhone(t testing.TB, hz float64, scenario string, seed int64, logOffsetNs int64) *phone {
	t.Helper()
	s, err := sim.New(sim.Config{Scenario: scenario, Hz: hz, Seed: seed, Speed: 1, Duration: 10 * time.Minute, Package: pkg})
	if err != nil {
		t.Fatal(err)
	}
	p := &phone{sim: s, hz: hz, logOffsetNs: logOffsetNs, done: make(chan struct{})}
	p.pid.Store(int64(s.Config().Pid))
	p.tracing = fakeadb.NewTracing(fakeadb.TracingConfig{Package: pkg, Pid: func() int { return int(p.pid.Load()) },
		Trace: simtext.TraceOptions{Stuffing: true, SlowWork: true, SFJankEvery: tracingSFJankEvery, BootOffsetNs: tracingBootOffsetNs}})
	p.dump = simtext.NewGfxinfoDump(pkg, s.Config().Pid, 0)
	s.SetGfxinfo(p.dump)
	s.SetTruth(&p.truth)
	ctx, cancel := context.WithCancel(context.Background())
	p.cancel = cancel
	ch := make(chan []source.Event, 64)
	go func() {
		_ = s.Run(ctx, ch)
		close(ch)
	}()
	go func() {
		defer close(p.done)
		for b := range ch {
			p.tracing.Feed(b)
			p.mu.Lock()
			for _, ev := range b {
				switch ev.(type) {
				case *source.Message, *source.Skipped:
					if len(p.recent) == recentLogged {
						p.recent = append(p.recent[:0], p.recent[recentLogged/2:]...)
					}
					p.recent = append(p.recent, ev)
				}
			}
			p.mu.Unlock()
			p.fan.Send(b)
		}
	}()
	t.Cleanup(p.stop)
	return p
}

// stop ends the simulator; the truth is complete afterwards.
func (p *phone) stop() {
	p.cancel()
	<-p.done
}

// handler serves the shell commands fpstop sends, as a device running the app would answer.
func (p *phone) handler(ctx context.Context, cmd string, w io.Writer) error {
	if ok, err := p.tracing.Serve(ctx, cmd, w); ok {
		return err
	}
	args := fakeadb.Args(cmd)
	switch {
	case len(args) >= 3 && args[0] == "dumpsys" && args[1] == "gfxinfo":
		var b bytes.Buffer
		// a restarted app (the test changed its pid) prints its new process
		p.dump.Restart(int(p.pid.Load()), p.sim.Now())
		if args[2] != pkg {
			_ = simtext.RenderNoProcess(&b, args[2])
		} else if !contains(args, "framestats") {
			if err := p.dump.RenderSummary(&b, p.sim.Now(), simtext.LayoutAndroid13); err != nil {
				return err
			}
		} else if err := p.dump.Render(&b, p.sim.Now(), simtext.LayoutAndroid13); err != nil {
			return err
		}
		_, err := w.Write(p.damage.apply(b.Bytes()))
		if args[2] == pkg {
			p.firstDump.CompareAndSwap(0, time.Now().UnixNano())
		}
		return err
	case len(args) >= 2 && args[0] == "dumpsys" && args[1] == "display":
		_, err := fmt.Fprintf(w, "  DisplayDeviceInfo{\"Built-in Screen\": uniqueId=\"local:1\", 1080 x 2400, modeId 1, renderFrameRate %.5f, defaultModeId 1, supportedModes [{id=1, width=1080, height=2400, fps=%.5f, vsync=%.5f}]}\n", p.hz, p.hz, p.hz)
		return err
	case len(args) >= 2 && args[0] == "dumpsys" && args[1] == "activity":
		_, err := fmt.Fprintf(w, "  mResumedActivity: ActivityRecord{5e1f2a u0 %s/.FeedActivity t41}\n", pkg)
		return err
	case len(args) >= 2 && args[0] == "dumpsys" && args[1] == "window":
		_, err := fmt.Fprintf(w, "  mCurrentFocus=Window{a1b2c3 u0 %s/%s.FeedActivity}\n", pkg, pkg)
		return err
	case len(args) == 2 && args[0] == "pidof":
		if args[1] != pkg {
			return nil
		}
		_, err := fmt.Fprintf(w, "%d\n", p.pid.Load())
		return err
	case len(args) >= 3 && args[0] == "pm" && args[1] == "list" && contains(args, "-U"):
		_, err := fmt.Fprintf(w, "package:%s uid:10234\n", pkg)
		return err
	case len(args) >= 2 && args[0] == "pm" && args[1] == "list":
		_, err := fmt.Fprintf(w, "package:%s\npackage:com.example.other\n", pkg)
		return err
	case len(args) == 3 && args[0] == "setprop":
		return nil // setprop prints nothing on success
	case len(args) >= 1 && args[0] == "logcat" && (contains(args, "-d") || contains(args, "-t")):
		if d := p.dumpStall.Swap(0); d > 0 {
			select {
			case <-time.After(time.Duration(d)):
			case <-ctx.Done():
				return nil // the host gave up waiting
			}
		}
		p.mu.Lock()
		evs := append([]source.Event(nil), p.recent...)
		p.mu.Unlock()
		return p.writeLogcat(w, evs, simtext.FormatThreadtime, nil)
	case len(args) >= 1 && args[0] == "logcat":
		return p.streamLogcat(ctx, w)
	}
	_, err := fmt.Fprintf(w, "/system/bin/sh: %s: inaccessible or not found\n", strings.Join(args, " "))
	return err
}

// streamLogcat writes the app's log as `logcat -v monotonic -v usec` prints it, as it happens.
func (p *phone) streamLogcat(ctx context.Context, w io.Writer) error {
	sub := p.fan.Subscribe()
	p.streamedAt.CompareAndSwap(0, p.sim.Now())
	defer p.fan.Unsubscribe(sub)
	start := time.Now()
	announced := map[int64]bool{} // a long message's Dispatching line is printed while it runs
	for {
		select {
		case <-ctx.Done():
			return nil
		case b := <-sub:
			if err := p.writeLogcat(w, b, simtext.FormatMonotonic, announced); err != nil {
				return nil
			}
			if cut := p.cutAfter.Load(); cut > 0 && time.Since(start) > time.Duration(cut) {
				p.cutAfter.Store(0)
				return nil // the stream ends, as when logd restarts
			}
		}
	}
}

// writeLogcat writes the app's logged events in format f: Looper printer lines when the
// printer is on, Choreographer's Skipped lines always, on the app's current pid. announced
// (live streams) carries the long messages whose Dispatching line went out while they ran.
func (p *phone) writeLogcat(w io.Writer, b []source.Event, f simtext.LogFormat, announced map[int64]bool) error {
	pid := int(p.pid.Load())
	evs := b[:0:0]
	for _, ev := range b {
		switch e := ev.(type) {
		case *source.Message:
			if !p.printer.Load() {
				continue
			}
			m := *e
			m.Pid, m.Tid = pid, pid
			evs = append(evs, &m)
		case *source.Dispatch:
			if !p.printer.Load() {
				continue
			}
			d := *e
			d.Pid, d.Tid = pid, pid
			evs = append(evs, &d)
		case *source.Skipped:
			s := *e
			s.Pid = pid
			evs = append(evs, &s)
		}
	}
	var buf bytes.Buffer
	if err := simtext.RenderLogcat(&buf, evs, f, simtext.LogcatOptions{ClockOffsetNs: p.logOffsetNs, Pid: pid, Announced: announced}); err != nil {
		return err
	}
	_, err := w.Write(p.damage.apply(buf.Bytes()))
	return err
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
