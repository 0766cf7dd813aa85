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
)

// metronome is an app on a fake phone that draws one light frame on every vsync while drawing
// is on and nothing at all while it is off: the idle app and its resume, with every frame it
// drew known (the simulator's scenarios never stay idle for long). Its gfxinfo dump keeps the
// last 120 frames as hwui does; its logcat prints Choreographer's vsync message for every frame
// (the Looper printer lines of a debug build) as it happens.
type metronome struct {
	hz     float64
	period int64
	dump   *simtext.GfxinfoDump
	t0     time.Time
	// drawing: the app draws a frame on every vsync
	drawing atomic.Bool

	// late: how late its loop woke (a starved test process draws in a burst, and logs late)
	late stalls

	mu     sync.Mutex
	frames []drawnFrame   // every frame drawn
	fan    testkit.Fanout // the open logcat streams

	cancel context.CancelFunc
	done   chan struct{}
}

const (
	metroPid    = 4242
	metroWindow = pkg + "/" + pkg + ".FeedActivity"
	metroBaseNs = int64(1000 * time.Second) // the device's uptime when the metronome starts
)

func startMetronome(t testing.TB, hz float64) *metronome {
	t.Helper()
	m := &metronome{hz: hz, period: int64(1e9 / hz), t0: time.Now(), done: make(chan struct{}),
		dump: simtext.NewGfxinfoDump(pkg, metroPid, metroBaseNs)}
	m.dump.SetWindow(metroWindow, "", true, metroBaseNs)
	ctx, cancel := context.WithCancel(context.Background())
	m.cancel = cancel
	go m.run(ctx)
	t.Cleanup(m.stop)
	return m
}

func (m *metronome) stop() {
	m.cancel()
	<-m.done
}

// wall is the host's time of device uptime v.
func (m *metronome) wall(v int64) time.Time { return m.t0.Add(time.Duration(v - metroBaseNs)) }

// now is the device's uptime.
func (m *metronome) now() int64 { return metroBaseNs + int64(time.Since(m.t0)) }

// run draws the frames whose vsync came: a frame is complete 5 ms after its vsync.
func (m *metronome) run(ctx context.Context) {
	defer close(m.done)
	tk := time.NewTicker(4 * time.Millisecond)
	defer tk.Stop()
	next := metroBaseNs
	prev := time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tk.C:
		}
		now := time.Now()
		m.late.woke(now, now.Sub(prev)-4*time.Millisecond)
		prev = now
		var batch []source.Event
		for now := m.now(); next+6_000_000 <= now; next += m.period {
			if !m.drawing.Load() {
				continue
			}
			f, msg := m.frame(next)
			m.dump.AddFrame(f)
			batch = append(batch, msg)
			m.mu.Lock()
			m.frames = append(m.frames, drawnFrame{next, m.now()})
			m.mu.Unlock()
		}
		if len(batch) > 0 {
			m.fan.Send(batch)
		}
	}
}

// frame is the frame drawn on vsync v and its vsync message.
func (m *metronome) frame(v int64) (*source.Frame, *source.Message) {
	const us = 1000
	ph := &source.Phases{Vsync: v, HandleInputStart: v + 200*us, AnimationStart: v + 300*us,
		PerformTraversalsStart: v + 500*us, DrawStart: v + 1000*us, SyncQueued: v + 2000*us, SyncStart: v + 2100*us,
		IssueDrawCommandsStart: v + 2500*us, SwapBuffers: v + 4000*us, FrameCompleted: v + 5000*us,
		GpuCompleted: v + 5000*us, SwapBuffersCompleted: v + 5000*us, FrameStartTime: v, CommandSubmissionCompleted: v + 4500*us}
	f := &source.Frame{Window: metroWindow, VsyncNs: v, DoneNs: v + 5000*us, UIDoneNs: v + 2100*us, IntervalNs: m.period,
		DeadlineNs: v + 2*m.period, VsyncID: v / 1000, Phases: ph}
	msg := &source.Message{Pid: metroPid, Tid: metroPid, Handler: "android.view.Choreographer$FrameHandler",
		Callback: "android.view.Choreographer$FrameDisplayEventReceiver@3c1e2a9", StartNs: v + 100*us, EndNs: v + 2100*us}
	return f, msg
}

// drawnFrame is a frame the metronome drew: its vsync, and the device's uptime when its row
// joined the dump (later than vsync + 6 ms when the test process was starved).
type drawnFrame struct{ vsync, added int64 }

// drawn is every frame with a vsync from from on whose row joined the dump before the dump
// served at device uptime by (less a millisecond, against the two clocks' order): the frames
// a dump at by could show.
func (m *metronome) drawn(from, by int64) []drawnFrame {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []drawnFrame
	for _, f := range m.frames {
		if f.vsync >= from && f.added < by-1_000_000 {
			out = append(out, f)
		}
	}
	return out
}

// handler serves what fpstop asks the phone.
func (m *metronome) handler(ctx context.Context, cmd string, w io.Writer) error {
	args := fakeadb.Args(cmd)
	switch {
	case len(args) >= 3 && args[0] == "dumpsys" && args[1] == "gfxinfo":
		var b bytes.Buffer
		switch {
		case args[2] != pkg:
			_ = simtext.RenderNoProcess(&b, args[2])
		case contains(args, "framestats"):
			_ = m.dump.Render(&b, m.now(), simtext.LayoutAndroid13)
		default:
			_ = m.dump.RenderSummary(&b, m.now(), simtext.LayoutAndroid13)
		}
		_, err := w.Write(b.Bytes())
		return err
	case len(args) >= 2 && args[0] == "dumpsys" && args[1] == "display":
		_, err := fmt.Fprintf(w, "  DisplayDeviceInfo{\"Built-in Screen\": uniqueId=\"local:1\", 1080 x 2400, modeId 1, renderFrameRate %.5f, defaultModeId 1, supportedModes [{id=1, width=1080, height=2400, fps=%.5f, vsync=%.5f}]}\n", m.hz, m.hz, m.hz)
		return err
	case len(args) >= 2 && args[0] == "dumpsys" && (args[1] == "activity" || args[1] == "window"):
		_, err := fmt.Fprintf(w, "  mResumedActivity: ActivityRecord{5e1f2a u0 %s/.FeedActivity t41}\n  mCurrentFocus=Window{a1b2c3 u0 %s/%s.FeedActivity}\n", pkg, pkg, pkg)
		return err
	case len(args) == 2 && args[0] == "pidof":
		if args[1] != pkg {
			return nil
		}
		_, err := fmt.Fprintf(w, "%d\n", metroPid)
		return err
	case len(args) >= 1 && args[0] == "logcat" && (contains(args, "-d") || contains(args, "-t")):
		return nil
	case len(args) >= 1 && args[0] == "logcat":
		return m.stream(ctx, w)
	}
	_, err := fmt.Fprintf(w, "/system/bin/sh: %s: inaccessible or not found\n", strings.Join(args, " "))
	return err
}

// stream writes the app's vsync messages as `logcat -v monotonic -v usec` prints them.
func (m *metronome) stream(ctx context.Context, w io.Writer) error {
	sub := m.fan.Subscribe()
	defer m.fan.Unsubscribe(sub)
	for {
		select {
		case <-ctx.Done():
			return nil
		case b := <-sub:
			var buf bytes.Buffer
			if err := simtext.RenderLogcat(&buf, b, simtext.FormatMonotonic, simtext.LogcatOptions{Pid: metroPid}); err != nil {
				return err
			}
			if _, err := w.Write(buf.Bytes()); err != nil {
				return nil
			}
		}
	}
}
